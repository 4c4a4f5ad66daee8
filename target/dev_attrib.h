/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device attributes of <dev>/attrib, one line each, in configfs order:
 *
 *   TCMX_DEV_ATTRIB(name, default, min, max, flags)
 *
 * Every attribute is a u32 in struct tcmx_dev_attrib (tcmx.h), shown as
 * "%u\n".  flags are TCMX_CFS_* (cfs_attr.h): RO (read-only, set from the
 * backend by tcmx_dev_attrs_init()), IDLE (a change is refused with EBUSY
 * while a LUN exports the device), POW2 (a power of two), HWQD (max is
 * hw_queue_depth), CLAMP (a value above hw_max_sectors is lowered to it,
 * not refused).  A value outside min..max is refused with EINVAL.
 *
 * Defaults are LIO's for rd_mcp, so that a saveconfig.json written by
 * either stack restores on the other.  Features tcmx does not have accept
 * only their "off" value (pi_*, emulate_rest_reord); alua_support and
 * pgr_support are fixed at 1.  optimal_sectors is clamped, not refused:
 * LIO saves 4294967288 there, whatever our backend's hw_max_sectors is.
 * queue_depth and optimal_sectors default to the backend's limits.
 *
 * No include guard: each user defines TCMX_DEV_ATTRIB(), includes this
 * file and undefines it (tcmx.h: the struct; dev_attrs.c: the rules and
 * the configfs files).
 */
TCMX_DEV_ATTRIB(emulate_model_alias,	0,	0,	1,	TCMX_CFS_IDLE)
TCMX_DEV_ATTRIB(emulate_dpo,		1,	0,	1,	0)
TCMX_DEV_ATTRIB(emulate_fua_write,	1,	0,	1,	0)
TCMX_DEV_ATTRIB(emulate_fua_read,	1,	0,	1,	0)
TCMX_DEV_ATTRIB(emulate_write_cache,	0,	0,	1,	0)
TCMX_DEV_ATTRIB(emulate_ua_intlck_ctrl,	0,	0,	2,	TCMX_CFS_IDLE)
TCMX_DEV_ATTRIB(emulate_tas,		1,	0,	1,	TCMX_CFS_IDLE)
TCMX_DEV_ATTRIB(emulate_tpu,		0,	0,	1,	0)
TCMX_DEV_ATTRIB(emulate_tpws,		0,	0,	1,	0)
TCMX_DEV_ATTRIB(emulate_caw,		1,	0,	1,	0)
TCMX_DEV_ATTRIB(emulate_3pc,		1,	0,	1,	0)
TCMX_DEV_ATTRIB(emulate_pr,		1,	0,	1,	0)
TCMX_DEV_ATTRIB(pi_prot_type,		0,	0,	0,	TCMX_CFS_IDLE)
TCMX_DEV_ATTRIB(pi_prot_format,		0,	0,	0,	TCMX_CFS_IDLE)
TCMX_DEV_ATTRIB(pi_prot_verify,		0,	0,	0,	0)
TCMX_DEV_ATTRIB(enforce_pr_isids,	1,	0,	1,	0)
TCMX_DEV_ATTRIB(is_nonrot,		1,	0,	1,	0)
TCMX_DEV_ATTRIB(emulate_rest_reord,	0,	0,	0,	0)
TCMX_DEV_ATTRIB(force_pr_aptpl,		0,	0,	1,	TCMX_CFS_IDLE)
TCMX_DEV_ATTRIB(block_size,		512,	512,	4096,	TCMX_CFS_IDLE | TCMX_CFS_POW2)
TCMX_DEV_ATTRIB(optimal_sectors,	0,	0,	U32_MAX, TCMX_CFS_IDLE | TCMX_CFS_CLAMP)
TCMX_DEV_ATTRIB(queue_depth,		0,	1,	0,	TCMX_CFS_IDLE | TCMX_CFS_HWQD)
TCMX_DEV_ATTRIB(max_unmap_lba_count,	0,	0,	U32_MAX, 0)
TCMX_DEV_ATTRIB(max_unmap_block_desc_count, 0,	0,	U32_MAX, 0)
TCMX_DEV_ATTRIB(unmap_granularity,	0,	0,	U32_MAX, 0)
TCMX_DEV_ATTRIB(unmap_granularity_alignment, 0, 0,	U32_MAX, 0)
TCMX_DEV_ATTRIB(unmap_zeroes_data,	0,	0,	1,	TCMX_CFS_IDLE)
TCMX_DEV_ATTRIB(max_write_same_len,	0,	0,	U32_MAX, 0)
TCMX_DEV_ATTRIB(alua_support,		1,	1,	1,	0)
TCMX_DEV_ATTRIB(pgr_support,		1,	1,	1,	0)
TCMX_DEV_ATTRIB(hw_block_size,		0,	0,	0,	TCMX_CFS_RO)
TCMX_DEV_ATTRIB(hw_max_sectors,		0,	0,	0,	TCMX_CFS_RO)
TCMX_DEV_ATTRIB(hw_queue_depth,		0,	0,	0,	TCMX_CFS_RO)
TCMX_DEV_ATTRIB(hw_pi_prot_type,	0,	0,	0,	TCMX_CFS_RO)
