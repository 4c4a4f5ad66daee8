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

enum tcmx_status tcmx_gate(struct tcmx_cmd *cmd, const struct tcmx_cmd_desc *d)
{
	unsigned long gate = READ_ONCE(cmd->dev->gate);
	enum tcmx_status status;

	if (gate & BIT(TCMX_GATE_UA)) {
		status = tcmx_ua_check(cmd, d);
		if (status != TCMX_GOOD)
			return status;
	}
	if (gate & BIT(TCMX_GATE_PR)) {
		status = tcmx_pr_check(cmd, d);
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
