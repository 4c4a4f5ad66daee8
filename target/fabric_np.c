// SPDX-License-Identifier: GPL-2.0
/*
 * What a network fabric (iSCSI) adds to a TPG, through its ops:
 *
 *   tpgt_<t>/enable		"0"/"1", if the fabric has ->tpg_enable()
 *   tpgt_<t>/np/<name>		a network portal, made and dropped by the
 *				fabric (->make_np(), ->drop_np(),
 *				->free_np()), with its ->np_attrs files
 *
 * The fabric parses the portal's name and listens; the core only holds
 * the directories.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "tcmx_core.h"

static ssize_t tcmx_tpg_enable_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n",
			  READ_ONCE(tcmx_item_to_tpg(item)->enabled));
}

static ssize_t tcmx_tpg_enable_store(struct config_item *item,
				     const char *page, size_t count)
{
	struct tcmx_tpg *tpg = tcmx_item_to_tpg(item);
	bool on;
	int ret;

	if (memchr(page, '\0', count) || kstrtobool(page, &on)) {
		pr_err("%s/tpgt_%u: enable must be 0 or 1\n",
		       tcmx_wwn_name(tpg->wwn), tpg->tag);
		return -EINVAL;
	}
	ret = tpg->ops->tpg_enable(tpg, on);
	return ret ? ret : count;
}

/* only in the tpg_type of a fabric with ->tpg_enable() (fabric.c) */
struct configfs_attribute tcmx_tpg_attr_enable = {
	.ca_name	= "enable",
	.ca_owner	= THIS_MODULE,
	.ca_mode	= 0644,
	.show		= tcmx_tpg_enable_show,
	.store		= tcmx_tpg_enable_store,
};

/* np/<name> */

/* configfs has cut the portal from its parent by now: its type says whose */
static void tcmx_np_release(struct config_item *item)
{
	const struct tcmx_fabric *tf = container_of(item->ci_type,
						    struct tcmx_fabric,
						    np_type);

	tf->ops->free_np(to_config_group(item));
}

static struct configfs_item_operations tcmx_np_item_ops = {
	.release	= tcmx_np_release,
};

static struct config_group *tcmx_np_make(struct config_group *group,
					 const char *name)
{
	struct tcmx_tpg *tpg = container_of(group, struct tcmx_tpg, np_group);
	struct tcmx_fabric *tf = tpg->wwn->fabric;
	struct config_group *np;

	if (!tf->ops->make_np) {
		pr_err("%s/tpgt_%u: fabric %s has no network portals\n",
		       tcmx_wwn_name(tpg->wwn), tpg->tag, tf->ops->name);
		return ERR_PTR(-EOPNOTSUPP);
	}
	np = tf->ops->make_np(tpg, name);
	if (IS_ERR(np))
		return np;
	config_group_init_type_name(np, name, &tf->np_type);
	return np;
}

static void tcmx_np_drop(struct config_group *group, struct config_item *item)
{
	struct tcmx_tpg *tpg = container_of(group, struct tcmx_tpg, np_group);

	tpg->ops->drop_np(tpg, to_config_group(item));
	config_item_put(item);
}

static struct configfs_group_operations tcmx_tpg_np_group_ops = {
	.make_group	= tcmx_np_make,
	.drop_item	= tcmx_np_drop,
};

/* The types of tpgt_<t>/np and np/<name>. */
void tcmx_np_init_types(struct tcmx_fabric *tf)
{
	const struct tcmx_fabric_ops *ops = tf->ops;

	tcmx_cfs_init_type(&tf->tpg_np_type, ops->owner, NULL,
			   &tcmx_tpg_np_group_ops, NULL);
	tcmx_cfs_init_type(&tf->np_type, ops->owner, &tcmx_np_item_ops, NULL,
			   ops->np_attrs);
}
