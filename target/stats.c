// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics directories, with the names and formats of the in-tree
 * LIO (tables of the SCSI MIB, RFC 4455), all files read-only:
 *
 *   <dev>/statistics/scsi_dev/       inst indx role ports
 *   <dev>/statistics/scsi_tgt_dev/   inst indx num_lus status non_access_lus
 *                                    resets aborts_complete aborts_no_task
 *   <dev>/statistics/scsi_lu/        inst dev indx lun lu_name vend prod rev
 *                                    dev_type status state_bit num_cmds
 *                                    read_mbytes write_mbytes resets
 *                                    full_stat hs_num_cmds creation_time
 *   <lun>/statistics/scsi_port/      inst dev indx role busy_count
 *   <lun>/statistics/scsi_tgt_port/  inst dev indx name port_index in_cmds
 *                                    write_mbytes read_mbytes hs_in_cmds
 *   <lun>/statistics/scsi_transport/ inst device indx dev_name proto_id
 *
 * Each table is a list of {name, show} rows.  Every show reads a snapshot
 * (struct tcmx_stat_view) taken by one of two functions: tcmx_dev_view()
 * under dev->lock, tcmx_lun_view() under tcmx_cfs_mutex, which fails with
 * -ENODEV while the LUN is not linked (as in-tree).  The snapshot holds
 * copies only, so nothing is used after the locks are dropped.
 *
 * A linked LUN counts per CPU (lun->stats, by the fast path); a device's
 * counters are the retired totals of the LUNs unlinked from it plus those of
 * the LUNs on dev->luns.  Counters tcmx does not keep (resets, aborts, busy,
 * task set full, high-speed commands) read 0, as most do in-tree.
 * "inst" is the HBA's index (the N of <plugin>_<N>), "indx"/"dev" of a
 * device its index, unique among the devices that exist.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/idr.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"

static DEFINE_IDA(tcmx_dev_index_ida);

/* What a statistics file shows, copied under the owner's lock. */
struct tcmx_stat_view {
	struct tcmx_stats	sum;
	struct tcmx_t10_wwn	t10;
	u64			created;	/* jiffies64 */
	u32			inst;		/* HBA index */
	u32			dev_index;
	int			ports;		/* LUNs exporting the device */
	/* LUN tables only */
	struct tcmx_lun		*lun;		/* lives as long as its files */
	u16			rtpi;
};

void tcmx_stats_fold(struct tcmx_stats *total, struct tcmx_stats __percpu *pc)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct tcmx_stats *s = per_cpu_ptr(pc, cpu);

		total->cmds += READ_ONCE(s->cmds);
		total->read_bytes += READ_ONCE(s->read_bytes);
		total->write_bytes += READ_ONCE(s->write_bytes);
	}
}

/* dev->lock held */
static void tcmx_stat_copy_dev(struct tcmx_stat_view *v, struct tcmx_dev *dev)
{
	lockdep_assert_held(&dev->lock);
	v->t10 = dev->t10;
	v->created = dev->stats.created;
	v->inst = dev->hba->id;
	v->dev_index = dev->stats.index;
	v->ports = dev->export_count;
}

/* @table is one of <dev>/statistics/'s three directories. */
static void tcmx_dev_view(struct config_item *table, struct tcmx_stat_view *v)
{
	struct tcmx_dev *dev = container_of(to_config_group(table->ci_parent),
					    struct tcmx_dev, stats_group.group);
	struct tcmx_lun *lun;

	memset(v, 0, sizeof(*v));
	mutex_lock(&dev->lock);
	tcmx_stat_copy_dev(v, dev);
	v->sum = dev->stats.retired;
	/* a LUN's counters are valid while it is on the list */
	list_for_each_entry(lun, &dev->luns, dev_node)
		tcmx_stats_fold(&v->sum, lun->stats);
	mutex_unlock(&dev->lock);
}

/* @table is one of <lun>/statistics/'s; -ENODEV while unlinked. */
static int tcmx_lun_view(struct config_item *table, struct tcmx_stat_view *v)
{
	struct tcmx_lun *lun = container_of(to_config_group(table->ci_parent),
					    struct tcmx_lun, stat_groups.group);
	struct tcmx_dev *dev;

	memset(v, 0, sizeof(*v));
	v->lun = lun;
	/* linking and unlinking hold it: lun->dev and lun->stats are stable */
	mutex_lock(&tcmx_cfs_mutex);
	dev = lun->dev;
	if (dev) {
		tcmx_stats_fold(&v->sum, lun->stats);
		mutex_lock(&dev->lock);
		tcmx_stat_copy_dev(v, dev);
		v->rtpi = lun->rtpi;
		mutex_unlock(&dev->lock);
	}
	mutex_unlock(&tcmx_cfs_mutex);
	return dev ? 0 : -ENODEV;
}

static const char *tcmx_stat_fabric(const struct tcmx_stat_view *v)
{
	return v->lun->tpg->ops->name;
}

static const char *tcmx_stat_wwn(const struct tcmx_stat_view *v)
{
	return tcmx_wwn_name(v->lun->tpg->wwn);
}

/* ------------------------------------------------------------------ */
/* device tables                                                      */
/* ------------------------------------------------------------------ */

static ssize_t tcmx_sd_inst(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	tcmx_dev_view(item, &v);
	return sysfs_emit(page, "%u\n", v.inst);
}

static ssize_t tcmx_sd_index(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	tcmx_dev_view(item, &v);
	return sysfs_emit(page, "%u\n", v.dev_index);
}

static ssize_t tcmx_sd_zero(struct config_item *item, char *page)
{
	return sysfs_emit(page, "0\n");
}

static ssize_t tcmx_sd_one(struct config_item *item, char *page)
{
	return sysfs_emit(page, "1\n");
}

static ssize_t tcmx_sd_role(struct config_item *item, char *page)
{
	return sysfs_emit(page, "Target\n");
}

static ssize_t tcmx_sd_ports(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	tcmx_dev_view(item, &v);
	return sysfs_emit(page, "%d\n", v.ports);
}

/* in-tree shows no newline here */
static ssize_t tcmx_sd_tgt_status(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	tcmx_dev_view(item, &v);
	return strscpy(page, v.ports ? "activated" : "deactivated", PAGE_SIZE);
}

static ssize_t tcmx_sd_non_access_lus(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	tcmx_dev_view(item, &v);
	return sysfs_emit(page, "%d\n", !v.ports);
}

static ssize_t tcmx_sd_lu_name(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	tcmx_dev_view(item, &v);
	return sysfs_emit(page, "%s\n", v.t10.unit_serial[0] ?
			  v.t10.unit_serial : "None");
}

/* vend, prod and rev are padded to their INQUIRY field widths */
static ssize_t tcmx_sd_vend(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	tcmx_dev_view(item, &v);
	return sysfs_emit(page, "%-8s\n", v.t10.vendor);
}

static ssize_t tcmx_sd_prod(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	tcmx_dev_view(item, &v);
	return sysfs_emit(page, "%-16s\n", v.t10.model);
}

static ssize_t tcmx_sd_rev(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	tcmx_dev_view(item, &v);
	return sysfs_emit(page, "%-4s\n", v.t10.revision);
}

static ssize_t tcmx_sd_dev_type(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", TYPE_DISK);	/* only SBC devices */
}

static ssize_t tcmx_sd_lu_status(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	tcmx_dev_view(item, &v);
	return sysfs_emit(page, "%s\n", v.ports ? "available" : "notavailable");
}

static ssize_t tcmx_sd_state_bit(struct config_item *item, char *page)
{
	return sysfs_emit(page, "exposed\n");
}

static ssize_t tcmx_sd_num_cmds(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	tcmx_dev_view(item, &v);
	return sysfs_emit(page, "%llu\n", v.sum.cmds);
}

static ssize_t tcmx_sd_read_mbytes(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	tcmx_dev_view(item, &v);
	return sysfs_emit(page, "%llu\n", v.sum.read_bytes >> 20);
}

static ssize_t tcmx_sd_write_mbytes(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	tcmx_dev_view(item, &v);
	return sysfs_emit(page, "%llu\n", v.sum.write_bytes >> 20);
}

/* hundredths of a second from boot to mkdir of the device, as a u32 */
static ssize_t tcmx_sd_creation_time(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	tcmx_dev_view(item, &v);
	return sysfs_emit(page, "%u\n",
			  (u32)div_u64((v.created - INITIAL_JIFFIES) * 100, HZ));
}

/* ------------------------------------------------------------------ */
/* LUN tables: all -ENODEV while the LUN is not linked                */
/* ------------------------------------------------------------------ */

static ssize_t tcmx_sl_inst(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	return tcmx_lun_view(item, &v) ?: sysfs_emit(page, "%u\n", v.inst);
}

static ssize_t tcmx_sl_dev(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	return tcmx_lun_view(item, &v) ?: sysfs_emit(page, "%u\n",
						     v.dev_index);
}

static ssize_t tcmx_sl_rtpi(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	return tcmx_lun_view(item, &v) ?: sysfs_emit(page, "%u\n", v.rtpi);
}

static ssize_t tcmx_sl_zero(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	return tcmx_lun_view(item, &v) ?: sysfs_emit(page, "0\n");
}

static ssize_t tcmx_sl_role(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	return tcmx_lun_view(item, &v) ?: sysfs_emit(page, "Device%u\n",
						     v.dev_index);
}

static ssize_t tcmx_sl_name(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	return tcmx_lun_view(item, &v) ?:
		sysfs_emit(page, "%sPort#%u\n", tcmx_stat_fabric(&v), v.rtpi);
}

static ssize_t tcmx_sl_port_index(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	return tcmx_lun_view(item, &v) ?:
		sysfs_emit(page, "%s+t+%u\n", tcmx_stat_wwn(&v),
			   v.lun->tpg->tag);
}

static ssize_t tcmx_sl_in_cmds(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	return tcmx_lun_view(item, &v) ?: sysfs_emit(page, "%llu\n",
						     v.sum.cmds);
}

/* in-tree shows these two as 32-bit numbers */
static ssize_t tcmx_sl_write_mbytes(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	return tcmx_lun_view(item, &v) ?:
		sysfs_emit(page, "%u\n", (u32)(v.sum.write_bytes >> 20));
}

static ssize_t tcmx_sl_read_mbytes(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	return tcmx_lun_view(item, &v) ?:
		sysfs_emit(page, "%u\n", (u32)(v.sum.read_bytes >> 20));
}

static ssize_t tcmx_sl_device(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	return tcmx_lun_view(item, &v) ?:
		sysfs_emit(page, "scsiTransport%s\n", tcmx_stat_fabric(&v));
}

/* the TPG's instance index: 1 for every TPG, as tcm_loop's */
static ssize_t tcmx_sl_tpg_index(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	return tcmx_lun_view(item, &v) ?: sysfs_emit(page, "1\n");
}

static ssize_t tcmx_sl_dev_name(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;

	return tcmx_lun_view(item, &v) ?:
		sysfs_emit(page, "%s+%s\n", tcmx_stat_wwn(&v),
			   v.t10.unit_serial[0] ? v.t10.unit_serial :
			   v.t10.vendor);
}

/* SCSI protocol identifier: loopback WWNs are naa., shown as SAS */
static ssize_t tcmx_sl_proto_id(struct config_item *item, char *page)
{
	struct tcmx_stat_view v;
	u8 proto;

	if (tcmx_lun_view(item, &v))
		return -ENODEV;
	proto = strcmp(tcmx_stat_fabric(&v), "iscsi") ? SCSI_PROTOCOL_SAS :
		SCSI_PROTOCOL_ISCSI;
	return sysfs_emit(page, "%u\n", proto);
}

/* ------------------------------------------------------------------ */
/* the tables and their directories                                   */
/* ------------------------------------------------------------------ */

#define TCMX_STAT_FILE(_name, _show)					\
	(&(struct configfs_attribute) {					\
		.ca_name = _name, .ca_mode = 0444,			\
		.ca_owner = THIS_MODULE, .show = _show,			\
	})

static struct configfs_attribute *tcmx_scsi_dev_attrs[] = {
	TCMX_STAT_FILE("inst", tcmx_sd_inst),
	TCMX_STAT_FILE("indx", tcmx_sd_index),
	TCMX_STAT_FILE("role", tcmx_sd_role),
	TCMX_STAT_FILE("ports", tcmx_sd_ports),
	NULL,
};

static struct configfs_attribute *tcmx_scsi_tgt_dev_attrs[] = {
	TCMX_STAT_FILE("inst", tcmx_sd_inst),
	TCMX_STAT_FILE("indx", tcmx_sd_index),
	TCMX_STAT_FILE("num_lus", tcmx_sd_one),
	TCMX_STAT_FILE("status", tcmx_sd_tgt_status),
	TCMX_STAT_FILE("non_access_lus", tcmx_sd_non_access_lus),
	TCMX_STAT_FILE("resets", tcmx_sd_zero),
	TCMX_STAT_FILE("aborts_complete", tcmx_sd_zero),
	TCMX_STAT_FILE("aborts_no_task", tcmx_sd_zero),
	NULL,
};

static struct configfs_attribute *tcmx_scsi_lu_attrs[] = {
	TCMX_STAT_FILE("inst", tcmx_sd_inst),
	TCMX_STAT_FILE("dev", tcmx_sd_index),
	TCMX_STAT_FILE("indx", tcmx_sd_one),
	TCMX_STAT_FILE("lun", tcmx_sd_zero),
	TCMX_STAT_FILE("lu_name", tcmx_sd_lu_name),
	TCMX_STAT_FILE("vend", tcmx_sd_vend),
	TCMX_STAT_FILE("prod", tcmx_sd_prod),
	TCMX_STAT_FILE("rev", tcmx_sd_rev),
	TCMX_STAT_FILE("dev_type", tcmx_sd_dev_type),
	TCMX_STAT_FILE("status", tcmx_sd_lu_status),
	TCMX_STAT_FILE("state_bit", tcmx_sd_state_bit),
	TCMX_STAT_FILE("num_cmds", tcmx_sd_num_cmds),
	TCMX_STAT_FILE("read_mbytes", tcmx_sd_read_mbytes),
	TCMX_STAT_FILE("write_mbytes", tcmx_sd_write_mbytes),
	TCMX_STAT_FILE("resets", tcmx_sd_zero),
	TCMX_STAT_FILE("full_stat", tcmx_sd_zero),
	TCMX_STAT_FILE("hs_num_cmds", tcmx_sd_zero),
	TCMX_STAT_FILE("creation_time", tcmx_sd_creation_time),
	NULL,
};

static struct configfs_attribute *tcmx_scsi_port_attrs[] = {
	TCMX_STAT_FILE("inst", tcmx_sl_inst),
	TCMX_STAT_FILE("dev", tcmx_sl_dev),
	TCMX_STAT_FILE("indx", tcmx_sl_rtpi),
	TCMX_STAT_FILE("role", tcmx_sl_role),
	TCMX_STAT_FILE("busy_count", tcmx_sl_zero),
	NULL,
};

static struct configfs_attribute *tcmx_scsi_tgt_port_attrs[] = {
	TCMX_STAT_FILE("inst", tcmx_sl_inst),
	TCMX_STAT_FILE("dev", tcmx_sl_dev),
	TCMX_STAT_FILE("indx", tcmx_sl_rtpi),
	TCMX_STAT_FILE("name", tcmx_sl_name),
	TCMX_STAT_FILE("port_index", tcmx_sl_port_index),
	TCMX_STAT_FILE("in_cmds", tcmx_sl_in_cmds),
	TCMX_STAT_FILE("write_mbytes", tcmx_sl_write_mbytes),
	TCMX_STAT_FILE("read_mbytes", tcmx_sl_read_mbytes),
	TCMX_STAT_FILE("hs_in_cmds", tcmx_sl_zero),
	NULL,
};

static struct configfs_attribute *tcmx_scsi_transport_attrs[] = {
	TCMX_STAT_FILE("inst", tcmx_sl_inst),
	TCMX_STAT_FILE("device", tcmx_sl_device),
	TCMX_STAT_FILE("indx", tcmx_sl_tpg_index),
	TCMX_STAT_FILE("dev_name", tcmx_sl_dev_name),
	TCMX_STAT_FILE("proto_id", tcmx_sl_proto_id),
	NULL,
};

/* As in-tree: nothing can be made in statistics/ (-ENOSYS) ... */
static struct config_group *tcmx_stats_make(struct config_group *group,
					    const char *name)
{
	pr_err("statistics/%s: statistics directories are fixed\n", name);
	return ERR_PTR(-ENOSYS);
}

/* ... nor in one of its tables (-EPERM, configfs' answer in-tree) */
static struct config_group *tcmx_stats_table_make(struct config_group *group,
						  const char *name)
{
	pr_err("statistics/%s/%s: statistics tables are fixed\n",
	       config_item_name(&group->cg_item), name);
	return ERR_PTR(-EPERM);
}

static struct configfs_group_operations tcmx_stats_group_ops = {
	.make_group	= tcmx_stats_make,
};

static struct configfs_group_operations tcmx_stats_table_ops = {
	.make_group	= tcmx_stats_table_make,
};

static const struct config_item_type tcmx_stats_type = {
	.ct_group_ops	= &tcmx_stats_group_ops,
	.ct_owner	= THIS_MODULE,
};

#define TCMX_STAT_TABLE(_name, _attrs)					\
	{ _name, { .ct_group_ops = &tcmx_stats_table_ops,		\
		   .ct_attrs = _attrs, .ct_owner = THIS_MODULE } }

static const struct tcmx_stat_table {
	const char		*name;
	struct config_item_type	type;
} tcmx_dev_tables[] = {
	TCMX_STAT_TABLE("scsi_dev", tcmx_scsi_dev_attrs),
	TCMX_STAT_TABLE("scsi_tgt_dev", tcmx_scsi_tgt_dev_attrs),
	TCMX_STAT_TABLE("scsi_lu", tcmx_scsi_lu_attrs),
}, tcmx_lun_tables[] = {
	TCMX_STAT_TABLE("scsi_port", tcmx_scsi_port_attrs),
	TCMX_STAT_TABLE("scsi_tgt_port", tcmx_scsi_tgt_port_attrs),
	TCMX_STAT_TABLE("scsi_transport", tcmx_scsi_transport_attrs),
};

static void tcmx_stats_add_groups(struct tcmx_stat_groups *sg,
				  struct config_group *parent,
				  const struct tcmx_stat_table *tables)
{
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(tcmx_dev_tables) != ARRAY_SIZE(sg->table));
	BUILD_BUG_ON(ARRAY_SIZE(tcmx_lun_tables) != ARRAY_SIZE(sg->table));
	config_group_init_type_name(&sg->group, "statistics",
				    &tcmx_stats_type);
	configfs_add_default_group(&sg->group, parent);
	for (i = 0; i < ARRAY_SIZE(sg->table); i++) {
		config_group_init_type_name(&sg->table[i], tables[i].name,
					    &tables[i].type);
		configfs_add_default_group(&sg->table[i], &sg->group);
	}
}

int tcmx_stats_dev_init(struct tcmx_dev *dev)
{
	int index;

	tcmx_stats_add_groups(&dev->stats_group, &dev->group, tcmx_dev_tables);
	index = ida_alloc_range(&tcmx_dev_index_ida, 1, INT_MAX, GFP_KERNEL);
	if (index < 0)
		return index;
	dev->stats.index = index;
	dev->stats.created = get_jiffies_64();
	return 0;
}

void tcmx_stats_dev_exit(struct tcmx_dev *dev)
{
	if (dev->stats.index)
		ida_free(&tcmx_dev_index_ida, dev->stats.index);
	dev->stats.index = 0;
}

void tcmx_stats_lun_init(struct tcmx_lun *lun)
{
	tcmx_stats_add_groups(&lun->stat_groups, &lun->group, tcmx_lun_tables);
}
