/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics of a mapped LUN (stats.c): what struct tcmx_mapped_lun
 * (tcmx_core.h) holds for acls/<initiator>/lun_<m>/statistics/.
 */
#ifndef TCMX_STATS_H
#define TCMX_STATS_H

#include "tcmx.h"

struct tcmx_mapped_lun;

/*
 * statistics/ with scsi_auth_intr/ and scsi_att_intr_port/, and the
 * per-CPU counters of the commands that reached the LUN through the
 * mapping (mapped numbers below TCMX_LUN_MAP; the fast path counts them,
 * submit.c), restarted with created when its symlink is made, as
 * in-tree.
 */
struct tcmx_mapped_stats {
	struct config_group		group;
	struct config_group		table[2];
	struct tcmx_stats __percpu	*counters;
	u64				created;	/* jiffies64 */
};

/* mkdir lun_<m>: its statistics/ and counters; 0 or -ENOMEM */
int tcmx_stats_mapped_init(struct tcmx_mapped_lun *m);
/* tcmx_cfs_mutex held, its symlink being made: counters from 0 */
void tcmx_stats_mapped_restart(struct tcmx_mapped_lun *m);

#endif
