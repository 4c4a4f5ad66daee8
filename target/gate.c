// SPDX-License-Identifier: GPL-2.0
/*
 * The gate: checks a command passes before it is decoded, only while
 * something is pending on its device.  dev->gate holds one bit per kind of
 * pending state (TCMX_GATE_*, tcmx_core.h); tcmx_submit_cmd() loads it once
 * and comes here only when it is not 0, so the fast path pays one load
 * for all of them.  A bit is set before the state it announces is visible
 * to the checks below, and cleared only once that state is gone.  What
 * each check lets through is in the command's row (TCMX_CMD_UA_OK,
 * TCMX_CMD_SANITIZE_OK, TCMX_CMD_IN_*, TCMX_CMD_PR_OK, TCMX_CMD_SPC2_OK).
 * The gate answers with a status and defers nothing: TCMX_GATE_EXCL is for
 * tcmx_submit_cmd() once the WRITE is decoded (excl.c).
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
	u8 bits = tcmx_cdb_dpofua(cmd->cdb);

	if (!bits)
		return TCMX_GOOD;
	return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true, 1,
				bits & TCMX_CDB_DPO ? 4 : 3);
}

enum tcmx_status tcmx_gate(struct tcmx_cmd *cmd, const struct tcmx_cmd_desc *d,
			   unsigned long gate)
{
	enum tcmx_status status;

	if (gate & BIT(TCMX_GATE_UA)) {
		status = tcmx_ua_check(cmd, d);
		if (status != TCMX_GOOD)
			return status;
	}
	/* an unknown opcode still gets INVALID COMMAND OPERATION CODE */
	if (gate & BIT(TCMX_GATE_SANITIZE) && d &&
	    !(d->flags & TCMX_CMD_SANITIZE_OK))
		return tcmx_sense(cmd, TCMX_SENSE_SANITIZE_IN_PROGRESS);
	if (gate & BIT(TCMX_GATE_ALUA)) {
		status = tcmx_alua_check(cmd, d);
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
	/* SWP=1, or the nexus's mapping of the LUN is write-protected */
	if (gate & BIT(TCMX_GATE_WP) && d && d->flags & TCMX_CMD_WRITE)
		return tcmx_sense(cmd, TCMX_SENSE_WRITE_PROTECTED);
	return TCMX_GOOD;
}
