// SPDX-License-Identifier: GPL-2.0
/*
 * The unit test's cases: RUN() and the checks that follow it, over the
 * fixture of ut_fixture.c.
 */
#include <scsi/scsi_proto.h>
#include "ut.h"

u8 ut_data[UT_DATA_LEN];
struct tcmx_cmd ut_cmd;
u8 ut_sense[TCMX_SENSE_BUFFER_LEN];
const u8 *ut_out;
u32 ut_out_len;
u8 ut_cdb_len;

static struct scatterlist ut_sg = { ut_data, sizeof(ut_data) };
/* a DATA-OUT case's parameter list: ut_run() sends it, ut_data stays */
u8 *ut_dout;
static struct scatterlist ut_dout_sg;
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

int ut_warns;
bool ut_warn_ok;

void ut_warn(const char *file, int line)
{
	ut_warns++;
	if (ut_warn_ok)
		return;
	printf("WARN at %s:%d\n", file, line);
	ut_case.failures++;
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


/* The sense code whose key/ASC/ASCQ ut_sense holds, checking its frame. */
static int ut_decode_sense(const char *file, int line)
{
	const u8 *s = ut_sense;
	u8 key, asc, ascq;
	int code;

	if (ut_cmd.status != SAM_STAT_CHECK_CONDITION ||
	    ut_cmd.sense_len != 8 + s[7] ||
	    ut_cmd.sense_len > TCMX_SENSE_BUFFER_LEN) {
		printf("FAIL %s:%d: CHECK CONDITION with status 0x%02x, sense_len %u, byte 7 %u\n",
		       file, line, ut_cmd.status, ut_cmd.sense_len, s[7]);
		return UT_BAD_SENSE;
	}
	if (ut_sense_kcq(s, &key, &asc, &ascq)) {
		printf("FAIL %s:%d: sense response code 0x%02x\n", file, line,
		       s[0]);
		return UT_BAD_SENSE;
	}
	code = ut_sense_code(key, asc, ascq);
	if (code == UT_BAD_SENSE)
		printf("FAIL %s:%d: unexpected sense %02x/%02x/%02x\n", file,
		       line, key, asc, ascq);
	return code;
}

int ut_run(const char *file, int line, const u8 *cdb, u32 data_len,
	   enum dma_data_direction dir, u64 lun_id)
{
	struct tcmx_cmd *cmd = &ut_cmd;
	struct scatterlist *sg = &ut_sg;
	int s;

	ut_close_case();
	ut_case.open = true;
	ut_case.number++;
	ut_case.file = file;
	ut_case.line = line;
	ut_case.checks = 0;
	ut_case.failures = 0;

	memset(ut_cdb, 0, sizeof(ut_cdb));
	memcpy(ut_cdb, cdb, ut_cdb_len ?: 16);
	memset(ut_data, UT_FILL, sizeof(ut_data));
	if (ut_out) {	/* RUN_OUT(): the data-out buffer's contents */
		memcpy(ut_data, ut_out, ut_out_len);
		ut_out = NULL;
	}
	memset(ut_sense, UT_FILL, sizeof(ut_sense));
	if (dir == DMA_TO_DEVICE && ut_dout) {
		ut_dout_sg.buf = ut_dout;
		ut_dout_sg.len = data_len;
		sg = &ut_dout_sg;
	}
	ut_cmd_prepare(cmd, ut_cdb, sg, data_len, dir, lun_id, ut_sense);
	if (ut_cdb_len) {	/* RUN_LEN(): the CDB as the transport carried it */
		cmd->cdb_len = ut_cdb_len;
		ut_cdb_len = 0;
	}
	s = ut_cmd_exec(cmd);
	if (s == UT_NO_EXECUTE) {
		ut_check(file, line, false, "parse set ->execute, ->desc");
		return UT_BAD_SENSE;
	}
	if (getenv("UT_DUMP") && cmd->execute != ut_stub_rw)
		ut_dump();
	switch (s) {
	case TCMX_GOOD:
		return cmd->status == SAM_STAT_GOOD ? UT_GOOD : UT_BAD_SENSE;
	case TCMX_BUSY:
		return UT_BUSY;
	case TCMX_DEFERRED:
		return UT_DEFERRED;
	case TCMX_CONFLICT:
		return UT_CONFLICT;
	case TCMX_CHECK:
		return ut_decode_sense(file, line);
	}
	return UT_BAD_SENSE;
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

void ut_expect(const char *file, int line, int got, int want)
{
	if (ut_broken())
		want = want == UT_GOOD ? UT_BUSY : UT_GOOD;
	if (got != want) {
		printf("FAIL %s:%d: outcome %d, want %d\n", file, line, got,
		       want);
		ut_case.failures++;
		return;
	}
	/*
	 * A command that fails moves no data in; of a data-out buffer it
	 * may have taken (xfer_len: the residual) what it read before it
	 * failed.
	 */
	if (got != UT_GOOD && got != UT_DEFERRED)
		ut_check(file, line, ut_cmd.data_dir == DMA_TO_DEVICE ?
			 ut_cmd.xfer_len <= ut_cmd.data_len :
			 ut_cmd.xfer_len == 0 && ut_data[0] == UT_FILL,
			 "no data on error");
}

void ut_check_sense(const char *file, int line, const u8 *want, u32 len)
{
	u8 flip = ut_broken();
	u32 i;

	ut_case.checks++;
	if (ut_cmd.sense_len != len) {
		printf("FAIL %s:%d: sense is %u bytes, want %u\n", file, line,
		       ut_cmd.sense_len, len);
		ut_case.failures++;
		return;
	}
	for (i = 0; i < len; i++) {
		if (ut_sense[i] == (u8)(want[i] ^ (i ? 0 : flip)))
			continue;
		printf("FAIL %s:%d: sense byte %u is 0x%02x, want 0x%02x\n",
		       file, line, i, ut_sense[i], want[i]);
		ut_case.failures++;
		return;
	}
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
	if (tcmx_cdb_init()) {
		printf("FAIL: the command table does not build\n");
		return 1;
	}
	ut_fixture_reset();
	ut_test_sbc();
	ut_fixture_reset();
	ut_test_spc();
	ut_fixture_reset();
	ut_test_cdb();
	ut_fixture_reset();
	ut_test_lbp();
	ut_fixture_reset();
	ut_test_integrity();
	ut_fixture_reset();
	ut_test_xcopy();
	ut_fixture_reset();
	ut_test_timestamp_buffers();
	ut_fixture_reset();
	ut_test_mode();
	ut_fixture_reset();
	ut_test_pr();
	ut_fixture_reset();
	ut_test_nexus();
	ut_close_case();
	printf("%d passed, %d failed\n", ut_passed, ut_failed);
	return ut_failed ? 1 : 0;
}
