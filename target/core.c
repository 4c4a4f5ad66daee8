// SPDX-License-Identifier: GPL-2.0
/*
 * tcmx_core: module life cycle and the root of the configfs tree,
 * /sys/kernel/config/target ($T): version, dbroot, core/ and one directory
 * per fabric.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/utsname.h>
#include "tcmx_core.h"

#define TCMX_DBROOT_DEFAULT	"/var/target"
#define TCMX_DBROOT_MAX		4096

DEFINE_MUTEX(tcmx_cfs_mutex);

char tcmx_dbroot[TCMX_DBROOT_MAX] = TCMX_DBROOT_DEFAULT;
int tcmx_dev_count;		/* devices that exist; dbroot is fixed then */

static ssize_t tcmx_root_version_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "tcmx target core v%s on %s/%s on %s\n",
			  TCMX_VERSION, utsname()->sysname,
			  utsname()->machine, utsname()->release);
}

static ssize_t tcmx_root_dbroot_show(struct config_item *item, char *page)
{
	ssize_t ret;

	mutex_lock(&tcmx_cfs_mutex);
	ret = sysfs_emit(page, "%s\n", tcmx_dbroot);
	mutex_unlock(&tcmx_cfs_mutex);
	return ret;
}

static ssize_t tcmx_root_dbroot_store(struct config_item *item,
				      const char *page, size_t count)
{
	struct path p;
	const char *s;
	char *path;
	size_t len;
	int ret;

	if (tcmx_cfs_strip(page, count, TCMX_DBROOT_MAX - 1, 0, &s, &len) ||
	    !len || s[0] != '/') {
		pr_err("dbroot: need an absolute path shorter than %d bytes\n",
		       TCMX_DBROOT_MAX);
		return -EINVAL;
	}
	path = kmemdup_nul(s, len, GFP_KERNEL);
	if (!path)
		return -ENOMEM;

	ret = kern_path(path, LOOKUP_FOLLOW, &p);
	if (ret) {
		pr_err("dbroot: %.*s: no such directory\n", TCMX_CFS_ECHO, path);
		ret = -EINVAL;
		goto out;
	}
	ret = d_is_dir(p.dentry) ? 0 : -ENOTDIR;
	path_put(&p);
	if (ret) {
		pr_err("dbroot: %.*s is not a directory\n", TCMX_CFS_ECHO, path);
		goto out;
	}

	mutex_lock(&tcmx_cfs_mutex);
	if (tcmx_dev_count && strcmp(path, tcmx_dbroot)) {
		pr_err_ratelimited("dbroot: cannot change while devices exist\n");
		ret = -EBUSY;
	} else {
		strscpy(tcmx_dbroot, path, sizeof(tcmx_dbroot));
	}
	mutex_unlock(&tcmx_cfs_mutex);
out:
	kfree(path);
	return ret ?: count;
}

CONFIGFS_ATTR_RO(tcmx_root_, version);
CONFIGFS_ATTR(tcmx_root_, dbroot);

static struct configfs_attribute *tcmx_root_attrs[] = {
	&tcmx_root_attr_version,
	&tcmx_root_attr_dbroot,
	NULL,
};

static struct config_group *tcmx_root_make_group(struct config_group *group,
						 const char *name)
{
	return tcmx_fabric_make_dir(name);
}

static struct configfs_group_operations tcmx_root_group_ops = {
	.make_group	= tcmx_root_make_group,
};

static const struct config_item_type tcmx_root_type = {
	.ct_group_ops	= &tcmx_root_group_ops,
	.ct_attrs	= tcmx_root_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem tcmx_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "target",
			.ci_type	= &tcmx_root_type,
		},
	},
};

static int __init tcmx_core_init(void)
{
	int ret;

	ret = tcmx_cdb_init();
	if (ret)
		return ret;
	ret = tcmx_transport_init();
	if (ret)
		return ret;
	config_group_init(&tcmx_subsys.su_group);
	mutex_init(&tcmx_subsys.su_mutex);
	ret = tcmx_core_dir_init(&tcmx_subsys.su_group);
	if (ret)
		goto out_transport;

	/* last: once registered, user space can reach everything */
	ret = configfs_register_subsystem(&tcmx_subsys);
	if (ret) {
		if (ret == -EEXIST) {
			pr_err("configfs target/ is owned by another target stack (target_core_mod?); unload it first\n");
			ret = -EBUSY;	/* modprobe takes -EEXIST for "loaded" */
		} else {
			pr_err("cannot register configfs target/: %d\n", ret);
		}
		goto out_core_dir;
	}
	pr_info("tcmx target core v%s loaded\n", TCMX_VERSION);
	return 0;

out_core_dir:
	tcmx_core_dir_exit();
out_transport:
	tcmx_transport_exit();
	return ret;
}

static void __exit tcmx_core_exit(void)
{
	configfs_unregister_subsystem(&tcmx_subsys);
	tcmx_core_dir_exit();
	tcmx_transport_exit();
	pr_info("tcmx target core unloaded\n");
}

module_init(tcmx_core_init);
module_exit(tcmx_core_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tcmx SCSI target core (LIO-compatible configfs)");
MODULE_VERSION(TCMX_VERSION);
