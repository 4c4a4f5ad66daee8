/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of tcmx_rd share: rd.c (the fast path, the block ops, the
 * page table, the module) and rd_config.c (a device's life cycle and
 * configuration).
 */
#ifndef TCMX_RD_H
#define TCMX_RD_H

#include <linux/mm.h>
#include "tcmx.h"

#define RD_LEAF_PAGES		(PAGE_SIZE / sizeof(struct page *))
#define RD_LEAF_SHIFT		ilog2(RD_LEAF_PAGES)
#define RD_LEAF_MASK		(RD_LEAF_PAGES - 1)

struct rd_leaf {
	struct page *pages[RD_LEAF_PAGES];
};

static_assert(sizeof(struct rd_leaf) == PAGE_SIZE);

/* What user space wrote to "control". */
struct rd_params {
	int	pages;		/* 0: never set */
	bool	nullio;
	bool	dummy;
	bool	overcommit;
};

struct rd_dev {
	/* hot: read-only once enabled */
	struct rd_leaf		**leaves;	/* nr_leaves slots, or NULL */
	u64			size;		/* bytes; 0 until enabled */

	bool			enabled;
	unsigned long		nr_leaves;
	struct rd_params	p;
	struct tcmx_dev		*dev;

	/* written on first touch only; kept off the hot fields' cache line */
	atomic_long_t		pages_used ____cacheline_aligned_in_smp;
	atomic_long_t		leaves_used;
	atomic_long_t		alloc_failed;
};

/* rd.c */
extern struct workqueue_struct *rd_wq;
enum tcmx_status rd_execute_data(struct tcmx_cmd *cmd);
enum tcmx_status rd_execute_null(struct tcmx_cmd *cmd);

/* rd_config.c: a test knob */
extern unsigned int resume_delay_ms;	/* rd_rw_work() */

/* rd_config.c: the backend ops of a device's life cycle */
int rd_alloc_dev(struct tcmx_dev *dev);
void rd_free_dev(struct tcmx_dev *dev);
ssize_t rd_set_params(struct tcmx_dev *dev, const char *buf, size_t count);
ssize_t rd_show_params(struct tcmx_dev *dev, char *buf);
int rd_enable(struct tcmx_dev *dev);

#endif /* TCMX_RD_H */
