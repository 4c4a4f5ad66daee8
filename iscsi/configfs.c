// SPDX-License-Identifier: GPL-2.0
/*
 * tcmx_iscsi's configuration: the fabric's part of the configfs tree
 * (configfs-contract.md, iscsi-configfs-contract.md) that is not a TPG's
 * or an ACL's files:
 *
 *   $T/iscsi/				lio_version, cpus_allowed_list
 *   $T/iscsi/discovery_auth/		enforce_discovery_auth, CHAP files
 *   $T/iscsi/<target>/			an iqn., naa. or eui. name
 *   $T/iscsi/<target>/tpgt_<t>/	enable (turns logins on or off)
 *   $T/iscsi/<target>/tpgt_<t>/np/<ip>:<port>	a portal: listens from
 *					mkdir to rmdir; iser, cxgbit
 *
 * Everything here is under tcmx_iscsi_cfg_mutex; the calls into the
 * protocol are made without it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "cfs.h"

DEFINE_MUTEX(tcmx_iscsi_cfg_mutex);
LIST_HEAD(tcmx_iscsi_tiqns);
struct tcmx_iscsi_auth tcmx_iscsi_discovery_auth;
bool tcmx_iscsi_enforce_discovery_auth;

struct cpumask tcmx_iscsi_cpus;			/* cpus_allowed_list */
static DEFINE_IDA(tcmx_iscsi_tiqn_ida);		/* statistics' inst */

/* ------------------------------------------------------------------ */
/* $T/iscsi/ and discovery_auth/                                      */
/* ------------------------------------------------------------------ */

static ssize_t tcmx_iscsi_lio_version_show(struct config_item *item,
					   char *page)
{
	return sysfs_emit(page, "tcmx iSCSI Target v%s\n", TCMX_VERSION);
}

static ssize_t tcmx_iscsi_cpus_allowed_list_show(struct config_item *item,
						 char *page)
{
	ssize_t ret;

	mutex_lock(&tcmx_iscsi_cfg_mutex);
	ret = sysfs_emit(page, "%*pbl\n", cpumask_pr_args(&tcmx_iscsi_cpus));
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return ret;
}

static ssize_t tcmx_iscsi_cpus_allowed_list_store(struct config_item *item,
						  const char *page,
						  size_t count)
{
	size_t len = count;
	cpumask_var_t mask;
	int ret = -EINVAL;

	if (len && page[len - 1] == '\n')
		len--;
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	/* "a-b,c": digits, commas and dashes, online CPUs, at least one */
	if (len && strspn(page, "0123456789,-") == len &&
	    !cpulist_parse(page, mask) && !cpumask_empty(mask) &&
	    cpumask_subset(mask, cpu_online_mask))
		ret = 0;
	if (ret) {
		pr_err("cpus_allowed_list: %.*s is not a list of online CPUs\n",
		       (int)min_t(size_t, len, TCMX_ISCSI_ECHO), page);
	} else {
		mutex_lock(&tcmx_iscsi_cfg_mutex);
		cpumask_copy(&tcmx_iscsi_cpus, mask);
		mutex_unlock(&tcmx_iscsi_cfg_mutex);
	}
	free_cpumask_var(mask);
	return ret ? ret : count;
}

CONFIGFS_ATTR_RO(tcmx_iscsi_, lio_version);
CONFIGFS_ATTR(tcmx_iscsi_, cpus_allowed_list);

static struct configfs_attribute *tcmx_iscsi_fabric_attrs[] = {
	&tcmx_iscsi_attr_lio_version,
	&tcmx_iscsi_attr_cpus_allowed_list,
	NULL,
};

static struct tcmx_iscsi_auth *
tcmx_iscsi_disc_home(struct config_item *item, char *where, size_t len)
{
	if (len)
		strscpy(where, "discovery_auth", len);
	return &tcmx_iscsi_discovery_auth;
}

TCMX_ISCSI_AUTH_FILES(tcmx_iscsi_disc_, tcmx_iscsi_disc_home)

static ssize_t tcmx_iscsi_disc_enforce_discovery_auth_show(
	struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n",
			  READ_ONCE(tcmx_iscsi_enforce_discovery_auth));
}

static ssize_t tcmx_iscsi_disc_enforce_discovery_auth_store(
	struct config_item *item, const char *page, size_t count)
{
	u32 val;

	if (memchr(page, '\0', count) || kstrtou32(page, 0, &val) ||
	    val > 1) {
		pr_err("discovery_auth/enforce_discovery_auth: 0 or 1\n");
		return -EINVAL;
	}
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	WRITE_ONCE(tcmx_iscsi_enforce_discovery_auth, val);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return count;
}

CONFIGFS_ATTR(tcmx_iscsi_disc_, enforce_discovery_auth);

static struct configfs_attribute *tcmx_iscsi_discovery_attrs[] = {
	&tcmx_iscsi_disc_attr_enforce_discovery_auth,
	(&tcmx_iscsi_disc_attr_userid),
	(&tcmx_iscsi_disc_attr_password),
	(&tcmx_iscsi_disc_attr_authenticate_target),
	(&tcmx_iscsi_disc_attr_userid_mutual),
	(&tcmx_iscsi_disc_attr_password_mutual),
	NULL,
};

/* ------------------------------------------------------------------ */
/* targets                                                             */
/* ------------------------------------------------------------------ */

/* an iqn., naa. or eui. name, lower case, printable, < 224 bytes */
static bool tcmx_iscsi_name_ok(const char *name)
{
	size_t len = strlen(name), i;

	if (len <= 4 || len >= TCMX_ISCSI_NAME_LEN)
		return false;
	if (strncmp(name, "iqn.", 4) && strncmp(name, "naa.", 4) &&
	    strncmp(name, "eui.", 4))
		return false;
	for (i = 0; i < len; i++)
		if (!isgraph(name[i]) || isupper(name[i]))
			return false;
	return true;
}

static struct tcmx_wwn *tcmx_iscsi_make_wwn(struct tcmx_fabric *tf,
					    const char *name)
{
	struct tcmx_iscsi_tiqn *tiqn;
	int index;

	if (!tcmx_iscsi_name_ok(name)) {
		pr_err("target %.64s: not an iSCSI name (iqn., naa. or eui., lower case, shorter than %d bytes)\n",
		       name, TCMX_ISCSI_NAME_LEN);
		return ERR_PTR(-EINVAL);
	}
	tiqn = kzalloc(sizeof(*tiqn), GFP_KERNEL);
	if (!tiqn)
		return ERR_PTR(-ENOMEM);
	index = ida_alloc_min(&tcmx_iscsi_tiqn_ida, 1, GFP_KERNEL);
	if (index < 0) {
		kfree(tiqn);
		return ERR_PTR(index);
	}
	tiqn->index = index;
	INIT_LIST_HEAD(&tiqn->tpgs);
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	list_add_tail(&tiqn->node, &tcmx_iscsi_tiqns);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return &tiqn->wwn;
}

static void tcmx_iscsi_drop_wwn(struct tcmx_wwn *wwn)
{
	struct tcmx_iscsi_tiqn *tiqn = to_iscsi_tiqn(wwn);

	mutex_lock(&tcmx_iscsi_cfg_mutex);
	list_del(&tiqn->node);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	ida_free(&tcmx_iscsi_tiqn_ida, tiqn->index);
	kfree(tiqn);
}

/* ------------------------------------------------------------------ */
/* TPGs                                                                */
/* ------------------------------------------------------------------ */

static struct tcmx_tpg *tcmx_iscsi_make_tpg(struct tcmx_wwn *wwn, u16 tag)
{
	struct tcmx_iscsi_tiqn *tiqn = to_iscsi_tiqn(wwn);
	struct tcmx_iscsi_tpg *tpg;

	tpg = kzalloc(sizeof(*tpg), GFP_KERNEL);
	if (!tpg)
		return ERR_PTR(-ENOMEM);
	tpg->tiqn = tiqn;
	INIT_LIST_HEAD(&tpg->nps);
	INIT_LIST_HEAD(&tpg->acls);
	tcmx_iscsi_tpg_defaults(tpg);
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	list_add_tail(&tpg->node, &tiqn->tpgs);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return &tpg->tpg;
}

/* its portals, ACLs and LUNs are gone (configfs saw to it) */
static void tcmx_iscsi_drop_tpg(struct tcmx_tpg *tpg)
{
	struct tcmx_iscsi_tpg *t = to_iscsi_tpg(tpg);

	mutex_lock(&tcmx_iscsi_cfg_mutex);
	t->enabled = false;
	WRITE_ONCE(tpg->enabled, false);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	tcmx_iscsi_tpg_shutdown(t);
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	list_del(&t->node);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	kfree(t);
}

/*
 * enable: logins are refused while 0.  Turning it on with authentication
 * 1 makes AuthMethod CHAP-only, as the in-tree does (a "None" becomes
 * CHAP); turning it off ends the TPG's sessions.
 */
static int tcmx_iscsi_tpg_enable(struct tcmx_tpg *tpg, bool on)
{
	struct tcmx_iscsi_tpg *t = to_iscsi_tpg(tpg);
	char *auth = t->param[TCMX_ISCSI_KEY_AUTH_METHOD];
	bool was;

	mutex_lock(&tcmx_iscsi_cfg_mutex);
	was = t->enabled;
	if (on && !was && t->attrib.authentication) {
		if (!strcmp(auth, "None"))
			strscpy(auth, "CHAP", TCMX_ISCSI_VALUE_LEN);
		tcmx_iscsi_tpg_auth_method(t, true);
	}
	t->enabled = on;
	WRITE_ONCE(tpg->enabled, on);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	if (was && !on)
		tcmx_iscsi_tpg_shutdown(t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* portals: np/<ip>:<port>                                             */
/* ------------------------------------------------------------------ */

static struct tcmx_iscsi_np *to_np(struct config_group *group)
{
	return container_of(group, struct tcmx_iscsi_np, group);
}

/* "a.b.c.d:port" or "[v6]:port" into @ss */
static int tcmx_iscsi_np_parse(const char *name, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	const char *colon = strrchr(name, ':'), *end;
	u16 port;

	memset(ss, 0, sizeof(*ss));
	if (!colon || kstrtou16(colon + 1, 10, &port) || !port ||
	    !isdigit(colon[1]))
		return -EINVAL;
	if (name[0] == '[') {
		if (colon - name < 3 || colon[-1] != ']' ||
		    !in6_pton(name + 1, colon - name - 2, sin6->sin6_addr.s6_addr,
			      -1, &end) || end != colon - 1)
			return -EINVAL;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return 0;
	}
	if (!in4_pton(name, colon - name, (u8 *)&sin->sin_addr.s_addr, -1,
		      &end) || end != colon)
		return -EINVAL;
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	return 0;
}

static bool tcmx_iscsi_same_addr(const struct sockaddr_storage *a,
				 const struct sockaddr_storage *b)
{
	size_t len = a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
						sizeof(struct sockaddr_in);

	return a->ss_family == b->ss_family && !memcmp(a, b, len);
}

/* cfg mutex held: a portal of @tiqn's TPGs on @ss */
static bool tcmx_iscsi_np_taken(struct tcmx_iscsi_tiqn *tiqn,
				const struct sockaddr_storage *ss)
{
	struct tcmx_iscsi_tpg *tpg;
	struct tcmx_iscsi_np *np;

	list_for_each_entry(tpg, &tiqn->tpgs, node)
		list_for_each_entry(np, &tpg->nps, node)
			if (tcmx_iscsi_same_addr(&np->addr, ss))
				return true;
	return false;
}

static struct config_group *tcmx_iscsi_make_np(struct tcmx_tpg *tpg,
					       const char *name)
{
	struct tcmx_iscsi_tpg *t = to_iscsi_tpg(tpg);
	struct tcmx_iscsi_np *np;
	int ret;

	np = kzalloc(sizeof(*np), GFP_KERNEL);
	if (!np)
		return ERR_PTR(-ENOMEM);
	np->tpg = t;
	if (strlen(name) >= TCMX_ISCSI_VALUE_LEN ||
	    tcmx_iscsi_np_parse(name, &np->addr)) {
		pr_err(TCMX_ISCSI_TPG_FMT ": portal %.64s is not <IPv4>:<port> or [<IPv6>]:<port>\n",
		       tcmx_iscsi_tpg_wwn(t), t->tpg.tag, name);
		kfree(np);
		return ERR_PTR(-EINVAL);
	}
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	if (tcmx_iscsi_np_taken(t->tiqn, &np->addr)) {
		mutex_unlock(&tcmx_iscsi_cfg_mutex);
		pr_err(TCMX_ISCSI_TPG_FMT ": portal %s is one of the target's already\n",
		       tcmx_iscsi_tpg_wwn(t), t->tpg.tag, name);
		kfree(np);
		return ERR_PTR(-EEXIST);
	}
	list_add_tail(&np->node, &t->nps);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	ret = tcmx_iscsi_np_enable(np);
	if (ret) {
		mutex_lock(&tcmx_iscsi_cfg_mutex);
		list_del(&np->node);
		mutex_unlock(&tcmx_iscsi_cfg_mutex);
		pr_err(TCMX_ISCSI_TPG_FMT ": cannot listen on %s: %d\n",
		       tcmx_iscsi_tpg_wwn(t), t->tpg.tag, name, ret);
		kfree(np);
		return ERR_PTR(ret);
	}
	return &np->group;
}

static void tcmx_iscsi_drop_np(struct tcmx_tpg *tpg, struct config_group *g)
{
	struct tcmx_iscsi_np *np = to_np(g);

	tcmx_iscsi_np_disable(np);
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	list_del(&np->node);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
}

static void tcmx_iscsi_free_np(struct config_group *g)
{
	kfree(to_np(g));
}

/* iser and cxgbit: tcmx has neither transport; 0 is what they are */
static ssize_t tcmx_iscsi_np_offload_store(struct config_item *item,
					   const char *file, const char *page,
					   size_t count)
{
	struct tcmx_iscsi_np *np = to_np(to_config_group(item));
	u32 val;

	if (memchr(page, '\0', count) || kstrtou32(page, 0, &val) ||
	    val > 1) {
		pr_err(TCMX_ISCSI_TPG_FMT "/np/%s: %s: 0 or 1\n",
		       tcmx_iscsi_tpg_wwn(np->tpg), np->tpg->tpg.tag, config_item_name(item),
		       file);
		return -EINVAL;
	}
	if (val) {
		pr_err(TCMX_ISCSI_TPG_FMT "/np/%s: %s: tcmx has no such transport\n",
		       tcmx_iscsi_tpg_wwn(np->tpg), np->tpg->tpg.tag, config_item_name(item),
		       file);
		return -EOPNOTSUPP;
	}
	return count;
}

static ssize_t tcmx_iscsi_np_iser_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "0\n");
}

static ssize_t tcmx_iscsi_np_iser_store(struct config_item *item,
					const char *page, size_t count)
{
	return tcmx_iscsi_np_offload_store(item, "iser", page, count);
}

static ssize_t tcmx_iscsi_np_cxgbit_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "0\n");
}

static ssize_t tcmx_iscsi_np_cxgbit_store(struct config_item *item,
					  const char *page, size_t count)
{
	return tcmx_iscsi_np_offload_store(item, "cxgbit", page, count);
}

CONFIGFS_ATTR(tcmx_iscsi_np_, iser);
CONFIGFS_ATTR(tcmx_iscsi_np_, cxgbit);

static struct configfs_attribute *tcmx_iscsi_np_attrs[] = {
	&tcmx_iscsi_np_attr_iser,
	&tcmx_iscsi_np_attr_cxgbit,
	NULL,
};

/* ------------------------------------------------------------------ */
/* the fabric                                                          */
/* ------------------------------------------------------------------ */

/* a mapped LUN's statistics: the instance is the target's index */
static u32 tcmx_iscsi_tpg_inst_index(struct tcmx_tpg *tpg)
{
	return to_iscsi_tpg(tpg)->tiqn->index;
}

const struct tcmx_fabric_ops tcmx_iscsi_fabric_ops = {
	.name			= "iscsi",
	.owner			= THIS_MODULE,
	.version		= "tcmx iSCSI Target v" TCMX_VERSION,
	.max_tpgt		= TCMX_ISCSI_MAX_TPGT,
	/* Residual Count and the O bit; a session's own data pages */
	.reports_overflow	= true,
	.own_buffers		= true,
	.tpg_inst_index		= tcmx_iscsi_tpg_inst_index,
	.nexus_index		= tcmx_iscsi_nexus_index,
	.make_wwn		= tcmx_iscsi_make_wwn,
	.drop_wwn		= tcmx_iscsi_drop_wwn,
	.make_tpg		= tcmx_iscsi_make_tpg,
	.drop_tpg		= tcmx_iscsi_drop_tpg,
	.queue_status		= tcmx_iscsi_queue_status,
	.tpg_attrs		= tcmx_iscsi_tpg_attrs,
	.tpg_attrib_attrs	= tcmx_iscsi_tpg_attrib_attrs,
	.acl_attrs		= tcmx_iscsi_acl_attrs,
	.acl_attrib_attrs	= tcmx_iscsi_acl_attrib_attrs,
	.acl_auth_attrs		= tcmx_iscsi_acl_auth_attrs,
	.acl_param_attrs	= tcmx_iscsi_acl_param_attrs,
	.fabric_attrs		= tcmx_iscsi_fabric_attrs,
	.discovery_attrs	= tcmx_iscsi_discovery_attrs,
	.add_wwn_stats		= tcmx_iscsi_add_wwn_stats,
	.tpg_enable		= tcmx_iscsi_tpg_enable,
	.tpg_param_attrs	= tcmx_iscsi_tpg_param_attrs,
	.tpg_auth_attrs		= tcmx_iscsi_tpg_auth_attrs,
	.make_np		= tcmx_iscsi_make_np,
	.drop_np		= tcmx_iscsi_drop_np,
	.free_np		= tcmx_iscsi_free_np,
	.np_attrs		= tcmx_iscsi_np_attrs,
	.acl_priv_size		= sizeof(struct tcmx_iscsi_acl),
	.init_acl		= tcmx_iscsi_init_acl,
	.drop_acl		= tcmx_iscsi_drop_acl,
	.add_acl_stats		= tcmx_iscsi_add_acl_stats,
};

int tcmx_iscsi_cfs_init(void)
{
	cpumask_copy(&tcmx_iscsi_cpus, cpu_online_mask);
	return tcmx_register_fabric(&tcmx_iscsi_fabric_ops);
}

void tcmx_iscsi_cfs_exit(void)
{
	tcmx_unregister_fabric(&tcmx_iscsi_fabric_ops);
	ida_destroy(&tcmx_iscsi_tiqn_ida);
}
