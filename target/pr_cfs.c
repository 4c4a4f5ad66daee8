// SPDX-License-Identifier: GPL-2.0
/*
 * <dev>/pr/: the reservation state of pr.c in the in-tree formats, one
 * show per file, and res_aptpl_metadata (pr_aptpl.c).  With emulate_pr 0
 * res_holder and res_type say SPC_RESERVATIONS_DISABLED and
 * res_aptpl_active is empty, as in-tree.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include "pr.h"
#include "device.h"

#define PR_NO_HOLDER	"No SPC-3 Reservation holder\n"
#define PR_DISABLED	"SPC_RESERVATIONS_DISABLED\n"

static struct tcmx_dev *pr_cfs_dev(struct config_item *item)
{
	return TCMX_DEV_OF(item, pr_group);
}

static bool pr_cfs_disabled(struct tcmx_dev *dev)
{
	return !READ_ONCE(dev->attrib.emulate_pr);
}

/* pr_mutex held: the nexus holding the persistent reservation, or NULL */
static struct tcmx_lun *pr_cfs_holder(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	return cd->pr_holder ? cd->pr_holder->lun : NULL;
}

/*
 * pr_mutex held: the initiator port of @reg, as the in-tree files show it
 * (the TPG's nexus for a nexus_per_tpg fabric)
 */
static const char *pr_cfs_name(struct tcmx_pr_reg *reg)
{
	return pr_per_tpg(reg->lun) ? reg->lun->tpg->nexus_name : reg->name;
}

static ssize_t tcmx_pr_res_holder_show(struct config_item *item, char *page)
{
	struct tcmx_dev *dev = pr_cfs_dev(item);
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_lun *lun;
	ssize_t len;

	if (pr_cfs_disabled(dev))
		return scnprintf(page, PAGE_SIZE, PR_DISABLED);
	mutex_lock(&cd->pr_mutex);
	lun = pr_cfs_holder(dev);
	/* the SPC-2 holder's nexus ends under pr_mutex (pr.c) */
	if (cd->spc2_holder)
		len = scnprintf(page, PAGE_SIZE,
				"SPC-2 Reservation: %s Initiator: %s\n",
				cd->spc2_holder->tpg->ops->name,
				pr_per_tpg(cd->spc2_holder) || !cd->spc2_nexus ?
				cd->spc2_holder->tpg->nexus_name :
				cd->spc2_nexus->name);
	else if (lun)
		len = scnprintf(page, PAGE_SIZE,
				"SPC-3 Reservation: %s Initiator: %s%s\n",
				lun->tpg->ops->name,
				pr_cfs_name(cd->pr_holder),
				cd->pr_holder->port_id);
	else
		len = scnprintf(page, PAGE_SIZE, PR_NO_HOLDER);
	mutex_unlock(&cd->pr_mutex);
	return len;
}
CONFIGFS_ATTR_RO(tcmx_pr_, res_holder);

static ssize_t tcmx_pr_res_pr_all_tgt_pts_show(struct config_item *item,
					       char *page)
{
	struct tcmx_dev *dev = pr_cfs_dev(item);
	struct tcmx_core_dev *cd = tcmx_core(dev);
	bool all;
	ssize_t len;

	mutex_lock(&cd->pr_mutex);
	if (!pr_cfs_holder(dev)) {
		len = scnprintf(page, PAGE_SIZE, PR_NO_HOLDER);
	} else {
		all = cd->pr_holder->all_tg_pt;
		len = scnprintf(page, PAGE_SIZE,
				"SPC-3 Reservation: %s Target Port%s registration\n",
				all ? "All" : "Single", all ? "s" : "");
	}
	mutex_unlock(&cd->pr_mutex);
	return len;
}
CONFIGFS_ATTR_RO(tcmx_pr_, res_pr_all_tgt_pts);

static ssize_t tcmx_pr_res_pr_generation_show(struct config_item *item,
					      char *page)
{
	struct tcmx_dev *dev = TCMX_DEV_OF(item, pr_group);
	struct tcmx_core_dev *cd = tcmx_core(dev);

	return sysfs_emit(page, "0x%08x\n", READ_ONCE(cd->pr_generation));
}
CONFIGFS_ATTR_RO(tcmx_pr_, res_pr_generation);

static ssize_t tcmx_pr_res_pr_holder_tg_port_show(struct config_item *item,
						  char *page)
{
	struct tcmx_dev *dev = pr_cfs_dev(item);
	struct tcmx_core_dev *cd = tcmx_core(dev);
	const char *fabric;
	struct tcmx_lun *lun;
	ssize_t len;

	mutex_lock(&cd->pr_mutex);
	lun = pr_cfs_holder(dev);
	if (!lun) {
		len = scnprintf(page, PAGE_SIZE, PR_NO_HOLDER);
	} else {
		fabric = lun->tpg->ops->name;
		len = scnprintf(page, PAGE_SIZE,
				"SPC-3 Reservation: %s Target Node Endpoint: %s\n"
				"SPC-3 Reservation: Relative Port Identifier Tag: %u %s Portal Group Tag: %u %s Logical Unit: %llu\n",
				fabric, tcmx_wwn_name(lun->tpg->wwn),
				lun->rtpi, fabric, lun->tpg->tag, fabric,
				(unsigned long long)lun->index);
	}
	mutex_unlock(&cd->pr_mutex);
	return len;
}
CONFIGFS_ATTR_RO(tcmx_pr_, res_pr_holder_tg_port);

static ssize_t tcmx_pr_res_pr_registered_i_pts_show(struct config_item *item,
						    char *page)
{
	struct tcmx_dev *dev = pr_cfs_dev(item);
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg;
	ssize_t len;

	mutex_lock(&cd->pr_mutex);
	len = scnprintf(page, PAGE_SIZE, "SPC-3 PR Registrations:\n");
	list_for_each_entry(reg, &cd->pr_regs, node)
		len += scnprintf(page + len, PAGE_SIZE - len,
				 "%s Node: %s%s Key: 0x%016llx PRgen: 0x%08x\n",
				 reg->lun->tpg->ops->name, pr_cfs_name(reg),
				 reg->port_id,
				 (unsigned long long)reg->key,
				 reg->generation);
	if (list_empty(&cd->pr_regs))
		len += scnprintf(page + len, PAGE_SIZE - len, "None\n");
	mutex_unlock(&cd->pr_mutex);
	return len;
}
CONFIGFS_ATTR_RO(tcmx_pr_, res_pr_registered_i_pts);

static ssize_t tcmx_pr_res_pr_type_show(struct config_item *item, char *page)
{
	struct tcmx_dev *dev = pr_cfs_dev(item);
	struct tcmx_core_dev *cd = tcmx_core(dev);
	ssize_t len;

	mutex_lock(&cd->pr_mutex);
	if (pr_cfs_holder(dev))
		len = scnprintf(page, PAGE_SIZE, "SPC-3 Reservation Type: %s\n",
				pr_type_name(cd->pr_type));
	else
		len = scnprintf(page, PAGE_SIZE, PR_NO_HOLDER);
	mutex_unlock(&cd->pr_mutex);
	return len;
}
CONFIGFS_ATTR_RO(tcmx_pr_, res_pr_type);

static ssize_t tcmx_pr_res_type_show(struct config_item *item, char *page)
{
	struct tcmx_dev *dev = pr_cfs_dev(item);
	struct tcmx_core_dev *cd = tcmx_core(dev);
	ssize_t len;

	if (pr_cfs_disabled(dev))
		return scnprintf(page, PAGE_SIZE, PR_DISABLED);
	mutex_lock(&cd->pr_mutex);
	len = scnprintf(page, PAGE_SIZE, "%s\n", cd->spc2_holder ?
			"SPC2_RESERVATIONS" : "SPC3_PERSISTENT_RESERVATIONS");
	mutex_unlock(&cd->pr_mutex);
	return len;
}
CONFIGFS_ATTR_RO(tcmx_pr_, res_type);

static ssize_t tcmx_pr_res_aptpl_active_show(struct config_item *item,
					     char *page)
{
	struct tcmx_dev *dev = pr_cfs_dev(item);
	struct tcmx_core_dev *cd = tcmx_core(dev);
	ssize_t len;

	/* in-tree: empty while reservations are off */
	if (pr_cfs_disabled(dev))
		return 0;
	mutex_lock(&cd->pr_mutex);
	len = scnprintf(page, PAGE_SIZE, "APTPL Bit Status: %s\n",
			cd->pr_aptpl ? "Activated" : "Disabled");
	mutex_unlock(&cd->pr_mutex);
	return len;
}
CONFIGFS_ATTR_RO(tcmx_pr_, res_aptpl_active);

static ssize_t tcmx_pr_res_aptpl_metadata_show(struct config_item *item,
					       char *page)
{
	struct tcmx_dev *dev = TCMX_DEV_OF(item, pr_group);

	if (!READ_ONCE(dev->attrib.emulate_pr))
		return 0;
	return sysfs_emit(page, "Ready to process PR APTPL metadata..\n");
}

static ssize_t tcmx_pr_res_aptpl_metadata_store(struct config_item *item,
						const char *page, size_t count)
{
	return tcmx_pr_aptpl_metadata(TCMX_DEV_OF(item, pr_group), page,
				      count);
}
CONFIGFS_ATTR(tcmx_pr_, res_aptpl_metadata);

static struct configfs_attribute *tcmx_pr_attrs[] = {
	&tcmx_pr_attr_res_holder,
	&tcmx_pr_attr_res_pr_all_tgt_pts,
	&tcmx_pr_attr_res_pr_generation,
	&tcmx_pr_attr_res_pr_holder_tg_port,
	&tcmx_pr_attr_res_pr_registered_i_pts,
	&tcmx_pr_attr_res_pr_type,
	&tcmx_pr_attr_res_type,
	&tcmx_pr_attr_res_aptpl_active,
	&tcmx_pr_attr_res_aptpl_metadata,
	NULL,
};

const struct config_item_type tcmx_pr_cfs_type = {
	.ct_attrs	= tcmx_pr_attrs,
	.ct_owner	= THIS_MODULE,
};
