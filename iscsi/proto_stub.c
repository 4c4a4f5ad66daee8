// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-ins for the protocol side of iscsi.h until it is merged: no
 * listener, no login, no session.  This file goes when the halves meet.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/sysfs.h>
#include "iscsi.h"

int tcmx_iscsi_proto_init(void)
{
	return 0;
}

void tcmx_iscsi_proto_exit(void)
{
}

int tcmx_iscsi_np_enable(struct tcmx_iscsi_np *np)
{
	return 0;
}

void tcmx_iscsi_np_disable(struct tcmx_iscsi_np *np)
{
}

void tcmx_iscsi_tpg_shutdown(struct tcmx_iscsi_tpg *tpg)
{
}

void tcmx_iscsi_acl_shutdown(struct tcmx_iscsi_tpg *tpg,
			     const char *initiator)
{
}

ssize_t tcmx_iscsi_sess_info(struct tcmx_iscsi_tpg *tpg,
			     const char *initiator, char *page)
{
	return sysfs_emit(page,
			  "No active iSCSI Session for Initiator Endpoint: %s\n",
			  initiator);
}

ssize_t tcmx_iscsi_sess_param(struct tcmx_iscsi_tpg *tpg,
			      const char *initiator, enum tcmx_iscsi_key key,
			      char *page)
{
	return sysfs_emit(page, "No Active iSCSI Session\n");
}

ssize_t tcmx_iscsi_dynamic_sessions(struct tcmx_iscsi_tpg *tpg, char *page)
{
	return 0;
}

void tcmx_iscsi_queue_status(struct tcmx_cmd *cmd)
{
}
