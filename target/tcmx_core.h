/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of tcmx_core, shared by its files only.  The files
 * of target/ and what each owns:
 *
 *   core.c       module init/exit, $T root: version, dbroot
 *   fabric.c     fabric registry; $T/<fabric>/<wwn>/tpgt_<t> tree
 *   fabric_np.c  what a network fabric adds to a TPG: enable, np/<portal>
 *   lun.c        tpgt_<t>/lun/lun_<n>: link/unlink, publish/unpublish for
 *                the fast path, export accounting (cd->luns, RTPIs)
 *   acl.c        tpgt_<t>/acls/<initiator>/lun_<m>: node ACLs and their
 *                mapped LUNs; I_T nexuses and the maps the fast path
 *                looks LUNs up in
 *   stats.c      <dev>/statistics/ and <lun>/statistics/ (in-tree formats)
 *   device.c     $T/core: backend registry, HBAs, devices (info, control,
 *                enable, udev_path, alias)
 *   dev_attrs.c  <dev>/attrib/, wwn/, pr/
 *   cfs_attr.c   configfs files backed by a field with a rule, for all of
 *                the above; the text of a configfs write
 *   alua.c       <dev>/alua/<group>, LUN group membership, alua_tg_pt_gp
 *   alua_cmd.c   the ALUA state table; states enforced (through the gate),
 *                a group's change of state, REPORT and SET TARGET PORT
 *                GROUPS
 *   submit.c     a command's way in: LUN lookup, row, gate, decode,
 *                exclusion, execute, top to bottom
 *   transport.c  its end (inline or complete), tcmx_defer() and the core's
 *                workqueue, inject/'s delay; the tracepoints (trace.h)
 *   cdb.c        the command table's index and its one CDB decoder (rows
 *                checked against usage masks, READ/WRITE set up for the
 *                backend); REPORT SUPPORTED OPERATION CODES and TASK
 *                MANAGEMENT FUNCTIONS, both from the table
 *   reply.c      the one sense builder; parameter data into data-in buffers
 *   gate.c       the slow checks taken while dev->gate is not 0, each
 *                reading the row's flags; a status, never a deferral
 *   excl.c       the write-range exclusion COMPARE AND WRITE, ORWRITE and
 *                WRITE ATOMIC hold, and the check of a decoded READ or
 *                WRITE
 *   ua.c         unit attentions per I_T nexus and LUN
 *   itl.c        the state of an I_T_L nexus (an entry of a nexus's map):
 *                made, ended
 *   tmr.c        what a fabric's resets do to the logical units
 *   sbc.c        block commands: their table rows, READ CAPACITY, ...
 *   lbp.c        thin provisioning: UNMAP, WRITE SAME, GET LBA STATUS,
 *                FORMAT UNIT, SANITIZE
 *   sbc_integrity.c  VERIFY, WRITE AND VERIFY, COMPARE AND WRITE, ORWRITE,
 *                WRITE ATOMIC, PRE-FETCH, READ DEFECT DATA; a READ or
 *                WRITE the exclusion holds back
 *   spc.c        primary commands: their table rows, INQUIRY, REPORT LUNS,
 *                REQUEST SENSE, REPORT TIMESTAMP, PREVENT ALLOW MEDIUM
 *                REMOVAL
 *   mode.c       MODE SENSE, MODE SELECT
 *   buffer.c     READ BUFFER, WRITE BUFFER: the echo buffer
 *   xcopy.c      EXTENDED COPY (LID1), RECEIVE COPY RESULTS
 *   pr.c         PERSISTENT RESERVE IN/OUT, SPC-2 RESERVE/RELEASE, the
 *                gate's conflict check
 *   pr_in.c      PERSISTENT RESERVE IN
 *   pr_out.c     PERSISTENT RESERVE OUT
 *   pr_match.c   the I_T nexuses its TransportIDs and ALL_TG_PT name
 *   pr_aptpl.c   the APTPL file and pr/res_aptpl_metadata
 *   pr_aptpl_file.c  the APTPL file's directory, opened and renamed in
 *   pr_cfs.c     <dev>/pr/
 *   sanitize.c   a SANITIZE that lasts; held commands (sanitize.h)
 *   inject.c     <dev>/inject/, the programmable test disk (inject.h)
 */
#ifndef TCMX_CORE_H
#define TCMX_CORE_H

#include <linux/idr.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/seqlock.h>
#include <linux/siphash.h>
#include <linux/spinlock.h>
#include "tcmx.h"
#include "stats.h"
#include "alua.h"
#include "inject.h"

/* A registered fabric. */
struct tcmx_fabric {
	const struct tcmx_fabric_ops	*ops;
	struct list_head		node;
	struct config_group		group;		/* $T/<name> */
	struct config_group		discovery_group;
	struct config_item_type		fabric_type;
	struct config_item_type		discovery_type;
	struct config_item_type		wwn_type;
	struct config_item_type		wwn_param_type;
	struct config_item_type		wwn_stats_type;
	struct config_item_type		tpg_type;
	struct config_item_type		tpg_lun_type;
	struct config_item_type		tpg_attrib_type;
	struct config_item_type		tpg_param_type;
	struct config_item_type		lun_type;
	struct config_item_type		tpg_acls_type;		/* acls/ */
	struct config_item_type		acl_type;
	struct config_item_type		acl_attrib_type;
	struct config_item_type		acl_auth_type;
	struct config_item_type		acl_param_type;
	struct config_item_type		mapped_lun_type;
	struct config_item_type		tpg_auth_type;		/* auth/ */
	struct config_item_type		tpg_np_type;		/* np/ */
	struct config_item_type		np_type;		/* np/<name> */
	struct config_item_type		acl_stats_type;	/* fabric_statistics/ */
	/* tpgt_<t>/: enable (with ->tpg_enable()) and ops->tpg_attrs */
	struct configfs_attribute	**tpg_attrs;
	bool				in_use;		/* $T/<name> exists */
};

/*
 * A mapped LUN (acls/<initiator>/lun_<m>): a symlink in it names the TPG's
 * LUN the ACL's initiator reaches as LUN m.  Under tcmx_cfs_mutex.
 */
struct tcmx_mapped_lun {
	struct config_group	group;
	struct tcmx_acl		*acl;
	u64			id;		/* m */
	struct tcmx_lun		*lun;		/* the symlink's; NULL: none */
	bool			write_protect;
	struct tcmx_mapped_stats stats;		/* statistics/ (stats.h) */
};
extern struct mutex tcmx_acl_mutex;	/* acl.c: ACL changes, for pr_match.c */

/* An ALUA target port group of a device (<dev>/alua/<name>). */
struct tcmx_tg_pt_gp {
	struct config_group	group;
	struct tcmx_dev		*dev;
	struct list_head	node;		/* cd->tg_pt_gps */
	u16			id;
	u8			access_state;	/* 0,1,2,3,4,14,15 */
	u8			access_status;	/* 0 none, 1 explicit, 2 implicit */
	u8			access_type;	/* bit 0 implicit, bit 1 explicit */
	u8			supported;	/* TCMX_ALUA_SUP_* bits */
	u8			preferred;
	u8			write_metadata;
	u32			nonop_delay_msecs;
	u32			trans_delay_msecs;
	u32			implicit_trans_secs;
	int			nr_members;
};

#define TCMX_ALUA_SUP_TRANSITIONING	BIT(7)
#define TCMX_ALUA_SUP_OFFLINE		BIT(6)
#define TCMX_ALUA_SUP_LBA_DEPENDENT	BIT(4)
#define TCMX_ALUA_SUP_UNAVAILABLE	BIT(3)
#define TCMX_ALUA_SUP_STANDBY		BIT(2)
#define TCMX_ALUA_SUP_NONOPTIMIZED	BIT(1)
#define TCMX_ALUA_SUP_OPTIMIZED		BIT(0)

/* Identification shown under <dev>/wwn and in INQUIRY. */
struct tcmx_t10_wwn {
	char vendor[8 + 1];
	char model[16 + 1];
	char revision[4 + 1];
	char unit_serial[253 + 1];
	u32 company_id;		/* IEEE OUI, 24 bits */
};

/* A device's statistics beyond those of its linked LUNs (stats.c). */
struct tcmx_dev_stats {
	struct tcmx_stats	retired;	/* LUNs since unlinked; cd->lock */
	u64			created;	/* get_jiffies_64() at mkdir */
	u32			index;		/* unique while it exists; 0: none */
};


/*
 * A device as the core holds it: the struct tcmx_dev its backend and the
 * fast path see, and the core's own state after it.  device.c allocates
 * and frees it; tcmx_core() finds it from the struct tcmx_dev at a
 * constant offset, without a load.  The core's functions call it cd, and
 * comments name its fields cd->field.
 */
struct tcmx_core_dev {
	struct tcmx_dev			dev;
	struct config_group		attrib_group;
	struct config_group		wwn_group;
	struct config_group		pr_group;
	struct config_group		alua_group;
	struct tcmx_stat_groups		stats_group;
	struct tcmx_tg_pt_gp		default_tg_pt_gp;

	/* rmdir'ed: refused as a link target; see tcmx_hba_drop_dev() */
	bool				dropped;
	struct dentry			*drop_dentry;
	struct delayed_work		drop_work;

	bool				enabled;
	int				export_count;	/* LUNs on luns */
	struct list_head		luns;		/* tcmx_lun.dev_node */
	struct ida			rtpi_ida;	/* their RTPIs */
	struct mutex			lock;		/* slow-path state */
	struct list_head		tg_pt_gps;
	struct tcmx_t10_wwn		t10;
	char				alias[256];
	char				udev_path[256];
	struct tcmx_dev_stats		stats;

	/*
	 * Exclusion for COMPARE AND WRITE, ORWRITE and WRITE ATOMIC
	 * (excl.c).  excl_mutex serialises the core's emulated
	 * writes (tcmx_excl_lock()); while one of those three holds it,
	 * and for excl_idle's delay after, TCMX_GATE_EXCL is set and
	 * [excl_lba, excl_end) covers its range, so that inline READs and
	 * WRITEs into it wait for it.  excl_cookie: the RCU grace period
	 * the window's last growth waits for (under excl_mutex).
	 */
	struct mutex			excl_mutex;
	u64				excl_lba;
	u64				excl_end;
	unsigned long			excl_cookie;
	struct delayed_work		excl_idle;
	/* allocated on first use, freed with the device */
	struct tcmx_echo_buf		*echo_buf;	/* buffer.c */
	struct tcmx_xcopy_ids		*xcopy_ids;	/* xcopy.c */
	/*
	 * Mode parameters MODE SELECT sets (mode.c; changed under lock,
	 * read locklessly).  WCE and TAS live in dev.attrib
	 * (emulate_write_cache, emulate_tas), D_SENSE in dev.d_sense and SWP
	 * in dev.gate.  ua_luns: how many I_T_L nexuses of the device (itls)
	 * have a unit attention pending (tcmx_itl_lock, ua.c); TCMX_GATE_UA
	 * is set while it is not 0.
	 */
	u8				mode_rcd;
	u8				mode_qerr;
	unsigned int			ua_luns;
	/* struct tcmx_itl.dev_node: every I_T_L nexus to the device */
	struct list_head		itls;
	/*
	 * Reservations (pr.c).  pr_mutex serialises the PERSISTENT RESERVE
	 * and RESERVE/RELEASE commands and the unlinking of a LUN; pr_lock
	 * (taken inside it, and by the gate) guards the state: pr_regs, one
	 * struct tcmx_pr_reg per registered I_T nexus (LUN); pr_holder, the
	 * registration holding the persistent reservation (any one of them
	 * for the all-registrants types), of pr_type; pr_generation; and
	 * spc2_holder and spc2_nexus, the I_T nexus (target port LUN, and
	 * initiator's struct tcmx_nexus) an SPC-2 RESERVE reserved the
	 * device to.
	 * TCMX_GATE_PR is set while pr_holder or spc2_holder is.  pr_aptpl:
	 * the state persists (APTPL, in <dbroot>/pr/aptpl_<unit serial>);
	 * pr_saved, under pr_mutex: registrations pr/res_aptpl_metadata
	 * restored, each waiting for its I_T nexus to be linked.
	 */
	struct mutex			pr_mutex;
	spinlock_t			pr_lock;
	/*
	 * pr_seq: written with pr_lock around every change of pr_holder,
	 * pr_type, spc2_holder and the LUNs' pr_reg, so that the gate reads
	 * them without taking the lock (tcmx_pr_check())
	 */
	seqcount_spinlock_t		pr_seq;
	struct list_head		pr_regs;
	struct tcmx_pr_reg		*pr_holder;
	struct tcmx_lun			*spc2_holder;
	struct tcmx_nexus		*spc2_nexus;
	u32				pr_generation;
	u8				pr_type;
	bool				pr_aptpl;
	struct list_head		pr_saved;
	unsigned int			pr_saved_count;
	/*
	 * The APTPL file (pr_aptpl.c): pr_file_mutex, taken before cd->lock,
	 * serialises its writers; pr_dir is <dbroot>/pr, pinned while
	 * pr_dir_pinned.
	 */
	struct mutex			pr_file_mutex;
	struct path			pr_dir;
	bool				pr_dir_pinned;
	/* pr.c: the key of the initiator ports' hashes (struct tcmx_pr_hash) */
	siphash_key_t			pr_hash_key;
	/* inject/: sanitize_ms, sanitize_end (sanitize.c); the rest inject.c */
	struct config_group		inject_group;
	u32				sanitize_ms;
	struct delayed_work		sanitize_end;
	struct tcmx_inject		inject;
};

static inline struct tcmx_core_dev *tcmx_core(struct tcmx_dev *dev)
{
	return container_of(dev, struct tcmx_core_dev, dev);
}

/* core.c */
extern struct mutex tcmx_cfs_mutex;	/* registries, link/unlink, dbroot */
extern int tcmx_dev_count;		/* under tcmx_cfs_mutex */
/* fixed while a device exists (pr_aptpl.c reads it for APTPL) */
extern char tcmx_dbroot[];

/* device.c: the $T/core subtree and the backend registry */
int tcmx_core_dir_init(struct config_group *root);
void tcmx_core_dir_exit(void);
bool tcmx_item_is_dev(struct config_item *item);
struct tcmx_dev *tcmx_item_to_dev(struct config_item *item);

/* alua.c: a LUN joins @dev's default group / leaves its group (cd->lock) */
void tcmx_alua_lun_join(struct tcmx_lun *lun, struct tcmx_dev *dev);
void tcmx_alua_lun_leave(struct tcmx_lun *lun, struct tcmx_dev *dev);
/* <lun>/alua_tg_pt_gp: tcmx_cfs_mutex held, lun->dev set */
ssize_t tcmx_lun_tg_pt_gp_show(struct tcmx_lun *lun, char *page);
ssize_t tcmx_lun_tg_pt_gp_store(struct tcmx_lun *lun, const char *page,
				size_t count);

/* fabric.c */
struct config_group *tcmx_fabric_make_dir(const char *name);
/* fabric_np.c: tpgt_<t>/np/ and enable */
void tcmx_np_init_types(struct tcmx_fabric *tf);
extern struct configfs_attribute tcmx_tpg_attr_enable;

/* lun.c: fill in tf->tpg_lun_type (<tpg>/lun) and tf->lun_type (lun_<n>) */
void tcmx_lun_init_types(struct tcmx_fabric *tf);

/*
 * acl.c: the types of acls/ and below; a new TPG's acls/ group and lists;
 * every nexus map of @tpg brought in line with its LUNs and ACLs
 * (tcmx_cfs_mutex held; ->pre_unmap() and ->post_map() called).
 */
void tcmx_acl_init_types(struct tcmx_fabric *tf);
void tcmx_acl_tpg_init(struct tcmx_tpg *tpg);
void tcmx_tpg_sync_maps(struct tcmx_tpg *tpg);
void tcmx_lun_unmap(struct tcmx_lun *lun);	/* for lun.c's unlink */


/*
 * stats.c.  tcmx_stats_dev_init() adds <dev>/statistics/ and gives the
 * device its index (undone by tcmx_stats_dev_exit(), safe after a failed
 * init); tcmx_stats_lun_init() adds <lun>/statistics/.  tcmx_stats_fold()
 * adds the per-CPU counters @pc into @total.
 */
int tcmx_stats_dev_init(struct tcmx_dev *dev);
void tcmx_stats_dev_exit(struct tcmx_dev *dev);
void tcmx_stats_lun_init(struct tcmx_lun *lun);
void tcmx_stats_fold(struct tcmx_stats *total,
		     struct tcmx_stats __percpu *pc);

/*
 * The command table (cdb.c).  Every opcode, and every service action of an
 * opcode that has them, is one row: its CDB length, the bits that may be
 * set (the CDB usage data REPORT SUPPORTED OPERATION CODES returns), the
 * data direction, TCMX_CMD_* flags and what runs it.  The flags carry the
 * policy too: what the gate lets through while a unit attention, an ALUA
 * state or a reservation is pending, and whether the row runs in a worker.
 * Each file keeps its rows beside its code; tcmx_cdb_init() indexes them by
 * opcode.
 *
 * On the fast path tcmx_submit_cmd() (submit.c) finds the row with one
 * indexed load (tcmx_cdb_row()), passes it through the gate only while
 * dev->gate is set, and tcmx_parse_cdb() checks the CDB against it
 * (reserved bits, direction, LUN), decodes the LBA and transfer length by
 * CDB group, and gives READ/WRITE the device's ->execute_rw.  Other rows'
 * ->parse checks their own fields; cmd->execute is the row's ->execute
 * unless ->parse chose another.  It then runs inline, or with
 * TCMX_CMD_DEFER (if ->parse kept it) in a worker, where it may sleep.
 * Inline commands build their data in a buffer and copy it with
 * tcmx_cmd_copy_to_sgl(); they never sleep.
 */
#define TCMX_CMD_LUN	BIT(0)	/* needs a LUN, else LOGICAL UNIT NOT SUPPORTED */
#define TCMX_CMD_DEFER	BIT(1)	/* ->execute runs in a worker: tcmx_defer() */
#define TCMX_CMD_UA_OK	BIT(2)	/* runs while a unit attention is pending */
#define TCMX_CMD_SA	BIT(3)	/* byte 1 bits 4-0 select a service action */
#define TCMX_CMD_LBA	BIT(4)	/* LBA and transfer length, by CDB group */
#define TCMX_CMD_RW	BIT(5)	/* READ/WRITE: the device's ->execute_rw */
#define TCMX_CMD_WRITE	BIT(6)	/* writes the medium: refused while SWP=1 */
/*
 * ALUA: the states besides the active ones (Active/Optimized,
 * Active/NonOptimized, LBA Dependent) in which the row runs; in any other
 * the gate refuses it with the state's sense (alua_cmd.c).
 */
#define TCMX_CMD_IN_STANDBY	BIT(7)
#define TCMX_CMD_IN_UNAVAIL	BIT(8)
#define TCMX_CMD_IN_TRANSITION	BIT(9)
#define TCMX_CMD_IN_OFFLINE	BIT(10)
#define TCMX_CMD_IN_ANY_STATE	(TCMX_CMD_IN_STANDBY | TCMX_CMD_IN_UNAVAIL | \
				 TCMX_CMD_IN_TRANSITION | TCMX_CMD_IN_OFFLINE)
/*
 * Reservations (pr.c).  A persistent reservation held by another nexus
 * conflicts with every row but those of TCMX_CMD_PR_OK (SPC-4 table 53,
 * SBC-3 table 13), unless its type gives this nexus access: a registrant
 * under a registrants-only or all-registrants type; under a Write
 * Exclusive type, a row that neither writes the medium (TCMX_CMD_WRITE)
 * nor takes data out (DMA_TO_DEVICE).  An SPC-2 reservation held by
 * another nexus conflicts with every row but those of TCMX_CMD_SPC2_OK.
 */
#define TCMX_CMD_PR_OK		BIT(11)
#define TCMX_CMD_SPC2_OK	BIT(12)
/* runs while a SANITIZE is in progress (SBC-4 4.11.2; sanitize.c) */
#define TCMX_CMD_SANITIZE_OK	BIT(13)
/* INQUIRY, REPORT LUNS, REQUEST SENSE: whatever is pending */
#define TCMX_CMD_ALWAYS		(TCMX_CMD_UA_OK | TCMX_CMD_IN_ANY_STATE | \
				 TCMX_CMD_PR_OK | TCMX_CMD_SPC2_OK | \
				 TCMX_CMD_SANITIZE_OK)

struct tcmx_cmd_desc {
	u8			opcode;
	u8			sa;
	u8			len;		/* CDB length; 0 ends a row array */
	u8			dir;		/* enum dma_data_direction */
	u16			flags;		/* TCMX_CMD_* */
	const char		*name;
	u8			usage[TCMX_CDB_MAX];
	enum tcmx_status	(*parse)(struct tcmx_cmd *cmd);
	tcmx_execute_fn		execute;
	/*
	 * NULL, or whether @dev has the command at all (an attribute turns
	 * it off): REPORT SUPPORTED OPERATION CODES lists it only then, and
	 * the row's ->parse refuses it otherwise, off the fast path.
	 */
	bool			(*enabled)(const struct tcmx_dev *dev);
	/* filled in by tcmx_cdb_init() */
	u64			reject[TCMX_CDB_MAX / 8];	/* bits not in usage */
	const struct tcmx_cmd_desc *next_sa;	/* same opcode, next SA */
};

/*
 * lbp.c: logical block provisioning.  A device is thin provisioned while
 * emulate_tpu or emulate_tpws is set: READ CAPACITY(16) reports LBPME and
 * the Logical Block Provisioning VPD page the commands (spc.c).  Both
 * default to 1 on a backend with ->unmap (dev_attrs.c).
 */
static inline bool tcmx_dev_thin(const struct tcmx_dev *dev)
{
	return dev->attrib.emulate_tpu || dev->attrib.emulate_tpws;
}

/*
 * spc.c: the device's NAA IEEE Registered Extended designator, as VPD page
 * 83h shows it, into @naa (TCMX_NAA_LEN bytes); false if it has none (no
 * unit serial).
 */
#define TCMX_NAA_LEN	16
bool tcmx_dev_naa(struct tcmx_dev *dev, u8 *naa);

/*
 * xcopy.c's limits, which VPD page 8Fh (spc.c) reports too: CSCD and
 * segment descriptors per EXTENDED COPY, bytes in both lists, bytes per
 * segment, copies with a list identifier per device.
 */
#define TCMX_XCOPY_MAX_CSCD		2
#define TCMX_XCOPY_MAX_SEG		1
#define TCMX_XCOPY_MAX_LIST		1024
#define TCMX_XCOPY_MAX_SEG_BYTES	(256U << 20)
#define TCMX_XCOPY_IDS			16

/*
 * EXTENDED COPY and RECEIVE COPY RESULTS' copy manager (xcopy.c): on with
 * emulate_3pc and a backend with block operations.  INQUIRY's 3PC bit and
 * VPD page 8Fh (spc.c) follow it.  COMPARE AND WRITE (sbc_integrity.c) is
 * on with emulate_caw, and so is the block limits page's MAXIMUM COMPARE
 * AND WRITE LENGTH.
 */
static inline bool tcmx_xcopy_enabled(const struct tcmx_dev *dev)
{
	return dev->attrib.emulate_3pc && dev->ops->read_blocks &&
	       dev->ops->write_blocks;
}

static inline bool tcmx_caw_enabled(const struct tcmx_dev *dev)
{
	return dev->attrib.emulate_caw;
}

/* row arrays, ended by a row of len 0 */
extern struct tcmx_cmd_desc tcmx_sbc_cmds[];
extern struct tcmx_cmd_desc tcmx_spc_cmds[];
extern struct tcmx_cmd_desc tcmx_cdb_cmds[];
extern struct tcmx_cmd_desc tcmx_lbp_cmds[];		/* lbp.c */
extern struct tcmx_cmd_desc tcmx_integrity_cmds[];	/* sbc_integrity.c */
extern struct tcmx_cmd_desc tcmx_xcopy_cmds[];		/* xcopy.c */
extern struct tcmx_cmd_desc tcmx_mode_cmds[];		/* mode.c */
extern struct tcmx_cmd_desc tcmx_buffer_cmds[];	/* buffer.c */
extern struct tcmx_cmd_desc tcmx_pr_cmds[];		/* pr.c */

#define TCMX_SA_MASK	0x1f	/* service action: byte 1 bits 4-0 */
int tcmx_cdb_init(void);
extern const struct tcmx_cmd_desc *tcmx_opcodes[256];

/* The row of service action @sa among an opcode's rows from @d. */
static inline const struct tcmx_cmd_desc *
tcmx_find_sa(const struct tcmx_cmd_desc *d, u8 sa)
{
	for (; d; d = d->next_sa)
		if (d->sa == sa)
			return d;
	return NULL;
}

/* The row of a CDB, with its service action; NULL if there is none. */
static inline const struct tcmx_cmd_desc *tcmx_cdb_row(const u8 *cdb)
{
	const struct tcmx_cmd_desc *d = tcmx_opcodes[cdb[0]];

	if (likely(d) && unlikely(d->flags & TCMX_CMD_SA))
		d = tcmx_find_sa(d, cdb[1] & TCMX_SA_MASK);
	return d;
}

enum tcmx_status tcmx_parse_cdb(struct tcmx_cmd *cmd,
				const struct tcmx_cmd_desc *d);
enum tcmx_status tcmx_execute_nop(struct tcmx_cmd *cmd);
/* cdb.c: a write whose buffer is shorter than the @need bytes it moves */
enum tcmx_status tcmx_write_overflow(struct tcmx_cmd *cmd, u64 need);

/* whether the decoded @cmd of row @d runs in a worker (TCMX_CMD_DEFER) */
static inline bool tcmx_cmd_defers(const struct tcmx_cmd *cmd,
				   const struct tcmx_cmd_desc *d)
{
	return unlikely(d->flags & TCMX_CMD_DEFER) && cmd->execute == d->execute;
}

/*
 * DPO and FUA, byte 1 of READ/WRITE(10/12/16) and of the other commands
 * beyond CDB group 0 that have them; group 0 has neither.
 */
#define TCMX_CDB_DPO	0x10
#define TCMX_CDB_FUA	0x08
static inline u8 tcmx_cdb_dpofua(const u8 *cdb)
{
	return cdb[0] >= 0x20 ? cdb[1] & (TCMX_CDB_DPO | TCMX_CDB_FUA) : 0;
}
/* LBA and transfer length of an LBA row's CDB into cmd->lba, ->nr_blocks */
void tcmx_cdb_lba(struct tcmx_cmd *cmd);

/*
 * Whether @cmd's nexus reaches its LUN through a write-protected mapping
 * (acl.c), for what reports it (MODE SENSE's WP): slow path, any context.
 */
static inline bool tcmx_cmd_mapped_wp(struct tcmx_cmd *cmd)
{
	void *entry = NULL;

	if (cmd->nexus) {
		rcu_read_lock();
		entry = xa_load(&cmd->nexus->luns, cmd->lun_id);
		rcu_read_unlock();
	}
	return (unsigned long)entry & TCMX_MAP_WP;
}

/*
 * gate.c: the slow checks before a command is decoded, taken only while
 * dev->gate (@gate, loaded once by tcmx_submit_cmd()) has a bit set; @d
 * may be NULL: an unknown opcode.  Returns TCMX_GOOD to go on decoding,
 * else the command's status (TCMX_CHECK or TCMX_CONFLICT).
 */
#define TCMX_GATE_UA	0	/* a LUN of the device has a unit attention */
#define TCMX_GATE_WP	1	/* control page SWP=1; a WP mapping (*) */
#define TCMX_GATE_EXCL	2	/* a range is held against writes (excl.c) */
#define TCMX_GATE_PR	3	/* a persistent or SPC-2 reservation exists */
#define TCMX_GATE_ALUA	4	/* some port group is not Active/Optimized */
#define TCMX_GATE_NOFUA	5	/* emulate_fua_write=0: no DPO, no FUA */
#define TCMX_GATE_SANITIZE 6	/* a SANITIZE is in progress (sanitize.c) */
/*
 * (*) never set in dev->gate for a mapping: tcmx_submit_cmd() ORs the
 * TCMX_MAP_WP bit of the nexus's map entry into the value it loaded.
 */
enum tcmx_status tcmx_gate(struct tcmx_cmd *cmd, const struct tcmx_cmd_desc *d,
			   unsigned long gate);
/* ua.c: report a pending unit attention for @cmd's LUN, if @d allows */
enum tcmx_status tcmx_ua_check(struct tcmx_cmd *cmd,
			       const struct tcmx_cmd_desc *d);
/*
 * excl.c: the write-range exclusion, for COMPARE AND WRITE, ORWRITE and
 * WRITE ATOMIC, which must not interleave with any other write to their
 * blocks, nor be read in part.  Such a command holds cd->excl_mutex
 * between tcmx_excl_begin() and tcmx_excl_end(): it publishes a window
 * over its range and sets TCMX_GATE_EXCL, waiting for an RCU grace period
 * only when the bit was clear or the window grows (excl.c says why), so
 * that every inline READ or WRITE either finished before it or, decoded,
 * is found by tcmx_excl_waits(); tcmx_submit_cmd() then runs it after the
 * holder, in a worker (tcmx_excl_rw(), sbc_integrity.c; inject/'s verdict
 * first).  Every other write-type row (WRITE SAME, UNMAP, FORMAT UNIT,
 * SANITIZE, EXTENDED COPY, ...) accesses the medium in its deferred
 * ->execute between tcmx_excl_lock() and tcmx_excl_unlock() (process
 * context; @lba/@nr name the range, for a finer lock later); so do the
 * rows that read it through the block ops (VERIFY, EXTENDED COPY's
 * source): like a READ, they never see part of a holder's write.  rd_mcp's
 * own deferred commands take the mutex through tcmx_excl_resume() when a
 * window overlaps them.  tcmx_excl_init(), tcmx_excl_destroy(): device.c.
 */
void tcmx_excl_init(struct tcmx_core_dev *cd);
void tcmx_excl_destroy(struct tcmx_core_dev *cd);
void tcmx_excl_lock(struct tcmx_dev *dev, u64 lba, u64 nr);
void tcmx_excl_unlock(struct tcmx_dev *dev);
void tcmx_excl_begin(struct tcmx_dev *dev, u64 lba, u64 nr);
void tcmx_excl_end(struct tcmx_dev *dev);
bool tcmx_excl_waits(struct tcmx_cmd *cmd);
/* sbc_integrity.c: a READ or WRITE tcmx_excl_waits() found, in a worker */
enum tcmx_status tcmx_excl_rw(struct tcmx_cmd *cmd);

/*
 * An initiator port's name and port id as pr.c compares them under
 * pr_lock, interrupts off: keyed hashes (case aside) and lengths, so that
 * only an identity that matches them costs a compare of the names.
 */
struct tcmx_pr_hash {
	u32				name;
	u32				port_id;
	u16				name_len;
	u16				port_id_len;	/* 0: "" */
};

/*
 * One I_T_L nexus: an entry of a nexus's map (acl.c), the state SAM and
 * SPC keep per I_T nexus and LUN.  ua.c makes it before the entry is
 * published and frees it a grace period after it is gone; it is on its
 * device's itls (under tcmx_itl_lock) meanwhile.  Unit attentions pending,
 * highest priority first (enum tcmx_sense codes, under tcmx_itl_lock;
 * ua_count is read locklessly as the "pending" flag).  pr_reg (pr.c): the
 * registration of this I_T nexus, or NULL; written under pr_mutex, pr_lock
 * and pr_seq, read by the gate without a lock.  deferred, ref: itl.h.
 */
struct tcmx_itl {
	struct tcmx_nexus		*nexus;
	struct tcmx_lun			*lun;
	struct tcmx_dev			*dev;		/* lun->dev when made */
	u64				id;		/* the mapped LUN */
	struct list_head		dev_node;	/* cd->itls */
	struct tcmx_pr_reg		*pr_reg;
	struct tcmx_pr_hash		pr_hash;	/* its nexus's (pr.c) */
	u8				ua_count;
	u8				ua[TCMX_UA_MAX];
	struct rcu_head			rcu;
	atomic_t			deferred;	/* pinned commands */
	refcount_t			ref;
	struct work_struct		end_work;	/* itl.c */
};

/*
 * itl.c and ua.c: the I_T_L nexuses.  tcmx_itl_add() makes @n's state for
 * entry @id (LUN @lun, linked), with POWER ON pending, before acl.c
 * publishes the entry (NULL without memory); tcmx_itl_del() ends it once
 * the entry is unpublished, a registered one in tcmx_wq (tcmx_cfs_mutex
 * held for both, neither waits for commands).  tcmx_cmd_itl(): the state
 * of @cmd's I_T_L nexus, in an RCU read-side section (NULL: none).
 * tcmx_itl_lock guards the queues and, with pr_mutex, every device's itls
 * (either lock holds the list still: pr.c walks it under pr_mutex).
 */
extern spinlock_t tcmx_itl_lock;
struct tcmx_itl *tcmx_itl_add(struct tcmx_nexus *n, u64 id,
			      struct tcmx_lun *lun);
void tcmx_itl_del(struct tcmx_nexus *n, u64 id);
struct tcmx_itl *tcmx_cmd_itl(struct tcmx_cmd *cmd);

/*
 * ua.c: establish a unit attention: for one I_T_L nexus (tcmx_ua_itl();
 * _locked with tcmx_itl_lock held); for every I_T nexus through a LUN that
 * exports @dev; for those through every linked LUN of a TPG but @except
 * (tcmx_cfs_mutex); for every I_T nexus to a device but those through
 * @except (cd->lock), or but the one @cmd came on (tcmx_ua_dev_others(),
 * cd->lock).  Take the highest priority one of a command's I_T_L nexus
 * (REQUEST SENSE, and the gate); drop those of a LUN's as it leaves.
 */
void tcmx_ua_itl(struct tcmx_itl *itl, enum tcmx_sense code);
void tcmx_ua_itl_locked(struct tcmx_itl *itl, enum tcmx_sense code);
void tcmx_ua_itl_clear(struct tcmx_itl *itl);	/* tcmx_itl_lock held */
void tcmx_ua_add(struct tcmx_lun *lun, struct tcmx_dev *dev,
		 enum tcmx_sense code);
void tcmx_ua_tpg(struct tcmx_tpg *tpg, struct tcmx_lun *except,
		 enum tcmx_sense code);
void tcmx_ua_dev(struct tcmx_dev *dev, struct tcmx_lun *except,
		 enum tcmx_sense code);
void tcmx_ua_dev_others(struct tcmx_dev *dev, struct tcmx_cmd *cmd,
			enum tcmx_sense code);
bool tcmx_ua_take(struct tcmx_cmd *cmd, bool clear, enum tcmx_sense *code);
void tcmx_ua_lun_clear(struct tcmx_lun *lun, struct tcmx_dev *dev);

/*
 * Integrity limits, for the block limits VPD page too: COMPARE AND WRITE
 * up to TCMX_CAW_MAX_BLOCKS blocks; WRITE ATOMIC(16) up to 1 MiB of
 * blocks, within the device's largest transfer.
 */
#define TCMX_CAW_MAX_BLOCKS	255
#define TCMX_ATOMIC_MAX_BYTES	(1U << 20)
static inline u32 tcmx_atomic_max_blocks(const struct tcmx_dev *dev)
{
	return min_t(u32, TCMX_ATOMIC_MAX_BYTES >> dev->block_shift,
		     dev->attrib.hw_max_sectors);
}

/*
 * pr.c: persistent reservations and SPC-2 RESERVE/RELEASE.  The gate's
 * check while TCMX_GATE_PR is set (any context: TCMX_GOOD or
 * TCMX_CONFLICT); a new device's state (before it is visible); a LUN
 * leaving cd->luns drops its registration and reservations, and the echo
 * buffer data it wrote (cd->lock held, the LUN drained); a LUN just
 * linked takes up the registrations
 * pr/res_aptpl_metadata restored for its nexus; a device's end frees
 * those still waiting (pr_aptpl.c); pr/res_aptpl_metadata's store
 * (pr_aptpl.c).
 */
enum tcmx_status tcmx_pr_check(struct tcmx_cmd *cmd,
			       const struct tcmx_cmd_desc *d);
void tcmx_pr_dev_init(struct tcmx_dev *dev);
void tcmx_pr_lun_gone(struct tcmx_lun *lun, struct tcmx_dev *dev);
void tcmx_pr_lun_linked(struct tcmx_lun *lun);
/*
 * pr.c: a new I_T_L nexus, before it is published, takes up the
 * registration of its I_T nexus and joins cd->itls with POWER ON pending,
 * under pr_lock; one that leaves its map is an I_T nexus loss at once
 * (tcmx_pr_itl_lost(): the SPC-2 reservation of its I_T nexus ends) and
 * leaves the list when it ends (tcmx_pr_itl_gone()).  Process context.
 */
void tcmx_pr_itl_new(struct tcmx_itl *itl);
void tcmx_pr_itl_lost(struct tcmx_itl *itl);
void tcmx_pr_itl_gone(struct tcmx_itl *itl);
void tcmx_pr_dev_free(struct tcmx_dev *dev);
ssize_t tcmx_pr_aptpl_metadata(struct tcmx_dev *dev, const char *page,
			       size_t count);
/* buffer.c: @lun leaves @dev: the echo buffer data it wrote goes */
void tcmx_echo_lun_gone(struct tcmx_lun *lun, struct tcmx_dev *dev);
/* pr.c: attrib/emulate_pr changed (cd->lock held): the gate follows it */
void tcmx_pr_emulate_changed(struct tcmx_dev *dev);
/* pr.c: a LOGICAL UNIT RESET of @dev ends its SPC-2 reservation; any context */
void tcmx_pr_lun_reset(struct tcmx_dev *dev);
/* tmr.c: a new device's list of I_T_L nexuses */
void tcmx_ua_dev_init(struct tcmx_dev *dev);
/* pr_cfs.c: <dev>/pr/ */
extern const struct config_item_type tcmx_pr_cfs_type;

/*
 * transport.c: the core's workqueue for tcmx_defer() and device drops;
 * every command's end (statistics, trace, odd statuses), submit.c's too
 */
extern struct workqueue_struct *tcmx_wq;
void tcmx_finish_cmd(struct tcmx_cmd *cmd, enum tcmx_status status);
int tcmx_transport_init(void);
void tcmx_transport_exit(void);

/* reply.c: the sense builder itself, for REQUEST SENSE */
struct tcmx_sense_extra {
	bool	info_valid;
	bool	field_valid;
	bool	in_cdb;
	u8	bit;
	u16	field;
	u64	info;
};

u8 tcmx_build_sense(u8 *buf, bool desc, enum tcmx_sense code,
		    const struct tcmx_sense_extra *x);

/*
 * cfs_attr.c: the text of a configfs write, for every store that takes
 * one.  configfs hands a store @count bytes at @page (NUL-terminated after
 * them).  tcmx_cfs_strip() sets *@s, *@len to that text without one
 * trailing newline, or with TCMX_STRIP_SPACE without all surrounding
 * whitespace (*@s points into @page, not NUL-terminated).  It returns
 * -EINVAL if the text is longer than @max bytes, holds a NUL, or with
 * TCMX_STRIP_ASCII anything but printable ASCII (0x20-0x7e); *@s and *@len
 * are set even then.  It prints nothing: the caller's one pr_err names the
 * object and the file.  Numbers need no stripping: kstrtou32() and the
 * like accept one trailing newline; but they stop at a NUL, so that
 * "1\0junk" would read as 1: tcmx_cfs_u32() and tcmx_cfs_int() are them
 * for a write, which must be the number and nothing else (-EINVAL).
 */
#define TCMX_STRIP_SPACE	BIT(0)	/* all surrounding whitespace */
#define TCMX_STRIP_ASCII	BIT(1)	/* printable ASCII only */
int tcmx_cfs_strip(const char *page, size_t count, size_t max,
		   unsigned int flags, const char **s, size_t *len);
int tcmx_cfs_u32(const char *page, size_t count, u32 *val);
/*
 * At most this many bytes of a refused value go into its log line: printk
 * cuts a longer line short, and the line that lost its newline waits for
 * the next message to end it, so that it is not seen when it is said.
 */
#define TCMX_CFS_ECHO		64
int tcmx_cfs_int(const char *page, size_t count, int *val);
/* cfs_attr.c: fill in a configfs item type */
void tcmx_cfs_init_type(struct config_item_type *type, struct module *owner,
			struct configfs_item_operations *item_ops,
			struct configfs_group_operations *group_ops,
			struct configfs_attribute **attrs);
/* cfs_attr.c: @child, named @name and typed @type, a default group of @parent */
void tcmx_cfs_subdir(struct config_group *parent, struct config_group *child,
		     const char *name, const struct config_item_type *type);
/*
 * A directory's name "<prefix><number>" with number < @limit, in decimal
 * without leading zeros or sign, into *@index; else pr_err and -EINVAL.
 */
int tcmx_parse_index(const char *name, const char *prefix, u64 limit,
		     u64 *index);

/*
 * reply.c: data-in built in order, a piece at a time, in one walk of the
 * buffer (a list of thousands of entries does not restart the walk per
 * piece): tcmx_din_start() with an allocation length, tcmx_din_put() as
 * often as needed (what goes past the limit or the buffer is dropped),
 * tcmx_din_end().  Any context; nothing may sleep in between.
 */
struct tcmx_din {
	struct sg_mapping_iter	miter;
	size_t			left;	/* room up to the limit */
	size_t			off;	/* into the mapped piece */
};

void tcmx_din_start(struct tcmx_cmd *cmd, struct tcmx_din *w, size_t limit);
void tcmx_din_put(struct tcmx_din *w, const void *buf, size_t len);
void tcmx_din_end(struct tcmx_din *w);

#endif /* TCMX_CORE_H */
