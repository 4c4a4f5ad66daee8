// SPDX-License-Identifier: GPL-2.0
/*
 * The life of an I_T_L nexus's state (struct tcmx_itl): made with each
 * entry of an I_T nexus's map before acl.c publishes it, ended once it is
 * unpublished (a registered one once its pinned commands are done, in
 * tcmx_wq), freed a grace period after its last reference goes (the
 * gate may still read it in a command that found the entry before).  pr.c
 * puts it on and takes it off its device's list, under the PR lock, so
 * that no change of the registrations misses it; ua.c keeps its unit
 * attentions.
 *
 * A command that outlives its RCU section (deferred, or EXTENDED COPY's
 * access through another LUN of its nexus) pins its I_T_L nexus: a
 * reference and a count, so that PREEMPT AND ABORT waits for the
 * preempted I_T_L nexuses' commands and for no other.  That is on a
 * deferred command's path only: a lookup in the nexus's xarray and two
 * atomics each way.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include "itl.h"

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
	atomic_set(&itl->deferred, 0);
	refcount_set(&itl->ref, 1);		/* the map entry's */
	/*
	 * One of the entry still ending (tcmx_itl_end_work()): the commands
	 * that found its map entry pin it, not this one, before it is
	 * replaced here.  Only when a number is mapped again that soon.
	 */
	if (xa_load(&n->itls, id))
		synchronize_rcu();
	/* no command finds it before acl.c publishes the map entry */
	if (xa_err(xa_store(&n->itls, id, itl, GFP_KERNEL))) {
		kfree(itl);
		return NULL;
	}
	/* onto the device's list, with POWER ON and its registration */
	tcmx_pr_itl_new(itl);
	return itl;
}

/*
 * Off its device's list (an I_T nexus loss) and its nexus's itls, unless
 * another I_T_L nexus took its entry there since, with the map entry's
 * reference.
 */
static void tcmx_itl_end(struct tcmx_itl *itl)
{
	tcmx_pr_itl_gone(itl);
	xa_cmpxchg(&itl->nexus->itls, itl->id, itl, NULL, GFP_KERNEL);
	tcmx_itl_put(itl);
}

/*
 * The end of a registered I_T_L nexus, in tcmx_wq: it can be preempted
 * until it is off its device's list, so PREEMPT AND ABORT must see its
 * commands there until they are done.  Those that found its map entry
 * before it was unpublished have pinned it a grace period later (it is
 * still in n->itls), then finish.  Its nexus (n->deferred) and LUN (a
 * reference) wait for this end, without tcmx_cfs_mutex: neither goes
 * while the I_T_L nexus is on the list.
 */
static void tcmx_itl_end_work(struct work_struct *work)
{
	struct tcmx_itl *itl = container_of(work, struct tcmx_itl, end_work);
	struct tcmx_nexus *n = itl->nexus;
	struct tcmx_lun *lun = itl->lun;

	synchronize_rcu();
	wait_var_event(&itl->deferred, !atomic_read(&itl->deferred));
	tcmx_itl_end(itl);
	percpu_ref_put(&lun->ref);
	/* the last touch of the nexus: it may go from here on */
	if (atomic_dec_and_test(&n->deferred))
		wake_up_var(&n->deferred);
}

void tcmx_itl_del(struct tcmx_nexus *n, u64 id)
{
	struct tcmx_itl *itl = xa_load(&n->itls, id);

	if (!itl)
		return;
	tcmx_pr_itl_lost(itl);
	if (!READ_ONCE(itl->pr_reg)) {
		tcmx_itl_end(itl);
		return;
	}
	percpu_ref_get(&itl->lun->ref);
	atomic_inc(&n->deferred);
	INIT_WORK(&itl->end_work, tcmx_itl_end_work);
	queue_work(tcmx_wq, &itl->end_work);
}

void tcmx_itl_get(struct tcmx_itl *itl)
{
	refcount_inc(&itl->ref);
}

void tcmx_itl_put(struct tcmx_itl *itl)
{
	if (refcount_dec_and_test(&itl->ref))
		kfree_rcu(itl, rcu);
}

/*
 * Found under RCU, the I_T_L nexus is not freed yet; its map entry's
 * reference may be gone already: then it is not pinned.
 */
struct tcmx_itl *tcmx_itl_pin(struct tcmx_nexus *n, u64 id,
			      struct tcmx_lun *lun)
{
	struct tcmx_itl *itl;

	rcu_read_lock();
	itl = xa_load(&n->itls, id);
	if (itl && (itl->lun != lun || !refcount_inc_not_zero(&itl->ref)))
		itl = NULL;
	rcu_read_unlock();
	if (itl)
		atomic_inc(&itl->deferred);
	return itl;
}

void tcmx_itl_unpin(struct tcmx_itl *itl)
{
	if (!itl)
		return;
	if (atomic_dec_and_test(&itl->deferred))
		wake_up_var(&itl->deferred);
	tcmx_itl_put(itl);
}
