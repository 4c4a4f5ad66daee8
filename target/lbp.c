// SPDX-License-Identifier: GPL-2.0
/*
 * Logical block provisioning.  (Stub: no rows yet.)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include "tcmx_core.h"

struct tcmx_cmd_desc tcmx_lbp_cmds[] __ro_after_init = {
	{}
};
