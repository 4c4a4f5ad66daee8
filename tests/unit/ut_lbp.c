// SPDX-License-Identifier: GPL-2.0
/*
 * Logical block provisioning (target/lbp.c) against a 64-block backend in
 * memory: UNMAP, WRITE SAME(10/16), GET LBA STATUS, FORMAT UNIT, SANITIZE,
 * and what READ CAPACITY(16) and the VPD pages B0/B2 report.
 */
#include "ut.h"

#define IN	DMA_FROM_DEVICE
#define OUT	DMA_TO_DEVICE
#define NONE	DMA_NONE
#define BS	512
#define NB	64

static u8 disk[NB * BS];
static bool mapped[NB];
static int unmap_calls;
static bool no_space;

static int lbp_read(struct tcmx_dev *dev, u64 lba, u32 nr, void *buf)
{
	memcpy(buf, disk + lba * BS, (size_t)nr * BS);
	return 0;
}

static int lbp_write(struct tcmx_dev *dev, u64 lba, u32 nr, const void *buf)
{
	u32 i;

	if (no_space)
		return -ENOSPC;
	memcpy(disk + lba * BS, buf, (size_t)nr * BS);
	for (i = 0; i < nr; i++)
		mapped[lba + i] = true;
	return 0;
}

static int lbp_unmap(struct tcmx_dev *dev, u64 lba, u64 nr)
{
	u64 i;

	unmap_calls++;
	memset(disk + lba * BS, 0, nr * BS);
	for (i = 0; i < nr; i++)
		mapped[lba + i] = false;
	return 0;
}

static u64 lbp_status(struct tcmx_dev *dev, u64 lba, bool *m)
{
	u64 i = lba;

	*m = mapped[lba];
	while (i < NB && mapped[i] == *m)
		i++;
	return i - lba;
}

/* blocks [lba, lba + nr) all hold @c (and so are written) */
static bool blocks_are(u64 lba, u64 nr, u8 c)
{
	return !memchr_inv(disk + lba * BS, c, nr * BS);
}

static void setup(void)
{
	ut_fixture_reset();
	ut_ops.read_blocks = lbp_read;
	ut_ops.write_blocks = lbp_write;
	ut_ops.unmap = lbp_unmap;
	ut_ops.lba_status = lbp_status;
	ut_ops.phys_block_size = 4096;
	ut_dev.nr_blocks = NB;
	ut_dev.attrib.emulate_tpu = 1;
	ut_dev.attrib.emulate_tpws = 1;
	ut_dev.attrib.unmap_zeroes_data = 1;
	ut_dev.attrib.max_unmap_lba_count = 32;
	ut_dev.attrib.max_unmap_block_desc_count = 4;
	ut_dev.attrib.unmap_granularity = 1;
	ut_dev.attrib.max_write_same_len = 48;
	ut_dev.attrib.hw_max_sectors = 8192;
	memset(disk, 0xa5, sizeof(disk));
	memset(mapped, 1, sizeof(mapped));
	unmap_calls = 0;
	no_space = false;
}

static void lbp_reports(void)
{
	/* READ CAPACITY(16): 8 blocks per 4 KiB physical block, LBPME | LBPRZ */
	EXPECT(RUN(C(0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32), 32, IN, 0), UT_GOOD);
	CHECK_BYTES(8, 0x00, 0x00, 0x02, 0x00, 0x00, 0x03, 0xc0, 0x00);
	/* B2: LBPU, LBPWS, LBPWS10, LBPRZ 001b; thin */
	EXPECT(RUN(C(0x12, 1, 0xb2, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0x00, 0xb2, 0x00, 0x04, 0x00, 0xe4, 0x02, 0x00, UT_FILL);
	/* B0: 0x3c long; UNMAP, WRITE SAME and atomic limits */
	EXPECT(RUN(C(0x12, 1, 0xb0, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 64);
	CHECK_BYTES(0, 0x00, 0xb0, 0x00, 0x3c, 0x00);
	CHECK_BYTES(20, 0, 0, 0, 32, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0,
		    0, 0, 0, 0, 0, 0, 0, 48,
		    0, 0, 0x08, 0x00, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0);
	/* fully provisioned: nothing of it */
	ut_dev.attrib.emulate_tpu = 0;
	ut_dev.attrib.emulate_tpws = 0;
	EXPECT(RUN(C(0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32), 32, IN, 0), UT_GOOD);
	CHECK_BYTES(14, 0x00);
	EXPECT(RUN(C(0x12, 1, 0xb2, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0x00, 0xb2, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, UT_FILL);
	EXPECT(RUN(C(0x12, 1, 0xb0, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(20, 0, 0, 0, 0, 0, 0, 0, 0);
	/* UNMAP and WRITE SAME with UNMAP are refused then */
	EXPECT(RUN(C(0x42, 0, 0, 0, 0, 0, 0, 0, 24), 24, OUT, 0), TCMX_SENSE_INVALID_OPCODE);
	EXPECT(RUN(C(0x41, 0x08, 0, 0, 0, 0, 0, 0, 1), BS, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_BYTES(0, UT_FILL);
}

/* header + descriptors (lba, nr) */
static u32 unmap_list(u8 *p, const u64 (*d)[2], u32 n)
{
	u32 i;

	memset(p, 0, 8 + 16 * n);
	put_unaligned_be16(6 + 16 * n, &p[0]);
	put_unaligned_be16(16 * n, &p[2]);
	for (i = 0; i < n; i++) {
		put_unaligned_be64(d[i][0], &p[8 + 16 * i]);
		put_unaligned_be32(d[i][1], &p[16 + 16 * i]);
	}
	return 8 + 16 * n;
}

/*
 * A fabric's data-out buffer shorter than the data length it gave: what
 * UNMAP copies out is less than its header, and is refused as that; the
 * rest of its copy buffer is never read as descriptors.
 */
static void lbp_unmap_short_sgl(void)
{
	static const u64 one[][2] = { { 0, 4 } };
	u8 cdb[16] = { 0x42, [8] = 24 }, p[24], sense[TCMX_SENSE_BUFFER_LEN];
	struct scatterlist sg = { .buf = p, .len = 4 };
	struct tcmx_cmd cmd;
	int calls = unmap_calls, s;

	unmap_list(p, one, 1);
	ut_cmd_prepare(&cmd, cdb, &sg, 24, DMA_TO_DEVICE, 0, sense);
	s = ut_cmd_exec(&cmd);
	CHECK(s == TCMX_CHECK && (sense[2] & 0xf) == 0x05 &&
	      sense[12] == 0x1a && sense[13] == 0x00);
	CHECK(unmap_calls == calls);
}

static void lbp_unmap_cmd(void)
{
	static const u64 two[][2] = { { 2, 3 }, { 10, 0 } };
	static const u64 past[][2] = { { 0, 1 }, { 60, 5 } };
	static const u64 many[][2] = { { 0, 20 }, { 20, 13 } };
	static const u64 five[][2] = { { 0, 1 }, { 1, 1 }, { 2, 1 }, { 3, 1 },
				       { 4, 1 } };
	static const u64 end[][2] = { { 64, 0 } };
	u8 p[256];
	u32 n;

	/* length 0: nothing */
	EXPECT(RUN(C(0x42), 0, NONE, 0), UT_GOOD);
	CHECK(unmap_calls == 0);
	/* shorter than the header */
	n = unmap_list(p, two, 0);
	EXPECT(RUN_OUT(C(0x42, 0, 0, 0, 0, 0, 0, 0, 7), p, 7, 7, 0), TCMX_SENSE_PARAM_LIST_LENGTH);
	/* ANCHOR: 05/24/00 at byte 1 bit 0 */
	EXPECT(RUN_OUT(C(0x42, 1, 0, 0, 0, 0, 0, 0, 8), p, n, 8, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xc8, 0x00, 0x01,
		    0, 0, 0, 0, 0, 0, 0, 0);
	/* the header alone is a no-op */
	EXPECT(RUN_OUT(C(0x42, 0, 0, 0, 0, 0, 0, 0, 8), p, n, 8, 0), UT_GOOD);
	CHECK(unmap_calls == 0);
	/* two descriptors, one of 0 blocks */
	n = unmap_list(p, two, 2);
	EXPECT(RUN_OUT(C(0x42, 0, 0, 0, 0, 0, 0, 0, n), p, n, n, 0), UT_GOOD);
	CHECK(unmap_calls == 1 && !mapped[2] && !mapped[4] && mapped[5] &&
	      mapped[1] && blocks_are(2, 3, 0) && blocks_are(5, 1, 0xa5));
	/* a descriptor at the end with 0 blocks is fine */
	n = unmap_list(p, end, 1);
	EXPECT(RUN_OUT(C(0x42, 0, 0, 0, 0, 0, 0, 0, n), p, n, n, 0), UT_GOOD);
	CHECK(unmap_calls == 1);
	/* one past the capacity: nothing is unmapped */
	n = unmap_list(p, past, 2);
	EXPECT(RUN_OUT(C(0x42, 0, 0, 0, 0, 0, 0, 0, n), p, n, n, 0), TCMX_SENSE_LBA_OUT_OF_RANGE);
	CHECK(unmap_calls == 1 && mapped[0]);
	/* 33 blocks in all, over MAXIMUM UNMAP LBA COUNT: 05/26/00 at 32 */
	n = unmap_list(p, many, 2);
	EXPECT(RUN_OUT(C(0x42, 0, 0, 0, 0, 0, 0, 0, n), p, n, n, 0), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x26, 0, 0,
		    0x80, 0x00, 0x20,
		    0, 0, 0, 0, 0, 0, 0, 0);
	CHECK(unmap_calls == 1);
	/* 5 descriptors, over MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT */
	n = unmap_list(p, five, 5);
	EXPECT(RUN_OUT(C(0x42, 0, 0, 0, 0, 0, 0, 0, n), p, n, n, 0), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x26, 0, 0,
		    0x80, 0x00, 0x02,
		    0, 0, 0, 0, 0, 0, 0, 0);
	/* 4 of them: BLOCK DESCRIPTOR DATA LENGTH cuts the list */
	put_unaligned_be16(64, &p[2]);
	EXPECT(RUN_OUT(C(0x42, 0, 0, 0, 0, 0, 0, 0, n), p, n, n, 0), UT_GOOD);
	CHECK(unmap_calls == 5 && !mapped[0] && !mapped[3] && mapped[5]);
}

static void lbp_write_same_cmd(void)
{
	u8 blk[BS];

	/* replicated, UNMAP or not, when the block is not zeroes */
	memset(blk, 0x3c, BS);
	EXPECT(RUN_OUT(C(0x41, 0, 0, 0, 0, 8, 0, 0, 4), blk, BS, BS, 0), UT_GOOD);
	CHECK(blocks_are(8, 4, 0x3c) && blocks_are(12, 1, 0xa5) &&
	      unmap_calls == 0 && ut_cmd.xfer_len == BS);
	EXPECT(RUN_OUT(C(0x41, 0x08, 0, 0, 0, 8, 0, 0, 2), blk, BS, BS, 0), UT_GOOD);
	CHECK(blocks_are(8, 2, 0x3c) && unmap_calls == 0 && mapped[8]);
	/* zeroes with UNMAP: deallocated */
	memset(blk, 0, BS);
	EXPECT(RUN_OUT(C(0x41, 0x08, 0, 0, 0, 8, 0, 0, 2), blk, BS, BS, 0), UT_GOOD);
	CHECK(unmap_calls == 1 && !mapped[8] && !mapped[9] && mapped[10]);
	/* zeroes without UNMAP: written */
	EXPECT(RUN_OUT(C(0x41, 0, 0, 0, 0, 10, 0, 0, 1), blk, BS, BS, 0), UT_GOOD);
	CHECK(unmap_calls == 1 && mapped[10] && blocks_are(10, 1, 0));
	/* WRITE SAME(16) NDOB: no data, deallocated */
	EXPECT(RUN(C(0x93, 0x01, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 3), 0, NONE, 0), UT_GOOD);
	CHECK(unmap_calls == 2 && !mapped[20] && !mapped[22] && mapped[23]);
	EXPECT(RUN(C(0x93, 0x01, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 3), BS, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(unmap_calls == 2);
	/* 0 blocks: to the end, limited by MAXIMUM WRITE SAME LENGTH (48) */
	memset(blk, 0x11, BS);
	EXPECT(RUN_OUT(C(0x93, 0, 0, 0, 0, 0, 0, 0, 0, 15, 0, 0, 0, 0), blk, BS, BS, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xc0, 0x00, 0x0a,
		    0, 0, 0, 0, 0, 0, 0, 0);
	EXPECT(RUN_OUT(C(0x93, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0), blk, BS, BS, 0), UT_GOOD);
	CHECK(blocks_are(16, 48, 0x11) && blocks_are(15, 1, 0xa5));
	EXPECT(RUN_OUT(C(0x41, 0, 0, 0, 0, 15, 0, 0, 49), blk, BS, BS, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xc0, 0x00, 0x07,
		    0, 0, 0, 0, 0, 0, 0, 0);
	/* at the last LBA + 1 with 0 blocks: nothing; beyond: out of range */
	EXPECT(RUN_OUT(C(0x41, 0, 0, 0, 0, 64, 0, 0, 0), blk, BS, BS, 0), UT_GOOD);
	CHECK(unmap_calls == 2);
	EXPECT(RUN_OUT(C(0x41, 0, 0, 0, 0, 65, 0, 0, 0), blk, BS, BS, 0), TCMX_SENSE_LBA_OUT_OF_RANGE);
	EXPECT(RUN_OUT(C(0x41, 0, 0, 0, 0, 63, 0, 0, 2), blk, BS, BS, 0), TCMX_SENSE_LBA_OUT_OF_RANGE);
	/* exactly one block of data-out */
	EXPECT(RUN_OUT(C(0x41, 0, 0, 0, 0, 0, 0, 0, 1), blk, BS, BS / 2, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN_OUT(C(0x41, 0, 0, 0, 0, 0, 0, 0, 1), blk, BS, BS * 2, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	/* LBDATA, PBDATA, ANCHOR, WRPROTECT: byte 1 bits 1, 2, 4, 5-7 */
	EXPECT(RUN_OUT(C(0x41, 0x02, 0, 0, 0, 0, 0, 0, 1), blk, BS, BS, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xc9, 0x00, 0x01,
		    0, 0, 0, 0, 0, 0, 0, 0);
	EXPECT(RUN_OUT(C(0x93, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), blk, BS, BS, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xca, 0x00, 0x01,
		    0, 0, 0, 0, 0, 0, 0, 0);
	EXPECT(RUN_OUT(C(0x93, 0x18, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), blk, BS, BS, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xcc, 0x00, 0x01,
		    0, 0, 0, 0, 0, 0, 0, 0);
	/* no memory left: SPACE ALLOCATION FAILED */
	no_space = true;
	EXPECT(RUN_OUT(C(0x41, 0, 0, 0, 0, 0, 0, 0, 1), blk, BS, BS, 0), TCMX_SENSE_SPACE_ALLOC_FAILED);
	CHECK(blocks_are(0, 1, 0xa5));
}

static void lbp_lba_status_cmd(void)
{
	memset(mapped, 0, sizeof(mapped));
	memset(mapped, 1, 8);
	memset(mapped + 16, 1, 8);
	EXPECT(RUN(C(0x9e, 0x12, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 1, 0), 256, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 8 + 4 * 16);
	CHECK_BYTES(0, 0, 0, 0, 68, 0, 0, 0, 0,
		    0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 0,
		    0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 8, 1, 0, 0, 0,
		    0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 8, 0, 0, 0, 0,
		    0, 0, 0, 0, 0, 0, 0, 24, 0, 0, 0, 40, 1, 0, 0, 0,
		    UT_FILL);
	/* allocation length 24: one descriptor; 16: truncated */
	EXPECT(RUN(C(0x9e, 0x12, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 24), 256, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 20, 0, 0, 0, 0,
		    0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 7, 1, 0, 0, 0, UT_FILL);
	EXPECT(RUN(C(0x9e, 0x12, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 16), 256, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 16);
	CHECK_BYTES(0, 0, 0, 0, 20, 0, 0, 0, 0,
		    0, 0, 0, 0, 0, 0, 0, 9, UT_FILL);
	/* the last LBA, and one past it */
	EXPECT(RUN(C(0x9e, 0x12, 0, 0, 0, 0, 0, 0, 0, 63, 0, 0, 0, 24), 256, IN, 0), UT_GOOD);
	CHECK_BYTES(8, 0, 0, 0, 0, 0, 0, 0, 63, 0, 0, 0, 1, 1);
	EXPECT(RUN(C(0x9e, 0x12, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 24), 256, IN, 0), TCMX_SENSE_LBA_OUT_OF_RANGE);
	/* fully provisioned: one mapped extent */
	ut_dev.attrib.emulate_tpu = 0;
	ut_dev.attrib.emulate_tpws = 0;
	EXPECT(RUN(C(0x9e, 0x12, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 1, 0), 256, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 20, 0, 0, 0, 0,
		    0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 55, 0, 0, 0, 0, UT_FILL);
}

static void lbp_format_sanitize(void)
{
	u8 p[BS + 8];

	/* FORMAT UNIT: FMTDATA refused; else every block deallocated */
	EXPECT(RUN(C(0x04, 0x10), 0, NONE, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xcc, 0x00, 0x01,
		    0, 0, 0, 0, 0, 0, 0, 0);
	EXPECT(RUN(C(0x04, 0x08), 0, NONE, 0), UT_GOOD);
	CHECK(unmap_calls == 1 && !mapped[0] && !mapped[63] &&
	      blocks_are(0, NB, 0));

	/* SANITIZE: unknown service action, erase with a parameter list */
	EXPECT(RUN(C(0x48, 0x04), 0, NONE, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xcc, 0x00, 0x01,
		    0, 0, 0, 0, 0, 0, 0, 0);
	EXPECT(RUN(C(0x48, 0x02, 0, 0, 0, 0, 0, 0, 8), 8, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xcb, 0x00, 0x08,
		    0, 0, 0, 0, 0, 0, 0, 0);
	EXPECT(RUN(C(0x48, 0x9f), 0, NONE, 0), UT_GOOD);	/* EXIT FAILURE MODE */
	CHECK(unmap_calls == 1);
	memset(mapped, 1, sizeof(mapped));
	EXPECT(RUN(C(0x48, 0x82), 0, NONE, 0), UT_GOOD);	/* IMMED BLOCK ERASE */
	CHECK(unmap_calls == 2 && !mapped[0] && !mapped[63]);
	memset(mapped, 1, sizeof(mapped));
	EXPECT(RUN(C(0x48, 0x23), 0, NONE, 0), UT_GOOD);	/* AUSE CRYPTO ERASE */
	CHECK(unmap_calls == 3 && !mapped[31]);

	/* OVERWRITE: 4 < parameter list length <= block + 4 */
	memset(p, 0, sizeof(p));
	p[0] = 0x01;
	put_unaligned_be16(2, &p[2]);
	p[4] = 0x5a;
	p[5] = 0xc3;
	EXPECT(RUN_OUT(C(0x48, 0x01, 0, 0, 0, 0, 0, 0, 4), p, 4, 4, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x24, 0, 0,
		    0xc0, 0x00, 0x07,
		    0, 0, 0, 0, 0, 0, 0, 0);
	EXPECT(RUN_OUT(C(0x48, 0x01, 0, 0, 0, 0, 0, 0x02, 0x05), p, 8, BS + 8, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN_OUT(C(0x48, 0x01, 0, 0, 0, 0, 0, 0, 6), p, 6, 8, 0), UT_GOOD);
	CHECK(unmap_calls == 4 && mapped[0] && mapped[63] &&
	      disk[0] == 0x5a && disk[1] == 0xc3 && disk[510] == 0x5a &&
	      disk[NB * BS - 1] == 0xc3 && ut_cmd.xfer_len == 6);
	/* INVERT with 2 passes: the last pass is inverted */
	p[0] = 0x82;
	EXPECT(RUN_OUT(C(0x48, 0x01, 0, 0, 0, 0, 0, 0, 6), p, 6, 8, 0), UT_GOOD);
	CHECK(disk[0] == 0xa5 && disk[1] == 0x3c && disk[NB * BS - 1] == 0x3c);
	/* a pattern of zeroes deallocates */
	p[0] = 0x01;
	p[4] = p[5] = 0;
	EXPECT(RUN_OUT(C(0x48, 0x01, 0, 0, 0, 0, 0, 0, 6), p, 6, 8, 0), UT_GOOD);
	CHECK(!mapped[0] && !mapped[63] && blocks_are(0, NB, 0));
	/* OWCOUNT 0, TEST, pattern length 0 or over the list: 05/26/00 */
	p[0] = 0x00;
	EXPECT(RUN_OUT(C(0x48, 0x01, 0, 0, 0, 0, 0, 0, 6), p, 6, 8, 0), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x26, 0, 0,
		    0x8c, 0x00, 0x00,
		    0, 0, 0, 0, 0, 0, 0, 0);
	p[0] = 0x21;
	EXPECT(RUN_OUT(C(0x48, 0x01, 0, 0, 0, 0, 0, 0, 6), p, 6, 8, 0), TCMX_SENSE_INVALID_PARAM_FIELD);
	p[0] = 0x01;
	put_unaligned_be16(0, &p[2]);
	EXPECT(RUN_OUT(C(0x48, 0x01, 0, 0, 0, 0, 0, 0, 6), p, 6, 8, 0), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0x26, 0, 0,
		    0x80, 0x00, 0x02,
		    0, 0, 0, 0, 0, 0, 0, 0);
	put_unaligned_be16(3, &p[2]);
	EXPECT(RUN_OUT(C(0x48, 0x01, 0, 0, 0, 0, 0, 0, 6), p, 6, 8, 0), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK(unmap_calls == 6);
}

/*
 * While a SANITIZE is in progress (TCMX_GATE_SANITIZE, sanitize.c): NOT
 * READY, SANITIZE IN PROGRESS for all but INQUIRY, REPORT LUNS and
 * REQUEST SENSE, which reports it; an unknown opcode stays one.
 */
static void lbp_sanitize_in_progress(void)
{
	set_bit(TCMX_GATE_SANITIZE, &ut_dev.gate);
	EXPECT(RUN(C(0x00), 0, NONE, 0), TCMX_SENSE_SANITIZE_IN_PROGRESS);
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1), BS, IN, 0),
	       TCMX_SENSE_SANITIZE_IN_PROGRESS);
	EXPECT(RUN(C(0x48, 0x82), 0, NONE, 0), TCMX_SENSE_SANITIZE_IN_PROGRESS);
	EXPECT(RUN(C(0x04), 0, NONE, 0), TCMX_SENSE_SANITIZE_IN_PROGRESS);
	EXPECT(RUN(C(0x12, 0, 0, 0, 36), 36, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0x00);
	EXPECT(RUN(C(0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 16), 16, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0x00, 0x00, 0x00);
	EXPECT(RUN(C(0x03, 0, 0, 0, 18), 18, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0x70, 0x00, 0x02);
	CHECK_BYTES(12, 0x04, 0x1b);
	EXPECT(RUN(C(0xd9), 0, NONE, 0), TCMX_SENSE_INVALID_OPCODE);
	clear_bit(TCMX_GATE_SANITIZE, &ut_dev.gate);
	EXPECT(RUN(C(0x00), 0, NONE, 0), UT_GOOD);
	CHECK_NO_DATA();
	EXPECT(RUN(C(0x03, 0, 0, 0, 18), 18, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0x70, 0x00, 0x00);
}

void ut_test_lbp(void)
{
	setup();
	lbp_reports();
	setup();
	lbp_unmap_cmd();
	lbp_unmap_short_sgl();
	setup();
	lbp_write_same_cmd();
	setup();
	lbp_lba_status_cmd();
	setup();
	lbp_format_sanitize();
	lbp_sanitize_in_progress();
	ut_ops.read_blocks = NULL;
	ut_ops.write_blocks = NULL;
	ut_ops.unmap = NULL;
	ut_ops.lba_status = NULL;
	ut_ops.phys_block_size = 0;
	ut_fixture_reset();
}
