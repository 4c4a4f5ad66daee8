// SPDX-License-Identifier: GPL-2.0
/*
 * The iSCSI part of a node ACL, tpgt_<t>/acls/<initiator>/ (the core has
 * the directory and its mapped LUNs, acl.c):
 *
 *   info, param/<Key>	the initiator's sessions, as the protocol shows
 *			them (RO)
 *   cmdsn_depth	the CmdSN window of its sessions, 1..512; a change
 *			ends them, to log in again with the new one
 *   tag		a free text; "NULL" clears it
 *   attrib/<name>	TCMX_ISCSI_ACL_ATTRIBS, and authentication: -1 (the
 *			TPG's), 0 or 1
 *   auth/		its CHAP credentials
 *
 * The data lives in struct tcmx_iscsi_acl, which the core allocates with
 * the ACL (acl_priv_size); under tcmx_iscsi_cfg_mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/string.h>
#include "cfs.h"

#define TCMX_ISCSI_TAG_LEN	64	/* with NUL, as the in-tree's */

/* "<target>/tpgt_<t>/acls/<initiator>" for an error line */
#define TCMX_ISCSI_ACL_FMT	"%s/tpgt_%u/acls/%s"

/* attrib/: the rules of acl_attrib.h */
enum {
#define TCMX_ISCSI_ACL_ATTRIB(_name, _def, _min, _max)	TCMX_NA_##_name,
#include "acl_attrib.h"
#undef TCMX_ISCSI_ACL_ATTRIB
	TCMX_NA_NR
};

static const struct tcmx_iscsi_attrib_rule tcmx_iscsi_na_rules[] = {
#define TCMX_ISCSI_ACL_ATTRIB(_name, _def, _min, _max)			\
	[TCMX_NA_##_name] = {						\
		.name = #_name,						\
		.off = offsetof(struct tcmx_iscsi_acl_attrib, _name),	\
		.def = _def, .min = _min, .max = _max,			\
	},
#include "acl_attrib.h"
#undef TCMX_ISCSI_ACL_ATTRIB
};

static u32 *tcmx_iscsi_na(struct tcmx_iscsi_acl *a, int id)
{
	return tcmx_iscsi_rule_val(&a->attrib, &tcmx_iscsi_na_rules[id]);
}

static void tcmx_iscsi_na_defaults(struct tcmx_iscsi_acl *a)
{
	int i;

	for (i = 0; i < TCMX_NA_NR; i++)
		*tcmx_iscsi_na(a, i) = tcmx_iscsi_na_rules[i].def;
	a->attrib.authentication = -1;
}

struct tcmx_iscsi_acl *tcmx_iscsi_acl_find(struct tcmx_iscsi_tpg *tpg,
					   const char *initiator)
{
	struct tcmx_iscsi_acl *a;

	lockdep_assert_held(&tcmx_iscsi_cfg_mutex);
	list_for_each_entry(a, &tpg->acls, node)
		if (!strcmp(tcmx_acl_name(a->acl), initiator))
			return a;
	return NULL;
}

int tcmx_iscsi_init_acl(struct tcmx_acl *acl)
{
	struct tcmx_iscsi_tpg *tpg = to_iscsi_tpg(acl->tpg);
	struct tcmx_iscsi_acl *a = to_iscsi_acl(acl);

	if (strlen(tcmx_acl_name(acl)) >= TCMX_ISCSI_NAME_LEN) {
		pr_err(TCMX_ISCSI_TPG_FMT ": initiator name %.64s... is %d bytes or longer\n",
		       tcmx_iscsi_tpg_wwn(tpg), tpg->tpg.tag, tcmx_acl_name(acl),
		       TCMX_ISCSI_NAME_LEN);
		return -EINVAL;
	}
	a->acl = acl;
	a->tpg = tpg;
	tcmx_iscsi_na_defaults(a);
	a->attrib.authentication = -1;
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	a->cmdsn_depth = tpg->attrib.default_cmdsn_depth;
	list_add_tail(&a->node, &tpg->acls);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return 0;
}

/* rmdir acls/<initiator>: its sessions end */
void tcmx_iscsi_drop_acl(struct tcmx_acl *acl)
{
	struct tcmx_iscsi_acl *a = to_iscsi_acl(acl);

	mutex_lock(&tcmx_iscsi_cfg_mutex);
	list_del_init(&a->node);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	tcmx_iscsi_acl_shutdown(a->tpg, tcmx_acl_name(acl));
}

/* ------------------------------------------------------------------ */
/* acls/<initiator>/: info, cmdsn_depth, tag                           */
/* ------------------------------------------------------------------ */

static ssize_t tcmx_iscsi_acl_info_show(struct config_item *item, char *page)
{
	struct tcmx_acl *acl = tcmx_item_to_acl(item);

	return tcmx_iscsi_sess_info(to_iscsi_tpg(acl->tpg), tcmx_acl_name(acl),
				    page);
}

static ssize_t tcmx_iscsi_acl_cmdsn_depth_show(struct config_item *item,
					       char *page)
{
	struct tcmx_iscsi_acl *a = to_iscsi_acl(tcmx_item_to_acl(item));
	u32 depth;

	mutex_lock(&tcmx_iscsi_cfg_mutex);
	depth = a->cmdsn_depth;
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return sysfs_emit(page, "%u\n", depth);
}

static ssize_t tcmx_iscsi_acl_cmdsn_depth_store(struct config_item *item,
						const char *page, size_t count)
{
	struct tcmx_iscsi_acl *a = to_iscsi_acl(tcmx_item_to_acl(item));
	bool changed;
	u32 val;

	if (memchr(page, '\0', count) || kstrtou32(page, 0, &val) || !val ||
	    val > 512) {
		pr_err(TCMX_ISCSI_ACL_FMT ": cmdsn_depth: %.*s is not in 1..512\n",
		       tcmx_iscsi_tpg_wwn(a->tpg), a->tpg->tpg.tag,
		       tcmx_acl_name(a->acl), TCMX_ISCSI_ECHO, page);
		return -EINVAL;
	}
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	changed = a->cmdsn_depth != val;
	a->cmdsn_depth = val;
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	/* its sessions log in again with the new window */
	if (changed)
		tcmx_iscsi_acl_shutdown(a->tpg, tcmx_acl_name(a->acl));
	return count;
}

static ssize_t tcmx_iscsi_acl_tag_show(struct config_item *item, char *page)
{
	struct tcmx_iscsi_acl *a = to_iscsi_acl(tcmx_item_to_acl(item));
	ssize_t ret;

	mutex_lock(&tcmx_iscsi_cfg_mutex);
	ret = a->tag[0] ? sysfs_emit(page, "%s\n", a->tag) : 0;
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return ret;
}

static ssize_t tcmx_iscsi_acl_tag_store(struct config_item *item,
					const char *page, size_t count)
{
	struct tcmx_iscsi_acl *a = to_iscsi_acl(tcmx_item_to_acl(item));
	size_t len = count;

	if (len && page[len - 1] == '\n')
		len--;
	if (memchr(page, '\0', len) || len >= TCMX_ISCSI_TAG_LEN) {
		pr_err(TCMX_ISCSI_ACL_FMT ": tag: at most %d bytes, no NUL\n",
		       tcmx_iscsi_tpg_wwn(a->tpg), a->tpg->tpg.tag,
		       tcmx_acl_name(a->acl), TCMX_ISCSI_TAG_LEN - 1);
		return -EINVAL;
	}
	if (len == 4 && !strncmp(page, "NULL", 4))
		len = 0;
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	memcpy(a->tag, page, len);
	a->tag[len] = '\0';
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return count;
}

CONFIGFS_ATTR_RO(tcmx_iscsi_acl_, info);
CONFIGFS_ATTR(tcmx_iscsi_acl_, cmdsn_depth);
CONFIGFS_ATTR(tcmx_iscsi_acl_, tag);

struct configfs_attribute *tcmx_iscsi_acl_attrs[] = {
	&tcmx_iscsi_acl_attr_info,
	&tcmx_iscsi_acl_attr_cmdsn_depth,
	&tcmx_iscsi_acl_attr_tag,
	NULL,
};

/* ------------------------------------------------------------------ */
/* attrib/                                                             */
/* ------------------------------------------------------------------ */

static ssize_t tcmx_iscsi_na_show(struct config_item *item, int id, char *page)
{
	struct tcmx_iscsi_acl *a = to_iscsi_acl(tcmx_attrib_item_to_acl(item));
	u32 val;

	mutex_lock(&tcmx_iscsi_cfg_mutex);
	val = *tcmx_iscsi_na(a, id);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return sysfs_emit(page, "%u\n", val);
}

static ssize_t tcmx_iscsi_na_store(struct config_item *item, int id,
				   const char *page, size_t count)
{
	struct tcmx_iscsi_acl *a = to_iscsi_acl(tcmx_attrib_item_to_acl(item));
	const struct tcmx_iscsi_attrib_rule *r = &tcmx_iscsi_na_rules[id];
	bool nopin = id == TCMX_NA_nopin_timeout;
	u32 val;

	/* nopin_timeout: 0 (no NOP-In) or 3..60, as the in-tree's */
	if (memchr(page, '\0', count) || kstrtou32(page, 0, &val) ||
	    val < r->min || val > r->max || (nopin && val && val < 3)) {
		pr_err(TCMX_ISCSI_ACL_FMT "/attrib/%s: %.*s is not a value in %s%u..%u\n",
		       tcmx_iscsi_tpg_wwn(a->tpg), a->tpg->tpg.tag,
		       tcmx_acl_name(a->acl), r->name, TCMX_ISCSI_ECHO, page,
		       nopin ? "0 or " : "", nopin ? 3 : r->min, r->max);
		return -EINVAL;
	}
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	*tcmx_iscsi_na(a, id) = val;
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return count;
}

/* the file of each attribute; it ends with a function: no ';' */
#define TCMX_ISCSI_ACL_ATTRIB(_name, _def, _min, _max)			\
	TCMX_ISCSI_ID_FILE_RW(tcmx_iscsi_na_, _name, #_name, TCMX_NA_##_name, \
			      tcmx_iscsi_na_show, tcmx_iscsi_na_store)
#include "acl_attrib.h"
#undef TCMX_ISCSI_ACL_ATTRIB

static ssize_t tcmx_iscsi_na_authentication_show(struct config_item *item,
						 char *page)
{
	struct tcmx_iscsi_acl *a = to_iscsi_acl(tcmx_attrib_item_to_acl(item));
	s32 val;

	mutex_lock(&tcmx_iscsi_cfg_mutex);
	val = a->attrib.authentication;
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return sysfs_emit(page, "%d\n", val);
}

static ssize_t tcmx_iscsi_na_authentication_store(struct config_item *item,
						  const char *page,
						  size_t count)
{
	struct tcmx_iscsi_acl *a = to_iscsi_acl(tcmx_attrib_item_to_acl(item));
	s32 val;

	if (memchr(page, '\0', count) || kstrtos32(page, 0, &val) ||
	    val < -1 || val > 1) {
		pr_err(TCMX_ISCSI_ACL_FMT "/attrib/authentication: -1 (the TPG's), 0 or 1\n",
		       tcmx_iscsi_tpg_wwn(a->tpg), a->tpg->tpg.tag,
		       tcmx_acl_name(a->acl));
		return -EINVAL;
	}
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	a->attrib.authentication = val;
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return count;
}

CONFIGFS_ATTR(tcmx_iscsi_na_, authentication);

struct configfs_attribute *tcmx_iscsi_acl_attrib_attrs[] = {
#define TCMX_ISCSI_ACL_ATTRIB(_name, _def, _min, _max)			\
	(&tcmx_iscsi_na_attr_##_name),
#include "acl_attrib.h"
#undef TCMX_ISCSI_ACL_ATTRIB
	&tcmx_iscsi_na_attr_authentication,
	NULL,
};

/* ------------------------------------------------------------------ */
/* auth/ and param/                                                    */
/* ------------------------------------------------------------------ */

static struct tcmx_iscsi_auth *
tcmx_iscsi_acl_auth_home(struct config_item *item, char *where, size_t len)
{
	struct tcmx_iscsi_acl *a = to_iscsi_acl(tcmx_auth_item_to_acl(item));

	if (len)
		snprintf(where, len, TCMX_ISCSI_ACL_FMT "/auth",
			 tcmx_iscsi_tpg_wwn(a->tpg), a->tpg->tpg.tag,
		       tcmx_acl_name(a->acl));
	return &a->auth;
}

TCMX_ISCSI_AUTH_FILES(tcmx_iscsi_acl_auth_, tcmx_iscsi_acl_auth_home)

struct configfs_attribute *tcmx_iscsi_acl_auth_attrs[] = {
	(&tcmx_iscsi_acl_auth_attr_userid),
	(&tcmx_iscsi_acl_auth_attr_password),
	(&tcmx_iscsi_acl_auth_attr_authenticate_target),
	(&tcmx_iscsi_acl_auth_attr_userid_mutual),
	(&tcmx_iscsi_acl_auth_attr_password_mutual),
	NULL,
};

/* the session's negotiated values, or that there is none */
static ssize_t tcmx_iscsi_acl_param_show(struct config_item *item,
					 enum tcmx_iscsi_key key, char *page)
{
	struct tcmx_acl *acl = tcmx_param_item_to_acl(item);

	return tcmx_iscsi_sess_param(to_iscsi_tpg(acl->tpg), tcmx_acl_name(acl),
				     key, page);
}

/* the file of one key (its in-tree name); it ends with a function */
#define TCMX_ISCSI_ACL_PARAM(_id, _name)				\
	TCMX_ISCSI_ID_FILE_RO(tcmx_iscsi_acl_param_, _id, _name,	\
			      TCMX_ISCSI_KEY_##_id, tcmx_iscsi_acl_param_show)

TCMX_ISCSI_ACL_PARAM(MAX_CONNECTIONS, "MaxConnections")
TCMX_ISCSI_ACL_PARAM(INITIAL_R2T, "InitialR2T")
TCMX_ISCSI_ACL_PARAM(IMMEDIATE_DATA, "ImmediateData")
TCMX_ISCSI_ACL_PARAM(MAX_BURST, "MaxBurstLength")
TCMX_ISCSI_ACL_PARAM(FIRST_BURST, "FirstBurstLength")
TCMX_ISCSI_ACL_PARAM(TIME2WAIT, "DefaultTime2Wait")
TCMX_ISCSI_ACL_PARAM(TIME2RETAIN, "DefaultTime2Retain")
TCMX_ISCSI_ACL_PARAM(MAX_R2T, "MaxOutstandingR2T")
TCMX_ISCSI_ACL_PARAM(DATA_PDU_IN_ORDER, "DataPDUInOrder")
TCMX_ISCSI_ACL_PARAM(DATA_SEQ_IN_ORDER, "DataSequenceInOrder")
TCMX_ISCSI_ACL_PARAM(ERL, "ErrorRecoveryLevel")

struct configfs_attribute *tcmx_iscsi_acl_param_attrs[] = {
	&tcmx_iscsi_acl_param_attr_MAX_CONNECTIONS,
	&tcmx_iscsi_acl_param_attr_INITIAL_R2T,
	&tcmx_iscsi_acl_param_attr_IMMEDIATE_DATA,
	&tcmx_iscsi_acl_param_attr_MAX_BURST,
	&tcmx_iscsi_acl_param_attr_FIRST_BURST,
	&tcmx_iscsi_acl_param_attr_TIME2WAIT,
	&tcmx_iscsi_acl_param_attr_TIME2RETAIN,
	&tcmx_iscsi_acl_param_attr_MAX_R2T,
	&tcmx_iscsi_acl_param_attr_DATA_PDU_IN_ORDER,
	&tcmx_iscsi_acl_param_attr_DATA_SEQ_IN_ORDER,
	&tcmx_iscsi_acl_param_attr_ERL,
	NULL,
};
