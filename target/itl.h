/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The I_T_L nexus state (struct tcmx_itl, tcmx_core.h) beyond making and
 * ending it: pins (itl.c) and the one walk for unit attentions (ua.c).
 *
 * A command that outlives its RCU section (one a backend defers, EXTENDED
 * COPY's access through another LUN of its nexus) pins the I_T_L nexus it
 * runs on: itl->deferred counts those, which PREEMPT AND ABORT waits for,
 * and each holds one of itl->ref (the map entry holds one, and so does a
 * PREEMPT AND ABORT waiting; the last frees it a grace period later).
 * tcmx_itl_pin(): the I_T_L nexus of entry @id of @n (LUN @lun), pinned,
 * NULL if the entry is gone (a command racing its unmapping: the nexus
 * is going); any context.  tcmx_itl_unpin() (@itl NULL: nothing), any
 * context.  tcmx_itl_get() on one of a device's itls (pr_mutex), and
 * tcmx_itl_put().  tcmx_itl_del() of a registered one leaves it on its
 * device's list until its pins are done, so that a PREEMPT AND ABORT sees
 * them while they run: in tcmx_wq, not under tcmx_cfs_mutex (its nexus's
 * deferred count and a reference to its LUN wait for that end).
 */
#ifndef TCMX_ITL_H
#define TCMX_ITL_H

#include "tcmx_core.h"

struct tcmx_itl *tcmx_itl_pin(struct tcmx_nexus *n, u64 id,
			      struct tcmx_lun *lun);
void tcmx_itl_unpin(struct tcmx_itl *itl);
void tcmx_itl_get(struct tcmx_itl *itl);
void tcmx_itl_put(struct tcmx_itl *itl);

/*
 * ua.c: the one walk of @dev's I_T_L nexuses for unit attentions: @code
 * (TCMX_SENSE_NO_SENSE: drop what is pending) on each that @match, given
 * @arg, says (under tcmx_itl_lock, interrupts off: no name compares)
 */
typedef bool (*tcmx_itl_match_fn)(const struct tcmx_itl *itl,
				  const void *arg);
void tcmx_ua_each(struct tcmx_dev *dev, tcmx_itl_match_fn match,
		  const void *arg, enum tcmx_sense code);

#endif /* TCMX_ITL_H */
