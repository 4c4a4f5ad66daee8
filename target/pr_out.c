// SPDX-License-Identifier: GPL-2.0
/*
 * PERSISTENT RESERVE OUT (SPC-4 6.16, 5.13): REGISTER (and IGNORE
 * EXISTING KEY, with SPEC_I_PT and ALL_TG_PT), RESERVE, RELEASE, CLEAR,
 * PREEMPT (and ABORT), REGISTER AND MOVE, on the state of pr.c; APTPL
 * saves it through pr_aptpl.c.
 *
 * An I_T nexus is an initiator port (name and port id) and a target
 * port (a LUN of the device).  REGISTER AND MOVE finds its destination
 * among the I_T nexuses to the device by relative target port identifier
 * and TransportID, SPEC_I_PT its nexuses the same way (through the
 * receiving port, or any with ALL_TG_PT); a TransportID with an ISID
 * names that port of the initiator, one without every port of the name.
 * ALL_TG_PT registers the sending initiator port through every target
 * port of the device it has an I_T nexus through; through one that a
 * node ACL of its name maps, session or not, it registers the name
 * without ISID, as in-tree.  A node ACL that maps the LUN names the I_T
 * nexus to be (pr_match.c): the registration waits for it.
 *
 * PREEMPT AND ABORT preempts as PREEMPT does, then waits until every
 * command of the preempted I_T nexuses to the logical unit that the gate
 * let through before has finished (an RCU grace period for the inline
 * ones; for the others, the count of each preempted I_T_L nexus's pinned
 * commands, itl.c): none of theirs runs after it completes.  Its own
 * commands and those of other nexuses do not hold it up.  They finish
 * rather than end with TASK ABORTED.  The wait has no bound, as the
 * in-tree's drain of the preempted commands has none: a fence that
 * completed with a command of the fenced nexus still to land would be
 * none.  A wait that goes on says so in dmesg every 30 s.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>
#include "compat.h"
#include <scsi/scsi_proto.h>
#include "pr.h"
#include "sanitize.h"

#define PRO_PARAM_LEN		24	/* the basic parameter list */
#define PRO_SPEC_I_PT		BIT(3)	/* byte 20 */
#define PRO_ALL_TG_PT		BIT(2)
#define PRO_APTPL		BIT(0)
#define PRO_MOVE_UNREG		BIT(1)	/* REGISTER AND MOVE, byte 17 */
#define PRO_MOVE_APTPL		BIT(0)
#define PRO_TIDS		28	/* SPEC_I_PT: after their length */
#define PRO_MAX_PARAM_LEN	8192	/* ~300 TransportIDs */
#define PR_ABORT_WARN		(30 * HZ)	/* then each time again */
#define PR_ABORT_POLL		(HZ / 10)	/* abort what was held since */

/* @nx's registration, if any (pr_lock) */
static struct tcmx_pr_reg *pr_nx_find(struct tcmx_dev *dev,
				      const struct pr_out *o,
				      const struct pr_nx *nx)
{
	struct pr_ident id;

	pr_nx_ident(o, nx, &id);
	return pr_find(dev, nx->lun, id.name, id.port_id);
}

/* the sending I_T nexus's registration, from its hashes made before */
static struct tcmx_pr_reg *pr_find_sender(struct tcmx_cmd *cmd,
					  const struct pr_out *o)
{
	struct tcmx_pr_reg *reg;

	list_for_each_entry(reg, &tcmx_core(cmd->dev)->pr_regs, node)
		if (pr_reg_is(reg, cmd->lun, &o->hash, o->name, o->port_id))
			return reg;
	return NULL;
}

/* a spare of @o becomes @nx's registration with @key */
static struct tcmx_pr_reg *pr_add_reg(struct tcmx_dev *dev, struct pr_out *o,
				      const struct pr_nx *nx, u64 key,
				      bool all_tg_pt)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg;
	struct pr_ident id;

	reg = list_first_entry_or_null(&o->spare, struct tcmx_pr_reg, node);
	if (WARN_ON_ONCE(!reg))
		return NULL;
	pr_nx_ident(o, nx, &id);
	pr_reg_set_id(reg, nx->lun, nx->mapped, id.name, id.port_id);
	reg->key = key;
	reg->generation = cd->pr_generation;
	reg->all_tg_pt = all_tg_pt;
	pr_reg_attach(cd, reg);
	return reg;
}

/* is @reg one of the sending initiator port's through @o->port? */
static bool pr_in_port(struct pr_out *o, struct tcmx_pr_reg *reg)
{
	u32 i;

	for (i = 0; i < o->nport; i++)
		if (pr_reg_is(reg, o->port[i].lun, &o->hash, o->name,
			      o->port_id))
			return true;
	return false;
}

/*
 * Register the sender's I_T nexus with @o's service action key and, for
 * ALL_TG_PT, its initiator port through every other target port of the
 * device (@o->port).
 */
static void pr_register_port(struct tcmx_cmd *cmd, struct pr_out *o)
{
	struct pr_nx self = { cmd->lun, cmd->lun_id, PR_NX_SELF };
	struct tcmx_dev *dev = cmd->dev;
	u32 i;

	if (!pr_nx_find(dev, o, &self))
		pr_add_reg(dev, o, &self, o->sa_key, o->all_tg_pt);
	if (!o->all_tg_pt)
		return;
	for (i = 0; i < o->nport; i++)
		if (!pr_nx_find(dev, o, &o->port[i]))
			pr_add_reg(dev, o, &o->port[i], o->sa_key, true);
}

/*
 * SPEC_I_PT (SPC-4 5.13.7): each TransportID names an initiator port; it
 * is registered through the receiving target port, or with ALL_TG_PT
 * through every target port of the device.  Every TransportID must name a
 * nexus of the device, or one a node ACL makes possible: pr_out_tids()
 * checked them all and found the nexuses before the state lock.  Nexuses
 * already registered keep their registration.
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
		if (!pr_nx_find(cmd->dev, o, &o->named[i]))
			pr_add_reg(cmd->dev, o, &o->named[i], o->sa_key,
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
			    !pr_in_port(o, other))
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
	struct tcmx_pr_reg *reg = pr_find_sender(cmd, o);
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
		pr_register_port(cmd, o);
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
		pr_ua_others(dev, reg, TCMX_SENSE_UA_RES_RELEASED);
	return TCMX_GOOD;
}

static void pr_clear(struct tcmx_cmd *cmd, struct tcmx_pr_reg *self,
		     struct list_head *gone)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg, *tmp;

	pr_ua_others(dev, self, TCMX_SENSE_UA_RES_PREEMPTED);
	list_for_each_entry_safe(reg, tmp, &cd->pr_regs, node)
		pr_reg_detach(cd, reg, gone);
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
		pr_ua_reg(dev, reg, TCMX_SENSE_UA_REG_PREEMPTED);
		pr_reg_detach(cd, reg, gone);
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
			pr_ua_reg(dev, reg, TCMX_SENSE_UA_REG_PREEMPTED);
			pr_reg_detach(cd, reg, gone);
		}
	} else {
		pr_remove_key(dev, o->sa_key, self, gone);
	}
	cd->pr_holder = self;
	cd->pr_type = o->type;
	if (old_type != o->type)
		pr_ua_others(dev, self, TCMX_SENSE_UA_RES_RELEASED);
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
	struct tcmx_pr_reg *src = pr_find_sender(cmd, o), *dst;
	struct pr_nx *to = &o->move_to;

	if (!src || src->key != o->key || !cd->pr_holder ||
	    !pr_is_holder(dev, src) || pr_type_all_reg(cd->pr_type))
		return TCMX_CONFLICT;
	if (!o->sa_key)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, 8, TCMX_NO_BIT);
	if (!to->lun)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, 18, TCMX_NO_BIT);
	dst = pr_nx_find(dev, o, to);
	/* the I_T nexus the command came on cannot be the destination */
	if (dst == src)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, PRO_PARAM_LEN, TCMX_NO_BIT);
	dst = dst ?: pr_add_reg(dev, o, to, o->sa_key, false);
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
	struct tcmx_pr_reg *reg = pr_find_sender(cmd, o);

	if (pr_spc2_other(cd, cmd))
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
		pr_clear(cmd, reg, gone);
		return TCMX_GOOD;
	}
	return pr_preempt(cmd, o, reg, gone);
}

/*
 * PREEMPT AND ABORT, pr_mutex held (cd->itls stays as it is), before the
 * state changes: room for a reference to each I_T_L nexus of the device;
 * false without memory.
 */
static bool pr_abort_alloc(struct tcmx_cmd *cmd, struct pr_out *o)
{
	struct tcmx_itl *itl;
	u32 n = 0;

	list_for_each_entry(itl, &tcmx_core(cmd->dev)->itls, dev_node)
		n++;
	o->held = kvcalloc(n ?: 1, sizeof(*o->held), GFP_KERNEL);
	return o->held;
}

/*
 * pr_mutex still held, the registrations @gone preempted: keep a
 * reference to each I_T_L nexus of theirs, for pr_abort_wait().  The
 * names compare with no spinlock held.
 */
static void pr_abort_hold(struct tcmx_cmd *cmd, struct pr_out *o,
			  struct list_head *gone)
{
	struct tcmx_core_dev *cd = tcmx_core(cmd->dev);
	struct tcmx_pr_reg *reg;
	struct tcmx_itl *itl;

	o->own = cmd->pinned ? cmd->itl : NULL;
	list_for_each_entry(itl, &cd->itls, dev_node)
		list_for_each_entry(reg, gone, node) {
			if (!pr_reg_is(reg, itl->lun, &itl->pr_hash,
				       itl->nexus->name, itl->nexus->port_id))
				continue;
			tcmx_itl_get(itl);
			o->held[o->nheld++] = itl;
			break;
		}
}

/*
 * Locks dropped: the gate refuses the preempted nexuses now.  Their
 * commands it let through before either run inline, in the fabric's RCU
 * read-side section (a grace period ends them), or were deferred, each
 * pinning its I_T_L nexus: wait for those of the preempted ones to finish
 * (but the PERSISTENT RESERVE OUT itself), so that none of them runs
 * after the PREEMPT AND ABORT completes.
 */
static void pr_abort_wait(struct tcmx_dev *dev, struct pr_out *o)
{
	unsigned long warn = jiffies + PR_ABORT_WARN;
	struct tcmx_itl *itl;
	int self;
	u32 i;

	synchronize_rcu();
	for (i = 0; i < o->nheld; i++) {
		itl = o->held[i];
		self = itl == o->own;
		/*
		 * What the core holds for a preempted nexus (a SANITIZE, a
		 * stuck command; never this PERSISTENT RESERVE OUT) is
		 * aborted, again each time: a READ the reservation lets
		 * through may be held after the first pass.
		 */
		for (;;) {
			tcmx_parked_abort_itl(itl, !self);
			if (wait_var_event_timeout(&itl->deferred,
						   atomic_read(&itl->deferred) <=
						   self, PR_ABORT_POLL))
				break;
			if (time_after(jiffies, warn)) {
				pr_warn("%s: PREEMPT AND ABORT: waiting for %d command(s) of a preempted I_T nexus\n",
					tcmx_dev_name(dev),
					atomic_read(&itl->deferred) - self);
				warn = jiffies + PR_ABORT_WARN;
			}
		}
		tcmx_itl_put(itl);
	}
	o->nheld = 0;
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
 * After pr_out_match(): a registration for each I_T nexus the service
 * action may register (the sender's, its other ports', those named, the
 * destination of a move), so spares for all on @o->spare; false without
 * memory (the caller frees them)
 */
static bool pr_out_spares(struct pr_out *o, u8 sa)
{
	struct tcmx_pr_reg *reg;
	u32 i, n = 0;

	if (pr_sa_has_aptpl(sa))
		n = 2 + o->nport + o->nnamed;
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
	mutex_lock(&cd->pr_mutex);
	if (!pr_out_match(cmd, o, p)) {
		status = tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_RESOURCES);
		goto unlock;
	}
	if (!pr_out_spares(o, sa)) {
		status = tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_REG_RESOURCES);
		goto unlock;
	}
	if (sa == PRO_PREEMPT_AND_ABORT && !pr_abort_alloc(cmd, o)) {
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
		pr_abort_hold(cmd, o, gone);
	/* the last REGISTER's APTPL bit decides (SPC-4 5.13.5) */
	if (status == TCMX_GOOD && pr_sa_has_aptpl(sa))
		cd->pr_aptpl = o->aptpl;
	if (status == TCMX_GOOD && save.file)
		pr_aptpl_text_set(dev, &save);
unlock:
	mutex_unlock(&cd->pr_mutex);
	mutex_unlock(&cd->lock);
	if (pr_aptpl_end(dev, &save, status == TCMX_GOOD))
		status = tcmx_sense(cmd, TCMX_SENSE_LU_COMM_FAILURE);
	mutex_unlock(&cd->pr_file_mutex);
	/* preempted: fenced, even if the file could not keep it */
	if (fence)
		pr_abort_wait(dev, o);
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
	o.name = pr_cmd_name(cmd);
	o.port_id = pr_cmd_port_id(cmd);
	/* before any lock: the walks under pr_lock compare hashes */
	pr_hash_set(dev, &o.hash, o.name, o.port_id);
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
	kvfree(o.port);
	kvfree(o.named);
	kvfree(o.held);
	list_splice_init(&o.spare, &gone);
	list_for_each_entry_safe(reg, tmp, &gone, node)
		kfree(reg);
	return status;
}
