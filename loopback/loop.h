/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of tcmx_loop share: loop.c (the fast path, error
 * handling, WWNs, TPGs, LUNs, the module) and loop_cfs.c (the files of
 * tpgt_<t>/ and tpgt_<t>/attrib/).
 */
#ifndef TCMX_LOOP_H
#define TCMX_LOOP_H

#include <linux/mutex.h>
#include "tcmx.h"

#define LOOP_MAX_TPGT		32
#define LOOP_NAME_LEN		TCMX_NAME_LEN	/* initiator port, with NUL */
#define LOOP_WWN_HEX		16	/* naa.<16 hex digits> */

/* A WWN: one Scsi_Host. */
struct loop_hba {
	struct tcmx_wwn		wwn;
	struct Scsi_Host	*shost;
	struct mutex		lock;	/* nexuses, tags, tpgs[] */
	u32			tags;	/* TPG tags in use */
};

/* shost_priv(): what the fast path reads. */
struct loop_host {
	/* published while the TPG has an I_T nexus; RCU */
	struct loop_tpg __rcu	*tpgs[LOOP_MAX_TPGT];
};

/*
 * A TPG and its one I_T nexus, registered with the core while nexus.name
 * is not "" (set and cleared under hba->lock).
 */
struct loop_tpg {
	struct tcmx_tpg		tpg;
	struct loop_hba		*hba;
	bool			offline;	/* transport_status */
	struct tcmx_nexus	nexus;
};

static inline struct loop_hba *to_loop_hba(struct tcmx_wwn *wwn)
{
	return container_of(wwn, struct loop_hba, wwn);
}

static inline struct loop_tpg *to_loop_tpg(struct tcmx_tpg *tpg)
{
	return container_of(tpg, struct loop_tpg, tpg);
}

/*
 * The port names tcm_loop takes, by their prefix: "naa." (a SAS address:
 * 16 hex digits for the target, 16 or 32 for the initiator), "fc." (16 hex
 * digits) or "iqn." (an iSCSI name: printable, no blanks).  A nexus must
 * use its WWN's kind, as in-tree.
 */
enum loop_kind { LOOP_BAD, LOOP_NAA, LOOP_FC, LOOP_IQN };

enum loop_kind loop_port_kind(const char *name, size_t len, bool target);
/* Caller holds hba->lock.  Set / drop the TPG's I_T nexus. */
int loop_add_nexus(struct loop_tpg *lt, const char *name);
int loop_drop_nexus(struct loop_tpg *lt);

/* loop_cfs.c: the fabric's tpg_attrs and tpg_attrib_attrs */
extern struct configfs_attribute *loop_tpg_attrs[];
extern struct configfs_attribute *loop_tpg_attrib_attrs[];

#endif /* TCMX_LOOP_H */
