// SPDX-License-Identifier: GPL-2.0
/*
 * Logical block provisioning (SBC-3 4.7): UNMAP, WRITE SAME(10/16), GET
 * LBA STATUS, and the two commands that clear the whole medium, FORMAT
 * UNIT and SANITIZE.  Their rows of the command table are here; the
 * limits they honour are device attributes (emulate_tpu, emulate_tpws,
 * max_unmap_lba_count, max_unmap_block_desc_count, max_write_same_len),
 * reported in the Block Limits and Logical Block Provisioning VPD pages
 * (spc.c) and READ CAPACITY(16) (sbc.c).
 *
 * ->parse checks the CDB in the submitter's context, without sleeping;
 * the row's ->execute does the work in a worker (TCMX_CMD_DEFER), where
 * the backend's block ops (tcmx.h) may sleep and allocate.  A parameter
 * list is checked whole before anything is changed: a command that fails
 * changes nothing.  The medium is changed under the write exclusion
 * (tcmx_excl_lock(), tcmx_core.h), so that none of these lands inside a
 * COMPARE AND WRITE, ORWRITE or WRITE ATOMIC.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "compat.h"
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"
#include "sanitize.h"

#define LBP_UNMAP_HDR		8	/* UNMAP parameter list header */
#define LBP_UNMAP_DESC		16	/* one UNMAP block descriptor */
#define LBP_LBAS_HDR		8	/* GET LBA STATUS parameter data header */
#define LBP_LBAS_DESC		16	/* one LBA status descriptor */
#define LBP_LBAS_MAX_DESC	64	/* descriptors one command returns */
#define LBP_FILL_BYTES		(64 * 1024)	/* WRITE SAME's copy buffer */
#define LBP_SANITIZE_HDR	4	/* overwrite parameter list header */
#define LBP_OP_SANITIZE		0x48	/* not in scsi_proto.h */

/* WRITE SAME byte 1 */
#define LBP_WS_UNMAP		0x08
#define LBP_WS_NDOB		0x01	/* WRITE SAME(16) only */

/* LBA status descriptor PROVISIONING STATUS */
#define LBP_MAPPED		0x0
#define LBP_DEALLOCATED		0x1

/* SANITIZE service actions */
#define LBP_SANITIZE_OVERWRITE		0x01
#define LBP_SANITIZE_BLOCK_ERASE	0x02
#define LBP_SANITIZE_CRYPTO_ERASE	0x03
#define LBP_SANITIZE_EXIT_FAILURE	0x1f

static enum tcmx_status lbp_errno(struct tcmx_cmd *cmd, int err)
{
	if (!err)
		return TCMX_GOOD;
	return tcmx_sense(cmd, err == -ENOSPC ? TCMX_SENSE_SPACE_ALLOC_FAILED :
				TCMX_SENSE_INTERNAL_ERROR);
}

/* Write @block (one logical block) to @nr blocks at @lba. */
static int lbp_fill(struct tcmx_dev *dev, u64 lba, u64 nr, const u8 *block)
{
	u32 bs = dev->block_size;
	u32 per = LBP_FILL_BYTES / bs;
	int ret = 0;
	u8 *buf;
	u32 i;

	buf = kmalloc(LBP_FILL_BYTES, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < per; i++)
		memcpy(buf + i * bs, block, bs);
	while (nr && !ret) {
		u32 n = min_t(u64, nr, per);

		ret = dev->ops->write_blocks(dev, lba, n, buf);
		lba += n;
		nr -= n;
		cond_resched();
	}
	kfree(buf);
	return ret;
}

/*
 * Every block of the medium reads as zeroes, deallocated if possible.
 * The caller holds the write exclusion.
 */
static int lbp_clear_medium(struct tcmx_dev *dev)
{
	u8 *zero;
	int ret;

	if (dev->ops->unmap)
		return dev->ops->unmap(dev, 0, dev->nr_blocks);
	zero = kzalloc(dev->block_size, GFP_KERNEL);
	if (!zero)
		return -ENOMEM;
	ret = lbp_fill(dev, 0, dev->nr_blocks, zero);
	kfree(zero);
	return ret;
}

/* ---- WRITE SAME(10/16) ------------------------------------------------ */

/*
 * The decoder has checked LBA and NUMBER OF LOGICAL BLOCKS against the
 * capacity.  0 blocks (WSNZ=0) means up to the last LBA; either way the
 * count is limited by MAXIMUM WRITE SAME LENGTH (max_write_same_len; 0
 * means no limit, as the VPD page's 0 says).  The data-out buffer is
 * exactly one block, or nothing with NDOB (the block is zeroes).
 */
static enum tcmx_status lbp_parse_write_same(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u8 flags = cmd->cdb[1];
	u16 len_byte = cmd->cdb[0] == WRITE_SAME_16 ? 10 : 7;
	u64 nr = cmd->nr_blocks ?: dev->nr_blocks - cmd->lba;
	/* 0: no limit reported, only the command's own */
	u32 max = dev->attrib.max_write_same_len ?: U32_MAX;

	if (!dev->ops->write_blocks)
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_OPCODE);
	if (flags & LBP_WS_UNMAP && !dev->attrib.emulate_tpws)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					1, 3);
	if (flags & LBP_WS_NDOB ? cmd->data_len != 0 :
				  cmd->data_len != dev->block_size)
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_CDB_FIELD);
	if (nr > max)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					len_byte, TCMX_NO_BIT);
	cmd->nr_blocks = nr;
	cmd->execute = nr ? cmd->desc->execute : tcmx_execute_nop;
	return TCMX_GOOD;
}

/*
 * UNMAP (or NDOB) with a block of zeroes deallocates the range, which
 * then reads as zeroes; any other block is written to every block.
 */
static enum tcmx_status lbp_write_same_work(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u32 bs = dev->block_size;
	u8 flags = cmd->cdb[1];
	u8 *block;
	int ret;

	block = kzalloc(bs, GFP_KERNEL);
	if (!block)
		return TCMX_BUSY;
	if (!(flags & LBP_WS_NDOB)) {
		if (tcmx_cmd_copy_from_sgl(cmd, block, bs) != bs) {
			kfree(block);
			return tcmx_sense(cmd, TCMX_SENSE_INTERNAL_ERROR);
		}
	}
	tcmx_excl_lock(dev, cmd->lba, cmd->nr_blocks);
	if (flags & (LBP_WS_UNMAP | LBP_WS_NDOB) &&
	    dev->attrib.emulate_tpws && dev->ops->unmap &&
	    !memchr_inv(block, 0, bs))
		ret = dev->ops->unmap(dev, cmd->lba, cmd->nr_blocks);
	else
		ret = lbp_fill(dev, cmd->lba, cmd->nr_blocks, block);
	tcmx_excl_unlock(dev);
	kfree(block);
	if (!ret)
		cmd->xfer_len = cmd->data_len;
	return lbp_errno(cmd, ret);
}


/* ---- UNMAP ------------------------------------------------------------ */

/* The @nr checked descriptors of parameter list @buf, in order. */
static int lbp_unmap_descs(struct tcmx_dev *dev, const u8 *buf, u32 nr)
{
	const u8 *p = buf + LBP_UNMAP_HDR;
	int ret = 0;
	u32 i;

	tcmx_excl_lock(dev, 0, dev->nr_blocks);
	for (i = 0; i < nr && !ret; i++, p += LBP_UNMAP_DESC)
		if (get_unaligned_be32(&p[8]))
			ret = dev->ops->unmap(dev, get_unaligned_be64(&p[0]),
					      get_unaligned_be32(&p[8]));
	tcmx_excl_unlock(dev);
	return ret;
}

/*
 * The parameter list: an 8-byte header (UNMAP DATA LENGTH, BLOCK
 * DESCRIPTOR DATA LENGTH), then 16-byte descriptors (LBA, NUMBER OF
 * LOGICAL BLOCKS).  As in-tree, a BLOCK DESCRIPTOR DATA LENGTH beyond the
 * list is cut to the list, and a partial descriptor is ignored.
 */
static enum tcmx_status lbp_unmap_work(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u32 len = min_t(u32, get_unaligned_be16(&cmd->cdb[7]), cmd->data_len);
	enum tcmx_status status = TCMX_GOOD;
	u32 i, nr_desc;
	u64 total = 0;
	u8 *buf, *p;

	if (len < LBP_UNMAP_HDR)
		return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
	buf = kmalloc(len, GFP_KERNEL);
	if (!buf)
		return TCMX_BUSY;
	/* a fabric's data-out buffer may hold less than it said */
	len = tcmx_cmd_copy_from_sgl(cmd, buf, len);
	if (len < LBP_UNMAP_HDR) {
		status = tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
		goto out;
	}
	nr_desc = min_t(u32, get_unaligned_be16(&buf[2]),
			len - LBP_UNMAP_HDR) / LBP_UNMAP_DESC;
	if (nr_desc > dev->attrib.max_unmap_block_desc_count) {
		status = tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					  false, 2, TCMX_NO_BIT);
		goto out;
	}
	for (i = 0, p = buf + LBP_UNMAP_HDR; i < nr_desc;
	     i++, p += LBP_UNMAP_DESC) {
		u64 lba = get_unaligned_be64(&p[0]);
		u32 nr = get_unaligned_be32(&p[8]);

		if (lba > dev->nr_blocks || nr > dev->nr_blocks - lba) {
			status = tcmx_sense_info(cmd,
						 TCMX_SENSE_LBA_OUT_OF_RANGE,
						 lba);
			goto out;
		}
		total += nr;
		if (total > dev->attrib.max_unmap_lba_count) {
			status = tcmx_sense_field(cmd,
						  TCMX_SENSE_INVALID_PARAM_FIELD,
						  false, p + 8 - buf,
						  TCMX_NO_BIT);
			goto out;
		}
	}
	status = lbp_errno(cmd, lbp_unmap_descs(dev, buf, nr_desc));
	if (status == TCMX_GOOD)
		cmd->xfer_len = len;
out:
	kfree(buf);
	return status;
}

/* ANCHOR (byte 1 bit 0) is not in the usage mask: ANC_SUP is 0. */
static enum tcmx_status lbp_parse_unmap(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;

	if (!dev->attrib.emulate_tpu || !dev->ops->unmap)
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_OPCODE);
	if (!get_unaligned_be16(&cmd->cdb[7]))	/* nothing to unmap */
		cmd->execute = tcmx_execute_nop;
	return TCMX_GOOD;
}

/* ---- GET LBA STATUS --------------------------------------------------- */

/*
 * Descriptors of alternating state from the given LBA on, as many as the
 * allocation length holds (at least one, which a short allocation length
 * truncates), up to the last LBA.  A fully provisioned device (emulate_tpu
 * and emulate_tpws both 0) reports every block mapped.
 */
static enum tcmx_status lbp_lba_status_work(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u64 lba = get_unaligned_be64(&cmd->cdb[2]);
	u32 alloc_len = get_unaligned_be32(&cmd->cdb[10]);
	bool thin = tcmx_dev_thin(dev) && dev->ops->lba_status;
	u32 i, max_desc;
	u8 *buf, *p;

	max_desc = alloc_len > LBP_LBAS_HDR + LBP_LBAS_DESC ?
		   (alloc_len - LBP_LBAS_HDR) / LBP_LBAS_DESC : 1;
	max_desc = min(max_desc, LBP_LBAS_MAX_DESC);
	buf = kzalloc(LBP_LBAS_HDR + max_desc * LBP_LBAS_DESC, GFP_KERNEL);
	if (!buf)
		return TCMX_BUSY;
	for (i = 0, p = buf + LBP_LBAS_HDR; i < max_desc && lba < dev->nr_blocks;
	     i++, p += LBP_LBAS_DESC) {
		bool mapped = true;
		u64 nr;

		if (thin)
			nr = dev->ops->lba_status(dev, lba, &mapped);
		else
			nr = dev->nr_blocks - lba;
		nr = clamp_t(u64, nr, 1, U32_MAX);
		put_unaligned_be64(lba, &p[0]);
		put_unaligned_be32(nr, &p[8]);
		p[12] = mapped ? LBP_MAPPED : LBP_DEALLOCATED;
		lba += nr;
	}
	/* PARAMETER DATA LENGTH: the bytes after the field itself */
	put_unaligned_be32(LBP_LBAS_HDR - 4 + i * LBP_LBAS_DESC, &buf[0]);
	tcmx_cmd_copy_to_sgl(cmd, buf, min_t(u32, alloc_len,
					     LBP_LBAS_HDR + i * LBP_LBAS_DESC));
	kfree(buf);
	return TCMX_GOOD;
}

static enum tcmx_status lbp_parse_get_lba_status(struct tcmx_cmd *cmd)
{
	if (get_unaligned_be64(&cmd->cdb[2]) >= cmd->dev->nr_blocks)
		return tcmx_sense(cmd, TCMX_SENSE_LBA_OUT_OF_RANGE);
	if (!get_unaligned_be32(&cmd->cdb[10]))
		cmd->execute = tcmx_execute_nop;
	return TCMX_GOOD;
}

/* ---- FORMAT UNIT ------------------------------------------------------ */

static enum tcmx_status lbp_clear_work(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	int ret;

	tcmx_excl_lock(dev, 0, dev->nr_blocks);
	ret = lbp_clear_medium(dev);
	tcmx_excl_unlock(dev);
	return lbp_errno(cmd, ret);
}

/*
 * No parameter list (FMTDATA 0): the medium is "formatted", i.e. every
 * block reads as zeroes; CMPLST and the defect list format are ignored.
 */
static enum tcmx_status lbp_parse_format_unit(struct tcmx_cmd *cmd)
{
	if (cmd->cdb[1] & 0x10)					/* FMTDATA */
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					1, 4);
	return TCMX_GOOD;
}

/* ---- SANITIZE --------------------------------------------------------- */

/*
 * The medium's work is done before status is returned, IMMED or not; a
 * programmed operation time then follows (inject/sanitize_ms, sanitize.c),
 * which the command waits for without IMMED.  BLOCK ERASE and CRYPTO
 * ERASE deallocate every block (they read as zeroes: WABEREQ = WACEREQ =
 * 01b in the Block Device Characteristics page); OVERWRITE deallocates
 * too, then writes the pattern unless it is all zeroes.
 */
static enum tcmx_status lbp_overwrite_work(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u32 param_len = get_unaligned_be16(&cmd->cdb[7]);
	u32 bs = dev->block_size, pat_len, i;
	enum tcmx_status status = TCMX_GOOD;
	u8 *param, *block;
	int ret;

	param = kzalloc(param_len + bs, GFP_KERNEL);
	if (!param)
		return TCMX_BUSY;
	block = param + param_len;
	if (tcmx_cmd_copy_from_sgl(cmd, param, param_len) != param_len) {
		status = tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
		goto out;
	}
	pat_len = get_unaligned_be16(&param[2]);
	if (param[0] & 0x60) {					/* TEST */
		status = tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					  false, 0, 6);
	} else if (!(param[0] & 0x1f)) {			/* OWCOUNT */
		status = tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					  false, 0, 4);
	} else if (param[1]) {					/* reserved */
		status = tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					  false, 1, TCMX_NO_BIT);
	} else if (!pat_len || pat_len > bs ||
		   pat_len > param_len - LBP_SANITIZE_HDR) {
		status = tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					  false, 2, TCMX_NO_BIT);
	}
	if (status != TCMX_GOOD)
		goto out;

	/* the last pass: inverted if INVERT and the pass count is even */
	for (i = 0; i < bs; i++) {
		block[i] = param[LBP_SANITIZE_HDR + i % pat_len];
		if (param[0] & 0x80 && !(param[0] & 0x01))
			block[i] = ~block[i];
	}
	status = tcmx_sanitize_begin(cmd);
	if (status != TCMX_GOOD)
		goto out;
	tcmx_excl_lock(dev, 0, dev->nr_blocks);
	ret = lbp_clear_medium(dev);
	if (!ret && memchr_inv(block, 0, bs))
		ret = lbp_fill(dev, 0, dev->nr_blocks, block);
	tcmx_excl_unlock(dev);
	status = lbp_errno(cmd, ret);
	if (status == TCMX_GOOD)
		cmd->xfer_len = param_len;
out:
	kfree(param);
	return tcmx_sanitize_wait(cmd, status);
}

/* BLOCK ERASE, CRYPTO ERASE: the medium cleared, as FORMAT UNIT does */
static enum tcmx_status lbp_erase_work(struct tcmx_cmd *cmd)
{
	enum tcmx_status status = tcmx_sanitize_begin(cmd);

	if (status == TCMX_GOOD)
		status = lbp_clear_work(cmd);
	return tcmx_sanitize_wait(cmd, status);
}

/* The parameter list is 5 bytes up to the header and one block. */
static enum tcmx_status lbp_parse_sanitize_overwrite(struct tcmx_cmd *cmd)
{
	u32 param_len = get_unaligned_be16(&cmd->cdb[7]);

	if (param_len <= LBP_SANITIZE_HDR ||
	    param_len > LBP_SANITIZE_HDR + cmd->dev->block_size)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					7, TCMX_NO_BIT);
	return TCMX_GOOD;
}

#define LBP_ROW		TCMX_CMD_LUN
/* the medium written, in a worker */
#define LBP_WRITE	(LBP_ROW | TCMX_CMD_WRITE | TCMX_CMD_DEFER)

/*
 * WRITE SAME: ANCHOR, LBDATA, PBDATA and WRPROTECT are refused by their
 * usage masks (no anchored state, no protection information); only
 * UNMAP, and NDOB on WRITE SAME(16), may be set in byte 1.  SANITIZE: IMMED
 * and AUSE in byte 1; only OVERWRITE takes a parameter list.
 */
struct tcmx_cmd_desc tcmx_lbp_cmds[] __ro_after_init = {
	{ .opcode = FORMAT_UNIT, .len = 6, .dir = DMA_NONE, .flags = LBP_WRITE,
	  .name = "FORMAT UNIT",
	  .usage = { FORMAT_UNIT, 0x3f, 0x00, 0x00, 0x00, 0x00 },
	  .parse = lbp_parse_format_unit, .execute = lbp_clear_work },
	{ .opcode = WRITE_SAME, .len = 10, .dir = DMA_TO_DEVICE,
	  .flags = LBP_WRITE | TCMX_CMD_LBA, .name = "WRITE SAME(10)",
	  .usage = { WRITE_SAME, LBP_WS_UNMAP, 0xff, 0xff, 0xff, 0xff, 0x1f,
		     0xff, 0xff, 0x00 },
	  .parse = lbp_parse_write_same, .execute = lbp_write_same_work },
	{ .opcode = UNMAP, .len = 10, .dir = DMA_TO_DEVICE, .flags = LBP_WRITE,
	  .name = "UNMAP",
	  .usage = { UNMAP, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1f, 0xff, 0xff,
		     0x00 },
	  .parse = lbp_parse_unmap, .execute = lbp_unmap_work },
	{ .opcode = LBP_OP_SANITIZE, .sa = LBP_SANITIZE_OVERWRITE, .len = 10,
	  .dir = DMA_TO_DEVICE, .flags = LBP_WRITE | TCMX_CMD_SA,
	  .name = "SANITIZE OVERWRITE",
	  .usage = { LBP_OP_SANITIZE, 0xa0 | LBP_SANITIZE_OVERWRITE, 0x00, 0x00, 0x00,
		     0x00, 0x00, 0xff, 0xff, 0x00 },
	  .parse = lbp_parse_sanitize_overwrite,
	  .execute = lbp_overwrite_work },
	{ .opcode = LBP_OP_SANITIZE, .sa = LBP_SANITIZE_BLOCK_ERASE, .len = 10,
	  .dir = DMA_NONE, .flags = LBP_WRITE | TCMX_CMD_SA,
	  .name = "SANITIZE BLOCK ERASE",
	  .usage = { LBP_OP_SANITIZE, 0xa0 | LBP_SANITIZE_BLOCK_ERASE },
	  .execute = lbp_erase_work },
	{ .opcode = LBP_OP_SANITIZE, .sa = LBP_SANITIZE_CRYPTO_ERASE, .len = 10,
	  .dir = DMA_NONE, .flags = LBP_WRITE | TCMX_CMD_SA,
	  .name = "SANITIZE CRYPTO ERASE",
	  .usage = { LBP_OP_SANITIZE, 0xa0 | LBP_SANITIZE_CRYPTO_ERASE },
	  .execute = lbp_erase_work },
	{ .opcode = LBP_OP_SANITIZE, .sa = LBP_SANITIZE_EXIT_FAILURE, .len = 10,
	  .dir = DMA_NONE, .flags = LBP_ROW | TCMX_CMD_SA,
	  .name = "SANITIZE EXIT FAILURE MODE",
	  .usage = { LBP_OP_SANITIZE, 0xa0 | LBP_SANITIZE_EXIT_FAILURE },
	  .execute = tcmx_execute_nop },
	{ .opcode = WRITE_SAME_16, .len = 16, .dir = DMA_TO_DEVICE,
	  .flags = LBP_WRITE | TCMX_CMD_LBA, .name = "WRITE SAME(16)",
	  .usage = { WRITE_SAME_16, LBP_WS_UNMAP | LBP_WS_NDOB, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0x1f, 0x00 },
	  .parse = lbp_parse_write_same, .execute = lbp_write_same_work },
	{ .opcode = SERVICE_ACTION_IN_16, .sa = SAI_GET_LBA_STATUS, .len = 16,
	  .dir = DMA_FROM_DEVICE,
	  .flags = LBP_ROW | TCMX_CMD_SA | TCMX_CMD_DEFER,
	  .name = "GET LBA STATUS",
	  .usage = { SERVICE_ACTION_IN_16, SAI_GET_LBA_STATUS, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0x00, 0x00 },
	  .parse = lbp_parse_get_lba_status, .execute = lbp_lba_status_work },
	{}
};
