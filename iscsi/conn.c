// SPDX-License-Identifier: GPL-2.0
/*
 * A connection's io work: the only context that reads or writes its socket.
 * It sends what deferred commands handed back, then receives PDUs without
 * blocking, resuming mid-PDU where the socket ran dry: the BHS, its AHS,
 * the data segment (straight into a command's pages for SCSI data), its
 * padding.  A complete header is dispatched (it says where its data goes),
 * then the complete PDU.  Sends block (the socket's own timeout aside); a
 * teardown shuts the socket, which wakes them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32c.h>
#include <linux/highmem.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <net/sock.h>
#include "proto.h"

/* ---- NOP, Logout ---- */

static int conn_nop_out(struct tcmx_iscsi_conn *conn)
{
	struct iscsi_nopout *req = (void *)conn->rx_hdr;
	struct iscsi_nopin *rsp = (void *)conn->tx_hdr;

	if (req->itt == RESERVED_ITT) {
		/* the answer to our NOP-In, or a ping that wants none */
		if (be32_to_cpu(req->ttt) == conn->nopin_ttt)
			conn->nopin_sent = false;
		return 0;
	}
	memset(rsp, 0, TCMX_ISCSI_BHS);
	rsp->opcode = ISCSI_OP_NOOP_IN;
	rsp->flags = ISCSI_FLAG_CMD_FINAL;
	rsp->lun = req->lun;
	rsp->itt = req->itt;
	rsp->ttt = cpu_to_be32(ISCSI_RESERVED_TAG);
	tcmx_iscsi_set_sn(conn, &rsp->statsn, &rsp->exp_cmdsn,
			  &rsp->max_cmdsn, true);
	return tcmx_iscsi_send_pdu(conn, conn->rx_buf, conn->rx_dlen, false);
}

/* the keepalive: a NOP-In every nopin_timeout; no answer in time ends it */
/* a session lost its connection to a digest error or a timeout */
static void conn_failed(struct tcmx_iscsi_conn *conn,
			enum tcmx_iscsi_sess_err err)
{
	struct tcmx_iscsi_sess *sess = conn->sess;

	if (!sess || sess->p.discovery)
		return;
	tcmx_iscsi_count(err == TCMX_ISCSI_ERR_DIGEST ?
			 &sess->counts.conn_digest_errors :
			 &sess->counts.conn_timeout_errors, 1);
	tcmx_iscsi_stat_sess_err(sess->tpg->tiqn, err, sess->initiator);
}

static void conn_keepalive(struct tcmx_iscsi_conn *conn)
{
	struct tcmx_iscsi_sess *sess = conn->sess;
	struct iscsi_nopin *nop = (void *)conn->tx_hdr;
	unsigned long idle;

	if (!sess || !sess->p.nopin_timeout || conn->dead)
		return;
	idle = jiffies - READ_ONCE(conn->last_rx);
	if (conn->nopin_sent) {
		if (idle < sess->p.nopin_response_timeout * HZ)
			goto rearm;
		pr_warn_ratelimited("%pISpc: no NOP-Out answer, connection closed\n",
				    &conn->peer);
		conn_failed(conn, TCMX_ISCSI_ERR_TIMEOUT);
		tcmx_iscsi_conn_close(conn);
		return;
	}
	if (idle >= sess->p.nopin_timeout * HZ) {
		memset(nop, 0, TCMX_ISCSI_BHS);
		nop->opcode = ISCSI_OP_NOOP_IN;
		nop->flags = ISCSI_FLAG_CMD_FINAL;
		nop->itt = RESERVED_ITT;
		nop->ttt = cpu_to_be32(++conn->nopin_ttt);
		tcmx_iscsi_set_sn(conn, &nop->statsn, &nop->exp_cmdsn,
				  &nop->max_cmdsn, false);
		if (tcmx_iscsi_send_pdu(conn, NULL, 0, false)) {
			tcmx_iscsi_conn_close(conn);
			return;
		}
		conn->nopin_sent = true;
		conn->last_rx = jiffies;
	}
rearm:
	queue_delayed_work(tcmx_iscsi_wq, &conn->timer_work, HZ);
}

static int conn_logout(struct tcmx_iscsi_conn *conn)
{
	struct iscsi_logout *req = (void *)conn->rx_hdr;
	struct iscsi_logout_rsp *rsp = (void *)conn->tx_hdr;
	u8 reason = req->flags & ISCSI_FLAG_LOGOUT_REASON_MASK;

	memset(rsp, 0, TCMX_ISCSI_BHS);
	rsp->opcode = ISCSI_OP_LOGOUT_RSP;
	rsp->flags = ISCSI_FLAG_CMD_FINAL;
	rsp->response = reason == ISCSI_LOGOUT_REASON_RECOVERY ?
			ISCSI_LOGOUT_RECOVERY_UNSUPPORTED : ISCSI_LOGOUT_SUCCESS;
	rsp->itt = (__force itt_t)req->itt;
	tcmx_iscsi_set_sn(conn, &rsp->statsn, &rsp->exp_cmdsn,
			  &rsp->max_cmdsn, true);
	if (conn->sess && !conn->sess->p.discovery)
		tcmx_iscsi_stat_logout(conn->sess->tpg->tiqn, reason);
	if (reason == ISCSI_LOGOUT_REASON_RECOVERY)
		return tcmx_iscsi_send_pdu(conn, NULL, 0, false);
	/*
	 * The response goes once the I_T nexus has ended (the release
	 * work): what the initiator does next finds its reservation gone.
	 */
	conn->logout_len = tcmx_iscsi_tx_hdr(conn, 0);
	tcmx_iscsi_conn_close(conn);
	return 0;
}

/* ---- receive ---- */

static int conn_recv(struct tcmx_iscsi_conn *conn, void *buf, u32 len)
{
	struct kvec vec = { buf, len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	int ret;

	ret = kernel_recvmsg(conn->sock, &msg, &vec, 1, len, MSG_DONTWAIT);
	if (ret == -EAGAIN)
		return 0;
	if (!ret)
		return -ECONNRESET;	/* the peer closed */
	return ret;
}

/* the data segment goes to rx_buf (@len bytes), or nowhere */
/* the longest data segment a PDU of this phase may carry */
static u32 conn_max_dlen(struct tcmx_iscsi_conn *conn)
{
	if (conn->state == TCMX_CONN_FFP && conn->sess)
		return conn->sess->p.max_recv_dsl;
	return TCMX_ISCSI_LOGIN_MAX;
}

/* A whole header: where its data goes.  <0 ends the connection. */
static int conn_header(struct tcmx_iscsi_conn *conn)
{
	struct iscsi_hdr *hdr = (void *)conn->rx_hdr;
	u8 op = hdr->opcode & ISCSI_OPCODE_MASK;

	conn->rx_dlen = ntoh24(hdr->dlength);
	if (conn->rx_dlen > conn_max_dlen(conn)) {
		pr_warn_ratelimited("%pISpc: DataSegmentLength %u over the negotiated %u, connection closed\n",
				    &conn->peer, conn->rx_dlen,
				    conn_max_dlen(conn));
		tcmx_iscsi_reject(conn, ISCSI_REASON_PROTOCOL_ERROR);
		return -EPROTO;
	}
	conn->rx_cmd = NULL;
	conn->rx_discard = false;
	if (conn->state == TCMX_CONN_LOGIN) {
		if (op != ISCSI_OP_LOGIN) {
			pr_warn_ratelimited("%pISpc: opcode 0x%02x before login, connection closed\n",
					    &conn->peer, op);
			return -EPROTO;
		}
		return 0;
	}
	switch (op) {
	case ISCSI_OP_SCSI_CMD:
		return tcmx_iscsi_scsi_cmd(conn);
	case ISCSI_OP_SCSI_DATA_OUT:
		return tcmx_iscsi_data_out(conn);
	default:
		tcmx_iscsi_expect_data(conn, conn->rx_dlen);
		return 0;
	}
}

/* A whole PDU, its data in place. */
static int conn_pdu(struct tcmx_iscsi_conn *conn)
{
	struct iscsi_hdr *hdr = (void *)conn->rx_hdr;
	u8 op = hdr->opcode & ISCSI_OPCODE_MASK;

	if (conn->state == TCMX_CONN_LOGIN)
		return tcmx_iscsi_login_pdu(conn);
	if (op == ISCSI_OP_NOOP_OUT || op == ISCSI_OP_TEXT ||
	    op == ISCSI_OP_LOGOUT || op == ISCSI_OP_SCSI_TMFUNC) {
		if (!tcmx_iscsi_cmdsn_ok(conn))
			return 0;
	}
	if (conn->rx_discard && !conn->rx_cmd &&
	    op != ISCSI_OP_SCSI_CMD && op != ISCSI_OP_SCSI_DATA_OUT) {
		tcmx_iscsi_reject(conn, ISCSI_REASON_PROTOCOL_ERROR);
		return 0;
	}
	switch (op) {
	case ISCSI_OP_SCSI_CMD:
	case ISCSI_OP_SCSI_DATA_OUT:
		return tcmx_iscsi_data_done(conn);
	case ISCSI_OP_NOOP_OUT:
		return conn_nop_out(conn);
	case ISCSI_OP_TEXT:
		return tcmx_iscsi_text_pdu(conn);
	case ISCSI_OP_LOGOUT:
		return conn_logout(conn);
	case ISCSI_OP_SCSI_TMFUNC:
		return tcmx_iscsi_tmf(conn);
	case ISCSI_OP_LOGIN:
		tcmx_iscsi_reject(conn, ISCSI_REASON_PROTOCOL_ERROR);
		return 0;
	default:
		tcmx_iscsi_reject(conn, ISCSI_REASON_CMD_NOT_SUPPORTED);
		return 0;
	}
}

/* data bytes: into the command's pages, rx_buf, or a scratch buffer */
static int conn_recv_data(struct tcmx_iscsi_conn *conn)
{
	u32 left = conn->rx_need - conn->rx_got;
	struct tcmx_iscsi_cmd *ic = conn->rx_cmd;
	u8 scratch[256];
	void *to;
	int ret;

	if (ic && !conn->rx_discard) {
		u32 off = conn->rx_off + conn->rx_got;
		u32 in = off & ~PAGE_MASK;

		to = page_address(sg_page(&ic->sgl[off >> PAGE_SHIFT])) + in;
		left = min_t(u32, left, PAGE_SIZE - in);
	} else if (!conn->rx_discard) {
		to = conn->rx_buf + conn->rx_got;
	} else {
		to = scratch;
		left = min_t(u32, left, sizeof(scratch));
	}
	ret = conn_recv(conn, to, left);
	if (ret > 0) {
		conn->rx_got += ret;
		if (tcmx_iscsi_ddigest(conn))
			conn->rx_crc = crc32c(conn->rx_crc, to, ret);
	}
	return ret;
}

/* the next phase once one is complete; true when the PDU is whole */
static bool conn_rx_next(struct tcmx_iscsi_conn *conn)
{
	switch (conn->rx_phase) {
	case TCMX_RX_BHS:
		conn->rx_ahs = conn->rx_hdr[4] * 4;
		conn->rx_need = conn->rx_ahs + (tcmx_iscsi_hdigest(conn) ? 4 : 0);
		if (conn->rx_need) {
			conn->rx_phase = TCMX_RX_AHS;
			break;
		}
		fallthrough;
	case TCMX_RX_AHS:
		conn->rx_phase = TCMX_RX_DATA;
		conn->rx_need = ntoh24(((struct iscsi_hdr *)conn->rx_hdr)->dlength);
		conn->rx_crc = ~0;
		break;
	case TCMX_RX_DATA:
		conn->rx_phase = TCMX_RX_PAD;
		conn->rx_need = tcmx_iscsi_pad(conn->rx_dlen) +
				(conn->rx_dlen && tcmx_iscsi_ddigest(conn) ? 4 : 0);
		break;
	case TCMX_RX_PAD:
		conn->rx_phase = TCMX_RX_BHS;
		conn->rx_need = TCMX_ISCSI_BHS;
		conn->rx_got = 0;
		return true;
	}
	conn->rx_got = 0;
	return false;
}

/* the header digest of a whole header (BHS and AHS), if negotiated */
static bool conn_header_ok(struct tcmx_iscsi_conn *conn)
{
	u32 len = TCMX_ISCSI_BHS + conn->rx_ahs;
	__le32 d;

	if (!tcmx_iscsi_hdigest(conn))
		return true;
	d = tcmx_iscsi_digest_final(crc32c(~0, conn->rx_hdr, len));
	if (!memcmp(&d, conn->rx_hdr + len, sizeof(d)))
		return true;
	pr_warn_ratelimited("%pISpc: header digest error, connection closed\n",
			    &conn->peer);
	conn_failed(conn, TCMX_ISCSI_ERR_DIGEST);
	return false;
}

/* the data digest of a whole data segment and its padding */
static bool conn_data_ok(struct tcmx_iscsi_conn *conn)
{
	u32 pad = tcmx_iscsi_pad(conn->rx_dlen);
	__le32 d;

	if (!conn->rx_dlen || !tcmx_iscsi_ddigest(conn))
		return true;
	d = tcmx_iscsi_digest_final(crc32c(conn->rx_crc, conn->rx_pad, pad));
	if (!memcmp(&d, conn->rx_pad + pad, sizeof(d)))
		return true;
	pr_warn_ratelimited("%pISpc: data digest error, connection closed\n",
			    &conn->peer);
	conn_failed(conn, TCMX_ISCSI_ERR_DIGEST);
	tcmx_iscsi_reject(conn, ISCSI_REASON_DATA_DIGEST_ERROR);
	return false;
}

/*
 * Receive what the socket has of one PDU and act on it: 1 when a PDU was
 * handled, 0 when the socket ran dry, <0 to end the connection.
 */
static int conn_rx(struct tcmx_iscsi_conn *conn)
{
	int ret;

	for (;;) {
		if (conn->rx_got < conn->rx_need) {
			switch (conn->rx_phase) {
			case TCMX_RX_BHS:
			case TCMX_RX_AHS:
				ret = conn_recv(conn, conn->rx_hdr +
						(conn->rx_phase == TCMX_RX_AHS ?
						 TCMX_ISCSI_BHS : 0) +
						conn->rx_got,
						conn->rx_need - conn->rx_got);
				if (ret > 0)
					conn->rx_got += ret;
				break;
			case TCMX_RX_DATA:
				ret = conn_recv_data(conn);
				break;
			default:
				ret = conn_recv(conn, conn->rx_pad + conn->rx_got,
						conn->rx_need - conn->rx_got);
				if (ret > 0)
					conn->rx_got += ret;
			}
			if (ret <= 0)
				return ret;
			if (conn->rx_got < conn->rx_need)
				continue;
		}
		WRITE_ONCE(conn->last_rx, jiffies);
		if (conn->rx_phase == TCMX_RX_PAD && !conn_data_ok(conn))
			return -EBADMSG;
		if (conn_rx_next(conn))
			return conn_pdu(conn) ?: 1;
		if (conn->rx_phase == TCMX_RX_DATA) {
			if (!conn_header_ok(conn))
				return -EBADMSG;
			ret = conn_header(conn);
			if (ret)
				return ret;
		}
	}
}

/*
 * A refused login's connection: what the initiator still sends is
 * dropped; its close ends ours (the login timer ends it otherwise).
 */
static void conn_linger(struct tcmx_iscsi_conn *conn)
{
	int budget = TCMX_ISCSI_RECV_BUDGET;
	int ret;

	while (budget--) {
		ret = conn_recv(conn, conn->rx_hdr, sizeof(conn->rx_hdr));
		if (!ret)
			return;
		if (ret < 0) {
			tcmx_iscsi_conn_close(conn);
			return;
		}
	}
	tcmx_iscsi_conn_kick(conn, -1);
}

void tcmx_iscsi_io_work(struct work_struct *work)
{
	struct tcmx_iscsi_conn *conn =
		container_of(work, struct tcmx_iscsi_conn, io_work);
	int budget = TCMX_ISCSI_RECV_BUDGET;
	int ret;

	if (READ_ONCE(conn->dead))
		return;
	if (conn->linger) {
		conn_linger(conn);
		return;
	}
	if (!conn->rx_need)
		conn->rx_need = TCMX_ISCSI_BHS;
	tcmx_iscsi_send_done(conn);
	while (budget--) {
		ret = conn_rx(conn);
		if (ret < 0 && conn->linger && ret != -ECONNRESET) {
			conn_linger(conn);
			return;
		}
		if (ret < 0) {
			if (ret != -ECONNRESET)
				pr_debug("%pISpc: connection ends: %d\n",
					 &conn->peer, ret);
			tcmx_iscsi_conn_close(conn);
			return;
		}
		if (!ret || READ_ONCE(conn->dead))
			break;
		tcmx_iscsi_send_done(conn);
	}
	if (budget < 0)
		tcmx_iscsi_conn_kick(conn, -1);
	if (conn->state == TCMX_CONN_FFP)
		conn_keepalive(conn);
}
