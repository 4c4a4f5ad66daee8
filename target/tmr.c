// SPDX-License-Identifier: GPL-2.0
/*
 * What a fabric's resets do to the logical units behind a TPG or an I_T
 * nexus (SAM-5 5.14, 7.x): a LOGICAL UNIT RESET ends the unit's SPC-2
 * reservation (pr.c), aborts the commands the core holds for any I_T nexus
 * of the unit (sanitize.c; the fabric has aborted its own nexus's first)
 * and leaves 29/03 on every I_T nexus of the unit; target, bus and host
 * resets abort the same and leave 29/00 on every I_T nexus of each LUN
 * they reset (ua.c's queues, one per I_T_L nexus).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/xarray.h>
#include "tcmx_core.h"
#include "sanitize.h"

void tcmx_ua_dev_init(struct tcmx_dev *dev)
{
	INIT_LIST_HEAD(&tcmx_core(dev)->itls);
}

/*
 * A LOGICAL UNIT RESET of @lun, which exports @dev (in an RCU section):
 * as in-tree (core_tmr_lun_reset(), target_dev_ua_allocate()), it ends an
 * SPC-2 reservation and every I_T nexus of the logical unit, through any
 * target port, gets 29/03 BUS DEVICE RESET FUNCTION OCCURRED.
 */
static void tcmx_ua_lun_reset(struct tcmx_lun *lun, struct tcmx_dev *dev)
{
	tcmx_pr_lun_reset(dev);
	tcmx_parked_abort_dev(dev);
	tcmx_ua_dev(dev, NULL, TCMX_SENSE_UA_DEVICE_RESET);
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
	 * waits for a grace period before it leaves its device.
	 */
	rcu_read_lock();
	xa_for_each(&tpg->luns, index, lun) {
		struct tcmx_dev *dev = READ_ONCE(lun->dev);

		if (!dev)
			continue;
		if (lun_id == TCMX_ALL_LUNS) {
			tcmx_parked_abort_dev(dev);
			tcmx_ua_add(lun, dev, TCMX_SENSE_UA_POWER_ON);
		} else if (index == lun_id) {
			tcmx_ua_lun_reset(lun, dev);
		}
	}
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(tcmx_ua_reset);

/*
 * The same, with @lun_id as @n maps it; TCMX_ALL_LUNS resets the LUNs @n
 * maps, and no other LUN of its TPG.
 */
void tcmx_nexus_reset(struct tcmx_nexus *n, u64 lun_id)
{
	struct tcmx_lun *lun;
	unsigned long id;
	void *entry;

	rcu_read_lock();
	xa_for_each(&n->luns, id, entry) {
		struct tcmx_dev *dev;

		lun = tcmx_map_lun(entry);
		dev = READ_ONCE(lun->dev);
		if (!dev || (lun_id != TCMX_ALL_LUNS && id != lun_id))
			continue;
		if (lun_id == TCMX_ALL_LUNS) {
			tcmx_parked_abort_dev(dev);
			tcmx_ua_add(lun, dev, TCMX_SENSE_UA_POWER_ON);
		} else {
			tcmx_ua_lun_reset(lun, dev);
		}
	}
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(tcmx_nexus_reset);
