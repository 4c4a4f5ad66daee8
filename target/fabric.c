// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric side of the configfs tree and the fabric registry:
 *
 *   $T/<fabric>/			version (or the fabric's files),
 *					discovery_auth/
 *   $T/<fabric>/<wwn>/			param/, fabric_statistics/
 *   $T/<fabric>/<wwn>/tpgt_<t>/	fabric files, lun/, acls/, attrib/,
 *					param/, auth/, np/
 *
 * tpgt_<t>/lun/lun_<n> is lun.c's, tpgt_<t>/acls/ acl.c's, tpgt_<t>/np/
 * and enable fabric_np.c's.
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
	tpg->nexus_name = "";		/* set by tcmx_nexus_register() */
	xa_init(&tpg->luns);

	config_group_init_type_name(&tpg->group, name, &tf->tpg_type);
	tcmx_cfs_subdir(&tpg->group, &tpg->lun_group, "lun", &tf->tpg_lun_type);
	tcmx_acl_tpg_init(tpg);
	tcmx_cfs_subdir(&tpg->group, &tpg->attrib_group, "attrib",
			&tf->tpg_attrib_type);
	tcmx_cfs_subdir(&tpg->group, &tpg->param_group, "param",
			&tf->tpg_param_type);
	tcmx_cfs_subdir(&tpg->group, &tpg->np_group, "np", &tf->tpg_np_type);
	tcmx_cfs_subdir(&tpg->group, &tpg->auth_group, "auth",
			&tf->tpg_auth_type);
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

	if (tcmx_cfs_int(page, count, &cpu) ||
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
	tcmx_cfs_subdir(&wwn->group, &wwn->param_group, "param",
			&tf->wwn_param_type);
	tcmx_cfs_subdir(&wwn->group, &wwn->stats_group, "fabric_statistics",
			&tf->wwn_stats_type);
	if (tf->ops->add_wwn_stats)
		tf->ops->add_wwn_stats(wwn);
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
	tcmx_cfs_subdir(&tf->group, &tf->discovery_group, "discovery_auth",
			&tf->discovery_type);
	return &tf->group;
}

/* Registration */

/* tpgt_<t>/'s files: enable if the fabric has it, then the fabric's */
static struct configfs_attribute **
tcmx_fabric_tpg_attrs(const struct tcmx_fabric_ops *ops)
{
	struct configfs_attribute **attrs;
	size_t n = 0, i = 0;

	while (ops->tpg_attrs && ops->tpg_attrs[n])
		n++;
	attrs = kcalloc(n + 2, sizeof(*attrs), GFP_KERNEL);
	if (!attrs)
		return NULL;
	if (ops->tpg_enable)
		attrs[i++] = &tcmx_tpg_attr_enable;
	memcpy(attrs + i, ops->tpg_attrs, n * sizeof(*attrs));
	return attrs;
}

static int tcmx_fabric_add(const struct tcmx_fabric_ops *ops)
{
	struct module *m = ops->owner;
	struct tcmx_fabric *tf;

	tf = kzalloc(sizeof(*tf), GFP_KERNEL);
	if (!tf)
		return -ENOMEM;
	tf->ops = ops;
	tf->tpg_attrs = tcmx_fabric_tpg_attrs(ops);
	if (!tf->tpg_attrs) {
		kfree(tf);
		return -ENOMEM;
	}
	tcmx_cfs_init_type(&tf->fabric_type, m, &tcmx_fabric_item_ops,
			   &tcmx_fabric_group_ops,
			   ops->fabric_attrs ?: tcmx_fabric_attrs);
	tcmx_cfs_init_type(&tf->discovery_type, m, NULL, NULL,
			   ops->discovery_attrs);
	tcmx_cfs_init_type(&tf->wwn_type, m, &tcmx_wwn_item_ops,
			   &tcmx_wwn_group_ops, NULL);
	tcmx_cfs_init_type(&tf->wwn_param_type, m, NULL, NULL,
			   tcmx_wwn_param_attrs);
	tcmx_cfs_init_type(&tf->wwn_stats_type, m, NULL, NULL, NULL);
	tcmx_cfs_init_type(&tf->tpg_type, m, &tcmx_tpg_item_ops, NULL,
			   tf->tpg_attrs);
	tcmx_cfs_init_type(&tf->tpg_attrib_type, m, NULL, NULL,
			   ops->tpg_attrib_attrs);
	tcmx_cfs_init_type(&tf->tpg_param_type, m, NULL, NULL,
			   ops->tpg_param_attrs);
	tcmx_cfs_init_type(&tf->tpg_auth_type, m, NULL, NULL,
			   ops->tpg_auth_attrs);
	tcmx_np_init_types(tf);
	tcmx_lun_init_types(tf);
	tcmx_acl_init_types(tf);

	mutex_lock(&tcmx_cfs_mutex);
	if (tcmx_fabric_find(ops->name)) {
		mutex_unlock(&tcmx_cfs_mutex);
		kfree(tf->tpg_attrs);
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
	    !ops->max_tpgt ||
	    (ops->make_np && (!ops->drop_np || !ops->free_np))) {
		pr_err("fabric %s: incomplete ops\n", ops->name ?: "(null)");
		return -EINVAL;
	}
	return tcmx_fabric_add(ops);
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
	if (tf)
		kfree(tf->tpg_attrs);
	kfree(tf);
}
EXPORT_SYMBOL_GPL(tcmx_unregister_fabric);
