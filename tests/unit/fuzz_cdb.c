// SPDX-License-Identifier: GPL-2.0
/*
 * A coverage-guided fuzzer (libFuzzer) of the core's CDB decoder and its
 * emulated commands: the target/ files of the unit test, its fixture
 * (ut_fixture.c) and a small medium in memory.  "make fuzz" builds and
 * runs it (README).
 *
 * One input is a device set-up and up to four commands run in turn, each
 * on one of the fixture's LUNs (two of them, 0 and 5, are separate I_T
 * nexuses for reservations and unit attentions).  A command's opcode and
 * service action are mostly taken from the command table's rows, so that
 * implemented commands are common; its data direction and buffer length
 * may disagree with its CDB.  After each command the oracles below must
 * hold, else the fuzzer abort()s and libFuzzer keeps the input:
 *
 *   - the outcome is GOOD, CHECK CONDITION, BUSY or RESERVATION CONFLICT,
 *     with a SAM status and sense length that agree with it;
 *   - CHECK CONDITION has well-formed sense data: response code 70h or
 *     72h as D_SENSE says, a sense key (not NO SENSE), an additional
 *     sense length that is sense_len - 8, and an ILLEGAL REQUEST field
 *     pointer within the CDB or the parameter list;
 *   - xfer_len <= data_len; a failed command returns no data, and nothing
 *     beyond xfer_len of a data-in buffer is written; an overflow only
 *     for a command with a transfer length (half the commands run as if
 *     on a fabric that reports overflows and owns its buffers, iSCSI);
 *   - the medium changes only within [lba, lba + nr) of a write-type
 *     command (any block for FORMAT UNIT, SANITIZE, UNMAP, EXTENDED
 *     COPY), never for other commands or while SWP is set; every backend
 *     call is within the capacity (checked as it happens and against a
 *     shadow copy afterwards);
 *   - no GOOD for a write-type command under SWP, nor for one but those
 *     that allow it (INQUIRY, REPORT LUNS, ...) while a unit attention
 *     is pending;
 *   - what GOOD means: READ CAPACITY reports the capacity; WRITE, WRITE
 *     SAME, COMPARE AND WRITE, ORWRITE, EXTENDED COPY, FORMAT UNIT and
 *     SANITIZE leave the blocks they should; GET LBA STATUS descriptors
 *     follow each other within the capacity; parameter data that give
 *     their own length come whole, up to the allocation length;
 *   - no WARN_ON, no leak, no held exclusion or LUN pin afterwards.
 *
 * FUZZ_TRACE=1 prints each command as it runs (to replay a reproducer);
 * at exit the fuzzer prints how many commands ran and their outcomes.
 */
#include <scsi/scsi_proto.h>
#include "ut.h"

#define FZ_MAX_CMDS	4
#define FZ_MAX_DATA	(1U << 20)
#define FZ_WIN		32		/* blocks kept at each end of the medium */
#define FZ_MAX_BS	4096
#define FZ_HUGE		(1ULL << 22)	/* beyond: no whole-medium fills */
#define FZ_WRITE_ATOMIC_16	0x9c		/* not in scsi_proto.h */
#define FZ_SANITIZE	0x48
#define FZ_ORWRITE_16	0x8b
#define FZ_READ_DEFECT_DATA	0x37
#define FZ_READ_DEFECT_DATA_12	0xb7

/* ---- the medium: FZ_WIN blocks at each end, the rest reads as zeroes ---- */

static u8 fz_disk[2][FZ_WIN * FZ_MAX_BS];
static u8 fz_shadow[2][FZ_WIN * FZ_MAX_BS];
static bool fz_mapped[2][FZ_WIN];
static u64 fz_high;		/* first LBA of the upper window */
static u32 fz_win_bytes;	/* of each window, at this block size */
static bool fz_no_space, fz_read_error;

/* what the current command may write */
static struct {
	const struct tcmx_cmd_desc *desc;
	bool any;		/* anywhere (FORMAT UNIT, UNMAP, ...) */
	bool none;		/* nowhere: not write-type, or SWP */
	u64 lba, end;
	bool trace;
} fz;

static void fz_fail(const char *what)
{
	fprintf(stderr, "ORACLE: %s\n", what);
	abort();
}

#define FZ_ASSERT(c)	do { if (!(c)) fz_fail(#c); } while (0)

/* where @lba is kept (@win, @idx), or false */
static bool fz_where(u64 lba, int *win, u32 *idx)
{
	if (lba < FZ_WIN && lba < ut_dev.nr_blocks) {
		*win = 0;
		*idx = lba;
		return true;
	}
	if (lba >= fz_high && lba < ut_dev.nr_blocks) {
		*win = 1;
		*idx = lba - fz_high;
		return true;
	}
	return false;
}

static void fz_check_range(u64 lba, u64 nr, bool write)
{
	FZ_ASSERT(lba <= ut_dev.nr_blocks && nr <= ut_dev.nr_blocks - lba);
	if (!write)
		return;
	FZ_ASSERT(fz.desc && !fz.none);
	FZ_ASSERT(fz.any || (lba >= fz.lba && lba + nr <= fz.end));
}

static int fz_read(struct tcmx_dev *dev, u64 lba, u32 nr, void *buf)
{
	u32 bs = dev->block_size, i, idx;
	int win;

	fz_check_range(lba, nr, false);
	if (fz_read_error)
		return -EIO;
	for (i = 0; i < nr; i++) {
		u8 *p = (u8 *)buf + (size_t)i * bs;

		if (fz_where(lba + i, &win, &idx))
			memcpy(p, &fz_disk[win][idx * bs], bs);
		else
			memset(p, 0, bs);
	}
	return 0;
}

static int fz_write(struct tcmx_dev *dev, u64 lba, u32 nr, const void *buf)
{
	u32 bs = dev->block_size, i, idx;
	int win;

	fz_check_range(lba, nr, true);
	if (fz_no_space)
		return -ENOSPC;
	/* the middle of a huge medium: only the ends are kept */
	if (nr > 2 * FZ_WIN && lba >= FZ_WIN && lba + nr <= fz_high)
		return 0;
	for (i = 0; i < nr; i++) {
		if (!fz_where(lba + i, &win, &idx))
			continue;
		memcpy(&fz_disk[win][idx * bs], (const u8 *)buf + (size_t)i * bs,
		       bs);
		fz_mapped[win][idx] = true;
	}
	return 0;
}

static void fz_unmap_win(int win, u64 first, u64 lba, u64 end)
{
	u32 bs = ut_dev.block_size;
	u64 a = max(lba, first), b = min(end, first + FZ_WIN);

	for (; a < b && a < ut_dev.nr_blocks; a++) {
		memset(&fz_disk[win][(a - first) * bs], 0, bs);
		fz_mapped[win][a - first] = false;
	}
}

static int fz_unmap(struct tcmx_dev *dev, u64 lba, u64 nr)
{
	fz_check_range(lba, nr, true);
	fz_unmap_win(0, 0, lba, lba + nr);
	if (fz_high < dev->nr_blocks)
		fz_unmap_win(1, fz_high, lba, lba + nr);
	return 0;
}

static u64 fz_lba_status(struct tcmx_dev *dev, u64 lba, bool *mapped)
{
	u32 idx, n = 1;
	int win;

	FZ_ASSERT(lba < dev->nr_blocks);
	if (!fz_where(lba, &win, &idx)) {
		*mapped = true;
		return (lba < fz_high ? fz_high : dev->nr_blocks) - lba;
	}
	*mapped = fz_mapped[win][idx];
	while (idx + n < FZ_WIN && lba + n < dev->nr_blocks &&
	       fz_mapped[win][idx + n] == *mapped)
		n++;
	return n;
}

/* READ/WRITE(6/10/12/16), as rd moves them */
static enum tcmx_status fz_rw(struct tcmx_cmd *cmd)
{
	u32 bs = cmd->dev->block_size, off, n, idx;
	bool write = cmd->desc->dir == DMA_TO_DEVICE;
	u8 block[FZ_MAX_BS];
	int win;

	FZ_ASSERT(cmd->nr_blocks && cmd->xfer_len &&
		  cmd->xfer_len <= cmd->data_len &&
		  cmd->xfer_len <= (u64)cmd->nr_blocks * bs);
	FZ_ASSERT(cmd->data_dir == cmd->desc->dir);
	fz_check_range(cmd->lba, cmd->nr_blocks, write);
	for (off = 0; off < cmd->xfer_len; off += n) {
		u64 lba = cmd->lba + off / bs;
		bool kept = fz_where(lba, &win, &idx);

		n = min(bs, cmd->xfer_len - off);
		if (write) {
			FZ_ASSERT(n == bs);
			sg_pcopy_to_buffer(cmd->sgl, 1, block, bs, off);
			if (kept) {
				memcpy(&fz_disk[win][idx * bs], block, bs);
				fz_mapped[win][idx] = true;
			}
		} else {
			if (kept)
				memcpy(block, &fz_disk[win][idx * bs], bs);
			else
				memset(block, 0, bs);
			sg_pcopy_from_buffer(cmd->sgl, 1, block, n, off);
		}
	}
	return TCMX_GOOD;
}

static enum tcmx_status fz_sync(struct tcmx_cmd *cmd)
{
	return TCMX_GOOD;
}

/* ---- the rest of the core that the fuzzed files call ---- */

void ut_warn(const char *file, int line)
{
	fprintf(stderr, "WARN at %s:%d\n", file, line);
	fz_fail("WARN_ON");
}

/*
 * LUN references and I_T_L nexus pins EXTENDED COPY took and did not put
 * (none may stay)
 */
static bool fz_pinned(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ut_luns); i++)
		if (ut_luns[i].ref.count || atomic_read(&ut_itls[i].deferred))
			return true;
	return false;
}

/* ---- outcomes ---- */

static struct tcmx_cmd_desc *fz_rows[512];
static unsigned int fz_nr_rows;
static unsigned long fz_good[512];	/* per row: GOOD */
static unsigned long fz_inputs, fz_cmds, fz_busy, fz_conflict, fz_good_all;
static struct {
	u8 key, asc, ascq;
	unsigned long n;
} fz_senses[128];
static unsigned int fz_nr_senses;

static void fz_count_sense(u8 key, u8 asc, u8 ascq)
{
	unsigned int i;

	for (i = 0; i < fz_nr_senses; i++) {
		if (fz_senses[i].key == key && fz_senses[i].asc == asc &&
		    fz_senses[i].ascq == ascq) {
			fz_senses[i].n++;
			return;
		}
	}
	if (fz_nr_senses == ARRAY_SIZE(fz_senses))
		return;
	fz_senses[fz_nr_senses].key = key;
	fz_senses[fz_nr_senses].asc = asc;
	fz_senses[fz_nr_senses].ascq = ascq;
	fz_senses[fz_nr_senses++].n = 1;
}

static void fz_report(void)
{
	unsigned long check = 0;
	unsigned int i;

	for (i = 0; i < fz_nr_senses; i++)
		check += fz_senses[i].n;
	fprintf(stderr, "fuzz_cdb: %lu inputs, %lu commands: GOOD %lu, CHECK CONDITION %lu, BUSY %lu, RESERVATION CONFLICT %lu\n",
		fz_inputs, fz_cmds, fz_good_all, check, fz_busy, fz_conflict);
	for (i = 0; i < fz_nr_senses; i++)
		fprintf(stderr, "  sense %02x/%02x/%02x: %lu\n",
			fz_senses[i].key, fz_senses[i].asc, fz_senses[i].ascq,
			fz_senses[i].n);
	fprintf(stderr, "  rows never GOOD:");
	for (i = 0; i < fz_nr_rows; i++)
		if (!fz_good[i])
			fprintf(stderr, " %02xh/%02xh", fz_rows[i]->opcode,
				fz_rows[i]->sa);
	fprintf(stderr, "\n");
}

static void fz_add_rows(struct tcmx_cmd_desc *d)
{
	for (; d->len && fz_nr_rows < ARRAY_SIZE(fz_rows); d++)
		fz_rows[fz_nr_rows++] = d;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (tcmx_cdb_init())
		fz_fail("the command table does not build");
	fz_add_rows(tcmx_sbc_cmds);
	fz_add_rows(tcmx_spc_cmds);
	fz_add_rows(tcmx_cdb_cmds);
	fz_add_rows(tcmx_lbp_cmds);
	fz_add_rows(tcmx_integrity_cmds);
	fz_add_rows(tcmx_xcopy_cmds);
	fz_add_rows(tcmx_mode_cmds);
	fz_add_rows(tcmx_buffer_cmds);
	fz_add_rows(tcmx_pr_cmds);
	fz.trace = getenv("FUZZ_TRACE");
	atexit(fz_report);
	return 0;
}

/* ---- the input ---- */

struct fz_in {
	const u8 *p;
	size_t n;
};

static u8 fz_u8(struct fz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static u32 fz_be(struct fz_in *in, unsigned int bytes)
{
	u32 v = 0;

	while (bytes--)
		v = v << 8 | fz_u8(in);
	return v;
}

static const u64 fz_caps[16] = {
	1, 2, 7, 8, 33, 64, 100, 4096,
	0x1fffff, 0x200000, 0x200001, 0xffffffffULL,
	0x100000000ULL, 0x100000001ULL, 1ULL << 40, (1ULL << 47) + 3,
};
static const u32 fz_max_sectors[4] = { 8192, 128, 1, 65535 };
static const u32 fz_ws_len[4] = { 0, 1, 48, 8192 };
static const u32 fz_unmap_lbas[4] = { 0, 1, 32, U32_MAX };
static const u32 fz_unmap_descs[4] = { 0, 1, 4, U32_MAX };
static const u8 fz_alua[8] = { 0, 0, 0, 1, 2, 3, 14, 15 };

static void fz_setup(struct fz_in *in)
{
	u8 c0 = fz_u8(in), c1 = fz_u8(in), c2 = fz_u8(in), c3 = fz_u8(in);
	u8 c4 = fz_u8(in);
	struct tcmx_dev *dev = &ut_dev;
	u64 cap = fz_caps[c1 & 15];
	int i;

	ut_fixture_reset();
	memset(&ut_ops, 0, sizeof(ut_ops));
	ut_ops.read_blocks = fz_read;
	ut_ops.write_blocks = fz_write;
	ut_ops.lba_status = fz_lba_status;
	ut_ops.unmap = fz_unmap;
	ut_ops.phys_block_size = c2 & 0x80 ? 4096 : 0;
	ut_ops.sync_cache = c3 & 0x20 ? fz_sync : NULL;
	dev->execute_rw = fz_rw;
	dev->nr_blocks = cap;
	dev->block_size = c0 & 1 ? 4096 : 512;
	dev->block_shift = c0 & 1 ? 12 : 9;
	dev->attrib.block_size = dev->block_size;
	dev->size_bytes = cap << dev->block_shift;
	dev->attrib.emulate_tpu = !!(c0 & 2);
	dev->attrib.emulate_tpws = !!(c0 & 4);
	dev->d_sense = c0 & 8;
	dev->attrib.unmap_zeroes_data = !!(c0 & 0x20);
	/* a backend without ->unmap cannot be thin */
	if (c0 & 0x40 && cap <= FZ_HUGE) {
		ut_ops.unmap = NULL;
		dev->attrib.emulate_tpu = dev->attrib.emulate_tpws = 0;
		dev->attrib.unmap_zeroes_data = 0;
	}
	dev->attrib.hw_max_sectors = fz_max_sectors[c1 >> 4 & 3];
	dev->attrib.optimal_sectors = dev->attrib.hw_max_sectors;
	dev->attrib.max_write_same_len = fz_ws_len[c1 >> 6];
	if (cap > FZ_HUGE && !dev->attrib.max_write_same_len)
		dev->attrib.max_write_same_len = 8192;
	dev->attrib.max_unmap_lba_count = fz_unmap_lbas[c2 & 3];
	dev->attrib.max_unmap_block_desc_count = fz_unmap_descs[c2 >> 2 & 3];
	dev->attrib.unmap_granularity = 1;
	fz_no_space = c2 & 0x10;
	fz_read_error = c2 & 0x20;
	dev->attrib.emulate_write_cache = !!(c2 & 0x40);
	dev->attrib.emulate_caw = !(c3 & 0x40);
	dev->attrib.emulate_3pc = !(c3 & 0x80);
	/* the default group's ALUA state, enforced through the gate */
	tcmx_core(dev)->default_tg_pt_gp.access_state = fz_alua[c3 >> 2 & 7];
	tcmx_alua_update_gate(dev);
	dev->attrib.emulate_pr = !(c4 & 1);
	dev->attrib.emulate_fua_write = !(c4 & 2);
	dev->attrib.emulate_fua_read = !(c4 & 2);
	dev->attrib.emulate_dpo = !(c4 & 2);
	dev->attrib.enforce_pr_isids = !(c4 & 4);
	dev->attrib.emulate_tas = !(c4 & 8);
	dev->attrib.emulate_ua_intlck_ctrl = c4 >> 4 & 3 ? (c4 >> 4 & 3) - 1 : 0;
	dev->attrib.is_nonrot = !(c4 & 0x40);
	dev->attrib.emulate_model_alias = !!(c4 & 0x80);
	if (c0 & 0x10)
		set_bit(TCMX_GATE_WP, &dev->gate);		/* SWP */
	if (c0 & 0x80)
		tcmx_ua_add(&ut_luns[0], dev, TCMX_SENSE_UA_POWER_ON);

	fz_high = cap <= FZ_WIN ? cap : max_t(u64, FZ_WIN, cap - FZ_WIN);
	fz_win_bytes = FZ_WIN * dev->block_size;
	/* each block 0xa5 but for its LBA in its first 8 bytes */
	for (i = 0; i < 2; i++) {
		u32 b;

		memset(fz_disk[i], 0xa5, fz_win_bytes);
		for (b = 0; b < FZ_WIN; b++)
			put_unaligned_be64((i ? fz_high : 0) + b,
					   &fz_disk[i][b * dev->block_size]);
		memcpy(fz_shadow[i], fz_disk[i], fz_win_bytes);
	}
	memset(fz_mapped, 1, sizeof(fz_mapped));
}

static void fz_teardown(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ut_luns); i++)
		if (ut_luns[i].dev)
			tcmx_pr_lun_gone(&ut_luns[i], &ut_dev);
	kfree(ut_cdev.echo_buf);
	kfree(ut_cdev.xcopy_ids);
	ut_cdev.echo_buf = NULL;
	ut_cdev.xcopy_ids = NULL;
}

static const u64 fz_luns[8] = { 0, 0, 0, 5, 5, 300, 7, 1 };

/* a guess at the buffer the CDB asks for, as a well-behaved initiator has */
static u32 fz_natural_len(const struct tcmx_cmd_desc *d, const u8 *cdb)
{
	struct tcmx_cmd c = { .cdb = cdb };

	if (d && d->flags & TCMX_CMD_LBA) {
		if (d->opcode == WRITE_SAME || d->opcode == WRITE_SAME_16)
			return ut_dev.block_size;
		tcmx_cdb_lba(&c);
		if (d->opcode == COMPARE_AND_WRITE)
			c.nr_blocks *= 2;
		return min_t(u64, (u64)c.nr_blocks << ut_dev.block_shift,
			     FZ_MAX_DATA);
	}
	switch (d ? d->len : 0) {
	case 6:
		return cdb[4];
	case 10:
		return get_unaligned_be16(&cdb[7]);
	case 12:
		return min(get_unaligned_be32(&cdb[6]), FZ_MAX_DATA);
	case 16:
		return min(get_unaligned_be32(&cdb[10]), FZ_MAX_DATA);
	}
	return 0;
}

/* what the command may write: fz.any, fz.none, [fz.lba, fz.end) */
static void fz_write_range(const struct tcmx_cmd_desc *d, const u8 *cdb)
{
	struct tcmx_cmd c = { .cdb = cdb };

	fz.desc = d;
	fz.any = false;
	fz.none = !d || !(d->flags & TCMX_CMD_WRITE) ||
		  test_bit(TCMX_GATE_WP, &ut_dev.gate);
	fz.lba = fz.end = 0;
	if (fz.none)
		return;
	if (d->opcode == FZ_WRITE_ATOMIC_16) {
		fz.lba = get_unaligned_be64(&cdb[2]);
		fz.end = fz.lba + get_unaligned_be16(&cdb[12]);
	} else if (d->flags & TCMX_CMD_LBA) {
		tcmx_cdb_lba(&c);
		fz.lba = c.lba;
		fz.end = c.lba + c.nr_blocks;
		if (!c.nr_blocks && (d->opcode == WRITE_SAME ||
				     d->opcode == WRITE_SAME_16))
			fz.end = ut_dev.nr_blocks;
	} else {
		fz.any = true;
	}
}

/* the kept copy of block @lba in @disk (the medium or its shadow), or NULL */
static const u8 *fz_kept(u8 (*disk)[FZ_WIN * FZ_MAX_BS], u64 lba)
{
	u32 idx;
	int win;

	return fz_where(lba, &win, &idx) ?
	       &disk[win][idx * ut_dev.block_size] : NULL;
}

/*
 * Parameter data that give their own length: a command returns all of it
 * that the allocation length and the buffer allow, and no more.
 */
static void fz_check_len(struct tcmx_cmd *cmd, const u8 *buf)
{
	const u8 *cdb = cmd->cdb;
	u32 alloc, hdr, total = 0;
	u8 sa = cdb[1] & 0x1f;

	switch (cdb[0]) {
	case INQUIRY:
		alloc = get_unaligned_be16(&cdb[3]);
		hdr = cdb[1] & 0x01 ? 4 : 5;
		if (cmd->xfer_len >= hdr)
			total = cdb[1] & 0x01 ? get_unaligned_be16(&buf[2]) + 4 :
						buf[4] + 5;
		break;
	case MODE_SENSE:
		alloc = cdb[4];
		hdr = 1;
		total = cmd->xfer_len ? buf[0] + 1 : 0;
		break;
	case MODE_SENSE_10:
		alloc = get_unaligned_be16(&cdb[7]);
		hdr = 2;
		if (cmd->xfer_len >= hdr)
			total = get_unaligned_be16(buf) + 2;
		break;
	case REPORT_LUNS:
		alloc = get_unaligned_be32(&cdb[6]);
		hdr = 4;
		if (cmd->xfer_len >= hdr)
			total = get_unaligned_be32(buf) + 8;
		break;
	case REQUEST_SENSE:
		alloc = cdb[4];
		hdr = 8;
		if (cmd->xfer_len >= hdr)
			total = buf[7] + 8;
		break;
	case PERSISTENT_RESERVE_IN:
		alloc = get_unaligned_be16(&cdb[7]);
		hdr = sa == 0x02 ? 2 : 8;
		if (cmd->xfer_len >= hdr)
			total = sa == 0x02 ? get_unaligned_be16(buf) :
				get_unaligned_be32(&buf[4]) + 8;
		break;
	case MAINTENANCE_IN:
		alloc = get_unaligned_be32(&cdb[6]);
		hdr = sa == MI_REPORT_TIMESTAMP ? 2 : 4;
		if (cmd->xfer_len < hdr)
			break;
		if (sa == MI_REPORT_TIMESTAMP)
			total = get_unaligned_be16(buf) + 2;
		else if (sa == MI_REPORT_TARGET_PGS ||
			 (sa == MI_REPORT_SUPPORTED_OPERATION_CODES &&
			  !(cdb[2] & 0x07)))
			total = get_unaligned_be32(buf) + 4;
		else if (sa == MI_REPORT_SUPPORTED_OPERATION_CODES)
			total = 4 + get_unaligned_be16(&buf[2]) +
				(buf[1] & 0x80 ? 12 : 0);
		else
			return;
		break;
	case RECEIVE_COPY_RESULTS:
		alloc = get_unaligned_be32(&cdb[10]);
		hdr = 4;
		if (cmd->xfer_len >= hdr)
			total = get_unaligned_be32(buf) + 4;
		break;
	case SERVICE_ACTION_IN_16:
		if (sa != SAI_GET_LBA_STATUS)
			return;
		alloc = get_unaligned_be32(&cdb[10]);
		hdr = 4;
		if (cmd->xfer_len >= hdr)
			total = get_unaligned_be32(buf) + 4;
		break;
	case FZ_READ_DEFECT_DATA:
		alloc = get_unaligned_be16(&cdb[7]);
		hdr = 4;
		if (cmd->xfer_len >= hdr)
			total = get_unaligned_be16(&buf[2]) + 4;
		break;
	case FZ_READ_DEFECT_DATA_12:
		alloc = get_unaligned_be32(&cdb[6]);
		hdr = 8;
		if (cmd->xfer_len >= hdr)
			total = get_unaligned_be32(&buf[4]) + 8;
		break;
	default:
		return;
	}
	alloc = min(alloc, cmd->data_len);
	if (cmd->xfer_len < hdr)
		FZ_ASSERT(cmd->xfer_len == alloc);
	else
		FZ_ASSERT(cmd->xfer_len == min(total, alloc));
}

/*
 * What a command that returned GOOD must have done: the capacity READ
 * CAPACITY reports, the blocks the write-type commands leave (the shadow
 * still holds the medium as it was before the command).
 */
static void fz_check_good(struct tcmx_cmd *cmd, const u8 *buf)
{
	const u8 *cdb = cmd->cdb;
	u32 bs = ut_dev.block_size;
	static const u8 zero[FZ_MAX_BS];
	u64 cap = ut_dev.nr_blocks, lba;
	const u8 *p, *want;
	u8 orred[FZ_MAX_BS];
	u32 nr, i;

	if (cmd->data_dir == DMA_FROM_DEVICE)
		fz_check_len(cmd, buf);
	switch (cdb[0]) {
	case READ_CAPACITY:
		if (cmd->xfer_len < 8)
			return;
		FZ_ASSERT(get_unaligned_be32(buf) == min_t(u64, cap - 1,
							   U32_MAX));
		FZ_ASSERT(get_unaligned_be32(buf + 4) == bs);
		return;
	case SERVICE_ACTION_IN_16:
		if ((cdb[1] & 0x1f) == SAI_GET_LBA_STATUS) {
			/* contiguous descriptors from the LBA, within capacity */
			lba = get_unaligned_be64(&cdb[2]);
			for (i = 8; i + 16 <= cmd->xfer_len; i += 16) {
				nr = get_unaligned_be32(&buf[i + 8]);
				FZ_ASSERT(get_unaligned_be64(&buf[i]) == lba);
				FZ_ASSERT(nr && nr <= cap - lba);
				lba += nr;
			}
			return;
		}
		if ((cdb[1] & 0x1f) != SAI_READ_CAPACITY_16 ||
		    cmd->xfer_len < 12)
			return;
		FZ_ASSERT(get_unaligned_be64(buf) == cap - 1);
		FZ_ASSERT(get_unaligned_be32(buf + 8) == bs);
		return;
	case WRITE_SAME:
	case WRITE_SAME_16:
		want = cdb[0] == WRITE_SAME_16 && cdb[1] & 0x01 ? zero : buf;
		for (lba = fz.lba; lba < fz.end; lba++) {
			if (lba >= FZ_WIN && lba < fz_high) {
				lba = fz_high - 1;
				continue;
			}
			p = fz_kept(fz_disk, lba);
			FZ_ASSERT(!p || !memcmp(p, want, bs));
		}
		return;
	case COMPARE_AND_WRITE:
		nr = cdb[13];
		for (i = 0; i < nr; i++) {
			p = fz_kept(fz_disk, fz.lba + i);
			FZ_ASSERT(!p || !memcmp(p, buf + (size_t)(nr + i) * bs,
						bs));
		}
		return;
	case WRITE_6:
	case WRITE_10:
	case WRITE_12:
	case WRITE_16:
	case WRITE_VERIFY:
	case WRITE_VERIFY_12:
	case WRITE_VERIFY_16:
		/* the blocks of the buffer; past it (an overflow), as before */
		for (i = 0; i < fz.end - fz.lba; i++) {
			p = fz_kept(fz_disk, fz.lba + i);
			want = (u64)(i + 1) * bs <= cmd->data_len ?
			       buf + (size_t)i * bs :
			       fz_kept(fz_shadow, fz.lba + i);
			FZ_ASSERT(!p || !memcmp(p, want, bs));
		}
		return;
	case FZ_ORWRITE_16:
		for (i = 0; i < fz.end - fz.lba; i++) {
			p = fz_kept(fz_disk, fz.lba + i);
			want = fz_kept(fz_shadow, fz.lba + i);
			if (!p)
				continue;
			memcpy(orred, want, bs);
			for (nr = 0; (u64)(i + 1) * bs <= cmd->data_len &&
			     nr < bs; nr++)
				orred[nr] |= buf[(size_t)i * bs + nr];
			FZ_ASSERT(!memcmp(p, orred, bs));
		}
		return;
	case EXTENDED_COPY:
		/* one segment: its blocks as they were at the source */
		/* the list: PARAMETER LIST LENGTH bytes of the buffer */
		i = min(get_unaligned_be32(&cdb[10]), cmd->data_len);
		if (i < 16)
			return;
		nr = get_unaligned_be16(&buf[2]);		/* CDLL */
		if (get_unaligned_be32(&buf[8]) != 28 || i < 16 + nr + 28)
			return;
		p = &buf[16 + nr];
		nr = get_unaligned_be16(&p[10]);
		lba = get_unaligned_be64(&p[12]);
		cap = get_unaligned_be64(&p[20]);		/* destination */
		if (lba < cap + nr && cap < lba + nr)
			return;					/* overlap */
		for (i = 0; i < nr; i++) {
			want = fz_kept(fz_shadow, lba + i);
			p = fz_kept(fz_disk, cap + i);
			FZ_ASSERT(!p || !memcmp(p, want ?: zero, bs));
		}
		return;
	case FZ_SANITIZE:
		want = zero;
		if ((cdb[1] & 0x1f) == 0x01) {		/* OVERWRITE */
			nr = get_unaligned_be16(&buf[2]);	/* pattern */
			if (buf[0] & 0x80)			/* INVERT */
				return;
			for (i = 0; i < bs; i++)
				orred[i] = buf[4 + i % nr];
			want = orred;
		} else if ((cdb[1] & 0x1f) == 0x1f) {	/* EXIT FAILURE MODE */
			return;
		}
		for (lba = 0; lba < min_t(u64, cap, FZ_WIN); lba++)
			FZ_ASSERT(!memcmp(fz_kept(fz_disk, lba), want, bs));
		return;
	case FORMAT_UNIT:
		for (lba = 0; lba < min_t(u64, cap, FZ_WIN); lba++)
			FZ_ASSERT(!memcmp(fz_kept(fz_disk, lba), zero, bs));
		return;
	}
}

/* the shadow copy: the medium changed only where the command may write */
static void fz_check_medium(void)
{
	u32 bs = ut_dev.block_size;
	u64 first[2] = { 0, fz_high };
	int win;
	u32 i;

	for (win = 0; win < 2; win++) {
		for (i = 0; i < FZ_WIN; i++) {
			u64 lba = first[win] + i;
			bool may = !fz.none &&
				   (fz.any || (lba >= fz.lba && lba < fz.end));

			if (lba >= ut_dev.nr_blocks || (win && lba < FZ_WIN))
				break;
			if (!may && memcmp(&fz_disk[win][i * bs],
					   &fz_shadow[win][i * bs], bs)) {
				fprintf(stderr, "block %llu changed\n",
					(unsigned long long)lba);
				fz_fail("medium changed outside the command's range");
			}
		}
	}
	for (win = 0; win < 2; win++)
		memcpy(fz_shadow[win], fz_disk[win], fz_win_bytes);
}

/* well-formed sense data for a CHECK CONDITION of @cmd */
static void fz_check_sense(struct tcmx_cmd *cmd, bool d_sense_before)
{
	const u8 *s = cmd->sense;
	u8 key, asc, ascq, *sks = NULL;
	bool desc;
	u32 cdb_len = cmd->desc ? cmd->desc->len : TCMX_CDB_MAX;

	FZ_ASSERT(cmd->status == SAM_STAT_CHECK_CONDITION);
	FZ_ASSERT(cmd->sense_len >= 8 &&
		  cmd->sense_len <= TCMX_SENSE_BUFFER_LEN);
	FZ_ASSERT(cmd->sense_len == 8 + s[7]);
	FZ_ASSERT(!ut_sense_kcq(s, &key, &asc, &ascq));
	desc = (s[0] & 0x7f) == 0x72;
	/* D_SENSE as the command found it, or as it set it */
	FZ_ASSERT(!cmd->dev ? !desc : desc == d_sense_before ||
				      desc == cmd->dev->d_sense);
	FZ_ASSERT(key != 0);
	fz_count_sense(key, asc, ascq);
	if (!desc) {
		FZ_ASSERT(cmd->sense_len >= 18);
		if (s[15] & 0x80)
			sks = (u8 *)&s[15];
	} else {
		u32 off = 8;

		while (off < cmd->sense_len) {
			FZ_ASSERT(off + 2 <= cmd->sense_len &&
				  off + 2 + s[off + 1] <= cmd->sense_len);
			if (s[off] == 0x02) {
				FZ_ASSERT(s[off + 1] == 6);
				sks = (u8 *)&s[off + 4];
			}
			off += 2 + s[off + 1];
		}
		FZ_ASSERT(!sks || sks[0] & 0x80);
	}
	if (!sks || key != ILLEGAL_REQUEST)
		return;
	/* the field pointer: a CDB byte, or a byte of the parameter list */
	if (sks[0] & 0x40)
		FZ_ASSERT(get_unaligned_be16(&sks[1]) < cdb_len);
	else
		FZ_ASSERT(get_unaligned_be16(&sks[1]) < cmd->data_len);
}

/*
 * The fixture's loopback-like fabric with the iSCSI fabric's data flags,
 * for a command whose header byte 2 has bit 6 set: overflowing writes of
 * whole blocks run, a data-in command may come with a data-out buffer.
 */
static const struct tcmx_fabric_ops fz_iscsi_ops = {
	.name = "loopback",
	.nexus_per_tpg = true,
	.reports_overflow = true,
	.own_buffers = true,
};

static void fz_one(struct fz_in *in)
{
	u8 h0 = fz_u8(in), h1 = fz_u8(in), h2 = fz_u8(in);
	const struct tcmx_cmd_desc *d = NULL, *row = NULL;
	u8 *cdb = calloc(1, TCMX_CDB_MAX);
	u8 sense[TCMX_SENSE_BUFFER_LEN];
	struct tcmx_cmd cmd;
	enum dma_data_direction dir;
	struct scatterlist sg;
	u32 cdb_len = 1 + (h2 & 31), data_len, len, i, plen;
	bool d_sense = ut_dev.d_sense, ua;
	u64 lun = fz_luns[h0 & 7];
	u8 *buf;
	int s;

	for (i = 0; i < min_t(u32, cdb_len, TCMX_CDB_MAX); i++)
		cdb[i] = fz_u8(in);
	if (h1 < 0xe0) {
		/* a row: its opcode and service action, most often its usage */
		row = fz_rows[h1 % fz_nr_rows];
		cdb[0] = row->opcode;
		if (row->flags & TCMX_CMD_SA)
			cdb[1] = (cdb[1] & ~0x1f) | row->sa;
		if (h2 & 0x80)
			for (i = 1; i < row->len; i++)
				cdb[i] &= row->usage[i];
	}
	/* the row the decoder finds: SA chains by byte 1 */
	for (i = 0; i < fz_nr_rows; i++)
		if (fz_rows[i]->opcode == cdb[0] &&
		    (!(fz_rows[i]->flags & TCMX_CMD_SA) ||
		     fz_rows[i]->sa == (cdb[1] & 0x1f)))
			d = fz_rows[i];
	/* SANITIZE OVERWRITE would fill all of a huge medium */
	if (d && d->opcode == FZ_SANITIZE && ut_dev.nr_blocks > FZ_HUGE) {
		free(cdb);
		return;
	}

	switch (h0 >> 3 & 7) {
	case 5:
		dir = DMA_TO_DEVICE;
		break;
	case 6:
		dir = DMA_FROM_DEVICE;
		break;
	case 7:
		dir = DMA_NONE;
		break;
	default:
		dir = d ? d->dir : DMA_NONE;
		break;
	}
	len = fz_be(in, 3);
	switch (h0 >> 6) {
	case 0:
		data_len = fz_natural_len(d, cdb);
		break;
	case 1:
		data_len = len & 0xff;
		break;
	case 2:
		data_len = len & 0xffff;
		break;
	default:
		/* now and then up to 1 MiB, mostly up to 64 KiB */
		data_len = len & 0x800000 ? len % (FZ_MAX_DATA + 1) :
					    len & 0xffff;
		break;
	}
	if (dir == DMA_NONE)
		data_len = 0;
	/* exactly data_len bytes, so that ASan sees any access beyond */
	buf = malloc(data_len ?: 1);
	plen = min_t(size_t, fz_be(in, 2), in->n);
	if (dir == DMA_TO_DEVICE) {
		memset(buf, 0, data_len);
		memcpy(buf, in->p, min(plen, data_len));
	} else {
		memset(buf, UT_FILL, data_len);
	}
	in->p += plen;
	in->n -= plen;
	sg.buf = buf;
	sg.len = data_len;

	if (fz.trace) {
		fprintf(stderr, "cmd lun %llu dir %d len %u cdb",
			(unsigned long long)lun, dir, data_len);
		for (i = 0; i < TCMX_CDB_MAX; i++)
			fprintf(stderr, " %02x", cdb[i]);
		fprintf(stderr, " (%s) out %u bytes\n", d ? d->name : "-",
			min(plen, data_len));
	}
	fz_write_range(d, cdb);
	memset(sense, UT_FILL, sizeof(sense));
	ut_cmd_prepare(&cmd, cdb, &sg, data_len, dir, lun, sense);
	ua = tcmx_cmd_itl(&cmd) && tcmx_cmd_itl(&cmd)->ua_count;
	ut_tpg.ops = h2 & 0x40 ? &fz_iscsi_ops : &ut_fabric_ops;
	s = ut_cmd_exec(&cmd);
	ut_tpg.ops = &ut_fabric_ops;
	fz_cmds++;
	if (fz.trace)
		fprintf(stderr, "  -> %d status %02x xfer %u sense %02x %02x %02x %02x / %02x %02x\n",
			s, cmd.status, cmd.xfer_len, sense[0], sense[1],
			sense[2], sense[3], sense[12], sense[13]);

	if (fz.trace && dir == DMA_FROM_DEVICE) {
		fprintf(stderr, "  data-in");
		for (i = 0; i < min(cmd.xfer_len, 64U); i++)
			fprintf(stderr, " %02x", buf[i]);
		fprintf(stderr, "\n");
	}

	/* the oracles */
	FZ_ASSERT(s == TCMX_GOOD || s == TCMX_CHECK || s == TCMX_BUSY ||
		  s == TCMX_CONFLICT);
	FZ_ASSERT(cmd.xfer_len <= cmd.data_len);
	if (s == TCMX_GOOD) {
		FZ_ASSERT(cmd.status == SAM_STAT_GOOD && !cmd.sense_len);
		fz_good_all++;
		for (i = 0; i < fz_nr_rows; i++)
			if (fz_rows[i] == cmd.desc)
				fz_good[i]++;
	} else if (s == TCMX_CHECK) {
		fz_check_sense(&cmd, d_sense);
	} else if (s == TCMX_BUSY) {
		fz_busy++;
	} else {
		fz_conflict++;
	}
	if (s != TCMX_GOOD && dir == DMA_FROM_DEVICE)
		FZ_ASSERT(cmd.xfer_len == 0);
	/* an overflow only where the CDB has a transfer length */
	FZ_ASSERT(!cmd.overflow || (d && d->flags & TCMX_CMD_LBA));
	/* a pending unit attention stops all but the rows that allow it */
	if (ua && d && !(d->flags & TCMX_CMD_UA_OK))
		FZ_ASSERT(s != TCMX_GOOD);
	/* SWP stops every write-type command */
	if (d && d->flags & TCMX_CMD_WRITE && fz.none)
		FZ_ASSERT(s != TCMX_GOOD);
	if (dir == DMA_FROM_DEVICE && cmd.xfer_len < data_len &&
	    memchr_inv(buf + cmd.xfer_len, UT_FILL, data_len - cmd.xfer_len))
		fz_fail("data-in written beyond xfer_len");
	if (s == TCMX_GOOD && fz.desc == cmd.desc)
		fz_check_good(&cmd, buf);
	fz_check_medium();
	FZ_ASSERT(!fz_pinned());
	/* an exclusion outlives its holder only until its idle work runs */
	if (test_bit(TCMX_GATE_EXCL, &ut_dev.gate)) {
		FZ_ASSERT(ut_cdev.excl_idle.work.pending);
		ut_cdev.excl_idle.work.pending = 0;
		ut_cdev.excl_idle.work.func(&ut_cdev.excl_idle.work);
	}
	FZ_ASSERT(!test_bit(TCMX_GATE_EXCL, &ut_dev.gate));
	free(buf);
	free(cdb);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fz_in in = { data, size };
	unsigned int n, i;

	if (size < 5)
		return 0;
	fz_inputs++;
	fz_setup(&in);
	n = 1 + (data[3] & (FZ_MAX_CMDS - 1));
	for (i = 0; i < n && in.n; i++)
		fz_one(&in);
	fz_teardown();
	return 0;
}
