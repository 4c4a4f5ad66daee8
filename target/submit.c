// SPDX-License-Identifier: GPL-2.0
/*
 * A command's way in: a fabric submits, the core finds the LUN in the
 * nexus's map, takes the command through the gate, decodes the CDB once
 * and runs it, inline or in a worker; transport.c ends it.
 *
 * The fast path takes no lock, allocates nothing and writes no shared
 * memory: the LUN comes from the nexus's map (acl.c) and stays alive for
 * the fabric's RCU read-side section, and statistics are per CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/xarray.h>
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"
#include "trace.h"

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
 * A READ or WRITE that would run into the write exclusion's window: after
 * the holder, in a worker; inject/'s verdict, when a knob is set, first.
 */
static enum tcmx_status tcmx_submit_excl(struct tcmx_cmd *cmd)
{
	enum tcmx_status status = tcmx_inject_excl(cmd);

	return status == TCMX_GOOD ? tcmx_defer(cmd, tcmx_excl_rw) : status;
}

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
		status = tcmx_submit_excl(cmd);
		if (status == TCMX_DEFERRED)
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
