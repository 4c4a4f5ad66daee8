// SPDX-License-Identifier: GPL-2.0
/*
 * Block commands (SBC-3): the READ/WRITE fast path and the few other block
 * commands a Linux initiator needs (READ CAPACITY, SYNCHRONIZE CACHE, START
 * STOP UNIT, VERIFY).  No protection information, no thin provisioning.
 * Everything here may run in atomic context and nothing here allocates.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#if __has_include("linux/unaligned.h")	/* moved there in 6.12 */
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"

#define SBC_RC10_LEN		8
#define SBC_RC16_LEN		32

static enum tcmx_sense sbc_execute_nop(struct tcmx_cmd *cmd)
{
	return TCMX_SENSE_NONE;
}

/* lba + nr_blocks <= capacity, without overflowing */
static bool sbc_range_ok(struct tcmx_dev *dev, u64 lba, u64 nr_blocks)
{
	return lba <= dev->nr_blocks && nr_blocks <= dev->nr_blocks - lba;
}

static enum tcmx_sense sbc_setup_rw(struct tcmx_cmd *cmd, u64 lba,
				    u32 nr_blocks)
{
	struct tcmx_dev *dev = cmd->dev;
	u64 bytes = (u64)nr_blocks << dev->block_shift;
	/* opcode bit 1 tells WRITE (0x0a/0x2a/0xaa/0x8a) from READ */
	enum dma_data_direction dir = cmd->cdb[0] & 0x02 ? DMA_TO_DEVICE :
							  DMA_FROM_DEVICE;

	if (unlikely(!sbc_range_ok(dev, lba, nr_blocks)))
		return TCMX_SENSE_LBA_OUT_OF_RANGE;
	if (unlikely(nr_blocks > dev->attrib.hw_max_sectors ||
		     bytes > cmd->data_len))
		return TCMX_SENSE_INVALID_CDB_FIELD;

	cmd->lba = lba;
	cmd->nr_blocks = nr_blocks;
	if (unlikely(!nr_blocks)) {
		cmd->execute = sbc_execute_nop;
		return TCMX_SENSE_NONE;
	}
	if (unlikely(cmd->data_dir != dir))
		return TCMX_SENSE_INVALID_CDB_FIELD;
	cmd->xfer_len = bytes;
	cmd->execute = dev->ops->execute_rw;
	return TCMX_SENSE_NONE;
}

/*
 * The per-command entry point.  READ/WRITE(10/12/16) share one tail: byte 1
 * holds RDPROTECT/WRPROTECT (bits 7-5, must be 0: no PI) and FUA (bit 3).
 * FUA is passed through as asked; the emulate_fua_* attributes only decide
 * what MODE SENSE advertises.
 */
enum tcmx_sense tcmx_parse_cdb(struct tcmx_cmd *cmd)
{
	const u8 *cdb = cmd->cdb;
	u64 lba;
	u32 nr_blocks;

	switch (cdb[0]) {
	case READ_6:
	case WRITE_6:
		/* 21-bit LBA; a transfer length of 0 means 256 blocks */
		return sbc_setup_rw(cmd, get_unaligned_be24(&cdb[1]) & 0x1fffff,
				    cdb[4] ? cdb[4] : 256);
	case READ_10:
	case WRITE_10:
		lba = get_unaligned_be32(&cdb[2]);
		nr_blocks = get_unaligned_be16(&cdb[7]);
		break;
	case READ_12:
	case WRITE_12:
		lba = get_unaligned_be32(&cdb[2]);
		nr_blocks = get_unaligned_be32(&cdb[6]);
		break;
	case READ_16:
	case WRITE_16:
		lba = get_unaligned_be64(&cdb[2]);
		nr_blocks = get_unaligned_be32(&cdb[10]);
		break;
	default:
		return tcmx_sbc_parse(cmd);
	}
	if (unlikely(cdb[1] & 0xe0))
		return TCMX_SENSE_INVALID_CDB_FIELD;
	cmd->fua = cdb[1] & 0x08;
	return sbc_setup_rw(cmd, lba, nr_blocks);
}

static u64 sbc_last_lba(struct tcmx_dev *dev)
{
	return dev->nr_blocks ? dev->nr_blocks - 1 : 0;
}

static enum tcmx_sense sbc_read_capacity_10(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u8 buf[SBC_RC10_LEN];

	put_unaligned_be32(min_t(u64, sbc_last_lba(dev), U32_MAX), &buf[0]);
	put_unaligned_be32(dev->block_size, &buf[4]);
	tcmx_cmd_copy_to_sgl(cmd, buf, sizeof(buf));
	return TCMX_SENSE_NONE;
}

/* LBPME, LBPRZ, PROT_EN and both exponents stay 0 */
static enum tcmx_sense sbc_read_capacity_16(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u32 alloc_len = get_unaligned_be32(&cmd->cdb[10]);
	u8 buf[SBC_RC16_LEN] = {};

	put_unaligned_be64(sbc_last_lba(dev), &buf[0]);
	put_unaligned_be32(dev->block_size, &buf[8]);
	tcmx_cmd_copy_to_sgl(cmd, buf, min_t(u32, alloc_len, sizeof(buf)));
	return TCMX_SENSE_NONE;
}

/* SYNCHRONIZE CACHE(10/16) and VERIFY(10/16): a range, nothing to move */
static enum tcmx_sense sbc_parse_range(struct tcmx_cmd *cmd, bool is_16,
				       tcmx_execute_fn execute)
{
	const u8 *cdb = cmd->cdb;
	u64 lba;
	u32 nr_blocks;

	if (is_16) {
		lba = get_unaligned_be64(&cdb[2]);
		nr_blocks = get_unaligned_be32(&cdb[10]);
	} else {
		lba = get_unaligned_be32(&cdb[2]);
		nr_blocks = get_unaligned_be16(&cdb[7]);
	}
	if (!sbc_range_ok(cmd->dev, lba, nr_blocks))
		return TCMX_SENSE_LBA_OUT_OF_RANGE;
	cmd->lba = lba;
	cmd->nr_blocks = nr_blocks;
	cmd->execute = execute;
	return TCMX_SENSE_NONE;
}

static enum tcmx_sense sbc_parse_sync_cache(struct tcmx_cmd *cmd)
{
	tcmx_execute_fn sync = cmd->dev->ops->sync_cache;

	return sbc_parse_range(cmd, cmd->cdb[0] == SYNCHRONIZE_CACHE_16,
			       sync ? sync : sbc_execute_nop);
}

/* VRPROTECT (bits 7-5) and BYTCHK (bits 2-1) must be 0 */
static enum tcmx_sense sbc_parse_verify(struct tcmx_cmd *cmd)
{
	if (cmd->cdb[1] & 0xe6)
		return TCMX_SENSE_INVALID_CDB_FIELD;
	return sbc_parse_range(cmd, cmd->cdb[0] == VERIFY_16, sbc_execute_nop);
}

/* Only POWER CONDITION 0 (START_VALID); no medium to load or eject. */
static enum tcmx_sense sbc_parse_start_stop(struct tcmx_cmd *cmd)
{
	if (cmd->cdb[4] & 0xf2)
		return TCMX_SENSE_INVALID_CDB_FIELD;
	cmd->execute = sbc_execute_nop;
	return TCMX_SENSE_NONE;
}

static enum tcmx_sense sbc_parse_sai_16(struct tcmx_cmd *cmd)
{
	if ((cmd->cdb[1] & 0x1f) != SAI_READ_CAPACITY_16)
		return TCMX_SENSE_INVALID_CDB_FIELD;
	cmd->execute = sbc_read_capacity_16;
	return TCMX_SENSE_NONE;
}

/* Block commands other than READ/WRITE; the rest goes to spc.c. */
enum tcmx_sense tcmx_sbc_parse(struct tcmx_cmd *cmd)
{
	switch (cmd->cdb[0]) {
	case READ_CAPACITY:
		/* an LBA without PMI is an invalid field (SBC-3 5.15) */
		if (!(cmd->cdb[8] & 0x01) && get_unaligned_be32(&cmd->cdb[2]))
			return TCMX_SENSE_INVALID_CDB_FIELD;
		cmd->execute = sbc_read_capacity_10;
		return TCMX_SENSE_NONE;
	case SERVICE_ACTION_IN_16:
		return sbc_parse_sai_16(cmd);
	case SYNCHRONIZE_CACHE:
	case SYNCHRONIZE_CACHE_16:
		return sbc_parse_sync_cache(cmd);
	case VERIFY:
	case VERIFY_16:
		return sbc_parse_verify(cmd);
	case START_STOP:
		return sbc_parse_start_stop(cmd);
	default:
		return tcmx_spc_parse(cmd);
	}
}
