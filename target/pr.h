/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of reservations share, and only they: pr.c (the state,
 * the gate's check, SPC-2, the rows), pr_in.c, pr_out.c, pr_aptpl.c and
 * pr_cfs.c.  The state is the device's (pr_* of struct tcmx_dev).
 */
#ifndef TCMX_PR_H
#define TCMX_PR_H

#include "tcmx_core.h"

/* PERSISTENT RESERVE IN service actions */
#define PRI_READ_KEYS		0x00
#define PRI_READ_RESERVATION	0x01
#define PRI_REPORT_CAPABILITIES	0x02
#define PRI_READ_FULL_STATUS	0x03

/* PERSISTENT RESERVE OUT service actions */
#define PRO_REGISTER		0x00
#define PRO_RESERVE		0x01
#define PRO_RELEASE		0x02
#define PRO_CLEAR		0x03
#define PRO_PREEMPT		0x04
#define PRO_PREEMPT_AND_ABORT	0x05
#define PRO_REGISTER_IGNORE	0x06
#define PRO_REGISTER_AND_MOVE	0x07

/* TransportIDs (SPC-4 7.6.4), built by pr_in.c and matched by pr_out.c */
#define PRI_TID_ISCSI_HDR	4
#define PRI_TID_NAA_LEN		24
#define PRI_MAX_NAME		224	/* an iSCSI name, padded */
#define PRI_TID_MAX		(PRI_TID_ISCSI_HDR + PRI_MAX_NAME)

/* one registered I_T nexus */
struct tcmx_pr_reg {
	struct list_head	node;		/* cd->pr_regs */
	struct tcmx_lun		*lun;
	u64			key;
	u32			generation;	/* PRgeneration when registered */
	bool			all_tg_pt;	/* made by REGISTER ALL_TG_PT */
	bool			held;		/* PREEMPT AND ABORT's ref */
};

/* pr.c: reservation types (SPC-4 table 169) */
bool pr_type_valid(u8 type);
bool pr_type_all_reg(u8 type);	/* all registrants */
bool pr_type_reg(u8 type);	/* registered nexuses have access */
bool pr_type_ro(u8 type);	/* registrants only */
const char *pr_type_name(u8 type);

/* pr.c: the state, under cd->pr_lock (or pr_mutex, to read it) */
struct tcmx_pr_reg *pr_find(struct tcmx_dev *dev, struct tcmx_lun *lun);
const char *pr_nexus_name(struct tcmx_lun *lun);	/* initiator port */
size_t pr_nexus_copy(struct tcmx_lun *lun, char *buf, size_t size);
bool pr_is_holder(struct tcmx_dev *dev, struct tcmx_pr_reg *reg);
void pr_update_gate(struct tcmx_dev *dev);
void pr_ua_others(struct tcmx_dev *dev, struct tcmx_lun *except,
		  enum tcmx_sense code);
void pr_unregister(struct tcmx_dev *dev, struct tcmx_pr_reg *reg, bool ua);

/*
 * pr_in.c: PERSISTENT RESERVE IN; @lun's initiator port's TransportID
 * into @p (PRI_TID_MAX bytes at most) from one copy of its name, its
 * length
 */
enum tcmx_status pr_in(struct tcmx_cmd *cmd);
u32 pr_transport_id(struct tcmx_lun *lun, u8 *p);

/* pr_out.c: PERSISTENT RESERVE OUT */
enum tcmx_status pr_out(struct tcmx_cmd *cmd);

/*
 * pr_aptpl.c, pr_mutex held: can the state be saved (0 or an errno, one
 * dmesg line); save it (or that there is none to keep, with APTPL off)
 */
int pr_aptpl_check(struct tcmx_dev *dev);
int pr_aptpl_save(struct tcmx_dev *dev);

#endif /* TCMX_PR_H */
