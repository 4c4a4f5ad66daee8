// SPDX-License-Identifier: GPL-2.0
/*
 * The gate: checks a command passes before it runs, only while something
 * is pending on its device.  dev->gate holds one bit per kind of pending
 * state (TCMX_GATE_*, tcmx_core.h); the decoder loads it once and comes
 * here only when it is not 0, so the fast path pays one load for all of
 * them.  A bit is set before the state it announces is visible to the
 * checks below, and cleared only once that state is gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/kernel.h>
#include "tcmx_core.h"

/*
 * MODE SENSE says DPOFUA=0: READ and WRITE(10/12/16) refuse DPO and FUA,
 * as RSOC's usage data then say (the in-tree stack does the same).
 */
static enum tcmx_status tcmx_gate_dpofua(struct tcmx_cmd *cmd)
{
	u8 bits = cmd->cdb[0] >= 0x20 ? cmd->cdb[1] & 0x18 : 0;

	if (!bits)
		return TCMX_GOOD;
	return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true, 1,
				bits & 0x10 ? 4 : 3);
}

enum tcmx_status tcmx_gate(struct tcmx_cmd *cmd, const struct tcmx_cmd_desc *d)
{
	unsigned long gate = READ_ONCE(cmd->dev->gate);
	enum tcmx_status status;

	if (gate & BIT(TCMX_GATE_UA)) {
		status = tcmx_ua_check(cmd, d);
		if (status != TCMX_GOOD)
			return status;
	}
	if (gate & BIT(TCMX_GATE_ALUA)) {
		status = tcmx_alua_check(cmd);
		if (status != TCMX_GOOD)
			return status;
	}
	if (gate & BIT(TCMX_GATE_PR)) {
		status = tcmx_pr_check(cmd, d);
		if (status != TCMX_GOOD)
			return status;
	}
	if (gate & BIT(TCMX_GATE_NOFUA) && d && d->flags & TCMX_CMD_RW) {
		status = tcmx_gate_dpofua(cmd);
		if (status != TCMX_GOOD)
			return status;
	}
	if (!d || !(d->flags & TCMX_CMD_WRITE))
		return TCMX_GOOD;
	if (gate & BIT(TCMX_GATE_WP))
		return tcmx_sense(cmd, TCMX_SENSE_WRITE_PROTECTED);
	if (gate & BIT(TCMX_GATE_EXCL))
		return tcmx_excl_check(cmd, d);
	return TCMX_GOOD;
}
