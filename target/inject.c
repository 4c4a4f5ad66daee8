// SPDX-License-Identifier: GPL-2.0
/*
 * The programmable test disk: <dev>/inject/.
 *
 * A test of what sits above a disk (a file system, dm-multipath, the SCSI
 * error handler) programs, per device and at run time, how its READs and
 * WRITEs behave: a completion delay, bad blocks that answer MEDIUM ERROR,
 * and faults (BUSY, TASK SET FULL, a unit attention, ABORTED COMMAND, or a
 * command that never completes until task management aborts it).
 *
 * Nothing here is on the fast path while nothing is programmed: the
 * device's execute_rw is then its backend's own, and becomes
 * tcmx_inject_rw() only while a knob is set, as execute_rw is chosen at
 * enable.  A command decoded before a change runs the function it was
 * given: tcmx_inject_rw() reads the program again, and the backend's
 * function is the same either way.
 *
 * Inside tcmx_inject_rw(), in order: a fault (the command does no I/O),
 * a bad block in the command's range, the backend's I/O, then the delay:
 * tcmx_complete_cmd() hands the status back from an hrtimer while
 * cmd->delay_us, set before the backend runs, says it is owed (so also
 * for a write the backend deferred).  A READ or WRITE that the write
 * exclusion defers (submit.c) gets the same verdict before it waits.
 * A stuck command is held on sanitize.c's list of held commands, where
 * every abort path finds it.  A delayed one is not: its I/O is done, and
 * a fence (PREEMPT AND ABORT, an unlink) waits for it, as for a disk's
 * slow command; the delay is at most a minute.
 *
 * The bad block list is sorted, its ranges joined when they touch, and read
 * without a lock under a seqcount; its writers (configfs, a healing WRITE)
 * take a raw spinlock, as a WRITE may heal in any context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/random.h>
#include <linux/sysfs.h>
#include "sanitize.h"
#include "trace.h"

#define INJECT_DELAY_MAX	60000000U	/* us: a minute */
#define INJECT_PPM		1000000U
#define INJECT_TEXT_MAX		64

/* fault: N in bits 0-31, "ppm" in bit 32, the KIND in bits 40-47 */
#define FAULT_PPM		BIT_ULL(32)
#define FAULT_KIND_SHIFT	40

static const char *const inject_names[TCMX_INJ_NR + 1] = {
	[TCMX_INJ_DELAYED]		= "delayed",
	[TCMX_INJ_BAD_READ]		= "badblock_read",
	[TCMX_INJ_BAD_WRITE]		= "badblock_write",
	[TCMX_INJ_BUSY]			= "busy",
	[TCMX_INJ_TASK_SET_FULL]	= "task_set_full",
	[TCMX_INJ_UA]			= "ua",
	[TCMX_INJ_ABORTED]		= "aborted",
	[TCMX_INJ_STUCK]		= "stuck",
	[TCMX_INJ_BAD_HEAL]		= "badblock_heal",	/* traced only */
};

static void inject_count(struct tcmx_cmd *cmd, struct tcmx_inject *inj,
			 enum tcmx_inj_kind kind, u32 delay_us)
{
	if (kind < TCMX_INJ_NR)
		atomic64_inc(&inj->counts[kind]);
	trace_inject(cmd, inject_names[kind], delay_us);
}

/* ---- the delay ---------------------------------------------------------- */

static u32 inject_pick_delay(u64 delay)
{
	u32 min = lower_32_bits(delay), max = upper_32_bits(delay);

	if (min >= max)
		return min;
	return min + (u32)(((u64)get_random_u32() * (max - min + 1)) >> 32);
}

/* ---- bad blocks ---------------------------------------------------------- */

/* the first bad block of [@lba, @last], into *@first */
static bool inject_bad_first(struct tcmx_inject *inj, u64 lba, u64 last,
			     u64 *first)
{
	unsigned int seq, i, n;
	bool hit;

	do {
		seq = read_seqcount_begin(&inj->bad_seq);
		hit = false;
		n = min_t(unsigned int, READ_ONCE(inj->nr_bad),
			  TCMX_INJECT_BAD_MAX);
		for (i = 0; i < n; i++) {
			const struct tcmx_inject_range *r = &inj->bad[i];

			if (r->end < lba)
				continue;
			if (r->start <= last) {
				hit = true;
				*first = max(r->start, lba);
			}
			break;
		}
	} while (read_seqcount_retry(&inj->bad_seq, seq));
	return hit;
}

/* the first range that ends at or after @lba - 1 (touches or follows it) */
static unsigned int bad_find(struct tcmx_inject *inj, u64 lba)
{
	unsigned int i;

	for (i = 0; i < inj->nr_bad; i++)
		if (inj->bad[i].end + 1 >= lba)
			break;
	return i;
}

static void bad_move(struct tcmx_inject *inj, unsigned int to,
		     unsigned int from)
{
	memmove(&inj->bad[to], &inj->bad[from],
		(inj->nr_bad - from) * sizeof(inj->bad[0]));
	inj->nr_bad = inj->nr_bad + to - from;
}

/* under bad_lock and bad_seq: add [@s, @e], joined with what it touches */
static int bad_add(struct tcmx_inject *inj, u64 s, u64 e)
{
	unsigned int i = bad_find(inj, s), j = i;

	while (j < inj->nr_bad && inj->bad[j].start <= e + 1)
		j++;
	if (i == j) {
		if (inj->nr_bad == TCMX_INJECT_BAD_MAX)
			return -ENOSPC;
		inj->nr_bad++;
		memmove(&inj->bad[i + 1], &inj->bad[i],
			(inj->nr_bad - 1 - i) * sizeof(inj->bad[0]));
		inj->bad[i].start = s;
		inj->bad[i].end = e;
		return 0;
	}
	inj->bad[i].start = min(s, inj->bad[i].start);
	inj->bad[i].end = max(e, inj->bad[j - 1].end);
	bad_move(inj, i + 1, j);
	return 0;
}

/* under bad_lock and bad_seq: remove [@s, @e]; a range may split in two */
static int bad_remove(struct tcmx_inject *inj, u64 s, u64 e)
{
	unsigned int i = 0, k;

	while (i < inj->nr_bad && inj->bad[i].end < s)
		i++;
	if (i == inj->nr_bad || inj->bad[i].start > e)
		return 0;
	if (inj->bad[i].start < s && inj->bad[i].end > e) {
		if (inj->nr_bad == TCMX_INJECT_BAD_MAX)
			return -ENOSPC;
		inj->nr_bad++;
		memmove(&inj->bad[i + 1], &inj->bad[i],
			(inj->nr_bad - 1 - i) * sizeof(inj->bad[0]));
		inj->bad[i].end = s - 1;
		inj->bad[i + 1].start = e + 1;
		return 0;
	}
	if (inj->bad[i].start < s)
		inj->bad[i++].end = s - 1;
	for (k = i; k < inj->nr_bad && inj->bad[k].end <= e; k++)
		;
	if (k < inj->nr_bad && inj->bad[k].start <= e)
		inj->bad[k].start = e + 1;
	bad_move(inj, i, k);
	return 0;
}

enum bad_op { BAD_ADD, BAD_REMOVE, BAD_CLEAR };

static int bad_change(struct tcmx_inject *inj, enum bad_op op, u64 s, u64 e)
{
	unsigned long flags;
	int ret = 0;

	raw_spin_lock_irqsave(&inj->bad_lock, flags);
	write_seqcount_begin(&inj->bad_seq);
	if (op == BAD_ADD)
		ret = bad_add(inj, s, e);
	else if (op == BAD_REMOVE)
		ret = bad_remove(inj, s, e);
	else
		inj->nr_bad = 0;
	write_seqcount_end(&inj->bad_seq);
	raw_spin_unlock_irqrestore(&inj->bad_lock, flags);
	return ret;
}

static enum tcmx_status inject_badblocks(struct tcmx_cmd *cmd,
					 struct tcmx_inject *inj, bool write)
{
	u64 last = cmd->lba + cmd->nr_blocks - 1, first;

	if (!inject_bad_first(inj, cmd->lba, last, &first))
		return TCMX_GOOD;
	if (!write) {
		cmd->xfer_len = 0;	/* no data with the error */
		inject_count(cmd, inj, TCMX_INJ_BAD_READ, 0);
		return tcmx_sense_info(cmd, TCMX_SENSE_MEDIUM_ERROR_READ,
				       first);
	}
	/* a disk that remaps: the write clears what it covers */
	if (READ_ONCE(inj->heal) &&
	    !bad_change(inj, BAD_REMOVE, cmd->lba, last)) {
		inject_count(cmd, inj, TCMX_INJ_BAD_HEAL, 0);
		return TCMX_GOOD;
	}
	inject_count(cmd, inj, TCMX_INJ_BAD_WRITE, 0);
	cmd->xfer_len = 0;
	return tcmx_sense_info(cmd, TCMX_SENSE_MEDIUM_ERROR_WRITE, first);
}

/* ---- faults ------------------------------------------------------------- */

static bool inject_fault_hits(struct tcmx_inject *inj, u64 fault)
{
	u32 n = lower_32_bits(fault);

	if (fault & FAULT_PPM)
		return (u32)(((u64)get_random_u32() * INJECT_PPM) >> 32) < n;
	return (u32)atomic_inc_return(&inj->fault_seq) % n == 0;
}

static enum tcmx_status inject_fault(struct tcmx_cmd *cmd,
				     struct tcmx_inject *inj,
				     enum tcmx_inj_kind kind)
{
	inject_count(cmd, inj, kind, 0);
	cmd->xfer_len = 0;	/* a faulted command moves nothing */
	switch (kind) {
	case TCMX_INJ_BUSY:
		return TCMX_BUSY;
	case TCMX_INJ_TASK_SET_FULL:
		return TCMX_TASK_SET_FULL;
	case TCMX_INJ_UA:
		return tcmx_sense(cmd, TCMX_SENSE_UA_POWER_ON);
	case TCMX_INJ_ABORTED:
		return tcmx_sense(cmd, TCMX_SENSE_COMMAND_ABORTED);
	default:
		break;
	}
	/* stuck: held until task management or a teardown aborts it */
	tcmx_cmd_pin(cmd);
	if (!tcmx_park_stuck(cmd))
		tcmx_complete_cmd(cmd, tcmx_sense(cmd,
						  TCMX_SENSE_COMMAND_ABORTED));
	return TCMX_DEFERRED;
}

/* ---- the device's execute_rw while something is programmed -------------- */

/*
 * The program's verdict on @cmd, not pinned yet: a status of its own (a
 * fault, a bad block; TCMX_DEFERRED: stuck), or TCMX_GOOD with
 * cmd->delay_us the delay of its completion (0: none).  Set before the
 * backend runs: a write it defers may complete before it returns, and
 * tcmx_complete_cmd() delays it then.
 */
static enum tcmx_status inject_verdict(struct tcmx_cmd *cmd,
				       struct tcmx_inject *inj)
{
	bool write = cmd->desc->dir == DMA_TO_DEVICE;
	u64 fault = READ_ONCE(inj->fault);
	enum tcmx_status status;
	u32 us;

	if (fault && inject_fault_hits(inj, fault))
		return inject_fault(cmd, inj, fault >> FAULT_KIND_SHIFT);
	if (READ_ONCE(inj->nr_bad)) {
		status = inject_badblocks(cmd, inj, write);
		if (status != TCMX_GOOD)
			return status;
	}
	us = inject_pick_delay(READ_ONCE(inj->delay[write]));
	if (us) {
		inject_count(cmd, inj, TCMX_INJ_DELAYED, us);
		cmd->delay_us = us;
	}
	return TCMX_GOOD;
}

enum tcmx_status tcmx_inject_rw(struct tcmx_cmd *cmd)
{
	struct tcmx_inject *inj = &tcmx_core(cmd->dev)->inject;
	enum tcmx_status status;

	/* only from tcmx_submit_cmd(): the command is not pinned yet */
	if (WARN_ON_ONCE(cmd->pinned))
		return inj->backend_rw(cmd);
	status = inject_verdict(cmd, inj);
	if (status != TCMX_GOOD)
		return status;
	status = inj->backend_rw(cmd);
	/* deferred: the command may be complete already, touch nothing */
	if (status == TCMX_DEFERRED || !cmd->delay_us)
		return status;
	/* done inline: handed back cmd->delay_us from now */
	tcmx_cmd_pin(cmd);
	tcmx_complete_cmd(cmd, status);
	return TCMX_DEFERRED;
}

/*
 * A READ or WRITE that the write exclusion sends to tcmx_excl_rw()
 * (submit.c) bypasses execute_rw: the program's verdict, when one is
 * set, comes first there.
 */
enum tcmx_status tcmx_inject_excl(struct tcmx_cmd *cmd)
{
	if (cmd->execute != tcmx_inject_rw)
		return TCMX_GOOD;
	return inject_verdict(cmd, &tcmx_core(cmd->dev)->inject);
}

/* under inj->mutex: the device's execute_rw for its program */
static void inject_update(struct tcmx_core_dev *cd)
{
	struct tcmx_inject *inj = &cd->inject;
	bool on = inj->delay[0] || inj->delay[1] || inj->fault ||
		  READ_ONCE(inj->nr_bad);

	if (inj->backend_rw)
		WRITE_ONCE(cd->dev.execute_rw,
			   on ? tcmx_inject_rw : inj->backend_rw);
}

/* device.c, once the backend has set execute_rw at enable */
void tcmx_inject_enable(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	mutex_lock(&cd->inject.mutex);
	cd->inject.backend_rw = dev->execute_rw;
	inject_update(cd);
	mutex_unlock(&cd->inject.mutex);
}

/* ---- configfs ----------------------------------------------------------- */

struct tcmx_core_dev *tcmx_inject_cd(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_core_dev,
			    inject_group);
}

/*
 * A write's text, without one trailing newline, as a C string in @buf
 * (INJECT_TEXT_MAX + 1 bytes); -EINVAL if too long, NUL or not ASCII.
 */
static int inject_text(const char *page, size_t count, char *buf)
{
	const char *s;
	size_t len;

	if (tcmx_cfs_strip(page, count, INJECT_TEXT_MAX, TCMX_STRIP_ASCII,
			   &s, &len))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return 0;
}

/* decimal digits only: no sign, no space, no newline */
static int inject_u64(const char *s, u64 *val)
{
	if (!isdigit(*s) || s[strspn(s, "0123456789")])
		return -EINVAL;
	return kstrtou64(s, 10, val);
}

/* "N" or "MIN-MAX", decimal, into *@lo, *@hi (== *@lo for "N") */
static int inject_range(char *s, u64 *lo, u64 *hi)
{
	char *dash = strchr(s, '-');

	if (dash)
		*dash = '\0';
	if (inject_u64(s, lo))
		return -EINVAL;
	*hi = *lo;
	if (dash && inject_u64(dash + 1, hi))
		return -EINVAL;
	return *lo <= *hi ? 0 : -EINVAL;
}

static ssize_t inject_delay_show(struct config_item *item, char *page,
				 bool write)
{
	u64 d = READ_ONCE(tcmx_inject_cd(item)->inject.delay[write]);

	if (lower_32_bits(d) == upper_32_bits(d))
		return sysfs_emit(page, "%u\n", lower_32_bits(d));
	return sysfs_emit(page, "%u-%u\n", lower_32_bits(d), upper_32_bits(d));
}

static ssize_t inject_delay_store(struct config_item *item, const char *page,
				  size_t count, bool write)
{
	struct tcmx_core_dev *cd = tcmx_inject_cd(item);
	char buf[INJECT_TEXT_MAX + 1];
	u64 lo, hi;

	if (inject_text(page, count, buf) || inject_range(buf, &lo, &hi) ||
	    hi > INJECT_DELAY_MAX) {
		pr_err("%s: inject/delay_%s_us: need N or MIN-MAX, MIN <= MAX, microseconds 0 (off) to %u\n",
		       tcmx_dev_name(&cd->dev), write ? "write" : "read",
		       INJECT_DELAY_MAX);
		return -EINVAL;
	}
	mutex_lock(&cd->inject.mutex);
	WRITE_ONCE(cd->inject.delay[write], lo | hi << 32);
	inject_update(cd);
	mutex_unlock(&cd->inject.mutex);
	return count;
}

static ssize_t tcmx_inject_delay_read_us_show(struct config_item *item,
					      char *page)
{
	return inject_delay_show(item, page, false);
}

static ssize_t tcmx_inject_delay_read_us_store(struct config_item *item,
					       const char *page, size_t count)
{
	return inject_delay_store(item, page, count, false);
}

static ssize_t tcmx_inject_delay_write_us_show(struct config_item *item,
					       char *page)
{
	return inject_delay_show(item, page, true);
}

static ssize_t tcmx_inject_delay_write_us_store(struct config_item *item,
						const char *page, size_t count)
{
	return inject_delay_store(item, page, count, true);
}

static ssize_t tcmx_inject_badblocks_show(struct config_item *item,
					  char *page)
{
	struct tcmx_inject *inj = &tcmx_inject_cd(item)->inject;
	unsigned long flags;
	unsigned int i;
	ssize_t len = 0;

	/* one list, as it was at one time: a healing WRITE may shift it */
	raw_spin_lock_irqsave(&inj->bad_lock, flags);
	for (i = 0; i < inj->nr_bad; i++)
		len += sysfs_emit_at(page, len, "%llu-%llu\n",
				     inj->bad[i].start, inj->bad[i].end);
	raw_spin_unlock_irqrestore(&inj->bad_lock, flags);
	return len;
}

static ssize_t tcmx_inject_badblocks_store(struct config_item *item,
					   const char *page, size_t count)
{
	struct tcmx_core_dev *cd = tcmx_inject_cd(item);
	struct tcmx_inject *inj = &cd->inject;
	char buf[INJECT_TEXT_MAX + 1];
	enum bad_op op;
	u64 s = 0, e = 0;
	int ret = -EINVAL;

	if (inject_text(page, count, buf))
		goto bad;
	if (!strcmp(buf, "clear")) {
		op = BAD_CLEAR;
	} else if (buf[0] == '+' || buf[0] == '-') {
		op = buf[0] == '+' ? BAD_ADD : BAD_REMOVE;
		if (inject_range(buf + 1, &s, &e))
			goto bad;
		if (!READ_ONCE(cd->enabled) || e >= cd->dev.nr_blocks)
			goto bad;
	} else {
		goto bad;
	}
	mutex_lock(&inj->mutex);
	ret = bad_change(inj, op, s, e);
	if (!ret)
		inject_update(cd);
	mutex_unlock(&inj->mutex);
	if (!ret)
		return count;
	pr_err("%s: inject/badblocks: at most %u ranges\n",
	       tcmx_dev_name(&cd->dev), TCMX_INJECT_BAD_MAX);
	return ret;
bad:
	pr_err("%s: inject/badblocks: need +START-END, -START-END or clear, START <= END < %llu blocks of an enabled device\n",
	       tcmx_dev_name(&cd->dev), cd->dev.nr_blocks);
	return -EINVAL;
}

static ssize_t tcmx_inject_badblocks_heal_show(struct config_item *item,
					       char *page)
{
	return sysfs_emit(page, "%d\n",
			  READ_ONCE(tcmx_inject_cd(item)->inject.heal));
}

static ssize_t tcmx_inject_badblocks_heal_store(struct config_item *item,
						const char *page, size_t count)
{
	struct tcmx_core_dev *cd = tcmx_inject_cd(item);
	u32 val;

	if (tcmx_cfs_u32(page, count, &val) || val > 1) {
		pr_err("%s: inject/badblocks_heal: need 0 or 1\n",
		       tcmx_dev_name(&cd->dev));
		return -EINVAL;
	}
	WRITE_ONCE(cd->inject.heal, val);
	return count;
}

static ssize_t tcmx_inject_fault_show(struct config_item *item, char *page)
{
	u64 fault = READ_ONCE(tcmx_inject_cd(item)->inject.fault);

	if (!fault)
		return sysfs_emit(page, "none\n");
	return sysfs_emit(page, "%s %u%s\n",
			  inject_names[fault >> FAULT_KIND_SHIFT],
			  lower_32_bits(fault),
			  fault & FAULT_PPM ? " ppm" : "");
}

/* "none", "KIND N" or "KIND N ppm" into *@fault (0: none) */
static int inject_parse_fault(char *buf, u64 *fault)
{
	char *kind = strsep(&buf, " "), *num = strsep(&buf, " ");
	enum tcmx_inj_kind k;
	bool ppm = false;
	u64 v;
	u32 n;

	*fault = 0;
	if (!strcmp(kind, "none") && !num)
		return 0;
	if (!num || inject_u64(num, &v) || !v || v > U32_MAX)
		return -EINVAL;
	n = v;
	if (buf) {
		if (strcmp(buf, "ppm") || n > INJECT_PPM)
			return -EINVAL;
		ppm = true;
	} else if (n > INT_MAX) {
		return -EINVAL;
	}
	for (k = TCMX_INJ_BUSY; k <= TCMX_INJ_STUCK; k++)
		if (!strcmp(kind, inject_names[k]))
			break;
	if (k > TCMX_INJ_STUCK)
		return -EINVAL;
	*fault = n | (ppm ? FAULT_PPM : 0) | (u64)k << FAULT_KIND_SHIFT;
	return 0;
}

static ssize_t tcmx_inject_fault_store(struct config_item *item,
				       const char *page, size_t count)
{
	struct tcmx_core_dev *cd = tcmx_inject_cd(item);
	char buf[INJECT_TEXT_MAX + 1];
	u64 fault;

	if (inject_text(page, count, buf) || inject_parse_fault(buf, &fault)) {
		pr_err("%s: inject/fault: need none, KIND N (every Nth, N 1 to %d) or KIND N ppm (N 1 to %u); KIND busy, task_set_full, ua, aborted or stuck\n",
		       tcmx_dev_name(&cd->dev), INT_MAX, INJECT_PPM);
		return -EINVAL;
	}
	mutex_lock(&cd->inject.mutex);
	atomic_set(&cd->inject.fault_seq, 0);
	WRITE_ONCE(cd->inject.fault, fault);
	inject_update(cd);
	mutex_unlock(&cd->inject.mutex);
	return count;
}

static ssize_t tcmx_inject_counters_show(struct config_item *item,
					 char *page)
{
	struct tcmx_inject *inj = &tcmx_inject_cd(item)->inject;
	ssize_t len = 0;
	int k;

	for (k = 0; k < TCMX_INJ_NR; k++)
		len += sysfs_emit_at(page, len, "%s %lld\n", inject_names[k],
				     (long long)atomic64_read(&inj->counts[k]));
	return len;
}

static ssize_t tcmx_inject_counters_store(struct config_item *item,
					  const char *page, size_t count)
{
	struct tcmx_core_dev *cd = tcmx_inject_cd(item);
	u32 val;
	int k;

	if (tcmx_cfs_u32(page, count, &val) || val) {
		pr_err("%s: inject/counters: only 0 (reset) can be written\n",
		       tcmx_dev_name(&cd->dev));
		return -EINVAL;
	}
	for (k = 0; k < TCMX_INJ_NR; k++)
		atomic64_set(&cd->inject.counts[k], 0);
	return count;
}

static ssize_t tcmx_inject_sanitize_ms_show(struct config_item *item,
					    char *page)
{
	return tcmx_sanitize_ms_show(tcmx_inject_cd(item), page);
}

static ssize_t tcmx_inject_sanitize_ms_store(struct config_item *item,
					     const char *page, size_t count)
{
	return tcmx_sanitize_ms_store(tcmx_inject_cd(item), page, count);
}

CONFIGFS_ATTR(tcmx_inject_, delay_read_us);
CONFIGFS_ATTR(tcmx_inject_, delay_write_us);
CONFIGFS_ATTR(tcmx_inject_, badblocks);
CONFIGFS_ATTR(tcmx_inject_, badblocks_heal);
CONFIGFS_ATTR(tcmx_inject_, fault);
CONFIGFS_ATTR(tcmx_inject_, counters);
CONFIGFS_ATTR(tcmx_inject_, sanitize_ms);

static struct configfs_attribute *tcmx_inject_attrs[] = {
	&tcmx_inject_attr_delay_read_us,
	&tcmx_inject_attr_delay_write_us,
	&tcmx_inject_attr_badblocks,
	&tcmx_inject_attr_badblocks_heal,
	&tcmx_inject_attr_fault,
	&tcmx_inject_attr_counters,
	&tcmx_inject_attr_sanitize_ms,
	NULL,
};

static const struct config_item_type tcmx_inject_type = {
	.ct_attrs	= tcmx_inject_attrs,
	.ct_owner	= THIS_MODULE,
};

void tcmx_inject_dev_init(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_inject *inj = &cd->inject;

	mutex_init(&inj->mutex);
	raw_spin_lock_init(&inj->bad_lock);
	seqcount_raw_spinlock_init(&inj->bad_seq, &inj->bad_lock);
	tcmx_cfs_subdir(&dev->group, &cd->inject_group, "inject",
			&tcmx_inject_type);
}
