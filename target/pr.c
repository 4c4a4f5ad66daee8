// SPDX-License-Identifier: GPL-2.0
/*
 * Reservations: PERSISTENT RESERVE IN/OUT (SPC-4 5.13, 6.15, 6.16) and the
 * SPC-2 RESERVE/RELEASE(6/10).
 *
 * An I_T nexus is a struct tcmx_lun: each LUN of a TPG is the TPG's one
 * nexus to the device, so two LUNs linking one device (in two TPGs) are
 * two nexuses to one logical unit.  Its initiator port is the TPG's
 * nexus_name, its target port the WWN and TPG (RTPI lun->rtpi).
 *
 * The state lives on the device (struct tcmx_dev, pr_*): every command of
 * this file runs in a tcmx_defer'd function under dev->pr_mutex and
 * changes the state under dev->pr_lock, which the gate takes too.  While a
 * reservation exists (persistent or SPC-2) TCMX_GATE_PR is set and the
 * gate calls tcmx_pr_check(); registrations alone cost nothing.
 *
 * REGISTER AND MOVE finds its destination nexus among the device's LUNs
 * by relative target port identifier and the TransportID of the TPG's
 * nexus.  Not supported (refused, and REPORT CAPABILITIES says so): APTPL
 * (PTPL_C 0), SPEC_I_PT (SIP_C 0) and ALL_TG_PT (ATP_C 0).  PREEMPT AND ABORT preempts as
 * PREEMPT does; the preempted nexuses' tasks are not aborted (none stay
 * queued in the core beyond a deferred command).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/version.h>
#if KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE	/* moved there in 6.12 */
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"

#define PR_OP_RESERVE_6		0x16
#define PR_OP_RELEASE_6		0x17
#define PR_OP_RESERVE_10	0x56
#define PR_OP_RELEASE_10	0x57

/* PERSISTENT RESERVE IN service actions */
#define PRI_READ_KEYS		0x00
#define PRI_READ_RESERVATION	0x01
#define PRI_REPORT_CAPABILITIES	0x02
#define PRI_READ_FULL_STATUS	0x03

/* PERSISTENT RESERVE OUT service actions */
#define PRO_REGISTER		0x00
#define PRO_RESERVE		0x01
#define PRO_RELEASE		0x02
#define PRO_CLEAR		0x03
#define PRO_PREEMPT		0x04
#define PRO_PREEMPT_AND_ABORT	0x05
#define PRO_REGISTER_IGNORE	0x06
#define PRO_REGISTER_AND_MOVE	0x07

/* reservation types */
#define PR_TYPE_WE		0x1	/* write exclusive */
#define PR_TYPE_EA		0x3	/* exclusive access */
#define PR_TYPE_WE_RO		0x5	/* ... registrants only */
#define PR_TYPE_EA_RO		0x6
#define PR_TYPE_WE_AR		0x7	/* ... all registrants */
#define PR_TYPE_EA_AR		0x8

#define PRO_PARAM_LEN		24	/* the basic parameter list */
#define PRO_SPEC_I_PT		BIT(3)	/* byte 20 */
#define PRO_ALL_TG_PT		BIT(2)
#define PRO_APTPL		BIT(0)
#define PRO_MOVE_UNREG		BIT(1)	/* REGISTER AND MOVE, byte 17 */
#define PRO_MOVE_APTPL		BIT(0)

/* one registered I_T nexus */
struct tcmx_pr_reg {
	struct list_head	node;		/* dev->pr_regs */
	struct tcmx_lun		*lun;
	u64			key;
	u32			generation;	/* PRgeneration when registered */
};

void tcmx_pr_dev_init(struct tcmx_dev *dev)
{
	mutex_init(&dev->pr_mutex);
	spin_lock_init(&dev->pr_lock);
	INIT_LIST_HEAD(&dev->pr_regs);
}

static bool pr_type_valid(u8 type)
{
	switch (type) {
	case PR_TYPE_WE:
	case PR_TYPE_EA:
	case PR_TYPE_WE_RO:
	case PR_TYPE_EA_RO:
	case PR_TYPE_WE_AR:
	case PR_TYPE_EA_AR:
		return true;
	}
	return false;
}

static bool pr_type_all_reg(u8 type)
{
	return type == PR_TYPE_WE_AR || type == PR_TYPE_EA_AR;
}

/* registrants only or all registrants: registered nexuses have access */
static bool pr_type_reg(u8 type)
{
	return type >= PR_TYPE_WE_RO;
}

static bool pr_type_we(u8 type)
{
	return type == PR_TYPE_WE || type == PR_TYPE_WE_RO ||
	       type == PR_TYPE_WE_AR;
}

static const char *pr_type_name(u8 type)
{
	switch (type) {
	case PR_TYPE_WE:
		return "Write Exclusive Access";
	case PR_TYPE_EA:
		return "Exclusive Access";
	case PR_TYPE_WE_RO:
		return "Write Exclusive Access, Registrants Only";
	case PR_TYPE_EA_RO:
		return "Exclusive Access, Registrants Only";
	case PR_TYPE_WE_AR:
		return "Write Exclusive Access, All Registrants";
	case PR_TYPE_EA_AR:
		return "Exclusive Access, All Registrants";
	}
	return "Unknown SPC-3 Reservation Type";
}

/* ---- state, under dev->pr_lock ---------------------------------------- */

static struct tcmx_pr_reg *pr_find(struct tcmx_dev *dev, struct tcmx_lun *lun)
{
	struct tcmx_pr_reg *reg;

	list_for_each_entry(reg, &dev->pr_regs, node)
		if (reg->lun == lun)
			return reg;
	return NULL;
}

static bool pr_is_holder(struct tcmx_dev *dev, struct tcmx_pr_reg *reg)
{
	return reg && dev->pr_holder &&
	       (reg == dev->pr_holder || pr_type_all_reg(dev->pr_type));
}

static void pr_update_gate(struct tcmx_dev *dev)
{
	if (dev->pr_holder || dev->spc2_holder)
		set_bit(TCMX_GATE_PR, &dev->gate);
	else
		clear_bit(TCMX_GATE_PR, &dev->gate);
}

static void pr_ua_others(struct tcmx_dev *dev, struct tcmx_lun *except,
			 enum tcmx_sense code)
{
	struct tcmx_pr_reg *reg;

	list_for_each_entry(reg, &dev->pr_regs, node)
		if (reg->lun != except)
			tcmx_ua_add(reg->lun, dev, code);
}

/*
 * Drop @reg.  If it held the reservation: an all-registrants one passes
 * to another registrant, any other one ends, and a registrants-only one
 * with @ua tells the remaining registrants RESERVATIONS RELEASED (SPC-4
 * 5.13.11.2.2).  The caller frees @reg and updates the gate.
 */
static void pr_unregister(struct tcmx_dev *dev, struct tcmx_pr_reg *reg,
			  bool ua)
{
	list_del(&reg->node);
	if (dev->pr_holder != reg)
		return;
	if (pr_type_all_reg(dev->pr_type) && !list_empty(&dev->pr_regs)) {
		dev->pr_holder = list_first_entry(&dev->pr_regs,
						  struct tcmx_pr_reg, node);
		return;
	}
	dev->pr_holder = NULL;
	if (ua && (dev->pr_type == PR_TYPE_WE_RO ||
		   dev->pr_type == PR_TYPE_EA_RO))
		pr_ua_others(dev, NULL, TCMX_SENSE_UA_RES_RELEASED);
}

void tcmx_pr_lun_gone(struct tcmx_lun *lun, struct tcmx_dev *dev)
{
	struct tcmx_pr_reg *reg;

	mutex_lock(&dev->pr_mutex);
	spin_lock_irq(&dev->pr_lock);
	reg = pr_find(dev, lun);
	if (reg)
		pr_unregister(dev, reg, false);
	if (dev->spc2_holder == lun)
		dev->spc2_holder = NULL;
	pr_update_gate(dev);
	spin_unlock_irq(&dev->pr_lock);
	mutex_unlock(&dev->pr_mutex);
	kfree(reg);
}

/* ---- the gate --------------------------------------------------------- */

/* Commands no reservation conflicts with (SPC-4 table 53, SBC-3 table 13). */
static bool pr_always_allowed(const struct tcmx_cmd_desc *d)
{
	switch (d->opcode) {
	case TEST_UNIT_READY:
	case REQUEST_SENSE:
	case INQUIRY:
	case LOG_SENSE:
	case REPORT_LUNS:
	case READ_CAPACITY:
	case MAINTENANCE_IN:		/* RSOC, RSTMF, RTPG, timestamp */
	case PERSISTENT_RESERVE_IN:
	case PERSISTENT_RESERVE_OUT:	/* its service actions check keys */
	case PR_OP_RELEASE_6:
	case PR_OP_RELEASE_10:
		return true;
	case SERVICE_ACTION_IN_16:
		return d->sa == SAI_READ_CAPACITY_16;
	}
	return false;
}

/* SPC-2: what a nexus other than the holder may still send */
static bool pr_spc2_allowed(const struct tcmx_cmd_desc *d)
{
	switch (d->opcode) {
	case INQUIRY:
	case REQUEST_SENSE:
	case REPORT_LUNS:
	case PR_OP_RELEASE_6:
	case PR_OP_RELEASE_10:
		return true;
	}
	return false;
}

static bool pr_conflicts(struct tcmx_dev *dev, struct tcmx_lun *lun,
			 const struct tcmx_cmd_desc *d)
{
	struct tcmx_pr_reg *reg;
	u8 type = dev->pr_type;
	bool writes;

	if (dev->spc2_holder)
		return dev->spc2_holder != lun && !pr_spc2_allowed(d);
	if (!dev->pr_holder || pr_always_allowed(d))
		return false;
	reg = pr_find(dev, lun);
	if (pr_is_holder(dev, reg))
		return false;
	if (reg && pr_type_reg(type))
		return false;
	writes = d->flags & TCMX_CMD_WRITE || d->dir == DMA_TO_DEVICE;
	/* write exclusive: reads pass, registered or not */
	if (pr_type_we(type))
		return writes;
	return true;
}

enum tcmx_status tcmx_pr_check(struct tcmx_cmd *cmd,
			       const struct tcmx_cmd_desc *d)
{
	struct tcmx_dev *dev = cmd->dev;
	unsigned long flags;
	bool conflict;

	if (!d || !cmd->lun)
		return TCMX_GOOD;
	spin_lock_irqsave(&dev->pr_lock, flags);
	conflict = pr_conflicts(dev, cmd->lun, d);
	spin_unlock_irqrestore(&dev->pr_lock, flags);
	return conflict ? TCMX_CONFLICT : TCMX_GOOD;
}

/* ---- PERSISTENT RESERVE IN -------------------------------------------- */

#define PRI_HDR			8
#define PRI_RES_DESC		16
#define PRI_CAPS_LEN		8
#define PRI_FULL_DESC		24	/* before the TransportID */
#define PRI_TID_ISCSI_HDR	4
#define PRI_TID_NAA_LEN		24
#define PRI_MAX_NAME		224	/* an iSCSI name, padded */

/* REPORT CAPABILITIES: WR_EX_AR EX_AC_RO WR_EX_RO EX_AC WR_EX; EX_AC_AR */
#define PRI_TYPE_MASK		0xea01

static u8 pr_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : 0;
}

/*
 * The initiator port's TransportID (SPC-4 7.6.4) into @p (NULL: only its
 * length): an iSCSI name (format 00b, padded to a multiple of 4 bytes,
 * NUL-terminated) for "iqn."/"eui." names, else a SAS address from the
 * "naa." name's 16 hex digits, a Fibre Channel N_Port name for "fc.".
 */
static u32 pr_transport_id(struct tcmx_lun *lun, u8 *p)
{
	const char *name = lun->tpg->nexus_name ?: "";
	size_t len = strlen(name);
	u32 tid_len;
	u64 addr;

	if (!strncmp(name, "naa.", 4) || !strncmp(name, "fc.", 3)) {
		bool fc = name[0] == 'f';
		size_t i;

		if (p) {
			/* the port name's first 16 hex digits (loop.c checked) */
			addr = 0;
			for (i = fc ? 3 : 4; i < len && i < (fc ? 19 : 20); i++)
				addr = addr << 4 | pr_hex(name[i]);
			memset(p, 0, PRI_TID_NAA_LEN);
			p[0] = fc ? 0x00 : 0x06;	/* FC, SAS */
			put_unaligned_be64(addr, &p[fc ? 8 : 4]);
		}
		return PRI_TID_NAA_LEN;
	}
	len = min_t(size_t, len, PRI_MAX_NAME - 1);
	tid_len = round_up(PRI_TID_ISCSI_HDR + len + 1, 4);
	if (p) {
		memset(p, 0, tid_len);
		p[0] = 0x05;				/* iSCSI, format 00b */
		put_unaligned_be16(tid_len - PRI_TID_ISCSI_HDR, &p[2]);
		memcpy(&p[PRI_TID_ISCSI_HDR], name, len);
	}
	return tid_len;
}

static enum tcmx_status pr_in(struct tcmx_cmd *cmd)
{
	u32 alloc_len = get_unaligned_be16(&cmd->cdb[7]);
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_pr_reg *reg;
	u32 len = PRI_HDR, n = 0;
	u8 *buf;

	mutex_lock(&dev->pr_mutex);
	/* the state cannot change without pr_mutex: no need for pr_lock */
	list_for_each_entry(reg, &dev->pr_regs, node) {
		n++;
		if (cmd->desc->sa == PRI_READ_FULL_STATUS)
			len += PRI_FULL_DESC + pr_transport_id(reg->lun, NULL);
	}
	switch (cmd->desc->sa) {
	case PRI_READ_KEYS:
		len += 8 * n;
		break;
	case PRI_READ_RESERVATION:
		len += PRI_RES_DESC;
		break;
	case PRI_REPORT_CAPABILITIES:
		len = PRI_CAPS_LEN;
		break;
	}
	buf = kzalloc(len, GFP_KERNEL);
	if (!buf) {
		mutex_unlock(&dev->pr_mutex);
		return tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_RESOURCES);
	}
	put_unaligned_be32(dev->pr_generation, &buf[0]);

	switch (cmd->desc->sa) {
	case PRI_READ_KEYS:
		n = PRI_HDR;
		list_for_each_entry(reg, &dev->pr_regs, node) {
			put_unaligned_be64(reg->key, &buf[n]);
			n += 8;
		}
		put_unaligned_be32(len - PRI_HDR, &buf[4]);
		break;
	case PRI_READ_RESERVATION:
		if (!dev->pr_holder) {
			len = PRI_HDR;
			break;
		}
		put_unaligned_be32(PRI_RES_DESC, &buf[4]);
		/* all registrants: the key is 0 (SPC-4 6.15.3.3) */
		if (!pr_type_all_reg(dev->pr_type))
			put_unaligned_be64(dev->pr_holder->key, &buf[8]);
		buf[8 + 13] = dev->pr_type;	/* scope 0: logical unit */
		break;
	case PRI_REPORT_CAPABILITIES:
		put_unaligned_be16(PRI_CAPS_LEN, &buf[0]);
		buf[2] = BIT(4);		/* CRH */
		buf[3] = BIT(7);		/* TMV, ALLOW COMMANDS 000b */
		put_unaligned_be16(PRI_TYPE_MASK, &buf[4]);
		break;
	case PRI_READ_FULL_STATUS:
		n = PRI_HDR;
		list_for_each_entry(reg, &dev->pr_regs, node) {
			u8 *p = &buf[n];
			u32 tid = pr_transport_id(reg->lun, &p[PRI_FULL_DESC]);

			put_unaligned_be64(reg->key, &p[0]);
			if (pr_is_holder(dev, reg)) {
				p[12] = BIT(0);		/* R_HOLDER */
				p[13] = dev->pr_type;
			}
			put_unaligned_be16(reg->lun->rtpi, &p[18]);
			put_unaligned_be32(tid, &p[20]);
			n += PRI_FULL_DESC + tid;
		}
		put_unaligned_be32(len - PRI_HDR, &buf[4]);
		break;
	}
	mutex_unlock(&dev->pr_mutex);
	tcmx_cmd_copy_to_sgl(cmd, buf, min(len, alloc_len));
	kfree(buf);
	return TCMX_GOOD;
}

/* ---- PERSISTENT RESERVE OUT ------------------------------------------- */

struct pr_out {
	u64	key;
	u64	sa_key;
	u8	type;
};

/* *@newp, preallocated, becomes @lun's registration with @key */
static struct tcmx_pr_reg *pr_add_reg(struct tcmx_dev *dev,
				      struct tcmx_pr_reg **newp,
				      struct tcmx_lun *lun, u64 key)
{
	struct tcmx_pr_reg *reg = *newp;

	*newp = NULL;
	reg->lun = lun;
	reg->key = key;
	reg->generation = dev->pr_generation;
	list_add_tail(&reg->node, &dev->pr_regs);
	return reg;
}

/* REGISTER and REGISTER AND IGNORE EXISTING KEY (SPC-4 5.13.7) */
static enum tcmx_status pr_register(struct tcmx_cmd *cmd, struct pr_out *o,
				    bool ignore, struct tcmx_pr_reg **newp,
				    struct tcmx_pr_reg **oldp)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_pr_reg *reg = pr_find(dev, cmd->lun);

	if (!reg) {
		if (!ignore && o->key)
			return TCMX_CONFLICT;
		if (!o->sa_key)
			return TCMX_GOOD;
		pr_add_reg(dev, newp, cmd->lun, o->sa_key);
	} else if (!ignore && o->key != reg->key) {
		return TCMX_CONFLICT;
	} else if (!o->sa_key) {
		pr_unregister(dev, reg, true);
		*oldp = reg;
	} else {
		reg->key = o->sa_key;
	}
	dev->pr_generation++;
	return TCMX_GOOD;
}

static enum tcmx_status pr_reserve(struct tcmx_cmd *cmd, struct pr_out *o,
				   struct tcmx_pr_reg *reg)
{
	struct tcmx_dev *dev = cmd->dev;

	if (dev->pr_holder)
		return pr_is_holder(dev, reg) && dev->pr_type == o->type ?
		       TCMX_GOOD : TCMX_CONFLICT;
	dev->pr_holder = reg;
	dev->pr_type = o->type;
	return TCMX_GOOD;
}

static enum tcmx_status pr_release(struct tcmx_cmd *cmd, struct pr_out *o,
				   struct tcmx_pr_reg *reg)
{
	struct tcmx_dev *dev = cmd->dev;

	if (!pr_is_holder(dev, reg))
		return TCMX_GOOD;
	if (dev->pr_type != o->type)
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_RELEASE);
	dev->pr_holder = NULL;
	/* SPC-4 5.13.11.2.2: others may have lost access, or have it now */
	if (dev->pr_type != PR_TYPE_WE && dev->pr_type != PR_TYPE_EA)
		pr_ua_others(dev, cmd->lun, TCMX_SENSE_UA_RES_RELEASED);
	return TCMX_GOOD;
}

static void pr_clear(struct tcmx_cmd *cmd, struct list_head *gone)
{
	struct tcmx_dev *dev = cmd->dev;

	pr_ua_others(dev, cmd->lun, TCMX_SENSE_UA_RES_PREEMPTED);
	list_splice_init(&dev->pr_regs, gone);
	dev->pr_holder = NULL;
	dev->pr_generation++;
}

/*
 * Remove every registration with @key but @self's (SPC-4 5.13.11.4),
 * telling their nexuses REGISTRATIONS PREEMPTED; how many were removed.
 */
static unsigned int pr_remove_key(struct tcmx_dev *dev, u64 key,
				  struct tcmx_pr_reg *self,
				  struct list_head *gone)
{
	struct tcmx_pr_reg *reg, *tmp;
	unsigned int n = 0;

	list_for_each_entry_safe(reg, tmp, &dev->pr_regs, node) {
		if (reg == self || reg->key != key)
			continue;
		if (dev->pr_holder == reg)
			dev->pr_holder = self;	/* replaced by the caller */
		list_move_tail(&reg->node, gone);
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
	struct tcmx_pr_reg *holder = dev->pr_holder, *reg, *tmp;
	u8 old_type = dev->pr_type;

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
		list_for_each_entry_safe(reg, tmp, &dev->pr_regs, node) {
			if (reg == self)
				continue;
			list_move_tail(&reg->node, gone);
			tcmx_ua_add(reg->lun, dev, TCMX_SENSE_UA_REG_PREEMPTED);
		}
	} else {
		pr_remove_key(dev, o->sa_key, self, gone);
	}
	dev->pr_holder = self;
	dev->pr_type = o->type;
	if (old_type != o->type)
		pr_ua_others(dev, cmd->lun, TCMX_SENSE_UA_RES_RELEASED);
done:
	dev->pr_generation++;
	return TCMX_GOOD;
}

/* Does the TransportID @tid (@len bytes) name @lun's initiator port? */
static bool pr_tid_matches(struct tcmx_lun *lun, const u8 *tid, u32 len)
{
	u8 own[PRI_TID_ISCSI_HDR + PRI_MAX_NAME];
	u32 n = pr_transport_id(lun, own);
	size_t name_len;

	if (len < PRI_TID_ISCSI_HDR || (tid[0] & 0x0f) != (own[0] & 0x0f))
		return false;
	if ((own[0] & 0x0f) != 0x05)			/* SAS, FC: 24 bytes */
		return len >= n && !memcmp(own, tid, n);
	/* iSCSI: the name, case aside, up to its NUL or ",i,0x" */
	name_len = strnlen(tid + PRI_TID_ISCSI_HDR, len - PRI_TID_ISCSI_HDR);
	return name_len == strlen(own + PRI_TID_ISCSI_HDR) &&
	       !strncasecmp(tid + PRI_TID_ISCSI_HDR, own + PRI_TID_ISCSI_HDR,
			    name_len);
}

/* dev->lock held: the LUN of @dev behind relative port @rtpi named @tid */
static struct tcmx_lun *pr_find_nexus(struct tcmx_dev *dev, u16 rtpi,
				      const u8 *tid, u32 len)
{
	struct tcmx_lun *lun;

	list_for_each_entry(lun, &dev->luns, dev_node)
		if (lun->rtpi == rtpi && pr_tid_matches(lun, tid, len))
			return lun;
	return NULL;
}

/*
 * REGISTER AND MOVE (SPC-4 5.13.8): the holder registers the nexus the
 * TransportID and RELATIVE TARGET PORT IDENTIFIER name (with the service
 * action key, unless it is registered already) and hands it the
 * reservation, of the same type; UNREG drops the holder's registration.
 */
static enum tcmx_status pr_move_locked(struct tcmx_cmd *cmd, const u8 *p,
				       u32 tid_len, struct tcmx_pr_reg **newp,
				       struct tcmx_pr_reg **oldp)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_pr_reg *src = pr_find(dev, cmd->lun), *dst;
	u64 sa_key = get_unaligned_be64(&p[8]);
	struct tcmx_lun *to;

	if ((dev->spc2_holder && dev->spc2_holder != cmd->lun) || !src ||
	    src->key != get_unaligned_be64(&p[0]) || !dev->pr_holder ||
	    !pr_is_holder(dev, src) || pr_type_all_reg(dev->pr_type))
		return TCMX_CONFLICT;
	if (!sa_key)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, 8, TCMX_NO_BIT);
	to = pr_find_nexus(dev, get_unaligned_be16(&p[18]),
			   &p[PRO_PARAM_LEN], tid_len);
	if (!to)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, 18, TCMX_NO_BIT);
	if (to == cmd->lun)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, PRO_PARAM_LEN, TCMX_NO_BIT);
	dst = pr_find(dev, to) ?: pr_add_reg(dev, newp, to, sa_key);
	dev->pr_holder = dst;
	if (p[17] & PRO_MOVE_UNREG) {
		pr_unregister(dev, src, false);
		*oldp = src;
	}
	dev->pr_generation++;
	return TCMX_GOOD;
}

static enum tcmx_status pr_register_move(struct tcmx_cmd *cmd, u32 param_len)
{
	u32 max = PRO_PARAM_LEN + PRI_TID_ISCSI_HDR + PRI_MAX_NAME;
	struct tcmx_pr_reg *new = NULL, *old = NULL;
	struct tcmx_dev *dev = cmd->dev;
	enum tcmx_status status;
	u8 *p;

	if (param_len < PRO_PARAM_LEN || param_len > max)
		return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
	p = kmalloc(param_len, GFP_KERNEL);
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!p || !new) {
		status = tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_RESOURCES);
		goto out;
	}
	if (tcmx_cmd_copy_from_sgl(cmd, p, param_len) < param_len ||
	    get_unaligned_be32(&p[20]) != param_len - PRO_PARAM_LEN) {
		status = tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
		goto out;
	}
	if (p[17] & PRO_MOVE_APTPL) {
		status = tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					  false, 17, 0);
		goto out;
	}
	/* dev->luns: dev->lock, taken before the PR locks as lun.c does */
	mutex_lock(&dev->lock);
	mutex_lock(&dev->pr_mutex);
	spin_lock_irq(&dev->pr_lock);
	status = pr_move_locked(cmd, p, param_len - PRO_PARAM_LEN, &new, &old);
	pr_update_gate(dev);
	spin_unlock_irq(&dev->pr_lock);
	mutex_unlock(&dev->pr_mutex);
	mutex_unlock(&dev->lock);
out:
	kfree(p);
	kfree(new);
	kfree(old);
	return status;
}

static enum tcmx_status pr_out(struct tcmx_cmd *cmd)
{
	u32 param_len = get_unaligned_be32(&cmd->cdb[5]);
	struct tcmx_pr_reg *new = NULL, *old = NULL, *reg, *tmp;
	struct tcmx_dev *dev = cmd->dev;
	u8 sa = cmd->desc->sa, p[PRO_PARAM_LEN];
	enum tcmx_status status;
	struct pr_out o;
	LIST_HEAD(gone);

	if (sa == PRO_REGISTER_AND_MOVE)
		return pr_register_move(cmd, param_len);
	if (param_len < PRO_PARAM_LEN ||
	    tcmx_cmd_copy_from_sgl(cmd, p, PRO_PARAM_LEN) < PRO_PARAM_LEN)
		return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
	if (p[20] & PRO_SPEC_I_PT)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, 20, 3);
	if (param_len != PRO_PARAM_LEN)
		return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
	if (p[20] & PRO_ALL_TG_PT)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, 20, 2);
	if (p[20] & PRO_APTPL)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, 20, 0);
	o.key = get_unaligned_be64(&p[0]);
	o.sa_key = get_unaligned_be64(&p[8]);
	o.type = cmd->cdb[2] & 0x0f;
	if (sa == PRO_RESERVE || sa == PRO_RELEASE || sa == PRO_PREEMPT ||
	    sa == PRO_PREEMPT_AND_ABORT) {
		if (cmd->cdb[2] >> 4)		/* scope: logical unit only */
			return tcmx_sense_field(cmd,
						TCMX_SENSE_INVALID_CDB_FIELD,
						true, 2, 7);
		if (!pr_type_valid(o.type))
			return tcmx_sense_field(cmd,
						TCMX_SENSE_INVALID_CDB_FIELD,
						true, 2, 3);
	}
	if (sa == PRO_REGISTER || sa == PRO_REGISTER_IGNORE) {
		new = kzalloc(sizeof(*new), GFP_KERNEL);
		if (!new)
			return tcmx_sense(cmd,
					  TCMX_SENSE_INSUFFICIENT_RESOURCES);
	}

	mutex_lock(&dev->pr_mutex);
	spin_lock_irq(&dev->pr_lock);
	reg = pr_find(dev, cmd->lun);
	if (dev->spc2_holder && dev->spc2_holder != cmd->lun) {
		status = TCMX_CONFLICT;
	} else if (sa == PRO_REGISTER || sa == PRO_REGISTER_IGNORE) {
		status = pr_register(cmd, &o, sa == PRO_REGISTER_IGNORE,
				     &new, &old);
	} else if (!reg || reg->key != o.key) {
		status = TCMX_CONFLICT;
	} else if (sa == PRO_RESERVE) {
		status = pr_reserve(cmd, &o, reg);
	} else if (sa == PRO_RELEASE) {
		status = pr_release(cmd, &o, reg);
	} else if (sa == PRO_CLEAR) {
		pr_clear(cmd, &gone);
		status = TCMX_GOOD;
	} else {
		status = pr_preempt(cmd, &o, reg, &gone);
	}
	pr_update_gate(dev);
	spin_unlock_irq(&dev->pr_lock);
	mutex_unlock(&dev->pr_mutex);

	kfree(new);
	kfree(old);
	list_for_each_entry_safe(reg, tmp, &gone, node)
		kfree(reg);
	return status;
}

/* ---- SPC-2 RESERVE and RELEASE (SPC-2 7.21, 7.12) ---------------------- */

static enum tcmx_status pr_spc2_reserve(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	enum tcmx_status status = TCMX_GOOD;

	mutex_lock(&dev->pr_mutex);
	spin_lock_irq(&dev->pr_lock);
	/* SPC-4 5.13.3: not while persistent reservations are in use */
	if (!list_empty(&dev->pr_regs) || dev->pr_holder ||
	    (dev->spc2_holder && dev->spc2_holder != cmd->lun))
		status = TCMX_CONFLICT;
	else
		dev->spc2_holder = cmd->lun;
	pr_update_gate(dev);
	spin_unlock_irq(&dev->pr_lock);
	mutex_unlock(&dev->pr_mutex);
	return status;
}

/* by another nexus than the holder's, or with none: GOOD, nothing done */
static enum tcmx_status pr_spc2_release(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;

	mutex_lock(&dev->pr_mutex);
	spin_lock_irq(&dev->pr_lock);
	if (dev->spc2_holder == cmd->lun)
		dev->spc2_holder = NULL;
	pr_update_gate(dev);
	spin_unlock_irq(&dev->pr_lock);
	mutex_unlock(&dev->pr_mutex);
	return TCMX_GOOD;
}

/* ---- rows ------------------------------------------------------------- */

static enum tcmx_status pr_execute_in(struct tcmx_cmd *cmd)
{
	return tcmx_defer(cmd, pr_in);
}

static enum tcmx_status pr_execute_out(struct tcmx_cmd *cmd)
{
	return tcmx_defer(cmd, pr_out);
}

static enum tcmx_status pr_execute_reserve(struct tcmx_cmd *cmd)
{
	return tcmx_defer(cmd, pr_spc2_reserve);
}

static enum tcmx_status pr_execute_release(struct tcmx_cmd *cmd)
{
	return tcmx_defer(cmd, pr_spc2_release);
}

/* with emulate_pr 0 there are no reservations: unknown opcodes, in-tree */
static enum tcmx_status pr_parse(struct tcmx_cmd *cmd)
{
	if (!READ_ONCE(cmd->dev->attrib.emulate_pr))
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_OPCODE);
	cmd->execute = cmd->desc->execute;
	return TCMX_GOOD;
}

#define PRI_ROW(_sa, _name)						\
	{ .opcode = PERSISTENT_RESERVE_IN, .sa = _sa, .len = 10,	\
	  .dir = DMA_FROM_DEVICE,					\
	  .flags = TCMX_CMD_LUN | TCMX_CMD_SA, .name = _name,		\
	  .usage = { PERSISTENT_RESERVE_IN, _sa, 0x00, 0x00, 0x00,	\
		     0x00, 0x00, 0xff, 0xff, 0x00 },			\
	  .parse = pr_parse, .execute = pr_execute_in }

#define PRO_ROW(_sa, _name, _type)					\
	{ .opcode = PERSISTENT_RESERVE_OUT, .sa = _sa, .len = 10,	\
	  .dir = DMA_TO_DEVICE,						\
	  .flags = TCMX_CMD_LUN | TCMX_CMD_SA, .name = _name,		\
	  .usage = { PERSISTENT_RESERVE_OUT, _sa, _type, 0x00, 0x00,	\
		     0xff, 0xff, 0xff, 0xff, 0x00 },			\
	  .parse = pr_parse, .execute = pr_execute_out }

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
	{ .opcode = PR_OP_RESERVE_6, .len = 6, .dir = DMA_NONE,
	  .flags = TCMX_CMD_LUN, .name = "RESERVE(6)",
	  .usage = { PR_OP_RESERVE_6, 0x00, 0x00, 0x00, 0x00, 0x00 },
	  .parse = pr_parse, .execute = pr_execute_reserve },
	{ .opcode = PR_OP_RELEASE_6, .len = 6, .dir = DMA_NONE,
	  .flags = TCMX_CMD_LUN, .name = "RELEASE(6)",
	  .usage = { PR_OP_RELEASE_6, 0x00, 0x00, 0x00, 0x00, 0x00 },
	  .parse = pr_parse, .execute = pr_execute_release },
	{ .opcode = PR_OP_RESERVE_10, .len = 10, .dir = DMA_NONE,
	  .flags = TCMX_CMD_LUN, .name = "RESERVE(10)",
	  .usage = { PR_OP_RESERVE_10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		     0x00, 0x00, 0x00 },
	  .parse = pr_parse, .execute = pr_execute_reserve },
	{ .opcode = PR_OP_RELEASE_10, .len = 10, .dir = DMA_NONE,
	  .flags = TCMX_CMD_LUN, .name = "RELEASE(10)",
	  .usage = { PR_OP_RELEASE_10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		     0x00, 0x00, 0x00 },
	  .parse = pr_parse, .execute = pr_execute_release },
	{ }
};

/* ---- <dev>/pr/ (the in-tree formats) ---------------------------------- */

#define PR_NO_HOLDER	"No SPC-3 Reservation holder\n"

ssize_t tcmx_pr_show(struct tcmx_dev *dev, enum tcmx_pr_show what,
		     char *page)
{
	struct tcmx_pr_reg *holder, *reg;
	struct tcmx_lun *lun;
	const char *fabric;
	ssize_t len = 0;

	if (!READ_ONCE(dev->attrib.emulate_pr) &&
	    (what == TCMX_PR_SHOW_HOLDER || what == TCMX_PR_SHOW_RES_TYPE))
		return scnprintf(page, PAGE_SIZE, "SPC_RESERVATIONS_DISABLED\n");

	mutex_lock(&dev->pr_mutex);
	holder = dev->pr_holder;
	lun = holder ? holder->lun : NULL;
	fabric = lun ? lun->tpg->ops->name : "";
	switch (what) {
	case TCMX_PR_SHOW_HOLDER:
		if (dev->spc2_holder)
			len = scnprintf(page, PAGE_SIZE,
					 "SPC-2 Reservation: %s Initiator: %s\n",
					 dev->spc2_holder->tpg->ops->name,
					 dev->spc2_holder->tpg->nexus_name);
		else if (lun)
			len = scnprintf(page, PAGE_SIZE,
					 "SPC-3 Reservation: %s Initiator: %s\n",
					 fabric, lun->tpg->nexus_name);
		else
			len = scnprintf(page, PAGE_SIZE, PR_NO_HOLDER);
		break;
	case TCMX_PR_SHOW_ALL_TGT_PTS:
		len = scnprintf(page, PAGE_SIZE, lun ?
				 "SPC-3 Reservation: Single Target Port registration\n" :
				 PR_NO_HOLDER);
		break;
	case TCMX_PR_SHOW_HOLDER_TG_PORT:
		if (!lun) {
			len = scnprintf(page, PAGE_SIZE, PR_NO_HOLDER);
			break;
		}
		len = scnprintf(page, PAGE_SIZE,
				 "SPC-3 Reservation: %s Target Node Endpoint: %s\n"
				 "SPC-3 Reservation: Relative Port Identifier Tag: %u %s Portal Group Tag: %u %s Logical Unit: %llu\n",
				 fabric, tcmx_wwn_name(lun->tpg->wwn),
				 lun->rtpi, fabric, lun->tpg->tag, fabric,
				 (unsigned long long)lun->index);
		break;
	case TCMX_PR_SHOW_REGISTERED:
		len = scnprintf(page, PAGE_SIZE, "SPC-3 PR Registrations:\n");
		list_for_each_entry(reg, &dev->pr_regs, node)
			len += scnprintf(page + len, PAGE_SIZE - len,
					     "%s Node: %s Key: 0x%016llx PRgen: 0x%08x\n",
					     reg->lun->tpg->ops->name,
					     reg->lun->tpg->nexus_name,
					     (unsigned long long)reg->key,
					     reg->generation);
		if (list_empty(&dev->pr_regs))
			len += scnprintf(page + len, PAGE_SIZE - len, "None\n");
		break;
	case TCMX_PR_SHOW_TYPE:
		if (lun)
			len = scnprintf(page, PAGE_SIZE, "SPC-3 Reservation Type: %s\n",
					 pr_type_name(dev->pr_type));
		else
			len = scnprintf(page, PAGE_SIZE, PR_NO_HOLDER);
		break;
	case TCMX_PR_SHOW_RES_TYPE:
		len = scnprintf(page, PAGE_SIZE, "%s\n", dev->spc2_holder ?
				 "SPC2_RESERVATIONS" :
				 "SPC3_PERSISTENT_RESERVATIONS");
		break;
	}
	mutex_unlock(&dev->pr_mutex);
	return len;
}
