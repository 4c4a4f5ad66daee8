// SPDX-License-Identifier: GPL-2.0
/*
 * Further primary commands.  (Stub: no rows yet.)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include "tcmx_core.h"

struct tcmx_cmd_desc tcmx_spc_misc_cmds[] __ro_after_init = {
	{}
};
