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

/*
 * pr.c: the state, under cd->pr_lock and in a pr_seq write section (or
 * pr_mutex, to read it): pr_state_lock() and pr_state_unlock() take and
 * leave both; they are macros so that sparse sees the lock in the caller
 * (6.1-rt's rt_spin_lock() has no __acquires). A registration is put on
 * cd->pr_regs (or moved to @to) and its LUN told, by pr_reg_attach() and
 * pr_reg_detach()
 */
#define pr_state_lock(cd)					\
	do {							\
		spin_lock_irq(&(cd)->pr_lock);			\
		write_seqcount_begin(&(cd)->pr_seq);		\
	} while (0)
#define pr_state_unlock(cd)					\
	do {							\
		write_seqcount_end(&(cd)->pr_seq);		\
		spin_unlock_irq(&(cd)->pr_lock);		\
	} while (0)
void pr_reg_attach(struct tcmx_core_dev *cd, struct tcmx_pr_reg *reg);
void pr_reg_detach(struct tcmx_pr_reg *reg, struct list_head *to);
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
 * pr_aptpl.c: saving the state in the APTPL file, around a PERSISTENT
 * RESERVE OUT that may change it.  pr_aptpl_begin(), pr_file_mutex,
 * cd->lock and pr_mutex held, before the state changes: the temporary
 * file opened, the buffer for the text allocated (0, or an errno and
 * one dmesg line: then nothing may change).  pr_aptpl_text_set(),
 * pr_mutex held, after the change: the state (or that there is none to
 * keep, with APTPL off) as text into the buffer.  pr_aptpl_end(),
 * pr_file_mutex alone held: with @commit the text written and the file
 * renamed into place (0 or an errno, one dmesg line), else dropped.
 */
struct pr_aptpl_save {
	struct file	*file;
	char		*buf;
	size_t		size;
	size_t		len;
};

int pr_aptpl_begin(struct tcmx_dev *dev, struct pr_aptpl_save *s);
void pr_aptpl_text_set(struct tcmx_dev *dev, struct pr_aptpl_save *s);
int pr_aptpl_end(struct tcmx_dev *dev, struct pr_aptpl_save *s, bool commit);

/*
 * pr_aptpl_file.c: <dbroot>/pr pinned in cd->pr_dir (0 or an errno) and
 * let go; a file of it opened to write (O_NOFOLLOW), one renamed over
 * another
 */
int pr_aptpl_dir_pin(struct tcmx_core_dev *cd);
void pr_aptpl_dir_unpin(struct tcmx_core_dev *cd);
struct file *pr_aptpl_open(struct tcmx_core_dev *cd, const char *name);
int pr_aptpl_rename(struct tcmx_core_dev *cd, const char *from,
		    const char *to);

#endif /* TCMX_PR_H */
