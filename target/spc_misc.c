// SPDX-License-Identifier: GPL-2.0
/*
 * Further primary commands: REPORT TIMESTAMP, PREVENT ALLOW MEDIUM
 * REMOVAL, and READ BUFFER / WRITE BUFFER with the echo buffer.
 *
 * The echo buffer is one per device, of TCMX_ECHO_MAX bytes, allocated by
 * the first WRITE BUFFER (in a tcmx_defer'd function: it sleeps) and freed
 * with the device.  Any I_T nexus may overwrite it (EBOS 0).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/ktime.h>
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
	u32	len;		/* bytes the last WRITE BUFFER left */
	bool	written;
	u8	data[TCMX_ECHO_MAX];
};

/* every device's echo buffer: its contents and its allocation */
static DEFINE_MUTEX(tcmx_echo_mutex);

/* ---- REPORT TIMESTAMP (SPC-4 6.29) ------------------------------------ */

#define TIMESTAMP_LEN		12
#define TIMESTAMP_ORIGIN_OTHER	0x03	/* set outside this standard */

/* The system's wall clock, in milliseconds since the epoch (48 bits). */
static enum tcmx_status spc_report_timestamp(struct tcmx_cmd *cmd)
{
	u32 alloc_len = get_unaligned_be32(&cmd->cdb[6]);
	u64 ms = div_u64(ktime_get_real_ns(), NSEC_PER_MSEC);
	u8 p[TIMESTAMP_LEN] = {};

	put_unaligned_be16(TIMESTAMP_LEN - 2, &p[0]);
	p[2] = TIMESTAMP_ORIGIN_OTHER;
	put_unaligned_be16(ms >> 32, &p[4]);
	put_unaligned_be32(ms, &p[6]);
	tcmx_cmd_copy_to_sgl(cmd, p, min_t(u32, sizeof(p), alloc_len));
	return TCMX_GOOD;
}

/* ---- PREVENT ALLOW MEDIUM REMOVAL (SPC-4 6.13) ------------------------ */

/* The medium is not removable (RMB 0): removal cannot be prevented. */
static enum tcmx_status spc_prevent_allow(struct tcmx_cmd *cmd)
{
	if (cmd->cdb[4] & 0x03)				/* PREVENT */
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					4, 1);
	return TCMX_GOOD;
}

/* ---- READ BUFFER / WRITE BUFFER: the echo buffer ---------------------- */

static enum tcmx_status spc_bad_mode(struct tcmx_cmd *cmd)
{
	return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true, 1, 4);
}

/* Process context: fill the echo buffer, allocating it the first time. */
static enum tcmx_status spc_write_echo(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u32 len = get_unaligned_be24(&cmd->cdb[6]);
	struct tcmx_echo_buf *echo;

	mutex_lock(&tcmx_echo_mutex);
	echo = dev->echo_buf;
	if (!echo) {
		echo = kzalloc(sizeof(*echo), GFP_KERNEL);
		if (!echo) {
			mutex_unlock(&tcmx_echo_mutex);
			return tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_RESOURCES);
		}
		dev->echo_buf = echo;
	}
	/* a short initiator buffer leaves the rest as it was: zeroes */
	memset(echo->data, 0, len);
	tcmx_cmd_copy_from_sgl(cmd, echo->data, len);
	echo->len = len;
	echo->written = true;
	mutex_unlock(&tcmx_echo_mutex);
	cmd->xfer_len = min(len, cmd->data_len);
	return TCMX_GOOD;
}

static enum tcmx_status spc_write_buffer(struct tcmx_cmd *cmd)
{
	if ((cmd->cdb[1] & BUF_MODE_MASK) != BUF_MODE_ECHO)
		return spc_bad_mode(cmd);
	if (get_unaligned_be24(&cmd->cdb[6]) > TCMX_ECHO_MAX)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					6, TCMX_NO_BIT);
	return tcmx_defer(cmd, spc_write_echo);
}

/* What the last WRITE BUFFER left; COMMAND SEQUENCE ERROR before any. */
static enum tcmx_status spc_read_echo(struct tcmx_cmd *cmd)
{
	u32 alloc_len = get_unaligned_be24(&cmd->cdb[6]);
	enum tcmx_status status = TCMX_GOOD;
	struct tcmx_echo_buf *echo;

	mutex_lock(&tcmx_echo_mutex);
	echo = cmd->dev->echo_buf;
	if (echo && echo->written)
		tcmx_cmd_copy_to_sgl(cmd, echo->data, min(echo->len, alloc_len));
	else
		status = tcmx_sense(cmd, TCMX_SENSE_COMMAND_SEQUENCE);
	mutex_unlock(&tcmx_echo_mutex);
	return status;
}

static enum tcmx_status spc_read_buffer(struct tcmx_cmd *cmd)
{
	u32 alloc_len = get_unaligned_be24(&cmd->cdb[6]);
	u8 desc[4] = {};

	switch (cmd->cdb[1] & BUF_MODE_MASK) {
	case BUF_MODE_ECHO:
		return tcmx_defer(cmd, spc_read_echo);
	case BUF_MODE_ECHO_DESC:
		/* EBOS 0; BUFFER CAPACITY */
		put_unaligned_be16(TCMX_ECHO_MAX, &desc[2]);
		tcmx_cmd_copy_to_sgl(cmd, desc, min_t(u32, sizeof(desc),
						      alloc_len));
		return TCMX_GOOD;
	}
	return spc_bad_mode(cmd);
}

struct tcmx_cmd_desc tcmx_spc_misc_cmds[] __ro_after_init = {
	{ .opcode = ALLOW_MEDIUM_REMOVAL, .len = 6, .dir = DMA_NONE,
	  .flags = TCMX_CMD_LUN, .name = "PREVENT ALLOW MEDIUM REMOVAL",
	  .usage = { ALLOW_MEDIUM_REMOVAL, 0x00, 0x00, 0x00, 0x03, 0x00 },
	  .execute = spc_prevent_allow },
	{ .opcode = WRITE_BUFFER, .len = 10, .dir = DMA_TO_DEVICE,
	  .flags = TCMX_CMD_LUN, .name = "WRITE BUFFER",
	  .usage = { WRITE_BUFFER, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0x00 },
	  .execute = spc_write_buffer },
	{ .opcode = READ_BUFFER, .len = 10, .dir = DMA_FROM_DEVICE,
	  .flags = TCMX_CMD_LUN, .name = "READ BUFFER",
	  .usage = { READ_BUFFER, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0x00 },
	  .execute = spc_read_buffer },
	{ .opcode = MAINTENANCE_IN, .sa = MI_REPORT_TIMESTAMP, .len = 12,
	  .dir = DMA_FROM_DEVICE, .flags = TCMX_CMD_LUN | TCMX_CMD_SA,
	  .name = "REPORT TIMESTAMP",
	  .usage = { MAINTENANCE_IN, MI_REPORT_TIMESTAMP, 0x00, 0x00, 0x00,
		     0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00 },
	  .execute = spc_report_timestamp },
	{}
};
