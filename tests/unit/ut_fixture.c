// SPDX-License-Identifier: GPL-2.0
/*
 * The harness's fixture, shared by the unit test (ut_main.c) and the CDB
 * fuzzer (fuzz_cdb.c): the little of the kernel and of the rest of the
 * core (transport.c, device.c) that the linked target/ files call, the
 * device behind its LUNs, the set-up and run of one command, and what each
 * sense code holds.
 */
#include <linux/errno.h>
#include <scsi/scsi_proto.h>
#include "ut.h"

struct tcmx_core_dev ut_cdev;
struct tcmx_wwn ut_wwn;
struct tcmx_tpg ut_tpg;
struct tcmx_nexus ut_nexus;
struct tcmx_lun ut_luns[4];
void *ut_slots[UT_XA_MAX];
struct tcmx_itl ut_itls[4];
void *ut_itl_slots[UT_XA_MAX];
const struct tcmx_fabric_ops ut_fabric_ops = {
	.name = "loopback",
	.nexus_per_tpg = true,
};
struct tcmx_backend_ops ut_ops = {
	.sync_cache = ut_stub_sync,
};
struct tcmx_nexus *ut_run_nexus;
unsigned long jiffies;
u64 ut_real_ns;

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

/*
 * The midlayer's sense helpers (drivers/scsi/scsi_common.c), as their
 * kernel-doc describes them: fixed (0x70) or descriptor (0x72) format,
 * current error; INFORMATION and the sense-key-specific field pointer.
 */
void scsi_build_sense_buffer(int desc, u8 *buf, u8 key, u8 asc, u8 ascq)
{
	if (desc) {
		buf[0] = 0x72;
		buf[1] = key;
		buf[2] = asc;
		buf[3] = ascq;
		buf[7] = 0;
	} else {
		buf[0] = 0x70;
		buf[2] = key;
		buf[7] = 10;
		buf[12] = asc;
		buf[13] = ascq;
	}
}

/* a new descriptor of @len bytes at the end of descriptor-format data */
static u8 *ut_sense_desc(u8 *buf, int buf_len, u8 type, u8 len)
{
	u8 *d = buf + 8 + buf[7];

	if (8 + buf[7] + len > buf_len)
		return NULL;
	buf[7] += len;
	d[0] = type;
	d[1] = len - 2;
	return d;
}

int scsi_set_sense_information(u8 *buf, int buf_len, u64 info)
{
	u8 *d;

	if (buf[0] == 0x72) {
		d = ut_sense_desc(buf, buf_len, 0x00, 12);
		if (!d)
			return -EINVAL;
		d[2] = 0x80;				/* VALID */
		put_unaligned_be64(info, &d[4]);
	} else {
		if (info <= U32_MAX)
			buf[0] |= 0x80;			/* VALID */
		put_unaligned_be32((u32)info, &buf[3]);
	}
	return 0;
}

int scsi_set_sense_field_pointer(u8 *buf, int buf_len, u16 fp, u8 bp, bool cd)
{
	u8 *sks;

	if (buf[0] == 0x72) {
		sks = ut_sense_desc(buf, buf_len, 0x02, 8);
		if (!sks)
			return -EINVAL;
		sks += 4;
	} else {
		if (buf[7] < 18)
			buf[7] = 18;
		sks = &buf[15];
	}
	sks[0] = 0x80 | (cd ? 0x40 : 0) | (bp < 8 ? 0x08 | bp : 0);
	put_unaligned_be16(fp, &sks[1]);
	return 0;
}

/* ---- the rest of the core ---- */

enum tcmx_status ut_stub_rw(struct tcmx_cmd *cmd)
{
	return TCMX_GOOD;
}

enum tcmx_status ut_stub_sync(struct tcmx_cmd *cmd)
{
	return TCMX_DEFERRED;
}

/* ---- fixture: a 1 GiB, 512-byte-block rd device behind 4 LUNs ---- */

void ut_fixture_reset(void)
{
	unsigned int i;

	memset(&ut_cdev, 0, sizeof(ut_cdev));
	tcmx_excl_init(&ut_cdev);
	tcmx_pr_dev_init(&ut_dev);
	tcmx_ua_dev_init(&ut_dev);
	ut_dev.group.cg_item.ci_name = "r0";
	ut_dev.ops = &ut_ops;
	ut_dev.execute_rw = ut_stub_rw;
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
	ut_dev.attrib.emulate_caw = 1;
	ut_dev.attrib.emulate_3pc = 1;
	strcpy(ut_cdev.t10.vendor, "LIO-ORG");
	strcpy(ut_cdev.t10.model, "r0");
	strcpy(ut_cdev.t10.revision, "4.0");
	strcpy(ut_cdev.t10.unit_serial, "3a5b0712-04c1-4f5e-9e4b-0123456789ab");
	ut_cdev.t10.company_id = 0x001405;
	ut_cdev.default_tg_pt_gp.id = 0;
	ut_cdev.default_tg_pt_gp.access_type = 3;
	ut_cdev.default_tg_pt_gp.supported = 0xdf;
	INIT_LIST_HEAD(&ut_cdev.tg_pt_gps);
	list_add_tail(&ut_cdev.default_tg_pt_gp.node, &ut_cdev.tg_pt_gps);
	ut_cdev.export_count = 1;

	memset(&ut_wwn, 0, sizeof(ut_wwn));
	ut_wwn.group.cg_item.ci_name = "naa.50014050a1b2c3d4";
	memset(&ut_tpg, 0, sizeof(ut_tpg));
	ut_tpg.wwn = &ut_wwn;
	ut_tpg.tag = 1;
	ut_tpg.luns.slot = ut_slots;
	INIT_LIST_HEAD(&ut_tpg.acls);		/* no node ACL */
	/* demo mode: the nexus's map is the TPG's LUNs */
	memset(&ut_nexus, 0, sizeof(ut_nexus));
	ut_run_nexus = NULL;
	ut_nexus.tpg = &ut_tpg;
	ut_nexus.luns.slot = ut_slots;
	memset(ut_slots, 0, sizeof(ut_slots));
	memset(ut_luns, 0, sizeof(ut_luns));
	static const u64 index[] = { 0, 5, 7, 300 };

	for (i = 0; i < ARRAY_SIZE(ut_luns); i++) {
		ut_luns[i].index = index[i];
		ut_luns[i].dev = &ut_dev;
		ut_luns[i].tpg = &ut_tpg;
		ut_luns[i].tg_pt_gp = &ut_cdev.default_tg_pt_gp;
		ut_luns[i].rtpi = i + 1;
	}
	ut_luns[2].dev = NULL;			/* unlinked */
	ut_slots[0] = &ut_luns[0];
	ut_slots[5] = &ut_luns[1];
	ut_slots[7] = &ut_luns[2];
	ut_slots[300] = &ut_luns[3];
	/* ut_nexus's state of each entry (I_T_L nexus), none pending */
	ut_tpg.ops = &ut_fabric_ops;
	ut_nexus.itls.slot = ut_itl_slots;
	memset(ut_itl_slots, 0, sizeof(ut_itl_slots));
	memset(ut_itls, 0, sizeof(ut_itls));
	INIT_LIST_HEAD(&ut_cdev.itls);
	for (i = 0; i < ARRAY_SIZE(ut_luns); i++) {
		if (!ut_luns[i].dev)
			continue;
		ut_itls[i].nexus = &ut_nexus;
		ut_itls[i].lun = &ut_luns[i];
		ut_itls[i].dev = &ut_dev;
		ut_itls[i].id = ut_luns[i].index;
		/* the map entry's reference, never dropped: not allocated */
		refcount_set(&ut_itls[i].ref, 1);
		ut_itl_slots[ut_itls[i].id] = &ut_itls[i];
		list_add_tail(&ut_itls[i].dev_node, &ut_cdev.itls);
	}
	/* the linked ones export the device */
	ut_cdev.luns.next = ut_cdev.luns.prev = &ut_cdev.luns;
	for (i = 0; i < ARRAY_SIZE(ut_luns); i++) {
		if (!ut_luns[i].dev)
			continue;
		ut_luns[i].dev_node.prev = ut_cdev.luns.prev;
		ut_luns[i].dev_node.next = &ut_cdev.luns;
		ut_cdev.luns.prev->next = &ut_luns[i].dev_node;
		ut_cdev.luns.prev = &ut_luns[i].dev_node;
	}
}

/* ---- one command ---- */

void ut_cmd_prepare(struct tcmx_cmd *cmd, const u8 *cdb,
		    struct scatterlist *sg, u32 data_len,
		    enum dma_data_direction dir, u64 lun_id, u8 *sense)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->nexus = ut_run_nexus ?: &ut_nexus;
	cmd->tpg = &ut_tpg;
	cmd->lun_id = lun_id;
	cmd->cdb = cdb;
	cmd->cdb_len = TCMX_CDB_MAX;	/* padded, as iSCSI and FCP carry it */
	cmd->sgl = sg;
	cmd->sg_nents = 1;
	cmd->data_len = data_len;
	cmd->data_dir = dir;
	cmd->sense = sense;
	/* what transport.c's lookup gives: no LUN unless it has a device */
	cmd->lun = tcmx_map_lun(xa_load(&cmd->nexus->luns, lun_id));
	cmd->dev = cmd->lun ? cmd->lun->dev : NULL;
	if (!cmd->dev)
		cmd->lun = NULL;
}

/*
 * What tcmx_submit_cmd() (transport.c, not built here) does after the LUN
 * lookup, in its order: row, gate, decode, exclusion, execute.  The stub
 * tcmx_defer() runs a deferred ->execute at once.
 */
int ut_cmd_exec(struct tcmx_cmd *cmd)
{
	const struct tcmx_cmd_desc *d = tcmx_cdb_row(cmd->cdb);
	unsigned long gate = cmd->dev ? READ_ONCE(cmd->dev->gate) : 0;
	enum tcmx_status s = TCMX_GOOD;

	if (gate)
		s = tcmx_gate(cmd, d, gate);
	if (s == TCMX_GOOD)
		s = tcmx_parse_cdb(cmd, d);
	if (gate & BIT(TCMX_GATE_EXCL) && s == TCMX_GOOD &&
	    tcmx_excl_waits(cmd))
		return tcmx_defer(cmd, tcmx_excl_rw);
	if (s != TCMX_GOOD)
		return s;
	if (!cmd->execute || !cmd->desc)
		return UT_NO_EXECUTE;
	if (tcmx_cmd_defers(cmd, d))
		return tcmx_defer(cmd, cmd->execute);
	return cmd->execute(cmd);
}

/* ---- sense codes ---- */

/* What the harness expects of each sense code, independently of reply.c. */
static const struct {
	int code;
	u8 key, asc, ascq;
} ut_codes[] = {
	{ TCMX_SENSE_NO_SENSE,		  0x00, 0x00, 0x00 },
	{ TCMX_SENSE_INVALID_OPCODE,	  0x05, 0x20, 0x00 },
	{ TCMX_SENSE_LBA_OUT_OF_RANGE,	  0x05, 0x21, 0x00 },
	{ TCMX_SENSE_INVALID_CDB_FIELD,	  0x05, 0x24, 0x00 },
	{ TCMX_SENSE_LUN_NOT_SUPPORTED,	  0x05, 0x25, 0x00 },
	{ TCMX_SENSE_INVALID_PARAM_FIELD, 0x05, 0x26, 0x00 },
	{ TCMX_SENSE_INVALID_RELEASE,	  0x05, 0x26, 0x04 },
	{ TCMX_SENSE_SAVING_NOT_SUPPORTED, 0x05, 0x39, 0x00 },
	{ TCMX_SENSE_SPACE_ALLOC_FAILED,  0x07, 0x27, 0x07 },
	{ TCMX_SENSE_INTERNAL_ERROR,	  0x04, 0x44, 0x00 },
	{ TCMX_SENSE_PARAM_LIST_LENGTH,	  0x05, 0x1a, 0x00 },
	{ TCMX_SENSE_TOO_MANY_TARGET_DESC, 0x05, 0x26, 0x06 },
	{ TCMX_SENSE_UNSUPPORTED_TARGET_DESC, 0x05, 0x26, 0x07 },
	{ TCMX_SENSE_TOO_MANY_SEGMENT_DESC, 0x05, 0x26, 0x08 },
	{ TCMX_SENSE_UNSUPPORTED_SEGMENT_DESC, 0x05, 0x26, 0x09 },
	{ TCMX_SENSE_COPY_TARGET_NOT_REACHABLE, 0x0a, 0x0d, 0x02 },
	{ TCMX_SENSE_WRITE_PROTECTED,	  0x07, 0x27, 0x00 },
	{ TCMX_SENSE_COMMAND_SEQUENCE,	  0x05, 0x2c, 0x00 },
	{ TCMX_SENSE_INSUFFICIENT_RESOURCES, 0x05, 0x55, 0x03 },
	{ TCMX_SENSE_OPERATION_IN_PROGRESS, 0x05, 0x00, 0x16 },
	{ TCMX_SENSE_MISCOMPARE,	  0x0e, 0x1d, 0x00 },
	{ TCMX_SENSE_UA_POWER_ON,	  0x06, 0x29, 0x00 },
	{ TCMX_SENSE_UA_BUS_RESET,	  0x06, 0x29, 0x02 },
	{ TCMX_SENSE_UA_DEVICE_RESET,	  0x06, 0x29, 0x03 },
	{ TCMX_SENSE_UA_I_T_NEXUS_LOSS,	  0x06, 0x29, 0x07 },
	{ TCMX_SENSE_UA_MODE_CHANGED,	  0x06, 0x2a, 0x01 },
	{ TCMX_SENSE_UA_RES_PREEMPTED,	  0x06, 0x2a, 0x03 },
	{ TCMX_SENSE_UA_RES_RELEASED,	  0x06, 0x2a, 0x04 },
	{ TCMX_SENSE_UA_REG_PREEMPTED,	  0x06, 0x2a, 0x05 },
	{ TCMX_SENSE_UA_LUNS_CHANGED,	  0x06, 0x3f, 0x0e },
	{ TCMX_SENSE_INVALID_IU_FIELD,	  0x05, 0x0e, 0x03 },
	{ TCMX_SENSE_UA_INQUIRY_CHANGED,  0x06, 0x3f, 0x03 },
	{ TCMX_SENSE_INSUFFICIENT_REG_RESOURCES, 0x05, 0x55, 0x04 },
	{ TCMX_SENSE_LU_COMM_FAILURE,     0x02, 0x08, 0x00 },
	{ TCMX_SENSE_ALUA_TRANSITIONING,  0x02, 0x04, 0x0a },
	{ TCMX_SENSE_ALUA_STANDBY,	  0x02, 0x04, 0x0b },
	{ TCMX_SENSE_ALUA_UNAVAILABLE,	  0x02, 0x04, 0x0c },
	{ TCMX_SENSE_ALUA_OFFLINE,	  0x02, 0x04, 0x12 },
	{ TCMX_SENSE_UA_ALUA_CHANGED,	  0x06, 0x2a, 0x06 },
	{ TCMX_SENSE_PROTOCOL_CRC,	  0x0b, 0x47, 0x05 },
	{ TCMX_SENSE_SANITIZE_IN_PROGRESS, 0x02, 0x04, 0x1b },
	{ TCMX_SENSE_COMMAND_ABORTED,	  0x0b, 0x00, 0x00 },
	{ TCMX_SENSE_MEDIUM_ERROR_WRITE,  0x03, 0x0c, 0x00 },
};

int ut_sense_kcq(const u8 *s, u8 *key, u8 *asc, u8 *ascq)
{
	if ((s[0] & 0x7f) == 0x72) {
		*key = s[1] & 0x0f;
		*asc = s[2];
		*ascq = s[3];
	} else if ((s[0] & 0x7f) == 0x70) {
		*key = s[2] & 0x0f;
		*asc = s[12];
		*ascq = s[13];
	} else {
		return -1;
	}
	return 0;
}

int ut_sense_code(u8 key, u8 asc, u8 ascq)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ut_codes); i++)
		if (ut_codes[i].key == key && ut_codes[i].asc == asc &&
		    ut_codes[i].ascq == ascq)
			return ut_codes[i].code;
	return UT_BAD_SENSE;
}
