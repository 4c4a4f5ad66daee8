// SPDX-License-Identifier: GPL-2.0
/*
 * PERSISTENT RESERVE OUT (SPC-4 6.16, 5.13): REGISTER (and IGNORE
 * EXISTING KEY, with SPEC_I_PT and ALL_TG_PT), RESERVE, RELEASE, CLEAR,
 * PREEMPT (and ABORT), REGISTER AND MOVE, on the state of pr.c; APTPL
 * saves it through pr_aptpl.c.
 *
 * REGISTER AND MOVE finds its destination nexus among the device's LUNs
 * by relative target port identifier and the TransportID of the TPG's
 * nexus, SPEC_I_PT its nexuses the same way (through the receiving port,
 * or any with ALL_TG_PT).  ALL_TG_PT registers the initiator port through
 * every target port of the device: each LUN whose TPG has the same nexus
 * name.
 *
 * PREEMPT AND ABORT preempts as PREEMPT does, then waits until every
 * command of the preempted nexuses that the gate let through before has
 * finished (an RCU grace period for the inline ones, lun->deferred for
 * the others): none of theirs runs after it completes.  They finish
 * rather than end with TASK ABORTED.  The wait has no bound, as the
 * in-tree's drain of the preempted commands has none: a fence that
 * completed with a command of the fenced nexus still to land would be
 * none.  A wait that goes on says so in dmesg every 30 s.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>
#include "compat.h"
#include <scsi/scsi_proto.h>
#include "pr.h"

#define PRO_PARAM_LEN		24	/* the basic parameter list */
#define PRO_SPEC_I_PT		BIT(3)	/* byte 20 */
#define PRO_ALL_TG_PT		BIT(2)
#define PRO_APTPL		BIT(0)
#define PRO_MOVE_UNREG		BIT(1)	/* REGISTER AND MOVE, byte 17 */
#define PRO_MOVE_APTPL		BIT(0)
#define PRO_TIDS		28	/* SPEC_I_PT: after their length */
#define PRO_MAX_PARAM_LEN	8192	/* ~300 TransportIDs */
#define PR_ABORT_WARN		(30 * HZ)	/* then each time again */

struct pr_out {
	u64			key;
	u64			sa_key;
	u8			type;
	bool			aptpl;		/* or force_pr_aptpl */
	bool			all_tg_pt;
	const u8		*tids;		/* SPEC_I_PT: TransportIDs */
	u32			tids_len;
	struct list_head	spare;		/* preallocated registrations */
	/*
	 * Matched before the state lock is taken (pr_out_match(), under
	 * cd->lock and pr_mutex), so that no name is compared with IRQs
	 * off: the nexuses of the sending initiator port through the other
	 * target ports (@port, @nport); those the TransportIDs name
	 * (@named, @nnamed), or the first bad one's offset (@tid_bad); the
	 * destination of REGISTER AND MOVE.
	 */
	struct tcmx_lun		**port;
	u32			nport;
	struct tcmx_lun		**named;
	u32			nnamed;
	u32			tid_bad;
	struct tcmx_lun		*move_to;
};

#define PR_TID_OK		U32_MAX	/* o->tid_bad: none */

/* a spare of @o becomes @lun's registration with @key */
static struct tcmx_pr_reg *pr_add_reg(struct tcmx_dev *dev, struct pr_out *o,
				      struct tcmx_lun *lun, u64 key,
				      bool all_tg_pt)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg;

	reg = list_first_entry_or_null(&o->spare, struct tcmx_pr_reg, node);
	if (WARN_ON_ONCE(!reg))
		return NULL;
	reg->lun = lun;
	reg->key = key;
	reg->generation = cd->pr_generation;
	reg->all_tg_pt = all_tg_pt;
	pr_reg_attach(cd, reg);
	return reg;
}

static bool pr_same_initiator(struct tcmx_lun *a, struct tcmx_lun *b)
{
	return a->tpg->ops == b->tpg->ops &&
	       !strcmp(pr_nexus_name(a), pr_nexus_name(b));
}

/* is @lun one of @o's nexuses of the sending initiator port? */
static bool pr_in_port(struct pr_out *o, struct tcmx_lun *lun)
{
	u32 i;

	for (i = 0; i < o->nport; i++)
		if (o->port[i] == lun)
			return true;
	return false;
}

/*
 * Register @lun with @o's service action key and, for ALL_TG_PT, the
 * nexuses of its initiator port through every other target port of the
 * device (@o->port).
 */
static void pr_register_port(struct tcmx_dev *dev, struct pr_out *o,
			     struct tcmx_lun *lun)
{
	u32 i;

	if (!pr_find(dev, lun))
		pr_add_reg(dev, o, lun, o->sa_key, o->all_tg_pt);
	if (!o->all_tg_pt)
		return;
	for (i = 0; i < o->nport; i++)
		if (!pr_find(dev, o->port[i]))
			pr_add_reg(dev, o, o->port[i], o->sa_key, true);
}

/* The length of the TransportID at @p (@len bytes left), or 0 if bad. */
static u32 pr_tid_len(const u8 *p, u32 len)
{
	u32 n;

	if (len < PRI_TID_ISCSI_HDR)
		return 0;
	switch (p[0] & 0xcf) {		/* FORMAT CODE and PROTOCOL IDENTIFIER */
	case 0x00:			/* Fibre Channel */
	case 0x06:			/* SAS */
		return len >= PRI_TID_NAA_LEN ? PRI_TID_NAA_LEN : 0;
	case 0x05:			/* iSCSI name */
	case 0x45:			/* iSCSI name and ISID */
		n = PRI_TID_ISCSI_HDR + get_unaligned_be16(&p[2]);
		return n > PRI_TID_ISCSI_HDR && n <= len && !(n % 4) ? n : 0;
	}
	return 0;
}

/* Does the TransportID @tid (@len bytes) name @lun's initiator port? */
static bool pr_tid_matches(struct tcmx_lun *lun, const u8 *tid, u32 len)
{
	u8 own[PRI_TID_ISCSI_HDR + PRI_MAX_NAME];
	u32 n = pr_transport_id(lun, own);
	const char *sep;
	size_t name_len;

	if (len < PRI_TID_ISCSI_HDR || (tid[0] & 0x0f) != (own[0] & 0x0f))
		return false;
	if ((own[0] & 0x0f) != 0x05)			/* SAS, FC: 24 bytes */
		return len >= n && !memcmp(own, tid, n);
	/* iSCSI: the name, case aside, up to its NUL or ",i,0x" */
	name_len = strnlen(tid + PRI_TID_ISCSI_HDR, len - PRI_TID_ISCSI_HDR);
	sep = strnstr(tid + PRI_TID_ISCSI_HDR, ",i,0x", name_len);
	if (sep)
		name_len = sep - (const char *)tid - PRI_TID_ISCSI_HDR;
	return name_len == strlen(own + PRI_TID_ISCSI_HDR) &&
	       !strncasecmp(tid + PRI_TID_ISCSI_HDR, own + PRI_TID_ISCSI_HDR,
			    name_len);
}

/* cd->lock held: the LUN of @dev behind relative port @rtpi named @tid */
static struct tcmx_lun *pr_find_nexus(struct tcmx_dev *dev, u16 rtpi,
				      const u8 *tid, u32 len)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_lun *lun;

	list_for_each_entry(lun, &cd->luns, dev_node)
		if (lun->rtpi == rtpi && pr_tid_matches(lun, tid, len))
			return lun;
	return NULL;
}

/* cd->lock held: the nexuses of @dev that @o's TransportIDs name */
static void pr_out_tids(struct tcmx_cmd *cmd, struct pr_out *o, u32 nluns)
{
	struct tcmx_core_dev *cd = tcmx_core(cmd->dev);
	struct tcmx_lun *lun;
	u32 off = 0, n, i;
	bool found;

	while (off < o->tids_len) {
		n = pr_tid_len(o->tids + off, o->tids_len - off);
		found = false;
		list_for_each_entry(lun, &cd->luns, dev_node) {
			if (!n || (!o->all_tg_pt && lun != cmd->lun) ||
			    !pr_tid_matches(lun, o->tids + off, n))
				continue;
			found = true;
			for (i = 0; i < o->nnamed && o->named[i] != lun; i++)
				;
			if (i == o->nnamed && i < nluns)
				o->named[o->nnamed++] = lun;
		}
		if (!found) {
			o->tid_bad = off;
			return;
		}
		off += n;
	}
}

/*
 * cd->lock and pr_mutex held, before the state lock: what the service
 * action will need of names and TransportIDs (struct pr_out); false
 * without memory.
 */
static bool pr_out_match(struct tcmx_cmd *cmd, struct pr_out *o,
			 const u8 *p)
{
	struct tcmx_core_dev *cd = tcmx_core(cmd->dev);
	struct tcmx_lun *lun;
	u32 nluns = 0;
	u8 sa = cmd->desc->sa;

	o->tid_bad = PR_TID_OK;
	if (sa == PRO_REGISTER_AND_MOVE) {
		o->move_to = pr_find_nexus(cmd->dev, get_unaligned_be16(&p[18]),
					   o->tids, o->tids_len);
		return true;
	}
	if (sa != PRO_REGISTER && sa != PRO_REGISTER_IGNORE)
		return true;
	list_for_each_entry(lun, &cd->luns, dev_node)
		nluns++;
	o->port = kcalloc(nluns, sizeof(*o->port), GFP_KERNEL);
	o->named = kcalloc(nluns, sizeof(*o->named), GFP_KERNEL);
	if (!o->port || !o->named)
		return false;
	list_for_each_entry(lun, &cd->luns, dev_node)
		if (lun != cmd->lun && pr_same_initiator(lun, cmd->lun))
			o->port[o->nport++] = lun;
	if (o->tids)
		pr_out_tids(cmd, o, nluns);
	return true;
}

/*
 * SPEC_I_PT (SPC-4 5.13.7): each TransportID names an initiator port; it
 * is registered through the receiving target port, or with ALL_TG_PT
 * through every target port of the device.  Every TransportID must name a
 * nexus of the device: pr_out_tids() checked them all and found the
 * nexuses before the state lock.  Nexuses already registered keep their
 * registration.
 */
static enum tcmx_status pr_register_tids(struct tcmx_cmd *cmd,
					 struct pr_out *o)
{
	u32 i;

	if (o->tid_bad != PR_TID_OK)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, PRO_TIDS + o->tid_bad,
					TCMX_NO_BIT);
	for (i = 0; i < o->nnamed; i++)
		if (!pr_find(cmd->dev, o->named[i]))
			pr_add_reg(cmd->dev, o, o->named[i], o->sa_key,
				   o->all_tg_pt);
	return TCMX_GOOD;
}

/*
 * Unregister @reg; an ALL_TG_PT registration takes with it those its
 * initiator port made with the same key through the other target ports.
 */
static void pr_unregister_set(struct tcmx_dev *dev, struct pr_out *o,
			      struct tcmx_pr_reg *reg, struct list_head *gone)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *other, *tmp;
	bool held = cd->pr_holder;

	if (reg->all_tg_pt)
		list_for_each_entry_safe(other, tmp, &cd->pr_regs, node) {
			if (other == reg || !other->all_tg_pt ||
			    other->key != reg->key ||
			    !pr_in_port(o, other->lun))
				continue;
			pr_unregister(dev, other, false);
			list_add_tail(&other->node, gone);
		}
	pr_unregister(dev, reg, false);
	list_add_tail(&reg->node, gone);
	/* the registrants left lost a registrants-only reservation */
	if (held && !cd->pr_holder && pr_type_ro(cd->pr_type))
		pr_ua_others(dev, NULL, TCMX_SENSE_UA_RES_RELEASED);
}

/* REGISTER and REGISTER AND IGNORE EXISTING KEY (SPC-4 5.13.7) */
static enum tcmx_status pr_register(struct tcmx_cmd *cmd, struct pr_out *o,
				    bool ignore, struct list_head *gone)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg = pr_find(dev, cmd->lun);
	enum tcmx_status status;

	if (!reg) {
		if (!ignore && o->key)
			return TCMX_CONFLICT;
		if (!o->sa_key)
			return TCMX_GOOD;
		if (o->tids) {
			status = pr_register_tids(cmd, o);
			if (status)
				return status;
		}
		pr_register_port(dev, o, cmd->lun);
	} else if (!ignore && o->key != reg->key) {
		return TCMX_CONFLICT;
	} else if (o->tids) {
		/* SPEC_I_PT only from a nexus not registered yet */
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, 20, 3);
	} else if (!o->sa_key) {
		pr_unregister_set(dev, o, reg, gone);
	} else {
		reg->key = o->sa_key;
		reg->generation = cd->pr_generation;
	}
	cd->pr_generation++;
	return TCMX_GOOD;
}

static enum tcmx_status pr_reserve(struct tcmx_cmd *cmd, struct pr_out *o,
				   struct tcmx_pr_reg *reg)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);

	if (cd->pr_holder)
		return pr_is_holder(dev, reg) && cd->pr_type == o->type ?
		       TCMX_GOOD : TCMX_CONFLICT;
	cd->pr_holder = reg;
	cd->pr_type = o->type;
	return TCMX_GOOD;
}

static enum tcmx_status pr_release(struct tcmx_cmd *cmd, struct pr_out *o,
				   struct tcmx_pr_reg *reg)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);

	if (!pr_is_holder(dev, reg))
		return TCMX_GOOD;
	if (cd->pr_type != o->type)
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_RELEASE);
	cd->pr_holder = NULL;
	/* SPC-4 5.13.11.2.2: others may have lost access, or have it now */
	if (pr_type_reg(cd->pr_type))
		pr_ua_others(dev, cmd->lun, TCMX_SENSE_UA_RES_RELEASED);
	return TCMX_GOOD;
}

static void pr_clear(struct tcmx_cmd *cmd, struct list_head *gone)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg, *tmp;

	pr_ua_others(dev, cmd->lun, TCMX_SENSE_UA_RES_PREEMPTED);
	list_for_each_entry_safe(reg, tmp, &cd->pr_regs, node)
		pr_reg_detach(reg, gone);
	cd->pr_holder = NULL;
	cd->pr_generation++;
}

/*
 * Remove every registration with @key but @self's (SPC-4 5.13.11.4),
 * telling their nexuses REGISTRATIONS PREEMPTED; how many were removed.
 */
static unsigned int pr_remove_key(struct tcmx_dev *dev, u64 key,
				  struct tcmx_pr_reg *self,
				  struct list_head *gone)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg, *tmp;
	unsigned int n = 0;

	list_for_each_entry_safe(reg, tmp, &cd->pr_regs, node) {
		if (reg == self || reg->key != key)
			continue;
		if (cd->pr_holder == reg)
			cd->pr_holder = self;	/* replaced by the caller */
		pr_reg_detach(reg, gone);
		tcmx_ua_add(reg->lun, dev, TCMX_SENSE_UA_REG_PREEMPTED);
		n++;
	}
	return n;
}

/* PREEMPT and PREEMPT AND ABORT (SPC-4 5.13.11.4) */
static enum tcmx_status pr_preempt(struct tcmx_cmd *cmd, struct pr_out *o,
				   struct tcmx_pr_reg *self,
				   struct list_head *gone)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *holder = cd->pr_holder, *reg, *tmp;
	u8 old_type = cd->pr_type;

	if (!holder || (!pr_type_all_reg(old_type) && o->sa_key != holder->key)) {
		/* no reservation, or not the holder's key: registrations */
		if (!o->sa_key)
			return tcmx_sense_field(cmd,
						TCMX_SENSE_INVALID_PARAM_FIELD,
						false, 8, TCMX_NO_BIT);
		if (!pr_remove_key(dev, o->sa_key, self, gone) &&
		    o->sa_key != self->key)
			return TCMX_CONFLICT;
		goto done;
	}
	if (pr_type_all_reg(old_type)) {
		if (o->sa_key) {
			/* a key of the all-registrants holders: those only */
			if (!pr_remove_key(dev, o->sa_key, self, gone) &&
			    o->sa_key != self->key)
				return TCMX_CONFLICT;
			goto done;
		}
		/* 0: every other registration, and the reservation is ours */
		list_for_each_entry_safe(reg, tmp, &cd->pr_regs, node) {
			if (reg == self)
				continue;
			pr_reg_detach(reg, gone);
			tcmx_ua_add(reg->lun, dev, TCMX_SENSE_UA_REG_PREEMPTED);
		}
	} else {
		pr_remove_key(dev, o->sa_key, self, gone);
	}
	cd->pr_holder = self;
	cd->pr_type = o->type;
	if (old_type != o->type)
		pr_ua_others(dev, cmd->lun, TCMX_SENSE_UA_RES_RELEASED);
done:
	cd->pr_generation++;
	return TCMX_GOOD;
}

/*
 * REGISTER AND MOVE (SPC-4 5.13.8): the holder registers the nexus the
 * TransportID and RELATIVE TARGET PORT IDENTIFIER name (with the service
 * action key, unless it is registered already) and hands it the
 * reservation, of the same type; UNREG drops the holder's registration.
 */
static enum tcmx_status pr_move(struct tcmx_cmd *cmd, struct pr_out *o,
				const u8 *p, struct list_head *gone)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *src = pr_find(dev, cmd->lun), *dst;
	struct tcmx_lun *to;

	if (!src || src->key != o->key || !cd->pr_holder ||
	    !pr_is_holder(dev, src) || pr_type_all_reg(cd->pr_type))
		return TCMX_CONFLICT;
	if (!o->sa_key)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, 8, TCMX_NO_BIT);
	to = o->move_to;
	if (!to)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, 18, TCMX_NO_BIT);
	if (to == cmd->lun)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, PRO_PARAM_LEN, TCMX_NO_BIT);
	dst = pr_find(dev, to) ?: pr_add_reg(dev, o, to, o->sa_key, false);
	cd->pr_holder = dst;
	if (p[17] & PRO_MOVE_UNREG) {
		pr_unregister(dev, src, false);
		list_add_tail(&src->node, gone);
	}
	cd->pr_generation++;
	return TCMX_GOOD;
}

/*
 * The parameter list: 24 bytes; REGISTER with SPEC_I_PT and REGISTER AND
 * MOVE add TransportIDs after a length that must account for the rest.
 */
static enum tcmx_status pr_out_params(struct tcmx_cmd *cmd, struct pr_out *o,
				      const u8 *p, u32 len)
{
	u8 sa = cmd->desc->sa;
	u32 tids_at;

	o->key = get_unaligned_be64(&p[0]);
	o->sa_key = get_unaligned_be64(&p[8]);
	o->type = cmd->cdb[2] & 0x0f;
	if (sa == PRO_REGISTER_AND_MOVE) {
		o->aptpl = p[17] & PRO_MOVE_APTPL;
		tids_at = PRO_PARAM_LEN;
	} else {
		o->aptpl = p[20] & PRO_APTPL;
		o->all_tg_pt = p[20] & PRO_ALL_TG_PT;
		if (!(p[20] & PRO_SPEC_I_PT))
			return len == PRO_PARAM_LEN ? TCMX_GOOD :
			       tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
		if (sa != PRO_REGISTER)
			return tcmx_sense_field(cmd,
						TCMX_SENSE_INVALID_PARAM_FIELD,
						false, 20, 3);
		tids_at = PRO_TIDS;
	}
	if (len < tids_at ||
	    get_unaligned_be32(&p[tids_at - 4]) != len - tids_at)
		return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
	o->tids = p + tids_at;
	o->tids_len = len - tids_at;
	return TCMX_GOOD;
}

/* under pr_mutex and pr_lock: one service action, on the checked list */
static enum tcmx_status pr_out_locked(struct tcmx_cmd *cmd, struct pr_out *o,
				      const u8 *p, struct list_head *gone)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg = pr_find(dev, cmd->lun);

	if (cd->spc2_holder && cd->spc2_holder != cmd->lun)
		return TCMX_CONFLICT;
	switch (cmd->desc->sa) {
	case PRO_REGISTER:
	case PRO_REGISTER_IGNORE:
		return pr_register(cmd, o, cmd->desc->sa == PRO_REGISTER_IGNORE,
				   gone);
	case PRO_REGISTER_AND_MOVE:
		return pr_move(cmd, o, p, gone);
	}
	if (!reg || reg->key != o->key)
		return TCMX_CONFLICT;
	switch (cmd->desc->sa) {
	case PRO_RESERVE:
		return pr_reserve(cmd, o, reg);
	case PRO_RELEASE:
		return pr_release(cmd, o, reg);
	case PRO_CLEAR:
		pr_clear(cmd, gone);
		return TCMX_GOOD;
	}
	return pr_preempt(cmd, o, reg, gone);
}

/*
 * PREEMPT AND ABORT, cd->lock held: keep each preempted nexus (LUN, on
 * cd->luns now) from going away until pr_abort_wait() is done with it.
 */
static void pr_abort_hold(struct list_head *gone)
{
	struct tcmx_pr_reg *reg;

	list_for_each_entry(reg, gone, node)
		reg->held = percpu_ref_tryget_live(&reg->lun->ref);
}

/*
 * Locks dropped: the gate refuses the preempted nexuses now.  Their
 * commands it let through before either run inline, in the fabric's RCU
 * read-side section (a grace period ends them), or were deferred (counted
 * in lun->deferred): wait for those to finish, so that none of them runs
 * after the PREEMPT AND ABORT completes.
 */
static void pr_abort_wait(struct tcmx_dev *dev, struct list_head *gone)
{
	struct tcmx_pr_reg *reg;

	synchronize_rcu();
	list_for_each_entry(reg, gone, node) {
		if (!reg->held)
			continue;
		while (!wait_var_event_timeout(&reg->lun->deferred,
					       !atomic_read(&reg->lun->deferred),
					       PR_ABORT_WARN))
			pr_warn("%s: PREEMPT AND ABORT: waiting for %d command(s) of %s\n",
				tcmx_dev_name(dev),
				atomic_read(&reg->lun->deferred),
				pr_nexus_name(reg->lun));
		percpu_ref_put(&reg->lun->ref);
		reg->held = false;
	}
}

static bool pr_sa_has_aptpl(u8 sa)
{
	return sa == PRO_REGISTER || sa == PRO_REGISTER_IGNORE ||
	       sa == PRO_REGISTER_AND_MOVE;
}

/* the CDB's checks, before the parameter list is read */
static enum tcmx_status pr_out_cdb(struct tcmx_cmd *cmd, u32 len)
{
	u8 sa = cmd->desc->sa;

	if (len < PRO_PARAM_LEN)
		return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
	if (len > PRO_MAX_PARAM_LEN)
		return tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_REG_RESOURCES);
	if (sa == PRO_RESERVE || sa == PRO_RELEASE || sa == PRO_PREEMPT ||
	    sa == PRO_PREEMPT_AND_ABORT) {
		if (cmd->cdb[2] >> 4)		/* scope: logical unit only */
			return tcmx_sense_field(cmd,
						TCMX_SENSE_INVALID_CDB_FIELD,
						true, 2, 7);
		if (!pr_type_valid(cmd->cdb[2] & 0x0f))
			return tcmx_sense_field(cmd,
						TCMX_SENSE_INVALID_CDB_FIELD,
						true, 2, 3);
	}
	return TCMX_GOOD;
}

/*
 * cd->lock held: a registration per LUN of the device at most, so spares
 * for all on @o->spare; false without memory (the caller frees them)
 */
static bool pr_out_spares(struct tcmx_dev *dev, struct pr_out *o, u8 sa)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg;
	struct tcmx_lun *lun;
	u32 i, n = 0;

	if (pr_sa_has_aptpl(sa))
		list_for_each_entry(lun, &cd->luns, dev_node)
			n++;
	for (i = 0; i < n; i++) {
		reg = kzalloc(sizeof(*reg), GFP_KERNEL);
		if (!reg)
			return false;
		list_add(&reg->node, &o->spare);
	}
	return true;
}

/*
 * The service action with the checked parameter list @p, under the locks.
 * If the state is to be saved (APTPL active, or asked for), the file is
 * opened first: if that fails nothing changes.  It is written after the
 * device's locks are dropped.
 */
static enum tcmx_status pr_out_apply(struct tcmx_cmd *cmd, struct pr_out *o,
				     const u8 *p, struct list_head *gone)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct pr_aptpl_save save = { };
	enum tcmx_status status;
	u8 sa = cmd->desc->sa;
	bool aptpl = o->aptpl && pr_sa_has_aptpl(sa), fence = false;

	mutex_lock(&cd->pr_file_mutex);
	/* cd->luns: cd->lock, taken before the PR locks as lun.c does */
	mutex_lock(&cd->lock);
	if (!pr_out_spares(dev, o, sa)) {
		status = tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_REG_RESOURCES);
		goto unlock_dev;
	}
	mutex_lock(&cd->pr_mutex);
	if (!pr_out_match(cmd, o, p)) {
		status = tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_RESOURCES);
		goto unlock;
	}
	if ((cd->pr_aptpl || aptpl) && pr_aptpl_begin(dev, &save)) {
		status = tcmx_sense(cmd, TCMX_SENSE_LU_COMM_FAILURE);
		goto unlock;
	}
	pr_state_lock(cd);
	status = pr_out_locked(cmd, o, p, gone);
	pr_update_gate(dev);
	pr_state_unlock(cd);
	fence = sa == PRO_PREEMPT_AND_ABORT && status == TCMX_GOOD;
	if (fence)
		pr_abort_hold(gone);
	/* the last REGISTER's APTPL bit decides (SPC-4 5.13.5) */
	if (status == TCMX_GOOD && pr_sa_has_aptpl(sa))
		cd->pr_aptpl = o->aptpl;
	if (status == TCMX_GOOD && save.file)
		pr_aptpl_text_set(dev, &save);
unlock:
	mutex_unlock(&cd->pr_mutex);
unlock_dev:
	mutex_unlock(&cd->lock);
	if (pr_aptpl_end(dev, &save, status == TCMX_GOOD))
		status = tcmx_sense(cmd, TCMX_SENSE_LU_COMM_FAILURE);
	mutex_unlock(&cd->pr_file_mutex);
	/* preempted: fenced, even if the file could not keep it */
	if (fence)
		pr_abort_wait(dev, gone);
	return status;
}

enum tcmx_status pr_out(struct tcmx_cmd *cmd)
{
	u32 len = get_unaligned_be32(&cmd->cdb[5]);
	struct tcmx_dev *dev = cmd->dev;
	struct pr_out o = { };
	struct tcmx_pr_reg *reg, *tmp;
	enum tcmx_status status;
	LIST_HEAD(gone);
	u8 *p;

	INIT_LIST_HEAD(&o.spare);
	status = pr_out_cdb(cmd, len);
	if (status != TCMX_GOOD)
		return status;
	p = kmalloc(len, GFP_KERNEL);
	if (!p)
		return tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_RESOURCES);
	if (tcmx_cmd_copy_from_sgl(cmd, p, len) < len) {
		status = tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
		goto out;
	}
	status = pr_out_params(cmd, &o, p, len);
	if (status != TCMX_GOOD)
		goto out;
	if (READ_ONCE(dev->attrib.force_pr_aptpl))
		o.aptpl = true;
	status = pr_out_apply(cmd, &o, p, &gone);
out:
	kfree(p);
	kfree(o.port);
	kfree(o.named);
	list_splice_init(&o.spare, &gone);
	list_for_each_entry_safe(reg, tmp, &gone, node)
		kfree(reg);
	return status;
}
