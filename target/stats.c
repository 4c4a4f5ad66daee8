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
 * Each table is a list of {name, field} rows.  Every file reads a snapshot
 * (struct tcmx_stat_view) taken by one of two functions, as its table says:
 * tcmx_dev_view() under cd->lock, tcmx_lun_view() under tcmx_cfs_mutex,
 * which fails with -ENODEV while the LUN is not linked (as in-tree); one
 * function, tcmx_stat_emit(), then shows the field of it in its format.
 * The snapshot holds copies only, so nothing is used after the locks are
 * dropped.
 *
 * A linked LUN counts per CPU (lun->stats, by the fast path); a device's
 * counters are the retired totals of the LUNs unlinked from it plus those of
 * the LUNs on cd->luns.  Counters tcmx does not keep (resets, aborts, busy,
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

/* cd->lock held */
static void tcmx_stat_copy_dev(struct tcmx_stat_view *v, struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	lockdep_assert_held(&cd->lock);
	v->t10 = cd->t10;
	v->created = cd->stats.created;
	v->inst = dev->hba->id;
	v->dev_index = cd->stats.index;
	v->ports = cd->export_count;
}

/* @table is one of <dev>/statistics/'s three directories. */
static void tcmx_dev_view(struct config_item *table, struct tcmx_stat_view *v)
{
	struct config_group *stats = to_config_group(table->ci_parent);
	struct tcmx_core_dev *cd = container_of(stats, struct tcmx_core_dev,
						stats_group.group);
	struct tcmx_dev *dev = &cd->dev;
	struct tcmx_lun *lun;

	memset(v, 0, sizeof(*v));
	mutex_lock(&cd->lock);
	tcmx_stat_copy_dev(v, dev);
	v->sum = cd->stats.retired;
	/* a LUN's counters are valid while it is on the list */
	list_for_each_entry(lun, &cd->luns, dev_node)
		tcmx_stats_fold(&v->sum, lun->stats);
	mutex_unlock(&cd->lock);
}

/* @table is one of <lun>/statistics/'s; -ENODEV while unlinked. */
static int tcmx_lun_view(struct config_item *table, struct tcmx_stat_view *v)
{
	struct tcmx_lun *lun = container_of(to_config_group(table->ci_parent),
					    struct tcmx_lun, stat_groups.group);
	struct tcmx_dev *dev;

	memset(v, 0, sizeof(*v));
	v->lun = lun;
	/* lun->dev and lun->stats change only under it (lun.c) */
	mutex_lock(&tcmx_cfs_mutex);
	dev = lun->dev;
	if (dev) {
		tcmx_stats_fold(&v->sum, lun->stats);
		mutex_lock(&tcmx_core(dev)->lock);
		tcmx_stat_copy_dev(v, dev);
		v->rtpi = lun->rtpi;
		mutex_unlock(&tcmx_core(dev)->lock);
	}
	mutex_unlock(&tcmx_cfs_mutex);
	return dev ? 0 : -ENODEV;
}

/* ------------------------------------------------------------------ */
/* the files: one field of a view each                                */
/* ------------------------------------------------------------------ */

enum tcmx_stat_field {
	TCMX_SF_ZERO,		/* counters tcmx does not keep */
	TCMX_SF_ONE,
	TCMX_SF_INST,
	TCMX_SF_DEV,		/* the device's index */
	TCMX_SF_RTPI,
	TCMX_SF_TARGET,		/* scsi_dev/role */
	TCMX_SF_PORTS,
	TCMX_SF_TGT_STATUS,
	TCMX_SF_NON_ACCESS,
	TCMX_SF_LU_NAME,
	TCMX_SF_VEND,
	TCMX_SF_PROD,
	TCMX_SF_REV,
	TCMX_SF_DEV_TYPE,
	TCMX_SF_LU_STATUS,
	TCMX_SF_STATE_BIT,
	TCMX_SF_CMDS,
	TCMX_SF_READ_MB,
	TCMX_SF_WRITE_MB,
	TCMX_SF_READ_MB32,	/* in-tree shows LUN MiB as 32-bit numbers */
	TCMX_SF_WRITE_MB32,
	TCMX_SF_CREATED,
	/* LUN views only */
	TCMX_SF_DEVICE_ROLE,	/* scsi_port/role */
	TCMX_SF_PORT_NAME,
	TCMX_SF_PORT_INDEX,
	TCMX_SF_TRANSPORT,
	TCMX_SF_DEV_NAME,
	TCMX_SF_PROTO_ID,
};

/* SCSI protocol identifier: loopback WWNs are naa., shown as SAS */
static u8 tcmx_proto_id(const char *fabric)
{
	return strcmp(fabric, "iscsi") ? SCSI_PROTOCOL_SAS :
		SCSI_PROTOCOL_ISCSI;
}

/* The counters of @v: tcmx_stat_emit()'s TCMX_SF_CMDS..TCMX_SF_CREATED. */
static ssize_t tcmx_stat_emit_io(const struct tcmx_stat_view *v,
				 enum tcmx_stat_field f, char *page)
{
	switch (f) {
	case TCMX_SF_CMDS:
		return sysfs_emit(page, "%llu\n", v->sum.cmds);
	case TCMX_SF_READ_MB:
		return sysfs_emit(page, "%llu\n", v->sum.read_bytes >> 20);
	case TCMX_SF_WRITE_MB:
		return sysfs_emit(page, "%llu\n", v->sum.write_bytes >> 20);
	case TCMX_SF_READ_MB32:
		return sysfs_emit(page, "%u\n", (u32)(v->sum.read_bytes >> 20));
	case TCMX_SF_WRITE_MB32:
		return sysfs_emit(page, "%u\n",
				  (u32)(v->sum.write_bytes >> 20));
	case TCMX_SF_CREATED:	/* hundredths of a second from boot, a u32 */
		return sysfs_emit(page, "%u\n",
				  (u32)div_u64((v->created - INITIAL_JIFFIES) *
					       100, HZ));
	default:
		return -EINVAL;
	}
}

/* The port of @v: tcmx_stat_emit()'s TCMX_SF_DEVICE_ROLE..PROTO_ID. */
static ssize_t tcmx_stat_emit_port(const struct tcmx_stat_view *v,
				   enum tcmx_stat_field f, char *page)
{
	const struct tcmx_t10_wwn *t10 = &v->t10;
	const char *fabric = NULL, *wwn = NULL;

	if (v->lun) {
		fabric = v->lun->tpg->ops->name;
		wwn = tcmx_wwn_name(v->lun->tpg->wwn);
	}
	switch (f) {
	case TCMX_SF_DEVICE_ROLE:
		return sysfs_emit(page, "Device%u\n", v->dev_index);
	case TCMX_SF_PORT_NAME:
		return sysfs_emit(page, "%sPort#%u\n", fabric, v->rtpi);
	case TCMX_SF_PORT_INDEX:
		return sysfs_emit(page, "%s+t+%u\n", wwn, v->lun->tpg->tag);
	case TCMX_SF_TRANSPORT:
		return sysfs_emit(page, "scsiTransport%s\n", fabric);
	case TCMX_SF_DEV_NAME:
		return sysfs_emit(page, "%s+%s\n", wwn, t10->unit_serial[0] ?
				  t10->unit_serial : t10->vendor);
	case TCMX_SF_PROTO_ID:
		return sysfs_emit(page, "%u\n", tcmx_proto_id(fabric));
	default:
		return -EINVAL;
	}
}

/* Field @f of @v, in the in-tree format of the files that show it. */
static ssize_t tcmx_stat_emit(const struct tcmx_stat_view *v,
			      enum tcmx_stat_field f, char *page)
{
	const struct tcmx_t10_wwn *t10 = &v->t10;

	switch (f) {
	case TCMX_SF_ZERO:
		return sysfs_emit(page, "0\n");
	case TCMX_SF_ONE:
		return sysfs_emit(page, "1\n");
	case TCMX_SF_INST:
		return sysfs_emit(page, "%u\n", v->inst);
	case TCMX_SF_DEV:
		return sysfs_emit(page, "%u\n", v->dev_index);
	case TCMX_SF_RTPI:
		return sysfs_emit(page, "%u\n", v->rtpi);
	case TCMX_SF_TARGET:
		return sysfs_emit(page, "Target\n");
	case TCMX_SF_PORTS:
		return sysfs_emit(page, "%d\n", v->ports);
	case TCMX_SF_TGT_STATUS:	/* in-tree shows no newline here */
		return strscpy(page, v->ports ? "activated" : "deactivated",
			       PAGE_SIZE);
	case TCMX_SF_NON_ACCESS:
		return sysfs_emit(page, "%d\n", !v->ports);
	case TCMX_SF_LU_NAME:
		return sysfs_emit(page, "%s\n", t10->unit_serial[0] ?
				  t10->unit_serial : "None");
	/* vend, prod and rev are padded to their INQUIRY field widths */
	case TCMX_SF_VEND:
		return sysfs_emit(page, "%-8s\n", t10->vendor);
	case TCMX_SF_PROD:
		return sysfs_emit(page, "%-16s\n", t10->model);
	case TCMX_SF_REV:
		return sysfs_emit(page, "%-4s\n", t10->revision);
	case TCMX_SF_DEV_TYPE:		/* only SBC devices */
		return sysfs_emit(page, "%u\n", TYPE_DISK);
	case TCMX_SF_LU_STATUS:
		return sysfs_emit(page, "%s\n",
				  v->ports ? "available" : "notavailable");
	case TCMX_SF_STATE_BIT:
		return sysfs_emit(page, "exposed\n");
	case TCMX_SF_CMDS:
	case TCMX_SF_READ_MB:
	case TCMX_SF_WRITE_MB:
	case TCMX_SF_READ_MB32:
	case TCMX_SF_WRITE_MB32:
	case TCMX_SF_CREATED:
		return tcmx_stat_emit_io(v, f, page);
	case TCMX_SF_DEVICE_ROLE:
	case TCMX_SF_PORT_NAME:
	case TCMX_SF_PORT_INDEX:
	case TCMX_SF_TRANSPORT:
	case TCMX_SF_DEV_NAME:
	case TCMX_SF_PROTO_ID:
		return tcmx_stat_emit_port(v, f, page);
	}
	return -EINVAL;
}

/* A table directory: <dev>/statistics/<name> or <lun>/statistics/<name>. */
struct tcmx_stat_table {
	const char		*name;
	struct config_item_type	type;
	bool			lun;	/* its view is tcmx_lun_view()'s */
};

/* Field @f of @table's view; -ENODEV while a LUN table's LUN is unlinked. */
static ssize_t tcmx_stat_show(struct config_item *table, char *page,
			      enum tcmx_stat_field f)
{
	const struct tcmx_stat_table *t =
		container_of(table->ci_type, struct tcmx_stat_table, type);
	struct tcmx_stat_view v;

	if (!t->lun)
		tcmx_dev_view(table, &v);
	else if (tcmx_lun_view(table, &v))
		return -ENODEV;
	return tcmx_stat_emit(&v, f, page);
}

/* tcmx_stat_<field>(): the configfs show of the files that show a field */
#define TCMX_STAT_SHOW(_field, _sf)					\
static ssize_t tcmx_stat_##_field(struct config_item *item, char *page) \
{									\
	return tcmx_stat_show(item, page, TCMX_SF_##_sf);		\
}

TCMX_STAT_SHOW(zero, ZERO)
TCMX_STAT_SHOW(one, ONE)
TCMX_STAT_SHOW(inst, INST)
TCMX_STAT_SHOW(dev, DEV)
TCMX_STAT_SHOW(rtpi, RTPI)
TCMX_STAT_SHOW(target, TARGET)
TCMX_STAT_SHOW(ports, PORTS)
TCMX_STAT_SHOW(tgt_status, TGT_STATUS)
TCMX_STAT_SHOW(non_access, NON_ACCESS)
TCMX_STAT_SHOW(lu_name, LU_NAME)
TCMX_STAT_SHOW(vend, VEND)
TCMX_STAT_SHOW(prod, PROD)
TCMX_STAT_SHOW(rev, REV)
TCMX_STAT_SHOW(dev_type, DEV_TYPE)
TCMX_STAT_SHOW(lu_status, LU_STATUS)
TCMX_STAT_SHOW(state_bit, STATE_BIT)
TCMX_STAT_SHOW(cmds, CMDS)
TCMX_STAT_SHOW(read_mb, READ_MB)
TCMX_STAT_SHOW(write_mb, WRITE_MB)
TCMX_STAT_SHOW(read_mb32, READ_MB32)
TCMX_STAT_SHOW(write_mb32, WRITE_MB32)
TCMX_STAT_SHOW(created, CREATED)
TCMX_STAT_SHOW(device_role, DEVICE_ROLE)
TCMX_STAT_SHOW(port_name, PORT_NAME)
TCMX_STAT_SHOW(port_index, PORT_INDEX)
TCMX_STAT_SHOW(transport, TRANSPORT)
TCMX_STAT_SHOW(dev_name, DEV_NAME)
TCMX_STAT_SHOW(proto_id, PROTO_ID)

/* ------------------------------------------------------------------ */
/* the tables and their directories: rows {file name, field}          */
/* ------------------------------------------------------------------ */

#define TCMX_STAT_FILE(_name, _field)					\
	(&(struct configfs_attribute) {					\
		.ca_name = _name, .ca_mode = 0444,			\
		.ca_owner = THIS_MODULE, .show = tcmx_stat_##_field,	\
	})

static struct configfs_attribute *tcmx_scsi_dev_attrs[] = {
	TCMX_STAT_FILE("inst", inst),
	TCMX_STAT_FILE("indx", dev),
	TCMX_STAT_FILE("role", target),
	TCMX_STAT_FILE("ports", ports),
	NULL,
};

static struct configfs_attribute *tcmx_scsi_tgt_dev_attrs[] = {
	TCMX_STAT_FILE("inst", inst),
	TCMX_STAT_FILE("indx", dev),
	TCMX_STAT_FILE("num_lus", one),
	TCMX_STAT_FILE("status", tgt_status),
	TCMX_STAT_FILE("non_access_lus", non_access),
	TCMX_STAT_FILE("resets", zero),
	TCMX_STAT_FILE("aborts_complete", zero),
	TCMX_STAT_FILE("aborts_no_task", zero),
	NULL,
};

static struct configfs_attribute *tcmx_scsi_lu_attrs[] = {
	TCMX_STAT_FILE("inst", inst),
	TCMX_STAT_FILE("dev", dev),
	TCMX_STAT_FILE("indx", one),
	TCMX_STAT_FILE("lun", zero),
	TCMX_STAT_FILE("lu_name", lu_name),
	TCMX_STAT_FILE("vend", vend),
	TCMX_STAT_FILE("prod", prod),
	TCMX_STAT_FILE("rev", rev),
	TCMX_STAT_FILE("dev_type", dev_type),
	TCMX_STAT_FILE("status", lu_status),
	TCMX_STAT_FILE("state_bit", state_bit),
	TCMX_STAT_FILE("num_cmds", cmds),
	TCMX_STAT_FILE("read_mbytes", read_mb),
	TCMX_STAT_FILE("write_mbytes", write_mb),
	TCMX_STAT_FILE("resets", zero),
	TCMX_STAT_FILE("full_stat", zero),
	TCMX_STAT_FILE("hs_num_cmds", zero),
	TCMX_STAT_FILE("creation_time", created),
	NULL,
};

static struct configfs_attribute *tcmx_scsi_port_attrs[] = {
	TCMX_STAT_FILE("inst", inst),
	TCMX_STAT_FILE("dev", dev),
	TCMX_STAT_FILE("indx", rtpi),
	TCMX_STAT_FILE("role", device_role),
	TCMX_STAT_FILE("busy_count", zero),
	NULL,
};

static struct configfs_attribute *tcmx_scsi_tgt_port_attrs[] = {
	TCMX_STAT_FILE("inst", inst),
	TCMX_STAT_FILE("dev", dev),
	TCMX_STAT_FILE("indx", rtpi),
	TCMX_STAT_FILE("name", port_name),
	TCMX_STAT_FILE("port_index", port_index),
	TCMX_STAT_FILE("in_cmds", cmds),
	TCMX_STAT_FILE("write_mbytes", write_mb32),
	TCMX_STAT_FILE("read_mbytes", read_mb32),
	TCMX_STAT_FILE("hs_in_cmds", zero),
	NULL,
};

/* the TPG's instance index (indx) is 1 for every TPG, as tcm_loop's */
static struct configfs_attribute *tcmx_scsi_transport_attrs[] = {
	TCMX_STAT_FILE("inst", inst),
	TCMX_STAT_FILE("device", transport),
	TCMX_STAT_FILE("indx", one),
	TCMX_STAT_FILE("dev_name", dev_name),
	TCMX_STAT_FILE("proto_id", proto_id),
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

#define TCMX_STAT_TABLE(_name, _attrs, _lun)				\
	{ _name, { .ct_group_ops = &tcmx_stats_table_ops,		\
		   .ct_attrs = _attrs, .ct_owner = THIS_MODULE }, _lun }

static const struct tcmx_stat_table tcmx_dev_tables[] = {
	TCMX_STAT_TABLE("scsi_dev", tcmx_scsi_dev_attrs, false),
	TCMX_STAT_TABLE("scsi_tgt_dev", tcmx_scsi_tgt_dev_attrs, false),
	TCMX_STAT_TABLE("scsi_lu", tcmx_scsi_lu_attrs, false),
}, tcmx_lun_tables[] = {
	TCMX_STAT_TABLE("scsi_port", tcmx_scsi_port_attrs, true),
	TCMX_STAT_TABLE("scsi_tgt_port", tcmx_scsi_tgt_port_attrs, true),
	TCMX_STAT_TABLE("scsi_transport", tcmx_scsi_transport_attrs, true),
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
	struct tcmx_core_dev *cd = tcmx_core(dev);
	int index;

	tcmx_stats_add_groups(&cd->stats_group, &dev->group, tcmx_dev_tables);
	index = ida_alloc_range(&tcmx_dev_index_ida, 1, INT_MAX, GFP_KERNEL);
	if (index < 0)
		return index;
	cd->stats.index = index;
	cd->stats.created = get_jiffies_64();
	return 0;
}

void tcmx_stats_dev_exit(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	if (cd->stats.index)
		ida_free(&tcmx_dev_index_ida, cd->stats.index);
	cd->stats.index = 0;
}

void tcmx_stats_lun_init(struct tcmx_lun *lun)
{
	tcmx_stats_add_groups(&lun->stat_groups, &lun->group, tcmx_lun_tables);
}
