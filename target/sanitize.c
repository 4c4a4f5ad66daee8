// SPDX-License-Identifier: GPL-2.0
/*
 * A SANITIZE that lasts (SBC-4 4.11), and the commands the core holds.
 *
 * A RAM disk sanitizes in milliseconds.  A test of what an initiator does
 * while a sanitize runs (libiscsi's Sanitize.Reset; a multipath or cluster
 * stack's handling of NOT READY) needs one that lasts: inject/sanitize_ms
 * under the device makes every SANITIZE an operation of that many
 * milliseconds.  The medium is cleared at once, under the write exclusion
 * as before; the operation then stays in progress until the time is up:
 * TCMX_GATE_SANITIZE is set, and the gate answers NOT READY, SANITIZE IN
 * PROGRESS to every command but INQUIRY, REPORT LUNS and REQUEST SENSE
 * (TCMX_CMD_SANITIZE_OK), which reports it.  Neither task management nor
 * an I_T nexus loss stops the operation; it ends with its time, or with
 * the device.  A logical unit reset aborts the held commands of every
 * I_T nexus (SAM-5 5.6), the others' with TASK ABORTED while TAS is 1.
 *
 * SANITIZE with IMMED answers once the operation has started; without it,
 * the command is held until the operation ends: it is "parked" here, on a
 * list that task management (tcmx_abort_cmd()) and the teardown paths
 * (a nexus's end, a LUN's drain, PREEMPT AND ABORT) search, so that an
 * aborted SANITIZE comes back at once, with ABORTED COMMAND, and nothing
 * waits for the operation's end.  inject/fault stuck (inject.c) parks
 * commands on the same list, with nobody waiting: whoever aborts one
 * completes it.  The list and every parked command's state are under one
 * spinlock: a device has at most one SANITIZE parked (the operation
 * refuses a second) and as many stuck commands as a test programs, and
 * none of it is on a fast path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "itl.h"
#include "sanitize.h"

/* the longest operation inject/sanitize_ms programs: one hour */
#define SANITIZE_MS_MAX		(3600U * 1000U)
#define SANITIZE_IMMED		0x80	/* CDB byte 1 */

/* how a held command comes back: its parked_end */
enum parked_end {
	PARKED_ENDED = 1,	/* its operation ended: GOOD */
	PARKED_ABORTED,		/* ABORTED COMMAND (its own nexus discards it) */
	PARKED_TASK_ABORTED,	/* another nexus's reset, TAS=1: TASK ABORTED */
};

/*
 * The held commands, by their ->parked: a SANITIZE's waiter sleeps on
 * parked_wq until its parked_end is set; a stuck command (inject.c) has
 * nobody waiting and is completed by whoever releases it.
 */
static DEFINE_SPINLOCK(parked_lock);
static LIST_HEAD(parked_cmds);
static DECLARE_WAIT_QUEUE_HEAD(parked_wq);

/*
 * PARKED_SANITIZE: a device's SANITIZE waiters only; PARKED_DEV: all;
 * PARKED_ENTRY: a nexus's, through its map entry @id.
 */
enum parked_key { PARKED_CMD, PARKED_NEXUS, PARKED_LUN, PARKED_ITL,
		  PARKED_DEV, PARKED_SANITIZE, PARKED_ENTRY };

static const void *parked_key_of(struct tcmx_cmd *cmd, enum parked_key kind,
				 u64 id)
{
	switch (kind) {
	case PARKED_ENTRY:
		return cmd->lun_id == id ? cmd->nexus : NULL;
	case PARKED_CMD:
		return cmd;
	case PARKED_NEXUS:
		return cmd->nexus;
	case PARKED_LUN:
		return cmd->lun;
	case PARKED_ITL:
		return cmd->itl;
	case PARKED_SANITIZE:
		return cmd->stuck ? NULL : cmd->dev;
	default:
		return cmd->dev;
	}
}

/* aborted from another I_T nexus: TASK ABORTED while TAS is 1 (SAM-5) */
static enum parked_end parked_end_other(struct tcmx_dev *dev)
{
	return READ_ONCE(dev->attrib.emulate_tas) ? PARKED_TASK_ABORTED :
						    PARKED_ABORTED;
}

static enum tcmx_status parked_status(struct tcmx_cmd *cmd, u8 end)
{
	if (end == PARKED_ENDED)
		return TCMX_GOOD;
	if (end == PARKED_TASK_ABORTED)
		return TCMX_TASK_ABORTED;
	return tcmx_sense(cmd, TCMX_SENSE_COMMAND_ABORTED);
}

/*
 * Hand back, as @end says, the held commands whose command, nexus, LUN,
 * I_T_L nexus or device is @key: a waiter is woken, a stuck command
 * completed here, after the lock.
 */
static void parked_release(enum parked_key kind, const void *key, u64 id,
			   enum parked_end end)
{
	struct tcmx_cmd *cmd, *next;
	LIST_HEAD(stuck);
	unsigned long flags;
	bool any = false;

	spin_lock_irqsave(&parked_lock, flags);
	list_for_each_entry_safe(cmd, next, &parked_cmds, parked) {
		if (parked_key_of(cmd, kind, id) != key)
			continue;
		if (cmd->stuck) {
			list_move_tail(&cmd->parked, &stuck);
			cmd->parked_end = end;
			continue;
		}
		list_del_init(&cmd->parked);
		/* the waiter may return from here on */
		WRITE_ONCE(cmd->parked_end, end);
		any = true;
	}
	spin_unlock_irqrestore(&parked_lock, flags);
	if (any)
		wake_up_all(&parked_wq);
	list_for_each_entry_safe(cmd, next, &stuck, parked) {
		list_del_init(&cmd->parked);
		tcmx_complete_cmd(cmd, parked_status(cmd, cmd->parked_end));
	}
}

/*
 * The operation's time is up: commands run again.  A SANITIZE that tests
 * the bit under parked_lock after it is cleared does not park; one that
 * parked before is on the list when the release below searches it.
 */
static void sanitize_end_work(struct work_struct *work)
{
	struct tcmx_core_dev *cd = container_of(to_delayed_work(work),
						struct tcmx_core_dev,
						sanitize_end);

	clear_bit(TCMX_GATE_SANITIZE, &cd->dev.gate);
	parked_release(PARKED_SANITIZE, &cd->dev, 0, PARKED_ENDED);
}

enum tcmx_status tcmx_sanitize_begin(struct tcmx_cmd *cmd)
{
	struct tcmx_core_dev *cd = tcmx_core(cmd->dev);
	u32 ms = READ_ONCE(cd->sanitize_ms);
	unsigned long flags;
	bool running;

	if (!ms)
		return TCMX_GOOD;
	spin_lock_irqsave(&parked_lock, flags);
	running = test_and_set_bit(TCMX_GATE_SANITIZE, &cmd->dev->gate);
	if (!running)
		queue_delayed_work(tcmx_wq, &cd->sanitize_end,
				   msecs_to_jiffies(ms));
	spin_unlock_irqrestore(&parked_lock, flags);
	/* another SANITIZE passed the gate before this one set the bit */
	if (running)
		return tcmx_sense(cmd, TCMX_SENSE_SANITIZE_IN_PROGRESS);
	return TCMX_GOOD;
}

/*
 * Whether the LUN the command pinned is being drained, or the map entry
 * it came through is going or gone (another LUN, or the same one mapped
 * again with a new I_T_L nexus): then the command is not held, as the
 * drain or the entry's end would wait for it.  acl.c searches the list
 * for the entry's commands once it is marked going and once it is erased,
 * so a command held before either pass is found by it, and one that tests
 * this after it sees the mark or the erasure.  (A nexus's end and
 * PREEMPT AND ABORT search the list again while they wait.)
 */
static bool parked_would_block(struct tcmx_cmd *cmd)
{
	struct tcmx_nexus *n = cmd->nexus;

	return percpu_ref_is_dying(&cmd->lun->ref) ||
	       xa_get_mark(&n->luns, cmd->lun_id, TCMX_MAP_GOING) ||
	       tcmx_map_lun(xa_load(&n->luns, cmd->lun_id)) != cmd->lun ||
	       !cmd->itl || xa_load(&n->itls, cmd->lun_id) != cmd->itl;
}

enum tcmx_status tcmx_sanitize_wait(struct tcmx_cmd *cmd,
				    enum tcmx_status status)
{
	unsigned long flags;

	if (status != TCMX_GOOD || cmd->cdb[1] & SANITIZE_IMMED)
		return status;
	spin_lock_irqsave(&parked_lock, flags);
	if (!test_bit(TCMX_GATE_SANITIZE, &cmd->dev->gate)) {
		spin_unlock_irqrestore(&parked_lock, flags);
		return TCMX_GOOD;	/* no time programmed, or it is up */
	}
	if (parked_would_block(cmd)) {
		spin_unlock_irqrestore(&parked_lock, flags);
		return tcmx_sense(cmd, TCMX_SENSE_COMMAND_ABORTED);
	}
	cmd->stuck = false;
	cmd->parked_end = 0;
	list_add_tail(&cmd->parked, &parked_cmds);
	spin_unlock_irqrestore(&parked_lock, flags);

	/* no hung-task report for an hour-long SANITIZE: TASK_IDLE */
	wait_event_idle(parked_wq, READ_ONCE(cmd->parked_end));
	return parked_status(cmd, cmd->parked_end);
}

/*
 * inject/fault stuck: hold @cmd, pinned, until task management or a
 * teardown path aborts it.  False, and nothing held, on a LUN being
 * drained or a map entry going.  From ->execute_rw's context (process or
 * softirq; parked_lock is a sleeping lock on PREEMPT_RT).
 */
bool tcmx_park_stuck(struct tcmx_cmd *cmd)
{
	unsigned long flags;
	bool parked = false;

	spin_lock_irqsave(&parked_lock, flags);
	if (!parked_would_block(cmd)) {
		cmd->stuck = true;
		cmd->parked_end = 0;
		list_add_tail(&cmd->parked, &parked_cmds);
		parked = true;
	}
	spin_unlock_irqrestore(&parked_lock, flags);
	return parked;
}

/* aborted: ABORTED COMMAND, which the aborting nexus discards */
static void parked_abort(enum parked_key kind, const void *key)
{
	parked_release(kind, key, 0, PARKED_ABORTED);
}

/*
 * A fabric's task management: @cmd, submitted and not yet handed back,
 * is aborted.  A command the core holds (a SANITIZE waiting for its
 * operation's end) comes back at once through ->queue_status(); any other
 * finishes as it would have.  @cmd is only compared, never read: it may
 * have come back meanwhile.  Process context.
 */
void tcmx_abort_cmd(struct tcmx_cmd *cmd)
{
	parked_abort(PARKED_CMD, cmd);
}
EXPORT_SYMBOL_GPL(tcmx_abort_cmd);

void tcmx_parked_abort_nexus(struct tcmx_nexus *n)
{
	parked_abort(PARKED_NEXUS, n);
}

void tcmx_parked_abort_lun(struct tcmx_lun *lun)
{
	parked_abort(PARKED_LUN, lun);
}

/*
 * Map entry @id of @n is going (acl.c: before ->pre_unmap(), which may
 * wait for the entry's commands, and again once it is erased): its held
 * commands come back, and none is held after the second pass
 * (parked_would_block() sees the mark, or the entry gone).
 */
void tcmx_parked_abort_entry(struct tcmx_nexus *n, u64 id)
{
	parked_release(PARKED_ENTRY, n, id, PARKED_ABORTED);
}

/*
 * PREEMPT AND ABORT: @itl's held commands; those of another I_T nexus
 * than the preempting one (@other) with TASK ABORTED while TAS is 1.
 */
void tcmx_parked_abort_itl(struct tcmx_itl *itl, bool other)
{
	parked_release(PARKED_ITL, itl, 0,
		       other ? parked_end_other(itl->dev) : PARKED_ABORTED);
}

/*
 * A reset of the logical unit, through another I_T nexus than the held
 * commands' (the resetting one's own came back first): SAM-5 5.6 answers
 * them with TASK ABORTED while the control page's TAS is 1.
 */
void tcmx_parked_abort_dev(struct tcmx_dev *dev)
{
	parked_release(PARKED_DEV, dev, 0, parked_end_other(dev));
}

/* inject/sanitize_ms (inject.c has the directory) */
ssize_t tcmx_sanitize_ms_show(struct tcmx_core_dev *cd, char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(cd->sanitize_ms));
}

ssize_t tcmx_sanitize_ms_store(struct tcmx_core_dev *cd, const char *page,
			       size_t count)
{
	u32 val;

	if (tcmx_cfs_u32(page, count, &val) || val > SANITIZE_MS_MAX) {
		pr_err("%s: inject/sanitize_ms: need 0 (off) to %u milliseconds\n",
		       tcmx_dev_name(&cd->dev), SANITIZE_MS_MAX);
		return -EINVAL;
	}
	/* the next SANITIZE takes it; one in progress keeps its end */
	WRITE_ONCE(cd->sanitize_ms, val);
	return count;
}

void tcmx_sanitize_dev_init(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	INIT_DELAYED_WORK(&cd->sanitize_end, sanitize_end_work);
}

/* the device's release: no command is parked, nothing runs after this */
void tcmx_sanitize_dev_exit(struct tcmx_dev *dev)
{
	cancel_delayed_work_sync(&tcmx_core(dev)->sanitize_end);
}
