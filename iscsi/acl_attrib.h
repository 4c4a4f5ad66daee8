/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A node ACL's attrib/ (u32 each, "%u\n"), the in-tree's defaults and
 * ranges, one line each:
 *
 *   TCMX_ISCSI_ACL_ATTRIB(name, default, min, max)
 *
 * nopin_timeout is 0 (no NOP-In) or 3..60.  authentication (-1: the
 * TPG's, 0, 1) is an s32 of its own.  No include guard: each user
 * defines TCMX_ISCSI_ACL_ATTRIB(), includes this file and undefines it
 * (iscsi.h: the struct; acl_cfs.c: the rules and files).
 */
TCMX_ISCSI_ACL_ATTRIB(dataout_timeout,		3,	2,	60)
TCMX_ISCSI_ACL_ATTRIB(dataout_timeout_retries,	5,	1,	15)
TCMX_ISCSI_ACL_ATTRIB(default_erl,		0,	0,	2)
TCMX_ISCSI_ACL_ATTRIB(nopin_timeout,		15,	0,	60)
TCMX_ISCSI_ACL_ATTRIB(nopin_response_timeout,	30,	3,	60)
TCMX_ISCSI_ACL_ATTRIB(random_datain_pdu_offsets, 0,	0,	1)
TCMX_ISCSI_ACL_ATTRIB(random_datain_seq_offsets, 0,	0,	1)
TCMX_ISCSI_ACL_ATTRIB(random_r2t_offsets,	0,	0,	1)
