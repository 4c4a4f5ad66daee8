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
 *   <acl>/lun_<m>/statistics/scsi_auth_intr/  inst dev port indx
 *                                    dev_or_port intr_name map_indx
 *                                    att_count num_cmds read_mbytes
 *                                    write_mbytes hs_num_cmds
 *                                    creation_time row_status
 *   <acl>/lun_<m>/statistics/scsi_att_intr_port/  inst dev port indx
 *                                    port_auth_indx port_ident
 *
 * Each table is a list of {name, field} rows.  Every file reads a snapshot
 * (struct tcmx_stat_view) taken by one of three functions, as its table
 * says: tcmx_dev_view() under cd->lock, tcmx_lun_view() under
 * tcmx_cfs_mutex, which fails with -ENODEV while the LUN is not linked (as
 * in-tree), and tcmx_mapped_view() under tcmx_cfs_mutex, which fails with
 * -ENODEV while the mapping reaches no linked LUN (in-tree: no se_dev_entry)
 * or, for a session's fields, while no nexus of the initiator is
 * registered; one
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
 *
 * A mapped LUN counts the commands that reach it through the mapping per
 * CPU (m->stats.counters, by the fast path, submit.c), from the making of its
 * symlink on, as in-tree; its "inst" is the fabric's instance index and
 * its session's "indx" the fabric's session index (1 for a fabric that
 * has none, as tcm_loop); "port" is the TPG's tag, "indx"/"port_auth_indx"
 * the ACL's index, "att_count" 1 (in-tree: attached once per mapping).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/idr.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/string_helpers.h>
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
	/* mapped LUN tables only; the ACL lives as long as the files */
	struct tcmx_acl		*acl;
	u32			tag;
	u32			sess_index;
	char			isid[TCMX_PORT_ID_LEN];
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

/* The registered nexus of @acl's initiator, if any: tcmx_cfs_mutex held. */
static struct tcmx_nexus *tcmx_acl_nexus(struct tcmx_acl *acl)
{
	struct tcmx_nexus *n;

	list_for_each_entry(n, &acl->tpg->nexuses, node)
		if (n->acl == acl)
			return n;
	return NULL;
}

/*
 * @table is one of <acl>/lun_<m>/statistics/'s.  -ENODEV while the
 * mapping reaches no linked LUN, or for the @session fields while no nexus
 * of the initiator is registered.
 */
static int tcmx_mapped_view(struct config_item *table,
			    struct tcmx_stat_view *v, bool session)
{
	struct tcmx_mapped_lun *m =
		container_of(to_config_group(table->ci_parent),
			     struct tcmx_mapped_lun, stats.group);
	struct tcmx_tpg *tpg = m->acl->tpg;
	const struct tcmx_fabric_ops *ops = tpg->ops;
	struct tcmx_nexus *n;
	struct tcmx_dev *dev;
	int ret = 0;

	memset(v, 0, sizeof(*v));
	v->acl = m->acl;
	v->tag = tpg->tag;
	mutex_lock(&tcmx_cfs_mutex);
	n = tcmx_acl_nexus(m->acl);
	dev = m->lun && !m->lun->unlinking ? m->lun->dev : NULL;
	if (session && n) {
		v->sess_index = ops->nexus_index ? ops->nexus_index(n) : 1;
		/* iSCSI's port id is ",i,0x<ISID>" */
		if (str_has_prefix(n->port_id, ",i,0x"))
			string_lower(v->isid, n->port_id + 5);
	} else if (!session && dev) {
		v->inst = ops->tpg_inst_index ? ops->tpg_inst_index(tpg) : 1;
		v->dev_index = tcmx_core(dev)->stats.index;
		v->created = m->stats.created;
		tcmx_stats_fold(&v->sum, m->stats.counters);
	} else {
		ret = -ENODEV;
	}
	mutex_unlock(&tcmx_cfs_mutex);
	return ret;
}

/* ------------------------------------------------------------------ */
/* the files: one field of a view each                                */
/* ------------------------------------------------------------------ */

/* in groups: tcmx_stat_emit() hands the last three on by their ranges */
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
	/* mapped LUN views only */
	TCMX_SF_PORT,		/* the TPG's tag */
	TCMX_SF_ACL_INDEX,
	TCMX_SF_INTR_NAME,
	TCMX_SF_ROW_STATUS,
	TCMX_SF_SESS_INDEX,	/* needs a session */
	TCMX_SF_PORT_IDENT,	/* needs a session */
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

/* The mapping of @v: tcmx_stat_emit()'s TCMX_SF_PORT..PORT_IDENT. */
static ssize_t tcmx_stat_emit_mapped(const struct tcmx_stat_view *v,
				     enum tcmx_stat_field f, char *page)
{
	switch (f) {
	case TCMX_SF_PORT:
		return sysfs_emit(page, "%u\n", v->tag);
	case TCMX_SF_ACL_INDEX:
		return sysfs_emit(page, "%u\n", v->acl->index);
	case TCMX_SF_INTR_NAME:
		return sysfs_emit(page, "%s\n", tcmx_acl_name(v->acl));
	case TCMX_SF_ROW_STATUS:
		return sysfs_emit(page, "Ready\n");
	case TCMX_SF_SESS_INDEX:
		return sysfs_emit(page, "%u\n", v->sess_index);
	case TCMX_SF_PORT_IDENT:
		return sysfs_emit(page, "%s+i+%s\n", tcmx_acl_name(v->acl),
				  v->isid);
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
	default:
		break;
	}
	/* the rest by ranges of enum tcmx_stat_field */
	if (f >= TCMX_SF_PORT)
		return tcmx_stat_emit_mapped(v, f, page);
	if (f >= TCMX_SF_DEVICE_ROLE)
		return tcmx_stat_emit_port(v, f, page);
	return tcmx_stat_emit_io(v, f, page);
}

/* Whose view a table shows. */
enum tcmx_stat_kind {
	TCMX_STAT_DEV,		/* tcmx_dev_view() */
	TCMX_STAT_LUN,		/* tcmx_lun_view() */
	TCMX_STAT_MAPPED,	/* tcmx_mapped_view() */
};

/* A table directory: <dev>/statistics/<name>, <lun>/..., lun_<m>/... */
struct tcmx_stat_table {
	const char		*name;
	struct config_item_type	type;
	enum tcmx_stat_kind	kind;
};

/* Field @f of @table's view; -ENODEV where its view has none. */
static ssize_t tcmx_stat_show(struct config_item *table, char *page,
			      enum tcmx_stat_field f)
{
	const struct tcmx_stat_table *t =
		container_of(table->ci_type, struct tcmx_stat_table, type);
	struct tcmx_stat_view v;
	int ret = 0;

	if (t->kind == TCMX_STAT_DEV)
		tcmx_dev_view(table, &v);
	else if (t->kind == TCMX_STAT_LUN)
		ret = tcmx_lun_view(table, &v);
	else
		ret = tcmx_mapped_view(table, &v, f == TCMX_SF_SESS_INDEX ||
				       f == TCMX_SF_PORT_IDENT);
	return ret ? ret : tcmx_stat_emit(&v, f, page);
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
TCMX_STAT_SHOW(port, PORT)
TCMX_STAT_SHOW(acl_index, ACL_INDEX)
TCMX_STAT_SHOW(intr_name, INTR_NAME)
TCMX_STAT_SHOW(row_status, ROW_STATUS)
TCMX_STAT_SHOW(sess_index, SESS_INDEX)
TCMX_STAT_SHOW(port_ident, PORT_IDENT)

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

static struct configfs_attribute *tcmx_scsi_auth_intr_attrs[] = {
	TCMX_STAT_FILE("inst", inst),
	TCMX_STAT_FILE("dev", dev),
	TCMX_STAT_FILE("port", port),
	TCMX_STAT_FILE("indx", acl_index),
	TCMX_STAT_FILE("dev_or_port", one),
	TCMX_STAT_FILE("intr_name", intr_name),
	TCMX_STAT_FILE("map_indx", zero),
	TCMX_STAT_FILE("att_count", one),
	TCMX_STAT_FILE("num_cmds", cmds),
	TCMX_STAT_FILE("read_mbytes", read_mb32),
	TCMX_STAT_FILE("write_mbytes", write_mb32),
	TCMX_STAT_FILE("hs_num_cmds", zero),
	TCMX_STAT_FILE("creation_time", created),
	TCMX_STAT_FILE("row_status", row_status),
	NULL,
};

static struct configfs_attribute *tcmx_scsi_att_intr_port_attrs[] = {
	TCMX_STAT_FILE("inst", inst),
	TCMX_STAT_FILE("dev", dev),
	TCMX_STAT_FILE("port", port),
	TCMX_STAT_FILE("indx", sess_index),
	TCMX_STAT_FILE("port_auth_indx", acl_index),
	TCMX_STAT_FILE("port_ident", port_ident),
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

#define TCMX_STAT_TABLE(_name, _attrs, _kind)				\
	{ _name, { .ct_group_ops = &tcmx_stats_table_ops,		\
		   .ct_attrs = _attrs, .ct_owner = THIS_MODULE },	\
	  TCMX_STAT_##_kind }

static const struct tcmx_stat_table tcmx_dev_tables[] = {
	TCMX_STAT_TABLE("scsi_dev", tcmx_scsi_dev_attrs, DEV),
	TCMX_STAT_TABLE("scsi_tgt_dev", tcmx_scsi_tgt_dev_attrs, DEV),
	TCMX_STAT_TABLE("scsi_lu", tcmx_scsi_lu_attrs, DEV),
}, tcmx_lun_tables[] = {
	TCMX_STAT_TABLE("scsi_port", tcmx_scsi_port_attrs, LUN),
	TCMX_STAT_TABLE("scsi_tgt_port", tcmx_scsi_tgt_port_attrs, LUN),
	TCMX_STAT_TABLE("scsi_transport", tcmx_scsi_transport_attrs, LUN),
}, tcmx_mapped_tables[] = {
	TCMX_STAT_TABLE("scsi_auth_intr", tcmx_scsi_auth_intr_attrs, MAPPED),
	TCMX_STAT_TABLE("scsi_att_intr_port", tcmx_scsi_att_intr_port_attrs,
			MAPPED),
};

/* statistics/ in @parent, with the @nr tables of @tables in @table[] */
static void tcmx_stats_add_groups(struct config_group *dir,
				  struct config_group *table, int nr,
				  struct config_group *parent,
				  const struct tcmx_stat_table *tables)
{
	int i;

	config_group_init_type_name(dir, "statistics", &tcmx_stats_type);
	configfs_add_default_group(dir, parent);
	for (i = 0; i < nr; i++) {
		config_group_init_type_name(&table[i], tables[i].name,
					    &tables[i].type);
		configfs_add_default_group(&table[i], dir);
	}
}

int tcmx_stats_dev_init(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	int index;

	BUILD_BUG_ON(ARRAY_SIZE(tcmx_dev_tables) !=
		     ARRAY_SIZE(cd->stats_group.table));
	tcmx_stats_add_groups(&cd->stats_group.group, cd->stats_group.table,
			      ARRAY_SIZE(tcmx_dev_tables), &dev->group,
			      tcmx_dev_tables);
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
	BUILD_BUG_ON(ARRAY_SIZE(tcmx_lun_tables) !=
		     ARRAY_SIZE(lun->stat_groups.table));
	tcmx_stats_add_groups(&lun->stat_groups.group, lun->stat_groups.table,
			      ARRAY_SIZE(tcmx_lun_tables), &lun->group,
			      tcmx_lun_tables);
}

int tcmx_stats_mapped_init(struct tcmx_mapped_lun *m)
{
	struct tcmx_mapped_stats *st = &m->stats;

	BUILD_BUG_ON(ARRAY_SIZE(tcmx_mapped_tables) != ARRAY_SIZE(st->table));
	st->counters = alloc_percpu(struct tcmx_stats);
	if (!st->counters)
		return -ENOMEM;
	tcmx_stats_add_groups(&st->group, st->table,
			      ARRAY_SIZE(tcmx_mapped_tables), &m->group,
			      tcmx_mapped_tables);
	return 0;
}

/*
 * No map counts into the counters now but commands that found an entry
 * before the last symlink went (a grace period ago at most), whose counts
 * may land either side of this.
 */
void tcmx_stats_mapped_restart(struct tcmx_mapped_lun *m)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(m->stats.counters, cpu), 0,
		       sizeof(struct tcmx_stats));
	m->stats.created = get_jiffies_64();
}
