// SPDX-License-Identifier: GPL-2.0
/*
 * tcmx_rd, the slow path: a device's life cycle (alloc, enable, free) and
 * its configuration, the "control" tokens rd_pages, rd_nullio, rd_dummy,
 * rd_overcommit and the "info" text; the resume_delay_ms knob.  (The
 * core's inject/ programs a device's faults and delays.)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "rd.h"

#define RD_INFO_MAX		256	/* show_params() output bound */

#define RD_DELAY_MS_MAX		60000

/*
 * Test knob: resume_delay_ms makes the worker of a deferred write sleep that
 * long before it goes on, so that a test can run another command between a
 * write's inline part and its rest (tests/test_atomicity.py).  Only the
 * worker reads it: 0 (the default) costs the fast path nothing.
 */
unsigned int resume_delay_ms;

static int rd_set_resume_delay_ms(const char *val,
				  const struct kernel_param *kp)
{
	unsigned int ms;

	if (kstrtouint(val, 10, &ms) || ms > RD_DELAY_MS_MAX) {
		pr_warn("resume_delay_ms=%.*s: must be 0 to %u\n",
			(int)strcspn(val, "\n"), val, RD_DELAY_MS_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(resume_delay_ms, ms);
	return 0;
}

static const struct kernel_param_ops rd_resume_delay_ms_ops = {
	.set	= rd_set_resume_delay_ms,
	.get	= param_get_uint,
};
module_param_cb(resume_delay_ms, &rd_resume_delay_ms_ops, &resume_delay_ms,
		0644);
MODULE_PARM_DESC(resume_delay_ms,
		 "Test knob: the worker of a deferred write sleeps this long (ms, 0-60000) before it goes on (default 0)");

int rd_alloc_dev(struct tcmx_dev *dev)
{
	struct rd_dev *rd = kzalloc(sizeof(*rd), GFP_KERNEL);

	if (!rd)
		return -ENOMEM;
	rd->dev = dev;
	atomic_long_set(&rd->pages_used, 0);
	atomic_long_set(&rd->leaves_used, 0);
	atomic_long_set(&rd->alloc_failed, 0);
	dev->priv = rd;
	return 0;
}

static void rd_free_table(struct rd_dev *rd)
{
	unsigned long i, j;

	if (!rd->leaves)
		return;
	for (i = 0; i < rd->nr_leaves; i++) {
		struct rd_leaf *leaf = rd->leaves[i];

		if (!leaf)
			continue;
		for (j = 0; j < RD_LEAF_PAGES; j++)
			if (leaf->pages[j])
				__free_page(leaf->pages[j]);
		free_page((unsigned long)leaf);
		cond_resched();
	}
	kvfree(rd->leaves);
	rd->leaves = NULL;
}

void rd_free_dev(struct tcmx_dev *dev)
{
	struct rd_dev *rd = dev->priv;

	if (!rd)
		return;
	/* deferred writes have completed; let their workers return */
	flush_workqueue(rd_wq);
	pr_debug("rd_mcp_%u/%s: freeing %ld pages, %ld leaves; %ld failed allocations\n",
		 dev->hba->id, tcmx_dev_name(dev),
		 atomic_long_read(&rd->pages_used),
		 atomic_long_read(&rd->leaves_used),
		 atomic_long_read(&rd->alloc_failed));
	rd_free_table(rd);
	kfree(rd);
	dev->priv = NULL;
}

/* "<0|1>" */
static int rd_parse_bool(const char *val, bool *res)
{
	int v;

	if (kstrtoint(val, 0, &v) || (v != 0 && v != 1))
		return -EINVAL;
	*res = v;
	return 0;
}

/* One "key=value" token into @p; 1 if the key is unknown. */
static int rd_parse_token(struct rd_dev *rd, struct rd_params *p, char *tok)
{
	char *val = strchr(tok, '=');
	int ret;

	if (val)
		*val++ = '\0';
	if (!strcmp(tok, "rd_pages")) {
		if (!val || kstrtoint(val, 0, &p->pages) || p->pages < 1) {
			pr_err("rd_mcp_%u/%s: rd_pages needs an integer from 1 to %d\n",
			       rd->dev->hba->id, tcmx_dev_name(rd->dev),
			       INT_MAX);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(tok, "rd_nullio"))
		ret = val ? rd_parse_bool(val, &p->nullio) : -EINVAL;
	else if (!strcmp(tok, "rd_dummy"))
		ret = val ? rd_parse_bool(val, &p->dummy) : -EINVAL;
	else if (!strcmp(tok, "rd_overcommit"))
		ret = val ? rd_parse_bool(val, &p->overcommit) : -EINVAL;
	else
		return 1;
	if (ret)
		pr_err("rd_mcp_%u/%s: %s needs 0 or 1\n", rd->dev->hba->id,
		       tcmx_dev_name(rd->dev), tok);
	return ret;
}

/*
 * "control": tokens separated by ',' or '\n'.  All or nothing: the device
 * is changed only if every token is valid.  Unknown tokens are ignored, as
 * in-tree, with one warning per write.
 */
ssize_t rd_set_params(struct tcmx_dev *dev, const char *buf,
			     size_t count)
{
	struct rd_dev *rd = dev->priv;
	struct rd_params p = rd->p;
	char *opts, *next, *tok, *unknown = NULL;
	int nr_unknown = 0;
	ssize_t ret = count;

	opts = kstrndup(buf, count, GFP_KERNEL);
	if (!opts)
		return -ENOMEM;

	next = opts;
	while ((tok = strsep(&next, ",\n"))) {
		int r;

		tok = strim(tok);
		if (!*tok)
			continue;
		r = rd_parse_token(rd, &p, tok);
		if (r < 0) {
			ret = r;
			goto out;
		}
		if (r > 0 && !nr_unknown++)
			unknown = tok;
	}

	if (rd->enabled && (p.pages != rd->p.pages ||
			    p.nullio != rd->p.nullio ||
			    p.overcommit != rd->p.overcommit)) {
		pr_err("rd_mcp_%u/%s: rd_pages, rd_nullio and rd_overcommit cannot change once the device is enabled\n",
		       dev->hba->id, tcmx_dev_name(dev));
		ret = -EBUSY;
		goto out;
	}
	rd->p = p;
	if (nr_unknown)
		pr_warn("rd_mcp_%u/%s: ignoring unknown control token '%.64s'%s\n",
			dev->hba->id, tcmx_dev_name(dev), unknown,
			nr_unknown > 1 ? " and others" : "");
out:
	kfree(opts);
	return ret;
}

ssize_t rd_show_params(struct tcmx_dev *dev, char *buf)
{
	struct rd_dev *rd = dev->priv;

	return scnprintf(buf, RD_INFO_MAX,
			 "TCM RamDisk ID: %u  RamDisk Makeup: rd_mcp\n"
			 "        PAGES/PAGE_SIZE: %d*%lu  SG_table_count: %lu  nullio: %d dummy: %d\n"
			 "        Pages used: %ld  Leaves used: %ld\n",
			 dev->hba->id, rd->p.pages, PAGE_SIZE, rd->nr_leaves,
			 rd->p.nullio, rd->p.dummy,
			 atomic_long_read(&rd->pages_used),
			 atomic_long_read(&rd->leaves_used));
}

int rd_enable(struct tcmx_dev *dev)
{
	struct rd_dev *rd = dev->priv;
	unsigned long pages = rd->p.pages;

	if (rd->enabled)
		goto out;
	if (!pages) {
		pr_err("rd_mcp_%u/%s: cannot enable: write rd_pages=<N> to control first\n",
		       dev->hba->id, tcmx_dev_name(dev));
		return -EINVAL;
	}
	if (!rd->p.nullio) {
		if (pages > totalram_pages() && !rd->p.overcommit) {
			pr_err("rd_mcp_%u/%s: %lu pages exceed the machine's %lu pages of RAM; write rd_overcommit=1 to control to allow it\n",
			       dev->hba->id, tcmx_dev_name(dev), pages,
			       totalram_pages());
			return -ENOMEM;
		}
		rd->nr_leaves = DIV_ROUND_UP(pages, RD_LEAF_PAGES);
		rd->leaves = kvcalloc(rd->nr_leaves, sizeof(*rd->leaves),
				      GFP_KERNEL | __GFP_NOWARN);
		if (!rd->leaves) {
			pr_err("rd_mcp_%u/%s: no memory for a page table of %lu entries\n",
			       dev->hba->id, tcmx_dev_name(dev), rd->nr_leaves);
			rd->nr_leaves = 0;
			return -ENOMEM;
		}
	}
	rd->size = (u64)pages << PAGE_SHIFT;
	rd->enabled = true;
out:
	dev->size_bytes = rd->size;
	dev->execute_rw = rd->p.nullio ? rd_execute_null : rd_execute_data;
	return 0;
}
