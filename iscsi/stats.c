// SPDX-License-Identifier: GPL-2.0
/*
 * $T/iscsi/<target>/fabric_statistics/: the in-tree's five read-only
 * groups of the iSCSI MIB (RFC 4544), and an ACL's
 * fabric_statistics/iscsi_sess_stats, file for file.  Counters the
 * protocol does not keep yet read 0.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "cfs.h"

enum tcmx_iscsi_stat_kind {
	TCMX_STAT_INST,		/* the target's index */
	TCMX_STAT_ONE,		/* the node index, the node count */
	TCMX_STAT_ZERO,		/* a counter not kept */
	TCMX_STAT_PORTALS,	/* portals of the target's TPGs */
	TCMX_STAT_TEXT,		/* a constant text */
};

static const struct config_item_type tcmx_iscsi_sess_stats_type;

/* the target of a group in <target>/ or acls/<i>/fabric_statistics/ */
static struct tcmx_iscsi_tiqn *tcmx_iscsi_stat_tiqn(struct config_item *item)
{
	struct config_group *parent = to_config_group(item->ci_parent);
	struct tcmx_acl *acl;

	if (item->ci_type == &tcmx_iscsi_sess_stats_type) {
		acl = container_of(parent, struct tcmx_acl, stats_group);
		return to_iscsi_tpg(acl->tpg)->tiqn;
	}
	return to_iscsi_tiqn(container_of(parent, struct tcmx_wwn,
					  stats_group));
}

static ssize_t tcmx_iscsi_stat_show(struct config_item *item,
				    enum tcmx_iscsi_stat_kind kind,
				    const char *text, char *page)
{
	struct tcmx_iscsi_tiqn *tiqn = tcmx_iscsi_stat_tiqn(item);
	struct tcmx_iscsi_tpg *tpg;
	struct tcmx_iscsi_np *np;
	u32 n = 0;

	switch (kind) {
	case TCMX_STAT_INST:
		return sysfs_emit(page, "%u\n", tiqn->index);
	case TCMX_STAT_ONE:
		return sysfs_emit(page, "1\n");
	case TCMX_STAT_ZERO:
		return sysfs_emit(page, "0\n");
	case TCMX_STAT_PORTALS:
		mutex_lock(&tcmx_iscsi_cfg_mutex);
		list_for_each_entry(tpg, &tiqn->tpgs, node)
			list_for_each_entry(np, &tpg->nps, node)
				n++;
		mutex_unlock(&tcmx_iscsi_cfg_mutex);
		return sysfs_emit(page, "%u\n", n);
	case TCMX_STAT_TEXT:
		break;
	}
	return sysfs_emit(page, "%s\n", text);
}

/* a read-only file of group _grp; it ends with a function: no ';' */
#define TCMX_ISCSI_STAT_FILE(_grp, _name, _kind, _text)			\
static ssize_t tcmx_iscsi_##_grp##_##_name##_show(struct config_item *item, \
						  char *page);		\
static struct configfs_attribute tcmx_iscsi_##_grp##_attr_##_name = {	\
	.ca_name	= #_name,					\
	.ca_owner	= THIS_MODULE,					\
	.ca_mode	= 0444,						\
	.show		= tcmx_iscsi_##_grp##_##_name##_show,		\
};									\
static ssize_t tcmx_iscsi_##_grp##_##_name##_show(struct config_item *item, \
						  char *page)		\
{									\
	return tcmx_iscsi_stat_show(item, _kind, _text, page);		\
}

TCMX_ISCSI_STAT_FILE(instance, inst, TCMX_STAT_INST, NULL)
TCMX_ISCSI_STAT_FILE(instance, min_ver, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(instance, max_ver, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(instance, portals, TCMX_STAT_PORTALS, NULL)
TCMX_ISCSI_STAT_FILE(instance, nodes, TCMX_STAT_ONE, NULL)
TCMX_ISCSI_STAT_FILE(instance, sessions, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(instance, fail_sess, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(instance, fail_type, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(instance, fail_rem_name, TCMX_STAT_TEXT, "None")
TCMX_ISCSI_STAT_FILE(instance, disc_time, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(instance, description, TCMX_STAT_TEXT, "tcmx iSCSI Target")
TCMX_ISCSI_STAT_FILE(instance, vendor, TCMX_STAT_TEXT, "tcmx")
TCMX_ISCSI_STAT_FILE(instance, version, TCMX_STAT_TEXT, TCMX_VERSION)
TCMX_ISCSI_STAT_FILE(sess_err, inst, TCMX_STAT_INST, NULL)
TCMX_ISCSI_STAT_FILE(sess_err, digest_errors, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(sess_err, cxn_errors, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(sess_err, format_errors, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(tgt_attr, inst, TCMX_STAT_INST, NULL)
TCMX_ISCSI_STAT_FILE(tgt_attr, indx, TCMX_STAT_ONE, NULL)
TCMX_ISCSI_STAT_FILE(tgt_attr, login_fails, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(tgt_attr, last_fail_time, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(tgt_attr, last_fail_type, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(tgt_attr, fail_intr_name, TCMX_STAT_TEXT, "None")
TCMX_ISCSI_STAT_FILE(tgt_attr, fail_intr_addr_type, TCMX_STAT_TEXT, "ipv4")
TCMX_ISCSI_STAT_FILE(tgt_attr, fail_intr_addr, TCMX_STAT_TEXT, "0.0.0.0")
TCMX_ISCSI_STAT_FILE(login_stats, inst, TCMX_STAT_INST, NULL)
TCMX_ISCSI_STAT_FILE(login_stats, indx, TCMX_STAT_ONE, NULL)
TCMX_ISCSI_STAT_FILE(login_stats, accepts, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(login_stats, other_fails, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(login_stats, redirects, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(login_stats, authorize_fails, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(login_stats, authenticate_fails, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(login_stats, negotiate_fails, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(logout_stats, inst, TCMX_STAT_INST, NULL)
TCMX_ISCSI_STAT_FILE(logout_stats, indx, TCMX_STAT_ONE, NULL)
TCMX_ISCSI_STAT_FILE(logout_stats, normal_logouts, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(logout_stats, abnormal_logouts, TCMX_STAT_ZERO, NULL)

#define TCMX_ISCSI_STAT_ENTRY(_grp, _name)	(&tcmx_iscsi_##_grp##_attr_##_name),

static struct configfs_attribute *tcmx_iscsi_instance_attrs[] = {
	TCMX_ISCSI_STAT_ENTRY(instance, inst)
	TCMX_ISCSI_STAT_ENTRY(instance, min_ver)
	TCMX_ISCSI_STAT_ENTRY(instance, max_ver)
	TCMX_ISCSI_STAT_ENTRY(instance, portals)
	TCMX_ISCSI_STAT_ENTRY(instance, nodes)
	TCMX_ISCSI_STAT_ENTRY(instance, sessions)
	TCMX_ISCSI_STAT_ENTRY(instance, fail_sess)
	TCMX_ISCSI_STAT_ENTRY(instance, fail_type)
	TCMX_ISCSI_STAT_ENTRY(instance, fail_rem_name)
	TCMX_ISCSI_STAT_ENTRY(instance, disc_time)
	TCMX_ISCSI_STAT_ENTRY(instance, description)
	TCMX_ISCSI_STAT_ENTRY(instance, vendor)
	TCMX_ISCSI_STAT_ENTRY(instance, version)
	NULL,
};

static struct configfs_attribute *tcmx_iscsi_sess_err_attrs[] = {
	TCMX_ISCSI_STAT_ENTRY(sess_err, inst)
	TCMX_ISCSI_STAT_ENTRY(sess_err, digest_errors)
	TCMX_ISCSI_STAT_ENTRY(sess_err, cxn_errors)
	TCMX_ISCSI_STAT_ENTRY(sess_err, format_errors)
	NULL,
};

static struct configfs_attribute *tcmx_iscsi_tgt_attr_attrs[] = {
	TCMX_ISCSI_STAT_ENTRY(tgt_attr, inst)
	TCMX_ISCSI_STAT_ENTRY(tgt_attr, indx)
	TCMX_ISCSI_STAT_ENTRY(tgt_attr, login_fails)
	TCMX_ISCSI_STAT_ENTRY(tgt_attr, last_fail_time)
	TCMX_ISCSI_STAT_ENTRY(tgt_attr, last_fail_type)
	TCMX_ISCSI_STAT_ENTRY(tgt_attr, fail_intr_name)
	TCMX_ISCSI_STAT_ENTRY(tgt_attr, fail_intr_addr_type)
	TCMX_ISCSI_STAT_ENTRY(tgt_attr, fail_intr_addr)
	NULL,
};

static struct configfs_attribute *tcmx_iscsi_login_stats_attrs[] = {
	TCMX_ISCSI_STAT_ENTRY(login_stats, inst)
	TCMX_ISCSI_STAT_ENTRY(login_stats, indx)
	TCMX_ISCSI_STAT_ENTRY(login_stats, accepts)
	TCMX_ISCSI_STAT_ENTRY(login_stats, other_fails)
	TCMX_ISCSI_STAT_ENTRY(login_stats, redirects)
	TCMX_ISCSI_STAT_ENTRY(login_stats, authorize_fails)
	TCMX_ISCSI_STAT_ENTRY(login_stats, authenticate_fails)
	TCMX_ISCSI_STAT_ENTRY(login_stats, negotiate_fails)
	NULL,
};

static struct configfs_attribute *tcmx_iscsi_logout_stats_attrs[] = {
	TCMX_ISCSI_STAT_ENTRY(logout_stats, inst)
	TCMX_ISCSI_STAT_ENTRY(logout_stats, indx)
	TCMX_ISCSI_STAT_ENTRY(logout_stats, normal_logouts)
	TCMX_ISCSI_STAT_ENTRY(logout_stats, abnormal_logouts)
	NULL,
};

TCMX_ISCSI_STAT_FILE(sess_stats, inst, TCMX_STAT_INST, NULL)
TCMX_ISCSI_STAT_FILE(sess_stats, node, TCMX_STAT_ONE, NULL)
TCMX_ISCSI_STAT_FILE(sess_stats, indx, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(sess_stats, cmd_pdus, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(sess_stats, rsp_pdus, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(sess_stats, txdata_octs, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(sess_stats, rxdata_octs, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(sess_stats, conn_digest_errors, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(sess_stats, conn_timeout_errors, TCMX_STAT_ZERO, NULL)

static struct configfs_attribute *tcmx_iscsi_sess_stats_attrs[] = {
	TCMX_ISCSI_STAT_ENTRY(sess_stats, inst)
	TCMX_ISCSI_STAT_ENTRY(sess_stats, node)
	TCMX_ISCSI_STAT_ENTRY(sess_stats, indx)
	TCMX_ISCSI_STAT_ENTRY(sess_stats, cmd_pdus)
	TCMX_ISCSI_STAT_ENTRY(sess_stats, rsp_pdus)
	TCMX_ISCSI_STAT_ENTRY(sess_stats, txdata_octs)
	TCMX_ISCSI_STAT_ENTRY(sess_stats, rxdata_octs)
	TCMX_ISCSI_STAT_ENTRY(sess_stats, conn_digest_errors)
	TCMX_ISCSI_STAT_ENTRY(sess_stats, conn_timeout_errors)
	NULL,
};

static const struct config_item_type tcmx_iscsi_sess_stats_type = {
	.ct_owner	= THIS_MODULE,
	.ct_attrs	= tcmx_iscsi_sess_stats_attrs,
};

static const struct config_item_type tcmx_iscsi_stat_types[] = {
	{ .ct_owner = THIS_MODULE, .ct_attrs = tcmx_iscsi_instance_attrs },
	{ .ct_owner = THIS_MODULE, .ct_attrs = tcmx_iscsi_sess_err_attrs },
	{ .ct_owner = THIS_MODULE, .ct_attrs = tcmx_iscsi_tgt_attr_attrs },
	{ .ct_owner = THIS_MODULE, .ct_attrs = tcmx_iscsi_login_stats_attrs },
	{ .ct_owner = THIS_MODULE, .ct_attrs = tcmx_iscsi_logout_stats_attrs },
};

static const char * const tcmx_iscsi_stat_names[] = {
	"iscsi_instance", "iscsi_sess_err", "iscsi_tgt_attr",
	"iscsi_login_stats", "iscsi_logout_stats",
};

void tcmx_iscsi_add_wwn_stats(struct tcmx_wwn *wwn)
{
	struct tcmx_iscsi_tiqn *tiqn = to_iscsi_tiqn(wwn);
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(tcmx_iscsi_stat_types) !=
		     ARRAY_SIZE(tiqn->stat_groups));
	for (i = 0; i < ARRAY_SIZE(tiqn->stat_groups); i++) {
		config_group_init_type_name(&tiqn->stat_groups[i],
					    tcmx_iscsi_stat_names[i],
					    &tcmx_iscsi_stat_types[i]);
		configfs_add_default_group(&tiqn->stat_groups[i],
					   &wwn->stats_group);
	}
}

void tcmx_iscsi_add_acl_stats(struct tcmx_acl *acl)
{
	struct tcmx_iscsi_acl *a = to_iscsi_acl(acl);

	config_group_init_type_name(&a->sess_stats_group, "iscsi_sess_stats",
				    &tcmx_iscsi_sess_stats_type);
	configfs_add_default_group(&a->sess_stats_group, &acl->stats_group);
}
