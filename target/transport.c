// SPDX-License-Identifier: GPL-2.0
/*
 * The command life cycle: a fabric submits, the core finds the LUN, decodes
 * the CDB once, runs it, and hands the finished command back to the fabric.
 *
 * The fast path takes no lock, allocates nothing and writes no shared
 * memory: the LUN comes from the TPG's array (or xarray) and stays alive for
 * the fabric's RCU read-side section, statistics are per CPU, and a backend
 * that finishes inline (rd_mcp does) completes the command in the submitting
 * context.  Only a command a backend defers takes a reference on its LUN.
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

/* Sense from the outcome, statistics. */
static void tcmx_finish_cmd(struct tcmx_cmd *cmd, enum tcmx_sense sense)
{
	if (unlikely(sense != TCMX_SENSE_NONE))
		tcmx_cmd_set_sense(cmd, sense);
	if (likely(cmd->lun))
		tcmx_account(cmd);
}

/*
 * A backend calls this before it hands @cmd to another context and returns
 * TCMX_SENSE_DEFERRED: it keeps the LUN (and so the device) from going away
 * once the fabric's RCU section ends, until tcmx_complete_cmd().  Only from
 * within ->execute_rw(), where the LUN cannot have dropped its last
 * reference yet: unlinking waits for an RCU grace period first.
 */
void tcmx_cmd_pin(struct tcmx_cmd *cmd)
{
	if (cmd->lun) {
		percpu_ref_get(&cmd->lun->ref);
		cmd->pinned = true;
	}
}
EXPORT_SYMBOL_GPL(tcmx_cmd_pin);

/*
 * Finish a command a backend deferred (it returned TCMX_SENSE_DEFERRED) and
 * hand it back to the fabric through ->queue_status().  Any context.
 */
void tcmx_complete_cmd(struct tcmx_cmd *cmd, enum tcmx_sense sense)
{
	struct tcmx_lun *lun = cmd->pinned ? cmd->lun : NULL;

	tcmx_finish_cmd(cmd, sense);
	cmd->tpg->ops->queue_status(cmd);
	/* the command may be reused from here on: only the saved LUN */
	if (lun)
		percpu_ref_put(&lun->ref);
}
EXPORT_SYMBOL_GPL(tcmx_complete_cmd);

static struct tcmx_lun *tcmx_lookup_lun(struct tcmx_tpg *tpg, u64 id)
{
	if (likely(id < TCMX_LUN_MAP))
		return rcu_dereference(tpg->lun_map[id]);
	return xa_load(&tpg->luns, id);
}

/*
 * Run a command; the caller holds rcu_read_lock(), which keeps the LUN alive
 * while the command runs inline.  Returns true when it finished inline:
 * status, sense and xfer_len are final, ->queue_status() is not called and
 * the fabric completes the command itself.  Returns false when a backend
 * deferred it: ->queue_status() comes later (possibly before this returns,
 * on another CPU), and the fabric must not touch the command until then.
 */
bool tcmx_submit_cmd(struct tcmx_cmd *cmd)
{
	struct tcmx_lun *lun;
	enum tcmx_sense sense;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "command submitted outside an RCU read-side section");
	cmd->status = SAM_STAT_GOOD;
	cmd->sense_len = 0;
	cmd->xfer_len = 0;
	cmd->fua = false;
	cmd->pinned = false;

	/* published with its device set; gone only after a grace period */
	lun = tcmx_lookup_lun(cmd->tpg, cmd->lun_id);
	cmd->lun = lun;
	if (likely(lun)) {
		cmd->dev = lun->dev;
		sense = tcmx_parse_cdb(cmd);
	} else {
		cmd->dev = NULL;
		sense = tcmx_parse_cdb_nolun(cmd);
	}
	if (likely(sense == TCMX_SENSE_NONE))
		sense = cmd->execute(cmd);
	if (unlikely(sense == TCMX_SENSE_DEFERRED)) {
		WARN_ON_ONCE(!cmd->pinned && cmd->lun);
		return false;
	}
	tcmx_finish_cmd(cmd, sense);
	return true;
}
EXPORT_SYMBOL_GPL(tcmx_submit_cmd);
