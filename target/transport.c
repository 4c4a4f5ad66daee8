// SPDX-License-Identifier: GPL-2.0
/* STUB */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/module.h>
#include "tcmx_core.h"
void tcmx_submit_cmd(struct tcmx_cmd *cmd) { }
EXPORT_SYMBOL_GPL(tcmx_submit_cmd);
void tcmx_complete_cmd(struct tcmx_cmd *cmd, enum tcmx_sense sense) { }
EXPORT_SYMBOL_GPL(tcmx_complete_cmd);
void tcmx_cmd_set_sense(struct tcmx_cmd *cmd, enum tcmx_sense sense) { }
EXPORT_SYMBOL_GPL(tcmx_cmd_set_sense);
size_t tcmx_cmd_copy_to_sgl(struct tcmx_cmd *cmd, const void *buf, size_t len) { return 0; }
EXPORT_SYMBOL_GPL(tcmx_cmd_copy_to_sgl);
size_t tcmx_cmd_copy_from_sgl(struct tcmx_cmd *cmd, void *buf, size_t len) { return 0; }
EXPORT_SYMBOL_GPL(tcmx_cmd_copy_from_sgl);
int tcmx_transport_init(void) { return 0; }
void tcmx_transport_exit(void) { }
