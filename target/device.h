/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by device.c, dev_attrs.c and alua.c only. */
#ifndef TCMX_DEVICE_H
#define TCMX_DEVICE_H

#include "tcmx_core.h"

/* the device of one of its directories (@member of struct tcmx_core_dev) */
#define TCMX_DEV_OF(item, member)					\
	(&container_of(to_config_group(item), struct tcmx_core_dev,	\
		       member)->dev)

/*
 * For a new device, before the backend's ->alloc_dev(): set the default
 * attributes and identification from dev->ops, and add the default groups
 * attrib/, wwn/, pr/ (dev_attrs.c) and alua/ (alua.c) to dev->group.
 */
void tcmx_dev_attrs_init(struct tcmx_dev *dev);
void tcmx_alua_dev_init(struct tcmx_dev *dev);

#endif /* TCMX_DEVICE_H */
