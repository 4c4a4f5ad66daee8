// SPDX-License-Identifier: GPL-2.0
/*
 * The life of a LUN: $T/<fabric>/<wwn>/tpgt_<t>/lun/lun_<n>, its link to a
 * device, its place on the device (export accounting, RTPI) and where the
 * fast path finds it.
 *
 * Linking a LUN, under tcmx_cfs_mutex:
 *   allocate its per-CPU counters, init its reference,
 *   export: take an RTPI from cd->rtpi_ida, join cd->luns and the
 *   device's default ALUA group (cd->lock),
 *   establish POWER ON, RESET, OR BUS DEVICE RESET OCCURRED on it (a new
 *   I_T nexus to the LUN),
 *   publish it in the TPG's xarray, and REPORTED LUNS DATA HAS CHANGED on
 *   the TPG's other LUNs,
 *   then bring the nexus maps in line (acl.c): commands find it from there
 *   on, and the fabric hears of each new entry (->post_map).
 * Unlinking undoes this in reverse: mark it unlinking and take it out of
 * every nexus map (->pre_unmap for each entry, commands still flowing),
 * unpublish (the other LUNs get REPORTED LUNS DATA HAS CHANGED),
 * percpu_ref_kill, wait until drained (both without tcmx_cfs_mutex, see
 * tcmx_lun_drop_link()), unexport (its counters fold into
 * the device's retired totals in the same cd->lock section that takes it
 * off cd->luns, so the device's counters never go backwards; its pending
 * unit attentions go too), free the counters.  tpg->nr_linked counts a LUN
 * from its publication until it is drained.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include "tcmx_core.h"
#include "sanitize.h"

static struct tcmx_lun *to_lun(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_lun, group);
}

static void tcmx_lun_ref_release(struct percpu_ref *ref)
{
	struct tcmx_lun *lun = container_of(ref, struct tcmx_lun, ref);

	complete(&lun->drained);
}

/* ------------------------------------------------------------------ */
/* export accounting: cd->luns, RTPIs                                */
/* ------------------------------------------------------------------ */

static int tcmx_lun_export(struct tcmx_lun *lun, struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	int rtpi;

	mutex_lock(&cd->lock);
	if (!cd->enabled) {
		pr_err("%s: cannot link a LUN to a device that is not enabled\n",
		       tcmx_dev_name(dev));
		rtpi = -ENODEV;
		goto out;
	}
	rtpi = ida_alloc_range(&cd->rtpi_ida, 1, U16_MAX - 1, GFP_KERNEL);
	if (rtpi < 0) {
		pr_err("%s: no relative target port ID left: %d\n",
		       tcmx_dev_name(dev), rtpi);
		goto out;
	}
	lun->rtpi = rtpi;
	list_add_tail(&lun->dev_node, &cd->luns);
	cd->export_count++;
	tcmx_alua_lun_join(lun, dev);
out:
	mutex_unlock(&cd->lock);
	return rtpi < 0 ? rtpi : 0;
}

/* After the LUN is drained: nothing counts on lun->stats any more. */
static void tcmx_lun_unexport(struct tcmx_lun *lun, struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	mutex_lock(&cd->lock);
	tcmx_alua_lun_leave(lun, dev);
	tcmx_stats_fold(&cd->stats.retired, lun->stats);
	list_del_init(&lun->dev_node);
	tcmx_ua_lun_clear(lun, dev);
	tcmx_pr_lun_gone(lun, dev);
	cd->export_count--;
	ida_free(&cd->rtpi_ida, lun->rtpi);
	lun->rtpi = 0;
	mutex_unlock(&cd->lock);
}

/* ------------------------------------------------------------------ */
/* publishing to the fast path                                        */
/* ------------------------------------------------------------------ */

/* The nexus maps may take the LUN from here on (tcmx_tpg_sync_maps()). */
static int tcmx_lun_publish(struct tcmx_lun *lun)
{
	struct tcmx_tpg *tpg = lun->tpg;

	return xa_err(xa_store(&tpg->luns, lun->index, lun, GFP_KERNEL));
}

/*
 * After the LUN left every nexus map: no new command finds it.  Those
 * running inline with it hold the fabric's RCU read lock; the grace period
 * percpu_ref_kill() waits for before the last reference drops outlasts
 * them, so once "drained" completes no command uses the LUN, its counters
 * or its device.
 */
static void tcmx_lun_unpublish(struct tcmx_lun *lun)
{
	xa_erase(&lun->tpg->luns, lun->index);
}

/* After tcmx_lun_unpublish(), or if the LUN never was published. */
static void tcmx_lun_drain(struct tcmx_lun *lun)
{
	percpu_ref_kill(&lun->ref);
	/* a SANITIZE the core holds comes back; none is held from now on */
	tcmx_parked_abort_lun(lun);
	wait_for_completion(&lun->drained);
}

/* ------------------------------------------------------------------ */
/* lun_<n>: link, unlink, release                                     */
/* ------------------------------------------------------------------ */

/*
 * tcmx_cfs_mutex held: the rest of undoing tcmx_lun_link_dev(), once the
 * LUN is unpublished and drained
 */
static void tcmx_lun_release_dev(struct tcmx_lun *lun, struct tcmx_dev *dev)
{
	lun->dev = NULL;
	tcmx_lun_unexport(lun, dev);
	percpu_ref_exit(&lun->ref);
	free_percpu(lun->stats);
	lun->stats = NULL;
}

/* tcmx_cfs_mutex held: undo tcmx_lun_link_dev() for an unpublished LUN */
static void tcmx_lun_link_undo(struct tcmx_lun *lun, struct tcmx_dev *dev)
{
	tcmx_lun_drain(lun);
	tcmx_lun_release_dev(lun, dev);
}

/* tcmx_cfs_mutex held: export @dev through @lun and publish the LUN */
static int tcmx_lun_link_dev(struct tcmx_lun *lun, struct tcmx_dev *dev)
{
	int ret;

	lun->stats = alloc_percpu(struct tcmx_stats);
	if (!lun->stats)
		return -ENOMEM;
	ret = percpu_ref_init(&lun->ref, tcmx_lun_ref_release, 0, GFP_KERNEL);
	if (ret)
		goto out_free_stats;
	init_completion(&lun->drained);
	ret = tcmx_lun_export(lun, dev);
	if (ret)
		goto out_ref_exit;
	lun->dev = dev;
	/* a new I_T nexus to the LUN; the TPG's other LUNs see it come */
	tcmx_ua_add(lun, dev, TCMX_SENSE_UA_POWER_ON);
	WRITE_ONCE(lun->unlinking, false);
	ret = tcmx_lun_publish(lun);
	if (ret) {
		tcmx_lun_link_undo(lun, dev);
		return ret;
	}
	lun->tpg->nr_linked++;
	tcmx_ua_tpg(lun->tpg, lun, TCMX_SENSE_UA_LUNS_CHANGED);
	/* commands find it from here on; the fabric hears of it */
	tcmx_tpg_sync_maps(lun->tpg);
	return 0;

out_ref_exit:
	percpu_ref_exit(&lun->ref);
out_free_stats:
	free_percpu(lun->stats);
	lun->stats = NULL;
	return ret;
}

static int tcmx_lun_allow_link(struct config_item *item,
			       struct config_item *target)
{
	struct tcmx_lun *lun = to_lun(item);
	struct tcmx_dev *dev;
	struct tcmx_core_dev *cd;
	int ret;

	if (!tcmx_item_is_dev(target)) {
		pr_err("%s: link target is not a backstore device\n",
		       config_item_name(item));
		return -EINVAL;
	}
	dev = tcmx_item_to_dev(target);
	cd = tcmx_core(dev);

	mutex_lock(&tcmx_cfs_mutex);
	if (lun->dev) {
		pr_err("%s: already linked to a device\n",
		       config_item_name(item));
		ret = -EEXIST;
	} else if (cd->dropped) {
		pr_err("%s: device %s is being removed\n",
		       config_item_name(item), config_item_name(target));
		ret = -ENODEV;
	} else {
		ret = tcmx_lun_link_dev(lun, dev);
	}
	mutex_unlock(&tcmx_cfs_mutex);
	if (ret)
		return ret;
	/* registrations APTPL kept for this nexus */
	tcmx_pr_lun_linked(lun);
	return 0;
}

/*
 * The drain happens without tcmx_cfs_mutex (and so do the fabric's
 * ->pre_unmap() calls, tcmx_lun_unmap()): a command a backend holds for
 * long must not stall the rest of configfs.  Meanwhile the LUN is marked
 * unlinking, so no map takes it again, and configfs itself keeps it: its
 * directory (and so the TPG's) cannot be removed nor linked again while
 * the unlink of its link runs, nor the device while it is a link target.
 */
static void tcmx_lun_drop_link(struct config_item *item,
			       struct config_item *target)
{
	struct tcmx_lun *lun = to_lun(item);
	struct tcmx_tpg *tpg = lun->tpg;
	struct tcmx_dev *dev = lun->dev;

	if (!dev)
		return;
	mutex_lock(&tcmx_cfs_mutex);
	/*
	 * Out of every nexus map first: the initiators may still talk to
	 * the LUN while their fabric lets go of it (->pre_unmap()).
	 */
	WRITE_ONCE(lun->unlinking, true);
	tcmx_lun_unmap(lun);
	tcmx_lun_unpublish(lun);
	tcmx_ua_tpg(tpg, lun, TCMX_SENSE_UA_LUNS_CHANGED);
	/* a mapping made meanwhile may take its numbers now */
	tcmx_tpg_sync_maps(tpg);
	mutex_unlock(&tcmx_cfs_mutex);

	tcmx_lun_drain(lun);

	mutex_lock(&tcmx_cfs_mutex);
	tcmx_lun_release_dev(lun, dev);
	tpg->nr_linked--;
	mutex_unlock(&tcmx_cfs_mutex);
}

/* configfs removes a lun_<n> only once its link is gone */
static void tcmx_lun_release(struct config_item *item)
{
	kfree(to_lun(item));
}

static ssize_t tcmx_lun_alua_tg_pt_gp_show(struct config_item *item,
					   char *page)
{
	struct tcmx_lun *lun = to_lun(item);
	ssize_t ret;

	mutex_lock(&tcmx_cfs_mutex);
	ret = lun->dev ? tcmx_lun_tg_pt_gp_show(lun, page) : -ENODEV;
	mutex_unlock(&tcmx_cfs_mutex);
	return ret;
}

static ssize_t tcmx_lun_alua_tg_pt_gp_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct tcmx_lun *lun = to_lun(item);
	ssize_t ret;

	mutex_lock(&tcmx_cfs_mutex);
	if (lun->dev) {
		ret = tcmx_lun_tg_pt_gp_store(lun, page, count);
	} else {
		pr_err("%s: alua_tg_pt_gp: LUN is not linked\n",
		       config_item_name(item));
		ret = -ENODEV;
	}
	mutex_unlock(&tcmx_cfs_mutex);
	return ret;
}

CONFIGFS_ATTR(tcmx_lun_, alua_tg_pt_gp);

static struct configfs_attribute *tcmx_lun_attrs[] = {
	&tcmx_lun_attr_alua_tg_pt_gp,
	NULL,
};

static struct configfs_item_operations tcmx_lun_item_ops = {
	.allow_link	= tcmx_lun_allow_link,
	.drop_link	= tcmx_lun_drop_link,
	.release	= tcmx_lun_release,
};

/* mkdir <tpg>/lun/lun_<n> */
static struct config_group *tcmx_lun_make(struct config_group *group,
					  const char *name)
{
	struct tcmx_tpg *tpg = container_of(group, struct tcmx_tpg, lun_group);
	struct tcmx_fabric *tf = tpg->wwn->fabric;
	struct tcmx_lun *lun;
	u64 index;

	if (tcmx_parse_index(name, "lun_", TCMX_MAX_LUN, &index))
		return ERR_PTR(-EINVAL);
	lun = kzalloc(sizeof(*lun), GFP_KERNEL);
	if (!lun)
		return ERR_PTR(-ENOMEM);
	lun->tpg = tpg;
	lun->index = index;
	INIT_LIST_HEAD(&lun->dev_node);
	config_group_init_type_name(&lun->group, name, &tf->lun_type);
	tcmx_stats_lun_init(lun);
	return &lun->group;
}

static struct configfs_group_operations tcmx_tpg_lun_group_ops = {
	.make_group	= tcmx_lun_make,
};

/* The types of <tpg>/lun and lun_<n>, owned by the fabric's module. */
void tcmx_lun_init_types(struct tcmx_fabric *tf)
{
	tf->tpg_lun_type.ct_owner = tf->ops->owner;
	tf->tpg_lun_type.ct_group_ops = &tcmx_tpg_lun_group_ops;
	tf->lun_type.ct_owner = tf->ops->owner;
	tf->lun_type.ct_item_ops = &tcmx_lun_item_ops;
	tf->lun_type.ct_attrs = tcmx_lun_attrs;
}
