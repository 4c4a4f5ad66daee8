/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of reservations share, and only they: pr.c (the state,
 * the gate's check, SPC-2, the rows), pr_in.c, pr_out.c, pr_match.c,
 * pr_aptpl.c and pr_cfs.c.  The state is the device's (pr_* of struct tcmx_dev).
 */
#ifndef TCMX_PR_H
#define TCMX_PR_H

#include "itl.h"

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
/* with ",i,0x" and the ISID after the name (format 01h), and its NUL */
#define PRI_TID_MAX		(PRI_TID_ISCSI_HDR + PRI_MAX_NAME + \
				 TCMX_PORT_ID_LEN)

/*
 * One registered I_T nexus: the initiator port (@name and the fabric's
 * @port_id, "" if the registration is for every port id of the name, as a
 * TransportID without ISID makes it) and the target port (@lun).  It
 * outlives the struct tcmx_nexus that made it: a nexus of the same
 * identity registered later has it again.  For a nexus_per_tpg fabric the
 * target port alone names it (the TPG's one nexus, whatever its name).
 */
struct tcmx_pr_reg {
	struct list_head	node;		/* cd->pr_regs */
	struct tcmx_lun		*lun;
	u64			key;
	u32			generation;	/* PRgeneration when registered */
	bool			all_tg_pt;	/* made by REGISTER ALL_TG_PT */
	/*
	 * An I_T nexus of it ended (under pr_lock): the next that comes
	 * hears I_T NEXUS LOSS OCCURRED, not POWER ON (SAM-5 6.3.4), once
	 */
	bool			nexus_lost;
	u64			mapped_lun;	/* @lun as the initiator maps it */
	struct tcmx_pr_hash	hash;		/* of @name and @port_id */
	char			name[TCMX_NAME_LEN];
	char			port_id[TCMX_PORT_ID_LEN];
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
void pr_reg_detach(struct tcmx_core_dev *cd, struct tcmx_pr_reg *reg,
		   struct list_head *to);
/*
 * pr.c: I_T nexus identity.  pr_per_tpg(): @lun's fabric has one nexus
 * per TPG.  pr_hash_set(): the hashes of initiator port @name, @port_id
 * into @h (not needed through a nexus_per_tpg fabric's LUNs), outside the
 * state lock.  pr_reg_is(): @reg is the registration of the I_T nexus of
 * that initiator port (its hashes @h) through @lun; O(1) unless it is.
 * pr_find(): that registration, if any (pr_lock or pr_mutex), the port's
 * hashes made once.
 * pr_reg_set_id(): @reg's identity, copied, and its hashes.
 */
bool pr_per_tpg(struct tcmx_lun *lun);
void pr_hash_set(struct tcmx_dev *dev, struct tcmx_pr_hash *h,
		 const char *name, const char *port_id);
bool pr_reg_is(const struct tcmx_pr_reg *reg, struct tcmx_lun *lun,
	       const struct tcmx_pr_hash *h, const char *name,
	       const char *port_id);
struct tcmx_pr_reg *pr_find(struct tcmx_dev *dev, struct tcmx_lun *lun,
			    const char *name, const char *port_id);
void pr_reg_set_id(struct tcmx_pr_reg *reg, struct tcmx_lun *lun, u64 mapped,
		   const char *name, const char *port_id);
/* the initiator port name and port id of @cmd's nexus ("" for none) */
const char *pr_cmd_name(struct tcmx_cmd *cmd);
const char *pr_cmd_port_id(struct tcmx_cmd *cmd);
const char *pr_nexus_name(struct tcmx_lun *lun);	/* TPG's nexus */
size_t pr_nexus_copy(struct tcmx_lun *lun, char *buf, size_t size);
bool pr_is_holder(struct tcmx_dev *dev, struct tcmx_pr_reg *reg);
void pr_update_gate(struct tcmx_dev *dev);
/*
 * Unit attentions for the I_T nexus of @reg, or of every registration but
 * @except (pr_lock held; @reg still attached)
 */
void pr_ua_reg(struct tcmx_dev *dev, struct tcmx_pr_reg *reg,
	       enum tcmx_sense code);
void pr_ua_others(struct tcmx_dev *dev, struct tcmx_pr_reg *except,
		  enum tcmx_sense code);
void pr_unregister(struct tcmx_dev *dev, struct tcmx_pr_reg *reg, bool ua);
/* pr.c: whether @cmd's I_T nexus may not act while an SPC-2 one is held */
bool pr_spc2_other(struct tcmx_core_dev *cd, struct tcmx_cmd *cmd);

/*
 * pr_in.c: PERSISTENT RESERVE IN; the TransportID of initiator port
 * @name, @port_id (of the TPG's nexus for a nexus_per_tpg fabric, from one
 * copy of its name) into @p (PRI_TID_MAX bytes at most), its length: an
 * iSCSI one with the ISID (format 01h) when @port_id is not ""
 */
enum tcmx_status pr_in(struct tcmx_cmd *cmd);
u32 pr_transport_id(struct tcmx_lun *lun, const char *name,
		    const char *port_id, u8 *p);

/* pr_out.c: PERSISTENT RESERVE OUT */
enum tcmx_status pr_out(struct tcmx_cmd *cmd);

/*
 * A PERSISTENT RESERVE OUT's parameters and what pr_match.c found for
 * it.
 */
/*
 * An I_T nexus PERSISTENT RESERVE OUT found: a target port, the number
 * the initiator maps it as, and where its initiator port's identity comes
 * from: the TransportID at o->tids + @tid, the sender's (PR_NX_SELF), or
 * the sender's name with every port id of it (PR_NX_SELF_NAME: a target
 * port ALL_TG_PT reaches through a node ACL, registered without ISID as
 * in-tree).
 */
struct pr_nx {
	struct tcmx_lun		*lun;
	u64			mapped;
	u32			tid;
};

#define PR_NX_SELF		U32_MAX
#define PR_NX_SELF_NAME		(U32_MAX - 1)

/* an initiator port's identity, resolved */
struct pr_ident {
	char			name[TCMX_NAME_LEN];
	char			port_id[TCMX_PORT_ID_LEN];
};

struct pr_out {
	u64			key;
	u64			sa_key;
	u8			type;
	bool			aptpl;		/* or force_pr_aptpl */
	bool			all_tg_pt;
	const u8		*tids;		/* SPEC_I_PT: TransportIDs */
	u32			tids_len;
	struct list_head	spare;		/* preallocated registrations */
	/* the sending initiator port: its nexus is pinned by the command */
	const char		*name;
	const char		*port_id;
	struct tcmx_pr_hash	hash;		/* of @name, @port_id */
	/*
	 * Matched before the state lock is taken (pr_out_match(), under
	 * cd->lock and pr_mutex): the I_T nexuses of the sending initiator
	 * port through the other target ports (@port, @nport); those the
	 * TransportIDs name (@named, @nnamed), or the first bad one's offset
	 * (@tid_bad); the destination of REGISTER AND MOVE (lun NULL: none).
	 */
	struct pr_nx		*port;
	u32			nport;
	struct pr_nx		*named;
	u32			nnamed;
	u32			tid_bad;
	struct pr_nx		move_to;
	/*
	 * PREEMPT AND ABORT: the preempted I_T_L nexuses (@held, @nheld,
	 * each with a reference) whose pinned commands it waits for; @own,
	 * the one the command itself pinned, if it is among them
	 */
	struct tcmx_itl		**held;
	u32			nheld;
	struct tcmx_itl		*own;
};

#define PR_TID_OK		U32_MAX	/* o->tid_bad: none */

/*
 * pr_match.c: cd->lock and pr_mutex held, before the state lock: what the
 * service action will need of names and TransportIDs (struct pr_out);
 * false without memory.  pr_nx_ident(): the initiator port of @nx.
 */
bool pr_out_match(struct tcmx_cmd *cmd, struct pr_out *o, const u8 *p);
void pr_nx_ident(const struct pr_out *o, const struct pr_nx *nx,
		 struct pr_ident *id);

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
