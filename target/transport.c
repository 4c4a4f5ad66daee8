// SPDX-License-Identifier: GPL-2.0
/*
 * The command life cycle: a fabric submits, the core finds the LUN, decodes
 * the CDB once, runs it, and hands the finished command back to the fabric.
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
 * A command that found its LUN through an ACL's lun_<m> (below
 * TCMX_LUN_MAP), counted there as in-tree: when it is looked up, with the
 * initiator's buffer.  The counters live for the caller's RCU section.
 */
static void tcmx_account_mapped(struct tcmx_cmd *cmd)
{
	struct tcmx_stats __percpu *st;

	if (unlikely(cmd->lun_id >= TCMX_LUN_MAP))
		return;
	st = READ_ONCE(cmd->nexus->map_stats[cmd->lun_id]);
	if (!st)
		return;
	this_cpu_inc(st->cmds);
	if (cmd->data_dir == DMA_FROM_DEVICE)
		this_cpu_add(st->read_bytes, cmd->data_len);
	else if (cmd->data_dir == DMA_TO_DEVICE)
		this_cpu_add(st->write_bytes, cmd->data_len);
}

/*
 * BUSY, RESERVATION CONFLICT, TASK ABORTED, TASK SET FULL, or a backend that completes a
 * command as still deferred.  None reports data moved: the whole buffer is
 * the residual.
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

/* A CHECK CONDITION has its SAM status and sense already; statistics. */
static void tcmx_finish_cmd(struct tcmx_cmd *cmd, enum tcmx_status status)
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
 * within ->execute_rw(), where the LUN cannot have dropped its last
 * reference yet: unlinking waits for an RCU grace period first.
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
void tcmx_complete_delayed(struct tcmx_cmd *cmd, enum tcmx_status status)
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
 * Finish a command a backend deferred (it returned TCMX_DEFERRED) and hand
 * it back to the fabric through ->queue_status().  Any context.
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

/* What a fabric's command carries over from its last run is cleared. */
static void tcmx_cmd_reset(struct tcmx_cmd *cmd)
{
	cmd->status = SAM_STAT_GOOD;
	cmd->sense_len = 0;
	cmd->xfer_len = 0;
	cmd->lba = 0;
	cmd->nr_blocks = 0;
	cmd->fua = false;
	cmd->pinned = false;
	cmd->delay_us = 0;
	cmd->overflow = 0;
	cmd->desc = NULL;
	cmd->start_ns = trace_tcmx_cmd_complete_enabled() ? ktime_get_ns() : 0;
}

/* an entry of @n's map: a LUN, its bit 0 TCMX_MAP_WP */
static void *tcmx_map_entry(struct tcmx_nexus *n, u64 id)
{
	if (likely(id < TCMX_LUN_MAP))
		return rcu_dereference(n->lun_map[id]);
	return xa_load(&n->luns, id);
}

struct tcmx_lun *tcmx_nexus_lun(struct tcmx_nexus *n, u64 id, bool *wp)
{
	void *entry = tcmx_map_entry(n, id);

	*wp = (unsigned long)entry & TCMX_MAP_WP;
	return tcmx_map_lun(entry);
}
EXPORT_SYMBOL_GPL(tcmx_nexus_lun);

/*
 * For a fabric's device scan (e.g. from ->slave_alloc): whether entry @id
 * of @n's map is going, ->pre_unmap() called or about to be, but still
 * published.  A scan must not make it a device again then: nothing would
 * remove that device.  Caller holds rcu_read_lock().  The barrier orders
 * the scan's own publication (its device on the host's list, done before)
 * against this load; it pairs with the one in acl.c's tcmx_map_drop(), so
 * a scan either sees the mark or ->pre_unmap() sees the scan's device.
 */
bool tcmx_nexus_unmapping(struct tcmx_nexus *n, u64 id)
{
	smp_mb();	/* the scan's device listed before the mark is read */
	return xa_get_mark(&n->luns, id, TCMX_MAP_GOING);
}
EXPORT_SYMBOL_GPL(tcmx_nexus_unmapping);

/*
 * Run a command; the caller holds rcu_read_lock(), which keeps the LUN alive
 * while the command runs inline.  Returns true when it finished inline:
 * status, sense and xfer_len are final, ->queue_status() is not called and
 * the fabric completes the command itself.  Returns false when it went to a
 * worker: ->queue_status() comes later (possibly before this returns, on
 * another CPU), and the fabric must not touch the command until then.
 *
 * Top to bottom: the LUN, the command's row, the gate (one load while
 * nothing is pending), the decoder, the exclusion of a held range for a
 * decoded READ or WRITE, then the row's ->execute, inline or in a worker.
 */
bool tcmx_submit_cmd(struct tcmx_cmd *cmd)
{
	const struct tcmx_cmd_desc *d;
	enum tcmx_status status = TCMX_GOOD;
	unsigned long gate = 0;
	void *entry;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "command submitted outside an RCU read-side section");
	tcmx_cmd_reset(cmd);

	/*
	 * Mapped with its device set; gone only after a grace period.  A
	 * write-protected mapping adds the gate's write-protect bit.
	 */
	entry = tcmx_map_entry(cmd->nexus, cmd->lun_id);
	cmd->lun = tcmx_map_lun(entry);
	cmd->dev = likely(cmd->lun) ? cmd->lun->dev : NULL;
	d = tcmx_cdb_row(cmd->cdb);
	if (likely(cmd->dev)) {
		gate = READ_ONCE(cmd->dev->gate) |
		       ((unsigned long)entry & TCMX_MAP_WP) << TCMX_GATE_WP;
		tcmx_account_mapped(cmd);
	}
	if (unlikely(gate))
		status = tcmx_gate(cmd, d, gate);
	if (likely(status == TCMX_GOOD))
		status = tcmx_parse_cdb(cmd, d);
	if (unlikely(gate & BIT(TCMX_GATE_EXCL)) && status == TCMX_GOOD &&
	    tcmx_excl_waits(cmd)) {
		tcmx_defer(cmd, tcmx_excl_rw);
		return false;
	}
	trace_tcmx_cmd_submit(cmd);
	if (likely(status == TCMX_GOOD))
		status = tcmx_cmd_defers(cmd, d) ? tcmx_defer(cmd, cmd->execute) :
						   cmd->execute(cmd);
	/* deferred: the command may be complete already, touch nothing */
	if (unlikely(status == TCMX_DEFERRED))
		return false;
	tcmx_finish_cmd(cmd, status);
	return true;
}
EXPORT_SYMBOL_GPL(tcmx_submit_cmd);
