// SPDX-License-Identifier: GPL-2.0
/* STUB: replaced by the real loop.c */
#include <linux/module.h>
#include "tcmx.h"
static struct tcmx_fabric_ops loop_ops = { .name = "loopback", .owner = THIS_MODULE };
static int __init loop_init(void) { return tcmx_register_fabric(&loop_ops); }
static void __exit loop_exit(void) { tcmx_unregister_fabric(&loop_ops); }
module_init(loop_init);
module_exit(loop_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tcmx loopback fabric (stub)");
MODULE_VERSION(TCMX_VERSION);
