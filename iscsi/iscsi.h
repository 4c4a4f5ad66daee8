/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcmx_iscsi: the iSCSI fabric (RFC 7143, ErrorRecoveryLevel 0, one
 * connection per session).  What its two halves share:
 *
 * - the configuration (configfs.c, params.c): targets, TPGs with their
 *   attrib/, param/ and auth/, portals (np/), the fabric's part of the
 *   node ACLs and discovery_auth/; all of it under tcmx_iscsi_cfg_mutex;
 * - the protocol (net.c, login.c, session.c, ...): listeners, logins,
 *   sessions and commands.
 *
 * The configuration calls the protocol through the functions declared at
 * the end ("protocol side"); the protocol reads the configuration under
 * tcmx_iscsi_cfg_mutex, and keeps what it negotiated in its own session.
 */
#ifndef TCMX_ISCSI_H
#define TCMX_ISCSI_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include "tcmx.h"

#define TCMX_ISCSI_NAME_LEN	224	/* an iSCSI name, with NUL */
#define TCMX_ISCSI_AUTH_LEN	256	/* a CHAP user name or secret, NUL */
#define TCMX_ISCSI_VALUE_LEN	256	/* a key's value, with NUL */
#define TCMX_ISCSI_MAX_TPGT	65535
#define TCMX_ISCSI_PORT		3260

/*
 * The negotiable keys of tpgt_<t>/param/ (keys.h: name, kind, default,
 * range).  The kinds are RFC 7143's: a list of values, a boolean ANDed
 * or ORed, a number whose minimum or maximum wins, or a declarative
 * value.
 */
enum tcmx_iscsi_key_kind {
	TCMX_KEY_LIST,		/* AuthMethod, digests: first common */
	TCMX_KEY_AND,		/* boolean, "Yes" only if both say Yes */
	TCMX_KEY_OR,		/* boolean, "Yes" if either says Yes */
	TCMX_KEY_MIN,		/* number, the lower wins */
	TCMX_KEY_MAX,		/* number, the higher wins */
	TCMX_KEY_DECL,		/* declarative string */
	TCMX_KEY_DECL_NUM,	/* declarative number (MaxRecvDSL) */
	TCMX_KEY_RANGE,		/* IFMarkInt/OFMarkInt: "a~b" or Reject */
};

enum tcmx_iscsi_key {
#define TCMX_ISCSI_KEY(_id, _name, _kind, _def, _min, _max)		\
	TCMX_ISCSI_KEY_##_id,
#include "keys.h"
#undef TCMX_ISCSI_KEY
	TCMX_ISCSI_KEY_NR
};

struct tcmx_iscsi_key_info {
	const char			*name;
	enum tcmx_iscsi_key_kind	kind;
	const char			*def;
	u32				min, max;	/* numbers */
};

/*
 * params.c: the table, and the check a value must pass (0 or -EINVAL,
 * silently: the caller says who refused what)
 */
extern const struct tcmx_iscsi_key_info tcmx_iscsi_keys[TCMX_ISCSI_KEY_NR];
int tcmx_iscsi_key_check(enum tcmx_iscsi_key key, const char *value);

/*
 * TPG attrib/ (u32 each; tpg_attrib.h: the in-tree's defaults and
 * ranges).  The list expands to "u32 a, b, ..., : 0;" (as struct
 * tcmx_dev_attrib does).
 */
struct tcmx_iscsi_tpg_attrib {
	u32
#define TCMX_ISCSI_TPG_ATTRIB(_name, _def, _min, _max)	_name,
#include "tpg_attrib.h"
#undef TCMX_ISCSI_TPG_ATTRIB
	: 0;
};

/* ACL attrib/ (u32 each; acl_attrib.h), authentication: -1 = the TPG's */
struct tcmx_iscsi_acl_attrib {
	u32
#define TCMX_ISCSI_ACL_ATTRIB(_name, _def, _min, _max)	_name,
#include "acl_attrib.h"
#undef TCMX_ISCSI_ACL_ATTRIB
	: 0;
	s32	authentication;		/* -1: inherit the TPG's */
};

/* CHAP credentials ("" = not set): TPG auth/, ACL auth/, discovery_auth/ */
struct tcmx_iscsi_auth {
	char	userid[TCMX_ISCSI_AUTH_LEN];
	char	password[TCMX_ISCSI_AUTH_LEN];
	char	userid_mutual[TCMX_ISCSI_AUTH_LEN];
	char	password_mutual[TCMX_ISCSI_AUTH_LEN];
};

/* A target (iscsi/<name>), on tcmx_iscsi_tiqns. */
/*
 * A target's fabric_statistics/ counters (RFC 4544's iSCSI MIB, as the
 * in-tree counts them), under @lock: the protocol counts, stats.c shows.
 */
struct tcmx_iscsi_tiqn_stats {
	spinlock_t		lock;
	u32			sessions;	/* Normal sessions now */
	/* iscsi_login_stats: one per final login response */
	u32			accepts, redirects, authorize_fails;
	u32			authenticate_fails, negotiate_fails;
	u32			other_fails;
	u32			last_fail_type;	/* 0 none, 2 other .. 6 negotiate */
	u64			last_fail_time;	/* jiffies64, 0: none */
	char			last_fail_name[TCMX_ISCSI_NAME_LEN];
	struct sockaddr_storage	last_fail_addr;
	/* iscsi_logout_stats: by the Logout's reason */
	u32			normal_logouts, abnormal_logouts;
	/* iscsi_sess_err: session failures */
	u32			digest_errors, timeout_errors, format_errors;
	u32			last_sess_fail_type;
	char			last_sess_fail_name[TCMX_ISCSI_NAME_LEN];
};

struct tcmx_iscsi_tiqn {
	struct tcmx_wwn			wwn;
	struct list_head		node;		/* tcmx_iscsi_tiqns */
	struct list_head		tpgs;		/* tcmx_iscsi_tpg.node */
	u32				index;		/* statistics' inst */
	/* fabric_statistics/iscsi_{instance,sess_err,tgt_attr,...} */
	struct config_group		stat_groups[5];
	struct tcmx_iscsi_tiqn_stats	stats;
};

/*
 * A session's own counters (its io work alone writes them, WRITE_ONCE;
 * the statistics files read them with READ_ONCE).
 */
struct tcmx_iscsi_sess_counts {
	u64			indx;		/* the session's TSIH */
	u64			node;		/* 1, 0 for a discovery session */
	u64			cmd_pdus, rsp_pdus;
	u64			txdata_octs, rxdata_octs;
	u64			conn_digest_errors, conn_timeout_errors;
};

/*
 * counts.c, for the protocol: a login's final status class and detail
 * from @peer (@initiator: its InitiatorName, or NULL), a Logout's reason
 * (ISCSI_LOGOUT_REASON_*), a Normal session begun (+1) or ended (-1), a
 * session that failed by a digest error, a timeout or a format error.
 */
enum tcmx_iscsi_sess_err {
	TCMX_ISCSI_ERR_DIGEST = 1,	/* the MIB's iscsiInstSsnFailureType */
	TCMX_ISCSI_ERR_TIMEOUT,
	TCMX_ISCSI_ERR_FORMAT,
};

void tcmx_iscsi_stat_login(struct tcmx_iscsi_tiqn *t, u8 class, u8 detail,
			   const char *initiator,
			   const struct sockaddr_storage *peer);
void tcmx_iscsi_stat_logout(struct tcmx_iscsi_tiqn *t, u8 reason);
void tcmx_iscsi_stat_sessions(struct tcmx_iscsi_tiqn *t, int delta);
void tcmx_iscsi_stat_sess_err(struct tcmx_iscsi_tiqn *t,
			      enum tcmx_iscsi_sess_err err,
			      const char *initiator);

/* A TPG (iscsi/<name>/tpgt_<t>). */
struct tcmx_iscsi_tpg {
	struct tcmx_tpg			tpg;
	struct tcmx_iscsi_tiqn		*tiqn;
	struct list_head		node;		/* tiqn->tpgs */
	struct list_head		nps;		/* tcmx_iscsi_np.node */
	bool				enabled;	/* enable */
	struct tcmx_iscsi_tpg_attrib	attrib;
	struct tcmx_iscsi_auth		auth;
	char				param[TCMX_ISCSI_KEY_NR]
					     [TCMX_ISCSI_VALUE_LEN];
	/* the protocol's, see session.c */
	void				*proto;
	struct list_head		acls;		/* tcmx_iscsi_acl.node */
};

/* A portal (tpgt_<t>/np/<ip>:<port>). */
struct tcmx_iscsi_np {
	struct config_group		group;
	struct tcmx_iscsi_tpg		*tpg;
	struct list_head		node;		/* tpg->nps */
	struct sockaddr_storage		addr;
	/* the protocol's listener, shared by every np of one address */
	void				*listener;
};

/* The fabric's part of a node ACL (tpgt_<t>/acls/<initiator>). */
struct tcmx_iscsi_acl {
	struct tcmx_acl			*acl;
	struct tcmx_iscsi_auth		auth;
	struct tcmx_iscsi_acl_attrib	attrib;
	u32				cmdsn_depth;
	char				tag[TCMX_ISCSI_VALUE_LEN];
	struct tcmx_iscsi_tpg		*tpg;
	struct list_head		node;		/* tpg->acls */
	/* fabric_statistics/iscsi_sess_stats */
	struct config_group		sess_stats_group;
};

/*
 * configfs.c: the configuration.  tcmx_iscsi_cfg_mutex guards everything
 * above that configfs writes, the lists, and discovery_auth.  tpg->proto
 * and np->listener belong to the protocol.
 */
extern struct mutex tcmx_iscsi_cfg_mutex;
extern struct list_head tcmx_iscsi_tiqns;
extern struct tcmx_iscsi_auth tcmx_iscsi_discovery_auth;
extern bool tcmx_iscsi_enforce_discovery_auth;
/* cpus_allowed_list: where connections' io work may run */
extern struct cpumask tcmx_iscsi_cpus;
extern const struct tcmx_fabric_ops tcmx_iscsi_fabric_ops;

/* Under tcmx_iscsi_cfg_mutex: @initiator's ACL in @tpg, or NULL. */
struct tcmx_iscsi_acl *tcmx_iscsi_acl_find(struct tcmx_iscsi_tpg *tpg,
					   const char *initiator);

static inline const char *tcmx_iscsi_tiqn_name(struct tcmx_iscsi_tiqn *t)
{
	return tcmx_wwn_name(&t->wwn);
}

/*
 * The protocol side, called by the configuration in process context
 * (never under tcmx_iscsi_cfg_mutex unless said so).
 */
int tcmx_iscsi_proto_init(void);	/* module load */
void tcmx_iscsi_proto_exit(void);	/* module unload: all is gone */
/* start / stop accepting logins on @np (-EADDRINUSE, -EADDRNOTAVAIL) */
int tcmx_iscsi_np_enable(struct tcmx_iscsi_np *np);
void tcmx_iscsi_np_disable(struct tcmx_iscsi_np *np);
/*
 * @tpg was disabled or is going: end its logins and sessions, and return
 * once they are gone.
 */
void tcmx_iscsi_tpg_shutdown(struct tcmx_iscsi_tpg *tpg);
/* @initiator's ACL went, or its cmdsn_depth changed: end its sessions */
void tcmx_iscsi_acl_shutdown(struct tcmx_iscsi_tpg *tpg,
			     const char *initiator);
/* the files that show sessions: acls/<i>/info, acls/<i>/param/<key> */
ssize_t tcmx_iscsi_sess_info(struct tcmx_iscsi_tpg *tpg,
			     const char *initiator, char *page);
ssize_t tcmx_iscsi_sess_param(struct tcmx_iscsi_tpg *tpg,
			      const char *initiator, enum tcmx_iscsi_key key,
			      char *page);
/*
 * acls/<i>/fabric_statistics/iscsi_sess_stats/<file>: @initiator's
 * session's counter @off (offsetof struct tcmx_iscsi_sess_counts), or
 * nothing (0 bytes) without a session, as the in-tree.
 */
ssize_t tcmx_iscsi_sess_count(struct tcmx_iscsi_tpg *tpg,
			      const char *initiator, size_t off, char *page);
/* a mapped LUN's statistics: the session's index (its TSIH) */
u32 tcmx_iscsi_nexus_index(struct tcmx_nexus *n);
/* tpgt_<t>/dynamic_sessions: the demo-mode initiators logged in */
ssize_t tcmx_iscsi_dynamic_sessions(struct tcmx_iscsi_tpg *tpg, char *page);
/* the fabric's ->queue_status() */
void tcmx_iscsi_queue_status(struct tcmx_cmd *cmd);

#endif /* TCMX_ISCSI_H */
