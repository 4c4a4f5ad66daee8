/* SPDX-License-Identifier: GPL-2.0 */
/* chap.c: CHAP in a login's security stage */
#ifndef TCMX_ISCSI_CHAP_H
#define TCMX_ISCSI_CHAP_H

#include "iscsi.h"

#define TCMX_CHAP_MAX	32	/* the longest digest: SHA-256 */

enum tcmx_iscsi_chap_state {
	TCMX_CHAP_WAIT_A,	/* AuthMethod=CHAP agreed, CHAP_A to come */
	TCMX_CHAP_WAIT_R,	/* challenge sent, CHAP_N/CHAP_R to come */
	TCMX_CHAP_DONE,
};

struct tcmx_iscsi_chap {
	enum tcmx_iscsi_chap_state	state;
	u8				alg;	/* CHAP_A */
	u8				id;	/* CHAP_I */
	u8				challenge[TCMX_CHAP_MAX];
	u32				clen;
	struct tcmx_iscsi_auth		cred;	/* the ACL's or the TPG's */
};

struct tcmx_iscsi_kv;

int tcmx_iscsi_chap_step(struct tcmx_iscsi_chap *c, struct tcmx_iscsi_kv *kv,
			 int n, char *rsp, u32 size, u32 *len);

#endif /* TCMX_ISCSI_CHAP_H */
