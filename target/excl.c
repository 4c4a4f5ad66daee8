// SPDX-License-Identifier: GPL-2.0
/*
 * The write-range exclusion (tcmx_core.h): one mutex per device orders the
 * core's emulated writes; a command that must be atomic (COMPARE AND
 * WRITE, ORWRITE, WRITE ATOMIC) also publishes its range, sets
 * TCMX_GATE_EXCL and waits for an RCU grace period.  Inline WRITEs run
 * inside their fabric's RCU read-side section: once the grace period is
 * over, each one either has finished or sees the bit and the range, and
 * tcmx_submit_cmd() hands one that overlaps to a worker that takes the
 * mutex, and so runs after the holder is done.  A backend whose worker
 * writes outside that section (rd's deferred writes) calls
 * tcmx_excl_resume() each time it enters a section again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include "tcmx_core.h"

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

/*
 * Keep every other write out of [@lba, @lba + @nr) until tcmx_excl_end().
 * synchronize_rcu() orders the range and the bit before it for every
 * reader it does not wait for.
 */
void tcmx_excl_begin(struct tcmx_dev *dev, u64 lba, u64 nr)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	tcmx_excl_lock(dev, lba, nr);
	WRITE_ONCE(cd->excl_lba, lba);
	WRITE_ONCE(cd->excl_nr, nr);
	set_bit(TCMX_GATE_EXCL, &dev->gate);
	synchronize_rcu_expedited();
}

void tcmx_excl_end(struct tcmx_dev *dev)
{
	clear_bit(TCMX_GATE_EXCL, &dev->gate);
	tcmx_excl_unlock(dev);
}

static bool tcmx_excl_overlaps(struct tcmx_dev *dev, u64 lba, u64 nr)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	u64 held = READ_ONCE(cd->excl_lba);

	return lba < held + READ_ONCE(cd->excl_nr) && held < lba + nr;
}

/*
 * While TCMX_GATE_EXCL is set, in the submitter's RCU section: whether
 * @cmd, decoded, is an inline WRITE that would run into the held range.
 * Only inline WRITEs need stopping here: the other write-type rows take
 * tcmx_excl_lock() in their deferred ->execute.
 */
bool tcmx_excl_waits(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u16 flags = cmd->desc->flags;

	return flags & TCMX_CMD_RW && flags & TCMX_CMD_WRITE &&
	       cmd->execute == dev->execute_rw &&
	       tcmx_excl_overlaps(dev, cmd->lba, cmd->nr_blocks);
}

/*
 * A section that began before tcmx_excl_begin()'s grace period ended is
 * waited for; one that begins after it sees the bit and the range.
 */
void tcmx_excl_resume(struct tcmx_dev *dev, u64 lba, u64 nr)
	__must_hold(RCU)
{
	while (unlikely(test_bit(TCMX_GATE_EXCL, &dev->gate)) &&
	       tcmx_excl_overlaps(dev, lba, nr)) {
		rcu_read_unlock();
		tcmx_excl_lock(dev, lba, nr);
		tcmx_excl_unlock(dev);
		rcu_read_lock();
	}
}
EXPORT_SYMBOL_GPL(tcmx_excl_resume);
