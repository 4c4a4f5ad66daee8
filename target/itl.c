// SPDX-License-Identifier: GPL-2.0
/*
 * The life of an I_T_L nexus's state (struct tcmx_itl): made with each
 * entry of an I_T nexus's map before acl.c publishes it, ended once it is
 * unpublished, freed a grace period later (the gate may still read it in
 * a command that found the entry before).  pr.c puts it on and takes it
 * off its device's list, under the PR lock, so that no change of the
 * registrations misses it; ua.c keeps its unit attentions.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include "tcmx_core.h"

struct tcmx_itl *tcmx_itl_add(struct tcmx_nexus *n, u64 id,
			      struct tcmx_lun *lun)
{
	struct tcmx_itl *itl;

	itl = kzalloc(sizeof(*itl), GFP_KERNEL);
	if (!itl)
		return NULL;
	itl->nexus = n;
	itl->lun = lun;
	itl->dev = lun->dev;
	itl->id = id;
	/* no command finds it before acl.c publishes the map entry */
	if (xa_err(xa_store(&n->itls, id, itl, GFP_KERNEL))) {
		kfree(itl);
		return NULL;
	}
	/* onto the device's list, with POWER ON and its registration */
	tcmx_pr_itl_new(itl);
	return itl;
}

void tcmx_itl_del(struct tcmx_nexus *n, u64 id)
{
	struct tcmx_itl *itl = xa_erase(&n->itls, id);

	if (!itl)
		return;
	/* off the list, its unit attentions dropped: an I_T nexus loss */
	tcmx_pr_itl_gone(itl);
	kfree_rcu(itl, rcu);
}
