// SPDX-License-Identifier: GPL-2.0
/*
 * Integrity commands (target/sbc_integrity.c) over a memory-backed stand-in
 * for the backend's block ops, and the exclusion of WRITEs from a held
 * range.  The harness fills every data-out buffer with UT_FILL, so the
 * medium is prepared around that byte.
 */
#include <linux/errno.h>
#include <scsi/scsi_proto.h>
#include "ut.h"

#define IN	DMA_FROM_DEVICE
#define OUT	DMA_TO_DEVICE
#define NONE	DMA_NONE
#define F	UT_FILL

#define FAKE_BLOCKS	4096		/* the medium's first 2 MiB */

static u8 fake[FAKE_BLOCKS * 512];
static int fake_writes;
static u64 fake_w_lba;
static u32 fake_w_nr;
static bool fake_enospc;

static int fake_read(struct tcmx_dev *dev, u64 lba, u32 nr, void *buf)
{
	u8 *p = buf;
	u32 i;

	for (i = 0; i < nr; i++, p += 512)
		if (lba + i < FAKE_BLOCKS)
			memcpy(p, &fake[(lba + i) * 512], 512);
		else
			memset(p, 0, 512);
	return 0;
}

static int fake_write(struct tcmx_dev *dev, u64 lba, u32 nr, const void *buf)
{
	const u8 *p = buf;
	u32 i;

	if (fake_enospc)
		return -ENOSPC;
	fake_writes++;
	fake_w_lba = lba;
	fake_w_nr = nr;
	for (i = 0; i < nr; i++, p += 512)
		if (lba + i < FAKE_BLOCKS)
			memcpy(&fake[(lba + i) * 512], p, 512);
	return 0;
}

static void fake_reset(u8 byte)
{
	memset(fake, byte, sizeof(fake));
	fake_writes = 0;
	fake_w_lba = 0;
	fake_w_nr = 0;
	fake_enospc = false;
}

/* every byte of @len at medium offset @off is @byte */
static bool fake_is(size_t off, size_t len, u8 byte)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (fake[off + i] != byte)
			return false;
	return true;
}

/*
 * After a COMPARE AND WRITE, ORWRITE or WRITE ATOMIC: the bit outlives it
 * until the idle work (run here) clears it.
 */
static bool integ_excl_idles(void)
{
	struct work_struct *w = &ut_cdev.excl_idle.work;

	if (ut_dev.gate != BIT(TCMX_GATE_EXCL) || !w->pending)
		return false;
	w->pending = 0;
	w->func(w);
	return !ut_dev.gate;
}

/* fixed-format MISCOMPARE with INFORMATION @info */
#define CHECK_MISCOMPARE(info)						\
	CHECK_SENSE(0xf0, 0, 0x0e, (info) >> 24, ((info) >> 16) & 0xff,	\
		    ((info) >> 8) & 0xff, (info) & 0xff, 10, 0, 0, 0, 0,	\
		    0x1d, 0, 0, 0, 0, 0)

static void integ_verify_cases(void)
{
	/* BYTCHK 0: the range only, with or without a buffer */
	fake_reset(0);
	EXPECT(RUN(C(0x2f, 0, 0, 0, 0, 8, 0, 0, 4), 0, NONE, 0), UT_GOOD);
	CHECK_NO_DATA();
	EXPECT(RUN(C(0x2f, 0x10, 0, 0, 0, 8, 0, 0, 4), 2048, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 0 && fake_writes == 0);
	EXPECT(RUN(C(0x8f, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 1), 0, NONE, 0), TCMX_SENSE_LBA_OUT_OF_RANGE);
	/* BYTCHK 2 is reserved: field pointer byte 1 bit 2 */
	EXPECT(RUN(C(0x2f, 0x04, 0, 0, 0, 0, 0, 0, 1), 512, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xca, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0);
	/* VRPROTECT: no protection information */
	EXPECT(RUN(C(0x2f, 0x22, 0, 0, 0, 0, 0, 0, 1), 512, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xcd, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0);

	/* BYTCHK 1: the data-out buffer against the medium */
	fake_reset(F);
	EXPECT(RUN(C(0x2f, 0x02, 0, 0, 0, 8, 0, 0, 4), 2048, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 2048 && fake_writes == 0);
	/* one byte differs: INFORMATION is its offset in the buffer */
	fake[(8 * 512) + 700] = 0;
	EXPECT(RUN(C(0x2f, 0x02, 0, 0, 0, 8, 0, 0, 4), 2048, OUT, 0), TCMX_SENSE_MISCOMPARE);
	CHECK_MISCOMPARE(700);
	/* VERIFY(12) and (16) alike, and past a bounce chunk (512 blocks) */
	EXPECT(RUN(C(0xaf, 0x02, 0, 0, 0, 7, 0, 0, 0, 3), 1536, OUT, 0), TCMX_SENSE_MISCOMPARE);
	CHECK_MISCOMPARE(1212);
	fake[(8 * 512) + 700] = F;
	fake[(600 * 512) + 3] = 0x01;
	EXPECT(RUN(C(0x8f, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x04, 0), 1024 * 512, OUT, 0), TCMX_SENSE_MISCOMPARE);
	CHECK_MISCOMPARE(600 * 512 + 3);
	/* descriptor format: an information descriptor, VALID */
	ut_dev.d_sense = true;
	EXPECT(RUN(C(0x8f, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x04, 0), 1024 * 512, OUT, 0), TCMX_SENSE_MISCOMPARE);
	CHECK_SENSE(0x72, 0x0e, 0x1d, 0, 0, 0, 0, 12, 0x00, 0x0a, 0x80, 0,
		    0, 0, 0, 0, 0, 0x04, 0xb0, 0x03);
	ut_dev.d_sense = false;
	/* a buffer short of the range, or none at all */
	EXPECT(RUN(C(0x2f, 0x02, 0, 0, 0, 8, 0, 0, 4), 2047, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(fake_writes == 0);
	EXPECT(RUN(C(0x2f, 0x02, 0, 0, 0, 8, 0, 0, 4), 0, NONE, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(fake_writes == 0);
	/* a longer one: GOOD, the rest is residual */
	EXPECT(RUN(C(0x2f, 0x02, 0, 0, 0, 8, 0, 0, 4), 4096, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 2048);

	/* BYTCHK 3: one block against each block of the range */
	fake_reset(F);
	EXPECT(RUN(C(0x2f, 0x06, 0, 0, 0, 8, 0, 0, 4), 512, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	fake[(10 * 512) + 5] = 0;
	EXPECT(RUN(C(0x2f, 0x06, 0, 0, 0, 8, 0, 0, 4), 512, OUT, 0), TCMX_SENSE_MISCOMPARE);
	CHECK_MISCOMPARE(2 * 512 + 5);
	EXPECT(RUN(C(0x2f, 0x06, 0, 0, 0, 8, 0, 0, 4), 511, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(fake_writes == 0);

	/*
	 * The VERIFICATION LENGTH is bounded by the MAXIMUM TRANSFER LENGTH
	 * (hw_max_sectors), whatever BYTCHK: else one BYTCHK 3 command could
	 * walk 2^32 blocks (found by fuzz_cdb)
	 */
	ut_dev.attrib.hw_max_sectors = 8;
	EXPECT(RUN(C(0x8f, 0x06, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9), 512, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0xaf, 0x06, 0, 0, 0, 0, 0, 0x10, 0, 0), 512, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x2f, 0, 0, 0, 0, 0, 0, 0, 9), 0, NONE, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x8f, 0x06, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8), 512, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	ut_dev.attrib.hw_max_sectors = 4294967288u;
}

static void integ_write_cases(void)
{
	/* WRITE AND VERIFY: written, then compared */
	fake_reset(0);
	EXPECT(RUN(C(0x2e, 0x02, 0, 0, 0, 4, 0, 0, 2), 1024, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 1024 && fake_is(4 * 512, 1024, F) &&
	      fake_is(3 * 512, 512, 0) && fake_is(6 * 512, 512, 0));
	EXPECT(RUN(C(0xae, 0x10, 0, 0, 0, 6, 0, 0, 0, 1), 512, OUT, 0), UT_GOOD);
	CHECK(fake_is(6 * 512, 512, F) && fake_w_lba == 6 && fake_w_nr == 1);
	EXPECT(RUN(C(0x8e, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 1), 512, OUT, 0), UT_GOOD);
	CHECK(fake_is(7 * 512, 512, F) && fake_w_lba == 7);
	/* BYTCHK bit 2 is reserved for it; short buffer; zero blocks */
	EXPECT(RUN(C(0x2e, 0x04, 0, 0, 0, 4, 0, 0, 1), 512, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(fake_writes == 3);
	EXPECT(RUN(C(0x2e, 0x02, 0, 0, 0, 4, 0, 0, 2), 1000, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(fake_writes == 3);
	EXPECT(RUN(C(0x2e, 0x02, 0, 0, 0, 4, 0, 0, 0), 0, NONE, 0), UT_GOOD);
	CHECK(fake_writes == 3 && ut_cmd.xfer_len == 0);
	/* no room: SPACE ALLOCATION FAILED */
	fake_enospc = true;
	EXPECT(RUN(C(0x2e, 0x02, 0, 0, 0, 4, 0, 0, 2), 1024, OUT, 0), TCMX_SENSE_SPACE_ALLOC_FAILED);
	CHECK(fake_writes == 3);

	/* ORWRITE(16): medium |= data */
	fake_reset(0x11);
	EXPECT(RUN(C(0x8b, 0x18, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 3), 1536, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 1536 && fake_is(2 * 512, 1536, F | 0x11) &&
	      fake_is(512, 512, 0x11) && fake_is(5 * 512, 512, 0x11));
	CHECK(integ_excl_idles());
	EXPECT(RUN(C(0x8b, 0x20, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1), 512, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(fake_writes == 1);
	EXPECT(RUN(C(0x8b, 0, 0, 0, 0, 0, 0, 0x1f, 0xff, 0xff, 0, 0, 0, 2), 1024, OUT, 0), TCMX_SENSE_LBA_OUT_OF_RANGE);
	CHECK(fake_writes == 1);

	/* WRITE ATOMIC(16): 16-bit length at byte 12, boundary 0 */
	fake_reset(0);
	EXPECT(RUN(C(0x9c, 0x08, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 2), 1024, OUT, 0), UT_GOOD);
	CHECK(fake_is(9 * 512, 1024, F) && fake_w_lba == 9 && fake_w_nr == 2);
	CHECK(integ_excl_idles());
	EXPECT(RUN(C(0x9c, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 1, 0, 2), 1024, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xc0, 0x00, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0);
	/* 1 MiB is 2048 blocks: one more is too many */
	EXPECT(RUN(C(0x9c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x01), 2049 * 512, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xc0, 0x00, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0);
	EXPECT(RUN(C(0x9c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00), 2048 * 512, OUT, 0), UT_GOOD);
	/* in four bounce chunks of 256 KiB */
	CHECK(fake_is(0, 2048 * 512, F) && fake_writes == 5);
	EXPECT(RUN(C(0x9c, 0, 0, 0, 0, 0, 0, 0x1f, 0xff, 0xff, 0, 0, 0, 2), 1024, OUT, 0), TCMX_SENSE_LBA_OUT_OF_RANGE);
	CHECK(fake_writes == 5);
	EXPECT(RUN(C(0x9c, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0), 0, NONE, 0), UT_GOOD);
	CHECK(fake_writes == 5 && ut_cmd.xfer_len == 0);
}

/*
 * WRITE AND VERIFY with a buffer shorter than its range, over a fabric
 * that reports overflows: the whole blocks of the buffer, GOOD; a torn
 * block refused as for WRITE.  (On the loopback: an invalid CDB field.)
 */
static const struct tcmx_fabric_ops integ_iscsi_ops = {
	.name = "iscsi",
	.reports_overflow = true,
};

static void integ_overflow_cases(void)
{
	fake_reset(0);
	ut_tpg.ops = &integ_iscsi_ops;
	EXPECT(RUN(C(0x2e, 0x02, 0, 0, 0, 4, 0, 0, 2), 512, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512 && ut_cmd.overflow == 512 &&
	      fake_writes == 1 && fake_w_lba == 4 && fake_w_nr == 1 &&
	      fake_is(4 * 512, 512, F) && fake_is(5 * 512, 512, 0));
	EXPECT(RUN(C(0x8e, 0x02, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 1), 0, NONE, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 0 && ut_cmd.overflow == 512 &&
	      fake_writes == 1);
	EXPECT(RUN(C(0xae, 0x02, 0, 0, 0, 4, 0, 0, 0, 1), 200, OUT, 0), TCMX_SENSE_INVALID_IU_FIELD);
	CHECK(ut_cmd.overflow == 312 && fake_writes == 1);
	ut_tpg.ops = &ut_fabric_ops;
	EXPECT(RUN(C(0x2e, 0x02, 0, 0, 0, 4, 0, 0, 2), 512, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(fake_writes == 1);
}

static void integ_caw_cases(void)
{
	/* the compare half matches: the write half goes to the medium */
	fake_reset(F);
	EXPECT(RUN(C(0x89, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 2), 2048, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 2048 && fake_writes == 1 &&
	      fake_w_lba == 5 && fake_w_nr == 2 && integ_excl_idles());
	/* the last byte differs: MISCOMPARE at 1023, nothing written */
	fake[6 * 512 + 511] = 0x42;
	EXPECT(RUN(C(0x89, 0x18, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 2), 2048, OUT, 0), TCMX_SENSE_MISCOMPARE);
	CHECK_MISCOMPARE(1023);
	CHECK(fake_writes == 1 && fake[6 * 512 + 511] == 0x42 &&
	      integ_excl_idles());
	/* the data-out buffer must be exactly twice the blocks */
	EXPECT(RUN(C(0x89, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1), 2048, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(fake_writes == 1);
	EXPECT(RUN(C(0x89, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 2), 1024, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(fake_writes == 1);
	/* bytes 10-12 are reserved; 0 blocks do nothing; the end */
	EXPECT(RUN(C(0x89, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 1, 2), 2048, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(fake_writes == 1);
	EXPECT(RUN(C(0x89, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0), 0, NONE, 0), UT_GOOD);
	CHECK(fake_writes == 1 && ut_cmd.xfer_len == 0);
	/* no block, yet a buffer (libiscsi's 256 blocks, byte 13 is 0) */
	EXPECT(RUN(C(0x89, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0), 1024, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(fake_writes == 1 && ut_cmd.xfer_len == 0);
	EXPECT(RUN(C(0x89, 0, 0, 0, 0, 0, 0, 0x1f, 0xff, 0xff, 0, 0, 0, 2), 2048, OUT, 0), TCMX_SENSE_LBA_OUT_OF_RANGE);
	CHECK(fake_writes == 1);
	/* 255 blocks at most; hw_max_sectors lower still */
	fake_reset(F);
	EXPECT(RUN(C(0x89, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255), 255 * 1024, OUT, 0), UT_GOOD);
	CHECK(fake_writes == 1 && fake_w_nr == 255);
	ut_dev.attrib.hw_max_sectors = 8;
	EXPECT(RUN(C(0x89, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9), 9 * 1024, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xc0, 0x00, 0x0d, 0, 0, 0, 0, 0, 0, 0, 0);
	ut_dev.attrib.hw_max_sectors = 4294967288u;
}

static void integ_exclusion_cases(void)
{
	int defers;

	/*
	 * While a range is held, a READ or WRITE into it waits and goes
	 * through the block ops: once decoded, the harness (as
	 * tcmx_submit_cmd()) hands it to tcmx_excl_rw() instead of the ->execute_rw stand-in, and
	 * the stub tcmx_defer() runs that at once: the block ops' writes are
	 * the deferred ones.
	 */
	fake_reset(0);
	ut_cdev.excl_lba = 100;
	ut_cdev.excl_end = 110;
	ut_dev.gate = BIT(TCMX_GATE_EXCL);
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 105, 0, 0, 8), 4096, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 4096 && fake_writes == 1 &&
	      fake_w_lba == 105 && fake_w_nr == 8 &&
	      fake_is(105 * 512, 4096, F) && fake_is(113 * 512, 512, 0));
	/* WRITE(6) ending just before the range, then into it */
	EXPECT(RUN(C(0x0a, 0, 0, 96, 4), 2048, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.execute == ut_stub_rw && fake_writes == 1);
	EXPECT(RUN(C(0x0a, 0, 0, 96, 5), 2560, OUT, 0), UT_GOOD);
	CHECK(fake_writes == 2 && fake_w_lba == 96 && fake_w_nr == 5 &&
	      fake_is(96 * 512, 2560, F));
	/* WRITE(16) and READ(10) past its end: inline as ever */
	EXPECT(RUN(C(0x8a, 0, 0, 0, 0, 0, 0, 0, 0, 110, 0, 0, 0, 1), 512, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.execute == ut_stub_rw && fake_writes == 2);
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 110, 0, 0, 1), 512, IN, 0), UT_GOOD);
	CHECK(ut_cmd.execute == ut_stub_rw && fake_writes == 2);
	/* a READ into it waits too, and reads the medium through the ops */
	defers = ut_defers;
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 104, 0, 0, 2), 1024, IN, 0), UT_GOOD);
	CHECK(ut_defers == defers + 1 && ut_cmd.xfer_len == 1024 &&
	      ut_data[0] == 0 && ut_data[511] == 0 && ut_data[512] == F &&
	      ut_data[1023] == F && fake_writes == 2);
	/* cut to a buffer that ends inside a block: that much, no more */
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 103, 0, 0, 4), 700, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 700 && ut_data[699] == 0 &&
	      ut_data[700] == UT_FILL && fake_writes == 2);
	/* WRITE(12), FUA, the range's last block */
	EXPECT(RUN(C(0xaa, 0x08, 0, 0, 0, 109, 0, 0, 0, 1), 512, OUT, 0), UT_GOOD);
	CHECK(fake_writes == 3 && fake_w_lba == 109 && fake_w_nr == 1);
	/* a bad WRITE into the range is still refused by the decoder */
	EXPECT(RUN(C(0x2a, 0x04, 0, 0, 0, 105, 0, 0, 1), 512, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(fake_writes == 3);
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 105, 0, 0, 2), 512, OUT, 0), TCMX_SENSE_INVALID_IU_FIELD);
	CHECK(fake_writes == 3);
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 105, 0, 0, 1), 512, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(fake_writes == 3);
	/* write protection comes first */
	ut_dev.gate |= BIT(TCMX_GATE_WP);
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 105, 0, 0, 1), 512, OUT, 0), TCMX_SENSE_WRITE_PROTECTED);
	CHECK(fake_writes == 3);
	ut_dev.gate = 0;
	ut_cdev.excl_end = 0;
}

static void integ_other_cases(void)
{
	/* PRE-FETCH(10/16): the range is checked; IMMED allowed */
	EXPECT(RUN(C(0x34, 0x02, 0, 0, 0, 0, 0, 0, 1), 0, NONE, 0), UT_GOOD);
	CHECK_NO_DATA();
	EXPECT(RUN(C(0x34, 0, 0, 0x20, 0, 0, 0, 0, 1), 0, NONE, 0), TCMX_SENSE_LBA_OUT_OF_RANGE);
	CHECK(ut_cmd.xfer_len == 0);
	EXPECT(RUN(C(0x90, 0x02, 0, 0, 0, 0, 0, 0x1f, 0xff, 0xff, 0, 0, 0, 1), 0, NONE, 0), UT_GOOD);
	CHECK_NO_DATA();
	EXPECT(RUN(C(0x90, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 0, NONE, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(ut_cmd.xfer_len == 0);

	/* READ DEFECT DATA(10): a 4-byte header, empty lists as asked */
	EXPECT(RUN(C(0x37, 0, 0x18, 0, 0, 0, 0, 0, 32), 32, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 4);
	CHECK_BYTES(0, 0x00, 0x18, 0x00, 0x00, F);
	EXPECT(RUN(C(0x37, 0, 0x0b, 0, 0, 0, 0, 0, 32), 32, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0x00, 0x0b, 0x00, 0x00, F);
	EXPECT(RUN(C(0x37, 0, 0x05, 0, 0, 0, 0, 0, 2), 32, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 2);
	CHECK_BYTES(0, 0x00, 0x05, F);
	/* reserved formats: field pointer at the format */
	EXPECT(RUN(C(0x37, 0, 0x02, 0, 0, 0, 0, 0, 32), 32, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xca, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0);
	/* READ DEFECT DATA(12): an 8-byte header */
	EXPECT(RUN(C(0xb7, 0x1d, 0, 0, 0, 0, 0, 0, 0, 32), 32, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 8);
	CHECK_BYTES(0, 0x00, 0x1d, 0, 0, 0, 0, 0, 0, F);
	EXPECT(RUN(C(0xb7, 0x1d), 32, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 0 && ut_data[0] == F);
	EXPECT(RUN(C(0xb7, 0x07, 0, 0, 0, 0, 0, 0, 0, 32), 32, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xca, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0);
}

void ut_test_integrity(void)
{
	ut_ops.read_blocks = fake_read;
	ut_ops.write_blocks = fake_write;
	integ_verify_cases();
	integ_write_cases();
	integ_overflow_cases();
	integ_caw_cases();
	integ_exclusion_cases();
	integ_other_cases();
	/* without block ops the data-out commands are refused */
	ut_ops.read_blocks = NULL;
	ut_ops.write_blocks = NULL;
	fake_reset(F);
	EXPECT(RUN(C(0x89, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1), 1024, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(fake_writes == 0);
}
