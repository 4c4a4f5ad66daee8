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

/* ---- digests: CRC32C, sent least significant byte first ---- */

static bool conn_hdigest(struct tcmx_iscsi_conn *conn)
{
	return conn->sess && conn->sess->p.header_digest;
}

static bool conn_ddigest(struct tcmx_iscsi_conn *conn)
{
	return conn->sess && conn->sess->p.data_digest;
}

static __le32 digest_final(u32 crc)
{
	return cpu_to_le32(~crc);
}

/* ---- transmit ---- */

/*
 * StatSN, ExpCmdSN, MaxCmdSN of a response: the window is what the pool
 * can still take, so it never grows beyond it and never shrinks (a slot
 * taken advances ExpCmdSN as well).
 */
void tcmx_iscsi_set_sn(struct tcmx_iscsi_conn *conn, __be32 *statsn,
		       __be32 *expcmdsn, __be32 *maxcmdsn, bool advance)
{
	struct tcmx_iscsi_sess *sess = conn->sess ?: conn->login_sess;
	u32 exp = 0, window = 1;

	if (statsn) {
		*statsn = cpu_to_be32(conn->stat_sn);
		if (advance)
			conn->stat_sn++;
	}
	if (sess) {
		exp = sess->exp_cmdsn;
		window = sess->depth > sess->nr_busy ?
			 sess->depth - sess->nr_busy : 0;
	}
	*expcmdsn = cpu_to_be32(exp);
	*maxcmdsn = cpu_to_be32(exp + window - 1);
}

static int conn_sendmsg(struct tcmx_iscsi_conn *conn, struct kvec *vec,
			size_t nr, size_t len, bool more)
{
	struct msghdr msg = {
		.msg_flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0),
	};
	int ret;

	while (len) {
		if (READ_ONCE(conn->dead))
			return -ECONNRESET;
		ret = kernel_sendmsg(conn->sock, &msg, vec, nr, len);
		if (ret <= 0)
			return ret ? ret : -ECONNRESET;
		len -= ret;
		/* a partial send: skip what went */
		while (ret && nr) {
			size_t n = min_t(size_t, ret, vec->iov_len);

			vec->iov_base += n;
			vec->iov_len -= n;
			ret -= n;
			if (!vec->iov_len) {
				vec++;
				nr--;
			}
		}
	}
	return 0;
}

/* the header, and its digest if the session has them */
static size_t conn_tx_hdr(struct tcmx_iscsi_conn *conn, u32 len)
{
	__le32 d;

	hton24(((struct iscsi_hdr *)conn->tx_hdr)->dlength, len);
	if (!conn_hdigest(conn))
		return TCMX_ISCSI_BHS;
	d = digest_final(crc32c(~0, conn->tx_hdr, TCMX_ISCSI_BHS));
	memcpy(conn->tx_hdr + TCMX_ISCSI_BHS, &d, sizeof(d));
	return TCMX_ISCSI_BHS + sizeof(d);
}

/* conn->tx_hdr, then @len bytes of @data, their padding and digest */
int tcmx_iscsi_send_pdu(struct tcmx_iscsi_conn *conn, const void *data,
			u32 len, bool more)
{
	static const u8 zero[4];
	u32 pad = tcmx_iscsi_pad(len);
	struct kvec vec[4] = {
		{ conn->tx_hdr, conn_tx_hdr(conn, len) },
		{ (void *)data, len },
		{ (void *)zero, pad },
		{ conn->tx_ddigest, 0 },
	};

	if (len && conn_ddigest(conn)) {
		u32 crc = crc32c(crc32c(~0, data, len), zero, pad);

		*(__le32 *)conn->tx_ddigest = digest_final(crc);
		vec[3].iov_len = 4;
	}
	return conn_sendmsg(conn, vec, 4, vec[0].iov_len + len + pad +
			    vec[3].iov_len, more);
}

/* conn->tx_hdr, then @len bytes of @ic's buffer from @off, padded */
int tcmx_iscsi_send_sgl(struct tcmx_iscsi_conn *conn,
			struct tcmx_iscsi_cmd *ic, u32 off, u32 len, bool more)
{
	static const u8 zero[4];
	struct kvec vec[18];
	size_t nr = 0, bytes = 0;
	u32 pad = tcmx_iscsi_pad(len), crc = ~0;
	bool dd = conn_ddigest(conn);
	int ret;

	vec[nr].iov_base = conn->tx_hdr;
	vec[nr].iov_len = conn_tx_hdr(conn, len);
	bytes = vec[nr++].iov_len;
	while (len) {
		struct page *page = sg_page(&ic->sgl[off >> PAGE_SHIFT]);
		u32 in = off & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - in);

		vec[nr].iov_base = page_address(page) + in;
		vec[nr++].iov_len = n;
		if (dd)
			crc = crc32c(crc, page_address(page) + in, n);
		bytes += n;
		off += n;
		len -= n;
		if (nr == ARRAY_SIZE(vec) - 2 && len) {
			ret = conn_sendmsg(conn, vec, nr, bytes, true);
			if (ret)
				return ret;
			nr = 0;
			bytes = 0;
		}
	}
	vec[nr].iov_base = (void *)zero;
	vec[nr++].iov_len = pad;
	bytes += pad;
	if (dd) {
		*(__le32 *)conn->tx_ddigest = digest_final(crc32c(crc, zero,
								  pad));
		vec[nr].iov_base = conn->tx_ddigest;
		vec[nr++].iov_len = 4;
		bytes += 4;
	}
	return conn_sendmsg(conn, vec, nr, bytes, more);
}

/* Reject the PDU in conn->rx_hdr; one ratelimited line. */
void tcmx_iscsi_reject(struct tcmx_iscsi_conn *conn, u8 reason)
{
	struct iscsi_reject *rej = (void *)conn->tx_hdr;

	pr_warn_ratelimited("%pISpc: PDU opcode 0x%02x rejected, reason 0x%02x\n",
			    &conn->peer, conn->rx_hdr[0] & ISCSI_OPCODE_MASK,
			    reason);
	memset(rej, 0, TCMX_ISCSI_BHS);
	rej->opcode = ISCSI_OP_REJECT;
	rej->flags = ISCSI_FLAG_CMD_FINAL;
	rej->reason = reason;
	rej->ffffffff = cpu_to_be32(ISCSI_RESERVED_TAG);
	tcmx_iscsi_set_sn(conn, &rej->statsn, &rej->exp_cmdsn, &rej->max_cmdsn,
			  true);
	if (tcmx_iscsi_send_pdu(conn, conn->rx_hdr, TCMX_ISCSI_BHS, false))
		tcmx_iscsi_conn_close(conn);
}

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
	tcmx_iscsi_send_pdu(conn, NULL, 0, false);
	if (reason != ISCSI_LOGOUT_REASON_RECOVERY)
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
void tcmx_iscsi_expect_data(struct tcmx_iscsi_conn *conn, u32 len)
{
	conn->rx_cmd = NULL;
	conn->rx_discard = len > conn->rx_buf_len;
}

void tcmx_iscsi_conn_free_rx(struct tcmx_iscsi_conn *conn)
{
	kvfree(conn->rx_buf);
	conn->rx_buf = NULL;
}

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
		if (conn_ddigest(conn))
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
		conn->rx_need = conn->rx_ahs + (conn_hdigest(conn) ? 4 : 0);
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
				(conn->rx_dlen && conn_ddigest(conn) ? 4 : 0);
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

	if (!conn_hdigest(conn))
		return true;
	d = digest_final(crc32c(~0, conn->rx_hdr, len));
	if (!memcmp(&d, conn->rx_hdr + len, sizeof(d)))
		return true;
	pr_warn_ratelimited("%pISpc: header digest error, connection closed\n",
			    &conn->peer);
	return false;
}

/* the data digest of a whole data segment and its padding */
static bool conn_data_ok(struct tcmx_iscsi_conn *conn)
{
	u32 pad = tcmx_iscsi_pad(conn->rx_dlen);
	__le32 d;

	if (!conn->rx_dlen || !conn_ddigest(conn))
		return true;
	d = digest_final(crc32c(conn->rx_crc, conn->rx_pad, pad));
	if (!memcmp(&d, conn->rx_pad + pad, sizeof(d)))
		return true;
	pr_warn_ratelimited("%pISpc: data digest error, connection closed\n",
			    &conn->peer);
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

void tcmx_iscsi_io_work(struct work_struct *work)
{
	struct tcmx_iscsi_conn *conn =
		container_of(work, struct tcmx_iscsi_conn, io_work);
	int budget = TCMX_ISCSI_RECV_BUDGET;
	int ret;

	if (READ_ONCE(conn->dead))
		return;
	if (!conn->rx_need)
		conn->rx_need = TCMX_ISCSI_BHS;
	tcmx_iscsi_send_done(conn);
	while (budget--) {
		ret = conn_rx(conn);
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
		queue_work(tcmx_iscsi_wq, &conn->io_work);
	if (conn->state == TCMX_CONN_FFP)
		conn_keepalive(conn);
}
