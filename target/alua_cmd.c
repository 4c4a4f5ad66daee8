// SPDX-License-Identifier: GPL-2.0
/*
 * ALUA (SPC-4 5.16) as commands see it: the table of access states, the
 * state of the LUN's target port group enforced through the gate, REPORT
 * TARGET PORT GROUPS and SET TARGET PORT GROUPS, and the one place a group
 * changes state (tcmx_alua_set_state(), for SET TARGET PORT GROUPS and for
 * configfs' implicit transitions in alua.c).
 *
 * TCMX_GATE_ALUA is set while a group of the device is in a state that
 * refuses commands (Standby, Unavailable, Offline, Transitioning): only
 * then does the gate come here, and a command runs if its row has the
 * state's TCMX_CMD_IN_* flag.  Active/Optimized, Active/NonOptimized and
 * LBA Dependent (no LBA map: every LBA is served) serve everything.
 * A group's state changes under cd->lock; the check reads it under the
 * submitter's RCU section (groups are freed after a grace period).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "compat.h"
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"

#define ALUA_RTPG_EXT_HDR	0x20	/* PARAMETER DATA FORMAT 001b */
#define ALUA_RTPG_DESC		8	/* a group's descriptor */
#define ALUA_RTPG_PORT		4	/* one target port in it */
#define ALUA_STPG_HDR		4
#define ALUA_STPG_DESC		4
/* more descriptors than any device has groups (ids are 16 bits) */
#define ALUA_STPG_MAX_LEN	(ALUA_STPG_HDR + ALUA_STPG_DESC * 256)

/*
 * What a port still answers in each state (SPC-4 5.16.2.4, as the in-tree
 * stack reads it) is in the rows' TCMX_CMD_IN_* flags: INQUIRY, REPORT
 * LUNS, REQUEST SENSE and REPORT TARGET PORT GROUPS always; READ/WRITE
 * BUFFER but while Offline; SET TARGET PORT GROUPS in Standby and
 * Unavailable; Standby also the mode pages, READ CAPACITY(16) and
 * persistent reservations.
 */
static const struct tcmx_alua_state tcmx_alua_states[] = {
	[SCSI_ACCESS_STATE_OPTIMAL] = {
		.sup = TCMX_ALUA_SUP_OPTIMIZED, .explicit = true,
		.name = "Active/Optimized" },
	[SCSI_ACCESS_STATE_ACTIVE] = {
		.sup = TCMX_ALUA_SUP_NONOPTIMIZED, .explicit = true,
		.name = "Active/NonOptimized" },
	[SCSI_ACCESS_STATE_STANDBY] = {
		.sup = TCMX_ALUA_SUP_STANDBY, .explicit = true,
		.runs = TCMX_CMD_IN_STANDBY,
		.sense = TCMX_SENSE_ALUA_STANDBY, .name = "Standby" },
	[SCSI_ACCESS_STATE_UNAVAILABLE] = {
		.sup = TCMX_ALUA_SUP_UNAVAILABLE, .explicit = true,
		.runs = TCMX_CMD_IN_UNAVAIL,
		.sense = TCMX_SENSE_ALUA_UNAVAILABLE, .name = "Unavailable" },
	/* without an LBA map every LBA is served */
	[SCSI_ACCESS_STATE_LBA] = {
		.sup = TCMX_ALUA_SUP_LBA_DEPENDENT, .name = "LBA Dependent" },
	[SCSI_ACCESS_STATE_OFFLINE] = {
		.sup = TCMX_ALUA_SUP_OFFLINE, .runs = TCMX_CMD_IN_OFFLINE,
		.sense = TCMX_SENSE_ALUA_OFFLINE, .name = "Offline" },
	[SCSI_ACCESS_STATE_TRANSITIONING] = {
		.sup = TCMX_ALUA_SUP_TRANSITIONING,
		.runs = TCMX_CMD_IN_TRANSITION,
		.sense = TCMX_SENSE_ALUA_TRANSITIONING,
		.name = "Transitioning" },
};

const struct tcmx_alua_state *tcmx_alua_state(u32 state)
{
	if (state >= ARRAY_SIZE(tcmx_alua_states) ||
	    !tcmx_alua_states[state].name)
		return NULL;
	return &tcmx_alua_states[state];
}

static bool tcmx_alua_serves(u8 state)
{
	return !tcmx_alua_states[state & SCSI_ACCESS_STATE_MASK].runs;
}

/*
 * Standby also lets through LOG SENSE/SELECT and SEND/RECEIVE DIAGNOSTIC,
 * which have no row, and any service action of PERSISTENT RESERVE IN/OUT:
 * those without a row go on to be refused as unknown.
 */
static const u8 alua_standby_unknown[] = {
	LOG_SELECT, LOG_SENSE, SEND_DIAGNOSTIC, RECEIVE_DIAGNOSTIC,
	PERSISTENT_RESERVE_IN, PERSISTENT_RESERVE_OUT,
};

/* whether a command of row @d (NULL: none for @opcode) runs in @st */
static bool tcmx_alua_runs(const struct tcmx_alua_state *st,
			   const struct tcmx_cmd_desc *d, u8 opcode)
{
	if (!st->runs)
		return true;
	if (d)
		return d->flags & st->runs;
	return st->runs == TCMX_CMD_IN_STANDBY &&
	       memchr(alua_standby_unknown, opcode,
		      sizeof(alua_standby_unknown));
}

enum tcmx_status tcmx_alua_check(struct tcmx_cmd *cmd,
				 const struct tcmx_cmd_desc *d)
{
	const struct tcmx_alua_state *st;
	struct tcmx_tg_pt_gp *gp;
	u8 state;

	if (!cmd->lun)
		return TCMX_GOOD;
	gp = READ_ONCE(cmd->lun->tg_pt_gp);
	state = gp ? READ_ONCE(gp->access_state) : SCSI_ACCESS_STATE_OPTIMAL;
	st = &tcmx_alua_states[state & SCSI_ACCESS_STATE_MASK];
	if (tcmx_alua_runs(st, d, cmd->cdb[0]))
		return TCMX_GOOD;
	return tcmx_sense(cmd, st->sense);
}

/* cd->lock held: TCMX_GATE_ALUA while any group refuses commands */
void tcmx_alua_update_gate(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_tg_pt_gp *gp;

	lockdep_assert_held(&cd->lock);
	list_for_each_entry(gp, &cd->tg_pt_gps, node) {
		if (!tcmx_alua_serves(gp->access_state)) {
			set_bit(TCMX_GATE_ALUA, &dev->gate);
			return;
		}
	}
	clear_bit(TCMX_GATE_ALUA, &dev->gate);
}

/*
 * cd->lock held.  The gate's bit is set before a refusing state shows,
 * and cleared after the last one is gone.  A change of state is an
 * ASYMMETRIC ACCESS STATE CHANGED for every I_T nexus to the device but
 * the one the SET TARGET PORT GROUPS @except came on.
 */
void tcmx_alua_set_state(struct tcmx_dev *dev, struct tcmx_tg_pt_gp *gp,
			 u8 state, u8 status, struct tcmx_cmd *except)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	bool changed = gp->access_state != state;

	lockdep_assert_held(&cd->lock);
	if (!tcmx_alua_serves(state))
		set_bit(TCMX_GATE_ALUA, &dev->gate);
	WRITE_ONCE(gp->access_state, state);
	gp->access_status = status;
	tcmx_alua_update_gate(dev);
	if (changed && except)
		tcmx_ua_dev_others(dev, except, TCMX_SENSE_UA_ALUA_CHANGED);
	else if (changed)
		tcmx_ua_dev(dev, NULL, TCMX_SENSE_UA_ALUA_CHANGED);
}

/* ---- REPORT TARGET PORT GROUPS --------------------------------------- */

/* Bytes of the whole list; with @buf, also fill it. cd->lock held. */
static u32 alua_rtpg_fill(struct tcmx_dev *dev, u8 *buf, u32 at)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_tg_pt_gp *gp;
	struct tcmx_lun *lun;

	list_for_each_entry(gp, &cd->tg_pt_gps, node) {
		u8 *d = buf ? &buf[at] : NULL;
		u8 ports = 0;

		at += ALUA_RTPG_DESC;
		list_for_each_entry(lun, &cd->luns, dev_node) {
			if (lun->tg_pt_gp != gp || ports == U8_MAX)
				continue;
			if (buf)
				put_unaligned_be16(lun->rtpi, &buf[at + 2]);
			at += ALUA_RTPG_PORT;
			ports++;
		}
		if (!d)
			continue;
		d[0] = (gp->preferred ? SCSI_ACCESS_STATE_PREFERRED : 0) |
		       (gp->access_state & SCSI_ACCESS_STATE_MASK);
		d[1] = gp->supported;
		put_unaligned_be16(gp->id, &d[2]);
		d[5] = gp->access_status;
		d[7] = ports;				/* TARGET PORT COUNT */
	}
	return at;
}

/* Every group of the device, each with the ports (RTPIs) in it. */
enum tcmx_status tcmx_alua_report_tpgs(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	bool ext = (cmd->cdb[1] & 0xe0) == ALUA_RTPG_EXT_HDR;
	u32 alloc_len = get_unaligned_be32(&cmd->cdb[6]);
	u32 hdr = ext ? 8 : 4;
	u32 len;
	u8 *buf;

	mutex_lock(&cd->lock);
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
	mutex_unlock(&cd->lock);
	if (!buf)
		return TCMX_BUSY;
	tcmx_cmd_copy_to_sgl(cmd, buf, min(len, alloc_len));
	kfree(buf);
	return TCMX_GOOD;
}

enum tcmx_status tcmx_alua_parse_report_tpgs(struct tcmx_cmd *cmd)
{
	if (!cmd->dev->attrib.alua_support)
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_CDB_FIELD);
	if ((cmd->cdb[1] & 0xe0) > ALUA_RTPG_EXT_HDR)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					1, 7);
	return TCMX_GOOD;
}

/* ---- SET TARGET PORT GROUPS ------------------------------------------ */

static struct tcmx_tg_pt_gp *alua_find_gp(struct tcmx_dev *dev, u16 id)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_tg_pt_gp *gp;

	/* every group on the list has its id */
	list_for_each_entry(gp, &cd->tg_pt_gps, node)
		if (gp->id == id)
			return gp;
	return NULL;
}

/* What an explicit transition may ask for: a primary state it supports */
static bool alua_stpg_state_ok(struct tcmx_tg_pt_gp *gp, u8 state)
{
	const struct tcmx_alua_state *st = tcmx_alua_state(state);

	return st && st->explicit && gp->supported & st->sup;
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
	struct tcmx_core_dev *cd = tcmx_core(dev);
	u32 at;

	lockdep_assert_held(&cd->lock);
	for (at = ALUA_STPG_HDR; at + ALUA_STPG_DESC <= len;
	     at += ALUA_STPG_DESC) {
		struct tcmx_tg_pt_gp *gp =
			alua_find_gp(dev, get_unaligned_be16(&p[at + 2]));

		if (!gp || !(gp->access_type & TCMX_ALUA_EXPLICIT))
			return tcmx_sense_field(cmd,
						TCMX_SENSE_INVALID_PARAM_FIELD,
						false, at + 2, TCMX_NO_BIT);
		if (!alua_stpg_state_ok(gp, p[at] & SCSI_ACCESS_STATE_MASK))
			return tcmx_sense_field(cmd,
						TCMX_SENSE_INVALID_PARAM_FIELD,
						false, at, 3);
	}
	for (at = ALUA_STPG_HDR; at + ALUA_STPG_DESC <= len;
	     at += ALUA_STPG_DESC)
		tcmx_alua_set_state(dev, alua_find_gp(dev,
					get_unaligned_be16(&p[at + 2])),
				    p[at] & SCSI_ACCESS_STATE_MASK,
				    TCMX_ALUA_STATUS_EXPLICIT, cmd);
	return TCMX_GOOD;
}

enum tcmx_status tcmx_alua_set_tpgs(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
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
	mutex_lock(&cd->lock);
	if (!(cmd->lun->tg_pt_gp->access_type & TCMX_ALUA_EXPLICIT))
		status = tcmx_sense(cmd, TCMX_SENSE_INVALID_OPCODE);
	else
		status = alua_set_tpgs_apply(cmd, p, len);
	mutex_unlock(&cd->lock);
	kfree(p);
	return status;
}

/*
 * Explicit transitions, for the groups whose alua_access_type allows
 * them, asked from a port whose own group does (else INVALID COMMAND
 * OPERATION CODE, as in-tree).  A parameter list holds a 4-byte header
 * and 4-byte descriptors: state in byte 0, group id in bytes 2-3.
 */
enum tcmx_status tcmx_alua_parse_set_tpgs(struct tcmx_cmd *cmd)
{
	u32 len = get_unaligned_be32(&cmd->cdb[6]);

	if (!cmd->dev->attrib.alua_support)
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_OPCODE);
	if (!len) {
		cmd->execute = tcmx_execute_nop;
		return TCMX_GOOD;
	}
	if (len > ALUA_STPG_MAX_LEN)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					6, TCMX_NO_BIT);
	if (len < ALUA_STPG_HDR || (len - ALUA_STPG_HDR) % ALUA_STPG_DESC ||
	    len > cmd->data_len)
		return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
	return TCMX_GOOD;
}
