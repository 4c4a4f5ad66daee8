// SPDX-License-Identifier: GPL-2.0
/*
 * The "iscsi" fabric: a placeholder that rtslib needs to exist.  ls,
 * saveconfig, clearconfig and restore all touch $T/iscsi/discovery_auth
 * (configfs-contract.md, section 1), so mkdir $T/iscsi must succeed and
 * show the six discovery_auth files; creating a target fails -EOPNOTSUPP.
 * The passwords are secrets: mode 0600, where LIO uses 0644.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "tcmx_core.h"

static struct {
	int enforce;
	int authenticate_target;
	char userid[256];
	char password[256];
	char userid_mutual[256];
	char password_mutual[256];
} tcmx_iscsi_auth;			/* under tcmx_cfs_mutex */

static ssize_t tcmx_iscsi_show_str(const char *val, char *page)
{
	ssize_t ret;

	mutex_lock(&tcmx_cfs_mutex);
	ret = sysfs_emit(page, "%s\n", val);
	mutex_unlock(&tcmx_cfs_mutex);
	return ret;
}

static ssize_t tcmx_iscsi_store_str(char *val, size_t size, const char *name,
				    const char *page, size_t count)
{
	size_t len = strcspn(page, "\n");

	if (len >= size) {
		pr_err("iscsi discovery_auth/%s: longer than %zu bytes\n",
		       name, size - 1);
		return -EINVAL;
	}
	mutex_lock(&tcmx_cfs_mutex);
	memcpy(val, page, len);
	val[len] = '\0';
	if (!strcmp(val, "NULL"))
		val[0] = '\0';
	mutex_unlock(&tcmx_cfs_mutex);
	return count;
}

static ssize_t tcmx_iscsi_store_bool(int *val, const char *name,
				     const char *page, size_t count)
{
	int v;

	if (kstrtoint(page, 0, &v) || (v != 0 && v != 1)) {
		pr_err("iscsi discovery_auth/%s: 0 or 1\n", name);
		return -EINVAL;
	}
	WRITE_ONCE(*val, v);
	return count;
}

/* A string setting, shown with @_mode (0600 for a secret). */
#define TCMX_ISCSI_STR_ATTR(_name, _mode)				\
static ssize_t tcmx_iscsi_##_name##_show(struct config_item *item,	\
					 char *page)			\
{									\
	return tcmx_iscsi_show_str(tcmx_iscsi_auth._name, page);	\
}									\
static ssize_t tcmx_iscsi_##_name##_store(struct config_item *item,	\
					  const char *page, size_t count) \
{									\
	return tcmx_iscsi_store_str(tcmx_iscsi_auth._name,		\
				    sizeof(tcmx_iscsi_auth._name),	\
				    #_name, page, count);		\
}									\
static struct configfs_attribute tcmx_iscsi_attr_##_name = {		\
	.ca_name	= #_name,					\
	.ca_owner	= THIS_MODULE,					\
	.ca_mode	= _mode,					\
	.show		= tcmx_iscsi_##_name##_show,			\
	.store		= tcmx_iscsi_##_name##_store,			\
}

#define TCMX_ISCSI_BOOL_ATTR(_name, _field)				\
static ssize_t tcmx_iscsi_##_name##_show(struct config_item *item,	\
					 char *page)			\
{									\
	return sysfs_emit(page, "%d\n", READ_ONCE(tcmx_iscsi_auth._field)); \
}									\
static ssize_t tcmx_iscsi_##_name##_store(struct config_item *item,	\
					  const char *page, size_t count) \
{									\
	return tcmx_iscsi_store_bool(&tcmx_iscsi_auth._field, #_name,	\
				     page, count);			\
}									\
CONFIGFS_ATTR(tcmx_iscsi_, _name)

TCMX_ISCSI_BOOL_ATTR(enforce_discovery_auth, enforce);
TCMX_ISCSI_BOOL_ATTR(authenticate_target, authenticate_target);
TCMX_ISCSI_STR_ATTR(userid, 0644);
TCMX_ISCSI_STR_ATTR(password, 0600);
TCMX_ISCSI_STR_ATTR(userid_mutual, 0644);
TCMX_ISCSI_STR_ATTR(password_mutual, 0600);

static struct configfs_attribute *tcmx_iscsi_discovery_attrs[] = {
	&tcmx_iscsi_attr_enforce_discovery_auth,
	&tcmx_iscsi_attr_authenticate_target,
	&tcmx_iscsi_attr_userid,
	&tcmx_iscsi_attr_password,
	&tcmx_iscsi_attr_userid_mutual,
	&tcmx_iscsi_attr_password_mutual,
	NULL,
};

static struct tcmx_wwn *tcmx_iscsi_make_wwn(struct tcmx_fabric *tf,
					    const char *name)
{
	pr_err("iscsi: cannot create target %s: tcmx has no iSCSI fabric yet\n",
	       name);
	return ERR_PTR(-EOPNOTSUPP);
}

static void tcmx_iscsi_drop_wwn(struct tcmx_wwn *wwn)
{
}

static struct tcmx_tpg *tcmx_iscsi_make_tpg(struct tcmx_wwn *wwn, u16 tag)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static void tcmx_iscsi_drop_tpg(struct tcmx_tpg *tpg)
{
}

static void tcmx_iscsi_queue_status(struct tcmx_cmd *cmd)
{
}

static const struct tcmx_fabric_ops tcmx_iscsi_ops = {
	.name		= "iscsi",
	.owner		= THIS_MODULE,
	.version	= "tcmx iSCSI placeholder (no targets)",
	.max_tpgt	= 1,
	.make_wwn	= tcmx_iscsi_make_wwn,
	.drop_wwn	= tcmx_iscsi_drop_wwn,
	.make_tpg	= tcmx_iscsi_make_tpg,
	.drop_tpg	= tcmx_iscsi_drop_tpg,
	.queue_status	= tcmx_iscsi_queue_status,
};

int tcmx_iscsi_init(void)
{
	return tcmx_fabric_add(&tcmx_iscsi_ops, tcmx_iscsi_discovery_attrs);
}

void tcmx_iscsi_exit(void)
{
	tcmx_unregister_fabric(&tcmx_iscsi_ops);
}
