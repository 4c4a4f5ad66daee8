// SPDX-License-Identifier: GPL-2.0
/*
 * What a command sends back to the initiator: sense data for a CHECK
 * CONDITION, and parameter data copied into its data-in buffer.
 *
 * This is the only place that builds sense bytes.  The format follows the
 * device's control mode page (D_SENSE: descriptor format, else fixed); the
 * layout itself is the SCSI midlayer's scsi_build_sense_buffer(), with the
 * INFORMATION and sense-key-specific fields added by its helpers.  All of
 * it may run in atomic context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/scatterlist.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"

struct tcmx_sense_row {
	u8 key;
	u8 asc;
	u8 ascq;
};

static const struct tcmx_sense_row tcmx_sense_rows[TCMX_SENSE_NR] = {
	[TCMX_SENSE_NO_SENSE]		 = { NO_SENSE, 0x00, 0x00 },
	[TCMX_SENSE_INVALID_OPCODE]	 = { ILLEGAL_REQUEST, 0x20, 0x00 },
	[TCMX_SENSE_LBA_OUT_OF_RANGE]	 = { ILLEGAL_REQUEST, 0x21, 0x00 },
	[TCMX_SENSE_INVALID_CDB_FIELD]	 = { ILLEGAL_REQUEST, 0x24, 0x00 },
	[TCMX_SENSE_LUN_NOT_SUPPORTED]	 = { ILLEGAL_REQUEST, 0x25, 0x00 },
	[TCMX_SENSE_INVALID_PARAM_FIELD] = { ILLEGAL_REQUEST, 0x26, 0x00 },
	[TCMX_SENSE_SAVING_NOT_SUPPORTED] = { ILLEGAL_REQUEST, 0x39, 0x00 },
	[TCMX_SENSE_SPACE_ALLOC_FAILED]	 = { DATA_PROTECT, 0x27, 0x07 },
	[TCMX_SENSE_INTERNAL_ERROR]	 = { HARDWARE_ERROR, 0x44, 0x00 },
	[TCMX_SENSE_PARAM_LIST_LENGTH]	 = { ILLEGAL_REQUEST, 0x1a, 0x00 },
	[TCMX_SENSE_INVALID_PARAM_VALUE] = { ILLEGAL_REQUEST, 0x26, 0x02 },
	[TCMX_SENSE_TOO_MANY_TARGET_DESC] = { ILLEGAL_REQUEST, 0x26, 0x06 },
	[TCMX_SENSE_UNSUPPORTED_TARGET_DESC] = { ILLEGAL_REQUEST, 0x26, 0x07 },
	[TCMX_SENSE_TOO_MANY_SEGMENT_DESC] = { ILLEGAL_REQUEST, 0x26, 0x08 },
	[TCMX_SENSE_UNSUPPORTED_SEGMENT_DESC] = { ILLEGAL_REQUEST, 0x26, 0x09 },
	[TCMX_SENSE_COPY_TARGET_NOT_REACHABLE] = { COPY_ABORTED, 0x0d, 0x02 },
	[TCMX_SENSE_INVALID_RELEASE]	 = { ILLEGAL_REQUEST, 0x26, 0x04 },
	[TCMX_SENSE_MISCOMPARE]		 = { MISCOMPARE, 0x1d, 0x00 },
	[TCMX_SENSE_WRITE_PROTECTED]	 = { DATA_PROTECT, 0x27, 0x00 },
	[TCMX_SENSE_MEDIUM_ERROR_READ]	 = { MEDIUM_ERROR, 0x11, 0x00 },
	[TCMX_SENSE_NOT_READY_FORMAT]	 = { NOT_READY, 0x04, 0x04 },
	[TCMX_SENSE_COMMAND_SEQUENCE]	 = { ILLEGAL_REQUEST, 0x2c, 0x00 },
	[TCMX_SENSE_INSUFFICIENT_RESOURCES] = { ILLEGAL_REQUEST, 0x55, 0x03 },
	[TCMX_SENSE_ALUA_TRANSITIONING]	 = { NOT_READY, 0x04, 0x0a },
	[TCMX_SENSE_ALUA_STANDBY]	 = { NOT_READY, 0x04, 0x0b },
	[TCMX_SENSE_ALUA_UNAVAILABLE]	 = { NOT_READY, 0x04, 0x0c },
	[TCMX_SENSE_ALUA_OFFLINE]	 = { NOT_READY, 0x04, 0x12 },
	[TCMX_SENSE_UA_POWER_ON]	 = { UNIT_ATTENTION, 0x29, 0x00 },
	[TCMX_SENSE_UA_BUS_RESET]	 = { UNIT_ATTENTION, 0x29, 0x02 },
	[TCMX_SENSE_UA_DEVICE_RESET]	 = { UNIT_ATTENTION, 0x29, 0x03 },
	[TCMX_SENSE_UA_I_T_NEXUS_LOSS]	 = { UNIT_ATTENTION, 0x29, 0x07 },
	[TCMX_SENSE_UA_MODE_CHANGED]	 = { UNIT_ATTENTION, 0x2a, 0x01 },
	[TCMX_SENSE_UA_RES_PREEMPTED]	 = { UNIT_ATTENTION, 0x2a, 0x03 },
	[TCMX_SENSE_UA_RES_RELEASED]	 = { UNIT_ATTENTION, 0x2a, 0x04 },
	[TCMX_SENSE_UA_REG_PREEMPTED]	 = { UNIT_ATTENTION, 0x2a, 0x05 },
	[TCMX_SENSE_UA_ALUA_CHANGED]	 = { UNIT_ATTENTION, 0x2a, 0x06 },
	[TCMX_SENSE_UA_CAPACITY_CHANGED] = { UNIT_ATTENTION, 0x2a, 0x09 },
	[TCMX_SENSE_UA_COMMANDS_CLEARED] = { UNIT_ATTENTION, 0x2f, 0x00 },
	[TCMX_SENSE_UA_LUNS_CHANGED]	 = { UNIT_ATTENTION, 0x3f, 0x0e },
	[TCMX_SENSE_OPERATION_IN_PROGRESS] = { ILLEGAL_REQUEST, 0x00, 0x16 },
	[TCMX_SENSE_INVALID_IU_FIELD]	 = { ILLEGAL_REQUEST, 0x0e, 0x03 },
	[TCMX_SENSE_UA_INQUIRY_CHANGED]	 = { UNIT_ATTENTION, 0x3f, 0x03 },
	[TCMX_SENSE_INSUFFICIENT_REG_RESOURCES] = { ILLEGAL_REQUEST, 0x55, 0x04 },
	[TCMX_SENSE_LU_COMM_FAILURE]	 = { NOT_READY, 0x08, 0x00 },
	[TCMX_SENSE_PROTOCOL_CRC]	 = { ABORTED_COMMAND, 0x47, 0x05 },
	[TCMX_SENSE_SANITIZE_IN_PROGRESS] = { NOT_READY, 0x04, 0x1b },
	[TCMX_SENSE_COMMAND_ABORTED]	 = { ABORTED_COMMAND, 0x00, 0x00 },
	[TCMX_SENSE_MEDIUM_ERROR_WRITE]	 = { MEDIUM_ERROR, 0x0c, 0x00 },
};

/*
 * Sense data for @code in @buf (TCMX_SENSE_BUFFER_LEN bytes), with the
 * optional fields of @x; returns its length.  Both formats end with the
 * additional sense length at byte 7.
 */
u8 tcmx_build_sense(u8 *buf, bool desc, enum tcmx_sense code,
		    const struct tcmx_sense_extra *x)
{
	const struct tcmx_sense_row *row;

	if (WARN_ON_ONCE(code >= TCMX_SENSE_NR))
		code = TCMX_SENSE_INTERNAL_ERROR;
	row = &tcmx_sense_rows[code];
	memset(buf, 0, TCMX_SENSE_BUFFER_LEN);
	scsi_build_sense_buffer(desc, buf, row->key, row->asc, row->ascq);
	if (x && x->info_valid)
		scsi_set_sense_information(buf, TCMX_SENSE_BUFFER_LEN, x->info);
	if (x && x->field_valid)
		scsi_set_sense_field_pointer(buf, TCMX_SENSE_BUFFER_LEN,
					     x->field, x->bit, x->in_cdb);
	return 8 + buf[7];
}

static enum tcmx_status tcmx_check(struct tcmx_cmd *cmd, enum tcmx_sense code,
				   const struct tcmx_sense_extra *x)
{
	bool desc = cmd->dev && READ_ONCE(cmd->dev->d_sense);

	cmd->sense_len = tcmx_build_sense(cmd->sense, desc, code, x);
	cmd->status = SAM_STAT_CHECK_CONDITION;
	return TCMX_CHECK;
}

enum tcmx_status tcmx_sense(struct tcmx_cmd *cmd, enum tcmx_sense code)
{
	return tcmx_check(cmd, code, NULL);
}
EXPORT_SYMBOL_GPL(tcmx_sense);

enum tcmx_status tcmx_sense_info(struct tcmx_cmd *cmd, enum tcmx_sense code,
				 u64 info)
{
	const struct tcmx_sense_extra x = { .info_valid = true, .info = info };

	return tcmx_check(cmd, code, &x);
}
EXPORT_SYMBOL_GPL(tcmx_sense_info);

enum tcmx_status tcmx_sense_field(struct tcmx_cmd *cmd, enum tcmx_sense code,
				  bool in_cdb, u16 byte, u8 bit)
{
	const struct tcmx_sense_extra x = {
		.field_valid = true, .in_cdb = in_cdb, .field = byte, .bit = bit,
	};

	return tcmx_check(cmd, code, &x);
}
EXPORT_SYMBOL_GPL(tcmx_sense_field);

/*
 * Parameter data go only into a data-in buffer.  The command table has
 * refused any other direction before a command runs; this is the last
 * line of defence for a buffer user space may only read.
 */
static bool tcmx_cmd_data_in(struct tcmx_cmd *cmd)
{
	return cmd->sgl && !WARN_ON_ONCE(cmd->data_len &&
					 cmd->data_dir != DMA_FROM_DEVICE);
}

size_t tcmx_cmd_copy_to_sgl(struct tcmx_cmd *cmd, const void *buf, size_t len)
{
	len = min_t(size_t, len, cmd->data_len);
	cmd->xfer_len = 0;
	if (len && tcmx_cmd_data_in(cmd))
		cmd->xfer_len = sg_copy_from_buffer(cmd->sgl, cmd->sg_nents,
						    buf, len);
	return cmd->xfer_len;
}
EXPORT_SYMBOL_GPL(tcmx_cmd_copy_to_sgl);

/*
 * Copy @len bytes to offset @off of the data-in buffer, clipped at @limit
 * (an allocation length) and at the buffer's end.  For data built in
 * pieces; the caller sets cmd->xfer_len once it is done.
 */
size_t tcmx_cmd_copy_at(struct tcmx_cmd *cmd, const void *buf, size_t len,
			size_t off, size_t limit)
{
	limit = min_t(size_t, limit, cmd->data_len);
	if (off >= limit || !tcmx_cmd_data_in(cmd))
		return 0;
	return sg_pcopy_from_buffer(cmd->sgl, cmd->sg_nents, buf,
				    min(len, limit - off), off);
}
EXPORT_SYMBOL_GPL(tcmx_cmd_copy_at);

void tcmx_din_start(struct tcmx_cmd *cmd, struct tcmx_din *w, size_t limit)
{
	w->left = 0;
	w->off = 0;
	sg_miter_start(&w->miter, cmd->sgl, cmd->sg_nents,
		       SG_MITER_ATOMIC | SG_MITER_TO_SG);
	if (tcmx_cmd_data_in(cmd))
		w->left = min_t(size_t, limit, cmd->data_len);
}

void tcmx_din_put(struct tcmx_din *w, const void *buf, size_t len)
{
	len = min(len, w->left);
	while (len) {
		size_t n;

		/* a piece is let go only once it is full: consumed = length */
		if (w->off == w->miter.length) {
			if (!sg_miter_next(&w->miter)) {
				w->left = 0;
				return;
			}
			w->off = 0;
		}
		n = min(len, w->miter.length - w->off);
		memcpy(w->miter.addr + w->off, buf, n);
		w->off += n;
		w->left -= n;
		buf += n;
		len -= n;
	}
}

void tcmx_din_end(struct tcmx_din *w)
{
	sg_miter_stop(&w->miter);
}

/*
 * A parameter list: only from a data-out buffer.  What was taken from the
 * buffer counts as moved (cmd->xfer_len, at least @len), also when the
 * command then fails on its contents.
 */
size_t tcmx_cmd_copy_from_sgl(struct tcmx_cmd *cmd, void *buf, size_t len)
{
	len = min_t(size_t, len, cmd->data_len);
	if (!len || !cmd->sgl ||
	    WARN_ON_ONCE(cmd->data_dir != DMA_TO_DEVICE))
		return 0;
	len = sg_copy_to_buffer(cmd->sgl, cmd->sg_nents, buf, len);
	cmd->xfer_len = max_t(u32, cmd->xfer_len, len);
	return len;
}
EXPORT_SYMBOL_GPL(tcmx_cmd_copy_from_sgl);
