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
#include "cfs_attr.h"
#include "tcmx_core.h"

static struct tcmx_iscsi_auth {
	u8	enforce;
	u8	authenticate_target;
	char	userid[256];
	char	password[256];
	char	userid_mutual[256];
	char	password_mutual[256];
} tcmx_iscsi_auth;			/* under tcmx_cfs_mutex */

/* Files of the one mechanism (cfs_attr.c): "NULL" clears a string. */
#define TCMX_ISCSI_BOOL(_member)					\
	TCMX_CFS_GLOBAL_FIELD(tcmx_iscsi_auth, _member), .max = 1
#define TCMX_ISCSI_TEXT(_member)					\
	TCMX_CFS_GLOBAL_FIELD(tcmx_iscsi_auth, _member),		\
	.kind = TCMX_CFS_TEXT, .flags = TCMX_CFS_NULL

TCMX_CFS_ATTR(tcmx_iscsi_, enforce_discovery_auth, 0644,
	      TCMX_ISCSI_BOOL(enforce))
TCMX_CFS_ATTR(tcmx_iscsi_, authenticate_target, 0644,
	      TCMX_ISCSI_BOOL(authenticate_target))
TCMX_CFS_ATTR(tcmx_iscsi_, userid, 0644, TCMX_ISCSI_TEXT(userid))
TCMX_CFS_ATTR(tcmx_iscsi_, password, 0600, TCMX_ISCSI_TEXT(password))
TCMX_CFS_ATTR(tcmx_iscsi_, userid_mutual, 0644,
	      TCMX_ISCSI_TEXT(userid_mutual))
TCMX_CFS_ATTR(tcmx_iscsi_, password_mutual, 0600,
	      TCMX_ISCSI_TEXT(password_mutual))

static struct configfs_attribute *tcmx_iscsi_discovery_attrs[] = {
	&tcmx_iscsi_enforce_discovery_auth.attr,
	&tcmx_iscsi_authenticate_target.attr,
	&tcmx_iscsi_userid.attr,
	&tcmx_iscsi_password.attr,
	&tcmx_iscsi_userid_mutual.attr,
	&tcmx_iscsi_password_mutual.attr,
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
