// SPDX-License-Identifier: GPL-2.0
/* STUB */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/module.h>
#include "tcmx_core.h"
int tcmx_register_fabric(const struct tcmx_fabric_ops *ops) { return 0; }
EXPORT_SYMBOL_GPL(tcmx_register_fabric);
void tcmx_unregister_fabric(const struct tcmx_fabric_ops *ops) { }
EXPORT_SYMBOL_GPL(tcmx_unregister_fabric);
int tcmx_fabric_dir_init(void) { return 0; }
void tcmx_fabric_dir_exit(void) { }
struct config_group *tcmx_fabric_make_dir(const char *name) { return ERR_PTR(-EINVAL); }
