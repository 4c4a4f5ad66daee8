// SPDX-License-Identifier: GPL-2.0
/*
 * EXTENDED COPY.  (Stub: no rows yet.)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include "tcmx_core.h"

struct tcmx_cmd_desc tcmx_xcopy_cmds[] __ro_after_init = {
	{}
};
