// SPDX-License-Identifier: GPL-2.0
/* temporary: what the configuration half provides, to build alone */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "iscsi.h"

DEFINE_MUTEX(tcmx_iscsi_cfg_mutex);
LIST_HEAD(tcmx_iscsi_tiqns);
struct tcmx_iscsi_auth tcmx_iscsi_discovery_auth;
bool tcmx_iscsi_enforce_discovery_auth;

const struct tcmx_iscsi_key_info tcmx_iscsi_keys[TCMX_ISCSI_KEY_NR] = {
#define KEY(_id, _name, _kind, _def)					\
	[TCMX_ISCSI_KEY_##_id] = { .name = _name, .kind = _kind, .def = _def },
	TCMX_ISCSI_KEYS(KEY)
#undef KEY
};

struct tcmx_iscsi_acl *tcmx_iscsi_acl_find(struct tcmx_iscsi_tpg *tpg,
					   const char *initiator)
{
	return NULL;
}

const struct tcmx_fabric_ops tcmx_iscsi_fabric_ops = {
	.name		= "iscsi",
	.owner		= THIS_MODULE,
	.queue_status	= tcmx_iscsi_queue_status,
};

static int __init stub_init(void)
{
	return tcmx_iscsi_proto_init();
}

static void __exit stub_exit(void)
{
	tcmx_iscsi_proto_exit();
}

module_init(stub_init);
module_exit(stub_exit);
MODULE_LICENSE("GPL");
