// SPDX-License-Identifier: GPL-2.0
/*
 * The configfs files that show sessions: acls/<i>/info, acls/<i>/param/<key>,
 * acls/<i>/fabric_statistics/iscsi_sess_stats/ and tpgt_<t>/dynamic_sessions.  They read sessions under conns.c's list
 * lock (tcmx_iscsi_sess_walk()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/string.h>
#include <linux/sysfs.h>
#include "proto.h"

struct sess_show {
	char		*page;
	ssize_t		len;
	int		key;
	bool		found;
};

static void sess_show_info(struct tcmx_iscsi_sess *sess, void *arg)
{
	struct tcmx_iscsi_conn *conn = sess->conn;
	struct sess_show *s = arg;
	u32 window = sess->depth > sess->nr_busy ?
		     sess->depth - sess->nr_busy : 0;

	if (s->found)
		return;
	s->found = true;
	s->len += sysfs_emit_at(s->page, s->len, "InitiatorName: %s\n",
				sess->initiator);
	s->len += sysfs_emit_at(s->page, s->len, "InitiatorAlias: %s\n",
				sess->alias);
	s->len += sysfs_emit_at(s->page, s->len,
				"LIO Session ID: %u   ISID: 0x%6ph  TSIH: %u  SessionType: %s\n",
				sess->tsih, sess->isid, sess->tsih,
				sess->p.discovery ? "Discovery" : "Normal");
	s->len += sysfs_emit_at(s->page, s->len,
				"Session State: TARG_SESS_STATE_LOGGED_IN\n");
	s->len += sysfs_emit_at(s->page, s->len,
				"---------------------[iSCSI Session Values]-----------------------\n");
	s->len += sysfs_emit_at(s->page, s->len,
				"  CmdSN/WR  :  CmdSN/WC  :  ExpCmdSN  :  MaxCmdSN  :     ITT    :     TTT\n");
	s->len += sysfs_emit_at(s->page, s->len,
				" 0x%08x   0x%08x   0x%08x   0x%08x   0x%08x   0x%08x\n",
				sess->depth, window, sess->exp_cmdsn,
				sess->exp_cmdsn + window - 1, 0, 0);
	s->len += sysfs_emit_at(s->page, s->len,
				"----------------------[iSCSI Connections]-------------------------\n");
	s->len += sysfs_emit_at(s->page, s->len,
				"CID: 0  Connection State: TARG_CONN_STATE_LOGGED_IN\n");
	s->len += sysfs_emit_at(s->page, s->len,
				"   Address %pISc TCP  StatSN: 0x%08x\n",
				&conn->peer, conn->stat_sn);
}

ssize_t tcmx_iscsi_sess_info(struct tcmx_iscsi_tpg *tpg,
			     const char *initiator, char *page)
{
	struct sess_show s = { .page = page };

	tcmx_iscsi_sess_walk(tpg, initiator, sess_show_info, &s);
	if (!s.found)
		return sysfs_emit(page,
				  "No active iSCSI Session for Initiator Endpoint: %s\n",
				  initiator);
	return s.len;
}

static void sess_show_param(struct tcmx_iscsi_sess *sess, void *arg)
{
	struct sess_show *s = arg;
	const char *v = sess->p.value[s->key];
	u32 n;

	if (s->found)
		return;
	s->found = true;
	if (!strcmp(v, "Yes") || !strcmp(v, "No"))
		n = !strcmp(v, "Yes");
	else if (kstrtou32(v, 10, &n))
		n = 0;
	s->len = sysfs_emit(s->page, "%u\n", n);
}

ssize_t tcmx_iscsi_sess_param(struct tcmx_iscsi_tpg *tpg,
			      const char *initiator, enum tcmx_iscsi_key key,
			      char *page)
{
	struct sess_show s = { .page = page, .key = key };

	tcmx_iscsi_sess_walk(tpg, initiator, sess_show_param, &s);
	if (!s.found)
		return sysfs_emit(page, "No Active iSCSI Session\n");
	return s.len;
}

static void sess_show_count(struct tcmx_iscsi_sess *sess, void *arg)
{
	struct sess_show *s = arg;
	u64 n;

	if (s->found)
		return;
	s->found = true;
	switch (s->key) {
	case offsetof(struct tcmx_iscsi_sess_counts, indx):
		n = sess->tsih;
		break;
	case offsetof(struct tcmx_iscsi_sess_counts, node):
		n = !sess->p.discovery;
		break;
	default:
		n = READ_ONCE(*(u64 *)((char *)&sess->counts + s->key));
		break;
	}
	s->len = sysfs_emit(s->page, "%llu\n", n);
}

ssize_t tcmx_iscsi_sess_count(struct tcmx_iscsi_tpg *tpg,
			      const char *initiator, size_t off, char *page)
{
	struct sess_show s = { .page = page, .key = off };

	tcmx_iscsi_sess_walk(tpg, initiator, sess_show_count, &s);
	return s.len;
}

/* the fabric's ->nexus_index(): a session's index is its TSIH */
u32 tcmx_iscsi_nexus_index(struct tcmx_nexus *n)
{
	return container_of(n, struct tcmx_iscsi_sess, nexus)->tsih;
}

static void sess_show_dynamic(struct tcmx_iscsi_sess *sess, void *arg)
{
	struct sess_show *s = arg;

	if (s->len + strlen(sess->initiator) + 2 > PAGE_SIZE)
		return;
	s->len += sysfs_emit_at(s->page, s->len, "%s\n", sess->initiator);
}

ssize_t tcmx_iscsi_dynamic_sessions(struct tcmx_iscsi_tpg *tpg, char *page)
{
	struct sess_show s = { .page = page };

	tcmx_iscsi_sess_walk(tpg, NULL, sess_show_dynamic, &s);
	return s.len;
}
