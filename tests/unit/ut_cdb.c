// SPDX-License-Identifier: GPL-2.0
/*
 * The command table: reserved bits with their field pointer, the data
 * direction, the two reports built from the table, and the sense builder's
 * bytes in both formats.
 */
#include <scsi/scsi_proto.h>
#include "ut.h"

#define IN	DMA_FROM_DEVICE
#define OUT	DMA_TO_DEVICE
#define NONE	DMA_NONE

/* fixed-format INVALID FIELD IN CDB pointing at CDB byte @b, bit @bit */
#define CHECK_CDB_FIELD(b, bit)						\
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0, \
		    0xc8 | (bit), 0x00, (b), 0, 0, 0, 0, 0, 0, 0, 0)

/* the same for a whole byte: no bit pointer */
#define CHECK_CDB_BYTE(b)						\
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0, \
		    0xc0, 0x00, (b), 0, 0, 0, 0, 0, 0, 0, 0)

static void cdb_reserved_bits(void)
{
	/* RDPROTECT, then the group number's reserved bits, then control */
	EXPECT(RUN(C(0x28, 0x20, 0, 0, 0, 0, 0, 0, 8), 4096, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_CDB_FIELD(1, 5);
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0x40, 0, 8), 4096, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_CDB_FIELD(6, 6);
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 8, 0x04), 4096, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_CDB_FIELD(9, 2);
	/* the first offending byte, its highest bit */
	EXPECT(RUN(C(0x12, 0x06, 0, 0, 96, 0x01), 96, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_CDB_FIELD(1, 2);
	/* beyond the CDB length nothing is checked */
	EXPECT(RUN(C(0x00, 0, 0, 0, 0, 0, 0xff, 0xff), 0, NONE, 0), UT_GOOD);
	CHECK_NO_DATA();
	/* DPO, FUA and FUA_NV may be set on READ(16) */
	EXPECT(RUN(C(0x88, 0x1a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 512, IN, 0), UT_GOOD);
	CHECK(ut_cmd.fua && ut_cmd.nr_blocks == 1);
	/* an unknown service action of a known opcode: byte 1, bit 4 */
	EXPECT(RUN(C(0xa3, 0x1f, 0, 0, 0, 0, 0, 0, 1, 0), 256, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_CDB_FIELD(1, 4);
	/* an unknown opcode */
	EXPECT(RUN(C(0xe7), 0, NONE, 0), TCMX_SENSE_INVALID_OPCODE);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0);
}

/* Parameter data never go into a DATA-OUT buffer. */
static void cdb_direction(void)
{
	static const u8 data_in[][16] = {
		{ 0x12, 0, 0, 0, 96 },				/* INQUIRY */
		{ 0x25 },					/* READ CAPACITY(10) */
		{ 0x9e, 0x10, [13] = 32 },			/* READ CAPACITY(16) */
		{ 0x1a, 0, 0x3f, 0, 255 },			/* MODE SENSE(6) */
		{ 0x5a, 0, 0x3f, [8] = 255 },			/* MODE SENSE(10) */
		{ 0xa0, [9] = 255 },				/* REPORT LUNS */
		{ 0x03, 0, 0, 0, 18 },				/* REQUEST SENSE */
		{ 0xa3, 0x0c, [9] = 255 },			/* RSOC */
		{ 0xa3, 0x0a, [9] = 255 },			/* RTPG */
		{ 0x28, [8] = 1 },				/* READ(10) */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(data_in); i++) {
		EXPECT(RUN(data_in[i], 4096, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
		CHECK(ut_data[0] == UT_FILL && ut_data[4095] == UT_FILL);
		CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x24, 0, 0, 0, 0, 0);
	}
	/* a WRITE with a data-in buffer, a no-data command with a buffer */
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1), 512, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(ut_data[0] == UT_FILL);
	EXPECT(RUN(C(0x00), 512, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(ut_data[0] == UT_FILL);
	/* no buffer at all is fine: nothing moves */
	EXPECT(RUN(C(0x12, 0, 0, 0, 96), 0, NONE, 0), UT_GOOD);
	CHECK_NO_DATA();
}

/* every row of the table, as RSOC lists them */
static unsigned int rsoc_count(void)
{
	const struct tcmx_cmd_desc *rows[] = {
		tcmx_sbc_cmds, tcmx_spc_cmds, tcmx_cdb_cmds, tcmx_lbp_cmds,
		tcmx_integrity_cmds, tcmx_xcopy_cmds, tcmx_mode_cmds,
		tcmx_buffer_cmds, tcmx_pr_cmds,
	};
	const struct tcmx_cmd_desc *d;
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(rows); i++)
		for (d = rows[i]; d->len; d++)
			if (!d->enabled || d->enabled(&ut_dev))
				n++;
	return n;
}

static void cdb_rsoc_all(void)
{
	unsigned int n = rsoc_count(), i, prev = 0;
	bool found_inquiry = false, found_rc16 = false;

	EXPECT(RUN(C(0xa3, 0x0c, 0, 0, 0, 0, 0, 0, 0x10, 0), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 4 + 8 * n);
	CHECK(get_unaligned_be32(ut_data) == 8 * n);
	for (i = 0; i < n; i++) {
		const u8 *p = &ut_data[4 + 8 * i];
		unsigned int key = p[0] << 16 | get_unaligned_be16(&p[2]);

		CHECK(i == 0 || key > prev);	/* increasing, no duplicates */
		prev = key;
		if (p[0] == 0x12)
			found_inquiry = p[5] == 0 && get_unaligned_be16(&p[6]) == 6;
		if (p[0] == 0x9e && p[3] == 0x10)
			found_rc16 = p[3] == 0x10 && p[5] == 0x01 &&
				     get_unaligned_be16(&p[6]) == 16;
	}
	CHECK(found_inquiry && found_rc16);
	/* RCTD: 20-byte descriptors with CTDP, timeouts length 0x0a */
	EXPECT(RUN(C(0xa3, 0x0c, 0x80, 0, 0, 0, 0, 0, 0x10, 0), 4096, IN, 0), UT_GOOD);
	CHECK(get_unaligned_be32(ut_data) == 20 * n);
	CHECK_BYTES(4 + 5, 0x02, 0x00, 0x06, 0x00, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	/* truncated by the allocation length, the length field whole */
	EXPECT(RUN(C(0xa3, 0x0c, 0, 0, 0, 0, 0, 0, 0, 10), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 10 && get_unaligned_be32(ut_data) == 8 * n);
	CHECK_BYTES(10, UT_FILL);
	/* reporting options 4..7 are reserved */
	EXPECT(RUN(C(0xa3, 0x0c, 0x04, 0, 0, 0, 0, 0, 0x10, 0), 4096, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_CDB_FIELD(2, 2);
}

static void cdb_rsoc_one(void)
{
	/* READ(10) by opcode: supported, its usage data */
	EXPECT(RUN(C(0xa3, 0x0c, 0x01, 0x28, 0, 0, 0, 0, 1, 0), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 14);
	CHECK_BYTES(0, 0x00, 0x03, 0x00, 0x0a, 0x28, 0x1e, 0xff, 0xff, 0xff,
		    0xff, 0x1f, 0xff, 0xff, 0x00, UT_FILL);
	/* READ CAPACITY(16) by opcode and service action, with timeouts */
	EXPECT(RUN(C(0xa3, 0x0c, 0x82, 0x9e, 0, 0x10, 0, 0, 1, 0), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 4 + 16 + 12);
	CHECK_BYTES(0, 0x00, 0x83, 0x00, 0x10, 0x9e, 0x10);
	CHECK_BYTES(20, 0x00, 0x0a);
	/* option 3 takes either */
	EXPECT(RUN(C(0xa3, 0x0c, 0x03, 0x12, 0, 0, 0, 0, 1, 0), 4096, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0x00, 0x03, 0x00, 0x06, 0x12, 0x01, 0xff, 0xff, 0xff, 0x00);
	EXPECT(RUN(C(0xa3, 0x0c, 0x03, 0xa3, 0, 0x0d, 0, 0, 1, 0), 4096, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0x00, 0x03, 0x00, 0x0c, 0xa3, 0x0d, 0x80);
	/* not supported: SUPPORT 001b, CDB SIZE 0 */
	EXPECT(RUN(C(0xa3, 0x0c, 0x01, 0xe7, 0, 0, 0, 0, 1, 0), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 4);
	CHECK_BYTES(0, 0x00, 0x01, 0x00, 0x00, UT_FILL);
	EXPECT(RUN(C(0xa3, 0x0c, 0x02, 0x9e, 0, 0x13, 0, 0, 1, 0), 4096, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0x00, 0x01, 0x00, 0x00, UT_FILL);
	/* option 1 for an opcode with service actions, 2 for one without */
	EXPECT(RUN(C(0xa3, 0x0c, 0x01, 0x9e, 0, 0, 0, 0, 1, 0), 4096, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_CDB_FIELD(2, 2);
	EXPECT(RUN(C(0xa3, 0x0c, 0x02, 0x28, 0, 0, 0, 0, 1, 0), 4096, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_CDB_FIELD(2, 2);
}

static void cdb_rstmf(void)
{
	/* ABORT TASK and LOGICAL UNIT RESET */
	EXPECT(RUN(C(0xa3, 0x0d, 0, 0, 0, 0, 0, 0, 0, 16), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 4);
	CHECK_BYTES(0, 0x88, 0x00, 0x00, 0x00, UT_FILL);
	EXPECT(RUN(C(0xa3, 0x0d, 0x80, 0, 0, 0, 0, 0, 0, 16), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 16);
	CHECK_BYTES(0, 0x88, 0x00, 0x00, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UT_FILL);
	EXPECT(RUN(C(0xa3, 0x0d, 0, 0, 0, 0, 0, 0, 0, 3), 4096, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_CDB_BYTE(6);
}

/* The builder: descriptor format with D_SENSE, INFORMATION in both. */
static void cdb_sense_formats(void)
{
	const u8 cdb[16] = { 0x28, 0x20 };
	struct tcmx_cmd *cmd = &ut_cmd;
	struct tcmx_sense_extra x = { .info_valid = true, .info = 0x1234 };

	ut_dev.d_sense = true;
	EXPECT(RUN(cdb, 4096, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x72, 0x05, 0x24, 0x00, 0, 0, 0, 8,
		    0x02, 0x06, 0, 0, 0xcd, 0x00, 0x01, 0);
	/* no LUN: no device whose control page could ask for descriptors */
	EXPECT(RUN(C(0x00), 0, NONE, 9), TCMX_SENSE_LUN_NOT_SUPPORTED);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x25, 0, 0, 0, 0, 0);
	/* MODE SENSE shows D_SENSE in the control page */
	EXPECT(RUN(C(0x1a, 0x08, 0x0a, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(4, 0x0a, 0x0a, 0x06);
	ut_dev.d_sense = false;

	/* INFORMATION, as MISCOMPARE will use it */
	EXPECT(RUN(C(0x00), 0, NONE, 0), UT_GOOD);
	cmd->sense_len = tcmx_build_sense(ut_sense, false,
					  TCMX_SENSE_SPACE_ALLOC_FAILED, &x);
	CHECK_SENSE(0xf0, 0, 0x07, 0x00, 0x00, 0x12, 0x34, 10, 0, 0, 0, 0,
		    0x27, 0x07, 0, 0, 0, 0);
	cmd->sense_len = tcmx_build_sense(ut_sense, true,
					  TCMX_SENSE_SPACE_ALLOC_FAILED, &x);
	CHECK_SENSE(0x72, 0x07, 0x27, 0x07, 0, 0, 0, 12,
		    0x00, 0x0a, 0x80, 0x00, 0, 0, 0, 0, 0, 0, 0x12, 0x34);
	/* through the command: a parameter list (C/D 0) field pointer */
	CHECK(tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD, false, 3,
			       TCMX_NO_BIT) == TCMX_CHECK &&
	      cmd->status == SAM_STAT_CHECK_CONDITION);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x26, 0, 0,
		    0x80, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0);
	CHECK(tcmx_sense_info(cmd, TCMX_SENSE_LBA_OUT_OF_RANGE, 1ULL << 40) ==
	      TCMX_CHECK);
	/* too large for fixed format: VALID stays 0 */
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x21, 0, 0, 0, 0, 0);
}

/* The data-in copies refuse a DATA-OUT buffer even if asked. */
static void cdb_copy_helpers(void)
{
	const u8 msg[4] = { 1, 2, 3, 4 };

	EXPECT(RUN(C(0x00), 0, NONE, 0), UT_GOOD);
	ut_cmd.data_len = 4096;
	ut_cmd.data_dir = IN;
	CHECK(tcmx_cmd_copy_at(&ut_cmd, msg, 4, 4090, 4093) == 3);
	CHECK_BYTES(4090, 1, 2, 3, UT_FILL);
	ut_cmd.data_len = 3;			/* the buffer's size clips */
	CHECK(tcmx_cmd_copy_to_sgl(&ut_cmd, msg, 4) == 3 && ut_cmd.xfer_len == 3);
	ut_cmd.data_len = 4096;
	CHECK(tcmx_cmd_copy_to_sgl(&ut_cmd, msg, 4) == 4 && ut_cmd.xfer_len == 4);
	CHECK_BYTES(0, 1, 2, 3, 4, UT_FILL);
	memset(ut_data, UT_FILL, 16);
	ut_cmd.data_dir = OUT;
	EXPECT_WARN(tcmx_cmd_copy_to_sgl(&ut_cmd, msg, 4) == 0);
	EXPECT_WARN(tcmx_cmd_copy_at(&ut_cmd, msg, 4, 0, 16) == 0);
	CHECK_BYTES(0, UT_FILL, UT_FILL, UT_FILL, UT_FILL);
}

/* emulate_fua_write=0 (DPOFUA 0): READ/WRITE refuse DPO and FUA */
static void cdb_dpofua_off(void)
{
	ut_dev.attrib.emulate_fua_write = 0;
	set_bit(TCMX_GATE_NOFUA, &ut_dev.gate);
	EXPECT(RUN(C(0x28, 0x08, 0, 0, 0, 0, 0, 0, 1, 0), 512, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_CDB_FIELD(1, 3);
	EXPECT(RUN(C(0x2a, 0x10, 0, 0, 0, 0, 0, 0, 1, 0), 512, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_CDB_FIELD(1, 4);
	EXPECT(RUN(C(0x88, 0x18, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 512, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_CDB_FIELD(1, 4);
	/* without the bits, and READ(6) whose byte 1 is the LBA: as ever */
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0), 512, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	EXPECT(RUN(C(0x08, 0x18, 0, 0, 1, 0), 512, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512 && ut_cmd.lba == 0x180000);
	/* RSOC says so: READ(10) byte 1 usage 0x1e without DPO and FUA */
	EXPECT(RUN(C(0xa3, 0x0c, 0x01, 0x28, 0, 0, 0, 0, 1, 0), 4096, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0x00, 0x03, 0x00, 0x0a, 0x28, 0x06, 0xff);
	clear_bit(TCMX_GATE_NOFUA, &ut_dev.gate);
	ut_dev.attrib.emulate_fua_write = 1;
	EXPECT(RUN(C(0x28, 0x18, 0, 0, 0, 0, 0, 0, 1, 0), 512, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512 && ut_cmd.fua);
}

/*
 * The CDB length the transport carried: at least the command's, at most
 * 16 bytes of padding; a variable-length CDB (7Fh) has no row.
 */
static void cdb_carried_length(void)
{
	/* padded to 16 as iSCSI and FCP carry it, or exactly its length */
	EXPECT(RUN_LEN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1), 10, 512, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	EXPECT(RUN_LEN(C(0x00), 6, 0, NONE, 0), UT_GOOD);
	CHECK_NO_DATA();
	/* shorter than READ(10) or READ(16): the IU is malformed */
	EXPECT(RUN_LEN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1), 6, 512, IN, 0), TCMX_SENSE_INVALID_IU_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x0e, 0x03, 0, 0, 0, 0);
	CHECK(ut_cmd.xfer_len == 0);
	EXPECT(RUN_LEN(C(0x88, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 12, 512, IN, 0),
	       TCMX_SENSE_INVALID_IU_FIELD);
	CHECK(ut_cmd.xfer_len == 0 && ut_cmd.sense[12] == 0x0e);
	/* a fixed-length command in 32 bytes */
	EXPECT(RUN_LEN(C32(0x28, 0, 0, 0, 0, 0, 0, 0, 1), 32, 512, IN, 0), TCMX_SENSE_INVALID_IU_FIELD);
	CHECK(ut_cmd.xfer_len == 0 && ut_cmd.sense[13] == 0x03);
	/* variable length: READ(32), WRITE(32), an unknown service action */
	EXPECT(RUN_LEN(C32(0x7f, 0, 0, 0, 0, 0, 0, 0x18, 0x00, 0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 32, 512, IN, 0),
	       TCMX_SENSE_INVALID_OPCODE);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0);
	EXPECT(RUN_LEN(C32(0x7f, 0, 0, 0, 0, 0, 0, 0x18, 0x00, 0x0b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 32, 512, OUT, 0),
	       TCMX_SENSE_INVALID_OPCODE);
	CHECK(ut_cmd.xfer_len == 0 && ut_cmd.sense[12] == 0x20);
	EXPECT(RUN_LEN(C32(0x7f, 0, 0, 0, 0, 0, 0, 0x18, 0xff, 0xff), 32, 0, NONE, 0),
	       TCMX_SENSE_INVALID_OPCODE);
	CHECK(ut_cmd.sense[12] == 0x20);
	/* even one the transport truncated */
	EXPECT(RUN_LEN(C(0x7f, 0, 0, 0, 0, 0, 0, 0x18, 0x00, 0x09), 16, 0, NONE, 0),
	       TCMX_SENSE_INVALID_OPCODE);
	CHECK(ut_cmd.sense[12] == 0x20);
}

/* ---- the policy in the rows' flags, as the gate reads it ---- */

/* TCMX_CMD_IN_*: what runs in each refusing ALUA state */
static void cdb_policy_alua(void)
{
	struct tcmx_tg_pt_gp *gp = &ut_cdev.default_tg_pt_gp;
	const u8 *rdbuf = C(0x3c, 0x0b, 0, 0, 0, 0, 0, 0, 4, 0);

	set_bit(TCMX_GATE_ALUA, &ut_dev.gate);
	gp->access_state = SCSI_ACCESS_STATE_STANDBY;
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1), 512, IN, 0), TCMX_SENSE_ALUA_STANDBY);
	CHECK_SENSE(0x70, 0, 0x02, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x04, 0x0b, 0, 0, 0, 0);
	EXPECT(RUN(C(0x9e, 0x10, [13] = 32), 32, IN, 0), UT_GOOD);	/* RC16 */
	CHECK(ut_cmd.xfer_len == 32);
	/* no row: LOG SENSE, a PR IN action, passed on to be unknown */
	EXPECT(RUN(C(0x4d, 0, 0, 0, 0, 0, 0, 0, 255), 255, IN, 0), TCMX_SENSE_INVALID_OPCODE);
	EXPECT(RUN(C(0x5e, 0x1f, 0, 0, 0, 0, 0, 0, 64, 0), 64, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_CDB_FIELD(1, 4);
	gp->access_state = SCSI_ACCESS_STATE_UNAVAILABLE;
	EXPECT(RUN(C(0x9e, 0x10, [13] = 32), 32, IN, 0), TCMX_SENSE_ALUA_UNAVAILABLE);
	EXPECT(RUN(C(0x4d, 0, 0, 0, 0, 0, 0, 0, 255), 255, IN, 0), TCMX_SENSE_ALUA_UNAVAILABLE);
	EXPECT(RUN(rdbuf, 4, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0x10, 0x00);
	/* READ BUFFER: but while Offline; INQUIRY always */
	gp->access_state = SCSI_ACCESS_STATE_TRANSITIONING;
	EXPECT(RUN(rdbuf, 4, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0x10, 0x00);
	gp->access_state = SCSI_ACCESS_STATE_OFFLINE;
	EXPECT(RUN(rdbuf, 4, IN, 0), TCMX_SENSE_ALUA_OFFLINE);
	EXPECT(RUN(C(0x12, 0, 0, 0, 36), 36, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 36);
	gp->access_state = SCSI_ACCESS_STATE_OPTIMAL;
	clear_bit(TCMX_GATE_ALUA, &ut_dev.gate);
}

static u8 policy_param[24];

/* PERSISTENT RESERVE OUT @sa, key @key, service action key @sa_key */
static int policy_prout(u64 lun, u8 sa, u8 type, u64 key, u64 sa_key)
{
	memset(policy_param, 0, sizeof(policy_param));
	put_unaligned_be64(key, &policy_param[0]);
	put_unaligned_be64(sa_key, &policy_param[8]);
	return RUN_OUT(C(0x5f, sa, type, 0, 0, 0, 0, 0, 24, 0), policy_param,
		       24, 24, lun);
}

/* TCMX_CMD_PR_OK, TCMX_CMD_SPC2_OK: LUNs 0 and 5 are two nexuses */
static void cdb_policy_reservations(void)
{
	ut_dev.attrib.emulate_pr = 1;
	/* LUN 5 holds Write Exclusive, Registrants Only */
	EXPECT(policy_prout(5, 0, 0, 0, 0xbb), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(policy_prout(5, 1, 0x05, 0xbb, 0), UT_GOOD);
	CHECK(ut_dev.gate & BIT(TCMX_GATE_PR));
	/* LUN 0, not registered: a WRITE conflicts, a READ does not */
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1), 512, OUT, 0), UT_CONFLICT);
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1), 512, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	/* PR OUT takes data out, but no reservation conflicts with it */
	EXPECT(policy_prout(0, 0, 0, 0, 0xaa), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1), 512, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	EXPECT(policy_prout(5, 3, 0, 0xbb, 0), UT_GOOD);	/* CLEAR */
	CHECK(!ut_cdev.pr_holder && !(ut_dev.gate & BIT(TCMX_GATE_PR)));
	tcmx_ua_lun_clear(&ut_luns[0], &ut_dev);	/* RESERVATIONS PREEMPTED */
	/* SPC-2: LUN 0 reserves; LUN 5 has INQUIRY, not TEST UNIT READY */
	EXPECT(RUN(C(0x16), 0, NONE, 0), UT_GOOD);
	CHECK_NO_DATA();
	EXPECT(RUN(C(0x00), 0, NONE, 5), UT_CONFLICT);
	EXPECT(RUN(C(0x12, 0, 0, 0, 36), 36, IN, 5), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 36);
	EXPECT(RUN(C(0x17), 0, NONE, 0), UT_GOOD);
	CHECK(!ut_dev.gate && !ut_cdev.spc2_holder);
	ut_dev.attrib.emulate_pr = 0;
}

/* TCMX_CMD_DEFER: the row's ->execute in a worker, another one inline */
static void cdb_policy_defer(void)
{
	int n = ut_defers;

	EXPECT(RUN(C(0x12, 1, 0x00, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK(ut_cmd.data_len && ut_defers == n);	/* the page list */
	EXPECT(RUN(C(0x12, 1, 0xb0, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK(ut_data[1] == 0xb0 && ut_defers == n + 1);
	EXPECT(RUN(C(0x15, 0x10, 0, 0, 0), 0, NONE, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 0 && ut_defers == n + 1);	/* len 0 */
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1), 512, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512 && ut_defers == n + 1);
}

void ut_test_cdb(void)
{
	cdb_carried_length();
	cdb_dpofua_off();
	cdb_reserved_bits();
	cdb_direction();
	cdb_rsoc_all();
	cdb_rsoc_one();
	cdb_rstmf();
	cdb_sense_formats();
	cdb_copy_helpers();
	cdb_policy_alua();
	cdb_policy_reservations();
	cdb_policy_defer();
}
