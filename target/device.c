// SPDX-License-Identifier: GPL-2.0
/*
 * tcmx_core: the $T/core subtree of configfs and the backend registry.
 *
 *   core/alua/lu_gps/default_lu_gp/   LU group 0 (shown for rtslib, unused)
 *   core/<plugin>_<id>/               an HBA: pins its backend's module
 *   core/<plugin>_<id>/<name>/        a device: info control enable alias
 *                                     udev_path attrib/ wwn/ pr/ alua/
 *                                     statistics/
 *
 * attrib/, wwn/ and pr/ are in dev_attrs.c; ALUA target port groups in
 * alua.c; statistics/ in stats.c; the LUNs exporting the device (cd->luns,
 * RTPIs) in lun.c.
 * cd->lock guards every slow-path field of a device; the hot fields
 * (nr_blocks, block_size, block_shift) only change while no LUN exports
 * the device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include "cfs_attr.h"
#include "tcmx_core.h"
#include "device.h"
#include "sanitize.h"

#define TCMX_PLUGIN_NAME_MAX	32

/* ------------------------------------------------------------------ */
/* backend registry (under tcmx_cfs_mutex)                            */
/* ------------------------------------------------------------------ */

struct tcmx_backend {
	const struct tcmx_backend_ops	*ops;
	struct list_head		node;
};

static LIST_HEAD(tcmx_backends);

static struct tcmx_backend *tcmx_backend_find(const char *name)
{
	struct tcmx_backend *b;

	lockdep_assert_held(&tcmx_cfs_mutex);
	list_for_each_entry(b, &tcmx_backends, node)
		if (!strcmp(b->ops->name, name))
			return b;
	return NULL;
}

int tcmx_register_backend(const struct tcmx_backend_ops *ops)
{
	struct tcmx_backend *b;

	if (!ops->name || !ops->name[0] ||
	    strlen(ops->name) > TCMX_PLUGIN_NAME_MAX ||
	    !ops->enable) {
		pr_err("backend '%s': needs a name of 1-%d characters and ->enable\n",
		       ops->name ?: "(null)", TCMX_PLUGIN_NAME_MAX);
		return -EINVAL;
	}
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->ops = ops;

	mutex_lock(&tcmx_cfs_mutex);
	if (tcmx_backend_find(ops->name)) {
		mutex_unlock(&tcmx_cfs_mutex);
		kfree(b);
		pr_err("backend '%s' is already registered\n", ops->name);
		return -EEXIST;
	}
	list_add_tail(&b->node, &tcmx_backends);
	mutex_unlock(&tcmx_cfs_mutex);
	pr_debug("backend '%s' registered\n", ops->name);
	return 0;
}
EXPORT_SYMBOL_GPL(tcmx_register_backend);

void tcmx_unregister_backend(const struct tcmx_backend_ops *ops)
{
	struct tcmx_backend *b;

	mutex_lock(&tcmx_cfs_mutex);
	b = tcmx_backend_find(ops->name);
	if (b && b->ops == ops)
		list_del(&b->node);
	else
		b = NULL;
	mutex_unlock(&tcmx_cfs_mutex);

	if (!b)
		pr_warn("backend '%s' was not registered\n", ops->name);
	kfree(b);
}
EXPORT_SYMBOL_GPL(tcmx_unregister_backend);

/* Look a backend up and pin its module; NULL if absent or unloading. */
static const struct tcmx_backend_ops *tcmx_backend_get(const char *name)
{
	const struct tcmx_backend_ops *ops = NULL;
	struct tcmx_backend *b;

	mutex_lock(&tcmx_cfs_mutex);
	b = tcmx_backend_find(name);
	if (b && try_module_get(b->ops->owner))
		ops = b->ops;
	mutex_unlock(&tcmx_cfs_mutex);
	return ops;
}

static void tcmx_backend_report_missing(const char *name)
{
	struct tcmx_backend *b;
	char list[128] = "";
	int n = 0;

	mutex_lock(&tcmx_cfs_mutex);
	list_for_each_entry(b, &tcmx_backends, node)
		n += scnprintf(list + n, sizeof(list) - n, "%s%s",
			       n ? " " : "", b->ops->name);
	mutex_unlock(&tcmx_cfs_mutex);
	pr_err("no backstore plugin '%s' (tcmx provides: %s)\n",
	       name, n ? list : "none");
}

/* ------------------------------------------------------------------ */
/* core/<plugin>_<id>/<name>: the device directory                    */
/* ------------------------------------------------------------------ */

static inline struct tcmx_dev *to_dev(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_dev, group);
}

static ssize_t tcmx_dev_info_show(struct config_item *item, char *page)
{
	struct tcmx_dev *dev = to_dev(item);
	struct tcmx_core_dev *cd = tcmx_core(dev);
	ssize_t n, ret;

	mutex_lock(&cd->lock);
	/* rtslib parses "Status: ..." (and the backend's keys) from here */
	n = sysfs_emit(page,
		       "Status: %s  Max Queue Depth: %u  SectorSize: %u  HwMaxSectors: %u\n",
		       cd->export_count ? "ACTIVATED" : "DEACTIVATED",
		       dev->attrib.queue_depth, dev->attrib.block_size,
		       dev->attrib.hw_max_sectors);
	if (dev->ops->show_params) {
		n += sysfs_emit_at(page, n, "        ");
		ret = dev->ops->show_params(dev, page + n);
		if (ret > 0)
			n += ret;
	}
	mutex_unlock(&cd->lock);
	return n;
}
CONFIGFS_ATTR_RO(tcmx_dev_, info);

static ssize_t tcmx_dev_control_store(struct config_item *item,
				      const char *page, size_t count)
{
	struct tcmx_dev *dev = to_dev(item);
	struct tcmx_core_dev *cd = tcmx_core(dev);
	ssize_t ret;

	if (!dev->ops->set_params) {
		pr_err("%s: control: backend %s takes no parameters\n",
		       tcmx_dev_name(dev), dev->ops->name);
		return -EINVAL;
	}
	mutex_lock(&cd->lock);
	if (cd->enabled) {
		/* size and the like are fixed once enabled */
		pr_err("%s: control: device is enabled, parameters are fixed\n",
		       tcmx_dev_name(dev));
		ret = -EBUSY;
	} else {
		ret = dev->ops->set_params(dev, page, count);
	}
	mutex_unlock(&cd->lock);
	return ret;
}
CONFIGFS_ATTR_WO(tcmx_dev_, control);

static ssize_t tcmx_dev_enable_show(struct config_item *item, char *page)
{
	struct tcmx_core_dev *cd = tcmx_core(to_dev(item));

	return sysfs_emit(page, "%d\n", READ_ONCE(cd->enabled));
}

/* Like LIO, a device can be enabled once and never disabled. */
static ssize_t tcmx_dev_enable_store(struct config_item *item,
				     const char *page, size_t count)
{
	struct tcmx_dev *dev = to_dev(item);
	struct tcmx_core_dev *cd = tcmx_core(dev);
	ssize_t ret;
	int val;

	if (tcmx_cfs_int(page, count, &val) || val != 1) {
		pr_err("%s: enable: only 1 is accepted (a device cannot be disabled)\n",
		       tcmx_dev_name(dev));
		return -EINVAL;
	}
	mutex_lock(&cd->lock);
	if (cd->enabled) {
		pr_err("%s: enable: device is already enabled\n",
		       tcmx_dev_name(dev));
		ret = -EEXIST;
		goto out;
	}
	ret = dev->ops->enable(dev);
	if (ret)
		goto out;
	if (WARN_ON_ONCE(!dev->execute_rw)) {
		pr_err("%s: backend %s did not set up its I/O path\n",
		       tcmx_dev_name(dev), dev->ops->name);
		ret = -EINVAL;
		goto out;
	}
	dev->nr_blocks = dev->size_bytes >> dev->block_shift;
	tcmx_inject_enable(dev);
	WRITE_ONCE(cd->enabled, true);
	ret = count;
out:
	mutex_unlock(&cd->lock);
	return ret;
}
CONFIGFS_ATTR(tcmx_dev_, enable);

/*
 * udev_path, alias: any text but NUL that fits, one newline dropped; shown
 * as nothing while empty, as in-tree.
 */
static char *tcmx_dev_home_find(struct config_item *item,
				struct tcmx_dev **dev)
{
	*dev = TCMX_DEV_OF(item, dev.group);
	return (char *)tcmx_core(*dev);
}

static const struct tcmx_cfs_home tcmx_dev_home = {
	.find	= tcmx_dev_home_find,
};

#define TCMX_DEV_TEXT(_member)						\
	TCMX_CFS_FIELD(&tcmx_dev_home, struct tcmx_core_dev, _member),	\
	.kind = TCMX_CFS_TEXT, .flags = TCMX_CFS_OPT

TCMX_CFS_ATTR(tcmx_dev_, udev_path, 0644, TCMX_DEV_TEXT(udev_path))
TCMX_CFS_ATTR(tcmx_dev_, alias, 0644, TCMX_DEV_TEXT(alias))

static struct configfs_attribute *tcmx_dev_attrs[] = {
	&tcmx_dev_attr_info,
	&tcmx_dev_attr_control,
	&tcmx_dev_attr_enable,
	&tcmx_dev_udev_path.attr,
	&tcmx_dev_alias.attr,
	NULL,
};

/* Last reference gone: configfs guarantees no LUN links here any more. */
static void tcmx_dev_release(struct config_item *item)
{
	struct tcmx_dev *dev = to_dev(item);
	struct tcmx_core_dev *cd = tcmx_core(dev);

	if (dev->ops) {		/* NULL: tcmx_hba_make_dev() failed */
		mutex_lock(&cd->lock);
		if (dev->ops->free_dev)
			dev->ops->free_dev(dev);
		mutex_unlock(&cd->lock);

		mutex_lock(&tcmx_cfs_mutex);
		tcmx_dev_count--;
		mutex_unlock(&tcmx_cfs_mutex);
	}
	tcmx_sanitize_dev_exit(dev);
	tcmx_stats_dev_exit(dev);
	tcmx_pr_dev_free(dev);
	WARN_ON_ONCE(!list_empty(&cd->luns));
	ida_destroy(&cd->rtpi_ida);
	tcmx_excl_destroy(cd);
	mutex_destroy(&cd->lock);
	kfree(cd->echo_buf);
	kfree(cd->xcopy_ids);
	config_item_put(&dev->hba->group.cg_item);
	kfree(cd);
}

static struct configfs_item_operations tcmx_dev_item_ops = {
	.release	= tcmx_dev_release,
};

static const struct config_item_type tcmx_dev_type = {
	.ct_item_ops	= &tcmx_dev_item_ops,
	.ct_attrs	= tcmx_dev_attrs,
	.ct_owner	= THIS_MODULE,
};

bool tcmx_item_is_dev(struct config_item *item)
{
	return item && item->ci_type == &tcmx_dev_type;
}

struct tcmx_dev *tcmx_item_to_dev(struct config_item *item)
{
	return tcmx_item_is_dev(item) ? to_dev(item) : NULL;
}

static struct config_group *tcmx_hba_make_dev(struct config_group *group,
					      const char *name)
{
	struct tcmx_hba *hba = container_of(group, struct tcmx_hba, group);
	struct tcmx_core_dev *cd;
	struct tcmx_dev *dev;
	int ret;

	cd = kzalloc(sizeof(*cd), GFP_KERNEL);
	if (!cd)
		return ERR_PTR(-ENOMEM);
	dev = &cd->dev;
	mutex_init(&cd->lock);
	tcmx_excl_init(cd);
	INIT_LIST_HEAD(&cd->tg_pt_gps);
	INIT_LIST_HEAD(&cd->luns);
	ida_init(&cd->rtpi_ida);
	dev->hba = hba;
	dev->ops = hba->ops;
	config_item_get(&hba->group.cg_item);
	config_group_init_type_name(&dev->group, name, &tcmx_dev_type);
	tcmx_dev_attrs_init(dev);
	tcmx_sanitize_dev_init(dev);
	tcmx_inject_dev_init(dev);
	tcmx_alua_dev_init(dev);
	ret = tcmx_stats_dev_init(dev);
	if (ret)
		goto out_put;
	if (dev->ops->alloc_dev) {
		mutex_lock(&cd->lock);
		ret = dev->ops->alloc_dev(dev);
		mutex_unlock(&cd->lock);
		if (ret)
			goto out_put;
	}

	mutex_lock(&tcmx_cfs_mutex);
	tcmx_dev_count++;
	mutex_unlock(&tcmx_cfs_mutex);
	return &dev->group;

out_put:
	dev->ops = NULL;	/* nothing for release to undo */
	config_item_put(&dev->group.cg_item);
	return ERR_PTR(ret);
}

/* ------------------------------------------------------------------ */
/* core/<plugin>_<id>: HBAs                                           */
/* ------------------------------------------------------------------ */

static inline struct tcmx_hba *to_hba(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_hba, group);
}

static ssize_t tcmx_hba_hba_info_show(struct config_item *item, char *page)
{
	struct tcmx_hba *hba = to_hba(item);

	return sysfs_emit(page, "HBA Index: %u plugin: %s version: %s\n",
			  hba->id, hba->ops->name,
			  hba->ops->version ?: "v" TCMX_VERSION);
}
CONFIGFS_ATTR_RO(tcmx_hba_, hba_info);

static ssize_t tcmx_hba_hba_mode_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "0\n");
}

static ssize_t tcmx_hba_hba_mode_store(struct config_item *item,
				       const char *page, size_t count)
{
	pr_err("%s: hba_mode: backend %s has no modes, it stays 0\n",
	       config_item_name(item), to_hba(item)->ops->name);
	return -EINVAL;
}
CONFIGFS_ATTR(tcmx_hba_, hba_mode);

static struct configfs_attribute *tcmx_hba_attrs[] = {
	&tcmx_hba_attr_hba_info,
	&tcmx_hba_attr_hba_mode,
	NULL,
};

/*
 * The HBA holds its backend's module from mkdir to here, and each device
 * holds the HBA until the end of its own release, which calls into the
 * backend.  That reference is the device's own: configfs drops a removed
 * device's parent reference at rmdir, while configfs_symlink() may still
 * hold the device across ->allow_link and the link's creation, so without
 * it the device could outlive its HBA and the backend's module (an oops
 * seen on 6.12).  Hence while a device exists, linked or being linked,
 * rmmod of its backend is refused.
 */
static void tcmx_hba_release(struct config_item *item)
{
	struct tcmx_hba *hba = to_hba(item);

	module_put(hba->ops->owner);
	kfree(hba);
}

static struct configfs_item_operations tcmx_hba_item_ops = {
	.release	= tcmx_hba_release,
};

/*
 * configfs_rmdir() drops a device's last reference inside ->rmdir, before
 * the VFS unhashes its dentry, and configfs_symlink() resolving the device
 * in that window takes a reference on an item already at 0 (refcount_t's
 * "addition on 0", then a LUN linked to freed memory: seen on 6.1).  So the
 * device keeps that reference until its dentry is unhashed, which a work
 * item waits for (microseconds after ->rmdir), and allow_link refuses a
 * dropped device.  The HBA's rmdir waits for its devices' works, so that
 * once core/ is empty the backend's module unloads at once.
 */
static void tcmx_dev_drop_work(struct work_struct *work)
{
	struct tcmx_core_dev *cd = container_of(to_delayed_work(work),
						struct tcmx_core_dev,
						drop_work);
	struct tcmx_dev *dev = &cd->dev;
	struct dentry *dentry = cd->drop_dentry;
	struct tcmx_hba *hba;

	if (dentry && !d_unhashed(dentry) && d_really_is_positive(dentry)) {
		queue_delayed_work(tcmx_wq, &cd->drop_work, 1);
		return;
	}
	dput(dentry);
	/* the HBA outlives this: the device holds it, or its rmdir waits */
	hba = dev->hba;
	config_item_put(&dev->group.cg_item);
	if (atomic_dec_and_test(&hba->drops))
		wake_up_var(&hba->drops);
}

static void tcmx_hba_drop_dev(struct config_group *group,
			      struct config_item *item)
{
	struct tcmx_dev *dev = to_dev(item);
	struct tcmx_core_dev *cd = tcmx_core(dev);

	mutex_lock(&tcmx_cfs_mutex);
	cd->dropped = true;
	mutex_unlock(&tcmx_cfs_mutex);
	/* ->rmdir's caller holds the dentry: it is still there */
	cd->drop_dentry = dget(item->ci_dentry);
	atomic_inc(&dev->hba->drops);
	INIT_DELAYED_WORK(&cd->drop_work, tcmx_dev_drop_work);
	queue_delayed_work(tcmx_wq, &cd->drop_work, 0);
}

static struct configfs_group_operations tcmx_hba_group_ops = {
	.make_group	= tcmx_hba_make_dev,
	.drop_item	= tcmx_hba_drop_dev,
};

static const struct config_item_type tcmx_hba_type = {
	.ct_item_ops	= &tcmx_hba_item_ops,
	.ct_group_ops	= &tcmx_hba_group_ops,
	.ct_attrs	= tcmx_hba_attrs,
	.ct_owner	= THIS_MODULE,
};

/* mkdir core/<plugin>_<id>; the plugin name may itself contain '_'. */
static struct config_group *tcmx_core_make_hba(struct config_group *group,
					       const char *name)
{
	const struct tcmx_backend_ops *ops;
	char plugin[TCMX_PLUGIN_NAME_MAX + 1];
	const char *sep = strrchr(name, '_');
	struct tcmx_hba *hba;
	u32 id;

	if (!sep || sep == name || sep - name > TCMX_PLUGIN_NAME_MAX ||
	    kstrtou32(sep + 1, 10, &id)) {
		pr_err("core/%s: an HBA directory is named <plugin>_<index>\n",
		       name);
		return ERR_PTR(-EINVAL);
	}
	memcpy(plugin, name, sep - name);
	plugin[sep - name] = '\0';

	ops = tcmx_backend_get(plugin);
	if (!ops) {
		request_module("tcmx-backend-%s", plugin);
		ops = tcmx_backend_get(plugin);
	}
	if (!ops) {
		tcmx_backend_report_missing(plugin);
		return ERR_PTR(-EINVAL);
	}

	hba = kzalloc(sizeof(*hba), GFP_KERNEL);
	if (!hba) {
		module_put(ops->owner);
		return ERR_PTR(-ENOMEM);
	}
	hba->ops = ops;
	hba->id = id;
	config_group_init_type_name(&hba->group, name, &tcmx_hba_type);
	return &hba->group;
}

/* ------------------------------------------------------------------ */
/* core/ and core/alua/lu_gps/default_lu_gp                           */
/* ------------------------------------------------------------------ */

static ssize_t tcmx_lu_gp_lu_gp_id_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "0\n");
}

static ssize_t tcmx_lu_gp_lu_gp_id_store(struct config_item *item,
					 const char *page, size_t count)
{
	pr_err("default_lu_gp: lu_gp_id is fixed at 0\n");
	return -EINVAL;
}
CONFIGFS_ATTR(tcmx_lu_gp_, lu_gp_id);

static ssize_t tcmx_lu_gp_members_show(struct config_item *item, char *page)
{
	return 0;
}
CONFIGFS_ATTR_RO(tcmx_lu_gp_, members);

static struct configfs_attribute *tcmx_lu_gp_attrs[] = {
	&tcmx_lu_gp_attr_lu_gp_id,
	&tcmx_lu_gp_attr_members,
	NULL,
};

static const struct config_item_type tcmx_lu_gp_type = {
	.ct_attrs	= tcmx_lu_gp_attrs,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type tcmx_core_plain_type = {
	.ct_owner	= THIS_MODULE,
};

/* rmdir core/<plugin>_<N>: once its devices' drops are done (above) */
static void tcmx_core_drop_hba(struct config_group *group,
			       struct config_item *item)
{
	struct tcmx_hba *hba = to_hba(item);

	wait_var_event(&hba->drops, !atomic_read(&hba->drops));
	config_item_put(item);
}

static struct configfs_group_operations tcmx_core_group_ops = {
	.make_group	= tcmx_core_make_hba,
	.drop_item	= tcmx_core_drop_hba,
};

static const struct config_item_type tcmx_core_type = {
	.ct_group_ops	= &tcmx_core_group_ops,
	.ct_owner	= THIS_MODULE,
};

static struct config_group tcmx_core_group;
static struct config_group tcmx_core_alua_group;
static struct config_group tcmx_lu_gps_group;
static struct config_group tcmx_default_lu_gp_group;

int tcmx_core_dir_init(struct config_group *root)
{
	config_group_init_type_name(&tcmx_core_group, "core", &tcmx_core_type);
	configfs_add_default_group(&tcmx_core_group, root);

	config_group_init_type_name(&tcmx_core_alua_group, "alua",
				    &tcmx_core_plain_type);
	configfs_add_default_group(&tcmx_core_alua_group, &tcmx_core_group);

	config_group_init_type_name(&tcmx_lu_gps_group, "lu_gps",
				    &tcmx_core_plain_type);
	configfs_add_default_group(&tcmx_lu_gps_group, &tcmx_core_alua_group);

	config_group_init_type_name(&tcmx_default_lu_gp_group, "default_lu_gp",
				    &tcmx_lu_gp_type);
	configfs_add_default_group(&tcmx_default_lu_gp_group,
				   &tcmx_lu_gps_group);
	return 0;
}

/* After configfs_unregister_subsystem(), or if it was never registered. */
void tcmx_core_dir_exit(void)
{
	configfs_remove_default_groups(&tcmx_lu_gps_group);
	configfs_remove_default_groups(&tcmx_core_alua_group);
	configfs_remove_default_groups(&tcmx_core_group);
	list_del_init(&tcmx_core_group.group_entry);
}
