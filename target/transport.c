// SPDX-License-Identifier: GPL-2.0
/*
 * The command life cycle, after submit.c: a command's end (inline, or by
 * tcmx_complete_cmd(), which hands it back to the fabric), the pinning and
 * deferral of a command that leaves its submitter's context, inject/'s
 * completion delay, and the tracepoints.
 *
 * The fast path takes no lock, allocates nothing and writes no shared
 * memory: the LUN comes from the nexus's map (acl.c) and stays alive for
 * the fabric's RCU read-side section, statistics are per CPU, and a backend
 * that finishes inline (rd_mcp does) completes the command in the submitting
 * context.  Only a command a backend defers takes a reference on its LUN.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched/mm.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <scsi/scsi_proto.h>
#include "itl.h"
#define CREATE_TRACE_POINTS
#include "trace.h"

EXPORT_TRACEPOINT_SYMBOL_GPL(tcmx_tmr);

/* this_cpu ops: no preemption toggle, one instruction each on x86 */
static void tcmx_account(struct tcmx_cmd *cmd)
{
	struct tcmx_stats __percpu *st = cmd->lun->stats;

	this_cpu_inc(st->cmds);
	if (cmd->data_dir == DMA_FROM_DEVICE)
		this_cpu_add(st->read_bytes, cmd->xfer_len);
	else if (cmd->data_dir == DMA_TO_DEVICE)
		this_cpu_add(st->write_bytes, cmd->xfer_len);
}

/*
 * BUSY, RESERVATION CONFLICT, TASK ABORTED, TASK SET FULL, or a backend
 * that completes a command as still deferred.  None reports data moved:
 * the whole buffer is the residual.
 */
static void tcmx_finish_odd(struct tcmx_cmd *cmd, enum tcmx_status status)
{
	cmd->xfer_len = 0;
	if (status == TCMX_BUSY) {
		cmd->status = SAM_STAT_BUSY;
		return;
	}
	if (status == TCMX_CONFLICT) {
		cmd->status = SAM_STAT_RESERVATION_CONFLICT;
		return;
	}
	if (status == TCMX_TASK_ABORTED) {
		cmd->status = SAM_STAT_TASK_ABORTED;
		return;
	}
	if (status == TCMX_TASK_SET_FULL) {
		cmd->status = SAM_STAT_TASK_SET_FULL;
		return;
	}
	WARN_ON_ONCE(1);
	tcmx_sense(cmd, TCMX_SENSE_INTERNAL_ERROR);
}

/*
 * The end of every command, inline (submit.c) or not: a CHECK CONDITION
 * has its SAM status and sense already; the odd statuses, statistics.
 */
void tcmx_finish_cmd(struct tcmx_cmd *cmd, enum tcmx_status status)
{
	BUILD_BUG_ON(TCMX_GOOD != 0 || TCMX_CHECK != 1);
	if (unlikely(status > TCMX_CHECK))
		tcmx_finish_odd(cmd, status);
	if (likely(cmd->lun))
		tcmx_account(cmd);
	if (trace_tcmx_cmd_complete_enabled())
		trace_tcmx_cmd_complete(cmd, cmd->start_ns ?
					ktime_get_ns() - cmd->start_ns : 0);
}

/*
 * A backend calls this before it hands @cmd to another context and returns
 * TCMX_DEFERRED: it keeps the LUN (and so the device) from going away
 * once the fabric's RCU section ends, until tcmx_complete_cmd().  Only from
 * the submitter's RCU section (->execute_rw(), inject/'s verdict), where
 * the LUN cannot have dropped its last reference yet: unlinking waits for
 * an RCU grace period first.
 */
void tcmx_cmd_pin(struct tcmx_cmd *cmd)
{
	if (cmd->lun) {
		percpu_ref_get(&cmd->lun->ref);
		/* tcmx_nexus_unregister() waits for it too */
		atomic_inc(&cmd->nexus->deferred);
		/* and PREEMPT AND ABORT, if its I_T_L nexus is preempted */
		cmd->itl = tcmx_itl_pin(cmd->nexus, cmd->lun_id, cmd->lun);
		cmd->pinned = true;
	}
}
EXPORT_SYMBOL_GPL(tcmx_cmd_pin);

static enum hrtimer_restart tcmx_delay_done(struct hrtimer *timer)
{
	struct tcmx_cmd *cmd = container_of(timer, struct tcmx_cmd,
					    delay_timer);

	tcmx_complete_cmd(cmd, cmd->delay_status);
	return HRTIMER_NORESTART;
}

/*
 * inject/'s completion delay (inject.c): @cmd, pinned and done with
 * @status, is handed back cmd->delay_us from now, from a soft hrtimer
 * (softirq context: ->queue_status() takes any).
 */
static void tcmx_complete_delayed(struct tcmx_cmd *cmd,
				  enum tcmx_status status)
{
	u64 ns = (u64)cmd->delay_us * NSEC_PER_USEC;

	cmd->delay_us = 0;
	cmd->delay_status = status;
	hrtimer_init(&cmd->delay_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	cmd->delay_timer.function = tcmx_delay_done;
	hrtimer_start(&cmd->delay_timer, ns_to_ktime(ns),
		      HRTIMER_MODE_REL_SOFT);
}

/*
 * Finish a command a backend deferred (it returned TCMX_DEFERRED), or a
 * pinned one inject/ delays, and hand it back to the fabric through
 * ->queue_status() (cmd->delay_us later, if set).  Any context.
 */
void tcmx_complete_cmd(struct tcmx_cmd *cmd, enum tcmx_status status)
{
	struct tcmx_lun *lun = cmd->pinned ? cmd->lun : NULL;
	struct tcmx_itl *itl = cmd->pinned ? cmd->itl : NULL;
	struct tcmx_nexus *n = cmd->nexus;

	WARN_ON_ONCE(cmd->lun && !cmd->pinned);
	/* a write inject/ delays, which its backend deferred */
	if (unlikely(cmd->delay_us)) {
		tcmx_complete_delayed(cmd, status);
		return;
	}
	tcmx_finish_cmd(cmd, status);
	cmd->tpg->ops->queue_status(cmd);
	/* the command may be reused from here on: only the saved LUN, nexus */
	if (!lun)
		return;
	/* PREEMPT AND ABORT may wait for its I_T_L nexus's commands */
	tcmx_itl_unpin(itl);
	if (atomic_dec_and_test(&n->deferred))
		wake_up_var(&n->deferred);
	percpu_ref_put(&lun->ref);
}
EXPORT_SYMBOL_GPL(tcmx_complete_cmd);

/* deferred commands; also device drops (device.c) */
struct workqueue_struct *tcmx_wq;

/* no I/O from reclaim: a swap or file system may live on the device */
static void tcmx_defer_work(struct work_struct *work)
{
	struct tcmx_cmd *cmd = container_of(work, struct tcmx_cmd, work);
	unsigned int noio = memalloc_noio_save();
	enum tcmx_status status = cmd->execute(cmd);

	if (WARN_ON_ONCE(status == TCMX_DEFERRED))
		status = tcmx_sense(cmd, TCMX_SENSE_INTERNAL_ERROR);
	tcmx_complete_cmd(cmd, status);
	memalloc_noio_restore(noio);
}

enum tcmx_status tcmx_defer(struct tcmx_cmd *cmd, tcmx_execute_fn fn)
{
	tcmx_cmd_pin(cmd);
	cmd->execute = fn;
	INIT_WORK(&cmd->work, tcmx_defer_work);
	queue_work(tcmx_wq, &cmd->work);
	return TCMX_DEFERRED;
}
EXPORT_SYMBOL_GPL(tcmx_defer);

int __init tcmx_transport_init(void)
{
	tcmx_wq = alloc_workqueue("tcmx", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return tcmx_wq ? 0 : -ENOMEM;
}

void tcmx_transport_exit(void)
{
	destroy_workqueue(tcmx_wq);
}
