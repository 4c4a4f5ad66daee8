// SPDX-License-Identifier: GPL-2.0
/*
 * Copy offload (SPC-4 6.4, 6.18): EXTENDED COPY (LID1) with block to block
 * segment descriptors (02h) between LUs named by identification CSCD
 * descriptors (E4h, the NAA designator of VPD page 83h), and RECEIVE COPY
 * RESULTS with COPY STATUS and OPERATING PARAMETERS.
 *
 * The limits are those of the in-tree LIO: two CSCD descriptors, one
 * segment, a 1024-byte descriptor list, no inline data.  As there, a copy
 * stays within what its I_T nexus reaches: one LU of a segment is the one
 * that received the command, the other one the nexus reaches through
 * another of its LUNs, and a LU with emulate_3pc=0 is none of them.  Unlike
 * there, the status of a copy with a list identifier can be read back with
 * COPY STATUS.
 *
 * EXTENDED COPY runs in a worker (TCMX_CMD_DEFER): it copies the parameter
 * list, checks it whole before it touches the medium, pins the other LU
 * through the nexus's LUN (xc_nexus_lun_by_naa()) and moves the blocks
 * through a bounce buffer of at most XC_CHUNK_BYTES, one chunk at a time
 * under the destination's write exclusion.  Before each chunk both sides
 * pass the gate as a READ and a WRITE from the nexus would (ALUA,
 * reservations, SWP), or the copy stops there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait_bit.h>
#include <linux/xarray.h>
#include "compat.h"
#include <scsi/scsi_proto.h>
#include "itl.h"

#define XC_HDR_LEN		16	/* parameter list header */
#define XC_CSCD_LEN		32	/* an identification CSCD descriptor */
#define XC_SEG_LEN		28	/* a block to block segment descriptor */
#define XC_MAX_CSCD		TCMX_XCOPY_MAX_CSCD
#define XC_MAX_SEG		TCMX_XCOPY_MAX_SEG
#define XC_MAX_LIST_LEN		TCMX_XCOPY_MAX_LIST
#define XC_MAX_SEG_BYTES	TCMX_XCOPY_MAX_SEG_BYTES
#define XC_CHUNK_BYTES		(1U << 20)	/* the bounce buffer */
#define XC_CSCD_ID_MAX		0x07ff	/* indexes into the CSCD list */
#define XC_IDS			TCMX_XCOPY_IDS
#define XC_HOLD			(HZ / 2)	/* status of a finished copy */

#define XC_SEG_B2B		0x02
#define XC_CSCD_ID		0xe4

#define RCR_COPY_STATUS		0x00
#define RCR_OP_PARAMS		0x03
#define RCR_OP_PARAMS_LEN	46
#define RCR_STATUS_LEN		12

/* LIST ID USAGE (parameter list byte 1 bits 4-3) */
#define XC_LID_HOLD		0
#define XC_LID_RESERVED		1
#define XC_LID_DISCARD		2
#define XC_LID_NONE		3

/* COPY MANAGER STATUS of COPY STATUS */
#define XC_RUNNING		0x00
#define XC_DONE			0x01
#define XC_FAILED		0x02

/*
 * Copies an I_T nexus (here: a TPG of the loopback) named by a list
 * identifier, running or done, per device.  A finished one is kept for the
 * vendor specific time SPC-4 allows, XC_HOLD, unless COPY STATUS reports
 * it, a new copy takes its identifier, or a slot is needed and it is the
 * oldest finished one.  xc_ids_lock guards them all.
 */
struct tcmx_xcopy_ids {
	struct xc_id {
		const struct tcmx_tpg	*tpg;	/* NULL: a free slot */
		u64			seq;	/* age */
		unsigned long		done_at; /* jiffies, once finished */
		u64			bytes;	/* moved so far */
		u16			segs;	/* segments processed */
		u8			list_id;
		u8			state;	/* XC_RUNNING, _DONE, _FAILED */
	} id[XC_IDS];
};

static DEFINE_SPINLOCK(xc_ids_lock);
static u64 xc_seq;

/* One EXTENDED COPY as parsed from its parameter list. */
struct xc_op {
	u8		list_id;
	u8		lid_usage;
	u16		nr_cscd;
	const u8	*cscd;		/* the CSCD descriptor list */
	u16		stdi, dtdi;	/* source, destination CSCD index */
	u16		nolb;
	u64		src_lba, dst_lba;
	struct xc_id	*slot;		/* NULL: no list identifier */
	u64		done;		/* bytes moved */
};

/* ---- list identifiers ------------------------------------------------- */

/* A slot in use: running, or finished less than XC_HOLD ago. */
static bool xc_live(const struct xc_id *id)
{
	if (!id->tpg)
		return false;
	return id->state == XC_RUNNING ||
	       time_before(jiffies, id->done_at + XC_HOLD);
}

static struct xc_id *xc_find(struct tcmx_xcopy_ids *ids,
			     const struct tcmx_tpg *tpg, u8 list_id)
{
	unsigned int i;

	for (i = 0; ids && i < XC_IDS; i++)
		if (ids->id[i].tpg == tpg && ids->id[i].list_id == list_id &&
		    xc_live(&ids->id[i]))
			return &ids->id[i];
	return NULL;
}

/*
 * The device's slots, allocated by its first copy with a list identifier.
 * Published once, zeroed, and only read under xc_ids_lock afterwards: the
 * lock orders its contents, the acquire/release pair only the pointer.
 */
static struct tcmx_xcopy_ids *xc_ids_of(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	/* pairs with the cmpxchg_release() below */
	struct tcmx_xcopy_ids *ids = smp_load_acquire(&cd->xcopy_ids);
	struct tcmx_xcopy_ids *old;

	if (ids)
		return ids;
	ids = kzalloc(sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return NULL;
	/* another copy may have been first; pairs with the load above */
	old = cmpxchg_release(&cd->xcopy_ids, NULL, ids);
	if (old) {
		kfree(ids);
		ids = old;
	}
	return ids;
}

/* A free slot, else the oldest finished copy's; NULL if all run. */
static struct xc_id *xc_free_slot(struct tcmx_xcopy_ids *ids)
{
	struct xc_id *s, *old = NULL;

	for (s = ids->id; s < ids->id + XC_IDS; s++) {
		if (!xc_live(s))
			return s;
		if (s->state != XC_RUNNING && (!old || s->seq < old->seq))
			old = s;
	}
	return old;
}

/*
 * Register a copy under its list identifier: OPERATION IN PROGRESS if one
 * with the same identifier runs, INSUFFICIENT RESOURCES if XC_IDS do.
 */
static enum tcmx_status xc_claim(struct tcmx_cmd *cmd, struct xc_op *op)
{
	struct tcmx_xcopy_ids *ids = xc_ids_of(cmd->dev);
	enum tcmx_status status = TCMX_GOOD;
	struct xc_id *slot;

	if (!ids)
		return tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_RESOURCES);
	spin_lock(&xc_ids_lock);
	slot = xc_find(ids, cmd->tpg, op->list_id);
	if (slot && slot->state == XC_RUNNING) {
		status = tcmx_sense(cmd, TCMX_SENSE_OPERATION_IN_PROGRESS);
		goto out;
	}
	if (!slot)
		slot = xc_free_slot(ids);
	if (!slot) {
		status = tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_RESOURCES);
		goto out;
	}
	*slot = (struct xc_id){ .tpg = cmd->tpg, .list_id = op->list_id,
				.state = XC_RUNNING, .seq = ++xc_seq };
	op->slot = slot;
out:
	spin_unlock(&xc_ids_lock);
	return status;
}

/* What COPY STATUS reports of a copy with a list identifier. */
static void xc_progress(struct xc_op *op, u16 segs, u8 state)
{
	if (!op->slot)
		return;
	spin_lock(&xc_ids_lock);
	op->slot->bytes = op->done;
	op->slot->segs = segs;
	op->slot->state = state;
	op->slot->done_at = jiffies;
	spin_unlock(&xc_ids_lock);
}

/* ---- parsing ---------------------------------------------------------- */

static enum tcmx_status xc_bad_param(struct tcmx_cmd *cmd, u16 byte, u8 bit)
{
	return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD, false,
				byte, bit);
}

/* The one block to block segment descriptor at @p (list offset @off). */
static enum tcmx_status xc_parse_seg(struct tcmx_cmd *cmd, struct xc_op *op,
				     const u8 *p, u16 off)
{
	if (p[0] != XC_SEG_B2B)
		return tcmx_sense(cmd, TCMX_SENSE_UNSUPPORTED_SEGMENT_DESC);
	if (get_unaligned_be16(&p[2]) != XC_SEG_LEN - 4)
		return xc_bad_param(cmd, off + 2, TCMX_NO_BIT);
	op->stdi = get_unaligned_be16(&p[4]);
	op->dtdi = get_unaligned_be16(&p[6]);
	if (op->stdi > XC_CSCD_ID_MAX)
		return xc_bad_param(cmd, off + 4, TCMX_NO_BIT);
	if (op->dtdi > XC_CSCD_ID_MAX)
		return xc_bad_param(cmd, off + 6, TCMX_NO_BIT);
	op->nolb = get_unaligned_be16(&p[10]);
	op->src_lba = get_unaligned_be64(&p[12]);
	op->dst_lba = get_unaligned_be64(&p[20]);
	return TCMX_GOOD;
}

/*
 * An identification CSCD descriptor: a binary NAA IEEE Registered
 * Extended designator (6h, 16 bytes) of a logical unit, as VPD page 83h
 * shows it.  The LU ID TYPE, NUL and the device type specific parameters
 * are not checked (SPC-4 ignores the first, obsoletes the second).
 */
static enum tcmx_status xc_check_cscd(struct tcmx_cmd *cmd, const u8 *p,
				      u16 off)
{
	if (p[0] != XC_CSCD_ID)
		return tcmx_sense(cmd, TCMX_SENSE_UNSUPPORTED_TARGET_DESC);
	if ((p[4] & 0x0f) != 0x01)			/* CODE SET binary */
		return xc_bad_param(cmd, off + 4, 3);
	if ((p[5] & 0x30) != 0x00)			/* ASSOCIATION: LU */
		return xc_bad_param(cmd, off + 5, 5);
	if ((p[5] & 0x0f) != 0x03)			/* DESIGNATOR TYPE NAA */
		return xc_bad_param(cmd, off + 5, 3);
	if (p[7] != TCMX_NAA_LEN)
		return xc_bad_param(cmd, off + 7, TCMX_NO_BIT);
	if ((p[8] & 0xf0) != 0x60)			/* NAA 6h */
		return xc_bad_param(cmd, off + 8, 7);
	return TCMX_GOOD;
}

/*
 * The parameter list, @len bytes at @p, in the in-tree order of checks:
 * lengths, segment descriptors, CSCD descriptors.
 */
static enum tcmx_status xc_parse(struct tcmx_cmd *cmd, struct xc_op *op,
				 const u8 *p, u32 len)
{
	u16 cdll = get_unaligned_be16(&p[2]);
	u32 sdll = get_unaligned_be32(&p[8]);
	u32 inline_len = get_unaligned_be32(&p[12]);
	enum tcmx_status status;
	u16 i;

	op->list_id = p[0];
	op->lid_usage = (p[1] >> 3) & 0x03;
	if (op->lid_usage == XC_LID_RESERVED)
		return xc_bad_param(cmd, 1, 4);
	if (op->lid_usage == XC_LID_NONE && op->list_id)
		return xc_bad_param(cmd, 0, TCMX_NO_BIT);
	if ((u64)cdll + sdll > XC_MAX_LIST_LEN)
		return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
	if (inline_len)
		return xc_bad_param(cmd, 12, TCMX_NO_BIT);
	if (len < XC_HDR_LEN + cdll + sdll)
		return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);

	if (sdll % XC_SEG_LEN)
		return tcmx_sense(cmd, TCMX_SENSE_UNSUPPORTED_SEGMENT_DESC);
	if (sdll > XC_MAX_SEG * XC_SEG_LEN)
		return tcmx_sense(cmd, TCMX_SENSE_TOO_MANY_SEGMENT_DESC);
	if (!sdll)
		return xc_bad_param(cmd, 8, TCMX_NO_BIT);
	status = xc_parse_seg(cmd, op, &p[XC_HDR_LEN + cdll],
			      XC_HDR_LEN + cdll);
	if (status != TCMX_GOOD)
		return status;

	if (cdll % XC_CSCD_LEN)
		return tcmx_sense(cmd, TCMX_SENSE_UNSUPPORTED_TARGET_DESC);
	if (cdll > XC_MAX_CSCD * XC_CSCD_LEN)
		return tcmx_sense(cmd, TCMX_SENSE_TOO_MANY_TARGET_DESC);
	op->nr_cscd = cdll / XC_CSCD_LEN;
	op->cscd = &p[XC_HDR_LEN];
	for (i = 0; i < op->nr_cscd; i++) {
		status = xc_check_cscd(cmd, &op->cscd[i * XC_CSCD_LEN],
				       XC_HDR_LEN + i * XC_CSCD_LEN);
		if (status != TCMX_GOOD)
			return status;
	}
	return TCMX_GOOD;
}

/* ---- the LUs of a copy ------------------------------------------------ */

/*
 * One LU of a copy, as the sending I_T nexus reaches it: through the
 * receiving LUN (cmd->lun, which the deferral pinned), or through another
 * LUN of the nexus, pinned here the way a deferred command pins its own:
 * its device stays until xc_unpin(), unlinking the LUN waits for the copy,
 * and so does a PREEMPT AND ABORT of the nexus through that LUN (it waits
 * for the I_T_L nexus @itl's pinned commands).
 */
struct xc_lu {
	struct tcmx_lun	*lun;
	struct tcmx_dev	*dev;
	u64		id;		/* its number in the nexus's map */
	bool		pinned;
	bool		wp;		/* a write-protected mapping */
	struct tcmx_itl	*itl;		/* pinned, or NULL */
};

/* What the gate checks for the copy's own READs and WRITEs (see below). */
#define XC_GATE_BITS	(BIT(TCMX_GATE_ALUA) | BIT(TCMX_GATE_PR) | \
			 BIT(TCMX_GATE_WP))

/* @dev is @naa's LU and takes part in copies (the in-tree skips it too) */
static bool xc_dev_is(struct tcmx_dev *dev, const u8 *naa)
{
	u8 mine[TCMX_NAA_LEN];

	return dev && tcmx_xcopy_enabled(dev) && tcmx_dev_naa(dev, mine) &&
	       !memcmp(mine, naa, sizeof(mine));
}

/*
 * The LUN through which the sending I_T nexus reaches the LU named @naa,
 * into @lu with a live reference taken; false if it reaches none.  A nexus
 * reaches what its map holds: the LUNs its node ACL maps, or every LUN of
 * its TPG in demo mode.  A LUN found under RCU is published, so its
 * reference is live or killed but not yet exited; once taken, lun->dev
 * stays set until it is put.
 */
static bool xc_nexus_lun_by_naa(struct tcmx_cmd *cmd, const u8 *naa,
				struct xc_lu *lu)
{
	struct tcmx_lun *lun;
	unsigned long id;
	void *entry;
	bool found = false;

	rcu_read_lock();
	tcmx_nexus_for_each_lun(cmd->nexus, id, entry) {
		lun = tcmx_map_lun(entry);
		if (!percpu_ref_tryget_live(&lun->ref))
			continue;
		if (xc_dev_is(lun->dev, naa)) {
			*lu = (struct xc_lu){
				.lun = lun, .dev = lun->dev, .id = id,
				.wp = (unsigned long)entry & TCMX_MAP_WP,
			};
			found = true;
			break;
		}
		percpu_ref_put(&lun->ref);
	}
	rcu_read_unlock();
	return found;
}

/*
 * The LU CSCD descriptor @index names, into *@lu: the receiving one, or
 * another the nexus reaches, pinned.  False if there is no such
 * descriptor or the nexus reaches no such LU.
 */
static bool xc_resolve(struct tcmx_cmd *cmd, struct xc_op *op, u16 index,
		       struct xc_lu *lu)
{
	const u8 *naa;
	void *entry;

	if (index >= op->nr_cscd)
		return false;
	naa = &op->cscd[index * XC_CSCD_LEN + 8];
	if (xc_dev_is(cmd->dev, naa)) {
		rcu_read_lock();
		entry = xa_load(&cmd->nexus->luns, cmd->lun_id);
		rcu_read_unlock();
		*lu = (struct xc_lu){
			.lun = cmd->lun, .dev = cmd->dev, .id = cmd->lun_id,
			.wp = (unsigned long)entry & TCMX_MAP_WP,
		};
		return true;
	}
	if (!xc_nexus_lun_by_naa(cmd, naa, lu))
		return false;
	lu->pinned = true;
	lu->itl = tcmx_itl_pin(cmd->nexus, lu->id, lu->lun);
	return true;
}

static void xc_unpin(struct xc_lu *lu)
{
	if (!lu->pinned)
		return;
	tcmx_itl_unpin(lu->itl);
	lu->itl = NULL;
	percpu_ref_put(&lu->lun->ref);
	lu->pinned = false;
}

/*
 * Whether a READ(16) (or with @write a WRITE(16)) of @n blocks at @lba,
 * sent by the copy's nexus through @lu's LUN, would pass the gate: the
 * LUN's ALUA state, the device's reservations and SWP.  Not its unit
 * attentions: those are the initiator's to take, not the copy's.  Asked
 * before each chunk, with the LUN pinned, so that once a PREEMPT AND ABORT
 * of the nexus has waited for it nothing more of the copy lands.
 */
static bool xc_gate_passes(struct tcmx_cmd *cmd, struct xc_lu *lu,
			   bool write, u64 lba, u32 n)
{
	unsigned long gate = READ_ONCE(lu->dev->gate) & XC_GATE_BITS;
	u8 cdb[TCMX_CDB_MAX] = { write ? WRITE_16 : READ_16 };
	u8 sense[TCMX_SENSE_BUFFER_LEN];
	struct tcmx_cmd io = {
		.nexus = cmd->nexus, .tpg = cmd->tpg, .lun_id = lu->id,
		.cdb = cdb, .cdb_len = 16, .sense = sense,
		.lun = lu->lun, .dev = lu->dev,
		.data_dir = write ? DMA_TO_DEVICE : DMA_FROM_DEVICE,
		.data_len = n << lu->dev->block_shift,
	};

	/* the mapping's write protection, as the fast path folds it in */
	if (write && lu->wp)
		gate |= BIT(TCMX_GATE_WP);
	if (!gate)
		return true;
	put_unaligned_be64(lba, &cdb[2]);
	put_unaligned_be32(n, &cdb[10]);
	return tcmx_gate(&io, tcmx_cdb_row(cdb), gate) == TCMX_GOOD;
}

/* ---- the copy --------------------------------------------------------- */

/*
 * One chunk: @n blocks at @at into the segment, read and written each under
 * its device's exclusion (a READ's and a WRITE's rule: neither sees part of
 * a WRITE ATOMIC nor lands between a COMPARE AND WRITE's compare and its
 * write); one span over both ranges when the copy stays on one device, as
 * the exclusion does not nest.  0 or -errno (-EACCES: refused by the gate).
 */
static int xc_move_chunk(struct tcmx_cmd *cmd, struct xc_op *op,
			 struct xc_lu *src, struct xc_lu *dst, u64 at, u32 n,
			 void *buf)
{
	struct tcmx_dev *sdev = src->dev, *ddev = dst->dev;
	u64 s = op->src_lba + at, d = op->dst_lba + at, lo = min(s, d);
	int ret;

	if (!xc_gate_passes(cmd, src, false, s, n))
		return -EACCES;
	if (sdev == ddev) {
		tcmx_excl_lock(sdev, lo, max(s, d) + n - lo);
		ret = sdev->ops->read_blocks(sdev, s, n, buf);
		if (!ret && !xc_gate_passes(cmd, dst, true, d, n))
			ret = -EACCES;
		if (!ret)
			ret = ddev->ops->write_blocks(ddev, d, n, buf);
		tcmx_excl_unlock(sdev);
		return ret;
	}
	tcmx_excl_lock(sdev, s, n);
	ret = sdev->ops->read_blocks(sdev, s, n, buf);
	tcmx_excl_unlock(sdev);
	if (ret)
		return ret;
	if (!xc_gate_passes(cmd, dst, true, d, n))
		return -EACCES;
	tcmx_excl_lock(ddev, d, n);
	ret = ddev->ops->write_blocks(ddev, d, n, buf);
	tcmx_excl_unlock(ddev);
	return ret;
}

/*
 * Move the segment in chunks; backwards when the destination overlaps the
 * source from above on the same device, so every block is read before
 * it is overwritten.
 */
static enum tcmx_status xc_move(struct tcmx_cmd *cmd, struct xc_op *op,
				struct xc_lu *src, struct xc_lu *dst)
{
	struct tcmx_dev *sdev = src->dev, *ddev = dst->dev;
	u32 chunk = min_t(u32, XC_CHUNK_BYTES >> sdev->block_shift, op->nolb);
	bool back = sdev == ddev && op->dst_lba > op->src_lba &&
		    op->dst_lba < op->src_lba + op->nolb;
	u64 done = 0;
	void *buf;
	int ret = 0;

	buf = kvmalloc((size_t)chunk << sdev->block_shift, GFP_KERNEL);
	if (!buf)
		return tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_RESOURCES);
	while (done < op->nolb) {
		u32 n = min_t(u64, chunk, op->nolb - done);
		u64 at = back ? op->nolb - done - n : done;

		ret = xc_move_chunk(cmd, op, src, dst, at, n, buf);
		if (ret)
			break;
		done += n;
		op->done = done << sdev->block_shift;
		xc_progress(op, 0, XC_RUNNING);
		cond_resched();
	}
	kvfree(buf);
	if (ret == -ENOSPC)
		return tcmx_sense(cmd, TCMX_SENSE_SPACE_ALLOC_FAILED);
	if (ret)
		return tcmx_sense(cmd, TCMX_SENSE_COPY_TARGET_NOT_REACHABLE);
	return TCMX_GOOD;
}

/*
 * The receiving LU must be the source or the destination: a copy moves
 * nothing the nexus could not move itself through the receiving LUN and
 * one other of its own.  A refusal is COPY TARGET DEVICE NOT REACHABLE, as
 * in-tree, which tells the initiator to copy by READ and WRITE instead.
 */
static enum tcmx_status xc_run(struct tcmx_cmd *cmd, struct xc_op *op)
{
	struct xc_lu src = {}, dst = {};
	struct tcmx_dev *sdev, *ddev;
	enum tcmx_status status;

	if (!xc_resolve(cmd, op, op->stdi, &src) ||
	    !xc_resolve(cmd, op, op->dtdi, &dst) ||
	    (src.pinned && dst.pinned)) {
		status = tcmx_sense(cmd, TCMX_SENSE_COPY_TARGET_NOT_REACHABLE);
		goto out;
	}
	sdev = src.dev;
	ddev = dst.dev;
	if (sdev->block_size != ddev->block_size) {
		status = xc_bad_param(cmd, XC_HDR_LEN + op->dtdi * XC_CSCD_LEN +
				      29, TCMX_NO_BIT);
		goto out;
	}
	if (op->src_lba > sdev->nr_blocks ||
	    op->nolb > sdev->nr_blocks - op->src_lba ||
	    op->dst_lba > ddev->nr_blocks ||
	    op->nolb > ddev->nr_blocks - op->dst_lba) {
		status = tcmx_sense(cmd, TCMX_SENSE_COPY_TARGET_NOT_REACHABLE);
		goto out;
	}
	status = op->nolb ? xc_move(cmd, op, &src, &dst) : TCMX_GOOD;
out:
	xc_unpin(&src);
	xc_unpin(&dst);
	return status;
}

/* Process context: the whole EXTENDED COPY. */
static enum tcmx_status xc_extended_copy_work(struct tcmx_cmd *cmd)
{
	u32 len = min(get_unaligned_be32(&cmd->cdb[10]), cmd->data_len);
	struct xc_op op = {};
	enum tcmx_status status;
	u8 *p;

	p = kmalloc(XC_HDR_LEN + XC_MAX_LIST_LEN, GFP_KERNEL);
	if (!p)
		return tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_RESOURCES);
	len = min_t(u32, len, XC_HDR_LEN + XC_MAX_LIST_LEN);
	len = tcmx_cmd_copy_from_sgl(cmd, p, len);
	if (len < XC_HDR_LEN) {
		status = tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
		goto out;
	}
	status = xc_parse(cmd, &op, p, len);
	if (status == TCMX_GOOD && op.lid_usage != XC_LID_NONE)
		status = xc_claim(cmd, &op);
	if (status != TCMX_GOOD)
		goto out;
	status = xc_run(cmd, &op);
	if (status == TCMX_GOOD)
		xc_progress(&op, 1, XC_DONE);
	else
		xc_progress(&op, 0, XC_FAILED);
out:
	kfree(p);
	if (status == TCMX_GOOD)
		cmd->xfer_len = min(get_unaligned_be32(&cmd->cdb[10]),
				    cmd->data_len);
	return status;
}

static enum tcmx_status xc_parse_extended_copy(struct tcmx_cmd *cmd)
{
	/* emulate_3pc=0: no such command, as in-tree */
	if (!tcmx_xcopy_enabled(cmd->dev))
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_OPCODE);
	/* a parameter list length of 0 is no copy, and not an error */
	if (!get_unaligned_be32(&cmd->cdb[10]))
		cmd->execute = tcmx_execute_nop;
	return TCMX_GOOD;
}

/* ---- RECEIVE COPY RESULTS --------------------------------------------- */

static enum tcmx_status xc_op_params(struct tcmx_cmd *cmd)
{
	u32 alloc_len = get_unaligned_be32(&cmd->cdb[10]);
	u8 p[RCR_OP_PARAMS_LEN] = {};

	put_unaligned_be32(RCR_OP_PARAMS_LEN - 4, &p[0]);
	p[4] = 0x01;				/* SNLID */
	put_unaligned_be16(XC_MAX_CSCD, &p[8]);
	put_unaligned_be16(XC_MAX_SEG, &p[10]);
	put_unaligned_be32(XC_MAX_LIST_LEN, &p[12]);
	put_unaligned_be32(XC_MAX_SEG_BYTES, &p[16]);
	/* no inline data, held data or stream devices */
	put_unaligned_be16(XC_IDS, &p[34]);	/* TOTAL CONCURRENT COPIES */
	p[36] = XC_IDS;				/* MAXIMUM CONCURRENT COPIES */
	p[37] = cmd->dev->block_shift;		/* DATA SEGMENT GRANULARITY */
	p[38] = cmd->dev->block_shift;		/* INLINE DATA GRANULARITY */
	p[39] = cmd->dev->block_shift;		/* HELD DATA GRANULARITY */
	p[43] = 2;				/* implemented descriptors */
	p[44] = XC_SEG_B2B;
	p[45] = XC_CSCD_ID;
	tcmx_cmd_copy_to_sgl(cmd, p, min_t(u32, sizeof(p), alloc_len));
	return TCMX_GOOD;
}

/*
 * The copy of this I_T nexus with the CDB's list identifier; a finished
 * one is forgotten once reported.
 */
static enum tcmx_status xc_copy_status(struct tcmx_cmd *cmd)
{
	u32 alloc_len = get_unaligned_be32(&cmd->cdb[10]);
	u8 p[RCR_STATUS_LEN] = {};
	struct xc_id *id;
	u64 count;
	u8 units = 0;

	spin_lock(&xc_ids_lock);
	id = xc_find(READ_ONCE(tcmx_core(cmd->dev)->xcopy_ids), cmd->tpg,
		     cmd->cdb[2]);
	if (id) {
		p[4] = id->state;		/* HDD 0 */
		put_unaligned_be16(id->segs, &p[5]);
		count = id->bytes;
		if (id->state != XC_RUNNING)
			id->tpg = NULL;
	}
	spin_unlock(&xc_ids_lock);
	if (!id)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					2, TCMX_NO_BIT);
	/* TRANSFER COUNT UNITS: bytes, KiB, MiB, ... */
	for (; count > U32_MAX; count >>= 10)
		units++;
	put_unaligned_be32(RCR_STATUS_LEN - 4, &p[0]);
	p[7] = units;
	put_unaligned_be32(count, &p[8]);
	tcmx_cmd_copy_to_sgl(cmd, p, min_t(u32, sizeof(p), alloc_len));
	return TCMX_GOOD;
}

#define XC_FLAGS	(TCMX_CMD_LUN | TCMX_CMD_SA)

struct tcmx_cmd_desc tcmx_xcopy_cmds[] __ro_after_init = {
	{ .opcode = EXTENDED_COPY, .sa = 0x00, .len = 16, .dir = DMA_TO_DEVICE,
	  .flags = XC_FLAGS | TCMX_CMD_WRITE | TCMX_CMD_DEFER,
	  .name = "EXTENDED COPY(LID1)", .enabled = tcmx_xcopy_enabled,
	  .usage = { EXTENDED_COPY, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		     0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00 },
	  .parse = xc_parse_extended_copy, .execute = xc_extended_copy_work },
	{ .opcode = RECEIVE_COPY_RESULTS, .sa = RCR_COPY_STATUS, .len = 16,
	  .dir = DMA_FROM_DEVICE, .flags = XC_FLAGS,
	  .name = "RECEIVE COPY RESULTS(COPY STATUS)",
	  .usage = { RECEIVE_COPY_RESULTS, RCR_COPY_STATUS, 0xff, 0x00, 0x00,
		     0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
		     0x00, 0x00 },
	  .execute = xc_copy_status },
	{ .opcode = RECEIVE_COPY_RESULTS, .sa = RCR_OP_PARAMS, .len = 16,
	  .dir = DMA_FROM_DEVICE, .flags = XC_FLAGS,
	  .name = "RECEIVE COPY RESULTS(OPERATING PARAMETERS)",
	  .usage = { RECEIVE_COPY_RESULTS, RCR_OP_PARAMS, 0xff, 0x00, 0x00,
		     0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
		     0x00, 0x00 },
	  .execute = xc_op_params },
	{}
};
