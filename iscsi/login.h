/* SPDX-License-Identifier: GPL-2.0 */
/* A connection's login state: login.c's, freed by conns.c. */
#ifndef TCMX_ISCSI_LOGIN_H
#define TCMX_ISCSI_LOGIN_H

#include "chap.h"
#include "proto.h"

struct tcmx_iscsi_login {
	struct tcmx_iscsi_sess	*sess;
	u8			isid[6];
	u16			tsih;
	__be16			cid;
	bool			first_done;	/* first PDU handled */
	bool			auth_done;
	bool			discovery;
	bool			need_auth;
	bool			chap_on;	/* AuthMethod=CHAP agreed */
	struct tcmx_iscsi_chap	chap;
	u32			login_timeout;
	u8			stage;		/* CSG of the last PDU */
	u16			tsih_req;	/* the first PDU's TSIH */
	bool			tsih_checked;	/* after authentication */
	/* a key list continued over PDUs (C=1): gathered here */
	u8			cont_csg;
	itt_t			cont_itt;
	u32			req_len;
	char			req[TCMX_ISCSI_LOGIN_MAX];
	u32			rsp_len;
	char			rsp[TCMX_ISCSI_LOGIN_MAX];
	/* the TPG's param/ when the TPG was chosen, and what was seen */
	char			ours[TCMX_ISCSI_KEY_NR][TCMX_ISCSI_VALUE_LEN];
	bool			seen[TCMX_ISCSI_KEY_NR];
	char			value[32];
};

#endif /* TCMX_ISCSI_LOGIN_H */
