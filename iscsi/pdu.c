// SPDX-License-Identifier: GPL-2.0
/*
 * Sending a PDU: its header (and digest), its data from a buffer or a
 * command's pages, padding and data digest, and the sequence numbers every
 * response carries.  Only the connection's io work sends.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32c.h>
#include <linux/net.h>
#include <net/sock.h>
#include "proto.h"

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

/* the header, and its digest if the session has them: their length */
size_t tcmx_iscsi_tx_hdr(struct tcmx_iscsi_conn *conn, u32 len)
{
	__le32 d;

	hton24(((struct iscsi_hdr *)conn->tx_hdr)->dlength, len);
	if (!tcmx_iscsi_hdigest(conn))
		return TCMX_ISCSI_BHS;
	d = tcmx_iscsi_digest_final(crc32c(~0, conn->tx_hdr, TCMX_ISCSI_BHS));
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
		{ conn->tx_hdr, tcmx_iscsi_tx_hdr(conn, len) },
		{ (void *)data, len },
		{ (void *)zero, pad },
		{ conn->tx_ddigest, 0 },
	};

	if (len && tcmx_iscsi_ddigest(conn)) {
		u32 crc = crc32c(crc32c(~0, data, len), zero, pad);

		*(__le32 *)conn->tx_ddigest = tcmx_iscsi_digest_final(crc);
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
	bool dd = tcmx_iscsi_ddigest(conn);
	int ret;

	vec[nr].iov_base = conn->tx_hdr;
	vec[nr].iov_len = tcmx_iscsi_tx_hdr(conn, len);
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
		*(__le32 *)conn->tx_ddigest = tcmx_iscsi_digest_final(crc32c(crc, zero,
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
