/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A TPG's attrib/ (u32 each, "%u\n"), the in-tree's defaults and ranges,
 * one line each:
 *
 *   TCMX_ISCSI_TPG_ATTRIB(name, default, min, max)
 *
 * fabric_prot_type is 0, 1 or 3 (not 2); authentication rewrites
 * AuthMethod; generate_node_acls 1 sets cache_dynamic_acls (tpg_cfs.c).
 * No include guard: each user defines TCMX_ISCSI_TPG_ATTRIB(), includes
 * this file and undefines it (iscsi.h: the struct; tpg_cfs.c: the rules
 * and files).
 */
TCMX_ISCSI_TPG_ATTRIB(authentication,		1,	0,	1)
TCMX_ISCSI_TPG_ATTRIB(login_timeout,		15,	5,	30)
TCMX_ISCSI_TPG_ATTRIB(netif_timeout,		2,	2,	15)
TCMX_ISCSI_TPG_ATTRIB(generate_node_acls,	0,	0,	1)
TCMX_ISCSI_TPG_ATTRIB(default_cmdsn_depth,	64,	1,	512)
TCMX_ISCSI_TPG_ATTRIB(cache_dynamic_acls,	0,	0,	1)
TCMX_ISCSI_TPG_ATTRIB(demo_mode_write_protect,	1,	0,	1)
TCMX_ISCSI_TPG_ATTRIB(prod_mode_write_protect,	0,	0,	1)
TCMX_ISCSI_TPG_ATTRIB(demo_mode_discovery,	1,	0,	1)
TCMX_ISCSI_TPG_ATTRIB(default_erl,		0,	0,	2)
TCMX_ISCSI_TPG_ATTRIB(t10_pi,			0,	0,	1)
TCMX_ISCSI_TPG_ATTRIB(fabric_prot_type,		0,	0,	3)
TCMX_ISCSI_TPG_ATTRIB(tpg_enabled_sendtargets,	1,	0,	1)
TCMX_ISCSI_TPG_ATTRIB(login_keys_workaround,	1,	0,	1)
