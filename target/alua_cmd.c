// SPDX-License-Identifier: GPL-2.0
/*
 * ALUA (SPC-4 5.16) as commands see it: the access state of the LUN's
 * target port group enforced through the gate, REPORT TARGET PORT GROUPS
 * and SET TARGET PORT GROUPS, and the one place a group changes state
 * (tcmx_alua_set_state(), for SET TARGET PORT GROUPS and for configfs'
 * implicit transitions in alua.c).
 *
 * TCMX_GATE_ALUA is set while a group of the device is in a state that
 * refuses commands (Standby, Unavailable, Offline, Transitioning): only
 * then does the decoder come here.  Active/Optimized, Active/NonOptimized
 * and LBA Dependent (no LBA map: every LBA is served) serve everything.
 * A group's state changes under dev->lock; the check reads it under the
 * submitter's RCU section (groups are freed after a grace period).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include "compat.h"
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"

#define ALUA_OPTIMIZED		0x0
#define ALUA_NONOPTIMIZED	0x1
#define ALUA_STANDBY		0x2
#define ALUA_UNAVAILABLE	0x3
#define ALUA_LBA_DEPENDENT	0x4
#define ALUA_OFFLINE		0xe
#define ALUA_TRANSITIONING	0xf

#define ALUA_STATUS_EXPLICIT	1	/* altered by SET TARGET PORT GROUPS */
#define ALUA_TYPE_EXPLICIT	BIT(1)	/* access_type, TPGS 10b */

#define ALUA_RTPG_EXT_HDR	0x20	/* PARAMETER DATA FORMAT 001b */
#define ALUA_RTPG_DESC		8	/* a group's descriptor */
#define ALUA_RTPG_PORT		4	/* one target port in it */
#define ALUA_STPG_HDR		4
#define ALUA_STPG_DESC		4
/* more descriptors than any device has groups (ids are 16 bits) */
#define ALUA_STPG_MAX_LEN	(ALUA_STPG_HDR + ALUA_STPG_DESC * 256)

static bool tcmx_alua_serves(u8 state)
{
	return state == ALUA_OPTIMIZED || state == ALUA_NONOPTIMIZED ||
	       state == ALUA_LBA_DEPENDENT;
}

/*
 * What a port in @state still answers (SPC-4 5.16.2.4, as the in-tree
 * stack reads it): INQUIRY, REPORT LUNS, REQUEST SENSE and REPORT TARGET
 * PORT GROUPS always; READ/WRITE BUFFER and SET TARGET PORT GROUPS but
 * while Offline or Transitioning (no STPG then); Standby also the mode
 * and log pages, diagnostics, READ CAPACITY(16) and reservations.
 */
static bool tcmx_alua_allows(u8 state, const u8 *cdb)
{
	u8 sa = cdb[1] & 0x1f;

	switch (cdb[0]) {
	case INQUIRY:
	case REPORT_LUNS:
	case REQUEST_SENSE:
		return true;
	case MAINTENANCE_IN:
		return sa == MI_REPORT_TARGET_PGS;
	case MAINTENANCE_OUT:
		return sa == MO_SET_TARGET_PGS && state != ALUA_OFFLINE &&
		       state != ALUA_TRANSITIONING;
	case READ_BUFFER:
	case WRITE_BUFFER:
		return state != ALUA_OFFLINE;
	}
	if (state != ALUA_STANDBY)
		return false;
	switch (cdb[0]) {
	case MODE_SENSE:
	case MODE_SENSE_10:
	case MODE_SELECT:
	case MODE_SELECT_10:
	case LOG_SENSE:
	case LOG_SELECT:
	case RECEIVE_DIAGNOSTIC:
	case SEND_DIAGNOSTIC:
	case PERSISTENT_RESERVE_IN:
	case PERSISTENT_RESERVE_OUT:
		return true;
	case SERVICE_ACTION_IN_16:
		return sa == SAI_READ_CAPACITY_16;
	}
	return false;
}

enum tcmx_status tcmx_alua_check(struct tcmx_cmd *cmd)
{
	struct tcmx_tg_pt_gp *gp;
	u8 state;

	if (!cmd->lun)
		return TCMX_GOOD;
	gp = READ_ONCE(cmd->lun->tg_pt_gp);
	state = gp ? READ_ONCE(gp->access_state) : ALUA_OPTIMIZED;
	if (tcmx_alua_serves(state) || tcmx_alua_allows(state, cmd->cdb))
		return TCMX_GOOD;
	switch (state) {
	case ALUA_STANDBY:
		return tcmx_sense(cmd, TCMX_SENSE_ALUA_STANDBY);
	case ALUA_UNAVAILABLE:
		return tcmx_sense(cmd, TCMX_SENSE_ALUA_UNAVAILABLE);
	case ALUA_OFFLINE:
		return tcmx_sense(cmd, TCMX_SENSE_ALUA_OFFLINE);
	default:
		return tcmx_sense(cmd, TCMX_SENSE_ALUA_TRANSITIONING);
	}
}

/* dev->lock held: TCMX_GATE_ALUA while any group refuses commands */
void tcmx_alua_update_gate(struct tcmx_dev *dev)
{
	struct tcmx_tg_pt_gp *gp;

	lockdep_assert_held(&dev->lock);
	list_for_each_entry(gp, &dev->tg_pt_gps, node) {
		if (!tcmx_alua_serves(gp->access_state)) {
			set_bit(TCMX_GATE_ALUA, &dev->gate);
			return;
		}
	}
	clear_bit(TCMX_GATE_ALUA, &dev->gate);
}

/*
 * dev->lock held.  The gate's bit is set before a refusing state shows,
 * and cleared after the last one is gone.  A change of state is an
 * ASYMMETRIC ACCESS STATE CHANGED for every I_T nexus to the device but
 * @except's (the one a SET TARGET PORT GROUPS came from).
 */
void tcmx_alua_set_state(struct tcmx_dev *dev, struct tcmx_tg_pt_gp *gp,
			 u8 state, u8 status, struct tcmx_lun *except)
{
	bool changed = gp->access_state != state;

	lockdep_assert_held(&dev->lock);
	if (!tcmx_alua_serves(state))
		set_bit(TCMX_GATE_ALUA, &dev->gate);
	WRITE_ONCE(gp->access_state, state);
	gp->access_status = status;
	tcmx_alua_update_gate(dev);
	if (changed)
		tcmx_ua_dev(dev, except, TCMX_SENSE_UA_ALUA_CHANGED);
}

/* ---- REPORT TARGET PORT GROUPS --------------------------------------- */

/* Bytes of the whole list; with @buf, also fill it. dev->lock held. */
static u32 alua_rtpg_fill(struct tcmx_dev *dev, u8 *buf, u32 at)
{
	struct tcmx_tg_pt_gp *gp;
	struct tcmx_lun *lun;

	list_for_each_entry(gp, &dev->tg_pt_gps, node) {
		u8 *d = buf ? &buf[at] : NULL;
		u8 ports = 0;

		at += ALUA_RTPG_DESC;
		list_for_each_entry(lun, &dev->luns, dev_node) {
			if (lun->tg_pt_gp != gp || ports == U8_MAX)
				continue;
			if (buf)
				put_unaligned_be16(lun->rtpi, &buf[at + 2]);
			at += ALUA_RTPG_PORT;
			ports++;
		}
		if (!d)
			continue;
		d[0] = (gp->preferred ? 0x80 : 0) | (gp->access_state & 0x0f);
		d[1] = gp->supported;
		put_unaligned_be16(gp->id, &d[2]);
		d[5] = gp->access_status;
		d[7] = ports;				/* TARGET PORT COUNT */
	}
	return at;
}

static enum tcmx_status alua_report_tpgs_fn(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	bool ext = (cmd->cdb[1] & 0xe0) == ALUA_RTPG_EXT_HDR;
	u32 alloc_len = get_unaligned_be32(&cmd->cdb[6]);
	u32 hdr = ext ? 8 : 4;
	u32 len;
	u8 *buf;

	mutex_lock(&dev->lock);
	len = alua_rtpg_fill(dev, NULL, hdr);
	buf = kzalloc(len, GFP_KERNEL);
	if (buf) {
		alua_rtpg_fill(dev, buf, hdr);
		put_unaligned_be32(len - 4, &buf[0]);
		if (ext) {
			buf[4] = 0x10;			/* format type 001b */
			buf[5] = min_t(u32, cmd->lun->tg_pt_gp->implicit_trans_secs,
				       255);
		}
	}
	mutex_unlock(&dev->lock);
	if (!buf)
		return TCMX_BUSY;
	tcmx_cmd_copy_to_sgl(cmd, buf, min(len, alloc_len));
	kfree(buf);
	return TCMX_GOOD;
}

/* Every group of the device, each with the ports (RTPIs) in it. */
enum tcmx_status tcmx_alua_report_tpgs(struct tcmx_cmd *cmd)
{
	if (!cmd->dev->attrib.alua_support)
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_CDB_FIELD);
	if ((cmd->cdb[1] & 0xe0) > ALUA_RTPG_EXT_HDR)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					1, 7);
	return tcmx_defer(cmd, alua_report_tpgs_fn);
}

/* ---- SET TARGET PORT GROUPS ------------------------------------------ */

static struct tcmx_tg_pt_gp *alua_find_gp(struct tcmx_dev *dev, u16 id)
{
	struct tcmx_tg_pt_gp *gp;

	/* every group on the list has its id */
	list_for_each_entry(gp, &dev->tg_pt_gps, node)
		if (gp->id == id)
			return gp;
	return NULL;
}

/* What an explicit transition may ask for: a primary state it supports */
static bool alua_stpg_state_ok(struct tcmx_tg_pt_gp *gp, u8 state)
{
	static const u8 sup[] = {
		[ALUA_OPTIMIZED]	= TCMX_ALUA_SUP_OPTIMIZED,
		[ALUA_NONOPTIMIZED]	= TCMX_ALUA_SUP_NONOPTIMIZED,
		[ALUA_STANDBY]		= TCMX_ALUA_SUP_STANDBY,
		[ALUA_UNAVAILABLE]	= TCMX_ALUA_SUP_UNAVAILABLE,
	};

	return state < ARRAY_SIZE(sup) && gp->supported & sup[state];
}

/*
 * The whole list is checked before any group changes: a bad descriptor
 * (unknown group, a group without explicit ALUA, a state it cannot take
 * explicitly) fails the command with its field pointer, changing nothing.
 */
static enum tcmx_status alua_set_tpgs_apply(struct tcmx_cmd *cmd,
					    const u8 *p, u32 len)
{
	struct tcmx_dev *dev = cmd->dev;
	u32 at;

	lockdep_assert_held(&dev->lock);
	for (at = ALUA_STPG_HDR; at + ALUA_STPG_DESC <= len;
	     at += ALUA_STPG_DESC) {
		struct tcmx_tg_pt_gp *gp =
			alua_find_gp(dev, get_unaligned_be16(&p[at + 2]));

		if (!gp || !(gp->access_type & ALUA_TYPE_EXPLICIT))
			return tcmx_sense_field(cmd,
						TCMX_SENSE_INVALID_PARAM_FIELD,
						false, at + 2, TCMX_NO_BIT);
		if (!alua_stpg_state_ok(gp, p[at] & 0x0f))
			return tcmx_sense_field(cmd,
						TCMX_SENSE_INVALID_PARAM_FIELD,
						false, at, 3);
	}
	for (at = ALUA_STPG_HDR; at + ALUA_STPG_DESC <= len;
	     at += ALUA_STPG_DESC)
		tcmx_alua_set_state(dev, alua_find_gp(dev,
					get_unaligned_be16(&p[at + 2])),
				    p[at] & 0x0f, ALUA_STATUS_EXPLICIT, cmd->lun);
	return TCMX_GOOD;
}

static enum tcmx_status alua_set_tpgs_fn(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u32 len = get_unaligned_be32(&cmd->cdb[6]);
	enum tcmx_status status;
	u8 *p;

	p = kmalloc(len, GFP_KERNEL);
	if (!p)
		return TCMX_BUSY;
	if (tcmx_cmd_copy_from_sgl(cmd, p, len) != len) {
		kfree(p);
		return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
	}
	mutex_lock(&dev->lock);
	if (!(cmd->lun->tg_pt_gp->access_type & ALUA_TYPE_EXPLICIT))
		status = tcmx_sense(cmd, TCMX_SENSE_INVALID_OPCODE);
	else
		status = alua_set_tpgs_apply(cmd, p, len);
	mutex_unlock(&dev->lock);
	kfree(p);
	return status;
}

/*
 * Explicit transitions, for the groups whose alua_access_type allows
 * them, asked from a port whose own group does (else INVALID COMMAND
 * OPERATION CODE, as in-tree).  A parameter list holds a 4-byte header
 * and 4-byte descriptors: state in byte 0, group id in bytes 2-3.
 */
enum tcmx_status tcmx_alua_set_tpgs(struct tcmx_cmd *cmd)
{
	u32 len = get_unaligned_be32(&cmd->cdb[6]);

	if (!cmd->dev->attrib.alua_support)
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_OPCODE);
	if (!len)
		return TCMX_GOOD;
	if (len > ALUA_STPG_MAX_LEN)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					6, TCMX_NO_BIT);
	if (len < ALUA_STPG_HDR || (len - ALUA_STPG_HDR) % ALUA_STPG_DESC ||
	    len > cmd->data_len)
		return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
	return tcmx_defer(cmd, alua_set_tpgs_fn);
}
