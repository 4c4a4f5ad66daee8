// SPDX-License-Identifier: GPL-2.0
/*
 * A TPG's own files, tpgt_<t>/:
 *
 *   dynamic_sessions	the demo-mode initiators logged in (RO)
 *   attrib/<name>	TCMX_ISCSI_TPG_ATTRIBS: u32, the in-tree defaults,
 *			ranges and side effects
 *   param/<Key>	TCMX_ISCSI_KEYS: the values the target offers, checked
 *			by tcmx_iscsi_key_check()
 *   auth/		the TPG's CHAP credentials
 *
 * Under tcmx_iscsi_cfg_mutex; every refused write says why in one line.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/string.h>
#include "cfs.h"

static ssize_t tcmx_iscsi_tpg_dynamic_sessions_show(struct config_item *item,
						    char *page)
{
	return tcmx_iscsi_dynamic_sessions(to_iscsi_tpg(tcmx_item_to_tpg(item)),
					   page);
}

CONFIGFS_ATTR_RO(tcmx_iscsi_tpg_, dynamic_sessions);

struct configfs_attribute *tcmx_iscsi_tpg_attrs[] = {
	&tcmx_iscsi_tpg_attr_dynamic_sessions,
	NULL,
};

/* ------------------------------------------------------------------ */
/* attrib/                                                             */
/* ------------------------------------------------------------------ */

enum {
#define TCMX_ISCSI_TPG_ATTRIB(_name, _def, _min, _max)	TCMX_TA_##_name,
#include "tpg_attrib.h"
#undef TCMX_ISCSI_TPG_ATTRIB
	TCMX_TA_NR
};

static const struct tcmx_iscsi_attrib_rule tcmx_iscsi_tpg_rules[] = {
#define TCMX_ISCSI_TPG_ATTRIB(_name, _def, _min, _max)			\
	[TCMX_TA_##_name] = {						\
		.name = #_name,						\
		.off = offsetof(struct tcmx_iscsi_tpg_attrib, _name),	\
		.def = _def, .min = _min, .max = _max,			\
	},
#include "tpg_attrib.h"
#undef TCMX_ISCSI_TPG_ATTRIB
};

static u32 *tcmx_iscsi_ta(struct tcmx_iscsi_tpg *tpg, int id)
{
	return tcmx_iscsi_rule_val(&tpg->attrib, &tcmx_iscsi_tpg_rules[id]);
}

/*
 * AuthMethod as authentication wants it: 1 takes "None" out of the list
 * (CHAP if nothing is left), 0 puts ",None" at its end if it is not in.
 */
void tcmx_iscsi_tpg_auth_method(struct tcmx_iscsi_tpg *tpg, bool on)
{
	char *v = tpg->param[TCMX_ISCSI_KEY_AUTH_METHOD];
	char out[TCMX_ISCSI_VALUE_LEN] = "";
	char buf[TCMX_ISCSI_VALUE_LEN];
	char *p = buf, *w;
	bool none = false;

	strscpy(buf, v, sizeof(buf));
	while ((w = strsep(&p, ","))) {
		if (!strcmp(w, "None")) {
			none = true;
		} else if (*w) {
			if (out[0])
				strlcat(out, ",", sizeof(out));
			strlcat(out, w, sizeof(out));
		}
	}
	if (on)
		strscpy(v, out[0] ? out : "CHAP", TCMX_ISCSI_VALUE_LEN);
	else if (!none && strlen(v) + 5 < TCMX_ISCSI_VALUE_LEN)
		strlcat(v, ",None", TCMX_ISCSI_VALUE_LEN);
}

/* cfg mutex held: @val for attribute @id passed its range */
static int tcmx_iscsi_ta_set(struct tcmx_iscsi_tpg *tpg, int id, u32 val)
{
	switch (id) {
	case TCMX_TA_authentication:
		tcmx_iscsi_tpg_auth_method(tpg, val);
		break;
	case TCMX_TA_generate_node_acls:
		if (val)	/* demo mode keeps its dynamic ACLs */
			tpg->attrib.cache_dynamic_acls = 1;
		break;
	case TCMX_TA_cache_dynamic_acls:
		if (!val && tpg->attrib.generate_node_acls)
			return 0;	/* the in-tree ignores it too */
		break;
	case TCMX_TA_fabric_prot_type:
		if (val == 2)
			return -EINVAL;
		break;
	}
	*tcmx_iscsi_ta(tpg, id) = val;
	return 0;
}

static ssize_t tcmx_iscsi_ta_show(struct config_item *item, int id, char *page)
{
	struct tcmx_iscsi_tpg *tpg = to_iscsi_tpg(tcmx_attrib_item_to_tpg(item));
	u32 val;

	mutex_lock(&tcmx_iscsi_cfg_mutex);
	val = *tcmx_iscsi_ta(tpg, id);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return sysfs_emit(page, "%u\n", val);
}

static ssize_t tcmx_iscsi_ta_store(struct config_item *item, int id,
				   const char *page, size_t count)
{
	struct tcmx_iscsi_tpg *tpg = to_iscsi_tpg(tcmx_attrib_item_to_tpg(item));
	const struct tcmx_iscsi_attrib_rule *r = &tcmx_iscsi_tpg_rules[id];
	int ret = -EINVAL;
	u32 val;

	if (!memchr(page, '\0', count) && !kstrtou32(page, 0, &val) &&
	    val >= r->min && val <= r->max) {
		mutex_lock(&tcmx_iscsi_cfg_mutex);
		ret = tcmx_iscsi_ta_set(tpg, id, val);
		mutex_unlock(&tcmx_iscsi_cfg_mutex);
	}
	if (ret) {
		pr_err(TCMX_ISCSI_TPG_FMT "/attrib/%s: %.*s is not a value in %u..%u%s\n",
		       tcmx_iscsi_tpg_wwn(tpg), tpg->tpg.tag, r->name, TCMX_ISCSI_ECHO,
		       page, r->min, r->max,
		       id == TCMX_TA_fabric_prot_type ? " but 2" : "");
		return ret;
	}
	return count;
}

/* the file of each attribute; it ends with a function: no ';' */
#define TCMX_ISCSI_TPG_ATTRIB(_name, _def, _min, _max)			\
	TCMX_ISCSI_ID_FILE_RW(tcmx_iscsi_ta_, _name, #_name, TCMX_TA_##_name, \
			      tcmx_iscsi_ta_show, tcmx_iscsi_ta_store)
#include "tpg_attrib.h"
#undef TCMX_ISCSI_TPG_ATTRIB

struct configfs_attribute *tcmx_iscsi_tpg_attrib_attrs[] = {
#define TCMX_ISCSI_TPG_ATTRIB(_name, _def, _min, _max)			\
	(&tcmx_iscsi_ta_attr_##_name),
#include "tpg_attrib.h"
#undef TCMX_ISCSI_TPG_ATTRIB
	NULL,
};

void tcmx_iscsi_tpg_defaults(struct tcmx_iscsi_tpg *tpg)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(tcmx_iscsi_tpg_rules); i++)
		*tcmx_iscsi_ta(tpg, i) = tcmx_iscsi_tpg_rules[i].def;
	for (i = 0; i < TCMX_ISCSI_KEY_NR; i++)
		strscpy(tpg->param[i], tcmx_iscsi_keys[i].def,
			TCMX_ISCSI_VALUE_LEN);
}

/* ------------------------------------------------------------------ */
/* param/                                                              */
/* ------------------------------------------------------------------ */

static ssize_t tcmx_iscsi_param_show(struct config_item *item,
				     enum tcmx_iscsi_key key, char *page)
{
	struct tcmx_iscsi_tpg *tpg = to_iscsi_tpg(tcmx_param_item_to_tpg(item));
	ssize_t ret;

	mutex_lock(&tcmx_iscsi_cfg_mutex);
	ret = sysfs_emit(page, "%s\n", tpg->param[key]);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return ret;
}

static ssize_t tcmx_iscsi_param_store(struct config_item *item,
				      enum tcmx_iscsi_key key,
				      const char *page, size_t count)
{
	struct tcmx_iscsi_tpg *tpg = to_iscsi_tpg(tcmx_param_item_to_tpg(item));
	char val[TCMX_ISCSI_VALUE_LEN];
	size_t len = count;

	if (len && page[len - 1] == '\n')
		len--;
	if (len < sizeof(val) && !memchr(page, '\0', len)) {
		memcpy(val, page, len);
		val[len] = '\0';
		if (!tcmx_iscsi_key_check(key, val)) {
			mutex_lock(&tcmx_iscsi_cfg_mutex);
			strscpy(tpg->param[key], val, TCMX_ISCSI_VALUE_LEN);
			mutex_unlock(&tcmx_iscsi_cfg_mutex);
			return count;
		}
	}
	pr_err(TCMX_ISCSI_TPG_FMT "/param/%s: %.*s is not a value of the key\n",
	       tcmx_iscsi_tpg_wwn(tpg), tpg->tpg.tag, tcmx_iscsi_keys[key].name,
	       (int)min_t(size_t, len, TCMX_ISCSI_ECHO), page);
	return -EINVAL;
}

/* the file of each key, named as the key; it ends with a function */
#define TCMX_ISCSI_KEY(_id, _name, _kind, _def, _min, _max)		\
	TCMX_ISCSI_ID_FILE_RW(tcmx_iscsi_param_, _id, _name,		\
			      TCMX_ISCSI_KEY_##_id, tcmx_iscsi_param_show, \
			      tcmx_iscsi_param_store)
#include "keys.h"
#undef TCMX_ISCSI_KEY

struct configfs_attribute *tcmx_iscsi_tpg_param_attrs[] = {
#define TCMX_ISCSI_KEY(_id, _name, _kind, _def, _min, _max)		\
	(&tcmx_iscsi_param_attr_##_id),
#include "keys.h"
#undef TCMX_ISCSI_KEY
	NULL,
};

/* ------------------------------------------------------------------ */
/* auth/                                                               */
/* ------------------------------------------------------------------ */

static struct tcmx_iscsi_auth *
tcmx_iscsi_tpg_auth_home(struct config_item *item, char *where, size_t len)
{
	struct tcmx_iscsi_tpg *tpg = to_iscsi_tpg(tcmx_auth_item_to_tpg(item));

	if (len)
		snprintf(where, len, TCMX_ISCSI_TPG_FMT "/auth",
			 tcmx_iscsi_tpg_wwn(tpg), tpg->tpg.tag);
	return &tpg->auth;
}

TCMX_ISCSI_AUTH_FILES(tcmx_iscsi_tpg_auth_, tcmx_iscsi_tpg_auth_home)

struct configfs_attribute *tcmx_iscsi_tpg_auth_attrs[] = {
	(&tcmx_iscsi_tpg_auth_attr_userid),
	(&tcmx_iscsi_tpg_auth_attr_password),
	(&tcmx_iscsi_tpg_auth_attr_authenticate_target),
	(&tcmx_iscsi_tpg_auth_attr_userid_mutual),
	(&tcmx_iscsi_tpg_auth_attr_password_mutual),
	NULL,
};
