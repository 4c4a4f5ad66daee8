// SPDX-License-Identifier: GPL-2.0
/*
 * Block commands (SBC-3): their rows of the command table, and the few
 * block commands a Linux initiator needs beyond READ/WRITE (READ CAPACITY,
 * SYNCHRONIZE CACHE, START STOP UNIT).  READ/WRITE themselves are decoded
 * by cdb.c and run by the backend; VERIFY and the other integrity commands
 * are in sbc_integrity.c, thin provisioning in lbp.c.  No protection
 * information.  Everything here may run in atomic context and nothing
 * here allocates.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include "compat.h"
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"

#define SBC_RC10_LEN		8
#define SBC_RC16_LEN		32

static u64 sbc_last_lba(struct tcmx_dev *dev)
{
	return dev->nr_blocks ? dev->nr_blocks - 1 : 0;
}

/* An LBA without PMI is an invalid field (SBC-3 5.15). */
static enum tcmx_status sbc_parse_read_capacity_10(struct tcmx_cmd *cmd)
{
	if (!(cmd->cdb[8] & 0x01) && get_unaligned_be32(&cmd->cdb[2]))
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					2, TCMX_NO_BIT);
	cmd->execute = cmd->desc->execute;
	return TCMX_GOOD;
}

static enum tcmx_status sbc_read_capacity_10(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u8 buf[SBC_RC10_LEN];

	put_unaligned_be32(min_t(u64, sbc_last_lba(dev), U32_MAX), &buf[0]);
	put_unaligned_be32(dev->block_size, &buf[4]);
	tcmx_cmd_copy_to_sgl(cmd, buf, sizeof(buf));
	return TCMX_GOOD;
}

/*
 * LBPME while thin provisioned, LBPRZ when deallocated blocks read as
 * zeroes (unmap_zeroes_data); PROT_EN stays 0.  LOGICAL BLOCKS PER PHYSICAL
 * BLOCK EXPONENT says how many blocks the backend stores as one unit.
 */
static enum tcmx_status sbc_read_capacity_16(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u32 alloc_len = get_unaligned_be32(&cmd->cdb[10]);
	u32 phys = dev->ops->phys_block_size;
	u8 buf[SBC_RC16_LEN] = {};

	put_unaligned_be64(sbc_last_lba(dev), &buf[0]);
	put_unaligned_be32(dev->block_size, &buf[8]);
	if (phys > dev->block_size)
		buf[13] = ilog2(phys) - dev->block_shift;	/* LBPPBE */
	if (tcmx_dev_thin(dev)) {
		buf[14] = 0x80;					/* LBPME */
		if (dev->attrib.unmap_zeroes_data)
			buf[14] |= 0x40;			/* LBPRZ */
	}
	tcmx_cmd_copy_to_sgl(cmd, buf, min_t(u32, alloc_len, sizeof(buf)));
	return TCMX_GOOD;
}

/* SYNCHRONIZE CACHE(10/16): the range is checked; flush if there is cache */
static enum tcmx_status sbc_sync_cache(struct tcmx_cmd *cmd)
{
	tcmx_execute_fn sync = cmd->dev->ops->sync_cache;

	return sync ? sync(cmd) : TCMX_GOOD;
}

#define SBC_RW		(TCMX_CMD_LUN | TCMX_CMD_LBA | TCMX_CMD_RW)
#define SBC_RANGE	(TCMX_CMD_LUN | TCMX_CMD_LBA)
#define SBC_WR		(SBC_RW | TCMX_CMD_WRITE)

/*
 * Byte 1 of READ and WRITE(10/12/16): RDPROTECT/WRPROTECT (bits 7-5) stay
 * 0 without protection information; DPO, FUA and FUA_NV may be set, and
 * RARC on a READ.  Only POWER CONDITION 0 (START_VALID) starts or stops:
 * no medium to eject.
 */
struct tcmx_cmd_desc tcmx_sbc_cmds[] __ro_after_init = {
	{ .opcode = READ_6, .len = 6, .dir = DMA_FROM_DEVICE, .flags = SBC_RW,
	  .name = "READ(6)",
	  .usage = { READ_6, 0x1f, 0xff, 0xff, 0xff, 0x00 } },
	{ .opcode = WRITE_6, .len = 6, .dir = DMA_TO_DEVICE, .flags = SBC_WR,
	  .name = "WRITE(6)",
	  .usage = { WRITE_6, 0x1f, 0xff, 0xff, 0xff, 0x00 } },
	{ .opcode = START_STOP, .len = 6, .dir = DMA_NONE,
	  .flags = TCMX_CMD_LUN, .name = "START STOP UNIT",
	  .usage = { START_STOP, 0x01, 0x00, 0x00, 0x05, 0x00 },
	  .execute = tcmx_execute_nop },
	{ .opcode = READ_CAPACITY, .len = 10, .dir = DMA_FROM_DEVICE,
	  .flags = TCMX_CMD_LUN | TCMX_CMD_PR_OK, .name = "READ CAPACITY(10)",
	  .usage = { READ_CAPACITY, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00,
		     0x01, 0x00 },
	  .parse = sbc_parse_read_capacity_10,
	  .execute = sbc_read_capacity_10 },
	{ .opcode = READ_10, .len = 10, .dir = DMA_FROM_DEVICE, .flags = SBC_RW,
	  .name = "READ(10)",
	  .usage = { READ_10, 0x1e, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff, 0xff,
		     0x00 } },
	{ .opcode = WRITE_10, .len = 10, .dir = DMA_TO_DEVICE, .flags = SBC_WR,
	  .name = "WRITE(10)",
	  .usage = { WRITE_10, 0x1a, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff, 0xff,
		     0x00 } },
	{ .opcode = SYNCHRONIZE_CACHE, .len = 10, .dir = DMA_NONE,
	  .flags = SBC_RANGE, .name = "SYNCHRONIZE CACHE(10)",
	  .usage = { SYNCHRONIZE_CACHE, 0x06, 0xff, 0xff, 0xff, 0xff, 0x1f,
		     0xff, 0xff, 0x00 },
	  .execute = sbc_sync_cache },
	{ .opcode = READ_16, .len = 16, .dir = DMA_FROM_DEVICE, .flags = SBC_RW,
	  .name = "READ(16)",
	  .usage = { READ_16, 0x1e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x00 } },
	{ .opcode = WRITE_16, .len = 16, .dir = DMA_TO_DEVICE, .flags = SBC_WR,
	  .name = "WRITE(16)",
	  .usage = { WRITE_16, 0x1a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x00 } },
	{ .opcode = SYNCHRONIZE_CACHE_16, .len = 16, .dir = DMA_NONE,
	  .flags = SBC_RANGE, .name = "SYNCHRONIZE CACHE(16)",
	  .usage = { SYNCHRONIZE_CACHE_16, 0x06, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x00 },
	  .execute = sbc_sync_cache },
	{ .opcode = SERVICE_ACTION_IN_16, .sa = SAI_READ_CAPACITY_16, .len = 16,
	  .dir = DMA_FROM_DEVICE,
	  .flags = TCMX_CMD_LUN | TCMX_CMD_SA | TCMX_CMD_IN_STANDBY |
		   TCMX_CMD_PR_OK,
	  .name = "READ CAPACITY(16)",
	  .usage = { SERVICE_ACTION_IN_16, SAI_READ_CAPACITY_16, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0x01, 0x00 },
	  .execute = sbc_read_capacity_16 },
	{ .opcode = READ_12, .len = 12, .dir = DMA_FROM_DEVICE, .flags = SBC_RW,
	  .name = "READ(12)",
	  .usage = { READ_12, 0x1e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0x1f, 0x00 } },
	{ .opcode = WRITE_12, .len = 12, .dir = DMA_TO_DEVICE, .flags = SBC_WR,
	  .name = "WRITE(12)",
	  .usage = { WRITE_12, 0x1a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0x1f, 0x00 } },
	{}
};
