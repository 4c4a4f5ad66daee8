// SPDX-License-Identifier: GPL-2.0
/*
 * Unit attentions, per I_T nexus and LUN.  (Stub: nothing is queued yet.)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include "tcmx_core.h"

enum tcmx_status tcmx_ua_check(struct tcmx_cmd *cmd,
			       const struct tcmx_cmd_desc *d)
{
	return TCMX_GOOD;
}
