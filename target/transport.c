// SPDX-License-Identifier: GPL-2.0
/*
 * The command life cycle: a fabric submits, the core finds the LUN, decodes
 * the CDB once, runs it, and hands the finished command back to the fabric.
 *
 * The fast path takes no lock and allocates nothing: the LUN comes from the
 * TPG's xarray under RCU and is pinned with a per-CPU reference, statistics
 * are per CPU, and a backend that finishes inline (rd_mcp does) completes
 * the command in the submitting context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/percpu.h>
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"

struct tcmx_sense_code {
	u8 key;
	u8 asc;
	u8 ascq;
};

/* The one place that turns an outcome into sense data. */
static const struct tcmx_sense_code tcmx_sense_codes[TCMX_SENSE_MAX] = {
	[TCMX_SENSE_INVALID_OPCODE]	 = { ILLEGAL_REQUEST, 0x20, 0x00 },
	[TCMX_SENSE_INVALID_CDB_FIELD]	 = { ILLEGAL_REQUEST, 0x24, 0x00 },
	[TCMX_SENSE_LBA_OUT_OF_RANGE]	 = { ILLEGAL_REQUEST, 0x21, 0x00 },
	[TCMX_SENSE_LUN_NOT_SUPPORTED]	 = { ILLEGAL_REQUEST, 0x25, 0x00 },
	[TCMX_SENSE_SAVING_NOT_SUPPORTED] = { ILLEGAL_REQUEST, 0x39, 0x00 },
	[TCMX_SENSE_SPACE_ALLOC_FAILED]	 = { DATA_PROTECT, 0x27, 0x07 },
	[TCMX_SENSE_INTERNAL_ERROR]	 = { HARDWARE_ERROR, 0x44, 0x00 },
};

/* Fixed-format (0x70) sense data, current error. */
void tcmx_cmd_set_sense(struct tcmx_cmd *cmd, enum tcmx_sense sense)
{
	const struct tcmx_sense_code *sc;
	u8 *buf = cmd->sense;

	switch (sense) {
	case TCMX_SENSE_NONE:
		cmd->status = SAM_STAT_GOOD;
		return;
	case TCMX_SENSE_BUSY:
		cmd->status = SAM_STAT_BUSY;
		return;
	case TCMX_SENSE_DEFERRED:
	case TCMX_SENSE_MAX:
		WARN_ON_ONCE(1);
		sense = TCMX_SENSE_INTERNAL_ERROR;
		break;
	default:
		break;
	}
	sc = &tcmx_sense_codes[sense];
	memset(buf, 0, TCMX_FIXED_SENSE_LEN);
	buf[0] = 0x70;
	buf[2] = sc->key;
	buf[7] = TCMX_FIXED_SENSE_LEN - 8;	/* additional sense length */
	buf[12] = sc->asc;
	buf[13] = sc->ascq;
	cmd->sense_len = TCMX_FIXED_SENSE_LEN;
	cmd->status = SAM_STAT_CHECK_CONDITION;
}
EXPORT_SYMBOL_GPL(tcmx_cmd_set_sense);

size_t tcmx_cmd_copy_to_sgl(struct tcmx_cmd *cmd, const void *buf, size_t len)
{
	len = min_t(size_t, len, cmd->data_len);
	if (!len || !cmd->sgl) {
		cmd->xfer_len = 0;
		return 0;
	}
	cmd->xfer_len = sg_copy_from_buffer(cmd->sgl, cmd->sg_nents, buf, len);
	return cmd->xfer_len;
}
EXPORT_SYMBOL_GPL(tcmx_cmd_copy_to_sgl);

/* this_cpu ops: no preemption toggle, one instruction each on x86 */
static void tcmx_account(struct tcmx_cmd *cmd)
{
	struct tcmx_stats __percpu *st = cmd->dev->stats;

	this_cpu_inc(st->cmds);
	if (cmd->data_dir == DMA_FROM_DEVICE)
		this_cpu_add(st->read_bytes, cmd->xfer_len);
	else if (cmd->data_dir == DMA_TO_DEVICE)
		this_cpu_add(st->write_bytes, cmd->xfer_len);
}

/* Sense from the outcome, statistics, drop the LUN pin. */
static void tcmx_finish_cmd(struct tcmx_cmd *cmd, enum tcmx_sense sense)
{
	struct tcmx_lun *lun = cmd->lun;

	if (unlikely(sense != TCMX_SENSE_NONE))
		tcmx_cmd_set_sense(cmd, sense);
	if (likely(lun)) {
		tcmx_account(cmd);
		percpu_ref_put(&lun->ref);
	}
}

/*
 * Finish a command a backend deferred (it returned TCMX_SENSE_DEFERRED) and
 * hand it back to the fabric through ->queue_status().  Any context.
 */
void tcmx_complete_cmd(struct tcmx_cmd *cmd, enum tcmx_sense sense)
{
	tcmx_finish_cmd(cmd, sense);
	cmd->tpg->ops->queue_status(cmd);
}
EXPORT_SYMBOL_GPL(tcmx_complete_cmd);

/*
 * Run a command.  Returns true when it finished inline: status, sense and
 * xfer_len are final, ->queue_status() is not called and the fabric
 * completes the command itself.  Returns false when a backend deferred it:
 * ->queue_status() comes later (possibly before this returns, on another
 * CPU), and the fabric must not touch the command until then.
 */
bool tcmx_submit_cmd(struct tcmx_cmd *cmd)
{
	struct tcmx_lun *lun;
	enum tcmx_sense sense;

	cmd->status = SAM_STAT_GOOD;
	cmd->sense_len = 0;
	cmd->xfer_len = 0;
	cmd->fua = false;
	cmd->lun = NULL;
	cmd->dev = NULL;

	rcu_read_lock();
	lun = xa_load(&cmd->tpg->luns, cmd->lun_id);
	if (likely(lun && percpu_ref_tryget_live(&lun->ref))) {
		cmd->lun = lun;
		cmd->dev = lun->dev;
	}
	rcu_read_unlock();

	if (likely(cmd->lun))
		sense = tcmx_parse_cdb(cmd);
	else
		sense = tcmx_parse_cdb_nolun(cmd);
	if (likely(sense == TCMX_SENSE_NONE))
		sense = cmd->execute(cmd);
	if (unlikely(sense == TCMX_SENSE_DEFERRED))
		return false;
	tcmx_finish_cmd(cmd, sense);
	return true;
}
EXPORT_SYMBOL_GPL(tcmx_submit_cmd);
