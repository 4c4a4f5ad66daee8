// SPDX-License-Identifier: GPL-2.0
/*
 * $T/iscsi/<target>/fabric_statistics/: the in-tree's five read-only
 * groups of the iSCSI MIB (RFC 4544), and an ACL's
 * fabric_statistics/iscsi_sess_stats, file for file.  The protocol
 * counts (counts.c for the target's struct tcmx_iscsi_tiqn_stats, a
 * session's io work for its struct tcmx_iscsi_sess_counts, which
 * sess_info.c reads).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/module.h>
#include "cfs.h"

enum tcmx_iscsi_stat_kind {
	TCMX_STAT_INST,		/* the target's index */
	TCMX_STAT_ONE,		/* the node index, the node count */
	TCMX_STAT_ZERO,		/* a constant 0 */
	TCMX_STAT_PORTALS,	/* portals of the target's TPGs */
	TCMX_STAT_TEXT,		/* a constant text */
	TCMX_STAT_COUNT,	/* the u32 at off in the target's stats */
	TCMX_STAT_NAME,		/* the name at off, or "None" */
	TCMX_STAT_FAIL_SESS,	/* sessions failed, by any cause */
	TCMX_STAT_LOGIN_FAILS,	/* logins refused, by any cause */
	TCMX_STAT_FAIL_TIME,	/* the last refusal, 1/100 s since boot */
	TCMX_STAT_FAIL_FAMILY,	/* its address family */
	TCMX_STAT_FAIL_ADDR,	/* its address */
	TCMX_STAT_SESS,		/* the u64 at off in the ACL's session */
};

static const struct config_item_type tcmx_iscsi_sess_stats_type;

/* the ACL of a group in acls/<i>/fabric_statistics/, else NULL */
static struct tcmx_acl *tcmx_iscsi_stat_acl(struct config_item *item)
{
	struct config_group *parent = to_config_group(item->ci_parent);

	if (item->ci_type != &tcmx_iscsi_sess_stats_type)
		return NULL;
	return container_of(parent, struct tcmx_acl, stats_group);
}

/* the target of a group in <target>/ or acls/<i>/fabric_statistics/ */
static struct tcmx_iscsi_tiqn *tcmx_iscsi_stat_tiqn(struct config_item *item)
{
	struct config_group *parent = to_config_group(item->ci_parent);
	struct tcmx_acl *acl = tcmx_iscsi_stat_acl(item);

	if (acl)
		return to_iscsi_tpg(acl->tpg)->tiqn;
	return to_iscsi_tiqn(container_of(parent, struct tcmx_wwn,
					  stats_group));
}

/* the file kinds that read the target's counters, under their lock */
static ssize_t tcmx_iscsi_stat_count_show(struct tcmx_iscsi_tiqn_stats *st,
					  enum tcmx_iscsi_stat_kind kind,
					  size_t off, char *page)
{
	u32 n = 0;

	spin_lock_bh(&st->lock);
	switch (kind) {
	case TCMX_STAT_COUNT:
		n = *(u32 *)((char *)st + off);
		break;
	case TCMX_STAT_NAME:
		spin_unlock_bh(&st->lock);
		return sysfs_emit(page, "%s\n", *((char *)st + off) ?
				  (char *)st + off : "None");
	case TCMX_STAT_FAIL_SESS:
		n = st->digest_errors + st->timeout_errors + st->format_errors;
		break;
	case TCMX_STAT_LOGIN_FAILS:
		n = st->redirects + st->authorize_fails +
		    st->authenticate_fails + st->negotiate_fails +
		    st->other_fails;
		break;
	case TCMX_STAT_FAIL_TIME:
		if (st->last_fail_time)
			n = (u32)(st->last_fail_time - INITIAL_JIFFIES) * 100 /
			    HZ;
		break;
	case TCMX_STAT_FAIL_FAMILY:
		n = st->last_fail_addr.ss_family;
		spin_unlock_bh(&st->lock);
		return sysfs_emit(page, "%s\n", n == AF_INET6 ? "ipv6" : "ipv4");
	case TCMX_STAT_FAIL_ADDR:
		n = st->last_fail_addr.ss_family;
		if (n == AF_INET || n == AF_INET6) {
			struct sockaddr_storage addr = st->last_fail_addr;

			spin_unlock_bh(&st->lock);
			return sysfs_emit(page, "%pISc\n", &addr);
		}
		spin_unlock_bh(&st->lock);
		return sysfs_emit(page, "0.0.0.0\n");
	default:
		break;
	}
	spin_unlock_bh(&st->lock);
	return sysfs_emit(page, "%u\n", n);
}

static ssize_t tcmx_iscsi_stat_show(struct config_item *item,
				    enum tcmx_iscsi_stat_kind kind,
				    const char *text, size_t off, char *page)
{
	struct tcmx_iscsi_tiqn *tiqn = tcmx_iscsi_stat_tiqn(item);
	struct tcmx_iscsi_tpg *tpg;
	struct tcmx_iscsi_np *np;
	struct tcmx_acl *acl;
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
		return sysfs_emit(page, "%s\n", text);
	case TCMX_STAT_SESS:
		acl = tcmx_iscsi_stat_acl(item);
		return tcmx_iscsi_sess_count(to_iscsi_tpg(acl->tpg),
					     tcmx_acl_name(acl), off, page);
	default:
		return tcmx_iscsi_stat_count_show(&tiqn->stats, kind, off,
						  page);
	}
}

/* a read-only file of group _grp; it ends with a function: no ';' */
#define TCMX_ISCSI_STAT_ANY(_grp, _name, _kind, _text, _off)		\
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
	return tcmx_iscsi_stat_show(item, _kind, _text, _off, page);	\
}

#define TCMX_ISCSI_STAT_FILE(_grp, _name, _kind, _text)			\
	TCMX_ISCSI_STAT_ANY(_grp, _name, _kind, _text, 0)
/* a counter (or name) of struct tcmx_iscsi_tiqn_stats */
#define TCMX_ISCSI_STAT_COUNT(_grp, _name, _kind, _field)		\
	TCMX_ISCSI_STAT_ANY(_grp, _name, _kind, NULL,			\
			    offsetof(struct tcmx_iscsi_tiqn_stats, _field))
/* a counter of the ACL's session, struct tcmx_iscsi_sess_counts */
#define TCMX_ISCSI_STAT_SESS(_name)					\
	TCMX_ISCSI_STAT_ANY(sess_stats, _name, TCMX_STAT_SESS, NULL,	\
			    offsetof(struct tcmx_iscsi_sess_counts, _name))

TCMX_ISCSI_STAT_FILE(instance, inst, TCMX_STAT_INST, NULL)
TCMX_ISCSI_STAT_FILE(instance, min_ver, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(instance, max_ver, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(instance, portals, TCMX_STAT_PORTALS, NULL)
TCMX_ISCSI_STAT_FILE(instance, nodes, TCMX_STAT_ONE, NULL)
TCMX_ISCSI_STAT_COUNT(instance, sessions, TCMX_STAT_COUNT, sessions)
TCMX_ISCSI_STAT_FILE(instance, fail_sess, TCMX_STAT_FAIL_SESS, NULL)
TCMX_ISCSI_STAT_COUNT(instance, fail_type, TCMX_STAT_COUNT,
		      last_sess_fail_type)
TCMX_ISCSI_STAT_COUNT(instance, fail_rem_name, TCMX_STAT_NAME,
		      last_sess_fail_name)
TCMX_ISCSI_STAT_FILE(instance, disc_time, TCMX_STAT_ZERO, NULL)
TCMX_ISCSI_STAT_FILE(instance, description, TCMX_STAT_TEXT, "tcmx iSCSI Target")
TCMX_ISCSI_STAT_FILE(instance, vendor, TCMX_STAT_TEXT, "tcmx")
TCMX_ISCSI_STAT_FILE(instance, version, TCMX_STAT_TEXT, TCMX_VERSION)
TCMX_ISCSI_STAT_FILE(sess_err, inst, TCMX_STAT_INST, NULL)
TCMX_ISCSI_STAT_COUNT(sess_err, digest_errors, TCMX_STAT_COUNT, digest_errors)
TCMX_ISCSI_STAT_COUNT(sess_err, cxn_errors, TCMX_STAT_COUNT, timeout_errors)
TCMX_ISCSI_STAT_COUNT(sess_err, format_errors, TCMX_STAT_COUNT, format_errors)
TCMX_ISCSI_STAT_FILE(tgt_attr, inst, TCMX_STAT_INST, NULL)
TCMX_ISCSI_STAT_FILE(tgt_attr, indx, TCMX_STAT_ONE, NULL)
TCMX_ISCSI_STAT_FILE(tgt_attr, login_fails, TCMX_STAT_LOGIN_FAILS, NULL)
TCMX_ISCSI_STAT_FILE(tgt_attr, last_fail_time, TCMX_STAT_FAIL_TIME, NULL)
TCMX_ISCSI_STAT_COUNT(tgt_attr, last_fail_type, TCMX_STAT_COUNT,
		      last_fail_type)
TCMX_ISCSI_STAT_COUNT(tgt_attr, fail_intr_name, TCMX_STAT_NAME, last_fail_name)
TCMX_ISCSI_STAT_FILE(tgt_attr, fail_intr_addr_type, TCMX_STAT_FAIL_FAMILY, NULL)
TCMX_ISCSI_STAT_FILE(tgt_attr, fail_intr_addr, TCMX_STAT_FAIL_ADDR, NULL)
TCMX_ISCSI_STAT_FILE(login_stats, inst, TCMX_STAT_INST, NULL)
TCMX_ISCSI_STAT_FILE(login_stats, indx, TCMX_STAT_ONE, NULL)
TCMX_ISCSI_STAT_COUNT(login_stats, accepts, TCMX_STAT_COUNT, accepts)
TCMX_ISCSI_STAT_COUNT(login_stats, other_fails, TCMX_STAT_COUNT, other_fails)
TCMX_ISCSI_STAT_COUNT(login_stats, redirects, TCMX_STAT_COUNT, redirects)
TCMX_ISCSI_STAT_COUNT(login_stats, authorize_fails, TCMX_STAT_COUNT, authorize_fails)
TCMX_ISCSI_STAT_COUNT(login_stats, authenticate_fails, TCMX_STAT_COUNT, authenticate_fails)
TCMX_ISCSI_STAT_COUNT(login_stats, negotiate_fails, TCMX_STAT_COUNT, negotiate_fails)
TCMX_ISCSI_STAT_FILE(logout_stats, inst, TCMX_STAT_INST, NULL)
TCMX_ISCSI_STAT_FILE(logout_stats, indx, TCMX_STAT_ONE, NULL)
TCMX_ISCSI_STAT_COUNT(logout_stats, normal_logouts, TCMX_STAT_COUNT, normal_logouts)
TCMX_ISCSI_STAT_COUNT(logout_stats, abnormal_logouts, TCMX_STAT_COUNT, abnormal_logouts)

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
TCMX_ISCSI_STAT_SESS(node)
TCMX_ISCSI_STAT_SESS(indx)
TCMX_ISCSI_STAT_SESS(cmd_pdus)
TCMX_ISCSI_STAT_SESS(rsp_pdus)
TCMX_ISCSI_STAT_SESS(txdata_octs)
TCMX_ISCSI_STAT_SESS(rxdata_octs)
TCMX_ISCSI_STAT_SESS(conn_digest_errors)
TCMX_ISCSI_STAT_SESS(conn_timeout_errors)

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

	spin_lock_init(&tiqn->stats.lock);
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
