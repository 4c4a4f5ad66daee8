// SPDX-License-Identifier: GPL-2.0
/*
 * SCSI commands over a session.  A SCSI Command PDU takes a slot of the
 * session's pool and a data buffer; a write's immediate data, unsolicited
 * Data-Out (up to FirstBurstLength) and solicited Data-Out (R2Ts of up to
 * MaxBurstLength, MaxOutstandingR2T at a time) land straight in its pages.
 * Once its data is in, the command goes to tcmx_submit_cmd() from the io
 * work itself.  A command done inline is answered at once; one the core
 * defers comes back through ->queue_status() and the connection's llist.
 * Read data goes out as Data-In PDUs of up to the initiator's
 * MaxRecvDataSegmentLength, the status collapsed into the last one (S bit)
 * when there is no sense data, else in a SCSI Response.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rcupdate.h>
#include "compat.h"
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>
#include "proto.h"

/* ---- responses ---- */

/* the window counts @ic's slot as free: it is, once this PDU is out */
static void cmd_set_sn(struct tcmx_iscsi_conn *conn, __be32 *statsn,
		       __be32 *exp, __be32 *max)
{
	conn->sess->nr_busy--;
	tcmx_iscsi_set_sn(conn, statsn, exp, max, true);
	conn->sess->nr_busy++;
}

/*
 * Residual over/underflow of @ic against its expected transfer length:
 * what the CDB wanted beyond the buffer (the core's cmd->overflow), else
 * the part of the buffer nothing moved to or from.
 */
static u8 cmd_residual(struct tcmx_iscsi_cmd *ic, u32 *resid)
{
	struct tcmx_cmd *cmd = &ic->cmd;

	*resid = 0;
	if (cmd->overflow) {
		*resid = cmd->overflow;
		return ISCSI_FLAG_CMD_OVERFLOW;
	}
	if (cmd->xfer_len < ic->edtl) {
		*resid = ic->edtl - cmd->xfer_len;
		return ISCSI_FLAG_CMD_UNDERFLOW;
	}
	return 0;
}

static int cmd_send_rsp(struct tcmx_iscsi_conn *conn,
			struct tcmx_iscsi_cmd *ic, u32 datasn)
{
	struct iscsi_scsi_rsp *rsp = (void *)conn->tx_hdr;
	struct tcmx_cmd *cmd = &ic->cmd;
	u8 sense[TCMX_SENSE_BUFFER_LEN + 2];
	u32 resid, len = 0;

	memset(rsp, 0, TCMX_ISCSI_BHS);
	rsp->opcode = ISCSI_OP_SCSI_CMD_RSP;
	rsp->flags = ISCSI_FLAG_CMD_FINAL | cmd_residual(ic, &resid);
	rsp->cmd_status = cmd->status;
	rsp->itt = ic->itt;
	rsp->residual_count = cpu_to_be32(resid);
	rsp->exp_datasn = cpu_to_be32(datasn);
	cmd_set_sn(conn, &rsp->statsn, &rsp->exp_cmdsn, &rsp->max_cmdsn);
	if (cmd->status == SAM_STAT_CHECK_CONDITION && cmd->sense_len) {
		len = min_t(u32, cmd->sense_len, TCMX_SENSE_BUFFER_LEN);
		put_unaligned_be16(len, sense);
		memcpy(sense + 2, ic->sense, len);
		len += 2;
	}
	tcmx_iscsi_count(&conn->sess->counts.rsp_pdus, 1);
	return tcmx_iscsi_send_pdu(conn, sense, len, false);
}

/* Data-In of a read's xfer_len bytes; the status in the last if @collapse */
static int cmd_send_data(struct tcmx_iscsi_conn *conn,
			 struct tcmx_iscsi_cmd *ic, u32 len, bool collapse,
			 u32 *datasn)
{
	struct iscsi_data_rsp *d = (void *)conn->tx_hdr;
	struct tcmx_iscsi_ops_params *p = &conn->sess->p;
	u32 off = 0, burst = 0, n, resid;
	bool last;
	int ret;

	while (off < len) {
		n = min3(len - off, p->max_xmit_dsl, p->max_burst - burst);
		last = off + n == len;
		burst += n;
		memset(d, 0, TCMX_ISCSI_BHS);
		d->opcode = ISCSI_OP_SCSI_DATA_IN;
		if (last || burst == p->max_burst)
			d->flags = ISCSI_FLAG_CMD_FINAL;
		if (burst == p->max_burst)
			burst = 0;
		d->itt = ic->itt;
		d->ttt = cpu_to_be32(ISCSI_RESERVED_TAG);
		d->datasn = cpu_to_be32((*datasn)++);
		d->offset = cpu_to_be32(off);
		if (last && collapse) {
			d->flags |= ISCSI_FLAG_CMD_FINAL |
				    ISCSI_FLAG_DATA_STATUS |
				    cmd_residual(ic, &resid);
			d->cmd_status = ic->cmd.status;
			d->residual_count = cpu_to_be32(resid);
			cmd_set_sn(conn, &d->statsn, &d->exp_cmdsn,
				   &d->max_cmdsn);
		} else {
			tcmx_iscsi_set_sn(conn, NULL, &d->exp_cmdsn,
					  &d->max_cmdsn, false);
		}
		ret = tcmx_iscsi_send_sgl(conn, ic, off, n, !last || !collapse);
		if (ret)
			return ret;
		off += n;
	}
	tcmx_iscsi_count(&conn->sess->counts.txdata_octs, len);
	return 0;
}

/* A finished command: its data and status, then its slot is free. */
static void cmd_respond(struct tcmx_iscsi_conn *conn,
			struct tcmx_iscsi_cmd *ic)
{
	struct tcmx_cmd *cmd = &ic->cmd;
	u32 len = 0, datasn = 0;
	bool collapse;
	int ret = 0;

	if (unlikely(ic->aborted)) {
		tcmx_iscsi_cmd_put(ic);
		tcmx_iscsi_tmf_cmd_back(conn);
		return;
	}
	if (ic->read)
		len = min(cmd->xfer_len, ic->edtl);
	collapse = len && cmd->status == SAM_STAT_GOOD;
	if (len)
		ret = cmd_send_data(conn, ic, len, collapse, &datasn);
	if (!ret && !collapse)
		ret = cmd_send_rsp(conn, ic, ic->write ? ic->r2tsn : datasn);
	if (ret)
		tcmx_iscsi_conn_close(conn);
	tcmx_iscsi_cmd_put(ic);
}

/* io work: the commands the core handed back since the last pass */
void tcmx_iscsi_send_done(struct tcmx_iscsi_conn *conn)
{
	struct llist_node *list;
	struct tcmx_iscsi_cmd *ic, *tmp;

	if (llist_empty(&conn->done))
		return;
	list = llist_reverse_order(llist_del_all(&conn->done));
	llist_for_each_entry_safe(ic, tmp, list, done_node)
		cmd_respond(conn, ic);
}

/* the fabric's ->queue_status(): any context */
void tcmx_iscsi_queue_status(struct tcmx_cmd *cmd)
{
	struct tcmx_iscsi_cmd *ic = container_of(cmd, struct tcmx_iscsi_cmd,
						 cmd);
	struct tcmx_iscsi_conn *conn = ic->conn;

	llist_add(&ic->done_node, &conn->done);
	tcmx_iscsi_conn_kick(conn, -1);
}

/* ---- submission ---- */

static void cmd_submit(struct tcmx_iscsi_conn *conn,
		       struct tcmx_iscsi_cmd *ic)
{
	bool done;

	ic->submitted = true;
	rcu_read_lock();
	done = tcmx_submit_cmd(&ic->cmd);
	rcu_read_unlock();
	if (done)
		cmd_respond(conn, ic);
}

static int cmd_send_r2t(struct tcmx_iscsi_conn *conn,
			struct tcmx_iscsi_cmd *ic)
{
	struct iscsi_r2t_rsp *r2t = (void *)conn->tx_hdr;
	u32 len = min(ic->edtl - ic->r2t_off, conn->sess->p.max_burst);

	memset(r2t, 0, TCMX_ISCSI_BHS);
	r2t->opcode = ISCSI_OP_R2T;
	r2t->flags = ISCSI_FLAG_CMD_FINAL;
	int_to_scsilun(ic->cmd.lun_id, &r2t->lun);
	r2t->itt = ic->itt;
	r2t->ttt = cpu_to_be32(ic->index);
	tcmx_iscsi_set_sn(conn, &r2t->statsn, &r2t->exp_cmdsn,
			  &r2t->max_cmdsn, false);
	r2t->r2tsn = cpu_to_be32(ic->r2tsn++);
	r2t->data_offset = cpu_to_be32(ic->r2t_off);
	r2t->data_length = cpu_to_be32(len);
	ic->r2t_off += len;
	ic->r2t_out++;
	return tcmx_iscsi_send_pdu(conn, NULL, 0, false);
}

/*
 * A write that lost a Data-Out (a DataSN out of order: RFC 7143 takes it
 * for a digest error on one before), once every sequence it had going has
 * ended: at ErrorRecoveryLevel 0 it ends in CHECK CONDITION, PROTOCOL
 * SERVICE CRC ERROR, nothing written, and the connection goes on.
 */
static void cmd_data_failed(struct tcmx_iscsi_conn *conn,
			    struct tcmx_iscsi_cmd *ic)
{
	struct tcmx_cmd *cmd = &ic->cmd;

	/* never submitted: no LUN, no transfer, fixed-format sense */
	cmd->lun = NULL;
	cmd->dev = NULL;
	cmd->xfer_len = 0;
	cmd->overflow = 0;
	tcmx_sense(cmd, TCMX_SENSE_PROTOCOL_CRC);
	cmd_respond(conn, ic);
}

/* a write's data came in: submit it once whole, else ask for more */
static int cmd_progress(struct tcmx_iscsi_conn *conn,
			struct tcmx_iscsi_cmd *ic)
{
	int ret;

	if (unlikely(ic->data_err)) {
		if (!ic->unsol_left && !ic->r2t_out)
			cmd_data_failed(conn, ic);
		return 0;
	}
	if (!ic->write || ic->data_got >= ic->edtl) {
		cmd_submit(conn, ic);
		return 0;
	}
	if (ic->unsol_left)
		return 0;
	while (ic->r2t_out < conn->sess->p.max_r2t &&
	       ic->r2t_off < ic->edtl) {
		ret = cmd_send_r2t(conn, ic);
		if (ret)
			return ret;
	}
	return 0;
}

/* a command refused before it had a slot: TASK SET FULL */
static int cmd_refuse(struct tcmx_iscsi_conn *conn)
{
	struct iscsi_scsi_req *req = (void *)conn->rx_hdr;
	struct iscsi_scsi_rsp *rsp = (void *)conn->tx_hdr;

	memset(rsp, 0, TCMX_ISCSI_BHS);
	rsp->opcode = ISCSI_OP_SCSI_CMD_RSP;
	rsp->flags = ISCSI_FLAG_CMD_FINAL;
	rsp->cmd_status = SAM_STAT_TASK_SET_FULL;
	rsp->itt = req->itt;
	tcmx_iscsi_set_sn(conn, &rsp->statsn, &rsp->exp_cmdsn,
			  &rsp->max_cmdsn, true);
	conn->rx_discard = true;
	tcmx_iscsi_count(&conn->sess->counts.rsp_pdus, 1);
	return tcmx_iscsi_send_pdu(conn, NULL, 0, false);
}

/* the CmdSN of a non-immediate PDU: in order, or dropped */
bool tcmx_iscsi_cmdsn_ok(struct tcmx_iscsi_conn *conn)
{
	struct iscsi_hdr *hdr = (void *)conn->rx_hdr;
	struct tcmx_iscsi_sess *sess = conn->sess;
	u32 sn = be32_to_cpu(hdr->statsn);	/* CmdSN's place */

	conn->exp_stat_sn = be32_to_cpu(hdr->exp_statsn);
	if (hdr->opcode & ISCSI_OP_IMMEDIATE)
		return true;
	if (sn != sess->exp_cmdsn) {
		pr_warn_ratelimited("%pISpc: CmdSN 0x%08x, expected 0x%08x: PDU dropped\n",
				    &conn->peer, sn, sess->exp_cmdsn);
		return false;
	}
	sess->exp_cmdsn++;
	return true;
}

/* fill in the core's fields of a new command from its PDU */
static int cmd_setup(struct tcmx_iscsi_conn *conn, struct tcmx_iscsi_cmd *ic)
{
	struct iscsi_scsi_req *req = (void *)conn->rx_hdr;
	struct tcmx_iscsi_sess *sess = conn->sess;
	struct tcmx_cmd *cmd = &ic->cmd;

	ic->itt = req->itt;
	ic->cmdsn = be32_to_cpu(req->cmdsn);
	ic->edtl = be32_to_cpu(req->data_length);
	ic->read = req->flags & ISCSI_FLAG_CMD_READ;
	ic->write = req->flags & ISCSI_FLAG_CMD_WRITE;
	memcpy(ic->cdb, req->cdb, ISCSI_CDB_SIZE);
	cmd->nexus = &sess->nexus;
	cmd->tpg = &sess->tpg->tpg;
	cmd->lun_id = scsilun_to_int(&req->lun);
	cmd->cdb = ic->cdb;
	cmd->cdb_len = ISCSI_CDB_SIZE + (conn->rx_ahs ? conn->rx_ahs : 0);
	cmd->data_len = ic->edtl;
	cmd->data_dir = ic->write ? DMA_TO_DEVICE :
			ic->read ? DMA_FROM_DEVICE : DMA_NONE;
	cmd->sense = ic->sense;
	if (!ic->read && !ic->write)
		ic->edtl = 0;
	cmd->data_len = ic->edtl;
	return tcmx_iscsi_cmd_buf(ic, ic->edtl);
}

/* A SCSI Command's header: a slot, a buffer, where immediate data goes. */
int tcmx_iscsi_scsi_cmd(struct tcmx_iscsi_conn *conn)
{
	struct iscsi_scsi_req *req = (void *)conn->rx_hdr;
	struct tcmx_iscsi_sess *sess = conn->sess;
	struct tcmx_iscsi_ops_params *p = &sess->p;
	struct tcmx_iscsi_cmd *ic;
	u32 dlen = conn->rx_dlen;

	conn->rx_discard = true;
	tcmx_iscsi_count(&sess->counts.cmd_pdus, 1);
	/* a command rejected still takes its CmdSN */
	if (!tcmx_iscsi_cmdsn_ok(conn))
		return 0;
	if (p->discovery || ((req->flags & ISCSI_FLAG_CMD_READ) &&
			     (req->flags & ISCSI_FLAG_CMD_WRITE))) {
		tcmx_iscsi_reject(conn, ISCSI_REASON_CMD_NOT_SUPPORTED);
		return 0;
	}
	ic = tcmx_iscsi_cmd_get(sess);
	if (!ic || cmd_setup(conn, ic)) {
		if (ic)
			tcmx_iscsi_cmd_put(ic);
		return cmd_refuse(conn);
	}
	if (dlen && (!ic->write || !p->immediate_data ||
		     dlen > min(p->first_burst, ic->edtl))) {
		tcmx_iscsi_cmd_put(ic);
		tcmx_iscsi_reject(conn, ISCSI_REASON_PROTOCOL_ERROR);
		return 0;
	}
	ic->unsol_left = 0;
	if (ic->write && !p->initial_r2t &&
	    !(req->flags & ISCSI_FLAG_CMD_FINAL))
		ic->unsol_left = min(p->first_burst, ic->edtl) - dlen;
	ic->r2t_off = dlen + ic->unsol_left;
	conn->rx_cmd = ic;
	conn->rx_off = 0;
	conn->rx_discard = false;
	return 0;
}

/* the command a Data-Out is for, or NULL */
static struct tcmx_iscsi_cmd *data_out_cmd(struct tcmx_iscsi_conn *conn)
{
	struct iscsi_data *d = (void *)conn->rx_hdr;
	struct tcmx_iscsi_sess *sess = conn->sess;
	u32 ttt = be32_to_cpu(d->ttt);
	itt_t itt = d->itt;
	struct tcmx_iscsi_cmd *ic;
	unsigned int i;

	if (ttt != ISCSI_RESERVED_TAG) {
		if (ttt >= sess->nr_cmds)
			return NULL;
		ic = &sess->cmds[ttt];
		return ic->busy && ic->write && !ic->submitted &&
		       ic->itt == itt && ic->r2t_out ? ic : NULL;
	}
	for (i = 0; i < sess->nr_cmds; i++) {
		ic = &sess->cmds[i];
		if (ic->busy && ic->write && !ic->submitted &&
		    ic->itt == itt && ic->unsol_left)
			return ic;
	}
	return NULL;
}

/* A Data-Out's header: which command, where in its buffer. */
int tcmx_iscsi_data_out(struct tcmx_iscsi_conn *conn)
{
	struct iscsi_data *d = (void *)conn->rx_hdr;
	struct tcmx_iscsi_cmd *ic = data_out_cmd(conn);
	u32 off = be32_to_cpu(d->offset), dlen = conn->rx_dlen;

	conn->rx_discard = true;
	if (!ic) {
		tcmx_iscsi_reject(conn, ISCSI_REASON_PROTOCOL_ERROR);
		return 0;
	}
	if (off > ic->edtl || dlen > ic->edtl - off ||
	    (d->ttt == cpu_to_be32(ISCSI_RESERVED_TAG) &&
	     dlen > ic->unsol_left)) {
		pr_warn_ratelimited("%pISpc: Data-Out at %u+%u beyond the command's %u bytes, connection closed\n",
				    &conn->peer, off, dlen, ic->edtl);
		return -EPROTO;
	}
	conn->rx_cmd = ic;
	/*
	 * In order within a sequence (DataPDUInOrder, DataSequenceInOrder).
	 * Out of order, this PDU's data and the command's later ones are
	 * dropped, their F bits still counted (tcmx_iscsi_data_done()).
	 */
	if (unlikely(ic->data_err || be32_to_cpu(d->datasn) != ic->datasn)) {
		if (!ic->data_err)
			pr_warn_ratelimited("%pISpc: Data-Out DataSN %u, expected %u: the command fails\n",
					    &conn->peer, be32_to_cpu(d->datasn),
					    ic->datasn);
		ic->data_err = true;
		return 0;
	}
	ic->datasn++;
	conn->rx_off = off;
	conn->rx_discard = false;
	return 0;
}

/* A SCSI Command or Data-Out PDU, its data in the command's buffer. */
int tcmx_iscsi_data_done(struct tcmx_iscsi_conn *conn)
{
	struct iscsi_data *d = (void *)conn->rx_hdr;
	struct tcmx_iscsi_cmd *ic = conn->rx_cmd;
	u32 dlen = conn->rx_dlen;

	/* a Data-Out of a command that lost one: its F bit still counts */
	if (!ic || (conn->rx_discard && !(ic->busy && ic->data_err)))
		return 0;
	conn->rx_cmd = NULL;
	if (!conn->rx_discard)
		ic->data_got += dlen;
	tcmx_iscsi_count(&conn->sess->counts.rxdata_octs, dlen);
	if ((d->opcode & ISCSI_OPCODE_MASK) == ISCSI_OP_SCSI_DATA_OUT) {
		if (d->flags & ISCSI_FLAG_CMD_FINAL)
			ic->datasn = 0;	/* the next sequence starts over */
		if (d->ttt == cpu_to_be32(ISCSI_RESERVED_TAG)) {
			ic->unsol_left -= dlen;
			if (d->flags & ISCSI_FLAG_CMD_FINAL || !ic->unsol_left) {
				ic->unsol_left = 0;
				ic->datasn = 0;
			}
		} else if (d->flags & ISCSI_FLAG_CMD_FINAL) {
			ic->r2t_out--;
		}
	}
	return cmd_progress(conn, ic);
}
