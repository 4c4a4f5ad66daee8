// SPDX-License-Identifier: GPL-2.0
/* Block commands: READ/WRITE decoding and the other SBC commands. */
#include "ut.h"

#define IN	DMA_FROM_DEVICE
#define OUT	DMA_TO_DEVICE
#define NONE	DMA_NONE

/* a decoded READ/WRITE: the backend gets exactly this range, no data yet */
#define CHECK_RW(l, n, f)						\
	CHECK(ut_cmd.lba == (l) && ut_cmd.nr_blocks == (n) &&		\
	      ut_cmd.fua == (f) && ut_cmd.execute == ut_stub_rw &&	\
	      ut_cmd.xfer_len == (u32)(n) * 512 && ut_data[0] == UT_FILL)

static void sbc_read_write(void)
{
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0x10, 0, 0, 8), 4096, IN, 0), UT_GOOD);
	CHECK_RW(16, 8, false);
	EXPECT(RUN(C(0x2a, 0x08, 0, 0, 0, 0x10, 0, 0, 8), 4096, OUT, 0), UT_GOOD);
	CHECK_RW(16, 8, true);
	/* wrong direction, RDPROTECT set */
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 8), 4096, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x28, 0x20, 0, 0, 0, 0, 0, 0, 8), 4096, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	/* the last block, and one past it */
	EXPECT(RUN(C(0x8a, 0, 0, 0, 0, 0, 0, 0x1f, 0xff, 0xff, 0, 0, 0, 2), 1024, OUT, 0), TCMX_SENSE_LBA_OUT_OF_RANGE);
	EXPECT(RUN(C(0x8a, 0, 0, 0, 0, 0, 0, 0x1f, 0xff, 0xff, 0, 0, 0, 1), 512, OUT, 0), UT_GOOD);
	CHECK_RW(2097151, 1, false);
	/* lba + count overflowing 64 bits, and a count past the end */
	EXPECT(RUN(C(0x88, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1), 512, IN, 0), TCMX_SENSE_LBA_OUT_OF_RANGE);
	EXPECT(RUN(C(0x88, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff), 512, IN, 0), TCMX_SENSE_LBA_OUT_OF_RANGE);
	/* READ(6): 21-bit LBA, length 0 is 256 blocks */
	EXPECT(RUN(C(0x08, 0x1f, 0xff, 0xff, 0), 131072, IN, 0), TCMX_SENSE_LBA_OUT_OF_RANGE);
	EXPECT(RUN(C(0x08, 0x01, 0x00, 0x10, 0), 131072, IN, 0), UT_GOOD);
	CHECK_RW(0x10010, 256, false);
	/* WRITE(6) has no FUA bit; byte 1 bits 7-5 are reserved */
	EXPECT(RUN(C(0x0a, 0x01, 0x00, 0x10, 1), 512, OUT, 0), UT_GOOD);
	CHECK_RW(0x10010, 1, false);
	EXPECT(RUN(C(0x0a, 0xe1, 0x00, 0x10, 1), 512, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xcf, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0);
	/* zero blocks: GOOD, nothing moved, backend never called */
	EXPECT(RUN(C(0xaa, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0, NONE, 0), UT_GOOD);
	CHECK(ut_cmd.execute != ut_stub_rw && ut_cmd.xfer_len == 0 &&
	      ut_data[0] == UT_FILL);
	ut_dev.attrib.hw_max_sectors = 128;
	EXPECT(RUN(C(0xa8, 0, 0, 0, 0, 0, 0, 0, 0, 129), 1 << 20, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0xa8, 0, 0, 0, 0, 0, 0, 0, 0, 128), 1 << 20, IN, 0), UT_GOOD);
	CHECK_RW(0, 128, false);
	ut_dev.attrib.hw_max_sectors = 4294967288u;
}

/*
 * Residuals: the backend moves cmd->xfer_len bytes, the fabric reports the
 * rest of the buffer.  An overflowing READ fills the buffer, partial block
 * included; an overflowing write is refused with nothing moved.
 */
static void sbc_residuals(void)
{
	u8 list[64];

	/* underflow: the buffer is longer than the transfer */
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0x10, 0, 0, 2), 4096, IN, 0), UT_GOOD);
	CHECK_RW(16, 2, false);
	EXPECT(RUN(C(0x8a, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 2), 10000, OUT, 0), UT_GOOD);
	CHECK_RW(16, 2, false);
	/* overflow READ: what fits, FUA kept */
	EXPECT(RUN(C(0x28, 0x08, 0, 0, 0, 0x10, 0, 0, 8), 2048, IN, 0), UT_GOOD);
	CHECK(ut_cmd.lba == 16 && ut_cmd.nr_blocks == 8 && ut_cmd.fua &&
	      ut_cmd.execute == ut_stub_rw && ut_cmd.xfer_len == 2048 &&
	      ut_data[0] == UT_FILL);
	EXPECT(RUN(C(0x88, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 200, IN, 0), UT_GOOD);
	CHECK(ut_cmd.execute == ut_stub_rw && ut_cmd.xfer_len == 200);
	/* no buffer at all: GOOD, nothing to move, backend not called */
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1), 0, NONE, 0), UT_GOOD);
	CHECK(ut_cmd.execute != ut_stub_rw && ut_cmd.xfer_len == 0 &&
	      ut_data[0] == UT_FILL);
	/* overflow write: refused before any byte moves */
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 8), 2048, OUT, 0), TCMX_SENSE_INVALID_IU_FIELD);
	CHECK(ut_cmd.xfer_len == 0);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x0e, 0x03, 0,
		    0, 0, 0);
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1), 0, NONE, 0), TCMX_SENSE_INVALID_IU_FIELD);
	EXPECT(RUN(C(0x0a, 0, 0, 0, 2), 1023, OUT, 0), TCMX_SENSE_INVALID_IU_FIELD);
	/* beyond the backend's limit stays an invalid CDB field */
	ut_dev.attrib.hw_max_sectors = 128;
	EXPECT(RUN(C(0xa8, 0, 0, 0, 0, 0, 0, 0, 0, 129), 512, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	ut_dev.attrib.hw_max_sectors = 4294967288u;
	/* a parameter list taken from a data-out buffer counts as moved */
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 0), 4096, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 0);
	CHECK(tcmx_cmd_copy_from_sgl(&ut_cmd, list, 24) == 24 &&
	      ut_cmd.xfer_len == 24);
	CHECK(tcmx_cmd_copy_from_sgl(&ut_cmd, list, 8) == 8 &&
	      ut_cmd.xfer_len == 24);
	CHECK(list[0] == UT_FILL && list[23] == UT_FILL);
}

/*
 * The same over a fabric that reports overflows and owns its buffers
 * (iSCSI): an overflowing write of whole blocks writes those, GOOD, and
 * cmd->overflow says what the CDB wanted beyond the buffer; a torn block
 * is still refused.  A READ sent with a data-out buffer reads into it.
 */
static const struct tcmx_fabric_ops sbc_iscsi_ops = {
	.name = "iscsi",
	.reports_overflow = true,
	.own_buffers = true,
};

static void sbc_residuals_reported(void)
{
	ut_tpg.ops = &sbc_iscsi_ops;
	/* underflow and exact: no overflow */
	EXPECT(RUN(C(0x8a, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 2), 10000, OUT, 0), UT_GOOD);
	CHECK_RW(16, 2, false);
	CHECK(ut_cmd.overflow == 0);
	/* 8 blocks into 4: the first 4 written */
	EXPECT(RUN(C(0x2a, 0x08, 0, 0, 0, 0x10, 0, 0, 8), 2048, OUT, 0), UT_GOOD);
	CHECK_RW(16, 4, true);
	CHECK(ut_cmd.overflow == 2048);
	/* no buffer: GOOD, nothing written, one block of overflow */
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1), 0, NONE, 0), UT_GOOD);
	CHECK(ut_cmd.execute != ut_stub_rw && ut_cmd.xfer_len == 0 &&
	      ut_cmd.overflow == 512);
	/* a torn block: refused, nothing moved, the overflow still told */
	EXPECT(RUN(C(0x0a, 0, 0, 0, 2), 1023, OUT, 0), TCMX_SENSE_INVALID_IU_FIELD);
	CHECK(ut_cmd.xfer_len == 0 && ut_cmd.overflow == 1);
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1), 200, OUT, 0), TCMX_SENSE_INVALID_IU_FIELD);
	CHECK(ut_cmd.xfer_len == 0 && ut_cmd.overflow == 312);
	/* a READ: the buffer filled, the overflow told */
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0x10, 0, 0, 8), 2048, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 2048 && ut_cmd.overflow == 2048);
	/* beyond the backend's limit: refused, no overflow */
	ut_dev.attrib.hw_max_sectors = 128;
	EXPECT(RUN(C(0xaa, 0, 0, 0, 0, 0, 0, 0, 0, 129), 512, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(ut_cmd.overflow == 0);
	ut_dev.attrib.hw_max_sectors = 4294967288u;
	/* a READ with a data-out buffer reads into it; a WRITE the other way does not */
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0x10, 0, 0, 1), 512, OUT, 0), UT_GOOD);
	CHECK_RW(16, 1, false);
	CHECK(ut_cmd.data_dir == DMA_FROM_DEVICE);
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0x10, 0, 0, 1), 512, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x00), 512, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	ut_tpg.ops = &ut_fabric_ops;
	/* not on the loopback */
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0x10, 0, 0, 1), 512, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 2), 512, OUT, 0), TCMX_SENSE_INVALID_IU_FIELD);
	CHECK(ut_cmd.overflow == 512 && ut_cmd.xfer_len == 0);
}

static void sbc_other(void)
{
	EXPECT(RUN(C(0x25), 8, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 8);
	CHECK_BYTES(0, 0x00, 0x1f, 0xff, 0xff, 0x00, 0x00, 0x02, 0x00, UT_FILL);
	/* READ CAPACITY(16): 32 bytes, no PI, no LBP, exponents 0 */
	EXPECT(RUN(C(0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32), 32, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 32);
	CHECK_BYTES(0, 0, 0, 0, 0, 0x00, 0x1f, 0xff, 0xff, 0, 0, 0x02, 0x00,
		    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	/* allocation length clips it */
	EXPECT(RUN(C(0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12), 32, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 12);
	CHECK_BYTES(8, 0, 0, 0x02, 0x00, UT_FILL);
	/* SERVICE ACTION IN(16) 0x13 is not supported */
	EXPECT(RUN(C(0x9e, 0x13), 32, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	/* SYNCHRONIZE CACHE goes to the backend, which defers it */
	EXPECT(RUN(C(0x35), 0, NONE, 0), UT_DEFERRED);
	CHECK(ut_cmd.lba == 0 && ut_cmd.nr_blocks == 0 && ut_data[0] == UT_FILL);
	EXPECT(RUN(C(0x91, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 1), 0, NONE, 0), TCMX_SENSE_LBA_OUT_OF_RANGE);
	/* VERIFY: BYTCHK 1 needs its data-out buffer; BYTCHK 0 checks the range */
	EXPECT(RUN(C(0x2f, 0x02, 0, 0, 0, 0, 0, 0, 1), 0, NONE, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x8f, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 1), 0, NONE, 0), UT_GOOD);
	CHECK(ut_cmd.lba == 0x10 && ut_cmd.nr_blocks == 1);
	CHECK_NO_DATA();
	/* START STOP UNIT: START only; LOEJ or a power condition refused */
	EXPECT(RUN(C(0x1b, 0, 0, 0, 0x01), 0, NONE, 0), UT_GOOD);
	CHECK_NO_DATA();
	EXPECT(RUN(C(0x1b, 0, 0, 0, 0x11), 0, NONE, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x1b, 0, 0, 0, 0x02), 0, NONE, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x00), 0, NONE, 0), UT_GOOD);
	CHECK_NO_DATA();
	EXPECT(RUN(C(0x4d), 0, NONE, 0), TCMX_SENSE_INVALID_OPCODE);
	EXPECT(RUN(C(0x42), 24, OUT, 0), TCMX_SENSE_INVALID_OPCODE);
}

void ut_test_sbc(void)
{
	sbc_read_write();
	sbc_residuals();
	sbc_residuals_reported();
	sbc_other();
}
