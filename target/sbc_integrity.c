// SPDX-License-Identifier: GPL-2.0
/*
 * Integrity commands.  (Stub: no rows yet.)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include "tcmx_core.h"

enum tcmx_status tcmx_excl_check(struct tcmx_cmd *cmd,
				 const struct tcmx_cmd_desc *d)
{
	return TCMX_GOOD;
}

struct tcmx_cmd_desc tcmx_integrity_cmds[] __ro_after_init = {
	{}
};
