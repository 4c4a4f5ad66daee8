// SPDX-License-Identifier: GPL-2.0
/*
 * The Text request (SendTargets) of a discovery or a normal session.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "proto.h"

/* "TargetAddress=<ip>:<port>,<tpgt>" for @np; 0.0.0.0 is @conn's address */
static int sendtargets_addr(struct tcmx_iscsi_conn *conn,
			    struct tcmx_iscsi_np *np, char *buf, u32 size,
			    u32 *len)
{
	struct sockaddr_storage a = np->addr;
	char addr[64];

	if (inet_addr_is_any((struct sockaddr *)&a)) {
		__be16 port = ((struct sockaddr_in *)&a)->sin_port;

		a = conn->local;
		((struct sockaddr_in *)&a)->sin_port = port;
	}
	if (a.ss_family == AF_INET6)
		snprintf(addr, sizeof(addr), "[%pI6c]:%u,%u",
			 &((struct sockaddr_in6 *)&a)->sin6_addr,
			 ntohs(((struct sockaddr_in6 *)&a)->sin6_port),
			 np->tpg->tpg.tag);
	else
		snprintf(addr, sizeof(addr), "%pI4:%u,%u",
			 &((struct sockaddr_in *)&a)->sin_addr,
			 ntohs(((struct sockaddr_in *)&a)->sin_port),
			 np->tpg->tpg.tag);
	return tcmx_iscsi_kv_add(buf, size, len, "TargetAddress", addr);
}

static int sendtargets_tiqn(struct tcmx_iscsi_conn *conn,
			    struct tcmx_iscsi_tiqn *tiqn, char *buf, u32 size,
			    u32 *len)
{
	struct tcmx_iscsi_tpg *tpg;
	struct tcmx_iscsi_np *np;
	bool named = false;
	int ret;

	list_for_each_entry(tpg, &tiqn->tpgs, node) {
		if (!tpg->enabled && tpg->attrib.tpg_enabled_sendtargets)
			continue;
		/* without demo_mode_discovery, only where it has an ACL */
		if (!tpg->attrib.demo_mode_discovery && conn->sess &&
		    !tcmx_iscsi_acl_find(tpg, conn->sess->initiator))
			continue;
		list_for_each_entry(np, &tpg->nps, node) {
			if (!named) {
				ret = tcmx_iscsi_kv_add(buf, size, len,
							"TargetName",
							tcmx_iscsi_tiqn_name(tiqn));
				if (ret)
					return ret;
				named = true;
			}
			ret = sendtargets_addr(conn, np, buf, size, len);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* SendTargets=@which ("All", a target name, or "" for the session's) */
int tcmx_iscsi_sendtargets(struct tcmx_iscsi_conn *conn, const char *which,
			   char *buf, u32 size)
{
	struct tcmx_iscsi_tiqn *tiqn;
	const char *name = NULL;
	u32 len = 0;
	int ret = 0;

	if (!*which && conn->tpg)
		name = tcmx_iscsi_tiqn_name(conn->tpg->tiqn);
	else if (strcmp(which, "All"))
		name = which;
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	list_for_each_entry(tiqn, &tcmx_iscsi_tiqns, node) {
		if (name && strcmp(name, tcmx_iscsi_tiqn_name(tiqn)))
			continue;
		ret = sendtargets_tiqn(conn, tiqn, buf, size, &len);
		if (ret)
			break;
	}
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return ret ? ret : len;
}

/* the next (or only) Text Response PDU of conn->text */
static int text_send(struct tcmx_iscsi_conn *conn, itt_t itt)
{
	struct iscsi_text_rsp *rsp = (void *)conn->tx_hdr;
	u32 left = conn->text_len - conn->text_off;
	u32 n = min(left, conn->sess->p.max_xmit_dsl);
	int ret;

	memset(rsp, 0, TCMX_ISCSI_BHS);
	rsp->opcode = ISCSI_OP_TEXT_RSP;
	rsp->itt = itt;
	if (n < left) {
		rsp->flags = ISCSI_FLAG_TEXT_CONTINUE;
		rsp->ttt = cpu_to_be32(++conn->text_ttt);
	} else {
		rsp->flags = ISCSI_FLAG_CMD_FINAL;
		rsp->ttt = cpu_to_be32(ISCSI_RESERVED_TAG);
	}
	tcmx_iscsi_set_sn(conn, &rsp->statsn, &rsp->exp_cmdsn,
			  &rsp->max_cmdsn, true);
	ret = tcmx_iscsi_send_pdu(conn, conn->text + conn->text_off, n,
				  false);
	conn->text_off += n;
	return ret;
}

/* the keys of a Text request: SendTargets, or NotUnderstood */
static int text_build(struct tcmx_iscsi_conn *conn)
{
	struct tcmx_iscsi_kv kv[16];
	int i, n, ret;

	n = tcmx_iscsi_kv_parse(conn->rx_buf, conn->rx_dlen, kv,
				ARRAY_SIZE(kv));
	if (n < 0)
		return n;
	conn->text_len = 0;
	conn->text_off = 0;
	for (i = 0; i < n; i++) {
		if (!strcmp(kv[i].key, "SendTargets")) {
			ret = tcmx_iscsi_sendtargets(conn, kv[i].value,
						     conn->text + conn->text_len,
						     TCMX_ISCSI_TEXT_MAX -
						     conn->text_len);
			if (ret < 0)
				return ret;
			conn->text_len += ret;
			continue;
		}
		ret = tcmx_iscsi_kv_add(conn->text, TCMX_ISCSI_TEXT_MAX,
					&conn->text_len, kv[i].key,
					"NotUnderstood");
		if (ret)
			return ret;
	}
	return 0;
}

int tcmx_iscsi_text_pdu(struct tcmx_iscsi_conn *conn)
{
	struct iscsi_text *req = (void *)conn->rx_hdr;

	if (!conn->text) {
		conn->text = kvmalloc(TCMX_ISCSI_TEXT_MAX, GFP_KERNEL);
		if (!conn->text)
			return -ENOMEM;
	}
	/* the initiator asks for the rest of a long response */
	if (req->ttt != cpu_to_be32(ISCSI_RESERVED_TAG)) {
		if (be32_to_cpu(req->ttt) != conn->text_ttt ||
		    conn->text_off >= conn->text_len) {
			tcmx_iscsi_reject(conn, ISCSI_REASON_PROTOCOL_ERROR);
			return 0;
		}
		return text_send(conn, req->itt);
	}
	if (req->flags & ISCSI_FLAG_TEXT_CONTINUE || text_build(conn)) {
		/* nothing of a refused request is sent on a later TTT */
		conn->text_len = 0;
		conn->text_off = 0;
		pr_warn_ratelimited("%pISpc: Text request refused\n",
				    &conn->peer);
		tcmx_iscsi_reject(conn, ISCSI_REASON_PROTOCOL_ERROR);
		return 0;
	}
	return text_send(conn, req->itt);
}
