// SPDX-License-Identifier: GPL-2.0
/* STUB: replaced by the real rd.c */
#include <linux/module.h>
#include "tcmx.h"
static struct tcmx_backend_ops rd_ops = { .name = "rd_mcp", .owner = THIS_MODULE };
static int __init rd_init(void) { return tcmx_register_backend(&rd_ops); }
static void __exit rd_exit(void) { tcmx_unregister_backend(&rd_ops); }
module_init(rd_init);
module_exit(rd_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tcmx rd_mcp ramdisk backstore (stub)");
MODULE_VERSION(TCMX_VERSION);
