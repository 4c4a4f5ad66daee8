/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inject.c, the programmable test disk: a device's inject/ directory, and
 * its state in struct tcmx_core_dev (tcmx_core.h).
 */
#ifndef TCMX_INJECT_H
#define TCMX_INJECT_H

#include <linux/atomic.h>
#include <linux/configfs.h>
#include <linux/mutex.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include "tcmx.h"

/*
 * inject/ (inject.c): what a device's READs and WRITEs are programmed to
 * do.  Each knob is written under mutex and read locklessly by
 * tcmx_inject_rw(), the device's execute_rw while any is set; backend_rw
 * is the backend's own, saved at enable.  delay[0] (reads), delay[1]
 * (writes): MIN in bits 0-31, MAX in 32-63, microseconds.  fault: see
 * inject.c.  The bad block ranges are sorted and disjoint, written under
 * bad_lock and read under bad_seq.
 */
#define TCMX_INJECT_BAD_MAX	64

enum tcmx_inj_kind {
	TCMX_INJ_DELAYED,
	TCMX_INJ_BAD_READ,
	TCMX_INJ_BAD_WRITE,
	TCMX_INJ_BUSY,
	TCMX_INJ_TASK_SET_FULL,
	TCMX_INJ_UA,
	TCMX_INJ_ABORTED,
	TCMX_INJ_STUCK,
	TCMX_INJ_NR,
	TCMX_INJ_BAD_HEAL = TCMX_INJ_NR,	/* traced, not counted */
};

struct tcmx_inject_range {
	u64	start;
	u64	end;		/* inclusive */
};

struct tcmx_inject {
	tcmx_execute_fn			backend_rw;
	struct mutex			mutex;
	u64				delay[2];
	u64				fault;
	atomic_t			fault_seq;
	bool				heal;
	raw_spinlock_t			bad_lock;
	seqcount_raw_spinlock_t		bad_seq;
	unsigned int			nr_bad;
	struct tcmx_inject_range	bad[TCMX_INJECT_BAD_MAX];
	atomic64_t			counts[TCMX_INJ_NR];
};

struct tcmx_core_dev;

/*
 * inject.c: <dev>/inject/ (tcmx_inject_dev_init() at the device's making,
 * tcmx_inject_enable() once its backend set execute_rw); tcmx_inject_rw()
 * is execute_rw while something is programmed; tcmx_inject_excl(), its
 * verdict for a READ or WRITE the write exclusion defers (TCMX_GOOD: go on).
 */
void tcmx_inject_dev_init(struct tcmx_dev *dev);
void tcmx_inject_enable(struct tcmx_dev *dev);
enum tcmx_status tcmx_inject_rw(struct tcmx_cmd *cmd);
enum tcmx_status tcmx_inject_excl(struct tcmx_cmd *cmd);
struct tcmx_core_dev *tcmx_inject_cd(struct config_item *item);

#endif /* TCMX_INJECT_H */
