/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcmx: the interface between the target core (tcmx_core), its backends
 * (tcmx_rd) and its fabrics (tcmx_loop).
 *
 * A fabric knows nothing of backends and a backend nothing of fabrics: the
 * core sits between them.  A fabric embeds a struct tcmx_cmd in its own
 * per-command state (the SCSI command's private area for the loopback), fills
 * in the fields marked "fabric" and calls tcmx_submit_cmd() inside an RCU
 * read-side section of its own.  The core looks up the LUN, decodes the CDB
 * once and runs the command.  A command that finishes inline (every
 * READ/WRITE rd_mcp can serve without sleeping) is final when
 * tcmx_submit_cmd() returns true; the caller's RCU section is all that keeps
 * its LUN alive.  One a backend deferred (after tcmx_cmd_pin()) is handed
 * back later through the fabric's ->queue_status().  On the READ/WRITE fast
 * path nothing allocates, locks, sleeps or touches a shared counter.
 *
 * The structures here hold what a fabric or a backend reads or fills in,
 * and the fields the fast path reads; the core keeps the rest of its state
 * (reservations, ALUA, mode, unit attentions, configfs) in tcmx_core.h.
 */
#ifndef TCMX_H
#define TCMX_H

#include <linux/configfs.h>
#include <linux/dma-direction.h>
#include <linux/hrtimer.h>
#include <linux/percpu-refcount.h>
#include <linux/scatterlist.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#define TCMX_VERSION		"0.1"
#define TCMX_SENSE_BUFFER_LEN	96	/* == SCSI_SENSE_BUFFERSIZE */
#define TCMX_CDB_MAX		16	/* longest CDB the core decodes */
#define TCMX_LUN_MAP		256	/* LUNs 0..255: looked up in an array */
#define TCMX_MAX_LUN		65536	/* lun_0 .. lun_65535 */
#define TCMX_UA_MAX		8	/* unit attentions pending per LUN */
#define TCMX_ALL_LUNS		U64_MAX	/* tcmx_ua_reset(): every LUN */
#define TCMX_NAME_LEN		256	/* an initiator port name, with NUL */
#define TCMX_PORT_ID_LEN	32	/* a fabric's initiator port id, with NUL */

/*
 * How a command ends: what ->execute() and a backend's ->execute_rw()
 * return.  A CHECK CONDITION's sense data is already in cmd->sense: it was
 * built by tcmx_sense() or a sibling (reply.c), the only place that builds
 * sense bytes.
 */
enum tcmx_status {
	TCMX_GOOD = 0,
	TCMX_CHECK,		/* CHECK CONDITION, cmd->sense filled in */
	TCMX_BUSY,		/* SAM BUSY, no sense data */
	TCMX_DEFERRED,		/* tcmx_complete_cmd() comes later */
	TCMX_CONFLICT,		/* SAM RESERVATION CONFLICT, no sense data */
	TCMX_TASK_ABORTED,	/* SAM TASK ABORTED: another nexus's reset */
	TCMX_TASK_SET_FULL,	/* SAM TASK SET FULL, no sense data */
};

/* Sense codes, one row each of key/ASC/ASCQ in reply.c. */
enum tcmx_sense {
	TCMX_SENSE_NO_SENSE,		/* 00/00/00 */
	TCMX_SENSE_INVALID_OPCODE,	/* 05/20/00 */
	TCMX_SENSE_LBA_OUT_OF_RANGE,	/* 05/21/00 */
	TCMX_SENSE_INVALID_CDB_FIELD,	/* 05/24/00 */
	TCMX_SENSE_LUN_NOT_SUPPORTED,	/* 05/25/00 */
	TCMX_SENSE_INVALID_PARAM_FIELD,	/* 05/26/00 */
	TCMX_SENSE_SAVING_NOT_SUPPORTED,	/* 05/39/00 */
	TCMX_SENSE_SPACE_ALLOC_FAILED,	/* 07/27/07 */
	TCMX_SENSE_INTERNAL_ERROR,	/* 04/44/00 */
	TCMX_SENSE_PARAM_LIST_LENGTH,	/* 05/1A/00 */
	TCMX_SENSE_INVALID_PARAM_VALUE,	/* 05/26/02 */
	TCMX_SENSE_TOO_MANY_TARGET_DESC,	/* 05/26/06 */
	TCMX_SENSE_UNSUPPORTED_TARGET_DESC,	/* 05/26/07 */
	TCMX_SENSE_TOO_MANY_SEGMENT_DESC,	/* 05/26/08 */
	TCMX_SENSE_UNSUPPORTED_SEGMENT_DESC,	/* 05/26/09 */
	TCMX_SENSE_COPY_TARGET_NOT_REACHABLE,	/* 0A/0D/02 */
	TCMX_SENSE_INVALID_RELEASE,	/* 05/26/04 */
	TCMX_SENSE_MISCOMPARE,		/* 0E/1D/00 */
	TCMX_SENSE_WRITE_PROTECTED,	/* 07/27/00 */
	TCMX_SENSE_MEDIUM_ERROR_READ,	/* 03/11/00 */
	TCMX_SENSE_NOT_READY_FORMAT,	/* 02/04/04 */
	TCMX_SENSE_COMMAND_SEQUENCE,	/* 05/2C/00 */
	TCMX_SENSE_INSUFFICIENT_RESOURCES,	/* 05/55/03 */
	TCMX_SENSE_ALUA_TRANSITIONING,	/* 02/04/0A */
	TCMX_SENSE_ALUA_STANDBY,	/* 02/04/0B */
	TCMX_SENSE_ALUA_UNAVAILABLE,	/* 02/04/0C */
	TCMX_SENSE_ALUA_OFFLINE,	/* 02/04/12 */
	/* unit attentions (06/..) */
	TCMX_SENSE_UA_POWER_ON,		/* 06/29/00 */
	TCMX_SENSE_UA_BUS_RESET,	/* 06/29/02 */
	TCMX_SENSE_UA_DEVICE_RESET,	/* 06/29/03 */
	TCMX_SENSE_UA_I_T_NEXUS_LOSS,	/* 06/29/07 */
	TCMX_SENSE_UA_MODE_CHANGED,	/* 06/2A/01 */
	TCMX_SENSE_UA_RES_PREEMPTED,	/* 06/2A/03 */
	TCMX_SENSE_UA_RES_RELEASED,	/* 06/2A/04 */
	TCMX_SENSE_UA_REG_PREEMPTED,	/* 06/2A/05 */
	TCMX_SENSE_UA_ALUA_CHANGED,	/* 06/2A/06 */
	TCMX_SENSE_UA_CAPACITY_CHANGED,	/* 06/2A/09 */
	TCMX_SENSE_UA_COMMANDS_CLEARED,	/* 06/2F/00 */
	TCMX_SENSE_UA_LUNS_CHANGED,	/* 06/3F/0E */
	TCMX_SENSE_OPERATION_IN_PROGRESS,	/* 05/00/16 */
	TCMX_SENSE_INVALID_IU_FIELD,	/* 05/0E/03 */
	TCMX_SENSE_UA_INQUIRY_CHANGED,	/* 06/3F/03 */
	TCMX_SENSE_INSUFFICIENT_REG_RESOURCES,	/* 05/55/04 */
	TCMX_SENSE_LU_COMM_FAILURE,	/* 02/08/00 */
	TCMX_SENSE_PROTOCOL_CRC,	/* 0B/47/05: a transport sequence error */
	TCMX_SENSE_SANITIZE_IN_PROGRESS,	/* 02/04/1B */
	TCMX_SENSE_COMMAND_ABORTED,	/* 0B/00/00 */
	TCMX_SENSE_MEDIUM_ERROR_WRITE,	/* 03/0C/00 */
	TCMX_SENSE_NR
};

/*
 * Task management a fabric performs, as tcmx:tmr names it; RSTMF (cdb.c)
 * reports the SCSI task management functions of these.
 */
enum tcmx_tmf {
	TCMX_TMF_ABORT_TASK = 1,
	TCMX_TMF_LUN_RESET,
	TCMX_TMF_NEXUS_LOSS,	/* a host reset: every I_T nexus of the host */
};

struct tcmx_acl;
struct tcmx_cmd;
struct tcmx_cmd_desc;
struct tcmx_dev;
struct tcmx_fabric;
struct tcmx_lun;
struct tcmx_nexus;
struct tcmx_tg_pt_gp;
struct tcmx_tpg;
struct tcmx_wwn;

typedef enum tcmx_status (*tcmx_execute_fn)(struct tcmx_cmd *cmd);

/* One SCSI command.  Lives in the fabric's per-command memory. */
struct tcmx_cmd {
	/* fabric: set before tcmx_submit_cmd() */
	struct tcmx_nexus	*nexus;		/* the I_T nexus it came on */
	struct tcmx_tpg		*tpg;		/* == nexus->tpg */
	u64			lun_id;		/* unpacked LUN, as mapped */
	/* max(cdb_len, TCMX_CDB_MAX) readable bytes */
	const u8		*cdb;
	struct scatterlist	*sgl;
	unsigned int		sg_nents;
	u32			data_len;	/* size of the initiator's buffer */
	enum dma_data_direction	data_dir;
	u8			cdb_len;	/* as the transport carried it */
	u8			*sense;		/* TCMX_SENSE_BUFFER_LEN bytes */

	/* core: valid once the command is parsed */
	struct tcmx_lun		*lun;		/* NULL: no such LUN */
	struct tcmx_dev		*dev;
	const struct tcmx_cmd_desc *desc;	/* its command table row */
	u64			lba;
	u32			nr_blocks;
	u32			xfer_len;	/* bytes moved to/from sgl */
	u8			status;		/* SAM status for the fabric */
	u8			sense_len;	/* valid bytes in ->sense */
	bool			fua;
	bool			pinned;		/* tcmx_cmd_pin() was called */
	/* bytes the CDB wanted beyond data_len (READ/WRITE), else 0 */
	u32			overflow;
	struct tcmx_itl		*itl;		/* the I_T_L nexus it pinned */
	u64			start_ns;	/* only while tcmx:cmd_complete is on */
	tcmx_execute_fn		execute;

	/* for a backend's or the core's slow path only */
	struct work_struct	work;
	u32			resume;	/* bytes moved before a deferral */

	/*
	 * core: a command it holds (sanitize.c: a SANITIZE waiting for its
	 * operation's end, or one inject/fault made stuck), on the list of
	 * held commands while parked_end is 0; one inject/ delays (inject.c),
	 * completed from delay_timer with delay_status.  Read only on those
	 * paths.
	 */
	struct list_head	parked;
	struct hrtimer		delay_timer;
	u32			delay_us;
	u8			delay_status;
	u8			parked_end;
	bool			stuck;
};

/*
 * Device attributes shown under <dev>/attrib, one u32 per line of
 * dev_attrib.h (which also holds their defaults and ranges).  The list
 * expands to "u32 a, b, ..., z, : 0;": the unnamed zero-width bit-field
 * closes its last comma and takes no room.
 */
struct tcmx_dev_attrib {
	u32
#define TCMX_DEV_ATTRIB(_name, _def, _min, _max, _flags)	_name,
#include "dev_attrib.h"
#undef TCMX_DEV_ATTRIB
	: 0;
};

/* Command counters: per CPU on a linked LUN, plain totals elsewhere. */
struct tcmx_stats {
	u64 cmds;
	u64 read_bytes;
	u64 write_bytes;
};

/* statistics/ of a device or a LUN: the directory and its three tables */
struct tcmx_stat_groups {
	struct config_group	group;
	struct config_group	table[3];
};

struct tcmx_hba {
	struct config_group		group;
	const struct tcmx_backend_ops	*ops;
	u32				id;	/* the N of <plugin>_<N> */
	atomic_t			drops;	/* devices' drop works pending */
};

/*
 * A backstore device (core/<plugin>_<N>/<name>): what its backend and the
 * fast path see.  The core allocates it inside its own struct
 * tcmx_core_dev (tcmx_core.h), which holds the rest of its state:
 * configfs groups, LUNs, identification, reservations, ALUA, mode, unit
 * attentions and the exclusion.
 */
struct tcmx_dev {
	struct config_group		group;
	/*
	 * held (configfs item reference) until the end of the device's
	 * release: configfs drops a removed device's parent reference at
	 * rmdir, but the device may live on (a symlink being made to it),
	 * and its release calls into the backend the HBA holds
	 */
	struct tcmx_hba			*hba;
	const struct tcmx_backend_ops	*ops;
	void				*priv;		/* backend's */

	/* hot, read-only while exported */
	u64				nr_blocks;	/* capacity in blocks */
	u32				block_size;	/* == attrib.block_size */
	u8				block_shift;
	bool				d_sense;	/* D_SENSE: MODE SELECT sets it */
	/*
	 * TCMX_GATE_* bits: 0 while nothing is pending, so the fast path
	 * pays one load for unit attentions, write protection, exclusive
	 * ranges, reservations and ALUA.  Set and cleared with
	 * set_bit()/clear_bit(); see gate.c.
	 */
	unsigned long			gate;
	tcmx_execute_fn			execute_rw;	/* set by ->enable() */

	u64				size_bytes;	/* set by ->enable() */
	struct tcmx_dev_attrib		attrib;
};

/* A fabric WWN (<fabric>/<wwn>): embedded in the fabric's own structure. */
struct tcmx_wwn {
	struct config_group		group;
	struct config_group		param_group;
	struct config_group		stats_group;
	struct tcmx_fabric		*fabric;
	int				cmd_compl_affinity;
};

/* A target portal group (<wwn>/tpgt_<tag>): embedded in the fabric's. */
struct tcmx_tpg {
	struct config_group		group;
	struct config_group		lun_group;
	struct config_group		attrib_group;
	struct config_group		param_group;
	struct tcmx_wwn			*wwn;
	const struct tcmx_fabric_ops	*ops;	/* == wwn's fabric ops */
	u16				tag;
	struct config_group		acl_group;	/* acls/ */
	/*
	 * core, for a nexus_per_tpg fabric: the initiator port name of the
	 * TPG's registered I_T nexus ("" while it has none); stable while a
	 * LUN of the TPG is linked and the nexus registered
	 */
	const char			*nexus_name;
	struct xarray			luns;	/* index -> tcmx_lun, RCU */
	/* core, under tcmx_cfs_mutex (acl.c) */
	struct list_head		nexuses;	/* registered I_T nexuses */
	struct list_head		acls;		/* acls/<initiator> */
	unsigned int			nr_linked;	/* linked until drained */
	struct config_group		np_group;	/* np/ */
	struct config_group		auth_group;	/* auth/ */
	/* tpgt_<t>/enable: written by the fabric's ->tpg_enable() */
	bool				enabled;
};

/*
 * An I_T nexus (acl.c): an initiator port logged in to a TPG, embedded by
 * the fabric in its own state (loopback: one per TPG; iSCSI: one per
 * session) and registered with tcmx_nexus_register().  Its map is what the
 * fast path looks a command's LUN up in: the LUNs of the node ACL named as
 * the initiator port under their mapped numbers, or, without one (demo
 * mode), every LUN of the TPG under its own number.  An entry is a struct
 * tcmx_lun pointer whose bit 0 (TCMX_MAP_WP) marks a write-protected
 * mapping.  The core keeps the map, under tcmx_cfs_mutex; it changes when a
 * LUN is linked or unlinked, a mapping made, removed or its write_protect
 * changed, an ACL made or removed, the nexus registered or unregistered.
 */
#define TCMX_MAP_WP		1UL
#define TCMX_MAP_GOING		XA_MARK_1	/* ->pre_unmap() called */

struct tcmx_nexus {
	/* the first entries, one load away for the fast path; RCU */
	struct tcmx_lun __rcu		*lun_map[TCMX_LUN_MAP];
	/* every entry, by mapped LUN number; RCU */
	struct xarray			luns;
	/* core */
	struct tcmx_tpg			*tpg;
	struct tcmx_acl			*acl;	/* NULL: demo mode */
	struct list_head		node;	/* tpg->nexuses */
	/* pinned commands, and I_T_L nexuses ending (itl.c) */
	atomic_t			deferred;
	/*
	 * fabric, set before registering: in demo mode (no ACL) every
	 * entry is a write-protected mapping (demo_mode_write_protect)
	 */
	bool				demo_wp;
	/* the initiator port name: fixed while registered */
	char				name[TCMX_NAME_LEN];
	/*
	 * core: the state of each entry of the map (struct tcmx_itl, ua.c:
	 * unit attentions, the PR registration), by mapped LUN number; made
	 * before the entry is published, freed after a grace period once it
	 * is gone.  Only the gate's slow path and the PR, UA and TMR code
	 * look it up.  RCU.
	 */
	struct xarray			itls;
	/*
	 * The fabric's part of the initiator port's identity, after the name
	 * (iSCSI: ",i,0x" and the ISID in 12 hex digits; "" for none): PR
	 * keys on name and port id.  Fixed while registered.
	 */
	char				port_id[TCMX_PORT_ID_LEN];
	/*
	 * core, under tcmx_cfs_mutex: entries a LUN's unlinking marked going
	 * and has yet to take out of the map (acl.c, tcmx_lun_unmap())
	 */
	unsigned int			unmapping;
	/*
	 * core: for each entry of lun_map that maps an ACL's lun_<m>, that
	 * mapping's per-CPU counters (statistics/scsi_auth_intr), counted
	 * when a command finds the entry; NULL in demo mode.  Set with the
	 * entry, cleared with it; the counters are freed a grace period
	 * after (acl.c), so a command reads them in its RCU section only.
	 */
	struct tcmx_stats __percpu	*map_stats[TCMX_LUN_MAP];
};

static inline struct tcmx_lun *tcmx_map_lun(void *entry)
{
	return (struct tcmx_lun *)((unsigned long)entry & ~TCMX_MAP_WP);
}

/*
 * A node ACL (tpgt_<t>/acls/<initiator>): its name is the initiator port
 * name, its lun_<m>/ directories the LUNs it maps (acl.c).  attrib/,
 * auth/ and param/ hold what the fabric's acl_*_attrs give them.
 */
struct tcmx_acl {
	struct config_group		group;
	struct config_group		attrib_group;
	struct config_group		auth_group;
	struct config_group		param_group;
	struct tcmx_tpg			*tpg;
	struct list_head		node;	/* tpg->acls */
	struct xarray			mapped;	/* m -> struct tcmx_mapped_lun */
	void				*fabric_priv;	/* acl_priv_size bytes */
	struct config_group		stats_group;	/* fabric_statistics/ */
	/*
	 * core: the authorized initiator's index of the SCSI MIB (statistics
	 * of its mapped LUNs), unique among the ACLs made since loading
	 */
	u32				index;
};

static inline const char *tcmx_acl_name(struct tcmx_acl *acl)
{
	return config_item_name(&acl->group.cg_item);
}

/*
 * A LUN of a TPG (<tpg>/lun/lun_<index>).  While linked (dev set) it is on
 * its device's list of LUNs under the device's lock (the core's, in struct
 * tcmx_core_dev), and stats is valid from before it is published until
 * after it is drained (lun.c).
 */
struct tcmx_lun {
	struct config_group		group;
	struct tcmx_tpg			*tpg;
	u64				index;
	struct tcmx_dev			*dev;		/* NULL while unlinked */
	struct tcmx_stats __percpu	*stats;		/* while linked */
	struct percpu_ref		ref;		/* deferred commands */
	struct completion		drained;
	struct tcmx_tg_pt_gp		*tg_pt_gp;	/* ALUA group (core) */
	u16				rtpi;		/* relative target port id */
	bool				unlinking;	/* leaving the maps */
	struct list_head		dev_node;	/* the device's LUNs */
	struct tcmx_stat_groups		stat_groups;	/* statistics/ */
	/*
	 * Unit attentions and PR registrations are per I_T nexus (and LUN):
	 * the state of each entry of a nexus's map (struct tcmx_itl,
	 * tcmx_core.h), not the LUN's.
	 */
};

/* A backstore type, e.g. "rd_mcp". */
struct tcmx_backend_ops {
	const char	*name;
	struct module	*owner;
	const char	*version;	/* for hba_info, e.g. "v5.0" */
	const char	*product;	/* default INQUIRY product id */
	u32		hw_queue_depth;
	u32		hw_max_sectors;
	/* bytes stored as one unit (rd: a page); 0: the logical block */
	u32		phys_block_size;

	/* slow path, process context, device mutex held */
	int	(*alloc_dev)(struct tcmx_dev *dev);	/* sets dev->priv */
	void	(*free_dev)(struct tcmx_dev *dev);
	/* "control": parse tokens; return count or -errno */
	ssize_t	(*set_params)(struct tcmx_dev *dev, const char *buf,
			      size_t count);
	/* "info" after the core's first line; returns bytes written */
	ssize_t	(*show_params)(struct tcmx_dev *dev, char *buf);
	/*
	 * Validate the configuration, set dev->size_bytes and
	 * dev->execute_rw: the fast path.  It moves cmd->xfer_len bytes from
	 * the block cmd->lba between the device and cmd->sgl (cmd->data_dir
	 * says which way), and on a short transfer lowers cmd->xfer_len to
	 * what it moved; the core has checked range, length and direction.
	 * cmd->xfer_len is cmd->nr_blocks blocks, except for a READ longer
	 * than the initiator's buffer: then it is the buffer, which may end
	 * inside a block, and nr_blocks stays what the CDB asked for (only
	 * for range checks, never for sizing a copy).  It may run
	 * in atomic context and returns a status, or TCMX_DEFERRED after
	 * tcmx_cmd_pin() and handing the command to another context, which
	 * calls tcmx_complete_cmd() later.
	 */
	int	(*enable)(struct tcmx_dev *dev);
	/* optional: SYNCHRONIZE CACHE; NULL means nothing to flush */
	enum tcmx_status (*sync_cache)(struct tcmx_cmd *cmd);

	/*
	 * Optional, for the core's emulated commands (WRITE SAME, VERIFY,
	 * COMPARE AND WRITE, EXTENDED COPY, ...).  Process context, may
	 * sleep; the range is checked.  read_blocks() reads holes as zeroes;
	 * write_blocks() returns -ENOSPC when it cannot allocate (SPACE
	 * ALLOCATION FAILED).  unmap() deallocates: the blocks read as zeroes
	 * afterwards; NULL means the backend cannot (emulate_tpu and
	 * emulate_tpws are refused).  lba_status() says whether @lba is
	 * mapped and returns how many blocks from @lba (at least 1) share
	 * that state.  Each returns 0 or -errno.
	 */
	int	(*read_blocks)(struct tcmx_dev *dev, u64 lba, u32 nr, void *buf);
	int	(*write_blocks)(struct tcmx_dev *dev, u64 lba, u32 nr,
				const void *buf);
	int	(*unmap)(struct tcmx_dev *dev, u64 lba, u64 nr);
	u64	(*lba_status)(struct tcmx_dev *dev, u64 lba, bool *mapped);
};

/* A fabric type, e.g. "loopback". */
struct tcmx_fabric_ops {
	const char	*name;		/* configfs directory name */
	struct module	*owner;
	const char	*version;	/* <fabric>/version, no newline */
	u16		max_tpgt;	/* tpgt_<t> with t < max_tpgt */
	/*
	 * Each TPG is one I_T nexus whose initiator port name the
	 * configuration gives (loopback's nexus; rtslib does not save it and
	 * makes up a new one when it restores): a registration APTPL kept
	 * comes back to the nexus of its target port, whatever its name.
	 */
	bool		nexus_per_tpg;
	/*
	 * The fabric tells the initiator how many bytes the CDB wanted
	 * beyond its buffer (iSCSI's O bit and Residual Count, from
	 * cmd->overflow): a write whose buffer is shorter than its CDB's
	 * transfer length and holds whole blocks writes those blocks, GOOD,
	 * instead of being refused.
	 */
	bool		reports_overflow;
	/*
	 * The data buffers are the fabric's own pages, not the initiator's
	 * memory: a command whose CDB moves data in, sent with data out,
	 * reads into that buffer and nothing goes back (iSCSI's W bit on a
	 * READ: the initiator asked for no data).
	 */
	bool		own_buffers;

	/* slow path, process context */
	struct tcmx_wwn	*(*make_wwn)(struct tcmx_fabric *tf, const char *name);
	void		(*drop_wwn)(struct tcmx_wwn *wwn);	/* frees */
	struct tcmx_tpg	*(*make_tpg)(struct tcmx_wwn *wwn, u16 tag);
	void		(*drop_tpg)(struct tcmx_tpg *tpg);	/* frees */
	/*
	 * Entry @id of @n's map was published (commands to it find a LUN) /
	 * is about to go (commands still reach it until this returns, so the
	 * fabric may drain them).  Under tcmx_cfs_mutex: they must not touch
	 * the configfs tree.
	 */
	void		(*post_map)(struct tcmx_nexus *n, u64 id);
	void		(*pre_unmap)(struct tcmx_nexus *n, u64 id);

	/*
	 * A deferred command is done (tcmx_submit_cmd() returned or will
	 * return false): cmd->status, ->sense, ->xfer_len are final.  Any
	 * context.
	 */
	void		(*queue_status)(struct tcmx_cmd *cmd);

	/* extra files in tpgt_<t>/ and tpgt_<t>/attrib/, NULL-terminated */
	struct configfs_attribute **tpg_attrs;
	struct configfs_attribute **tpg_attrib_attrs;
	/* files in acls/<initiator>/ and its attrib/, auth/, param/ */
	struct configfs_attribute **acl_attrs;
	struct configfs_attribute **acl_attrib_attrs;
	struct configfs_attribute **acl_auth_attrs;
	struct configfs_attribute **acl_param_attrs;

	/*
	 * Optional, for a network fabric (iSCSI).  Slow path, process
	 * context, tcmx_cfs_mutex not held.
	 *
	 * Files of $T/<fabric>/ (instead of the core's "version") and of
	 * its discovery_auth/, NULL-terminated.
	 */
	struct configfs_attribute **fabric_attrs;
	struct configfs_attribute **discovery_attrs;
	/* after fabric_statistics/ of a new WWN exists: add its groups */
	void		(*add_wwn_stats)(struct tcmx_wwn *wwn);
	/*
	 * tpgt_<t>/enable ("0"/"1") exists iff this is set: turn the TPG on
	 * or off and set tpg->enabled; 0 or -errno (with one pr_err).
	 */
	int		(*tpg_enable)(struct tcmx_tpg *tpg, bool on);
	/* files of tpgt_<t>/param/ and tpgt_<t>/auth/ */
	struct configfs_attribute **tpg_param_attrs;
	struct configfs_attribute **tpg_auth_attrs;
	/*
	 * tpgt_<t>/np/<name>: make_np allocates a portal and returns its
	 * group, which the core names and types (np_attrs), or an ERR_PTR
	 * (with one pr_err); drop_np at rmdir (stop the portal), free_np
	 * once its last reference is gone.  Without make_np, mkdir in np/
	 * fails.
	 */
	struct config_group *(*make_np)(struct tcmx_tpg *tpg, const char *name);
	void		(*drop_np)(struct tcmx_tpg *tpg, struct config_group *np);
	void		(*free_np)(struct config_group *np);
	struct configfs_attribute **np_attrs;
	/*
	 * Per-ACL data: acl_priv_size zeroed bytes at acl->fabric_priv.
	 * init_acl after mkdir acls/<initiator> (0 or -errno, then the
	 * mkdir fails), drop_acl at its rmdir (before the core lets go of
	 * its mappings), both with tcmx_cfs_mutex not held.
	 */
	size_t		acl_priv_size;
	int		(*init_acl)(struct tcmx_acl *acl);
	void		(*drop_acl)(struct tcmx_acl *acl);
	/* after acls/<initiator>/fabric_statistics/ exists: add its groups */
	void		(*add_acl_stats)(struct tcmx_acl *acl);
	/*
	 * Optional, for acls/<initiator>/lun_<m>/statistics/ (1 without
	 * them, as tcm_loop's): the TPG's instance index (the in-tree iSCSI
	 * target's: its IQN's index) and a registered nexus's session index.
	 * tcmx_cfs_mutex held: they must not take it.
	 */
	u32		(*tpg_inst_index)(struct tcmx_tpg *tpg);
	u32		(*nexus_index)(struct tcmx_nexus *n);
};

static inline struct tcmx_tpg *tcmx_item_to_tpg(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_tpg, group);
}

static inline struct tcmx_tpg *tcmx_attrib_item_to_tpg(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_tpg,
			    attrib_group);
}

static inline struct tcmx_tpg *tcmx_param_item_to_tpg(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_tpg,
			    param_group);
}

static inline struct tcmx_tpg *tcmx_auth_item_to_tpg(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_tpg, auth_group);
}

/* acls/<initiator> and its attrib/, auth/, param/ */
static inline struct tcmx_acl *tcmx_item_to_acl(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_acl, group);
}

static inline struct tcmx_acl *tcmx_attrib_item_to_acl(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_acl,
			    attrib_group);
}

static inline struct tcmx_acl *tcmx_auth_item_to_acl(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_acl, auth_group);
}

static inline struct tcmx_acl *tcmx_param_item_to_acl(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_acl,
			    param_group);
}

static inline const char *tcmx_dev_name(struct tcmx_dev *dev)
{
	return config_item_name(&dev->group.cg_item);
}

static inline const char *tcmx_wwn_name(struct tcmx_wwn *wwn)
{
	return config_item_name(&wwn->group.cg_item);
}

/* submit.c; sanitize.c; transport.c */
bool tcmx_submit_cmd(struct tcmx_cmd *cmd);
/*
 * sanitize.c, for a fabric's task management: @cmd, submitted and not yet
 * handed back, is aborted.  A command the core holds for a time (a
 * SANITIZE waiting for its operation's end) comes back at once through
 * ->queue_status(); others finish as they would.  Process context.
 */
void tcmx_abort_cmd(struct tcmx_cmd *cmd);
bool tcmx_nexus_unmapping(struct tcmx_nexus *n, u64 id);
void tcmx_cmd_pin(struct tcmx_cmd *cmd);
void tcmx_complete_cmd(struct tcmx_cmd *cmd, enum tcmx_status status);
/*
 * From a command's ->execute (or ->parse), in the submitter's RCU
 * section: pin the command and run @fn(cmd) in the core's workqueue,
 * where it may sleep and allocate; its status completes the command.
 * Returns TCMX_DEFERRED, which the caller returns as it is.
 */
enum tcmx_status tcmx_defer(struct tcmx_cmd *cmd, tcmx_execute_fn fn);

/*
 * excl.c, for a backend's worker that leaves its RCU read-side
 * section part way through a write (to sleep): called each time it enters
 * one again, before it touches the medium, until it returns true.  While
 * a COMPARE AND WRITE, ORWRITE or WRITE ATOMIC holds (or lately held) a
 * range overlapping [@lba, @lba + @nr), it leaves the section, takes the
 * device's write exclusion, enters the section again and returns true:
 * the worker then calls tcmx_excl_unlock() once its write is done,
 * outside the section.  Without that, a write that passed the gate before
 * the range was taken could land between such a command's read and its
 * write.
 */
bool tcmx_excl_resume(struct tcmx_dev *dev, u64 lba, u64 nr)
	__must_hold(RCU);
void tcmx_excl_unlock(struct tcmx_dev *dev);

/*
 * tmr.c, for a fabric's task management: a reset of LUN @lun_id of @tpg
 * happened (a LOGICAL UNIT RESET: the unit's SPC-2 reservation ends and
 * every I_T nexus of the unit reports BUS DEVICE RESET FUNCTION
 * OCCURRED), or of every LUN of it (TCMX_ALL_LUNS, a target or host
 * reset: each reports POWER ON, RESET, OR BUS DEVICE RESET OCCURRED).
 * Process context, in an RCU read-side section or not.
 */
void tcmx_ua_reset(struct tcmx_tpg *tpg, u64 lun_id);
/*
 * The same from @n's point of view: @lun_id is a LUN number as @n maps
 * it, and TCMX_ALL_LUNS resets only the LUNs @n maps (every I_T nexus of
 * each of them reports 29/00).
 */
void tcmx_nexus_reset(struct tcmx_nexus *n, u64 lun_id);

/*
 * reply.c: what a command sends back.  Each tcmx_sense*() builds CHECK
 * CONDITION sense data in cmd->sense, fixed or descriptor format as the
 * device's control page says, and returns TCMX_CHECK.  _info sets the
 * INFORMATION field; _field the sense-key-specific field pointer to byte
 * @byte, bit @bit (TCMX_NO_BIT: the whole byte) of the CDB or, with
 * @in_cdb false, of the parameter list.
 */
#define TCMX_NO_BIT	8
enum tcmx_status tcmx_sense(struct tcmx_cmd *cmd, enum tcmx_sense code);
enum tcmx_status tcmx_sense_info(struct tcmx_cmd *cmd, enum tcmx_sense code,
				 u64 info);
enum tcmx_status tcmx_sense_field(struct tcmx_cmd *cmd, enum tcmx_sense code,
				  bool in_cdb, u16 byte, u8 bit);
/* copy parameter data into a data-in buffer: at its start, or at @off */
size_t tcmx_cmd_copy_to_sgl(struct tcmx_cmd *cmd, const void *buf,
			    size_t len);
size_t tcmx_cmd_copy_at(struct tcmx_cmd *cmd, const void *buf, size_t len,
			size_t off, size_t limit);
/* copy up to @len bytes of a data-out buffer (parameter list) into @buf */
size_t tcmx_cmd_copy_from_sgl(struct tcmx_cmd *cmd, void *buf, size_t len);

/*
 * acl.c, for a fabric (process context).  Register @n, zeroed, once its
 * commands can reach the core: its map is filled and ->post_map() called
 * for each entry.  Unregister empties the map (->pre_unmap() for each
 * entry) and returns once no command uses the nexus; -EPERM for a
 * nexus_per_tpg fabric while a LUN of the TPG is linked.
 */
int tcmx_nexus_register(struct tcmx_tpg *tpg, struct tcmx_nexus *n,
			const char *name);
/*
 * The same, for an initiator port that is the name and a fabric-given
 * port id (@port_id: iSCSI's ",i,0x<ISID>", up to TCMX_PORT_ID_LEN - 1
 * characters; NULL or "" for none).  The unit attentions each new entry of
 * the map starts with: POWER ON, RESET, OR BUS DEVICE RESET OCCURRED.  On
 * unregistering, the nexus's SPC-2 reservations end (I_T nexus loss); its
 * PR registrations stay, and come back to a nexus of the same identity.
 */
int tcmx_nexus_register_port(struct tcmx_tpg *tpg, struct tcmx_nexus *n,
			     const char *name, const char *port_id);
int tcmx_nexus_unregister(struct tcmx_nexus *n);
/*
 * For the core and fabrics, in an RCU read-side section: the LUN @n
 * reaches as @id (NULL: none), and whether that mapping is write-protected.
 * tcmx_nexus_for_each_lun() walks every entry of the map, by mapped number.
 */
struct tcmx_lun *tcmx_nexus_lun(struct tcmx_nexus *n, u64 id, bool *wp);
#define tcmx_nexus_for_each_lun(n, id, entry) \
	xa_for_each(&(n)->luns, id, entry)

/* registration */
int tcmx_register_backend(const struct tcmx_backend_ops *ops);
void tcmx_unregister_backend(const struct tcmx_backend_ops *ops);
int tcmx_register_fabric(const struct tcmx_fabric_ops *ops);
void tcmx_unregister_fabric(const struct tcmx_fabric_ops *ops);

#endif /* TCMX_H */
