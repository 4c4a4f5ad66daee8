// SPDX-License-Identifier: GPL-2.0
/*
 * Integrity commands (SBC-3/SBC-4): VERIFY, WRITE AND VERIFY, COMPARE AND
 * WRITE, ORWRITE, WRITE ATOMIC, PRE-FETCH and READ DEFECT DATA; and the
 * WRITE that found its range held by one of them (excl.c).
 *
 * The rows' ->parse check the CDB and the size of the data-out buffer in
 * the submitter's context; whatever touches the medium then runs in the
 * row's ->execute, in a worker (TCMX_CMD_DEFER), through the backend's
 * block ops, a chunk at a time through bounce buffers.  No protection
 * information: any xxPROTECT field that is not 0 is refused by the usage
 * masks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include "compat.h"
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"

#define INTEG_CHUNK		(256 * 1024)	/* bounce buffer, bytes */
#define INTEG_RDD10_HDR		4	/* READ DEFECT DATA(10) header */
#define INTEG_RDD12_HDR		8	/* READ DEFECT DATA(12) header */

#ifndef ORWRITE_16
#define ORWRITE_16		0x8b
#endif
#ifndef WRITE_ATOMIC_16
#define WRITE_ATOMIC_16		0x9c
#endif
#ifndef PRE_FETCH_16
#define PRE_FETCH_16		0x90
#endif
#ifndef READ_DEFECT_DATA
#define READ_DEFECT_DATA	0x37
#endif
#ifndef READ_DEFECT_DATA_12
#define READ_DEFECT_DATA_12	0xb7
#endif

/* ---- the medium through bounce buffers ---------------------------------- */

enum integ_op {
	INTEG_WRITE,		/* data-out to the medium */
	INTEG_WRITE_VERIFY,	/* the same, read back and compared */
	INTEG_VERIFY,		/* data-out compared with the medium */
	INTEG_VERIFY_ONE,	/* one block compared with each of the range */
	INTEG_OR,		/* medium |= data-out */
};

/* @len bytes of the data-out buffer from @off into @buf */
static bool integ_data(struct tcmx_cmd *cmd, size_t off, void *buf,
		       size_t len)
{
	return cmd->sgl &&
	       sg_pcopy_to_buffer(cmd->sgl, cmd->sg_nents, buf, len, off) == len;
}

static enum tcmx_status integ_io_error(struct tcmx_cmd *cmd, int ret,
				       bool write)
{
	if (ret == -ENOSPC)
		return tcmx_sense(cmd, TCMX_SENSE_SPACE_ALLOC_FAILED);
	return tcmx_sense(cmd, write ? TCMX_SENSE_INTERNAL_ERROR :
				       TCMX_SENSE_MEDIUM_ERROR_READ);
}

/* offset of the first byte where @a and @b differ, @len if none */
static size_t integ_diff(const u8 *a, const u8 *b, size_t len)
{
	size_t i;

	if (!memcmp(a, b, len))
		return len;
	for (i = 0; a[i] == b[i]; i++)
		;
	return i;
}

/* MISCOMPARE, INFORMATION the byte offset @off (SBC-4 5.3, 5.31) */
static enum tcmx_status integ_miscompare(struct tcmx_cmd *cmd, u64 off)
{
	return tcmx_sense_info(cmd, TCMX_SENSE_MISCOMPARE, off);
}

/* One chunk of integ_walk(): @n blocks at @lba, data-out from @off. */
static enum tcmx_status integ_chunk(struct tcmx_cmd *cmd, enum integ_op op,
				    u64 lba, u32 n, size_t off, u8 *data,
				    u8 *medium)
{
	struct tcmx_dev *dev = cmd->dev;
	size_t len = (size_t)n << dev->block_shift, at, i;
	u32 bs = dev->block_size, b;
	int ret;

	if (op != INTEG_VERIFY_ONE && !integ_data(cmd, off, data, len))
		return tcmx_sense(cmd, TCMX_SENSE_INTERNAL_ERROR);
	if (op == INTEG_VERIFY || op == INTEG_VERIFY_ONE || op == INTEG_OR) {
		ret = dev->ops->read_blocks(dev, lba, n, medium);
		if (ret)
			return integ_io_error(cmd, ret, false);
	}
	switch (op) {
	case INTEG_VERIFY:
		at = integ_diff(data, medium, len);
		return at < len ? integ_miscompare(cmd, off + at) : TCMX_GOOD;
	case INTEG_VERIFY_ONE:
		for (b = 0; b < n; b++) {
			at = integ_diff(data, medium + (size_t)b * bs, bs);
			if (at < bs)
				return integ_miscompare(cmd, off +
							(size_t)b * bs + at);
		}
		return TCMX_GOOD;
	case INTEG_OR:
		for (i = 0; i < len; i++)
			medium[i] |= data[i];
		data = medium;
		break;
	default:
		break;
	}
	ret = dev->ops->write_blocks(dev, lba, n, data);
	if (ret)
		return integ_io_error(cmd, ret, true);
	if (op != INTEG_WRITE_VERIFY)
		return TCMX_GOOD;
	ret = dev->ops->read_blocks(dev, lba, n, medium);
	if (ret)
		return integ_io_error(cmd, ret, false);
	at = integ_diff(data, medium, len);
	return at < len ? integ_miscompare(cmd, off + at) : TCMX_GOOD;
}

/*
 * @op over cmd->lba, cmd->nr_blocks, chunk by chunk.  The range is not
 * atomic unless the caller holds the exclusion.
 */
static enum tcmx_status integ_walk(struct tcmx_cmd *cmd, enum integ_op op)
{
	struct tcmx_dev *dev = cmd->dev;
	u32 nr = cmd->nr_blocks;
	u32 step = min_t(u32, nr, max(INTEG_CHUNK >> dev->block_shift, 1));
	size_t bytes = (size_t)step << dev->block_shift;
	enum tcmx_status status = TCMX_GOOD;
	u8 *data, *medium = NULL;
	u32 done, n;

	data = kvmalloc(bytes, GFP_KERNEL);
	if (op != INTEG_WRITE)
		medium = kvmalloc(bytes, GFP_KERNEL);
	if (!data || (op != INTEG_WRITE && !medium)) {
		status = TCMX_BUSY;
		goto out;
	}
	if (op == INTEG_VERIFY_ONE &&
	    !integ_data(cmd, 0, data, dev->block_size)) {
		status = tcmx_sense(cmd, TCMX_SENSE_INTERNAL_ERROR);
		goto out;
	}
	for (done = 0; done < nr && status == TCMX_GOOD; done += n) {
		n = min(step, nr - done);
		status = integ_chunk(cmd, op, cmd->lba + done, n,
				     (size_t)done << dev->block_shift, data,
				     medium);
		cond_resched();
	}
out:
	kvfree(medium);
	kvfree(data);
	return status;
}

/* ---- deferred fns -------------------------------------------------------- */

/* A command that fails reports nothing transferred. */
static enum tcmx_status integ_result(struct tcmx_cmd *cmd,
				     enum tcmx_status status)
{
	if (status != TCMX_GOOD)
		cmd->xfer_len = 0;
	return status;
}

/*
 * A READ's cmd->xfer_len bytes from cmd->lba into the data-in buffer,
 * chunk by chunk (less than cmd->nr_blocks blocks for a READ cut to its
 * buffer, the last block then in part).
 */
static enum tcmx_status integ_read_out(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	size_t step = (size_t)max(INTEG_CHUNK >> dev->block_shift, 1)
		      << dev->block_shift;
	size_t len = cmd->xfer_len, off, n;
	enum tcmx_status status = TCMX_GOOD;
	u8 *buf;
	int ret;

	buf = kvmalloc(min(step, round_up(len, dev->block_size)), GFP_KERNEL);
	if (!buf)
		return TCMX_BUSY;
	for (off = 0; off < len && status == TCMX_GOOD; off += n) {
		n = min(step, len - off);
		ret = dev->ops->read_blocks(dev, cmd->lba +
					    (off >> dev->block_shift),
					    DIV_ROUND_UP(n, dev->block_size),
					    buf);
		if (ret)
			status = integ_io_error(cmd, ret, false);
		else if (sg_pcopy_from_buffer(cmd->sgl, cmd->sg_nents, buf, n,
					      off) != n)
			status = tcmx_sense(cmd, TCMX_SENSE_INTERNAL_ERROR);
		cond_resched();
	}
	kvfree(buf);
	return status;
}

/*
 * A plain READ or WRITE that found its range held: after the holder,
 * through the block ops.
 */
enum tcmx_status tcmx_excl_rw(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	enum tcmx_status status;

	tcmx_excl_lock(dev, cmd->lba, cmd->nr_blocks);
	if (cmd->data_dir == DMA_FROM_DEVICE)
		status = integ_read_out(cmd);
	else
		status = integ_walk(cmd, INTEG_WRITE);
	tcmx_excl_unlock(dev);
	return integ_result(cmd, status);
}

/*
 * VERIFY with BYTCHK 1 or 3 reads the medium as a READ does, so under the
 * same rule: never a part of a COMPARE AND WRITE, ORWRITE or WRITE ATOMIC
 * (it walks chunk by chunk, as they do).
 */
static enum tcmx_status integ_verify_fn(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u8 bytchk = (cmd->cdb[1] >> 1) & 0x03;
	enum tcmx_status status;

	tcmx_excl_lock(dev, cmd->lba, cmd->nr_blocks);
	status = integ_walk(cmd, bytchk == 3 ? INTEG_VERIFY_ONE :
					       INTEG_VERIFY);
	tcmx_excl_unlock(dev);
	return integ_result(cmd, status);
}

static enum tcmx_status integ_write_verify_fn(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	enum tcmx_status status;

	tcmx_excl_lock(dev, cmd->lba, cmd->nr_blocks);
	status = integ_walk(cmd, cmd->cdb[1] & 0x02 ? INTEG_WRITE_VERIFY :
						      INTEG_WRITE);
	tcmx_excl_unlock(dev);
	return integ_result(cmd, status);
}

/* ORWRITE and WRITE ATOMIC: the walk with the range held */
static enum tcmx_status integ_held_walk(struct tcmx_cmd *cmd,
					enum integ_op op)
{
	struct tcmx_dev *dev = cmd->dev;
	enum tcmx_status status;

	tcmx_excl_begin(dev, cmd->lba, cmd->nr_blocks);
	status = integ_walk(cmd, op);
	tcmx_excl_end(dev);
	return integ_result(cmd, status);
}

static enum tcmx_status integ_orwrite_fn(struct tcmx_cmd *cmd)
{
	return integ_held_walk(cmd, INTEG_OR);
}

static enum tcmx_status integ_write_atomic_fn(struct tcmx_cmd *cmd)
{
	return integ_held_walk(cmd, INTEG_WRITE);
}

/*
 * COMPARE AND WRITE: the first half of the data-out buffer is compared
 * with the medium and, only if all of it matches, the second half is
 * written, with no other write to these blocks in between.
 */
static enum tcmx_status integ_caw_fn(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	size_t len = (size_t)cmd->nr_blocks << dev->block_shift, at;
	enum tcmx_status status = TCMX_GOOD;
	u8 *buf, *medium;
	int ret;

	buf = kvmalloc(3 * len, GFP_KERNEL);
	if (!buf)
		return integ_result(cmd, TCMX_BUSY);
	medium = buf + 2 * len;
	if (!integ_data(cmd, 0, buf, 2 * len)) {
		kvfree(buf);
		return integ_result(cmd, tcmx_sense(cmd,
						    TCMX_SENSE_INTERNAL_ERROR));
	}
	tcmx_excl_begin(dev, cmd->lba, cmd->nr_blocks);
	ret = dev->ops->read_blocks(dev, cmd->lba, cmd->nr_blocks, medium);
	if (ret) {
		status = integ_io_error(cmd, ret, false);
	} else {
		at = integ_diff(buf, medium, len);
		if (at < len)
			status = integ_miscompare(cmd, at);
	}
	if (status == TCMX_GOOD) {
		ret = dev->ops->write_blocks(dev, cmd->lba, cmd->nr_blocks,
					     buf + len);
		if (ret)
			status = integ_io_error(cmd, ret, true);
	}
	tcmx_excl_end(dev);
	kvfree(buf);
	return integ_result(cmd, status);
}

/* ---- parsing ------------------------------------------------------------- */

static bool integ_has_ops(struct tcmx_dev *dev)
{
	return dev->ops->read_blocks && dev->ops->write_blocks;
}

/*
 * The data-out buffer must hold @need bytes; what is beyond is residual.
 * The row's ->execute then runs, in a worker.
 */
static enum tcmx_status integ_need(struct tcmx_cmd *cmd, u64 need)
{
	if (need > cmd->data_len || !integ_has_ops(cmd->dev))
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_CDB_FIELD);
	cmd->xfer_len = need;
	return TCMX_GOOD;
}

/*
 * VERIFY(10/12/16).  BYTCHK 0: the medium is only checked, which a backend
 * without medium errors passes; 1: the data-out buffer holds the range and
 * is compared with it; 3: it holds one block, compared with each block of
 * the range; 2 is reserved.
 */
static enum tcmx_status integ_parse_verify(struct tcmx_cmd *cmd)
{
	u8 bytchk = (cmd->cdb[1] >> 1) & 0x03;

	if (bytchk == 2)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					1, 2);
	/* SBC-4: VERIFICATION LENGTH within the MAXIMUM TRANSFER LENGTH */
	if (cmd->nr_blocks > cmd->dev->attrib.hw_max_sectors)
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_CDB_FIELD);
	if (!bytchk || !cmd->nr_blocks) {
		cmd->execute = tcmx_execute_nop;
		return TCMX_GOOD;
	}
	return integ_need(cmd, bytchk == 1 ?
			  (u64)cmd->nr_blocks << cmd->dev->block_shift :
			  cmd->dev->block_size);
}

/*
 * WRITE AND VERIFY(10/12/16), ORWRITE(16): the range, as WRITE takes it;
 * a buffer too short for it, as WRITE where the fabric reports overflows
 * (tcmx_write_overflow()), else an invalid CDB field.
 */
static enum tcmx_status integ_parse_write(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u64 need = (u64)cmd->nr_blocks << dev->block_shift;

	if (cmd->nr_blocks > dev->attrib.hw_max_sectors)
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_CDB_FIELD);
	if (need > cmd->data_len && cmd->tpg->ops->reports_overflow) {
		if (tcmx_write_overflow(cmd, need))
			return TCMX_CHECK;
		need = cmd->xfer_len;
	}
	if (!need) {
		cmd->execute = tcmx_execute_nop;
		return TCMX_GOOD;
	}
	return integ_need(cmd, need);
}

/*
 * COMPARE AND WRITE: byte 13 blocks, twice that much data-out exactly (no
 * block, no data: a data-out buffer with 0 blocks is refused too)
 */
static enum tcmx_status integ_parse_caw(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u64 need = (u64)cmd->nr_blocks << (dev->block_shift + 1);

	/* emulate_caw=0: no such command, as in-tree */
	if (!tcmx_caw_enabled(dev))
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_OPCODE);
	if (cmd->nr_blocks > min_t(u32, TCMX_CAW_MAX_BLOCKS,
				   dev->attrib.hw_max_sectors))
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					13, TCMX_NO_BIT);
	if (cmd->data_len != need)
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_CDB_FIELD);
	if (!cmd->nr_blocks) {
		cmd->execute = tcmx_execute_nop;
		return TCMX_GOOD;
	}
	return integ_need(cmd, need);
}

/*
 * WRITE ATOMIC(16): a 16-bit TRANSFER LENGTH at byte 12 after the ATOMIC
 * BOUNDARY, which stays 0 (no boundary size is reported), so the decoder's
 * LBA by CDB group does not fit: decoded here.
 */
static enum tcmx_status integ_parse_write_atomic(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	const u8 *cdb = cmd->cdb;

	if (get_unaligned_be16(&cdb[10]))
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					10, TCMX_NO_BIT);
	cmd->lba = get_unaligned_be64(&cdb[2]);
	cmd->nr_blocks = get_unaligned_be16(&cdb[12]);
	if (cmd->lba > dev->nr_blocks ||
	    cmd->nr_blocks > dev->nr_blocks - cmd->lba)
		return tcmx_sense(cmd, TCMX_SENSE_LBA_OUT_OF_RANGE);
	if (!cmd->nr_blocks) {
		cmd->execute = tcmx_execute_nop;
		return TCMX_GOOD;
	}
	if (cmd->nr_blocks > tcmx_atomic_max_blocks(dev))
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					12, TCMX_NO_BIT);
	return integ_need(cmd, (u64)cmd->nr_blocks << dev->block_shift);
}

/* ---- READ DEFECT DATA(10/12) --------------------------------------------- */

/*
 * No defects: a header with an empty list of each kind asked for, in the
 * format asked for.  Formats 001b, 010b and 111b are reserved.
 */
static enum tcmx_status integ_read_defect_data(struct tcmx_cmd *cmd)
{
	bool twelve = cmd->cdb[0] == READ_DEFECT_DATA_12;
	u8 byte = twelve ? 1 : 2;
	u8 req = cmd->cdb[byte];
	u8 fmt = req & 0x07;
	u32 alloc = twelve ? get_unaligned_be32(&cmd->cdb[6]) :
			     get_unaligned_be16(&cmd->cdb[7]);
	u8 hdr[INTEG_RDD12_HDR] = {};

	if (fmt == 1 || fmt == 2 || fmt == 7)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					byte, 2);
	hdr[1] = req & 0x1f;		/* PLISTV, GLISTV, the format */
	tcmx_cmd_copy_to_sgl(cmd, hdr, min_t(u32, alloc, twelve ?
					     INTEG_RDD12_HDR : INTEG_RDD10_HDR));
	return TCMX_GOOD;
}

/* ---- rows ---------------------------------------------------------------- */

#define INTEG_RANGE	(TCMX_CMD_LUN | TCMX_CMD_LBA)
#define INTEG_WRITE_ROW	(INTEG_RANGE | TCMX_CMD_WRITE | TCMX_CMD_DEFER)

/*
 * Byte 1: DPO (bit 4) always; BYTCHK (bits 2-1) of VERIFY, its low bit
 * only of WRITE AND VERIFY; FUA (bit 3) where SBC has one.  The data-out
 * rows are DMA_TO_DEVICE even where no data may come (BYTCHK 0): a command
 * without data passes the decoder's direction check.
 */
struct tcmx_cmd_desc tcmx_integrity_cmds[] __ro_after_init = {
	{ .opcode = WRITE_VERIFY, .len = 10, .dir = DMA_TO_DEVICE,
	  .flags = INTEG_WRITE_ROW, .name = "WRITE AND VERIFY(10)",
	  .usage = { WRITE_VERIFY, 0x12, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff,
		     0xff, 0x00 },
	  .parse = integ_parse_write, .execute = integ_write_verify_fn },
	{ .opcode = VERIFY, .len = 10, .dir = DMA_TO_DEVICE,
	  .flags = INTEG_RANGE | TCMX_CMD_DEFER, .name = "VERIFY(10)",
	  .usage = { VERIFY, 0x16, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff, 0xff,
		     0x00 },
	  .parse = integ_parse_verify, .execute = integ_verify_fn },
	{ .opcode = PRE_FETCH, .len = 10, .dir = DMA_NONE,
	  .flags = INTEG_RANGE, .name = "PRE-FETCH(10)",
	  .usage = { PRE_FETCH, 0x02, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff,
		     0xff, 0x00 },
	  .execute = tcmx_execute_nop },
	{ .opcode = READ_DEFECT_DATA, .len = 10, .dir = DMA_FROM_DEVICE,
	  .flags = TCMX_CMD_LUN, .name = "READ DEFECT DATA(10)",
	  .usage = { READ_DEFECT_DATA, 0x00, 0x1f, 0x00, 0x00, 0x00, 0x00,
		     0xff, 0xff, 0x00 },
	  .execute = integ_read_defect_data },
	{ .opcode = WRITE_VERIFY_16, .len = 16, .dir = DMA_TO_DEVICE,
	  .flags = INTEG_WRITE_ROW, .name = "WRITE AND VERIFY(16)",
	  .usage = { WRITE_VERIFY_16, 0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x00 },
	  .parse = integ_parse_write, .execute = integ_write_verify_fn },
	{ .opcode = VERIFY_16, .len = 16, .dir = DMA_TO_DEVICE,
	  .flags = INTEG_RANGE | TCMX_CMD_DEFER, .name = "VERIFY(16)",
	  .usage = { VERIFY_16, 0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x00 },
	  .parse = integ_parse_verify, .execute = integ_verify_fn },
	{ .opcode = COMPARE_AND_WRITE, .len = 16, .dir = DMA_TO_DEVICE,
	  .flags = INTEG_WRITE_ROW, .name = "COMPARE AND WRITE",
	  .usage = { COMPARE_AND_WRITE, 0x18, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0xff, 0x1f, 0x00 },
	  .parse = integ_parse_caw, .execute = integ_caw_fn,
	  .enabled = tcmx_caw_enabled },
	{ .opcode = ORWRITE_16, .len = 16, .dir = DMA_TO_DEVICE,
	  .flags = INTEG_WRITE_ROW, .name = "ORWRITE(16)",
	  .usage = { ORWRITE_16, 0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x00 },
	  .parse = integ_parse_write, .execute = integ_orwrite_fn },
	{ .opcode = PRE_FETCH_16, .len = 16, .dir = DMA_NONE,
	  .flags = INTEG_RANGE, .name = "PRE-FETCH(16)",
	  .usage = { PRE_FETCH_16, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x00 },
	  .execute = tcmx_execute_nop },
	{ .opcode = WRITE_ATOMIC_16, .len = 16, .dir = DMA_TO_DEVICE,
	  .flags = TCMX_CMD_LUN | TCMX_CMD_WRITE | TCMX_CMD_DEFER,
	  .name = "WRITE ATOMIC(16)",
	  .usage = { WRITE_ATOMIC_16, 0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x00 },
	  .parse = integ_parse_write_atomic, .execute = integ_write_atomic_fn },
	{ .opcode = WRITE_VERIFY_12, .len = 12, .dir = DMA_TO_DEVICE,
	  .flags = INTEG_WRITE_ROW, .name = "WRITE AND VERIFY(12)",
	  .usage = { WRITE_VERIFY_12, 0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0xff, 0x1f, 0x00 },
	  .parse = integ_parse_write, .execute = integ_write_verify_fn },
	{ .opcode = VERIFY_12, .len = 12, .dir = DMA_TO_DEVICE,
	  .flags = INTEG_RANGE | TCMX_CMD_DEFER, .name = "VERIFY(12)",
	  .usage = { VERIFY_12, 0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0x1f, 0x00 },
	  .parse = integ_parse_verify, .execute = integ_verify_fn },
	{ .opcode = READ_DEFECT_DATA_12, .len = 12, .dir = DMA_FROM_DEVICE,
	  .flags = TCMX_CMD_LUN, .name = "READ DEFECT DATA(12)",
	  .usage = { READ_DEFECT_DATA_12, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0x00, 0x00 },
	  .execute = integ_read_defect_data },
	{}
};
