// SPDX-License-Identifier: GPL-2.0
/* STUB: replaced by the real device.c */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/module.h>
#include "tcmx_core.h"

int tcmx_register_backend(const struct tcmx_backend_ops *ops) { return 0; }
EXPORT_SYMBOL_GPL(tcmx_register_backend);
void tcmx_unregister_backend(const struct tcmx_backend_ops *ops) { }
EXPORT_SYMBOL_GPL(tcmx_unregister_backend);
int tcmx_core_dir_init(struct config_group *root) { return 0; }
void tcmx_core_dir_exit(void) { }
bool tcmx_item_is_dev(struct config_item *item) { return false; }
struct tcmx_dev *tcmx_item_to_dev(struct config_item *item) { return NULL; }
int tcmx_dev_export(struct tcmx_dev *dev, struct tcmx_lun *lun) { return -ENODEV; }
void tcmx_dev_unexport(struct tcmx_dev *dev, struct tcmx_lun *lun) { }
ssize_t tcmx_lun_tg_pt_gp_show(struct tcmx_lun *lun, char *page) { return 0; }
ssize_t tcmx_lun_tg_pt_gp_store(struct tcmx_lun *lun, const char *page, size_t count) { return -ENODEV; }
u8 tcmx_lun_alua_state(struct tcmx_lun *lun) { return 0; }
