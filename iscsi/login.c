// SPDX-License-Identifier: GPL-2.0
/*
 * The login phase of a connection, PDU by PDU in its io work: the first
 * PDU names the initiator, the session type and the target, which with the
 * listener the connection came in on picks the TPG; the security stage
 * negotiates AuthMethod; the operational stage the keys of the TPG's
 * param/.  On the transit to the full feature phase the session takes
 * what was negotiated, closes an older session of the same initiator and
 * ISID (reinstatement), and registers its I_T nexus with the core.  A
 * failure answers with a Login Response of the status class and detail,
 * then closes.
 *
 * A key list may be continued over several PDUs (C=1, RFC 7143 11.12.2):
 * each is answered with an empty Login Response until the last, and the
 * whole list, at most TCMX_ISCSI_LOGIN_MAX bytes as in-tree, is then
 * negotiated at once.  Our responses never need C: with key names of at
 * most 63 bytes (longer ones are refused) they stay far below the 8192
 * bytes of a login PDU.
 *
 * A login with a non-zero TSIH would add a connection to a session (one
 * connection per session here, MaxConnections=1), and is answered as
 * in-tree: 0x020a when no live session of the same initiator and ISID has
 * that TSIH; else, once authenticated, 0x0206 (beyond MaxConnections),
 * after closing that session's connection if it has the same CID
 * (connection reinstatement, which ends the session at ERL 0).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/string.h>
#include "login.h"

#define LOGIN_KEYS	64
/*
 * RFC 7143 6.1: a key name has at most 63 bytes.  With LOGIN_KEYS of them
 * each answered at most "=NotUnderstood", a response stays well within
 * the 8192 bytes of a login PDU.
 */
#define LOGIN_KEY_NAME_MAX	63

/* status class << 8 | detail */
#define LOGIN_ERR(cls, detail)	(((cls) << 8) | (detail))
#define LOGIN_INIT_ERR(d)	LOGIN_ERR(ISCSI_STATUS_CLS_INITIATOR_ERR, d)
#define LOGIN_TGT_ERR(d)	LOGIN_ERR(ISCSI_STATUS_CLS_TARGET_ERR, d)

static atomic_t tsih_next = ATOMIC_INIT(0);

/* a Login Response of @status (class << 8 | detail) with login->rsp */
static int login_send(struct tcmx_iscsi_conn *conn, u16 status, bool transit,
		      u8 nsg)
{
	struct iscsi_login_req *req = (void *)conn->rx_hdr;
	struct iscsi_login_rsp *rsp = (void *)conn->tx_hdr;
	struct tcmx_iscsi_login *login = conn->login;

	memset(rsp, 0, TCMX_ISCSI_BHS);
	rsp->opcode = ISCSI_OP_LOGIN_RSP;
	rsp->flags = req->flags & ISCSI_FLAG_LOGIN_CURRENT_STAGE_MASK;
	if (!status && transit)
		rsp->flags |= ISCSI_FLAG_LOGIN_TRANSIT | nsg;
	memcpy(rsp->isid, req->isid, sizeof(rsp->isid));
	if (login && login->sess)
		rsp->tsih = cpu_to_be16(login->tsih ?: login->tsih_req);
	if (status)
		rsp->tsih = 0;
	rsp->itt = req->itt;
	rsp->status_class = status >> 8;
	rsp->status_detail = status & 0xff;
	tcmx_iscsi_set_sn(conn, &rsp->statsn, &rsp->exp_cmdsn,
			  &rsp->max_cmdsn, true);
	return tcmx_iscsi_send_pdu(conn, status || !login ? NULL : login->rsp,
				   status || !login ? 0 : login->rsp_len,
				   false);
}

/* a final Login Response in iscsi_login_stats, once a TPG was taken */
static void login_count(struct tcmx_iscsi_conn *conn, u16 status)
{
	struct tcmx_iscsi_tpg *tpg = READ_ONCE(conn->tpg);
	struct tcmx_iscsi_sess *sess = conn->login ? conn->login->sess : NULL;

	if (tpg && sess && !sess->p.discovery)
		tcmx_iscsi_stat_login(tpg->tiqn, status >> 8, status & 0xff,
				      sess->initiator, &conn->peer);
}

static int login_fail(struct tcmx_iscsi_conn *conn, u16 status,
		      const char *why)
{
	pr_warn_ratelimited("login from %pISpc refused (0x%04x): %s\n",
			    &conn->peer, status, why);
	login_count(conn, status);
	login_send(conn, status, false, 0);
	/*
	 * Both sides close (RFC 7143 11.13.5); the initiator first, so that
	 * the close it sees is its own and not a connection error racing
	 * its own teardown of the login (open-iscsi's iscsi_tcp on 6.12
	 * oopsed on that).  The io work discards what still comes and
	 * closes at the end of the stream, the timer after TCMX_LINGER.
	 */
	conn->linger = true;
	mod_delayed_work(tcmx_iscsi_wq, &conn->timer_work, TCMX_LINGER);
	return -EPERM;
}

static const char *login_why(u16 status)
{
	switch (status) {
	case LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_AUTH_FAILED):
		return "authentication failed";
	case LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_TGT_FORBIDDEN):
		return "no ACL for the initiator";
	case LOGIN_TGT_ERR(ISCSI_LOGIN_STATUS_SVC_UNAVAILABLE):
		return "no enabled TPG of the target on this portal";
	case LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_MISSING_FIELDS):
		return "a key missing";
	case LOGIN_TGT_ERR(ISCSI_LOGIN_STATUS_NO_RESOURCES):
		return "out of resources";
	case LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_NO_SESSION):
		return "no session with that TSIH";
	case LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_ISID_ERROR):
		return "a second connection (MaxConnections=1)";
	default:
		return "bad login request";
	}
}

/* The TPG of target @name that has a portal on conn's listener. */
static struct tcmx_iscsi_tpg *login_find_tpg(struct tcmx_iscsi_conn *conn,
					     const char *name)
{
	struct tcmx_iscsi_tiqn *tiqn;
	struct tcmx_iscsi_tpg *tpg;
	struct tcmx_iscsi_np *np;

	list_for_each_entry(tiqn, &tcmx_iscsi_tiqns, node) {
		if (strcmp(tcmx_iscsi_tiqn_name(tiqn), name))
			continue;
		list_for_each_entry(tpg, &tiqn->tpgs, node) {
			if (!tpg->enabled)
				continue;
			list_for_each_entry(np, &tpg->nps, node)
				if (np->listener == conn->listener)
					return tpg;
		}
	}
	return NULL;
}

/* Under tcmx_iscsi_cfg_mutex: what the session takes from TPG and ACL. */
static u16 login_take_tpg(struct tcmx_iscsi_conn *conn,
			  struct tcmx_iscsi_tpg *tpg)
{
	struct tcmx_iscsi_login *login = conn->login;
	struct tcmx_iscsi_sess *sess = login->sess;
	struct tcmx_iscsi_acl *acl;
	int auth;

	acl = tcmx_iscsi_acl_find(tpg, sess->initiator);
	if (!acl && !tpg->attrib.generate_node_acls) {
		/* counted here: the connection never gets the TPG */
		tcmx_iscsi_stat_login(tpg->tiqn, ISCSI_STATUS_CLS_INITIATOR_ERR,
				      ISCSI_LOGIN_STATUS_TGT_FORBIDDEN,
				      sess->initiator, &conn->peer);
		return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_TGT_FORBIDDEN);
	}
	WRITE_ONCE(conn->tpg, tpg);
	sess->tpg = tpg;
	sess->dynamic = !acl;
	sess->nexus.demo_wp = !acl && tpg->attrib.demo_mode_write_protect;
	sess->depth = acl && acl->cmdsn_depth ? acl->cmdsn_depth :
		      tpg->attrib.default_cmdsn_depth;
	auth = acl && acl->attrib.authentication >= 0 ?
	       acl->attrib.authentication : tpg->attrib.authentication;
	login->need_auth = auth;
	login->chap.cred = acl ? acl->auth : tpg->auth;
	login->login_timeout = tpg->attrib.login_timeout;
	sess->p.nopin_timeout = acl ? acl->attrib.nopin_timeout : 15;
	sess->p.nopin_response_timeout = acl ?
		acl->attrib.nopin_response_timeout : 30;
	memcpy(login->ours, tpg->param, sizeof(login->ours));
	return 0;
}

/* the defaults of discovery sessions, which have no TPG */
static void login_discovery_params(struct tcmx_iscsi_login *login)
{
	int i;

	for (i = 0; i < TCMX_ISCSI_KEY_NR; i++)
		strscpy(login->ours[i], tcmx_iscsi_keys[i].def,
			sizeof(login->ours[i]));
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	login->need_auth = tcmx_iscsi_enforce_discovery_auth;
	login->chap.cred = tcmx_iscsi_discovery_auth;
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	login->login_timeout = 15;
	login->sess->depth = 16;
}

struct login_tsih {
	const u8	*isid;
	u16		tsih;
	__be16		cid;
	bool		found;
	bool		same_cid;
};

static void login_tsih_match(struct tcmx_iscsi_sess *sess, void *arg)
{
	struct login_tsih *t = arg;

	if (sess->tsih != t->tsih || memcmp(sess->isid, t->isid, 6))
		return;
	t->found = true;
	t->same_cid = sess->cid == t->cid;
}

/* the live session named by the login's TSIH, ISID and initiator */
static bool login_tsih_find(struct tcmx_iscsi_conn *conn, bool *same_cid)
{
	struct tcmx_iscsi_sess *sess = conn->login->sess;
	struct login_tsih t = {
		.isid = sess->isid,
		.tsih = conn->login->tsih_req,
		.cid = sess->cid,
	};

	tcmx_iscsi_sess_walk(sess->tpg, sess->initiator, login_tsih_match, &t);
	*same_cid = t.same_cid;
	return t.found;
}

/*
 * Authenticated, with a non-zero TSIH: a second connection, which one
 * connection per session refuses; with the CID of the session's own
 * connection, that connection is reinstated (closed) first.
 */
static u16 login_tsih_post_auth(struct tcmx_iscsi_conn *conn)
{
	struct tcmx_iscsi_login *login = conn->login;
	bool same_cid;

	login->tsih_checked = true;
	if (!login_tsih_find(conn, &same_cid))
		return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_NO_SESSION);
	if (same_cid) {
		pr_warn_ratelimited("%pISpc: connection reinstatement of TSIH %u: its connection closed\n",
				    &conn->peer, login->tsih_req);
		tcmx_iscsi_sess_reinstate(login->sess);
	}
	return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_ISID_ERROR);
}

/* the first PDU's declarations: InitiatorName, SessionType, TargetName */
static u16 login_first(struct tcmx_iscsi_conn *conn,
		       struct tcmx_iscsi_kv *kv, int n)
{
	struct tcmx_iscsi_login *login = conn->login;
	struct tcmx_iscsi_sess *sess = login->sess;
	const char *target = NULL, *type = "Normal";
	struct tcmx_iscsi_tpg *tpg;
	u16 status = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(kv[i].key, "InitiatorName"))
			strscpy(sess->initiator, kv[i].value,
				sizeof(sess->initiator));
		else if (!strcmp(kv[i].key, "InitiatorAlias"))
			strscpy(sess->alias, kv[i].value, sizeof(sess->alias));
		else if (!strcmp(kv[i].key, "TargetName"))
			target = kv[i].value;
		else if (!strcmp(kv[i].key, "SessionType"))
			type = kv[i].value;
	}
	if (!sess->initiator[0])
		return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_MISSING_FIELDS);
	if (!strcmp(type, "Discovery")) {
		login->discovery = true;
		sess->p.discovery = true;
		login_discovery_params(login);
		return 0;
	}
	if (strcmp(type, "Normal"))
		return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_NO_SESSION_TYPE);
	if (!target)
		return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_MISSING_FIELDS);
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	tpg = login_find_tpg(conn, target);
	/* as in-tree: no such target here (yet), try again later */
	status = tpg ? login_take_tpg(conn, tpg) :
		 LOGIN_TGT_ERR(ISCSI_LOGIN_STATUS_SVC_UNAVAILABLE);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	if (!status)
		mod_delayed_work(tcmx_iscsi_wq, &conn->timer_work,
				 login->login_timeout * HZ);
	return status;
}

static bool login_declared(const char *key)
{
	static const char * const names[] = {
		"InitiatorName", "InitiatorAlias", "TargetName",
		"SessionType",
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(key, names[i]))
			return true;
	return false;
}

/*
 * AuthMethod: CHAP when authentication is on; CHAP or None as the
 * initiator prefers when it is off and credentials are set, else None.
 */
static u16 login_auth_method(struct tcmx_iscsi_conn *conn, const char *value)
{
	struct tcmx_iscsi_login *login = conn->login;
	const char *ours = "None";
	char out[16];
	const char *r;

	if (login->need_auth)
		ours = "CHAP";
	else if (login->chap.cred.userid[0])
		ours = "CHAP,None";
	r = tcmx_iscsi_negotiate(TCMX_ISCSI_KEY_AUTH_METHOD, ours, value, out,
				 sizeof(out));
	if (!r || !strcmp(r, "Reject"))
		return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_AUTH_FAILED);
	if (!strcmp(r, "CHAP")) {
		login->chap_on = true;
		login->chap.state = TCMX_CHAP_WAIT_A;
	} else {
		login->auth_done = true;
	}
	return tcmx_iscsi_kv_add(login->rsp, sizeof(login->rsp),
				 &login->rsp_len, "AuthMethod", r) ?
	       LOGIN_TGT_ERR(ISCSI_LOGIN_STATUS_NO_RESOURCES) : 0;
}

/* one negotiable key: its response, and what the session keeps */
static u16 login_key(struct tcmx_iscsi_conn *conn, int id, const char *value)
{
	struct tcmx_iscsi_login *login = conn->login;
	struct tcmx_iscsi_sess *sess = login->sess;
	const char *ours = login->ours[id];
	const char *r;
	u32 v;

	if (login->seen[id])
		return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_INIT_ERR);
	login->seen[id] = true;
	if (id == TCMX_ISCSI_KEY_AUTH_METHOD)
		return login_auth_method(conn, value);
	if (id == TCMX_ISCSI_KEY_MAX_XMIT_DSL)
		return 0;	/* ours alone */
	r = tcmx_iscsi_negotiate(id, ours, value, login->value,
				 sizeof(login->value));
	if (!r)
		return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_INIT_ERR);
	if (id == TCMX_ISCSI_KEY_MAX_RECV_DSL) {
		/* what they receive: what we send, within MaxXmitDSL */
		if (!kstrtou32(value, 10, &v))
			sess->p.max_xmit_dsl = v;
	}
	strscpy(sess->p.value[id], id == TCMX_ISCSI_KEY_MAX_RECV_DSL ?
		value : r, sizeof(sess->p.value[id]));
	return tcmx_iscsi_kv_add(login->rsp, sizeof(login->rsp),
				 &login->rsp_len, tcmx_iscsi_keys[id].name, r) ?
	       LOGIN_TGT_ERR(ISCSI_LOGIN_STATUS_NO_RESOURCES) : 0;
}

/* the CHAP keys, once AuthMethod=CHAP is agreed */
static u16 login_chap(struct tcmx_iscsi_conn *conn, struct tcmx_iscsi_kv *kv,
		      int n)
{
	struct tcmx_iscsi_login *login = conn->login;
	int ret;

	if (!login->chap_on || login->auth_done)
		return 0;
	ret = tcmx_iscsi_chap_step(&login->chap, kv, n, login->rsp,
				   sizeof(login->rsp), &login->rsp_len);
	if (ret == -ENOSPC)
		return LOGIN_TGT_ERR(ISCSI_LOGIN_STATUS_NO_RESOURCES);
	if (ret < 0)
		return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_AUTH_FAILED);
	if (ret)
		login->auth_done = true;
	return 0;
}

static u16 login_keys(struct tcmx_iscsi_conn *conn, struct tcmx_iscsi_kv *kv,
		      int n)
{
	struct tcmx_iscsi_login *login = conn->login;
	u16 status;
	int i, id;

	for (i = 0; i < n; i++) {
		if (strlen(kv[i].key) > LOGIN_KEY_NAME_MAX)
			return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_INIT_ERR);
		if (login_declared(kv[i].key) ||
		    (login->chap_on && !strncmp(kv[i].key, "CHAP_", 5)))
			continue;
		id = tcmx_iscsi_key_id(kv[i].key);
		if (id < 0) {
			if (tcmx_iscsi_kv_add(login->rsp, sizeof(login->rsp),
					      &login->rsp_len, kv[i].key,
					      "NotUnderstood"))
				return LOGIN_TGT_ERR(ISCSI_LOGIN_STATUS_NO_RESOURCES);
			continue;
		}
		status = login_key(conn, id, kv[i].value);
		if (status)
			return status;
	}
	return login_chap(conn, kv, n);
}

/* what the session uses: the responses, else the keys' defaults */
static void login_params(struct tcmx_iscsi_login *login)
{
	struct tcmx_iscsi_ops_params *p = &login->sess->p;
	u32 v[TCMX_ISCSI_KEY_NR] = {};
	int i;

	for (i = 0; i < TCMX_ISCSI_KEY_NR; i++) {
		if (!login->seen[i])
			strscpy(p->value[i], tcmx_iscsi_keys[i].def,
				sizeof(p->value[i]));
		if (kstrtou32(p->value[i], 10, &v[i]))
			v[i] = !strcmp(p->value[i], "Yes");
	}
	if (kstrtou32(login->ours[TCMX_ISCSI_KEY_MAX_RECV_DSL], 10,
		      &p->max_recv_dsl))
		p->max_recv_dsl = 8192;
	snprintf(p->value[TCMX_ISCSI_KEY_MAX_RECV_DSL],
		 sizeof(p->value[0]), "%u", p->max_recv_dsl);
	if (!login->seen[TCMX_ISCSI_KEY_MAX_RECV_DSL])
		p->max_xmit_dsl = 8192;
	if (!kstrtou32(login->ours[TCMX_ISCSI_KEY_MAX_XMIT_DSL], 10, &v[0]))
		p->max_xmit_dsl = min(p->max_xmit_dsl, v[0]);
	snprintf(p->value[TCMX_ISCSI_KEY_MAX_XMIT_DSL],
		 sizeof(p->value[0]), "%u", p->max_xmit_dsl);
	p->max_burst = v[TCMX_ISCSI_KEY_MAX_BURST];
	p->first_burst = min(v[TCMX_ISCSI_KEY_FIRST_BURST], p->max_burst);
	p->max_r2t = max(v[TCMX_ISCSI_KEY_MAX_R2T], 1U);
	p->initial_r2t = v[TCMX_ISCSI_KEY_INITIAL_R2T];
	p->immediate_data = v[TCMX_ISCSI_KEY_IMMEDIATE_DATA];
	p->header_digest = !strcmp(p->value[TCMX_ISCSI_KEY_HEADER_DIGEST],
				   "CRC32C");
	p->data_digest = !strcmp(p->value[TCMX_ISCSI_KEY_DATA_DIGEST],
				 "CRC32C");
}

/* the transit to the full feature phase: the session starts */
static u16 login_ffp(struct tcmx_iscsi_conn *conn)
{
	struct tcmx_iscsi_login *login = conn->login;
	struct tcmx_iscsi_sess *sess = login->sess;
	u8 *buf;

	if (!login->seen[TCMX_ISCSI_KEY_MAX_RECV_DSL]) {
		if (tcmx_iscsi_kv_add(login->rsp, sizeof(login->rsp),
				      &login->rsp_len,
				      "MaxRecvDataSegmentLength",
				      login->ours[TCMX_ISCSI_KEY_MAX_RECV_DSL]))
			return LOGIN_TGT_ERR(ISCSI_LOGIN_STATUS_NO_RESOURCES);
	}
	login_params(login);
	buf = kvmalloc(max(sess->p.max_recv_dsl, TCMX_ISCSI_LOGIN_MAX),
		       GFP_KERNEL);
	if (!buf)
		return LOGIN_TGT_ERR(ISCSI_LOGIN_STATUS_NO_RESOURCES);
	kvfree(conn->rx_buf);
	conn->rx_buf = buf;
	conn->rx_buf_len = max(sess->p.max_recv_dsl, TCMX_ISCSI_LOGIN_MAX);
	if (!login->discovery)
		tcmx_iscsi_sess_reinstate(sess);
	if (tcmx_iscsi_sess_start(sess))
		return LOGIN_TGT_ERR(ISCSI_LOGIN_STATUS_NO_RESOURCES);
	do {
		login->tsih = atomic_inc_return(&tsih_next);
	} while (!login->tsih);
	sess->tsih = login->tsih;
	return 0;
}

static int login_start(struct tcmx_iscsi_conn *conn)
{
	struct iscsi_login_req *req = (void *)conn->rx_hdr;
	struct tcmx_iscsi_login *login;

	login = kvzalloc(sizeof(*login), GFP_KERNEL);
	if (!login)
		return -ENOMEM;
	conn->login = login;
	login->sess = tcmx_iscsi_sess_alloc(conn);
	if (!login->sess)
		return -ENOMEM;
	conn->login_sess = login->sess;
	memcpy(login->isid, req->isid, sizeof(login->isid));
	memcpy(login->sess->isid, req->isid, sizeof(login->isid));
	login->cid = req->cid;
	login->sess->cid = req->cid;
	login->tsih_req = be16_to_cpu(req->tsih);
	login->sess->exp_cmdsn = be32_to_cpu(req->cmdsn);
	conn->stat_sn = be32_to_cpu(req->exp_statsn);
	return 0;
}

/* the keys of one Login Request; the response in login->rsp */
static u16 login_pdu_keys(struct tcmx_iscsi_conn *conn)
{
	struct tcmx_iscsi_login *login = conn->login;
	struct tcmx_iscsi_kv kv[LOGIN_KEYS];
	bool same_cid;
	char tag[8];
	u16 status;
	int n;

	n = tcmx_iscsi_kv_parse(login->req, login->req_len, kv, LOGIN_KEYS);
	login->req_len = 0;
	if (n < 0)
		return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_INIT_ERR);
	login->rsp_len = 0;
	if (!login->first_done) {
		login->first_done = true;
		status = login_first(conn, kv, n);
		if (status)
			return status;
		if (login->tsih_req && !login_tsih_find(conn, &same_cid))
			return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_NO_SESSION);
		if (!login->discovery) {
			snprintf(tag, sizeof(tag), "%u",
				 login->sess->tpg->tpg.tag);
			tcmx_iscsi_kv_add(login->rsp, sizeof(login->rsp),
					  &login->rsp_len,
					  "TargetPortalGroupTag", tag);
		}
	}
	return login_keys(conn, kv, n);
}

/*
 * The stage checks and the transit; 0 or a login status.  A transit the
 * initiator asks for while CHAP is under way is refused (T=0 back): it
 * offered CHAP and None and may not know which we pick.
 */
static u16 login_stage(struct tcmx_iscsi_conn *conn, u8 csg, u8 nsg,
		       bool *transit)
{
	struct tcmx_iscsi_login *login = conn->login;

	if (csg == 2 || csg == 3)
		return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_INIT_ERR);
	if (csg == 0 && *transit && login->chap_on && !login->auth_done) {
		*transit = false;
		return 0;
	}
	if (csg == 1 || *transit) {
		if (!login->auth_done && (login->need_auth || login->chap_on))
			return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_AUTH_FAILED);
		login->auth_done = true;
		if (login->tsih_req && !login->tsih_checked)
			return login_tsih_post_auth(conn);
	}
	if (*transit && (nsg <= csg || nsg == 2))
		return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_INIT_ERR);
	if (*transit && nsg == 3)
		return login_ffp(conn);
	return 0;
}

/*
 * This PDU's keys added to login->req: *more when it continues the list
 * (C=1), then answered with an empty Login Response.  <0: the list grows
 * past TCMX_ISCSI_LOGIN_MAX, which ends the connection without an
 * answer (as in-tree for a login PDU over its buffer); >0: a status.
 */
static int login_gather(struct tcmx_iscsi_conn *conn, bool *more)
{
	struct iscsi_login_req *req = (void *)conn->rx_hdr;
	struct tcmx_iscsi_login *login = conn->login;
	u8 csg = req->flags & ISCSI_FLAG_LOGIN_CURRENT_STAGE_MASK;

	*more = req->flags & ISCSI_FLAG_LOGIN_CONTINUE;
	if (*more && (req->flags & ISCSI_FLAG_LOGIN_TRANSIT))
		return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_INIT_ERR);
	/* a continuation keeps the stage and the task tag */
	if (login->req_len &&
	    (csg != login->cont_csg || req->itt != login->cont_itt))
		return LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_INIT_ERR);
	if (conn->rx_dlen > sizeof(login->req) - login->req_len) {
		pr_warn_ratelimited("login from %pISpc: keys over %u bytes, connection closed\n",
				    &conn->peer, TCMX_ISCSI_LOGIN_MAX);
		return -EMSGSIZE;
	}
	memcpy(login->req + login->req_len, conn->rx_buf, conn->rx_dlen);
	login->req_len += conn->rx_dlen;
	login->cont_csg = csg;
	login->cont_itt = req->itt;
	return 0;
}

/* A whole Login Request PDU (its data in conn->rx_buf). */
int tcmx_iscsi_login_pdu(struct tcmx_iscsi_conn *conn)
{
	struct iscsi_login_req *req = (void *)conn->rx_hdr;
	u8 csg = (req->flags & ISCSI_FLAG_LOGIN_CURRENT_STAGE_MASK) >> 2;
	u8 nsg = req->flags & ISCSI_FLAG_LOGIN_NEXT_STAGE_MASK;
	bool transit = req->flags & ISCSI_FLAG_LOGIN_TRANSIT;
	struct tcmx_iscsi_sess *sess;
	bool more;
	u16 status;
	int ret;

	if (req->min_version > 0)
		return login_fail(conn, LOGIN_INIT_ERR(ISCSI_LOGIN_STATUS_NO_VERSION),
				  "version");
	if (!conn->login) {
		ret = login_start(conn);
		if (ret)
			return ret;
	}
	ret = login_gather(conn, &more);
	if (ret < 0)
		return ret;
	if (ret)
		return login_fail(conn, ret, "continued login PDUs");
	if (more) {
		conn->login->rsp_len = 0;
		return login_send(conn, 0, false, 0);
	}
	status = login_pdu_keys(conn);
	if (!status)
		status = login_stage(conn, csg, nsg, &transit);
	if (status)
		return login_fail(conn, status, login_why(status));
	if (!(transit && nsg == 3))
		return login_send(conn, 0, transit, nsg);

	/* the full feature phase: the session now belongs to the connection */
	sess = conn->login->sess;
	login_count(conn, 0);
	ret = login_send(conn, 0, true, nsg);
	conn->login->sess = NULL;
	conn->login_sess = NULL;
	tcmx_iscsi_conn_set_sess(conn, sess);
	tcmx_iscsi_login_free(conn);
	mod_delayed_work(tcmx_iscsi_wq, &conn->timer_work, HZ);
	return ret;
}
