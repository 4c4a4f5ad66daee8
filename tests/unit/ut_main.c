// SPDX-License-Identifier: GPL-2.0
/*
 * Harness, fixtures and the little of the kernel and of the rest of the core
 * (transport.c, device.c) that sbc.c and spc.c call.
 */
#include "ut.h"

u8 ut_data[UT_DATA_LEN];
struct tcmx_cmd ut_cmd;
struct tcmx_dev ut_dev;
struct tcmx_wwn ut_wwn;
struct tcmx_tpg ut_tpg;
struct tcmx_lun ut_luns[4];
void *ut_slots[UT_XA_MAX];
struct tcmx_backend_ops ut_ops = {
	.execute_rw = ut_stub_rw,
	.sync_cache = ut_stub_sync,
};

static struct scatterlist ut_sg = { ut_data, sizeof(ut_data) };
static u8 ut_cdb[32];
static int ut_passed, ut_failed;
static int ut_break = -1;	/* UT_BREAK=n: case n's first check must fail */
static struct {
	bool open;
	const char *file;
	int line;
	int number;
	int checks;
	int failures;
} ut_case;

/* true if this check is the one UT_BREAK asks to invert */
static bool ut_broken(void)
{
	return ut_case.number == ut_break && ut_case.checks == 0;
}

/* ---- kernel stand-ins ---- */

void ut_printk(const char *fmt, ...)
{
	va_list ap;

	if (!getenv("UT_VERBOSE"))
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void ut_warn(const char *file, int line)
{
	printf("WARN at %s:%d\n", file, line);
	ut_case.failures++;
}

int hex_to_bin(unsigned char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch |= 0x20;
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	return (size_t)n >= size ? (int)size - 1 : n;
}

size_t sg_pcopy_from_buffer(struct scatterlist *sg, unsigned int nents,
			    const void *buf, size_t len, size_t skip)
{
	if (!nents || skip >= sg->len)
		return 0;
	len = min(len, sg->len - skip);
	memcpy(sg->buf + skip, buf, len);
	return len;
}

size_t sg_pcopy_to_buffer(struct scatterlist *sg, unsigned int nents,
			  void *buf, size_t len, size_t skip)
{
	if (!nents || skip >= sg->len)
		return 0;
	len = min(len, sg->len - skip);
	memcpy(buf, sg->buf + skip, len);
	return len;
}

/* ---- the rest of the core, as transport.c/device.c define it ---- */

size_t tcmx_cmd_copy_to_sgl(struct tcmx_cmd *cmd, const void *buf, size_t len)
{
	len = min_t(size_t, len, cmd->data_len);
	if (!len || !cmd->sgl) {
		cmd->xfer_len = 0;
		return 0;
	}
	cmd->xfer_len = sg_copy_from_buffer(cmd->sgl, cmd->sg_nents, buf, len);
	return cmd->xfer_len;
}

u8 tcmx_lun_alua_state(struct tcmx_lun *lun)
{
	return lun->tg_pt_gp->access_state;
}

enum tcmx_sense ut_stub_rw(struct tcmx_cmd *cmd)
{
	return TCMX_SENSE_NONE;
}

enum tcmx_sense ut_stub_sync(struct tcmx_cmd *cmd)
{
	return TCMX_SENSE_DEFERRED;
}

/* ---- fixture: a 1 GiB, 512-byte-block rd device behind 4 LUNs ---- */

void ut_fixture_reset(void)
{
	unsigned int i;

	memset(&ut_dev, 0, sizeof(ut_dev));
	ut_dev.group.cg_item.ci_name = "r0";
	ut_dev.ops = &ut_ops;
	ut_dev.nr_blocks = 2097152;
	ut_dev.block_size = 512;
	ut_dev.block_shift = 9;
	ut_dev.attrib.block_size = 512;
	ut_dev.attrib.hw_max_sectors = 4294967288u;
	ut_dev.attrib.optimal_sectors = 4294967288u;
	ut_dev.attrib.is_nonrot = 1;
	ut_dev.attrib.alua_support = 1;
	ut_dev.attrib.emulate_tas = 1;
	ut_dev.attrib.emulate_write_cache = 1;
	ut_dev.attrib.emulate_fua_write = 1;
	strcpy(ut_dev.t10.vendor, "LIO-ORG");
	strcpy(ut_dev.t10.model, "r0");
	strcpy(ut_dev.t10.revision, "4.0");
	strcpy(ut_dev.t10.unit_serial, "3a5b0712-04c1-4f5e-9e4b-0123456789ab");
	ut_dev.t10.company_id = 0x001405;
	ut_dev.default_tg_pt_gp.id = 0;
	ut_dev.default_tg_pt_gp.access_type = 3;
	ut_dev.default_tg_pt_gp.supported = 0xdf;
	ut_dev.export_count = 1;

	memset(&ut_wwn, 0, sizeof(ut_wwn));
	ut_wwn.group.cg_item.ci_name = "naa.50014050a1b2c3d4";
	memset(&ut_tpg, 0, sizeof(ut_tpg));
	ut_tpg.wwn = &ut_wwn;
	ut_tpg.tag = 1;
	ut_tpg.luns.slot = ut_slots;
	memset(ut_slots, 0, sizeof(ut_slots));
	memset(ut_luns, 0, sizeof(ut_luns));
	for (i = 0; i < ARRAY_SIZE(ut_luns); i++) {
		ut_luns[i].dev = &ut_dev;
		ut_luns[i].tg_pt_gp = &ut_dev.default_tg_pt_gp;
		ut_luns[i].rtpi = i + 1;
	}
	ut_luns[2].dev = NULL;			/* unlinked */
	ut_slots[0] = &ut_luns[0];
	ut_slots[5] = &ut_luns[1];
	ut_slots[7] = &ut_luns[2];
	ut_slots[300] = &ut_luns[3];
}

/* ---- cases ---- */

static void ut_close_case(void)
{
	if (!ut_case.open)
		return;
	if (!ut_case.failures && !ut_case.checks) {
		printf("FAIL %s:%d: no byte assertion\n", ut_case.file,
		       ut_case.line);
		ut_case.failures++;
	}
	if (ut_case.failures)
		ut_failed++;
	else
		ut_passed++;
	ut_case.open = false;
}

static void ut_dump(void)
{
	u32 i;

	printf("%s:%d xfer_len %u\n", ut_case.file, ut_case.line,
	       ut_cmd.xfer_len);
	for (i = 0; i < ut_cmd.xfer_len && i < 4096; i++)
		printf("0x%02x,%s", ut_data[i], i % 16 == 15 ? "\n" : " ");
	printf("\n");
}

enum tcmx_sense ut_run(const char *file, int line, const u8 *cdb,
		       u32 data_len, enum dma_data_direction dir, u64 lun_id)
{
	struct tcmx_cmd *cmd = &ut_cmd;
	enum tcmx_sense s;

	ut_close_case();
	ut_case.open = true;
	ut_case.number++;
	ut_case.file = file;
	ut_case.line = line;
	ut_case.checks = 0;
	ut_case.failures = 0;

	memset(ut_cdb, 0, sizeof(ut_cdb));
	memcpy(ut_cdb, cdb, 16);
	memset(cmd, 0, sizeof(*cmd));
	memset(ut_data, UT_FILL, sizeof(ut_data));
	cmd->tpg = &ut_tpg;
	cmd->lun_id = lun_id;
	cmd->cdb = ut_cdb;
	cmd->sgl = &ut_sg;
	cmd->sg_nents = 1;
	cmd->data_len = data_len;
	cmd->data_dir = dir;
	/* what transport.c's lookup gives: no LUN unless it has a device */
	cmd->lun = lun_id < UT_XA_MAX ? ut_slots[lun_id] : NULL;
	cmd->dev = cmd->lun ? cmd->lun->dev : NULL;
	if (!cmd->dev)
		cmd->lun = NULL;
	s = cmd->dev ? tcmx_parse_cdb(cmd) : tcmx_parse_cdb_nolun(cmd);
	if (s == TCMX_SENSE_NONE) {
		if (!cmd->execute) {
			ut_check(file, line, false, "parse set ->execute");
			return TCMX_SENSE_INTERNAL_ERROR;
		}
		s = cmd->execute(cmd);
	}
	if (getenv("UT_DUMP") && cmd->execute != ut_stub_rw)
		ut_dump();
	return s;
}

void ut_check(const char *file, int line, bool ok, const char *what)
{
	if (ut_broken())
		ok = !ok;
	ut_case.checks++;
	if (ok)
		return;
	printf("FAIL %s:%d: %s\n", file, line, what);
	ut_case.failures++;
}

void ut_expect(const char *file, int line, enum tcmx_sense got,
	       enum tcmx_sense want)
{
	if (ut_broken())
		want = want ? TCMX_SENSE_NONE : TCMX_SENSE_BUSY;
	if (got != want) {
		printf("FAIL %s:%d: sense %d, want %d\n", file, line, got, want);
		ut_case.failures++;
		return;
	}
	/* a command that fails moves no data */
	if (got != TCMX_SENSE_NONE && got != TCMX_SENSE_DEFERRED)
		ut_check(file, line, ut_cmd.xfer_len == 0 &&
			 ut_data[0] == UT_FILL, "no data on error");
}

void ut_check_bytes(const char *file, int line, u32 off, const u8 *want,
		    u32 len)
{
	u8 flip = ut_broken();
	u32 i;

	ut_case.checks++;
	for (i = 0; i < len; i++) {
		if (ut_data[off + i] == (u8)(want[i] ^ (i ? 0 : flip)))
			continue;
		printf("FAIL %s:%d: byte %u is 0x%02x, want 0x%02x\n", file,
		       line, off + i, ut_data[off + i], want[i]);
		ut_case.failures++;
		return;
	}
}

int main(void)
{
	if (getenv("UT_BREAK"))
		ut_break = atoi(getenv("UT_BREAK"));
	ut_fixture_reset();
	ut_test_sbc();
	ut_fixture_reset();
	ut_test_spc();
	ut_close_case();
	printf("%d passed, %d failed\n", ut_passed, ut_failed);
	return ut_failed ? 1 : 0;
}
