// SPDX-License-Identifier: GPL-2.0
/*
 * What a fabric's resets do to the logical units behind a TPG (SAM-5
 * 5.14, 7.x): a LOGICAL UNIT RESET ends the unit's SPC-2 reservation
 * (pr.c) and leaves 29/03 on every I_T nexus of the unit; target, bus and
 * host resets leave 29/00 on each LUN they reset (ua.c's queues).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include "tcmx_core.h"

/* cd->ua_reset_lun of every device */
static DEFINE_SPINLOCK(tcmx_reset_lock);

/* LUN RESET, after tcmx_ua_reset(): 29/03 for every I_T nexus of the LU */
static void tcmx_ua_reset_work(struct work_struct *work)
{
	struct tcmx_core_dev *cd = container_of(work, struct tcmx_core_dev,
						ua_reset_work);
	struct tcmx_lun *lun;

	spin_lock_irq(&tcmx_reset_lock);
	lun = cd->ua_reset_lun;
	cd->ua_reset_lun = NULL;
	spin_unlock_irq(&tcmx_reset_lock);
	mutex_lock(&cd->lock);
	tcmx_ua_dev(&cd->dev, NULL, TCMX_SENSE_UA_DEVICE_RESET);
	mutex_unlock(&cd->lock);
	percpu_ref_put(&lun->ref);
}

void tcmx_ua_dev_init(struct tcmx_dev *dev)
{
	INIT_WORK(&tcmx_core(dev)->ua_reset_work, tcmx_ua_reset_work);
}

/*
 * A LOGICAL UNIT RESET of @lun, which exports @dev (in an RCU section):
 * as in-tree (core_tmr_lun_reset(), target_dev_ua_allocate()), it ends an
 * SPC-2 reservation and every I_T nexus of the logical unit gets 29/03
 * BUS DEVICE RESET FUNCTION OCCURRED: @lun now, the others from a work
 * that takes the device's lock (its LUN list is not RCU), holding a
 * reference of @lun meanwhile.
 */
static void tcmx_ua_lun_reset(struct tcmx_lun *lun, struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	unsigned long flags;

	tcmx_pr_lun_reset(dev);
	tcmx_ua_add(lun, dev, TCMX_SENSE_UA_DEVICE_RESET);
	spin_lock_irqsave(&tcmx_reset_lock, flags);
	if (!cd->ua_reset_lun && percpu_ref_tryget_live(&lun->ref)) {
		cd->ua_reset_lun = lun;
		queue_work(tcmx_wq, &cd->ua_reset_work);
	}
	spin_unlock_irqrestore(&tcmx_reset_lock, flags);
}

/*
 * A reset of @lun_id of @tpg (LOGICAL UNIT RESET), or of all its LUNs
 * (TCMX_ALL_LUNS: target, bus and host resets, which leave POWER ON,
 * RESET, OR BUS DEVICE RESET OCCURRED on each).
 */
void tcmx_ua_reset(struct tcmx_tpg *tpg, u64 lun_id)
{
	struct tcmx_lun *lun;
	unsigned long index;

	/*
	 * A LUN found here stays linked for the RCU section: unlinking
	 * waits for a grace period before it clears the LUN's queue.
	 */
	rcu_read_lock();
	xa_for_each(&tpg->luns, index, lun) {
		struct tcmx_dev *dev = READ_ONCE(lun->dev);

		if (!dev)
			continue;
		if (lun_id == TCMX_ALL_LUNS)
			tcmx_ua_add(lun, dev, TCMX_SENSE_UA_POWER_ON);
		else if (index == lun_id)
			tcmx_ua_lun_reset(lun, dev);
	}
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(tcmx_ua_reset);
