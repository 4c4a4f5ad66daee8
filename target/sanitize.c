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
 * waits for the operation's end.  The list and every parked command's
 * state are under one spinlock: a device has at most one parked command
 * (the operation refuses a second SANITIZE), so a search of the list is
 * short, and none of it is on a fast path.
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

/* how a held command comes back */
enum parked_end {
	PARKED_ENDED = 1,	/* its operation ended: GOOD */
	PARKED_ABORTED,		/* ABORTED COMMAND (its own nexus discards it) */
	PARKED_TASK_ABORTED,	/* another nexus's reset, TAS=1: TASK ABORTED */
};

/* a SANITIZE held until its operation ends, on the waiter's stack */
struct parked_cmd {
	struct list_head	node;
	struct tcmx_cmd		*cmd;
	struct tcmx_core_dev	*cd;
	enum parked_end		end;	/* 0 while held */
};

static DEFINE_SPINLOCK(parked_lock);
static LIST_HEAD(parked_cmds);
static DECLARE_WAIT_QUEUE_HEAD(parked_wq);

enum parked_key { PARKED_CMD, PARKED_NEXUS, PARKED_LUN, PARKED_ITL,
		  PARKED_DEV };

/*
 * Hand back, as @end says, the parked commands whose command, nexus, LUN,
 * I_T_L nexus or device is @key.
 */
static void parked_release(enum parked_key kind, const void *key,
			   enum parked_end end)
{
	struct parked_cmd *p, *next;
	bool any = false;

	spin_lock(&parked_lock);
	list_for_each_entry_safe(p, next, &parked_cmds, node) {
		const void *k = kind == PARKED_CMD ? (void *)p->cmd :
				kind == PARKED_NEXUS ? (void *)p->cmd->nexus :
				kind == PARKED_LUN ? (void *)p->cmd->lun :
				kind == PARKED_ITL ? (void *)p->cmd->itl :
				(void *)p->cd;

		if (k != key)
			continue;
		list_del_init(&p->node);
		/* the waiter may return from here on */
		WRITE_ONCE(p->end, end);
		any = true;
	}
	spin_unlock(&parked_lock);
	if (any)
		wake_up_all(&parked_wq);
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
	parked_release(PARKED_DEV, cd, PARKED_ENDED);
}

enum tcmx_status tcmx_sanitize_begin(struct tcmx_cmd *cmd)
{
	struct tcmx_core_dev *cd = tcmx_core(cmd->dev);
	u32 ms = READ_ONCE(cd->sanitize_ms);
	bool running;

	if (!ms)
		return TCMX_GOOD;
	spin_lock(&parked_lock);
	running = test_and_set_bit(TCMX_GATE_SANITIZE, &cmd->dev->gate);
	if (!running)
		queue_delayed_work(tcmx_wq, &cd->sanitize_end,
				   msecs_to_jiffies(ms));
	spin_unlock(&parked_lock);
	/* another SANITIZE passed the gate before this one set the bit */
	if (running)
		return tcmx_sense(cmd, TCMX_SENSE_SANITIZE_IN_PROGRESS);
	return TCMX_GOOD;
}

/*
 * Whether the LUN the command pinned is being drained: then the command
 * is not held, as the drain would wait for it.  (A nexus's end and
 * PREEMPT AND ABORT search the list again while they wait.)
 */
static bool parked_would_block(struct tcmx_cmd *cmd)
{
	return percpu_ref_is_dying(&cmd->lun->ref);
}

enum tcmx_status tcmx_sanitize_wait(struct tcmx_cmd *cmd,
				    enum tcmx_status status)
{
	struct tcmx_core_dev *cd = tcmx_core(cmd->dev);
	struct parked_cmd p = { .cmd = cmd, .cd = cd };

	if (status != TCMX_GOOD || cmd->cdb[1] & SANITIZE_IMMED)
		return status;
	spin_lock(&parked_lock);
	if (!test_bit(TCMX_GATE_SANITIZE, &cmd->dev->gate)) {
		spin_unlock(&parked_lock);
		return TCMX_GOOD;	/* no time programmed, or it is up */
	}
	if (parked_would_block(cmd)) {
		spin_unlock(&parked_lock);
		return tcmx_sense(cmd, TCMX_SENSE_COMMAND_ABORTED);
	}
	list_add_tail(&p.node, &parked_cmds);
	spin_unlock(&parked_lock);

	/* no hung-task report for an hour-long SANITIZE: TASK_IDLE */
	wait_event_idle(parked_wq, READ_ONCE(p.end));
	switch (p.end) {
	case PARKED_ENDED:
		return TCMX_GOOD;
	case PARKED_TASK_ABORTED:
		return TCMX_TASK_ABORTED;
	default:
		return tcmx_sense(cmd, TCMX_SENSE_COMMAND_ABORTED);
	}
}

/* aborted: ABORTED COMMAND, which the aborting nexus discards */
static void parked_abort(enum parked_key kind, const void *key)
{
	parked_release(kind, key, PARKED_ABORTED);
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

void tcmx_parked_abort_itl(struct tcmx_itl *itl)
{
	parked_abort(PARKED_ITL, itl);
}

/*
 * A reset of the logical unit, through another I_T nexus than the held
 * commands' (the resetting one's own came back first): SAM-5 5.6 answers
 * them with TASK ABORTED while the control page's TAS is 1.
 */
void tcmx_parked_abort_dev(struct tcmx_dev *dev)
{
	parked_release(PARKED_DEV, tcmx_core(dev),
		       READ_ONCE(dev->attrib.emulate_tas) ?
		       PARKED_TASK_ABORTED : PARKED_ABORTED);
}

/* ---- inject/ ------------------------------------------------------------ */

static struct tcmx_core_dev *inject_to_cd(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_core_dev,
			    inject_group);
}

static ssize_t tcmx_inject_sanitize_ms_show(struct config_item *item,
					    char *page)
{
	return sysfs_emit(page, "%u\n",
			  READ_ONCE(inject_to_cd(item)->sanitize_ms));
}

static ssize_t tcmx_inject_sanitize_ms_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct tcmx_core_dev *cd = inject_to_cd(item);
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
CONFIGFS_ATTR(tcmx_inject_, sanitize_ms);

static struct configfs_attribute *tcmx_inject_attrs[] = {
	&tcmx_inject_attr_sanitize_ms,
	NULL,
};

static const struct config_item_type tcmx_inject_type = {
	.ct_attrs	= tcmx_inject_attrs,
	.ct_owner	= THIS_MODULE,
};

void tcmx_sanitize_dev_init(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	INIT_DELAYED_WORK(&cd->sanitize_end, sanitize_end_work);
	tcmx_cfs_subdir(&dev->group, &cd->inject_group, "inject",
			&tcmx_inject_type);
}

/* the device's release: no command is parked, nothing runs after this */
void tcmx_sanitize_dev_exit(struct tcmx_dev *dev)
{
	cancel_delayed_work_sync(&tcmx_core(dev)->sanitize_end);
}
