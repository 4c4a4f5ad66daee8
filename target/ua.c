// SPDX-License-Identifier: GPL-2.0
/*
 * Unit attentions, per I_T nexus and LUN (SAM-5 5.14).  In tcmx each
 * struct tcmx_lun of a TPG is one I_T nexus and LUN, so a LUN holds its
 * own small queue: at most TCMX_UA_MAX sense codes, highest priority
 * first, one of each.
 *
 * Only the slow path touches the queues, under one spinlock.  The fast
 * path sees them through dev->gate: TCMX_GATE_UA is set while any LUN of
 * the device has one pending (cd->ua_luns counts them) and only then does
 * the gate call tcmx_ua_check(), which reads the LUN's count without the
 * lock first.
 *
 * emulate_ua_intlck_ctrl (the control page's UA_INTLCK_CTRL 00b, 10b,
 * 11b), as the in-tree target_core_ua.c has it: 0 clears a unit attention
 * when a CHECK CONDITION reports it; 1 and 2 report it without clearing
 * it, until REQUEST SENSE does (2 would also establish one for BUSY and
 * RESERVATION CONFLICT statuses).  Unlike the in-tree code, reporting one
 * clears only that one, as SAM-5 says, not every pending one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include "tcmx_core.h"

static DEFINE_SPINLOCK(tcmx_ua_lock);

/*
 * SAM-5's order: POWER ON, RESET, OR BUS DEVICE RESET OCCURRED first, the
 * other 29h codes after it (bus reset, then bus device reset, then I_T
 * nexus loss), everything else last, in the order established.
 */
static int tcmx_ua_rank(u8 code)
{
	switch (code) {
	case TCMX_SENSE_UA_POWER_ON:
		return 0;
	case TCMX_SENSE_UA_BUS_RESET:
		return 1;
	case TCMX_SENSE_UA_DEVICE_RESET:
		return 2;
	case TCMX_SENSE_UA_I_T_NEXUS_LOSS:
		return 3;
	default:
		return 4;
	}
}

/* the LUN's queue became non-empty / empty: tcmx_ua_lock held */
static void tcmx_ua_lun_set(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	if (!cd->ua_luns++)
		set_bit(TCMX_GATE_UA, &dev->gate);
}

static void tcmx_ua_lun_unset(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	if (!WARN_ON_ONCE(!cd->ua_luns) && !--cd->ua_luns)
		clear_bit(TCMX_GATE_UA, &dev->gate);
}

/* tcmx_ua_lock held; @lun exports @dev */
static void __tcmx_ua_add(struct tcmx_lun *lun, struct tcmx_dev *dev,
			  enum tcmx_sense code)
{
	unsigned int n = lun->ua_count, i, pos;

	for (i = 0; i < n; i++)
		if (lun->ua[i] == code)
			return;
	for (pos = 0; pos < n; pos++)
		if (tcmx_ua_rank(lun->ua[pos]) > tcmx_ua_rank(code))
			break;
	if (n == TCMX_UA_MAX) {
		/* full: the lowest priority one goes, or the new one */
		if (pos == n)
			return;
		n--;
	}
	memmove(&lun->ua[pos + 1], &lun->ua[pos], n - pos);
	lun->ua[pos] = code;
	if (!n)
		tcmx_ua_lun_set(dev);
	WRITE_ONCE(lun->ua_count, n + 1);
}

/*
 * Establish @code for @lun, which exports @dev: it is on cd->luns, and
 * unlinking it clears its queue only after the caller is done (cd->lock,
 * tcmx_cfs_mutex or an RCU section in which the LUN was published).
 */
void tcmx_ua_add(struct tcmx_lun *lun, struct tcmx_dev *dev,
		 enum tcmx_sense code)
{
	unsigned long flags;

	spin_lock_irqsave(&tcmx_ua_lock, flags);
	__tcmx_ua_add(lun, dev, code);
	spin_unlock_irqrestore(&tcmx_ua_lock, flags);
}

/*
 * The highest priority unit attention of @lun into *@code, and with
 * @clear off the queue; false if there is none.
 */
bool tcmx_ua_take(struct tcmx_lun *lun, bool clear, enum tcmx_sense *code)
{
	unsigned long flags;
	bool found = false;
	u8 n;

	if (!READ_ONCE(lun->ua_count))
		return false;
	spin_lock_irqsave(&tcmx_ua_lock, flags);
	n = lun->ua_count;
	if (n) {
		found = true;
		*code = lun->ua[0];
		if (clear) {
			memmove(&lun->ua[0], &lun->ua[1], n - 1);
			WRITE_ONCE(lun->ua_count, n - 1);
			if (n == 1)
				tcmx_ua_lun_unset(lun->dev);
		}
	}
	spin_unlock_irqrestore(&tcmx_ua_lock, flags);
	return found;
}

/*
 * Drop everything pending on @lun as it leaves @dev's luns (cd->lock held,
 * the LUN drained).
 */
void tcmx_ua_lun_clear(struct tcmx_lun *lun, struct tcmx_dev *dev)
{
	unsigned long flags;

	spin_lock_irqsave(&tcmx_ua_lock, flags);
	if (lun->ua_count) {
		WRITE_ONCE(lun->ua_count, 0);
		tcmx_ua_lun_unset(dev);
	}
	spin_unlock_irqrestore(&tcmx_ua_lock, flags);
}

/*
 * @code for every linked LUN of @tpg but @except, under tcmx_cfs_mutex
 * (so no LUN is linked or unlinked meanwhile).
 */
void tcmx_ua_tpg(struct tcmx_tpg *tpg, struct tcmx_lun *except,
		 enum tcmx_sense code)
{
	struct tcmx_lun *lun;
	unsigned long index;

	xa_for_each(&tpg->luns, index, lun)
		if (lun != except && lun->dev)
			tcmx_ua_add(lun, lun->dev, code);
}

/*
 * @code for every LUN of @dev but @except (the I_T nexus that caused it),
 * under cd->lock.
 */
void tcmx_ua_dev(struct tcmx_dev *dev, struct tcmx_lun *except,
		 enum tcmx_sense code)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_lun *lun;

	list_for_each_entry(lun, &cd->luns, dev_node)
		if (lun != except)
			tcmx_ua_add(lun, dev, code);
}


/*
 * From the gate, while some LUN of the device has a unit attention: one of
 * @cmd's LUN, unless its row runs regardless (INQUIRY, REPORT LUNS,
 * REQUEST SENSE).  An unknown opcode (@d NULL) reports it too.
 */
enum tcmx_status tcmx_ua_check(struct tcmx_cmd *cmd,
			       const struct tcmx_cmd_desc *d)
{
	enum tcmx_sense code;
	bool clear;

	if (!cmd->lun || (d && d->flags & TCMX_CMD_UA_OK))
		return TCMX_GOOD;
	clear = !READ_ONCE(cmd->dev->attrib.emulate_ua_intlck_ctrl);
	if (!tcmx_ua_take(cmd->lun, clear, &code))
		return TCMX_GOOD;
	return tcmx_sense(cmd, code);
}
