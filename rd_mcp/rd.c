// SPDX-License-Identifier: GPL-2.0
/*
 * tcmx_rd: the rd_mcp ramdisk backstore.
 *
 * Memory is taken only for data actually written.  A device is a two-level
 * table: a top array, allocated at enable, with one pointer per leaf; a leaf
 * is one page of struct page pointers (512 on 64-bit, 2 MiB of data).  Leaves
 * and data pages are allocated on first write, filled, then published with
 * cmpxchg(); a racing writer that loses frees its copy.  Readers load the
 * pointers with acquire semantics and read holes as zeroes.
 *
 * Thin provisioning (UNMAP, WRITE SAME with UNMAP, FORMAT UNIT, SANITIZE)
 * gives data pages back: rd_unmap() unpublishes a page with xchg() and
 * frees it only after an RCU grace period.  Every access to a published
 * page runs inside an RCU read-side section: the fast path in the fabric's
 * (held around tcmx_submit_cmd()), the deferred write worker and the block
 * ops in their own.  So the fast path still takes no lock.  Leaves are
 * never unpublished before free_dev().
 *
 * The fast path may run in atomic context: it allocates with GFP_NOWAIT and,
 * if that fails, hands the command to a worker that may reclaim (but never
 * invokes the OOM killer).  Below a floor of available memory, writes that
 * need new pages fail with SPACE ALLOCATION FAILED instead of pushing the
 * machine into OOM.
 *
 * A device's life cycle and its "control" and "info" are rd_config.c's;
 * rd.h is what the two files share.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>
#include "rd.h"

/*
 * Largest command in blocks: 4 MiB at 512-byte blocks, 32 MiB at 4 KiB.
 * Far above what the Linux initiator sends by default (max_sectors_kb 1280),
 * so it never limits throughput, but it bounds the copy one command does in
 * atomic context and the memory one deferred write can allocate.
 */
#define RD_MAX_SECTORS		8192
#define RD_QUEUE_DEPTH		128

static unsigned int min_avail_pct = 3;
module_param(min_avail_pct, uint, 0444);
MODULE_PARM_DESC(min_avail_pct,
		 "Fail writes that need new ramdisk pages with SPACE ALLOCATION FAILED once available memory drops below this percentage of RAM (1-50, default 3)");

static bool alloc_in_worker;
module_param(alloc_in_worker, bool, 0644);
MODULE_PARM_DESC(alloc_in_worker,
		 "Allocate every new ramdisk page in a worker that may sleep, not inline without sleeping (default 0: only when an inline allocation fails)");

static unsigned long rd_floor_pages;	/* min_avail_pct of RAM, in pages */
struct workqueue_struct *rd_wq;

/* ---------------------------------------------------------------------- */
/* Copying between a command's scatterlist and ramdisk memory.             */

struct rd_sg_pos {
	struct scatterlist	*sg;
	unsigned int		off;	/* bytes consumed in *sg */
};

enum rd_xfer {
	RD_TO_SG,	/* read: ramdisk -> initiator buffer */
	RD_ZERO_SG,	/* read of a hole */
	RD_FROM_SG,	/* write: initiator buffer -> ramdisk */
	RD_SKIP_SG,	/* a resumed write: past the bytes already written */
};

/*
 * Move up to @n bytes at @buf to or from @sg at @off, within one page of
 * the scatterlist; returns how many it moved.
 */
static size_t rd_sg_copy(struct scatterlist *sg, unsigned int off, void *buf,
			 size_t n, enum rd_xfer dir)
{
	size_t at = sg->offset + off;
	struct page *pg = nth_page(sg_page(sg), at >> PAGE_SHIFT);
	void *va;

	at = offset_in_page(at);
	n = min_t(size_t, n, PAGE_SIZE - at);
	va = kmap_local_page(pg);
	if (dir == RD_FROM_SG)
		memcpy(buf, va + at, n);
	else if (dir == RD_TO_SG)
		memcpy(va + at, buf, n);
	else
		memset(va + at, 0, n);
	if (dir != RD_FROM_SG)
		flush_dcache_page(pg);
	kunmap_local(va);
	return n;
}

/*
 * Walk @len bytes of the scatterlist from @pos, moving them to or from
 * @buf (NULL for RD_ZERO_SG and RD_SKIP_SG); false if it is shorter.
 */
static bool rd_sg_xfer(struct rd_sg_pos *pos, void *buf, size_t len,
		       enum rd_xfer dir)
{
	while (len) {
		struct scatterlist *sg = pos->sg;
		size_t n;

		if (unlikely(!sg))
			return false;
		n = min_t(size_t, len, sg->length - pos->off);
		if (dir != RD_SKIP_SG)
			n = rd_sg_copy(sg, pos->off, buf, n, dir);
		if (buf)
			buf += n;
		len -= n;
		pos->off += n;
		if (pos->off >= sg->length) {
			pos->sg = sg_next(sg);
			pos->off = 0;
		}
	}
	return true;
}

/* ---------------------------------------------------------------------- */
/* The page table.                                                        */

/*
 * The acquire loads pair with the cmpxchg() that published the leaf or
 * page: its contents (zeroes, data) are visible before the pointer.
 */
static struct page *rd_lookup(struct rd_dev *rd, pgoff_t idx)
{
	struct rd_leaf *leaf;

	/* pairs with cmpxchg() in rd_slot() */
	leaf = smp_load_acquire(&rd->leaves[idx >> RD_LEAF_SHIFT]);
	if (!leaf)
		return NULL;
	/* pairs with cmpxchg() in rd_write_new() */
	return smp_load_acquire(&leaf->pages[idx & RD_LEAF_MASK]);
}

/* The slot for page @idx, allocating its leaf if needed; NULL: no memory. */
static struct page **rd_slot(struct rd_dev *rd, pgoff_t idx, gfp_t gfp)
{
	struct rd_leaf **lp = &rd->leaves[idx >> RD_LEAF_SHIFT];
	struct rd_leaf *leaf;

	/* pairs with the cmpxchg() below, on another CPU */
	leaf = smp_load_acquire(lp);
	if (!leaf) {
		struct rd_leaf *new;

		new = (struct rd_leaf *)__get_free_page(gfp | __GFP_ZERO);
		if (!new)
			return NULL;
		leaf = cmpxchg(lp, NULL, new);
		if (leaf) {
			free_page((unsigned long)new);
		} else {
			leaf = new;
			atomic_long_inc(&rd->leaves_used);
		}
	}
	return &leaf->pages[idx & RD_LEAF_MASK];
}

/*
 * Cheap on the common path: one global counter read while free memory is
 * plentiful; si_mem_available() (reclaimable memory included) only near the
 * floor.
 */
static bool rd_memory_low(void)
{
	if (global_zone_page_state(NR_FREE_PAGES) > 2 * rd_floor_pages)
		return false;
	return si_mem_available() < (long)rd_floor_pages;
}

static enum tcmx_status rd_space_failed(struct rd_dev *rd,
				       struct tcmx_cmd *cmd)
{
	atomic_long_inc(&rd->alloc_failed);
	pr_warn_ratelimited("rd_mcp_%u/%s: no memory for new ramdisk pages (available memory below %u%% of RAM or allocation failed): WRITE fails with SPACE ALLOCATION FAILED\n",
			    rd->dev->hba->id, tcmx_dev_name(rd->dev),
			    min_avail_pct);
	return tcmx_sense(cmd, TCMX_SENSE_SPACE_ALLOC_FAILED);
}

/* The core sized the buffer; a shorter scatterlist is a fabric's bug. */
static enum tcmx_status rd_short_sgl(struct rd_dev *rd, struct tcmx_cmd *cmd)
{
	pr_warn_ratelimited("rd_mcp_%u/%s: data buffer shorter than the command\n",
			    rd->dev->hba->id, tcmx_dev_name(rd->dev));
	return tcmx_sense(cmd, TCMX_SENSE_INTERNAL_ERROR);
}

/* A page for @idx, zeroed unless all of it is written, and its slot. */
static struct page *rd_new_page(struct rd_dev *rd, pgoff_t idx, unsigned int n,
				gfp_t gfp, struct page ***slot)
{
	*slot = rd_slot(rd, idx, gfp);
	if (!*slot)
		return NULL;
	return alloc_page(n < PAGE_SIZE ? gfp | __GFP_ZERO : gfp);
}

/*
 * The worker entered its RCU section again: from here on it holds the
 * core's write exclusion (*@held) if a COMPARE AND WRITE, ORWRITE or WRITE
 * ATOMIC holds or lately held a range this write overlaps.
 */
static void rd_excl_resume(struct tcmx_cmd *cmd, bool *held)
	__must_hold(RCU)
{
	if (!*held)
		*held = tcmx_excl_resume(cmd->dev, cmd->lba, cmd->nr_blocks);
}

/*
 * First write to page @idx: fill a new page with @n bytes at @off from the
 * scatterlist (zeroes elsewhere) and publish it.  Filling before publishing
 * means a concurrent reader sees zeroes or data, never stale memory.
 *
 * Called inside an RCU read-side section.  In the worker (@held not NULL)
 * the section is left around the sleeping allocations and entered again to
 * touch a published page: the new page is ours until cmpxchg() publishes
 * it, and leaves are never freed while the device exists.
 */
static enum tcmx_status rd_write_new(struct rd_dev *rd, struct tcmx_cmd *cmd,
				     pgoff_t idx, unsigned int off,
				     unsigned int n, struct rd_sg_pos *pos,
				     bool *held)
	__must_hold(RCU)
{
	gfp_t gfp = held ? GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN :
			   GFP_NOWAIT | __GFP_NOWARN;
	struct page **slot, *new, *old = NULL;
	void *va, *ova;
	bool ok;

	if (!held && READ_ONCE(alloc_in_worker))
		return TCMX_DEFERRED;
	if (rd_memory_low())
		return rd_space_failed(rd, cmd);
	if (held) {
		rcu_read_unlock();
		new = rd_new_page(rd, idx, n, gfp, &slot);
		rcu_read_lock();
		rd_excl_resume(cmd, held);
	} else {
		new = rd_new_page(rd, idx, n, gfp, &slot);
	}
	if (!new)
		return held ? rd_space_failed(rd, cmd) : TCMX_DEFERRED;

	va = kmap_local_page(new);
	ok = rd_sg_xfer(pos, va + off, n, RD_FROM_SG);
	if (ok) {
		old = cmpxchg(slot, NULL, new);
		if (old) {
			/* lost the race: our data goes into the winner's page */
			ova = kmap_local_page(old);
			memcpy(ova + off, va + off, n);
			kunmap_local(ova);
		}
	}
	kunmap_local(va);

	if (!ok || old)
		__free_page(new);
	else
		atomic_long_inc(&rd->pages_used);
	return ok ? TCMX_GOOD : rd_short_sgl(rd, cmd);
}

/*
 * The core has checked range, length and direction against the command
 * table and the capacity; these only move the blocks.  Reads of holes
 * return zeroes.
 */
static enum tcmx_status rd_read(struct rd_dev *rd, struct tcmx_cmd *cmd)
{
	struct rd_sg_pos pos = { .sg = cmd->sgl };
	u64 at = cmd->lba << cmd->dev->block_shift;
	u64 len = cmd->xfer_len;

	while (len) {
		pgoff_t idx = at >> PAGE_SHIFT;
		unsigned int off = offset_in_page(at);
		unsigned int n = min_t(u64, len, PAGE_SIZE - off);
		struct page *page = rd_lookup(rd, idx);
		bool ok;
		void *va;

		if (page) {
			va = kmap_local_page(page);
			ok = rd_sg_xfer(&pos, va + off, n, RD_TO_SG);
			kunmap_local(va);
		} else {
			ok = rd_sg_xfer(&pos, NULL, n, RD_ZERO_SG);
		}
		if (unlikely(!ok)) {
			/* the residual: what was not moved */
			cmd->xfer_len -= len;
			return rd_short_sgl(rd, cmd);
		}
		at += n;
		len -= n;
	}
	return TCMX_GOOD;
}

/*
 * Inline (@held NULL), a write that meets a page it cannot allocate
 * without sleeping stops there and defers: cmd->resume says how many bytes
 * it wrote, and the worker (@held: whether it holds the core's write
 * exclusion) goes on from there.  Never again from the start: a COMPARE
 * AND WRITE may have replaced those bytes meanwhile.  Runs inside an RCU
 * read-side section (the fabric's, or the worker's own).
 */
static enum tcmx_status rd_write(struct rd_dev *rd, struct tcmx_cmd *cmd,
				 bool *held)
	__must_hold(RCU)
{
	struct rd_sg_pos pos = { .sg = cmd->sgl };
	u32 done = held ? cmd->resume : 0;
	u64 at = (cmd->lba << cmd->dev->block_shift) + done;
	u64 len = cmd->xfer_len - done;
	enum tcmx_status status;

	if (unlikely(done) && !rd_sg_xfer(&pos, NULL, done, RD_SKIP_SG))
		return rd_short_sgl(rd, cmd);

	while (len) {
		pgoff_t idx = at >> PAGE_SHIFT;
		unsigned int off = offset_in_page(at);
		unsigned int n = min_t(u64, len, PAGE_SIZE - off);
		struct page *page = rd_lookup(rd, idx);
		void *va;

		if (page) {
			va = kmap_local_page(page);
			status = rd_sg_xfer(&pos, va + off, n, RD_FROM_SG) ?
				 TCMX_GOOD : rd_short_sgl(rd, cmd);
			kunmap_local(va);
		} else {
			status = rd_write_new(rd, cmd, idx, off, n, &pos,
					      held);
		}
		if (unlikely(status != TCMX_GOOD)) {
			/* failed: report what was written; deferred: resumed */
			if (status == TCMX_CHECK)
				cmd->xfer_len -= len;
			else if (status == TCMX_DEFERRED)
				cmd->resume = cmd->xfer_len - len;
			return status;
		}
		at += n;
		len -= n;
		if (held) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
			rd_excl_resume(cmd, held);
		}
	}
	return TCMX_GOOD;
}

/*
 * The rest of a deferred write.  Its allocations do no I/O: reclaim could
 * otherwise write to this very device (swap, a file system on it).
 */
static void rd_rw_work(struct work_struct *work)
{
	struct tcmx_cmd *cmd = container_of(work, struct tcmx_cmd, work);
	unsigned int noio = memalloc_noio_save();
	unsigned int delay = READ_ONCE(resume_delay_ms);
	enum tcmx_status status;
	bool held = false;

	if (delay)
		msleep(delay);
	/*
	 * Published pages are freed only after a grace period: see
	 * rd_unmap().  This write passed the core's gate before it was
	 * queued: a COMPARE AND WRITE may have taken its blocks since.
	 */
	rcu_read_lock();
	rd_excl_resume(cmd, &held);
	status = rd_write(cmd->dev->priv, cmd, &held);
	rcu_read_unlock();
	if (held)
		tcmx_excl_unlock(cmd->dev);
	/* nothing of the device may be touched once the command completes */
	tcmx_complete_cmd(cmd, status);
	memalloc_noio_restore(noio);
}

/* The fast path of a device with memory behind it. */
enum tcmx_status rd_execute_data(struct tcmx_cmd *cmd)
{
	struct rd_dev *rd = cmd->dev->priv;
	enum tcmx_status status;

	if (cmd->data_dir == DMA_FROM_DEVICE)
		return rd_read(rd, cmd);
	status = rd_write(rd, cmd, NULL);
	if (likely(status != TCMX_DEFERRED))
		return status;
	tcmx_cmd_pin(cmd);
	INIT_WORK(&cmd->work, rd_rw_work);
	queue_work(rd_wq, &cmd->work);
	return TCMX_DEFERRED;
}

/* rd_nullio=1: no memory, reads return whatever the buffer held */
enum tcmx_status rd_execute_null(struct tcmx_cmd *cmd)
{
	return TCMX_GOOD;
}

/* ---------------------------------------------------------------------- */
/* Block ops for the core's emulated commands: process context.           */

/*
 * Each visits the pages of @nr blocks at @lba: @fn gets the page index, the
 * offset and length in the page and the position in the caller's buffer.
 * Blocks are a power of two no larger than a page, so a block never spans
 * two pages and a reader never sees half of a block's update by one call.
 */
static int rd_read_blocks(struct tcmx_dev *dev, u64 lba, u32 nr, void *buf)
{
	struct rd_dev *rd = dev->priv;
	u64 at = lba << dev->block_shift;
	u64 len = (u64)nr << dev->block_shift;

	if (!rd->leaves) {		/* nullio */
		memset(buf, 0, len);
		return 0;
	}
	while (len) {
		unsigned int off = offset_in_page(at);
		unsigned int n = min_t(u64, len, PAGE_SIZE - off);
		struct page *page;

		rcu_read_lock();
		page = rd_lookup(rd, at >> PAGE_SHIFT);
		if (page)
			memcpy_from_page(buf, page, off, n);
		else
			memset(buf, 0, n);
		rcu_read_unlock();
		buf += n;
		at += n;
		len -= n;
		cond_resched();
	}
	return 0;
}

/* A new page for @idx holding @n bytes of @buf at @off, zeroes elsewhere. */
static int rd_write_new_page(struct rd_dev *rd, pgoff_t idx, unsigned int off,
			     unsigned int n, const void *buf)
{
	gfp_t gfp = GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN;
	struct page **slot, *new, *old;

	if (rd_memory_low())
		return -ENOSPC;
	new = rd_new_page(rd, idx, n, gfp, &slot);
	if (!new) {
		atomic_long_inc(&rd->alloc_failed);
		return -ENOSPC;
	}
	memcpy_to_page(new, off, buf, n);
	rcu_read_lock();
	old = cmpxchg(slot, NULL, new);
	if (old)	/* lost the race: write into the winner's page */
		memcpy_to_page(old, off, buf, n);
	rcu_read_unlock();
	if (old)
		__free_page(new);
	else
		atomic_long_inc(&rd->pages_used);
	return 0;
}

static int rd_write_blocks(struct tcmx_dev *dev, u64 lba, u32 nr,
			   const void *buf)
{
	struct rd_dev *rd = dev->priv;
	u64 at = lba << dev->block_shift;
	u64 len = (u64)nr << dev->block_shift;

	if (!rd->leaves)		/* nullio: discarded */
		return 0;
	while (len) {
		pgoff_t idx = at >> PAGE_SHIFT;
		unsigned int off = offset_in_page(at);
		unsigned int n = min_t(u64, len, PAGE_SIZE - off);
		struct page *page;

		rcu_read_lock();
		page = rd_lookup(rd, idx);
		if (page)
			memcpy_to_page(page, off, buf, n);
		rcu_read_unlock();
		if (!page) {
			int ret = rd_write_new_page(rd, idx, off, n, buf);

			if (ret)
				return ret;
		}
		buf += n;
		at += n;
		len -= n;
		cond_resched();
	}
	return 0;
}

/*
 * Deallocate @nr blocks at @lba.  Whole pages are unpublished (xchg() to
 * NULL) and freed after one grace period for the call; the blocks of a
 * page only partly in the range are zeroed in place.
 *
 * The rule that makes freeing safe: every access to a published page runs
 * inside an RCU read-side section that loaded the pointer (the fast path
 * in the fabric's, the write worker and the other block ops in their own),
 * and a page leaves the table before synchronize_rcu(), so no access can
 * still be running when it is freed.  A command racing with UNMAP over the
 * same blocks sees them whole, before or after: blocks never span pages.
 */
static int rd_unmap(struct tcmx_dev *dev, u64 lba, u64 nr)
{
	struct rd_dev *rd = dev->priv;
	u64 at = lba << dev->block_shift;
	u64 end = at + (nr << dev->block_shift);
	LIST_HEAD(dead);
	struct page *page, *tmp;
	long freed = 0;

	if (!rd->leaves)		/* nullio: nothing to free */
		return 0;
	while (at < end) {
		pgoff_t idx = at >> PAGE_SHIFT;
		unsigned int off = offset_in_page(at);
		unsigned int n = min_t(u64, end - at, PAGE_SIZE - off);
		struct rd_leaf *leaf;

		/* pairs with cmpxchg() in rd_slot() */
		leaf = smp_load_acquire(&rd->leaves[idx >> RD_LEAF_SHIFT]);
		if (!leaf) {
			/* a whole leaf of holes */
			at = (u64)(idx + RD_LEAF_PAGES - (idx & RD_LEAF_MASK))
			     << PAGE_SHIFT;
			continue;
		}
		if (n == PAGE_SIZE) {
			page = xchg(&leaf->pages[idx & RD_LEAF_MASK], NULL);
			if (page) {
				list_add(&page->lru, &dead);
				freed++;
			}
		} else {
			rcu_read_lock();
			page = rd_lookup(rd, idx);
			if (page)
				memzero_page(page, off, n);
			rcu_read_unlock();
		}
		at += n;
		if (!(idx & 63))
			cond_resched();
	}
	if (list_empty(&dead))
		return 0;
	atomic_long_sub(freed, &rd->pages_used);
	/* no reader can still hold a pointer to a page on @dead after this */
	synchronize_rcu();
	list_for_each_entry_safe(page, tmp, &dead, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	return 0;
}

/* Mapped or not, by page; how many blocks from @lba share the state. */
static u64 rd_lba_status(struct tcmx_dev *dev, u64 lba, bool *mapped)
{
	struct rd_dev *rd = dev->priv;
	u64 end = dev->nr_blocks << dev->block_shift;
	u64 at = lba << dev->block_shift;
	u64 start = at;
	bool first_state, state;

	if (!rd->leaves) {		/* nullio: nothing is allocated */
		*mapped = false;
		return dev->nr_blocks - lba;
	}
	first_state = rd_lookup(rd, at >> PAGE_SHIFT);
	at = (at & PAGE_MASK) + PAGE_SIZE;
	while (at < end) {
		pgoff_t idx = at >> PAGE_SHIFT;

		/* pairs with cmpxchg() in rd_slot() */
		if (!smp_load_acquire(&rd->leaves[idx >> RD_LEAF_SHIFT])) {
			if (first_state)
				break;
			at += (u64)(RD_LEAF_PAGES - (idx & RD_LEAF_MASK))
			      << PAGE_SHIFT;
			continue;
		}
		state = rd_lookup(rd, idx);
		if (state != first_state)
			break;
		at += PAGE_SIZE;
		if (!(idx & 511))
			cond_resched();
	}
	*mapped = first_state;
	return (min(at, end) - start) >> dev->block_shift;
}

static const struct tcmx_backend_ops rd_ops = {
	.name		= "rd_mcp",
	.owner		= THIS_MODULE,
	.version	= "v5.0",
	.product	= "RAMDISK-MCP",
	.hw_queue_depth	= RD_QUEUE_DEPTH,
	.hw_max_sectors	= RD_MAX_SECTORS,
	.phys_block_size = PAGE_SIZE,
	.alloc_dev	= rd_alloc_dev,
	.free_dev	= rd_free_dev,
	.set_params	= rd_set_params,
	.show_params	= rd_show_params,
	.enable		= rd_enable,
	.read_blocks	= rd_read_blocks,
	.write_blocks	= rd_write_blocks,
	.unmap		= rd_unmap,
	.lba_status	= rd_lba_status,
};

static int __init rd_init(void)
{
	int ret;

	if (min_avail_pct < 1 || min_avail_pct > 50) {
		pr_err("min_avail_pct=%u: must be 1 to 50\n", min_avail_pct);
		return -EINVAL;
	}
	rd_floor_pages = totalram_pages() / 100 * min_avail_pct;

	/*
	 * Unbound: the worker may sit in direct reclaim, which should not
	 * hold up the submitting CPU's bound pool.  Reclaim-safe: writes to
	 * a ramdisk may be what frees memory (swap, writeback).
	 */
	rd_wq = alloc_workqueue("tcmx_rd", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!rd_wq)
		return -ENOMEM;
	ret = tcmx_register_backend(&rd_ops);
	if (ret) {
		pr_err("cannot register the rd_mcp backend: %d\n", ret);
		destroy_workqueue(rd_wq);
	}
	return ret;
}

static void __exit rd_exit(void)
{
	tcmx_unregister_backend(&rd_ops);
	destroy_workqueue(rd_wq);
}

module_init(rd_init);
module_exit(rd_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tcmx rd_mcp ramdisk backstore");
MODULE_VERSION(TCMX_VERSION);
MODULE_ALIAS("tcmx-backend-rd_mcp");
