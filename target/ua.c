// SPDX-License-Identifier: GPL-2.0
/*
 * Unit attentions, per I_T nexus and LUN (SAM-5 5.14).  Each entry of an
 * I_T nexus's map (a LUN as one initiator port reaches it) has its state,
 * a struct tcmx_itl, made here with the entry; it holds a small queue: at
 * most TCMX_UA_MAX sense codes, highest priority first, one of each.  A
 * condition "for every I_T nexus" of a logical unit goes to each I_T_L
 * nexus on the device's list, whatever fabric or TPG it came through.
 *
 * Only the slow path touches the queues, under one spinlock.  The fast
 * path sees them through dev->gate: TCMX_GATE_UA is set while any I_T_L
 * nexus of the device has one pending (cd->ua_luns counts them) and only
 * then does the gate call tcmx_ua_check(), which looks the command's
 * I_T_L nexus up and reads its count without the lock first.
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
#include "itl.h"

DEFINE_SPINLOCK(tcmx_itl_lock);

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

/* the queue became non-empty / empty: tcmx_itl_lock held */
static void tcmx_ua_itl_set(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	if (!cd->ua_luns++)
		set_bit(TCMX_GATE_UA, &dev->gate);
}

static void tcmx_ua_itl_unset(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	if (!WARN_ON_ONCE(!cd->ua_luns) && !--cd->ua_luns)
		clear_bit(TCMX_GATE_UA, &dev->gate);
}

void tcmx_ua_itl_locked(struct tcmx_itl *itl, enum tcmx_sense code)
{
	unsigned int n = itl->ua_count, i, pos;

	for (i = 0; i < n; i++)
		if (itl->ua[i] == code)
			return;
	for (pos = 0; pos < n; pos++)
		if (tcmx_ua_rank(itl->ua[pos]) > tcmx_ua_rank(code))
			break;
	if (n == TCMX_UA_MAX) {
		/* full: the lowest priority one goes, or the new one */
		if (pos == n)
			return;
		n--;
	}
	memmove(&itl->ua[pos + 1], &itl->ua[pos], n - pos);
	itl->ua[pos] = code;
	if (!n)
		tcmx_ua_itl_set(itl->dev);
	WRITE_ONCE(itl->ua_count, n + 1);
}

void tcmx_ua_itl(struct tcmx_itl *itl, enum tcmx_sense code)
{
	unsigned long flags;

	spin_lock_irqsave(&tcmx_itl_lock, flags);
	tcmx_ua_itl_locked(itl, code);
	spin_unlock_irqrestore(&tcmx_itl_lock, flags);
}

/* tcmx_itl_lock held: drop everything pending on @itl */
void tcmx_ua_itl_clear(struct tcmx_itl *itl)
{
	if (itl->ua_count) {
		WRITE_ONCE(itl->ua_count, 0);
		tcmx_ua_itl_unset(itl->dev);
	}
}

/* ---- the I_T_L nexuses ---------------------------------------------- */

/* in an RCU read-side section (the submitter's, or its own) */
struct tcmx_itl *tcmx_cmd_itl(struct tcmx_cmd *cmd)
{
	struct tcmx_itl *itl;

	if (!cmd->nexus || !cmd->lun)
		return NULL;
	itl = xa_load(&cmd->nexus->itls, cmd->lun_id);
	/* the entry was replaced since the command found its LUN */
	return itl && itl->lun == cmd->lun ? itl : NULL;
}

/* ---- establishing ----------------------------------------------------- */

/*
 * The one walk of a device's I_T_L nexuses for unit attentions: @code
 * (TCMX_SENSE_NO_SENSE: drop everything pending) for each one @match
 * says, with @arg, is meant.  @match runs under tcmx_itl_lock with
 * interrupts off: a few loads, never a name compare.
 */
void tcmx_ua_each(struct tcmx_dev *dev, tcmx_itl_match_fn match,
		  const void *arg, enum tcmx_sense code)
{
	struct tcmx_itl *itl;
	unsigned long flags;

	spin_lock_irqsave(&tcmx_itl_lock, flags);
	list_for_each_entry(itl, &tcmx_core(dev)->itls, dev_node) {
		if (!match(itl, arg))
			continue;
		if (code == TCMX_SENSE_NO_SENSE)
			tcmx_ua_itl_clear(itl);
		else
			tcmx_ua_itl_locked(itl, code);
	}
	spin_unlock_irqrestore(&tcmx_itl_lock, flags);
}

static bool tcmx_itl_through(const struct tcmx_itl *itl, const void *lun)
{
	return itl->lun == lun;
}

/*
 * Establish @code for every I_T nexus through @lun, which exports @dev:
 * the caller keeps @lun linked meanwhile (cd->lock, tcmx_cfs_mutex or an
 * RCU section in which the LUN was published).
 */
void tcmx_ua_add(struct tcmx_lun *lun, struct tcmx_dev *dev,
		 enum tcmx_sense code)
{
	tcmx_ua_each(dev, tcmx_itl_through, lun, code);
}

/*
 * The highest priority unit attention of @cmd's I_T_L nexus into *@code,
 * and with @clear off the queue; false if there is none.
 */
bool tcmx_ua_take(struct tcmx_cmd *cmd, bool clear, enum tcmx_sense *code)
{
	struct tcmx_itl *itl;
	unsigned long flags;
	bool found = false;
	u8 n;

	rcu_read_lock();
	itl = tcmx_cmd_itl(cmd);
	if (!itl || !READ_ONCE(itl->ua_count))
		goto out;
	spin_lock_irqsave(&tcmx_itl_lock, flags);
	n = itl->ua_count;
	if (n) {
		found = true;
		*code = itl->ua[0];
		if (clear) {
			memmove(&itl->ua[0], &itl->ua[1], n - 1);
			WRITE_ONCE(itl->ua_count, n - 1);
			if (n == 1)
				tcmx_ua_itl_unset(itl->dev);
		}
	}
	spin_unlock_irqrestore(&tcmx_itl_lock, flags);
out:
	rcu_read_unlock();
	return found;
}

/*
 * Drop everything pending on the I_T nexuses through @lun as it leaves
 * @dev's luns (cd->lock held, the LUN drained; they left the maps before).
 */
void tcmx_ua_lun_clear(struct tcmx_lun *lun, struct tcmx_dev *dev)
{
	tcmx_ua_each(dev, tcmx_itl_through, lun, TCMX_SENSE_NO_SENSE);
}

/*
 * @code for every I_T nexus through a linked LUN of @tpg but @except,
 * under tcmx_cfs_mutex (so no LUN is linked or unlinked meanwhile).
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
 * @code for every I_T nexus to @dev (the logical unit), but those through
 * @except, or but @cmd's: the I_T nexus that caused it.  cd->lock held.
 */
struct tcmx_ua_but {
	struct tcmx_lun		*except;
	struct tcmx_nexus	*n;
};

static bool tcmx_itl_not(const struct tcmx_itl *itl, const void *arg)
{
	const struct tcmx_ua_but *but = arg;

	return !but->except || itl->lun != but->except ||
	       (but->n && itl->nexus != but->n);
}

static void tcmx_ua_dev_but(struct tcmx_dev *dev, struct tcmx_lun *except,
			    struct tcmx_nexus *n, enum tcmx_sense code)
{
	struct tcmx_ua_but but = { except, n };

	tcmx_ua_each(dev, tcmx_itl_not, &but, code);
}

void tcmx_ua_dev(struct tcmx_dev *dev, struct tcmx_lun *except,
		 enum tcmx_sense code)
{
	tcmx_ua_dev_but(dev, except, NULL, code);
}

void tcmx_ua_dev_others(struct tcmx_dev *dev, struct tcmx_cmd *cmd,
			enum tcmx_sense code)
{
	tcmx_ua_dev_but(dev, cmd->lun, cmd->nexus, code);
}

/*
 * From the gate, while some I_T_L nexus of the device has a unit
 * attention: one of @cmd's, unless its row runs regardless (INQUIRY,
 * REPORT LUNS, REQUEST SENSE).  An unknown opcode (@d NULL) reports it
 * too.
 */
enum tcmx_status tcmx_ua_check(struct tcmx_cmd *cmd,
			       const struct tcmx_cmd_desc *d)
{
	enum tcmx_sense code;
	bool clear;

	if (!cmd->lun || (d && d->flags & TCMX_CMD_UA_OK))
		return TCMX_GOOD;
	clear = !READ_ONCE(cmd->dev->attrib.emulate_ua_intlck_ctrl);
	if (!tcmx_ua_take(cmd, clear, &code))
		return TCMX_GOOD;
	return tcmx_sense(cmd, code);
}
