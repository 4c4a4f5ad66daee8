// SPDX-License-Identifier: GPL-2.0
/*
 * READ BUFFER and WRITE BUFFER (SPC-4 6.17, 6.49) with the echo buffer.
 *
 * The echo buffer is one per device, of TCMX_ECHO_MAX bytes, allocated by
 * the first WRITE BUFFER (in a worker: it sleeps) and freed
 * with the device.  Any I_T nexus may overwrite it (EBOS 0), but only the
 * nexus that wrote it reads it back: another one gets COMMAND SEQUENCE
 * ERROR, as before any WRITE BUFFER, so that no initiator reads what
 * another wrote.  What a nexus wrote goes when it leaves the device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include "compat.h"
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"

#define TCMX_ECHO_MAX		4096	/* bytes; BUFFER CAPACITY is 13 bits */
#define BUF_MODE_ECHO		0x0a	/* echo buffer data */
#define BUF_MODE_ECHO_DESC	0x0b	/* echo buffer descriptor (READ) */
#define BUF_MODE_MASK		0x1f

struct tcmx_echo_buf {
	u32			len;	/* bytes the last WRITE BUFFER left */
	struct tcmx_lun		*writer;	/* its I_T nexus, or NULL */
	u8			data[TCMX_ECHO_MAX];
};

/* every device's echo buffer: its contents and its allocation */
static DEFINE_MUTEX(tcmx_echo_mutex);

static enum tcmx_status spc_bad_mode(struct tcmx_cmd *cmd)
{
	return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true, 1, 4);
}

/* Process context: fill the echo buffer, allocating it the first time. */
static enum tcmx_status spc_write_echo(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	u32 len = get_unaligned_be24(&cmd->cdb[6]);
	struct tcmx_echo_buf *echo;

	mutex_lock(&tcmx_echo_mutex);
	echo = cd->echo_buf;
	if (!echo) {
		echo = kzalloc(sizeof(*echo), GFP_KERNEL);
		if (!echo) {
			mutex_unlock(&tcmx_echo_mutex);
			return tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_RESOURCES);
		}
		cd->echo_buf = echo;
	}
	/* a short initiator buffer leaves the rest as it was: zeroes */
	memset(echo->data, 0, len);
	tcmx_cmd_copy_from_sgl(cmd, echo->data, len);
	echo->len = len;
	echo->writer = cmd->lun;
	mutex_unlock(&tcmx_echo_mutex);
	cmd->xfer_len = min(len, cmd->data_len);
	return TCMX_GOOD;
}

static enum tcmx_status spc_parse_write_buffer(struct tcmx_cmd *cmd)
{
	if ((cmd->cdb[1] & BUF_MODE_MASK) != BUF_MODE_ECHO)
		return spc_bad_mode(cmd);
	if (get_unaligned_be24(&cmd->cdb[6]) > TCMX_ECHO_MAX)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					6, TCMX_NO_BIT);
	return TCMX_GOOD;
}

/* What the last WRITE BUFFER left; COMMAND SEQUENCE ERROR before any. */
static enum tcmx_status spc_read_echo(struct tcmx_cmd *cmd)
{
	u32 alloc_len = get_unaligned_be24(&cmd->cdb[6]);
	enum tcmx_status status = TCMX_GOOD;
	struct tcmx_echo_buf *echo;

	mutex_lock(&tcmx_echo_mutex);
	echo = tcmx_core(cmd->dev)->echo_buf;
	if (echo && echo->writer && echo->writer == cmd->lun)
		tcmx_cmd_copy_to_sgl(cmd, echo->data, min(echo->len, alloc_len));
	else
		status = tcmx_sense(cmd, TCMX_SENSE_COMMAND_SEQUENCE);
	mutex_unlock(&tcmx_echo_mutex);
	return status;
}

/* @lun leaves @dev (cd->lock held): what it wrote is no one's to read */
void tcmx_echo_lun_gone(struct tcmx_lun *lun, struct tcmx_dev *dev)
{
	struct tcmx_echo_buf *echo;

	mutex_lock(&tcmx_echo_mutex);
	echo = tcmx_core(dev)->echo_buf;
	if (echo && echo->writer == lun) {
		echo->writer = NULL;
		memset(echo->data, 0, echo->len);
	}
	mutex_unlock(&tcmx_echo_mutex);
}

/* The echo buffer descriptor: EBOS 0; BUFFER CAPACITY */
static enum tcmx_status spc_read_echo_desc(struct tcmx_cmd *cmd)
{
	u32 alloc_len = get_unaligned_be24(&cmd->cdb[6]);
	u8 desc[4] = {};

	put_unaligned_be16(TCMX_ECHO_MAX, &desc[2]);
	tcmx_cmd_copy_to_sgl(cmd, desc, min_t(u32, sizeof(desc), alloc_len));
	return TCMX_GOOD;
}

/* The echo buffer in a worker (the row's ->execute), its descriptor inline */
static enum tcmx_status spc_parse_read_buffer(struct tcmx_cmd *cmd)
{
	switch (cmd->cdb[1] & BUF_MODE_MASK) {
	case BUF_MODE_ECHO:
		return TCMX_GOOD;
	case BUF_MODE_ECHO_DESC:
		cmd->execute = spc_read_echo_desc;
		return TCMX_GOOD;
	}
	return spc_bad_mode(cmd);
}

/* the echo buffer: in a worker; in every ALUA state but Offline */
#define SPC_BUF_FLAGS	(TCMX_CMD_LUN | TCMX_CMD_DEFER | TCMX_CMD_IN_STANDBY | \
			 TCMX_CMD_IN_UNAVAIL | TCMX_CMD_IN_TRANSITION)

struct tcmx_cmd_desc tcmx_buffer_cmds[] __ro_after_init = {
	{ .opcode = WRITE_BUFFER, .len = 10, .dir = DMA_TO_DEVICE,
	  .flags = SPC_BUF_FLAGS, .name = "WRITE BUFFER",
	  .usage = { WRITE_BUFFER, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0x00 },
	  .parse = spc_parse_write_buffer, .execute = spc_write_echo },
	{ .opcode = READ_BUFFER, .len = 10, .dir = DMA_FROM_DEVICE,
	  .flags = SPC_BUF_FLAGS, .name = "READ BUFFER",
	  .usage = { READ_BUFFER, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0x00 },
	  .parse = spc_parse_read_buffer, .execute = spc_read_echo },
	{}
};
