// SPDX-License-Identifier: GPL-2.0
/*
 * Task management.  A command still receiving its data is dropped at once;
 * one in the core is marked aborted and answered by nobody once it comes
 * back.  The TMF response goes out when the last such command is back, so
 * commands a backend holds finish first and none is answered twice.  LUN
 * and target resets then leave their unit attentions on the LUNs the
 * session maps (tcmx_nexus_reset()).
 * One TMF at a time per session; a TARGET COLD RESET also ends the
 * connection.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <scsi/scsi_common.h>
#include "proto.h"

static int tmf_send(struct tcmx_iscsi_conn *conn, itt_t itt, u8 response)
{
	struct iscsi_tm_rsp *rsp = (void *)conn->tx_hdr;

	memset(rsp, 0, TCMX_ISCSI_BHS);
	rsp->opcode = ISCSI_OP_SCSI_TMFUNC_RSP;
	rsp->flags = ISCSI_FLAG_CMD_FINAL;
	rsp->response = response;
	rsp->itt = itt;
	tcmx_iscsi_set_sn(conn, &rsp->statsn, &rsp->exp_cmdsn,
			  &rsp->max_cmdsn, true);
	return tcmx_iscsi_send_pdu(conn, NULL, 0, false);
}

/* the answer to the TMF in progress; a cold reset ends the connection */
static int tmf_done(struct tcmx_iscsi_conn *conn, u8 response)
{
	struct tcmx_iscsi_sess *sess = conn->sess;
	int ret;

	sess->tmf_busy = false;
	ret = tmf_send(conn, sess->tmf_itt, response);
	if (!ret && response == ISCSI_TMF_RSP_COMPLETE &&
	    sess->tmf_func == ISCSI_TM_FUNC_TARGET_COLD_RESET)
		tcmx_iscsi_conn_close(conn);
	return ret;
}

/*
 * The reset's unit attentions, once its commands are gone: on the LUNs
 * this I_T nexus maps (a target reset reaches no LUN it cannot see).
 */
static void tmf_reset_ua(struct tcmx_iscsi_sess *sess)
{
	switch (sess->tmf_func) {
	case ISCSI_TM_FUNC_LOGICAL_UNIT_RESET:
		tcmx_nexus_reset(&sess->nexus, sess->tmf_lun);
		break;
	case ISCSI_TM_FUNC_TARGET_WARM_RESET:
	case ISCSI_TM_FUNC_TARGET_COLD_RESET:
		tcmx_nexus_reset(&sess->nexus, TCMX_ALL_LUNS);
		break;
	}
}

/* cmd.c: an aborted command came back from the core */
void tcmx_iscsi_tmf_cmd_back(struct tcmx_iscsi_conn *conn)
{
	struct tcmx_iscsi_sess *sess = conn->sess;

	if (WARN_ON_ONCE(!sess->tmf_wait) || --sess->tmf_wait)
		return;
	tmf_reset_ua(sess);
	if (tmf_done(conn, ISCSI_TMF_RSP_COMPLETE))
		tcmx_iscsi_conn_close(conn);
}

/* does the TMF in progress cover @ic? */
static bool tmf_covers(struct tcmx_iscsi_sess *sess,
		       struct tcmx_iscsi_cmd *ic, itt_t rtt)
{
	switch (sess->tmf_func) {
	case ISCSI_TM_FUNC_ABORT_TASK:
		return ic->itt == rtt;
	case ISCSI_TM_FUNC_ABORT_TASK_SET:
	case ISCSI_TM_FUNC_CLEAR_TASK_SET:
	case ISCSI_TM_FUNC_LOGICAL_UNIT_RESET:
		return ic->cmd.lun_id == sess->tmf_lun;
	default:
		return true;
	}
}

/* abort what the TMF covers; how many of those the core still holds */
static unsigned int tmf_abort(struct tcmx_iscsi_conn *conn, itt_t rtt,
			      unsigned int *found)
{
	struct tcmx_iscsi_sess *sess = conn->sess;
	unsigned int i, held = 0;

	*found = 0;
	for (i = 0; i < sess->nr_cmds; i++) {
		struct tcmx_iscsi_cmd *ic = &sess->cmds[i];

		if (!ic->busy || ic->aborted || !tmf_covers(sess, ic, rtt))
			continue;
		(*found)++;
		if (conn->rx_cmd == ic)
			conn->rx_discard = true;
		if (!ic->submitted) {
			tcmx_iscsi_cmd_put(ic);
			continue;
		}
		ic->aborted = true;
		held++;
		/* one the core holds for a time comes back at once */
		tcmx_abort_cmd(&ic->cmd);
	}
	return held;
}

int tcmx_iscsi_tmf(struct tcmx_iscsi_conn *conn)
{
	struct iscsi_tm *req = (void *)conn->rx_hdr;
	struct tcmx_iscsi_sess *sess = conn->sess;
	u8 func = ISCSI_TM_FUNC_VALUE(req);
	unsigned int found;

	if (sess->p.discovery || sess->tmf_busy)
		return tmf_send(conn, req->itt, ISCSI_TMF_RSP_REJECTED);
	sess->tmf_busy = true;
	sess->tmf_itt = req->itt;
	sess->tmf_func = func;
	sess->tmf_lun = scsilun_to_int(&req->lun);
	switch (func) {
	case ISCSI_TM_FUNC_ABORT_TASK:
	case ISCSI_TM_FUNC_ABORT_TASK_SET:
	case ISCSI_TM_FUNC_CLEAR_TASK_SET:
	case ISCSI_TM_FUNC_LOGICAL_UNIT_RESET:
	case ISCSI_TM_FUNC_TARGET_WARM_RESET:
	case ISCSI_TM_FUNC_TARGET_COLD_RESET:
		break;
	default:
		return tmf_done(conn, ISCSI_TMF_RSP_NOT_SUPPORTED);
	}
	sess->tmf_wait = tmf_abort(conn, req->rtt, &found);
	if (func == ISCSI_TM_FUNC_ABORT_TASK && !found)
		return tmf_done(conn, ISCSI_TMF_RSP_NO_TASK);
	if (sess->tmf_wait)
		return 0;	/* answered when the last one is back */
	tmf_reset_ua(sess);
	return tmf_done(conn, ISCSI_TMF_RSP_COMPLETE);
}
