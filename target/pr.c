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
 * nexus, SPEC_I_PT its nexuses the same way (through the receiving port,
 * or any with ALL_TG_PT).  ALL_TG_PT registers the initiator port through
 * every target port of the device: each LUN whose TPG has the same nexus
 * name.
 *
 * APTPL (or force_pr_aptpl) keeps the state in <dbroot>/pr/aptpl_<unit
 * serial>, rewritten after each change while active, in the in-tree
 * format that rtslib reads back into pr/res_aptpl_metadata when it
 * creates the device again; a restored registration waits there for its
 * LUN to be linked.
 *
 * PREEMPT AND ABORT preempts as PREEMPT does, then waits until every
 * command of the preempted nexuses that the gate let through before has
 * finished (an RCU grace period for the inline ones, lun->deferred for
 * the others): none of theirs runs after it completes.  They finish
 * rather than end with TASK ABORTED.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>
#include "compat.h"
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
#define PRO_TIDS		28	/* SPEC_I_PT: after their length */
#define PRO_MAX_PARAM_LEN	8192	/* ~300 TransportIDs */
#define PR_ABORT_WAIT		(30 * HZ)	/* for preempted commands */

/* one registered I_T nexus */
struct tcmx_pr_reg {
	struct list_head	node;		/* dev->pr_regs */
	struct tcmx_lun		*lun;
	u64			key;
	u32			generation;	/* PRgeneration when registered */
	bool			all_tg_pt;	/* made by REGISTER ALL_TG_PT */
	bool			held;		/* PREEMPT AND ABORT's ref */
};

void tcmx_pr_dev_init(struct tcmx_dev *dev)
{
	mutex_init(&dev->pr_mutex);
	spin_lock_init(&dev->pr_lock);
	INIT_LIST_HEAD(&dev->pr_regs);
	INIT_LIST_HEAD(&dev->pr_saved);
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

/* the LUN's initiator port */
static const char *pr_nexus_name(struct tcmx_lun *lun)
{
	return lun->tpg->nexus_name ?: "";
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
	const char *name = pr_nexus_name(lun);
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
		/* CRH, SIP_C, ATP_C, PTPL_C */
		buf[2] = BIT(4) | BIT(3) | BIT(2) | BIT(0);
		/* TMV, ALLOW COMMANDS 000b, PTPL_A */
		buf[3] = BIT(7) | (dev->pr_aptpl ? BIT(0) : 0);
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
			/* ALL_TG_PT: the relative port does not matter */
			if (reg->all_tg_pt)
				p[12] |= BIT(1);
			else
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

/* ---- APTPL: <dbroot>/pr/aptpl_<unit serial>, in the in-tree format ----- */

#define PR_APTPL_NONE	"No Registrations or Reservations"
#define PR_APTPL_ENTRY	1024	/* one registration's text, at most */
#define PR_SAVED_MAX	1024	/* restored registrations waiting */
#define PR_NAME_MAX	256

/* a registration pr/res_aptpl_metadata restored, waiting for its nexus */
struct tcmx_pr_saved {
	struct list_head	node;		/* dev->pr_saved */
	u64			key;
	u64			mapped_lun;
	u64			target_lun;
	u16			tpgt;
	u8			type;		/* reservation held: its type */
	bool			all_tg_pt;
	char			i_fabric[PR_NAME_MAX];
	char			i_port[PR_NAME_MAX];
	char			t_fabric[PR_NAME_MAX];
	char			t_port[PR_NAME_MAX];
};

/* Can the unit serial name the file?  One dmesg line if not. */
static bool pr_aptpl_serial_ok(struct tcmx_dev *dev)
{
	const char *serial = dev->t10.unit_serial;

	if (serial[0] && !strchr(serial, '/'))
		return true;
	pr_err("%s: APTPL: unit serial \"%s\" cannot name a file\n",
	       tcmx_dev_name(dev), serial);
	return false;
}

/* Can the state be saved?  <dbroot>/pr must be a directory. */
static int pr_aptpl_check(struct tcmx_dev *dev)
{
	struct path path;
	char *dir;
	int ret;

	if (!pr_aptpl_serial_ok(dev))
		return -EINVAL;
	dir = kasprintf(GFP_KERNEL, "%s/pr", tcmx_dbroot);
	if (!dir)
		return -ENOMEM;
	ret = kern_path(dir, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path);
	if (ret)
		pr_err("%s: APTPL: %s is not a directory: %d\n",
		       tcmx_dev_name(dev), dir, ret);
	else
		path_put(&path);
	kfree(dir);
	return ret;
}

/* pr_mutex held: the registrations and the reservation, as text */
static size_t pr_aptpl_text(struct tcmx_dev *dev, char *buf, size_t size)
{
	struct tcmx_pr_reg *reg;
	size_t len = 0;
	int n = 0;

	list_for_each_entry(reg, &dev->pr_regs, node) {
		struct tcmx_tpg *tpg = reg->lun->tpg;

		len += scnprintf(buf + len, size - len,
				 "PR_REG_START: %d\ninitiator_fabric=%s\ninitiator_node=%s\nsa_res_key=%llu\n",
				 n, tpg->ops->name, pr_nexus_name(reg->lun),
				 (unsigned long long)reg->key);
		if (reg == dev->pr_holder)
			len += scnprintf(buf + len, size - len,
					 "res_holder=1\nres_type=%02x\nres_scope=00\n",
					 dev->pr_type);
		else
			len += scnprintf(buf + len, size - len,
					 "res_holder=0\n");
		len += scnprintf(buf + len, size - len,
				 "res_all_tg_pt=%d\nmapped_lun=%llu\ntarget_fabric=%s\ntarget_node=%s\ntpgt=%u\nport_rtpi=%u\ntarget_lun=%llu\nPR_REG_END: %d\n",
				 reg->all_tg_pt,
				 (unsigned long long)reg->lun->index,
				 tpg->ops->name, tcmx_wwn_name(tpg->wwn),
				 tpg->tag, reg->lun->rtpi,
				 (unsigned long long)reg->lun->index, n);
		n++;
	}
	if (!n)
		len = scnprintf(buf, size, PR_APTPL_NONE);
	return len;
}

/*
 * pr_mutex held: write the state (or, with APTPL off, that there is none
 * to keep) to the device's file; 0 or an errno, and one dmesg line.
 */
static int pr_aptpl_save(struct tcmx_dev *dev)
{
	struct tcmx_pr_reg *reg;
	size_t size = PR_APTPL_ENTRY, len;
	struct file *file;
	char *path, *buf;
	loff_t pos = 0;
	ssize_t ret;

	list_for_each_entry(reg, &dev->pr_regs, node)
		size += PR_APTPL_ENTRY;
	path = pr_aptpl_serial_ok(dev) ?
	       kasprintf(GFP_KERNEL, "%s/pr/aptpl_%s", tcmx_dbroot,
			 dev->t10.unit_serial) : NULL;
	buf = kvmalloc(size, GFP_KERNEL);
	if (!path || !buf) {
		ret = -ENOMEM;
		goto out;
	}
	if (dev->pr_aptpl)
		len = pr_aptpl_text(dev, buf, size);
	else
		len = scnprintf(buf, size, PR_APTPL_NONE "\n");
	file = filp_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto out;
	}
	ret = kernel_write(file, buf, len, &pos);
	fput(file);
	if (ret >= 0)
		ret = ret == len ? 0 : -EIO;
out:
	if (ret)
		pr_err("%s: APTPL: cannot write %s: %zd\n",
		       tcmx_dev_name(dev), path ?: "the state", ret);
	kfree(path);
	kvfree(buf);
	return ret;
}

static int pr_saved_str(char *dst, const char *val)
{
	return strscpy(dst, val, PR_NAME_MAX) < 0 ? -EINVAL : 0;
}

/* one key=value of a registration's metadata into @s */
static int pr_saved_field(struct tcmx_pr_saved *s, const char *name,
			  const char *val, bool *holder)
{
	int ret = 0;

	if (!strcmp(name, "initiator_fabric"))
		ret = pr_saved_str(s->i_fabric, val);
	else if (!strcmp(name, "initiator_node"))
		ret = pr_saved_str(s->i_port, val);
	else if (!strcmp(name, "initiator_sid"))
		ret = 0;			/* iSCSI sessions only */
	else if (!strcmp(name, "sa_res_key"))
		ret = kstrtou64(val, 10, &s->key);
	else if (!strcmp(name, "res_holder"))
		ret = kstrtobool(val, holder);
	else if (!strcmp(name, "res_type"))
		ret = kstrtou8(val, 16, &s->type);
	else if (!strcmp(name, "res_scope"))
		ret = strcmp(val, "0") && strcmp(val, "00") ? -EINVAL : 0;
	else if (!strcmp(name, "res_all_tg_pt"))
		ret = kstrtobool(val, &s->all_tg_pt);
	else if (!strcmp(name, "mapped_lun"))
		ret = kstrtou64(val, 10, &s->mapped_lun);
	else if (!strcmp(name, "target_fabric"))
		ret = pr_saved_str(s->t_fabric, val);
	else if (!strcmp(name, "target_node"))
		ret = pr_saved_str(s->t_port, val);
	else if (!strcmp(name, "tpgt"))
		ret = kstrtou16(val, 10, &s->tpgt);
	else if (!strcmp(name, "port_rtpi"))
		ret = kstrtou16(val, 10, &(u16){ 0 });	/* a new one comes */
	else if (!strcmp(name, "target_lun"))
		ret = kstrtou64(val, 10, &s->target_lun);
	else
		ret = -EINVAL;
	return ret;
}

/* parse one registration (comma-separated key=value, as rtslib writes) */
static int pr_saved_parse(struct tcmx_dev *dev, struct tcmx_pr_saved *s,
			  char *text)
{
	bool holder = false;
	char *tok, *eq;
	int ret;

	while ((tok = strsep(&text, ",\n")) != NULL) {
		tok = strim(tok);
		eq = strchr(tok, '=');
		/* rtslib passes along PR_REG_START/END's record numbers */
		if (!eq)
			continue;
		*eq = '\0';
		ret = pr_saved_field(s, tok, eq + 1, &holder);
		if (ret) {
			pr_err("%s: pr/res_aptpl_metadata: bad %.*s=%.*s: %d\n",
			       tcmx_dev_name(dev), TCMX_CFS_ECHO, tok,
			       TCMX_CFS_ECHO, eq + 1, ret);
			return -EINVAL;
		}
	}
	if (!s->i_port[0] || !s->t_port[0] || !s->key) {
		pr_err("%s: pr/res_aptpl_metadata: need initiator_node, target_node and a non-zero sa_res_key\n",
		       tcmx_dev_name(dev));
		return -EINVAL;
	}
	if (!holder) {
		s->type = 0;
	} else if (!pr_type_valid(s->type)) {
		pr_err("%s: pr/res_aptpl_metadata: bad reservation type %#x\n",
		       tcmx_dev_name(dev), s->type);
		return -EINVAL;
	}
	return 0;
}

/*
 * pr/res_aptpl_metadata: a registration the device had when APTPL saved
 * it (rtslib writes one per write, from <dbroot>/pr/aptpl_<serial>, after
 * it created the device and before it links LUNs).  Kept until a LUN
 * that is its nexus (same initiator and target port names, TPG tag and
 * LUN; for a fabric with a nexus per TPG, the target port alone) is
 * linked; then it is registered, with its reservation, and APTPL is
 * active again.
 */
ssize_t tcmx_pr_aptpl_metadata(struct tcmx_dev *dev, const char *page,
			       size_t count)
{
	struct tcmx_pr_saved *s;
	char *copy, *text;
	int ret;

	/* a NUL would end the text early: what follows it is not read */
	if (memchr(page, '\0', count)) {
		pr_err("%s: pr/res_aptpl_metadata: a NUL byte in the metadata\n",
		       tcmx_dev_name(dev));
		return -EINVAL;
	}
	copy = kmemdup_nul(page, count, GFP_KERNEL);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!copy || !s) {
		ret = -ENOMEM;
		goto out;
	}
	text = strim(copy);
	/* rtslib writes nothing but whitespace when there is no metadata */
	if (!*text) {
		ret = 0;
		goto out;
	}
	if (!READ_ONCE(dev->attrib.emulate_pr)) {
		pr_err("%s: pr/res_aptpl_metadata: emulate_pr is 0\n",
		       tcmx_dev_name(dev));
		ret = -EINVAL;
		goto out;
	}
	ret = pr_saved_parse(dev, s, text);
	if (ret)
		goto out;

	mutex_lock(&dev->lock);
	mutex_lock(&dev->pr_mutex);
	if (dev->export_count) {
		pr_err("%s: pr/res_aptpl_metadata: only while no LUN links the device\n",
		       tcmx_dev_name(dev));
		ret = -EBUSY;
	} else if (dev->pr_saved_count >= PR_SAVED_MAX) {
		pr_err("%s: pr/res_aptpl_metadata: %u registrations wait already\n",
		       tcmx_dev_name(dev), dev->pr_saved_count);
		ret = -ENOSPC;
	} else {
		list_add_tail(&s->node, &dev->pr_saved);
		dev->pr_saved_count++;
		s = NULL;
	}
	mutex_unlock(&dev->pr_mutex);
	mutex_unlock(&dev->lock);
out:
	kfree(s);
	kfree(copy);
	return ret ?: count;
}

static bool pr_saved_matches(struct tcmx_pr_saved *s, struct tcmx_lun *lun)
{
	struct tcmx_tpg *tpg = lun->tpg;

	return (tpg->ops->nexus_per_tpg ||
		!strcmp(s->i_port, pr_nexus_name(lun))) &&
	       !strcmp(s->t_port, tcmx_wwn_name(tpg->wwn)) &&
	       (!s->i_fabric[0] || !strcmp(s->i_fabric, tpg->ops->name)) &&
	       (!s->t_fabric[0] || !strcmp(s->t_fabric, tpg->ops->name)) &&
	       s->tpgt == tpg->tag && s->target_lun == lun->index &&
	       s->mapped_lun == lun->index;
}

void tcmx_pr_lun_linked(struct tcmx_lun *lun)
{
	struct tcmx_dev *dev = lun->dev;
	struct tcmx_pr_saved *s, *tmp;
	struct tcmx_pr_reg *reg;

	mutex_lock(&dev->pr_mutex);
	list_for_each_entry_safe(s, tmp, &dev->pr_saved, node) {
		if (!pr_saved_matches(s, lun))
			continue;
		list_del(&s->node);
		dev->pr_saved_count--;
		reg = kzalloc(sizeof(*reg), GFP_KERNEL);
		if (!reg) {
			pr_err("%s: APTPL: no memory to restore a registration\n",
			       tcmx_dev_name(dev));
			kfree(s);
			continue;
		}
		reg->lun = lun;
		reg->key = s->key;
		reg->all_tg_pt = s->all_tg_pt;
		spin_lock_irq(&dev->pr_lock);
		if (pr_find(dev, lun)) {
			kfree(reg);
		} else {
			reg->generation = dev->pr_generation;
			list_add_tail(&reg->node, &dev->pr_regs);
			if (s->type && !dev->pr_holder && !dev->spc2_holder) {
				dev->pr_holder = reg;
				dev->pr_type = s->type;
			}
			pr_update_gate(dev);
		}
		spin_unlock_irq(&dev->pr_lock);
		dev->pr_aptpl = true;
		kfree(s);
	}
	mutex_unlock(&dev->pr_mutex);
}

void tcmx_pr_dev_free(struct tcmx_dev *dev)
{
	struct tcmx_pr_saved *s, *tmp;

	list_for_each_entry_safe(s, tmp, &dev->pr_saved, node)
		kfree(s);
	INIT_LIST_HEAD(&dev->pr_saved);
	dev->pr_saved_count = 0;
}

/* ---- PERSISTENT RESERVE OUT ------------------------------------------- */

struct pr_out {
	u64			key;
	u64			sa_key;
	u8			type;
	bool			aptpl;		/* or force_pr_aptpl */
	bool			all_tg_pt;
	const u8		*tids;		/* SPEC_I_PT: TransportIDs */
	u32			tids_len;
	struct list_head	spare;		/* preallocated registrations */
};

/* a spare of @o becomes @lun's registration with @key */
static struct tcmx_pr_reg *pr_add_reg(struct tcmx_dev *dev, struct pr_out *o,
				      struct tcmx_lun *lun, u64 key,
				      bool all_tg_pt)
{
	struct tcmx_pr_reg *reg;

	reg = list_first_entry_or_null(&o->spare, struct tcmx_pr_reg, node);
	if (WARN_ON_ONCE(!reg))
		return NULL;
	reg->lun = lun;
	reg->key = key;
	reg->generation = dev->pr_generation;
	reg->all_tg_pt = all_tg_pt;
	list_move_tail(&reg->node, &dev->pr_regs);
	return reg;
}

static bool pr_same_initiator(struct tcmx_lun *a, struct tcmx_lun *b)
{
	return a->tpg->ops == b->tpg->ops &&
	       !strcmp(pr_nexus_name(a), pr_nexus_name(b));
}

/*
 * Register @lun with @o's service action key and, for ALL_TG_PT, the
 * nexuses of its initiator port through every other target port of the
 * device: each LUN of the device whose TPG has the same nexus name.
 */
static void pr_register_port(struct tcmx_dev *dev, struct pr_out *o,
			     struct tcmx_lun *lun)
{
	struct tcmx_lun *other;

	if (!pr_find(dev, lun))
		pr_add_reg(dev, o, lun, o->sa_key, o->all_tg_pt);
	if (!o->all_tg_pt)
		return;
	list_for_each_entry(other, &dev->luns, dev_node)
		if (other != lun && pr_same_initiator(other, lun) &&
		    !pr_find(dev, other))
			pr_add_reg(dev, o, other, o->sa_key, true);
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
 * SPEC_I_PT (SPC-4 5.13.7): each TransportID names an initiator port; it
 * is registered through the receiving target port, or with ALL_TG_PT
 * through every target port of the device.  Every TransportID must name a
 * nexus of the device: checked for all before anything is registered.
 * Nexuses already registered keep their registration.
 */
static enum tcmx_status pr_register_tids(struct tcmx_cmd *cmd,
					 struct pr_out *o, bool apply)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_lun *lun;
	u32 off = 0, n;
	bool found;

	while (off < o->tids_len) {
		n = pr_tid_len(o->tids + off, o->tids_len - off);
		if (!n)
			return tcmx_sense_field(cmd,
						TCMX_SENSE_INVALID_PARAM_FIELD,
						false, PRO_TIDS + off,
						TCMX_NO_BIT);
		found = false;
		list_for_each_entry(lun, &dev->luns, dev_node) {
			if ((!o->all_tg_pt && lun != cmd->lun) ||
			    !pr_tid_matches(lun, o->tids + off, n))
				continue;
			found = true;
			if (apply && !pr_find(dev, lun))
				pr_add_reg(dev, o, lun, o->sa_key,
					   o->all_tg_pt);
		}
		if (!found)
			return tcmx_sense_field(cmd,
						TCMX_SENSE_INVALID_PARAM_FIELD,
						false, PRO_TIDS + off,
						TCMX_NO_BIT);
		off += n;
	}
	return TCMX_GOOD;
}

/*
 * Unregister @reg; an ALL_TG_PT registration takes with it those its
 * initiator port made with the same key through the other target ports.
 */
static void pr_unregister_set(struct tcmx_dev *dev, struct tcmx_pr_reg *reg,
			      struct list_head *gone)
{
	struct tcmx_pr_reg *other, *tmp;
	bool held = dev->pr_holder;

	if (reg->all_tg_pt)
		list_for_each_entry_safe(other, tmp, &dev->pr_regs, node) {
			if (other == reg || !other->all_tg_pt ||
			    other->key != reg->key ||
			    !pr_same_initiator(other->lun, reg->lun))
				continue;
			pr_unregister(dev, other, false);
			list_add_tail(&other->node, gone);
		}
	pr_unregister(dev, reg, false);
	list_add_tail(&reg->node, gone);
	/* the registrants left lost a registrants-only reservation */
	if (held && !dev->pr_holder &&
	    (dev->pr_type == PR_TYPE_WE_RO || dev->pr_type == PR_TYPE_EA_RO))
		pr_ua_others(dev, NULL, TCMX_SENSE_UA_RES_RELEASED);
}

/* REGISTER and REGISTER AND IGNORE EXISTING KEY (SPC-4 5.13.7) */
static enum tcmx_status pr_register(struct tcmx_cmd *cmd, struct pr_out *o,
				    bool ignore, struct list_head *gone)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_pr_reg *reg = pr_find(dev, cmd->lun);
	enum tcmx_status status;

	if (!reg) {
		if (!ignore && o->key)
			return TCMX_CONFLICT;
		if (!o->sa_key)
			return TCMX_GOOD;
		if (o->tids) {
			status = pr_register_tids(cmd, o, false);
			if (status)
				return status;
			pr_register_tids(cmd, o, true);
		}
		pr_register_port(dev, o, cmd->lun);
	} else if (!ignore && o->key != reg->key) {
		return TCMX_CONFLICT;
	} else if (o->tids) {
		/* SPEC_I_PT only from a nexus not registered yet */
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, 20, 3);
	} else if (!o->sa_key) {
		pr_unregister_set(dev, reg, gone);
	} else {
		reg->key = o->sa_key;
		reg->generation = dev->pr_generation;
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
	struct tcmx_pr_reg *src = pr_find(dev, cmd->lun), *dst;
	struct tcmx_lun *to;

	if (!src || src->key != o->key || !dev->pr_holder ||
	    !pr_is_holder(dev, src) || pr_type_all_reg(dev->pr_type))
		return TCMX_CONFLICT;
	if (!o->sa_key)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, 8, TCMX_NO_BIT);
	to = pr_find_nexus(dev, get_unaligned_be16(&p[18]), o->tids,
			   o->tids_len);
	if (!to)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, 18, TCMX_NO_BIT);
	if (to == cmd->lun)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD,
					false, PRO_PARAM_LEN, TCMX_NO_BIT);
	dst = pr_find(dev, to) ?: pr_add_reg(dev, o, to, o->sa_key, false);
	dev->pr_holder = dst;
	if (p[17] & PRO_MOVE_UNREG) {
		pr_unregister(dev, src, false);
		list_add_tail(&src->node, gone);
	}
	dev->pr_generation++;
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
	struct tcmx_pr_reg *reg = pr_find(dev, cmd->lun);

	if (dev->spc2_holder && dev->spc2_holder != cmd->lun)
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
 * PREEMPT AND ABORT, dev->lock held: keep each preempted nexus (LUN, on
 * dev->luns now) from going away until pr_abort_wait() is done with it.
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
		if (!wait_var_event_timeout(&reg->lun->deferred,
					    !atomic_read(&reg->lun->deferred),
					    PR_ABORT_WAIT))
			pr_warn("%s: PREEMPT AND ABORT: %d command(s) of %s still running\n",
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

static enum tcmx_status pr_out(struct tcmx_cmd *cmd)
{
	u32 len = get_unaligned_be32(&cmd->cdb[5]), i, n;
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_lun *lun;
	struct pr_out o = { };
	struct tcmx_pr_reg *reg, *tmp;
	enum tcmx_status status;
	u8 sa = cmd->desc->sa;
	bool save;
	LIST_HEAD(gone);
	u8 *p;

	INIT_LIST_HEAD(&o.spare);
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

	/* dev->luns: dev->lock, taken before the PR locks as lun.c does */
	mutex_lock(&dev->lock);
	/* a registration per LUN of the device at most: spares for all */
	n = 0;
	if (pr_sa_has_aptpl(sa))
		list_for_each_entry(lun, &dev->luns, dev_node)
			n++;
	for (i = 0; i < n; i++) {
		reg = kzalloc(sizeof(*reg), GFP_KERNEL);
		if (!reg) {
			mutex_unlock(&dev->lock);
			status = tcmx_sense(cmd,
					    TCMX_SENSE_INSUFFICIENT_REG_RESOURCES);
			goto out;
		}
		list_add(&reg->node, &o.spare);
	}
	mutex_lock(&dev->pr_mutex);
	if (o.aptpl && pr_sa_has_aptpl(sa) && !dev->pr_aptpl &&
	    pr_aptpl_check(dev)) {
		status = tcmx_sense(cmd, TCMX_SENSE_LU_COMM_FAILURE);
		goto unlock;
	}
	spin_lock_irq(&dev->pr_lock);
	status = pr_out_locked(cmd, &o, p, &gone);
	pr_update_gate(dev);
	spin_unlock_irq(&dev->pr_lock);
	if (sa == PRO_PREEMPT_AND_ABORT && status == TCMX_GOOD)
		pr_abort_hold(&gone);
	/* the last REGISTER's APTPL bit decides (SPC-4 5.13.5) */
	save = dev->pr_aptpl;
	if (status == TCMX_GOOD && pr_sa_has_aptpl(sa)) {
		save |= o.aptpl;
		dev->pr_aptpl = o.aptpl;
	}
	if (status == TCMX_GOOD && save && pr_aptpl_save(dev))
		status = tcmx_sense(cmd, TCMX_SENSE_LU_COMM_FAILURE);
unlock:
	mutex_unlock(&dev->pr_mutex);
	mutex_unlock(&dev->lock);
	if (sa == PRO_PREEMPT_AND_ABORT && status == TCMX_GOOD)
		pr_abort_wait(dev, &gone);
out:
	kfree(p);
	list_splice_init(&o.spare, &gone);
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
	/* in-tree: empty while reservations are off */
	if (!READ_ONCE(dev->attrib.emulate_pr) && what == TCMX_PR_SHOW_APTPL)
		return 0;

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
		if (!lun)
			len = scnprintf(page, PAGE_SIZE, PR_NO_HOLDER);
		else
			len = scnprintf(page, PAGE_SIZE,
					 "SPC-3 Reservation: %s Target Port%s registration\n",
					 holder->all_tg_pt ? "All" : "Single",
					 holder->all_tg_pt ? "s" : "");
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
	case TCMX_PR_SHOW_APTPL:
		len = scnprintf(page, PAGE_SIZE, "APTPL Bit Status: %s\n",
				 dev->pr_aptpl ? "Activated" : "Disabled");
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
