// SPDX-License-Identifier: GPL-2.0
/*
 * tcmx_iscsi: the iSCSI fabric of tcmx.  The core loads it on the first
 * mkdir $T/iscsi (request_module("tcmx-fabric-iscsi")); an installed tcmx
 * also answers "modprobe iscsi_target_mod" with it (tools/install).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "cfs.h"

static int __init tcmx_iscsi_init(void)
{
	int ret;

	ret = tcmx_iscsi_proto_init();
	if (ret)
		return ret;
	/* last: from here on, configfs may call into the protocol */
	ret = tcmx_iscsi_cfs_init();
	if (ret) {
		tcmx_iscsi_proto_exit();
		return ret;
	}
	return 0;
}

/* $T/iscsi pins the module: no target, portal or session is left */
static void __exit tcmx_iscsi_exit(void)
{
	tcmx_iscsi_cfs_exit();
	tcmx_iscsi_proto_exit();
}

module_init(tcmx_iscsi_init);
module_exit(tcmx_iscsi_exit);

MODULE_ALIAS("tcmx-fabric-iscsi");
MODULE_DESCRIPTION("tcmx iSCSI fabric (RFC 7143 target)");
MODULE_LICENSE("GPL");
MODULE_VERSION(TCMX_VERSION);
