/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of tcmx_iscsi's configuration half share: configfs.c
 * (targets, TPGs, portals, the fabric root, discovery_auth/), tpg_cfs.c
 * (a TPG's attrib/, param/, auth/), acl_cfs.c (a node ACL's files),
 * auth_cfs.c (the files of every auth/), stats.c (fabric_statistics/)
 * and params.c (the keys).  main.c is the module.
 */
#ifndef TCMX_ISCSI_CFS_H
#define TCMX_ISCSI_CFS_H

#include "iscsi.h"

static inline struct tcmx_iscsi_tpg *to_iscsi_tpg(struct tcmx_tpg *tpg)
{
	return container_of(tpg, struct tcmx_iscsi_tpg, tpg);
}

static inline struct tcmx_iscsi_tiqn *to_iscsi_tiqn(struct tcmx_wwn *wwn)
{
	return container_of(wwn, struct tcmx_iscsi_tiqn, wwn);
}

static inline struct tcmx_iscsi_acl *to_iscsi_acl(struct tcmx_acl *acl)
{
	return acl->fabric_priv;
}

/* at most this many bytes of a refused value go into its error line */
#define TCMX_ISCSI_ECHO			64

/* "<target>/tpgt_<t>" for an error line: the format and its arguments */
#define TCMX_ISCSI_TPG_FMT		"%s/tpgt_%u"

static inline const char *tcmx_iscsi_tpg_wwn(struct tcmx_iscsi_tpg *tpg)
{
	return tcmx_iscsi_tiqn_name(tpg->tiqn);
}

/*
 * auth_cfs.c: CHAP credentials, in a TPG's auth/, an ACL's auth/ or
 * discovery_auth/:
 * the home finds the credentials of @item's directory and names it in
 * @where for an error line.  Under tcmx_iscsi_cfg_mutex.
 */
typedef struct tcmx_iscsi_auth *(*tcmx_iscsi_auth_home)(struct config_item *,
							char *where,
							size_t len);
ssize_t tcmx_iscsi_auth_show(struct config_item *item, tcmx_iscsi_auth_home h,
			     size_t off, char *page);
ssize_t tcmx_iscsi_auth_store(struct config_item *item,
			      tcmx_iscsi_auth_home h, size_t off,
			      const char *file, const char *page, size_t count);
ssize_t tcmx_iscsi_auth_target_show(struct config_item *item,
				    tcmx_iscsi_auth_home h, char *page);

/*
 * The five files of an auth/ directory, _pfx##attr_<file>, for the home
 * function _home.  Each ends with a function: no ';' after them.
 */
#define TCMX_ISCSI_AUTH_FILE(_pfx, _home, _field, _mode)		\
static ssize_t _pfx##_field##_show(struct config_item *item, char *page); \
static ssize_t _pfx##_field##_store(struct config_item *item,		\
				    const char *page, size_t count);	\
static struct configfs_attribute _pfx##attr_##_field = {		\
	.ca_name	= #_field,					\
	.ca_owner	= THIS_MODULE,					\
	.ca_mode	= _mode,					\
	.show		= _pfx##_field##_show,				\
	.store		= _pfx##_field##_store,				\
};									\
static ssize_t _pfx##_field##_show(struct config_item *item, char *page) \
{									\
	return tcmx_iscsi_auth_show(item, _home,			\
		offsetof(struct tcmx_iscsi_auth, _field), page);	\
}									\
static ssize_t _pfx##_field##_store(struct config_item *item,		\
				    const char *page, size_t count)	\
{									\
	return tcmx_iscsi_auth_store(item, _home,			\
		offsetof(struct tcmx_iscsi_auth, _field), #_field,	\
		page, count);						\
}

#define TCMX_ISCSI_AUTH_FILES(_pfx, _home)				\
TCMX_ISCSI_AUTH_FILE(_pfx, _home, userid, 0644)				\
TCMX_ISCSI_AUTH_FILE(_pfx, _home, password, 0600)			\
TCMX_ISCSI_AUTH_FILE(_pfx, _home, userid_mutual, 0644)			\
TCMX_ISCSI_AUTH_FILE(_pfx, _home, password_mutual, 0600)		\
static ssize_t _pfx##authenticate_target_show(struct config_item *item, \
					      char *page);		\
static struct configfs_attribute _pfx##attr_authenticate_target = {	\
	.ca_name	= "authenticate_target",			\
	.ca_owner	= THIS_MODULE,					\
	.ca_mode	= 0444,						\
	.show		= _pfx##authenticate_target_show,		\
};									\
static ssize_t _pfx##authenticate_target_show(struct config_item *item, \
					      char *page)		\
{									\
	return tcmx_iscsi_auth_target_show(item, _home, page);		\
}

/*
 * A u32 file of an attrib/ directory: its name, where it is in the
 * directory's struct, the in-tree default and range.
 */
struct tcmx_iscsi_attrib_rule {
	const char	*name;
	size_t		off;
	u32		def, min, max;
};

static inline u32 *tcmx_iscsi_rule_val(void *attrib,
				       const struct tcmx_iscsi_attrib_rule *r)
{
	return (u32 *)((char *)attrib + r->off);
}

/*
 * The configfs file _pfx##attr_<_name>, named _file, whose show and store
 * hand @_id to the one show/store function of its directory.  Each ends
 * with a function: no ';' after them.
 */
#define TCMX_ISCSI_ID_SHOW(_pfx, _name, _id, _show)			\
static ssize_t _pfx##_name##_show(struct config_item *item, char *page) \
{									\
	return _show(item, _id, page);					\
}

#define TCMX_ISCSI_ID_FILE_RO(_pfx, _name, _file, _id, _show)		\
static ssize_t _pfx##_name##_show(struct config_item *item, char *page); \
static struct configfs_attribute _pfx##attr_##_name = {			\
	.ca_name	= _file,					\
	.ca_owner	= THIS_MODULE,					\
	.ca_mode	= 0444,						\
	.show		= _pfx##_name##_show,				\
};									\
TCMX_ISCSI_ID_SHOW(_pfx, _name, _id, _show)

#define TCMX_ISCSI_ID_FILE_RW(_pfx, _name, _file, _id, _show, _store)	\
static ssize_t _pfx##_name##_show(struct config_item *item, char *page); \
static ssize_t _pfx##_name##_store(struct config_item *item,		\
				   const char *page, size_t count);	\
static struct configfs_attribute _pfx##attr_##_name = {			\
	.ca_name	= _file,					\
	.ca_owner	= THIS_MODULE,					\
	.ca_mode	= 0644,						\
	.show		= _pfx##_name##_show,				\
	.store		= _pfx##_name##_store,				\
};									\
TCMX_ISCSI_ID_SHOW(_pfx, _name, _id, _show)				\
static ssize_t _pfx##_name##_store(struct config_item *item,		\
				   const char *page, size_t count)	\
{									\
	return _store(item, _id, page, count);				\
}

/* tpg_cfs.c */
extern struct configfs_attribute *tcmx_iscsi_tpg_attrs[];
extern struct configfs_attribute *tcmx_iscsi_tpg_attrib_attrs[];
extern struct configfs_attribute *tcmx_iscsi_tpg_param_attrs[];
extern struct configfs_attribute *tcmx_iscsi_tpg_auth_attrs[];
/* a new TPG's attrib/ and param/ */
void tcmx_iscsi_tpg_defaults(struct tcmx_iscsi_tpg *tpg);
/* AuthMethod as authentication @on wants it; cfg mutex held */
void tcmx_iscsi_tpg_auth_method(struct tcmx_iscsi_tpg *tpg, bool on);

/* acl_cfs.c */
extern struct configfs_attribute *tcmx_iscsi_acl_attrs[];
extern struct configfs_attribute *tcmx_iscsi_acl_attrib_attrs[];
extern struct configfs_attribute *tcmx_iscsi_acl_auth_attrs[];
extern struct configfs_attribute *tcmx_iscsi_acl_param_attrs[];
int tcmx_iscsi_init_acl(struct tcmx_acl *acl);
void tcmx_iscsi_drop_acl(struct tcmx_acl *acl);

/* stats.c */
void tcmx_iscsi_add_wwn_stats(struct tcmx_wwn *wwn);
void tcmx_iscsi_add_acl_stats(struct tcmx_acl *acl);

/* configfs.c */
int tcmx_iscsi_cfs_init(void);
void tcmx_iscsi_cfs_exit(void);

#endif /* TCMX_ISCSI_CFS_H */
