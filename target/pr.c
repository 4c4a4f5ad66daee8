// SPDX-License-Identifier: GPL-2.0
/*
 * Reservations: PERSISTENT RESERVE IN/OUT (SPC-4 5.13, 6.15, 6.16) and the
 * SPC-2 RESERVE/RELEASE(6/10).
 *
 * An I_T nexus is an initiator port (a struct tcmx_nexus's name and
 * fabric port id: iSCSI's name and ISID) and a target port (the TPG's LUN
 * that exports the device, RTPI lun->rtpi).  A registration keeps a copy
 * of that identity (struct tcmx_pr_reg) and outlives the session; each
 * entry of a nexus's map (struct tcmx_itl, ua.c) points to the
 * registration of its I_T nexus, which is what the gate reads.  For a
 * nexus_per_tpg fabric (loopback) the TPG's one nexus is the initiator
 * port, whatever its name, and the LUN alone names the I_T nexus.
 *
 * The state lives on the device (struct tcmx_dev, pr_*): every command of
 * these files runs in a worker (TCMX_CMD_DEFER) under cd->pr_mutex and
 * changes the state under cd->pr_lock and cd->pr_seq, which the gate
 * reads it through without a lock (each LUN points to its registration,
 * so the gate's question is a few loads).  While a
 * reservation exists (persistent or SPC-2) TCMX_GATE_PR is set and the
 * gate calls tcmx_pr_check(); registrations alone cost nothing.
 *
 * With emulate_pr 0 the PR commands are unknown opcodes, and, as in-tree
 * (target_check_reservation()), a reservation that exists then is not
 * enforced: nothing could end it.  It is kept, and enforced again once
 * emulate_pr is back to 1.
 *
 * This file holds that state, the gate's check, SPC-2 RESERVE/RELEASE and
 * the rows; pr_in.c and pr_out.c the PERSISTENT RESERVE commands,
 * pr_aptpl.c the APTPL file and pr/res_aptpl_metadata, pr_cfs.c the
 * device's pr/ directory; pr.h is what they share.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <scsi/scsi_proto.h>
#include "pr.h"

/* reservation types */
#define PR_TYPE_WE		0x1	/* write exclusive */
#define PR_TYPE_EA		0x3	/* exclusive access */
#define PR_TYPE_WE_RO		0x5	/* ... registrants only */
#define PR_TYPE_EA_RO		0x6
#define PR_TYPE_WE_AR		0x7	/* ... all registrants */
#define PR_TYPE_EA_AR		0x8

void tcmx_pr_dev_init(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	mutex_init(&cd->pr_mutex);
	mutex_init(&cd->pr_file_mutex);
	spin_lock_init(&cd->pr_lock);
	seqcount_spinlock_init(&cd->pr_seq, &cd->pr_lock);
	INIT_LIST_HEAD(&cd->pr_regs);
	INIT_LIST_HEAD(&cd->pr_saved);
	get_random_bytes(&cd->pr_hash_key, sizeof(cd->pr_hash_key));
	/* from the process creating the device, if <dbroot>/pr is there */
	pr_aptpl_dir_pin(cd);
}

/*
 * The reservation types, one entry each (SPC-4 5.13.1.1): the name the
 * pr/ files show, and who besides the holder has access.  The kernel's
 * enum pr_type numbers them for the block layer, not as SCSI does.
 */
#define PR_T_WE		BIT(0)	/* write exclusive: reads pass */
#define PR_T_REG	BIT(1)	/* registered nexuses have access */
#define PR_T_ALL	BIT(2)	/* every registrant is a holder */

struct pr_type_info {
	u8		flags;		/* PR_T_* */
	const char	*name;		/* NULL: not a type */
};

/* indexed by the type's code, so that the gate's look-up is one load */
static const struct pr_type_info pr_types[] = {
	[PR_TYPE_WE] = { PR_T_WE, "Write Exclusive Access" },
	[PR_TYPE_EA] = { 0, "Exclusive Access" },
	[PR_TYPE_WE_RO] = { PR_T_WE | PR_T_REG,
			    "Write Exclusive Access, Registrants Only" },
	[PR_TYPE_EA_RO] = { PR_T_REG, "Exclusive Access, Registrants Only" },
	[PR_TYPE_WE_AR] = { PR_T_WE | PR_T_REG | PR_T_ALL,
			    "Write Exclusive Access, All Registrants" },
	[PR_TYPE_EA_AR] = { PR_T_REG | PR_T_ALL,
			    "Exclusive Access, All Registrants" },
};

static const struct pr_type_info *pr_type_find(u8 type)
{
	if (type >= ARRAY_SIZE(pr_types) || !pr_types[type].name)
		return NULL;
	return &pr_types[type];
}

bool pr_type_valid(u8 type)
{
	return pr_type_find(type);
}

static bool pr_type_is(u8 type, u8 flag)
{
	const struct pr_type_info *t = pr_type_find(type);

	return t && t->flags & flag;
}

bool pr_type_all_reg(u8 type)
{
	return pr_type_is(type, PR_T_ALL);
}

/* registrants only or all registrants: registered nexuses have access */
bool pr_type_reg(u8 type)
{
	return pr_type_is(type, PR_T_REG);
}

static bool pr_type_we(u8 type)
{
	return pr_type_is(type, PR_T_WE);
}

const char *pr_type_name(u8 type)
{
	const struct pr_type_info *t = pr_type_find(type);

	return t ? t->name : "Unknown SPC-3 Reservation Type";
}

/* ---- state, under cd->pr_lock ---------------------------------------- */

bool pr_per_tpg(struct tcmx_lun *lun)
{
	const struct tcmx_fabric_ops *ops = lun->tpg->ops;

	return ops && ops->nexus_per_tpg;
}

/*
 * The hash of @s (at most @size - 1 bytes of it) without case, keyed per
 * device: an initiator cannot pick names whose hashes collide with
 * another's, so the compares it can cause under the state lock are those
 * of its own identity.  Its length into *@len.
 */
static u32 pr_hash_str(struct tcmx_dev *dev, const char *s, size_t size,
		       u16 *len)
{
	char low[TCMX_NAME_LEN];
	size_t n;

	for (n = 0; n + 1 < min(size, sizeof(low)) && s[n]; n++)
		low[n] = tolower(s[n]);
	*len = n;
	return (u32)siphash(low, n, &tcmx_core(dev)->pr_hash_key);
}

void pr_hash_set(struct tcmx_dev *dev, struct tcmx_pr_hash *h,
		 const char *name, const char *port_id)
{
	h->name = pr_hash_str(dev, name, TCMX_NAME_LEN, &h->name_len);
	h->port_id = pr_hash_str(dev, port_id, TCMX_PORT_ID_LEN,
				 &h->port_id_len);
}

/*
 * A registration without a port id (made from a TransportID without
 * ISID) is that of every port of the name; iSCSI names compare without
 * case, as TransportIDs do.  The hashes first: the names compare only
 * for the registration of the identity (or a collision), so that a walk
 * under pr_lock costs a few loads per entry.
 */
bool pr_reg_is(const struct tcmx_pr_reg *reg, struct tcmx_lun *lun,
	       const struct tcmx_pr_hash *h, const char *name,
	       const char *port_id)
{
	const struct tcmx_pr_hash *r = &reg->hash;

	if (reg->lun != lun)
		return false;
	if (pr_per_tpg(lun))
		return true;
	if (r->name != h->name || r->name_len != h->name_len)
		return false;
	if (r->port_id_len && h->port_id_len &&
	    (r->port_id != h->port_id || r->port_id_len != h->port_id_len))
		return false;
	return !strcasecmp(reg->name, name) &&
	       (!reg->port_id[0] || !port_id[0] ||
		!strcasecmp(reg->port_id, port_id));
}

struct tcmx_pr_reg *pr_find(struct tcmx_dev *dev, struct tcmx_lun *lun,
			    const char *name, const char *port_id)
{
	struct tcmx_pr_hash h = { };
	struct tcmx_pr_reg *reg;

	if (!pr_per_tpg(lun))
		pr_hash_set(dev, &h, name, port_id);
	list_for_each_entry(reg, &tcmx_core(dev)->pr_regs, node)
		if (pr_reg_is(reg, lun, &h, name, port_id))
			return reg;
	return NULL;
}

const char *pr_cmd_name(struct tcmx_cmd *cmd)
{
	return cmd->nexus ? cmd->nexus->name : "";
}

const char *pr_cmd_port_id(struct tcmx_cmd *cmd)
{
	return cmd->nexus ? cmd->nexus->port_id : "";
}

void pr_reg_set_id(struct tcmx_pr_reg *reg, struct tcmx_lun *lun, u64 mapped,
		   const char *name, const char *port_id)
{
	reg->lun = lun;
	reg->mapped_lun = mapped;
	if (pr_per_tpg(lun))
		pr_nexus_copy(lun, reg->name, sizeof(reg->name));
	else
		strscpy(reg->name, name, sizeof(reg->name));
	strscpy(reg->port_id, port_id, sizeof(reg->port_id));
	pr_hash_set(lun->dev, &reg->hash, reg->name, reg->port_id);
}

/* the hashes of @itl's initiator port are made before it is on cd->itls */
static bool pr_itl_is(struct tcmx_itl *itl, const struct tcmx_pr_reg *reg)
{
	return pr_reg_is(reg, itl->lun, &itl->pr_hash, itl->nexus->name,
			 itl->nexus->port_id);
}

/*
 * The I_T_L nexuses of @reg's I_T nexus point to it from now on.  pr_mutex
 * and the state lock held: cd->itls only changes under pr_mutex
 * (tcmx_pr_itl_new(), tcmx_pr_itl_gone()), and itl->pr_reg only under
 * pr_lock, which every other reader but the gate (pr_seq) holds, so the
 * walk needs no tcmx_itl_lock.
 */
void pr_reg_attach(struct tcmx_core_dev *cd, struct tcmx_pr_reg *reg)
{
	struct tcmx_itl *itl;

	lockdep_assert_held(&cd->pr_mutex);
	list_move_tail(&reg->node, &cd->pr_regs);
	list_for_each_entry(itl, &cd->itls, dev_node)
		if (!itl->pr_reg && pr_itl_is(itl, reg))
			WRITE_ONCE(itl->pr_reg, reg);
}

/* @to NULL: off every list; the locks as for pr_reg_attach() */
void pr_reg_detach(struct tcmx_core_dev *cd, struct tcmx_pr_reg *reg,
		   struct list_head *to)
{
	struct tcmx_itl *itl;

	lockdep_assert_held(&cd->pr_mutex);
	if (to)
		list_move_tail(&reg->node, to);
	else
		list_del_init(&reg->node);
	list_for_each_entry(itl, &cd->itls, dev_node)
		if (itl->pr_reg == reg)
			WRITE_ONCE(itl->pr_reg, NULL);
}

/*
 * A new I_T_L nexus, not yet published: the registration of its I_T
 * nexus, and onto the device's list under pr_mutex and pr_lock, so that
 * no change of the registrations misses it and PR's walks of the list
 * (pr_match.c) may compare names with only pr_mutex held.  A loss of an
 * I_T nexus of its registration is told once, to the first that comes.
 */
void tcmx_pr_itl_new(struct tcmx_itl *itl)
{
	struct tcmx_core_dev *cd = tcmx_core(itl->dev);
	enum tcmx_sense code = TCMX_SENSE_UA_POWER_ON;
	struct tcmx_pr_reg *reg;

	/* a nexus_per_tpg fabric's name is not compared (and may change) */
	if (!pr_per_tpg(itl->lun))
		pr_hash_set(itl->dev, &itl->pr_hash, itl->nexus->name,
			    itl->nexus->port_id);
	mutex_lock(&cd->pr_mutex);
	spin_lock_irq(&cd->pr_lock);
	list_for_each_entry(reg, &cd->pr_regs, node)
		if (pr_itl_is(itl, reg)) {
			itl->pr_reg = reg;
			/* its registration outlived it: the nexus was lost */
			if (reg->nexus_lost)
				code = TCMX_SENSE_UA_I_T_NEXUS_LOSS;
			reg->nexus_lost = false;
			break;
		}
	spin_lock(&tcmx_itl_lock);
	list_add_tail(&itl->dev_node, &cd->itls);
	/* a new I_T nexus to the logical unit, as SAM-5 6.3.1 has it */
	tcmx_ua_itl_locked(itl, code);
	spin_unlock(&tcmx_itl_lock);
	spin_unlock_irq(&cd->pr_lock);
	mutex_unlock(&cd->pr_mutex);
}

bool pr_spc2_other(struct tcmx_core_dev *cd, struct tcmx_cmd *cmd)
{
	return cd->spc2_holder &&
	       (cd->spc2_holder != cmd->lun || cd->spc2_nexus != cmd->nexus);
}

static void pr_spc2_clear(struct tcmx_core_dev *cd)
{
	WRITE_ONCE(cd->spc2_holder, NULL);
	WRITE_ONCE(cd->spc2_nexus, NULL);
}

/*
 * An I_T_L nexus leaves its map (its session ended, or the mapping went):
 * an I_T nexus loss at once, even while a registered one still ends
 * (tcmx_itl_del()): the SPC-2 reservation its I_T nexus held ends, and
 * its registration, which stays (SPC-4 5.13.2), remembers the loss, so
 * that an I_T nexus of the same identity that comes back, now or later,
 * starts with I_T NEXUS LOSS OCCURRED (29/07) rather than POWER ON.
 */
void tcmx_pr_itl_lost(struct tcmx_itl *itl)
{
	struct tcmx_core_dev *cd = tcmx_core(itl->dev);

	/* pr_mutex too: pr_cfs.c reads the holder's nexus under it */
	mutex_lock(&cd->pr_mutex);
	pr_state_lock(cd);
	if (itl->pr_reg)
		itl->pr_reg->nexus_lost = true;
	if (cd->spc2_holder == itl->lun && cd->spc2_nexus == itl->nexus) {
		pr_spc2_clear(cd);
		pr_update_gate(itl->dev);
	}
	pr_state_unlock(cd);
	mutex_unlock(&cd->pr_mutex);
}

/*
 * Its end, once its commands are done: off the device's list with its
 * unit attentions.  Nothing of this is on the command path.
 */
void tcmx_pr_itl_gone(struct tcmx_itl *itl)
{
	struct tcmx_core_dev *cd = tcmx_core(itl->dev);

	mutex_lock(&cd->pr_mutex);
	pr_state_lock(cd);
	spin_lock(&tcmx_itl_lock);
	list_del(&itl->dev_node);
	tcmx_ua_itl_clear(itl);
	spin_unlock(&tcmx_itl_lock);
	pr_state_unlock(cd);
	mutex_unlock(&cd->pr_mutex);
}

/*
 * the LUN's initiator port: the TPG's nexus, whose name is whole once
 * published (tcmx_nexus_register()); load it once per use
 */
const char *pr_nexus_name(struct tcmx_lun *lun)
{
	/* pairs with the release in tcmx_nexus_register() */
	return smp_load_acquire(&lun->tpg->nexus_name) ?: "";
}

/*
 * The LUN's initiator port name into @buf (@size bytes, NUL-terminated,
 * cut to fit), its length: a copy read once, byte by byte, so that a
 * fabric changing the name meanwhile can give a mix of two names but
 * never more than @size bytes.
 */
size_t pr_nexus_copy(struct tcmx_lun *lun, char *buf, size_t size)
{
	const char *name = pr_nexus_name(lun);
	size_t i;

	for (i = 0; i + 1 < size; i++) {
		buf[i] = READ_ONCE(name[i]);
		if (!buf[i])
			return i;
	}
	buf[i] = '\0';
	return i;
}

bool pr_is_holder(struct tcmx_dev *dev, struct tcmx_pr_reg *reg)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	return reg && cd->pr_holder &&
	       (reg == cd->pr_holder || pr_type_all_reg(cd->pr_type));
}

void pr_update_gate(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	if ((cd->pr_holder || cd->spc2_holder) &&
	    READ_ONCE(dev->attrib.emulate_pr))
		set_bit(TCMX_GATE_PR, &dev->gate);
	else
		clear_bit(TCMX_GATE_PR, &dev->gate);
}

void tcmx_pr_emulate_changed(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	spin_lock_irq(&cd->pr_lock);
	pr_update_gate(dev);
	spin_unlock_irq(&cd->pr_lock);
}

/*
 * A LOGICAL UNIT RESET ends an SPC-2 reservation, whoever held it (as
 * in-tree core_tmr_lun_reset()); persistent reservations stay (SPC-4
 * 5.13.1).
 */
void tcmx_pr_lun_reset(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	unsigned long flags;

	spin_lock_irqsave(&cd->pr_lock, flags);
	write_seqcount_begin(&cd->pr_seq);
	pr_spc2_clear(cd);
	pr_update_gate(dev);
	write_seqcount_end(&cd->pr_seq);
	spin_unlock_irqrestore(&cd->pr_lock, flags);
}

static bool pr_itl_has(const struct tcmx_itl *itl, const void *reg)
{
	return itl->pr_reg == reg;
}

void pr_ua_reg(struct tcmx_dev *dev, struct tcmx_pr_reg *reg,
	       enum tcmx_sense code)
{
	tcmx_ua_each(dev, pr_itl_has, reg, code);
}

void pr_ua_others(struct tcmx_dev *dev, struct tcmx_pr_reg *except,
		  enum tcmx_sense code)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg;

	list_for_each_entry(reg, &cd->pr_regs, node)
		if (reg != except)
			pr_ua_reg(dev, reg, code);
}

/* registrants only: the other registrants hear of its end */
bool pr_type_ro(u8 type)
{
	return pr_type_is(type, PR_T_REG) && !pr_type_is(type, PR_T_ALL);
}

/*
 * Drop @reg.  If it held the reservation: an all-registrants one passes
 * to another registrant, any other one ends, and a registrants-only one
 * with @ua tells the remaining registrants RESERVATIONS RELEASED (SPC-4
 * 5.13.11.2.2).  The caller frees @reg and updates the gate.
 */
void pr_unregister(struct tcmx_dev *dev, struct tcmx_pr_reg *reg, bool ua)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	pr_reg_detach(cd, reg, NULL);
	if (cd->pr_holder != reg)
		return;
	if (pr_type_all_reg(cd->pr_type) && !list_empty(&cd->pr_regs)) {
		cd->pr_holder = list_first_entry(&cd->pr_regs,
						 struct tcmx_pr_reg, node);
		return;
	}
	cd->pr_holder = NULL;
	if (ua && (cd->pr_type == PR_TYPE_WE_RO ||
		   cd->pr_type == PR_TYPE_EA_RO))
		pr_ua_others(dev, NULL, TCMX_SENSE_UA_RES_RELEASED);
}

/* the target port goes: every registration through it */
void tcmx_pr_lun_gone(struct tcmx_lun *lun, struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg, *tmp;
	LIST_HEAD(gone);

	mutex_lock(&cd->pr_mutex);
	pr_state_lock(cd);
	list_for_each_entry_safe(reg, tmp, &cd->pr_regs, node) {
		if (reg->lun != lun)
			continue;
		pr_unregister(dev, reg, false);
		list_add_tail(&reg->node, &gone);
	}
	if (cd->spc2_holder == lun)
		pr_spc2_clear(cd);
	pr_update_gate(dev);
	pr_state_unlock(cd);
	mutex_unlock(&cd->pr_mutex);
	list_for_each_entry_safe(reg, tmp, &gone, node)
		kfree(reg);
	/* what the nexus left in the device's echo buffer too */
	tcmx_echo_lun_gone(lun, dev);
}

/* ---- the gate --------------------------------------------------------- */

/* what the gate reads of the state, at one point of it (pr_seq) */
struct pr_view {
	struct tcmx_lun		*spc2_holder;
	struct tcmx_nexus	*spc2_nexus;
	struct tcmx_pr_reg	*holder;
	struct tcmx_pr_reg	*reg;		/* the nexus's */
	u8			type;
};

/* nothing of the view is dereferenced: it may be gone already */
static bool pr_conflicts(const struct pr_view *v, struct tcmx_cmd *cmd,
			 const struct tcmx_cmd_desc *d)
{
	bool writes;

	/* the rows say which commands conflict with none (tcmx_core.h) */
	if (v->spc2_holder)
		return (v->spc2_holder != cmd->lun ||
			v->spc2_nexus != cmd->nexus) &&
		       !(d->flags & TCMX_CMD_SPC2_OK);
	if (!v->holder || d->flags & TCMX_CMD_PR_OK)
		return false;
	if (v->reg && (v->reg == v->holder || pr_type_all_reg(v->type)))
		return false;
	if (v->reg && pr_type_reg(v->type))
		return false;
	writes = d->flags & TCMX_CMD_WRITE || d->dir == DMA_TO_DEVICE;
	/* write exclusive: reads pass, registered or not */
	if (pr_type_we(v->type))
		return writes;
	return true;
}

/*
 * While a reservation exists: a few loads, retried if a PR command
 * changed the state meanwhile; no lock, no walk of the registrations.
 */
enum tcmx_status tcmx_pr_check(struct tcmx_cmd *cmd,
			       const struct tcmx_cmd_desc *d)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_itl *itl;
	struct pr_view v;
	unsigned int seq;

	if (!d || !cmd->lun || !READ_ONCE(dev->attrib.emulate_pr))
		return TCMX_GOOD;
	/* the command's I_T_L nexus (xcopy.c asks from outside one) */
	rcu_read_lock();
	itl = tcmx_cmd_itl(cmd);
	do {
		seq = read_seqcount_begin(&cd->pr_seq);
		v.spc2_holder = READ_ONCE(cd->spc2_holder);
		v.spc2_nexus = READ_ONCE(cd->spc2_nexus);
		v.holder = READ_ONCE(cd->pr_holder);
		v.type = READ_ONCE(cd->pr_type);
		v.reg = itl ? READ_ONCE(itl->pr_reg) : NULL;
	} while (read_seqcount_retry(&cd->pr_seq, seq));
	rcu_read_unlock();
	return pr_conflicts(&v, cmd, d) ? TCMX_CONFLICT : TCMX_GOOD;
}

/* ---- SPC-2 RESERVE and RELEASE (SPC-2 7.21, 7.12) ---------------------- */

static enum tcmx_status pr_spc2_reserve(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	enum tcmx_status status = TCMX_GOOD;

	mutex_lock(&cd->pr_mutex);
	pr_state_lock(cd);
	/* SPC-4 5.13.3: not while persistent reservations are in use */
	if (!list_empty(&cd->pr_regs) || cd->pr_holder ||
	    pr_spc2_other(cd, cmd)) {
		status = TCMX_CONFLICT;
	} else {
		WRITE_ONCE(cd->spc2_holder, cmd->lun);
		WRITE_ONCE(cd->spc2_nexus, cmd->nexus);
	}
	pr_update_gate(dev);
	pr_state_unlock(cd);
	mutex_unlock(&cd->pr_mutex);
	return status;
}

/* by another nexus than the holder's, or with none: GOOD, nothing done */
static enum tcmx_status pr_spc2_release(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);

	mutex_lock(&cd->pr_mutex);
	pr_state_lock(cd);
	if (cd->spc2_holder && !pr_spc2_other(cd, cmd))
		pr_spc2_clear(cd);
	pr_update_gate(dev);
	pr_state_unlock(cd);
	mutex_unlock(&cd->pr_mutex);
	return TCMX_GOOD;
}

/* ---- rows ------------------------------------------------------------- */

/* with emulate_pr 0 there are no reservations: unknown opcodes, in-tree */
static enum tcmx_status pr_parse(struct tcmx_cmd *cmd)
{
	if (!READ_ONCE(cmd->dev->attrib.emulate_pr))
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_OPCODE);
	return TCMX_GOOD;
}

/*
 * All run in a worker.  PERSISTENT RESERVE IN/OUT in Standby too, and no
 * reservation conflicts with them (OUT's service actions check keys); no
 * SPC-2 reservation with RELEASE.
 */
#define PR_ROW_FLAGS	(TCMX_CMD_LUN | TCMX_CMD_SA | TCMX_CMD_DEFER |	\
			 TCMX_CMD_IN_STANDBY | TCMX_CMD_PR_OK)
#define PR_SPC2_FLAGS	(TCMX_CMD_LUN | TCMX_CMD_DEFER)
#define PR_RELEASE_FLAGS (PR_SPC2_FLAGS | TCMX_CMD_PR_OK | TCMX_CMD_SPC2_OK)

#define PRI_ROW(_sa, _name)						\
	{ .opcode = PERSISTENT_RESERVE_IN, .sa = _sa, .len = 10,	\
	  .dir = DMA_FROM_DEVICE,					\
	  .flags = PR_ROW_FLAGS, .name = _name,				\
	  .usage = { PERSISTENT_RESERVE_IN, _sa, 0x00, 0x00, 0x00,	\
		     0x00, 0x00, 0xff, 0xff, 0x00 },			\
	  .parse = pr_parse, .execute = pr_in }

#define PRO_ROW(_sa, _name, _type)					\
	{ .opcode = PERSISTENT_RESERVE_OUT, .sa = _sa, .len = 10,	\
	  .dir = DMA_TO_DEVICE,						\
	  .flags = PR_ROW_FLAGS, .name = _name,				\
	  .usage = { PERSISTENT_RESERVE_OUT, _sa, _type, 0x00, 0x00,	\
		     0xff, 0xff, 0xff, 0xff, 0x00 },			\
	  .parse = pr_parse, .execute = pr_out }

struct tcmx_cmd_desc tcmx_pr_cmds[] = {
	PRI_ROW(PRI_READ_KEYS, "PERSISTENT RESERVE IN - READ KEYS"),
	PRI_ROW(PRI_READ_RESERVATION,
		"PERSISTENT RESERVE IN - READ RESERVATION"),
	PRI_ROW(PRI_REPORT_CAPABILITIES,
		"PERSISTENT RESERVE IN - REPORT CAPABILITIES"),
	PRI_ROW(PRI_READ_FULL_STATUS,
		"PERSISTENT RESERVE IN - READ FULL STATUS"),
	/* scope and type matter to RESERVE, RELEASE, PREEMPT only */
	PRO_ROW(PRO_REGISTER, "PERSISTENT RESERVE OUT - REGISTER", 0xff),
	PRO_ROW(PRO_RESERVE, "PERSISTENT RESERVE OUT - RESERVE", 0xff),
	PRO_ROW(PRO_RELEASE, "PERSISTENT RESERVE OUT - RELEASE", 0xff),
	PRO_ROW(PRO_CLEAR, "PERSISTENT RESERVE OUT - CLEAR", 0xff),
	PRO_ROW(PRO_PREEMPT, "PERSISTENT RESERVE OUT - PREEMPT", 0xff),
	PRO_ROW(PRO_PREEMPT_AND_ABORT,
		"PERSISTENT RESERVE OUT - PREEMPT AND ABORT", 0xff),
	PRO_ROW(PRO_REGISTER_IGNORE,
		"PERSISTENT RESERVE OUT - REGISTER AND IGNORE EXISTING KEY",
		0xff),
	PRO_ROW(PRO_REGISTER_AND_MOVE,
		"PERSISTENT RESERVE OUT - REGISTER AND MOVE", 0xff),
	{ .opcode = RESERVE, .len = 6, .dir = DMA_NONE,
	  .flags = PR_SPC2_FLAGS, .name = "RESERVE(6)",
	  .usage = { RESERVE, 0x00, 0x00, 0x00, 0x00, 0x00 },
	  .parse = pr_parse, .execute = pr_spc2_reserve },
	{ .opcode = RELEASE, .len = 6, .dir = DMA_NONE,
	  .flags = PR_RELEASE_FLAGS, .name = "RELEASE(6)",
	  .usage = { RELEASE, 0x00, 0x00, 0x00, 0x00, 0x00 },
	  .parse = pr_parse, .execute = pr_spc2_release },
	{ .opcode = RESERVE_10, .len = 10, .dir = DMA_NONE,
	  .flags = PR_SPC2_FLAGS, .name = "RESERVE(10)",
	  .usage = { RESERVE_10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		     0x00, 0x00, 0x00 },
	  .parse = pr_parse, .execute = pr_spc2_reserve },
	{ .opcode = RELEASE_10, .len = 10, .dir = DMA_NONE,
	  .flags = PR_RELEASE_FLAGS, .name = "RELEASE(10)",
	  .usage = { RELEASE_10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		     0x00, 0x00, 0x00 },
	  .parse = pr_parse, .execute = pr_spc2_release },
	{ }
};
