/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of tcmx_core, shared by its files only:
 *
 *   core.c       module init/exit, $T root (version, dbroot), fabric registry
 *   fabric.c     $T/<fabric>/<wwn>/tpgt_<t>/lun/lun_<n> tree, link/unlink
 *   device.c     $T/core: HBAs, devices, attrib/wwn/alua/pr/statistics
 *   transport.c  command life cycle: submit, complete, sense, sgl copies
 *   sbc.c        block commands: READ/WRITE decoding, READ CAPACITY, ...
 *   spc.c        primary commands: INQUIRY, MODE SENSE, REPORT LUNS, ...
 */
#ifndef TCMX_CORE_H
#define TCMX_CORE_H

#include "tcmx.h"

/* A registered fabric. */
struct tcmx_fabric {
	const struct tcmx_fabric_ops	*ops;
	struct list_head		node;
	struct config_group		group;		/* $T/<name> */
	struct config_group		discovery_group;
	struct config_item_type		fabric_type;
	struct config_item_type		discovery_type;
	struct config_item_type		wwn_type;
	struct config_item_type		wwn_param_type;
	struct config_item_type		wwn_stats_type;
	struct config_item_type		tpg_type;
	struct config_item_type		tpg_lun_type;
	struct config_item_type		tpg_attrib_type;
	struct config_item_type		tpg_param_type;
	struct config_item_type		lun_type;
	bool				in_use;		/* $T/<name> exists */
};

/* core.c */
extern struct mutex tcmx_cfs_mutex;	/* registries, link/unlink, dbroot */
extern int tcmx_dev_count;		/* under tcmx_cfs_mutex */

/* device.c: the $T/core subtree and the backend registry */
int tcmx_core_dir_init(struct config_group *root);
void tcmx_core_dir_exit(void);
bool tcmx_item_is_dev(struct config_item *item);
struct tcmx_dev *tcmx_item_to_dev(struct config_item *item);
/* account a LUN linking to / unlinking from a device; -errno on refusal */
int tcmx_dev_export(struct tcmx_dev *dev, struct tcmx_lun *lun);
void tcmx_dev_unexport(struct tcmx_dev *dev, struct tcmx_lun *lun);
/* <lun>/alua_tg_pt_gp */
ssize_t tcmx_lun_tg_pt_gp_show(struct tcmx_lun *lun, char *page);
ssize_t tcmx_lun_tg_pt_gp_store(struct tcmx_lun *lun, const char *page,
				size_t count);
/* the device's current primary ALUA access state as seen through @lun */
u8 tcmx_lun_alua_state(struct tcmx_lun *lun);

/* fabric.c */
int tcmx_fabric_dir_init(void);
void tcmx_fabric_dir_exit(void);
struct config_group *tcmx_fabric_make_dir(const char *name);

/*
 * sbc.c / spc.c.  tcmx_parse_cdb() runs once per command, on the fast path:
 * it decodes READ/WRITE itself (setting cmd->lba, ->nr_blocks, ->fua and
 * cmd->execute = dev->ops->execute_rw) and hands everything else to
 * tcmx_spc_parse().  Emulated commands build their data in a buffer and
 * copy it with tcmx_cmd_copy_to_sgl(); they may allocate (GFP_ATOMIC) but
 * never sleep.  tcmx_parse_cdb_nolun() answers for a LUN that is not
 * mapped: INQUIRY with peripheral qualifier 011b, REPORT LUNS, REQUEST
 * SENSE; anything else is LOGICAL UNIT NOT SUPPORTED.
 */
enum tcmx_sense tcmx_parse_cdb(struct tcmx_cmd *cmd);
enum tcmx_sense tcmx_sbc_parse(struct tcmx_cmd *cmd);
enum tcmx_sense tcmx_spc_parse(struct tcmx_cmd *cmd);
enum tcmx_sense tcmx_parse_cdb_nolun(struct tcmx_cmd *cmd);

/*
 * dev_attrs.c: the text of a configfs write, for every store that takes
 * one.  configfs hands a store @count bytes at @page (NUL-terminated after
 * them).  tcmx_cfs_strip() sets *@s, *@len to that text without one
 * trailing newline, or with TCMX_STRIP_SPACE without all surrounding
 * whitespace (*@s points into @page, not NUL-terminated).  It returns
 * -EINVAL if the text is longer than @max bytes, holds a NUL, or with
 * TCMX_STRIP_ASCII anything but printable ASCII (0x20-0x7e); *@s and *@len
 * are set even then.  It prints nothing: the caller's one pr_err names the
 * device and the file.  Numbers need no stripping: kstrtou32() and the
 * like accept one trailing newline.
 */
#define TCMX_STRIP_SPACE	BIT(0)	/* all surrounding whitespace */
#define TCMX_STRIP_ASCII	BIT(1)	/* printable ASCII only */
int tcmx_cfs_strip(const char *page, size_t count, size_t max,
		   unsigned int flags, const char **s, size_t *len);

#endif /* TCMX_CORE_H */
