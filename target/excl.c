// SPDX-License-Identifier: GPL-2.0
/*
 * The write-range exclusion (tcmx_core.h): one mutex per device orders the
 * core's emulated writes; a command that must be atomic (COMPARE AND
 * WRITE, ORWRITE, WRITE ATOMIC) also publishes a window that covers its
 * range and sets TCMX_GATE_EXCL.  Inline READs and WRITEs run inside their
 * fabric's RCU read-side section, and tcmx_submit_cmd() hands one that
 * sees the bit and overlaps the window to a worker that takes the mutex,
 * and so runs before or after the holder, never beside it.
 *
 * What a holder waits for, and when: a submitter that loaded the gate
 * before the bit was set, or checked an older window, may still be
 * running.  A grace period that begins after the bit and the window are
 * stored outlives all of them.  A holder only waits for one when the
 * bit goes from 0 to 1 or the window grows to a block it did not cover
 * before; a smaller window (the next holder's range inside it) needs none:
 * every submitter that checked the larger one deferred or missed it.  The
 * bit and the window stay for TCMX_EXCL_LINGER after the last holder, so
 * that a run of them (a compare-and-swap loop, several initiators' locks
 * on one block) waits for one grace period, not one each, and never an
 * expedited one.  The cookie of get_state_synchronize_rcu() taken after
 * the last growth says whether that grace period is over.
 *
 * A backend whose worker writes outside such a section (rd's deferred
 * writes) calls tcmx_excl_resume() each time it enters a section again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include "tcmx_core.h"

/* how long the bit and the window outlive the last holder */
#define TCMX_EXCL_LINGER	(HZ / 50 ?: 1)

void tcmx_excl_lock(struct tcmx_dev *dev, u64 lba, u64 nr)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	mutex_lock(&cd->excl_mutex);
}

void tcmx_excl_unlock(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	mutex_unlock(&cd->excl_mutex);
}
EXPORT_SYMBOL_GPL(tcmx_excl_unlock);

/* No holder for TCMX_EXCL_LINGER: the fast path's one load again. */
static void tcmx_excl_idle(struct work_struct *work)
{
	struct tcmx_core_dev *cd = container_of(to_delayed_work(work),
						struct tcmx_core_dev,
						excl_idle);

	mutex_lock(&cd->excl_mutex);
	clear_bit(TCMX_GATE_EXCL, &cd->dev.gate);
	mutex_unlock(&cd->excl_mutex);
}

void tcmx_excl_init(struct tcmx_core_dev *cd)
{
	mutex_init(&cd->excl_mutex);
	INIT_DELAYED_WORK(&cd->excl_idle, tcmx_excl_idle);
}

void tcmx_excl_destroy(struct tcmx_core_dev *cd)
{
	cancel_delayed_work_sync(&cd->excl_idle);
	mutex_destroy(&cd->excl_mutex);
}

/*
 * Keep every other write, and every READ, out of [@lba, @lba + @nr) until
 * tcmx_excl_end().  The window is [excl_lba, excl_end): a submitter that
 * reads one bound before and one after a change still sees a window that
 * covers the old one or the new one, and either way is waited for.
 */
void tcmx_excl_begin(struct tcmx_dev *dev, u64 lba, u64 nr)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	bool grows;

	tcmx_excl_lock(dev, lba, nr);
	grows = !test_bit(TCMX_GATE_EXCL, &dev->gate) ||
		lba < cd->excl_lba || lba + nr > cd->excl_end;
	WRITE_ONCE(cd->excl_lba, lba);
	WRITE_ONCE(cd->excl_end, lba + nr);
	if (grows) {
		set_bit(TCMX_GATE_EXCL, &dev->gate);
		/* full barrier first: the window and the bit come before */
		cd->excl_cookie = get_state_synchronize_rcu();
	}
	/* at once if that grace period is over */
	cond_synchronize_rcu(cd->excl_cookie);
}

void tcmx_excl_end(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	mod_delayed_work(system_wq, &cd->excl_idle, TCMX_EXCL_LINGER);
	tcmx_excl_unlock(dev);
}

static bool tcmx_excl_overlaps(struct tcmx_dev *dev, u64 lba, u64 nr)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	return lba < READ_ONCE(cd->excl_end) &&
	       READ_ONCE(cd->excl_lba) < lba + nr;
}

/*
 * While TCMX_GATE_EXCL is set, in the submitter's RCU section: whether
 * @cmd, decoded, is an inline READ or WRITE that would run into the
 * window.  Only those need stopping here: the other write-type rows take
 * tcmx_excl_lock() in their deferred ->execute.  nr_blocks covers what a
 * READ moves (more than that, for a READ cut to its buffer).
 */
bool tcmx_excl_waits(struct tcmx_cmd *cmd)
{
	return cmd->desc->flags & TCMX_CMD_RW &&
	       cmd->execute != tcmx_execute_nop &&
	       tcmx_excl_overlaps(cmd->dev, cmd->lba, cmd->nr_blocks);
}

/*
 * A section that began before a holder's grace period ended is waited
 * for; one that begins after it sees the bit and the window.  While the
 * window overlaps [@lba, @lba + @nr), the next holder may begin without a
 * grace period: the caller keeps the mutex from here to the end of its
 * write (true: it calls tcmx_excl_unlock() then, outside the section).
 */
bool tcmx_excl_resume(struct tcmx_dev *dev, u64 lba, u64 nr)
	__must_hold(RCU)
{
	if (likely(!test_bit(TCMX_GATE_EXCL, &dev->gate)) ||
	    !tcmx_excl_overlaps(dev, lba, nr))
		return false;
	rcu_read_unlock();
	tcmx_excl_lock(dev, lba, nr);
	rcu_read_lock();
	return true;
}
EXPORT_SYMBOL_GPL(tcmx_excl_resume);
