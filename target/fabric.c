// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric side of the configfs tree and the fabric registry:
 *
 *   $T/<fabric>/			version, discovery_auth/
 *   $T/<fabric>/<wwn>/			param/, fabric_statistics/
 *   $T/<fabric>/<wwn>/tpgt_<t>/	fabric files, lun/, attrib/, param/
 *   $T/<fabric>/<wwn>/tpgt_<t>/lun/lun_<n>/   one symlink to a device
 *
 * Linking a LUN publishes it in the TPG's xarray, where the fast path finds
 * it under RCU; unlinking unpublishes it and waits for in-flight commands.
 * The "iscsi" placeholder fabric is iscsi.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "tcmx_core.h"

static LIST_HEAD(tcmx_fabrics);		/* under tcmx_cfs_mutex */

static struct tcmx_fabric *tcmx_fabric_find(const char *name)
{
	struct tcmx_fabric *tf;

	list_for_each_entry(tf, &tcmx_fabrics, node)
		if (!strcmp(tf->ops->name, name))
			return tf;
	return NULL;
}

static struct tcmx_fabric *to_fabric(struct config_group *group)
{
	return container_of(group, struct tcmx_fabric, group);
}

static struct tcmx_wwn *to_wwn(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_wwn, group);
}

static struct tcmx_lun *to_lun(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_lun, group);
}

/* $T/<fabric>/<wwn>/tpgt_<t>/lun/lun_<n> */

static void tcmx_lun_ref_release(struct percpu_ref *ref)
{
	struct tcmx_lun *lun = container_of(ref, struct tcmx_lun, ref);

	complete(&lun->drained);
}

/* Commands find the LUN from here on (by index < TCMX_LUN_MAP, or xarray). */
static int tcmx_lun_publish(struct tcmx_lun *lun)
{
	struct tcmx_tpg *tpg = lun->tpg;
	int ret;

	ret = xa_err(xa_store(&tpg->luns, lun->index, lun, GFP_KERNEL));
	if (!ret && lun->index < TCMX_LUN_MAP)
		rcu_assign_pointer(tpg->lun_map[lun->index], lun);
	return ret;
}

/*
 * No new command finds the LUN after this.  Those running inline with it
 * hold the fabric's RCU read lock; the grace period percpu_ref_kill() waits
 * for before the last reference drops outlasts them, so once "drained"
 * completes no command uses the LUN or its device.
 */
static void tcmx_lun_unpublish(struct tcmx_lun *lun)
{
	struct tcmx_tpg *tpg = lun->tpg;

	if (lun->index < TCMX_LUN_MAP)
		RCU_INIT_POINTER(tpg->lun_map[lun->index], NULL);
	xa_erase(&tpg->luns, lun->index);
}

static int tcmx_lun_allow_link(struct config_item *item,
			       struct config_item *target)
{
	struct tcmx_lun *lun = to_lun(item);
	struct tcmx_tpg *tpg = lun->tpg;
	struct tcmx_dev *dev;
	int ret;

	if (!tcmx_item_is_dev(target)) {
		pr_err("%s: link target is not a backstore device\n",
		       config_item_name(item));
		return -EINVAL;
	}
	dev = tcmx_item_to_dev(target);

	mutex_lock(&tcmx_cfs_mutex);
	if (lun->dev) {
		pr_err("%s: already linked to a device\n",
		       config_item_name(item));
		ret = -EEXIST;
		goto out_unlock;
	}
	ret = tcmx_dev_export(dev, lun);
	if (ret)
		goto out_unlock;
	ret = percpu_ref_init(&lun->ref, tcmx_lun_ref_release, 0, GFP_KERNEL);
	if (ret)
		goto out_unexport;
	init_completion(&lun->drained);
	lun->dev = dev;
	ret = tcmx_lun_publish(lun);
	if (ret)
		goto out_ref;
	mutex_unlock(&tcmx_cfs_mutex);

	/* the fabric may send commands to the LUN from here on */
	ret = tpg->ops->post_link ? tpg->ops->post_link(lun) : 0;
	if (!ret)
		return 0;

	pr_err("%s: fabric refused the LUN: %d\n", config_item_name(item),
	       ret);
	mutex_lock(&tcmx_cfs_mutex);
	tcmx_lun_unpublish(lun);
out_ref:
	percpu_ref_kill(&lun->ref);
	wait_for_completion(&lun->drained);
	percpu_ref_exit(&lun->ref);
	lun->dev = NULL;
out_unexport:
	tcmx_dev_unexport(dev, lun);
out_unlock:
	mutex_unlock(&tcmx_cfs_mutex);
	return ret;
}

static void tcmx_lun_drop_link(struct config_item *item,
			       struct config_item *target)
{
	struct tcmx_lun *lun = to_lun(item);
	struct tcmx_tpg *tpg = lun->tpg;
	struct tcmx_dev *dev = lun->dev;

	if (!dev)
		return;
	/* the initiator may still talk to the LUN while it lets go of it */
	if (tpg->ops->pre_unlink)
		tpg->ops->pre_unlink(lun);

	mutex_lock(&tcmx_cfs_mutex);
	tcmx_lun_unpublish(lun);
	percpu_ref_kill(&lun->ref);
	wait_for_completion(&lun->drained);
	percpu_ref_exit(&lun->ref);
	tcmx_dev_unexport(dev, lun);
	lun->dev = NULL;
	mutex_unlock(&tcmx_cfs_mutex);
}

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

/* parse "<prefix><number>" with number < @limit */
static int tcmx_parse_index(const char *name, const char *prefix, u64 limit,
			    u64 *index)
{
	size_t plen = strlen(prefix);

	if (strncmp(name, prefix, plen) || kstrtou64(name + plen, 10, index) ||
	    *index >= limit) {
		pr_err("%s: expected %s<0..%llu>\n", name, prefix, limit - 1);
		return -EINVAL;
	}
	return 0;
}

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
	config_group_init_type_name(&lun->group, name, &tf->lun_type);
	return &lun->group;
}

static struct configfs_group_operations tcmx_tpg_lun_group_ops = {
	.make_group	= tcmx_lun_make,
};

/* $T/<fabric>/<wwn>/tpgt_<t> */

static void tcmx_tpg_release(struct config_item *item)
{
	struct tcmx_tpg *tpg = tcmx_item_to_tpg(item);

	xa_destroy(&tpg->luns);
	tpg->ops->drop_tpg(tpg);
}

static struct configfs_item_operations tcmx_tpg_item_ops = {
	.release	= tcmx_tpg_release,
};

static struct config_group *tcmx_tpg_make(struct config_group *group,
					  const char *name)
{
	struct tcmx_wwn *wwn = container_of(group, struct tcmx_wwn, group);
	struct tcmx_fabric *tf = wwn->fabric;
	struct tcmx_tpg *tpg;
	u64 tag;

	if (tcmx_parse_index(name, "tpgt_", tf->ops->max_tpgt, &tag))
		return ERR_PTR(-EINVAL);
	tpg = tf->ops->make_tpg(wwn, tag);
	if (IS_ERR(tpg))
		return ERR_CAST(tpg);
	tpg->wwn = wwn;
	tpg->ops = tf->ops;
	tpg->tag = tag;
	xa_init(&tpg->luns);

	config_group_init_type_name(&tpg->group, name, &tf->tpg_type);
	config_group_init_type_name(&tpg->lun_group, "lun", &tf->tpg_lun_type);
	configfs_add_default_group(&tpg->lun_group, &tpg->group);
	config_group_init_type_name(&tpg->attrib_group, "attrib",
				    &tf->tpg_attrib_type);
	configfs_add_default_group(&tpg->attrib_group, &tpg->group);
	config_group_init_type_name(&tpg->param_group, "param",
				    &tf->tpg_param_type);
	configfs_add_default_group(&tpg->param_group, &tpg->group);
	return &tpg->group;
}

static struct configfs_group_operations tcmx_wwn_group_ops = {
	.make_group	= tcmx_tpg_make,
};

/* $T/<fabric>/<wwn> */

static void tcmx_wwn_release(struct config_item *item)
{
	struct tcmx_wwn *wwn = to_wwn(item);

	wwn->fabric->ops->drop_wwn(wwn);
}

static struct configfs_item_operations tcmx_wwn_item_ops = {
	.release	= tcmx_wwn_release,
};

static struct tcmx_wwn *to_wwn_of_param(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_wwn,
			    param_group);
}

static ssize_t tcmx_wwn_cmd_completion_affinity_show(struct config_item *item,
						     char *page)
{
	return sysfs_emit(page, "%d\n",
			  READ_ONCE(to_wwn_of_param(item)->cmd_compl_affinity));
}

/*
 * Kept for rtslib compatibility: -1 completes on the submitting CPU, which
 * is what tcmx always does.  Other values are accepted as in-tree does when
 * they name an online CPU, and have no further effect.
 */
static ssize_t tcmx_wwn_cmd_completion_affinity_store(struct config_item *item,
						      const char *page,
						      size_t count)
{
	int cpu;

	if (kstrtoint(page, 0, &cpu) ||
	    (cpu != -1 && (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu)))) {
		pr_err("cmd_completion_affinity: -1 or an online CPU\n");
		return -EINVAL;
	}
	WRITE_ONCE(to_wwn_of_param(item)->cmd_compl_affinity, cpu);
	return count;
}

CONFIGFS_ATTR(tcmx_wwn_, cmd_completion_affinity);

static struct configfs_attribute *tcmx_wwn_param_attrs[] = {
	&tcmx_wwn_attr_cmd_completion_affinity,
	NULL,
};

static struct config_group *tcmx_wwn_make(struct config_group *group,
					  const char *name)
{
	struct tcmx_fabric *tf = to_fabric(group);
	struct tcmx_wwn *wwn;

	wwn = tf->ops->make_wwn(tf, name);
	if (IS_ERR(wwn))
		return ERR_CAST(wwn);
	wwn->fabric = tf;
	wwn->cmd_compl_affinity = -1;

	config_group_init_type_name(&wwn->group, name, &tf->wwn_type);
	config_group_init_type_name(&wwn->param_group, "param",
				    &tf->wwn_param_type);
	configfs_add_default_group(&wwn->param_group, &wwn->group);
	config_group_init_type_name(&wwn->stats_group, "fabric_statistics",
				    &tf->wwn_stats_type);
	configfs_add_default_group(&wwn->stats_group, &wwn->group);
	return &wwn->group;
}

static struct configfs_group_operations tcmx_fabric_group_ops = {
	.make_group	= tcmx_wwn_make,
};

/* $T/<fabric> */

static ssize_t tcmx_fabric_version_show(struct config_item *item, char *page)
{
	struct tcmx_fabric *tf = to_fabric(to_config_group(item));

	return sysfs_emit(page, "%s\n", tf->ops->version ?: "");
}

CONFIGFS_ATTR_RO(tcmx_fabric_, version);

static struct configfs_attribute *tcmx_fabric_attrs[] = {
	&tcmx_fabric_attr_version,
	NULL,
};

static void tcmx_fabric_release(struct config_item *item)
{
	struct tcmx_fabric *tf = to_fabric(to_config_group(item));
	struct module *owner = tf->ops->owner;

	mutex_lock(&tcmx_cfs_mutex);
	tf->in_use = false;
	mutex_unlock(&tcmx_cfs_mutex);
	module_put(owner);
}

static struct configfs_item_operations tcmx_fabric_item_ops = {
	.release	= tcmx_fabric_release,
};

static struct tcmx_fabric *tcmx_fabric_get(const char *name)
{
	struct tcmx_fabric *tf;

	mutex_lock(&tcmx_cfs_mutex);
	tf = tcmx_fabric_find(name);
	if (tf && (tf->in_use || !try_module_get(tf->ops->owner)))
		tf = ERR_PTR(-EBUSY);
	else if (tf)
		tf->in_use = true;
	mutex_unlock(&tcmx_cfs_mutex);
	return tf;
}

/* mkdir $T/<name>: a registered fabric, loaded on demand */
struct config_group *tcmx_fabric_make_dir(const char *name)
{
	struct tcmx_fabric *tf;

	tf = tcmx_fabric_get(name);
	if (!tf) {
		request_module("tcmx-fabric-%s", name);
		tf = tcmx_fabric_get(name);
	}
	if (IS_ERR_OR_NULL(tf)) {
		pr_err("%s: no such fabric module\n", name);
		return ERR_PTR(tf ? PTR_ERR(tf) : -ENOENT);
	}

	config_group_init_type_name(&tf->group, name, &tf->fabric_type);
	config_group_init_type_name(&tf->discovery_group, "discovery_auth",
				    &tf->discovery_type);
	configfs_add_default_group(&tf->discovery_group, &tf->group);
	return &tf->group;
}

/* Registration */

static void tcmx_fabric_init_type(struct config_item_type *type,
				  struct module *owner,
				  struct configfs_item_operations *item_ops,
				  struct configfs_group_operations *group_ops,
				  struct configfs_attribute **attrs)
{
	type->ct_owner = owner;
	type->ct_item_ops = item_ops;
	type->ct_group_ops = group_ops;
	type->ct_attrs = attrs;
}

int tcmx_fabric_add(const struct tcmx_fabric_ops *ops,
		    struct configfs_attribute **discovery_attrs)
{
	struct module *m = ops->owner;
	struct tcmx_fabric *tf;

	tf = kzalloc(sizeof(*tf), GFP_KERNEL);
	if (!tf)
		return -ENOMEM;
	tf->ops = ops;
	tcmx_fabric_init_type(&tf->fabric_type, m, &tcmx_fabric_item_ops,
			      &tcmx_fabric_group_ops, tcmx_fabric_attrs);
	tcmx_fabric_init_type(&tf->discovery_type, m, NULL, NULL,
			      discovery_attrs);
	tcmx_fabric_init_type(&tf->wwn_type, m, &tcmx_wwn_item_ops,
			      &tcmx_wwn_group_ops, NULL);
	tcmx_fabric_init_type(&tf->wwn_param_type, m, NULL, NULL,
			      tcmx_wwn_param_attrs);
	tcmx_fabric_init_type(&tf->wwn_stats_type, m, NULL, NULL, NULL);
	tcmx_fabric_init_type(&tf->tpg_type, m, &tcmx_tpg_item_ops, NULL,
			      ops->tpg_attrs);
	tcmx_fabric_init_type(&tf->tpg_lun_type, m, NULL,
			      &tcmx_tpg_lun_group_ops, NULL);
	tcmx_fabric_init_type(&tf->tpg_attrib_type, m, NULL, NULL,
			      ops->tpg_attrib_attrs);
	tcmx_fabric_init_type(&tf->tpg_param_type, m, NULL, NULL, NULL);
	tcmx_fabric_init_type(&tf->lun_type, m, &tcmx_lun_item_ops, NULL,
			      tcmx_lun_attrs);

	mutex_lock(&tcmx_cfs_mutex);
	if (tcmx_fabric_find(ops->name)) {
		mutex_unlock(&tcmx_cfs_mutex);
		kfree(tf);
		pr_err("fabric %s is already registered\n", ops->name);
		return -EEXIST;
	}
	list_add_tail(&tf->node, &tcmx_fabrics);
	mutex_unlock(&tcmx_cfs_mutex);
	return 0;
}

int tcmx_register_fabric(const struct tcmx_fabric_ops *ops)
{
	if (!ops->name || !ops->make_wwn || !ops->drop_wwn ||
	    !ops->make_tpg || !ops->drop_tpg || !ops->queue_status ||
	    !ops->max_tpgt) {
		pr_err("fabric %s: incomplete ops\n", ops->name ?: "(null)");
		return -EINVAL;
	}
	return tcmx_fabric_add(ops, NULL);
}
EXPORT_SYMBOL_GPL(tcmx_register_fabric);

void tcmx_unregister_fabric(const struct tcmx_fabric_ops *ops)
{
	struct tcmx_fabric *tf;

	mutex_lock(&tcmx_cfs_mutex);
	tf = tcmx_fabric_find(ops->name);
	if (tf)
		list_del(&tf->node);
	mutex_unlock(&tcmx_cfs_mutex);
	/* $T/<name> pins the fabric's module, so it is gone by now */
	WARN_ON(tf && tf->in_use);
	kfree(tf);
}
EXPORT_SYMBOL_GPL(tcmx_unregister_fabric);
