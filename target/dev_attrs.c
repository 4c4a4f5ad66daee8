// SPDX-License-Identifier: GPL-2.0
/*
 * tcmx_core: the attrib/ and wwn/ directories of a device
 * (core/<plugin>_<id>/<name>/...) and the device's default attributes,
 * most of them files of the one mechanism (struct tcmx_cfs_attr,
 * cfs_attr.c).
 * Every store takes cd->lock; values that initiators or the fast path
 * depend on are refused with EBUSY while a LUN exports the device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/module.h>
#include <linux/string.h>
#include "cfs_attr.h"
#include "tcmx_core.h"
#include "device.h"

#define TCMX_DEFAULT_QUEUE_DEPTH	128
/* U32_MAX rounded down to a whole page of 512-byte sectors, as LIO shows */
#define TCMX_DEFAULT_MAX_SECTORS	(U32_MAX & ~7U)
/*
 * Thin provisioning defaults of a backend with ->unmap: one UNMAP covers
 * up to 1M blocks (512 MiB of 512-byte blocks; libiscsi finds more
 * "insane") in up to 256 descriptors, one WRITE SAME up to 65535 blocks
 * (as in-tree iblock: what one SG_IO can read back); any block may be
 * deallocated.
 */
#define TCMX_DEFAULT_MAX_UNMAP_LBAS	0x100000
#define TCMX_DEFAULT_MAX_UNMAP_DESCS	256
#define TCMX_DEFAULT_MAX_WRITE_SAME	0xffff

/* ------------------------------------------------------------------ */
/* <dev>/attrib: the list in dev_attrib.h                             */
/* ------------------------------------------------------------------ */

#define TCMX_DA_IS(a, name) \
	((a)->off == offsetof(struct tcmx_dev_attrib, name))

/*
 * A new value's rules beyond its range: UNMAP and WRITE SAME with UNMAP
 * need a backend that can deallocate.
 */
static int tcmx_dev_attrib_check(struct tcmx_dev *dev,
				 const struct tcmx_cfs_attr *a, u32 val)
{
	if ((TCMX_DA_IS(a, emulate_tpu) || TCMX_DA_IS(a, emulate_tpws)) &&
	    val && !dev->ops->unmap) {
		pr_err("%s: attrib/%s: backend %s cannot deallocate blocks: no thin provisioning\n",
		       tcmx_dev_name(dev), a->attr.ca_name, dev->ops->name);
		return -EINVAL;
	}
	return 0;
}

/* Side effects of a new device attribute value. */
static void tcmx_dev_attrib_apply(struct tcmx_dev *dev,
				  const struct tcmx_cfs_attr *a)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_dev_attrib *da = &dev->attrib;

	if (a->off == offsetof(struct tcmx_dev_attrib, block_size)) {
		dev->block_size = da->block_size;
		dev->block_shift = ilog2(da->block_size);
		if (cd->enabled)
			dev->nr_blocks = dev->size_bytes >> dev->block_shift;
	} else if (TCMX_DA_IS(a, emulate_fua_write)) {
		if (da->emulate_fua_write)
			clear_bit(TCMX_GATE_NOFUA, &dev->gate);
		else
			set_bit(TCMX_GATE_NOFUA, &dev->gate);
	} else if (TCMX_DA_IS(a, emulate_pr)) {
		tcmx_pr_emulate_changed(dev);
	} else if (a->off == offsetof(struct tcmx_dev_attrib,
				      emulate_model_alias)) {
		strscpy(cd->t10.model, da->emulate_model_alias ?
			tcmx_dev_name(dev) : dev->ops->product ?: "",
			sizeof(cd->t10.model));
	}
}

static char *tcmx_attrib_home_find(struct config_item *item,
				   struct tcmx_dev **dev)
{
	*dev = TCMX_DEV_OF(item, attrib_group);
	return (char *)&(*dev)->attrib;
}

static const struct tcmx_cfs_home tcmx_dev_attrib_home = {
	.dir	= "",
	.find	= tcmx_attrib_home_find,
	.check	= tcmx_dev_attrib_check,
	.apply	= tcmx_dev_attrib_apply,
};

#define TCMX_DEV_ATTRIB(_name, _def, _min, _max, _flags)		\
	TCMX_CFS_ATTR(tcmx_da_, _name,					\
		      (_flags) & TCMX_CFS_RO ? 0444 : 0644,		\
		      TCMX_CFS_FIELD(&tcmx_dev_attrib_home,		\
				     struct tcmx_dev_attrib, _name),	\
		      .def = _def, .min = _min, .max = _max,		\
		      .flags = _flags)
#include "dev_attrib.h"
#undef TCMX_DEV_ATTRIB

static struct configfs_attribute *tcmx_attrib_attrs[] = {
#define TCMX_DEV_ATTRIB(_name, _def, _min, _max, _flags) (&tcmx_da_##_name.attr),
#include "dev_attrib.h"
#undef TCMX_DEV_ATTRIB
	NULL,
};

static void tcmx_dev_set_defaults(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	const struct tcmx_backend_ops *ops = dev->ops;
	struct tcmx_dev_attrib *a = &dev->attrib;
	struct configfs_attribute **attr;

	for (attr = tcmx_attrib_attrs; *attr; attr++) {
		const struct tcmx_cfs_attr *r =
			container_of(*attr, struct tcmx_cfs_attr, attr);

		tcmx_cfs_set((char *)a, r, r->def);
	}
	a->hw_block_size = a->block_size;
	a->hw_queue_depth = ops->hw_queue_depth ?: TCMX_DEFAULT_QUEUE_DEPTH;
	a->queue_depth = a->hw_queue_depth;
	a->hw_max_sectors = ops->hw_max_sectors ?: TCMX_DEFAULT_MAX_SECTORS;
	a->optimal_sectors = a->hw_max_sectors;
	if (ops->unmap) {
		/* thin provisioned out of the box: discard works */
		a->emulate_tpu = 1;
		a->emulate_tpws = 1;
		a->unmap_zeroes_data = 1;
		a->max_unmap_lba_count = TCMX_DEFAULT_MAX_UNMAP_LBAS;
		a->max_unmap_block_desc_count = TCMX_DEFAULT_MAX_UNMAP_DESCS;
		a->unmap_granularity = 1;
		a->max_write_same_len = TCMX_DEFAULT_MAX_WRITE_SAME;
	}
	dev->block_size = a->block_size;
	dev->block_shift = ilog2(a->block_size);

	strscpy(cd->t10.vendor, "LIO-ORG", sizeof(cd->t10.vendor));
	strscpy(cd->t10.model, ops->product ?: "", sizeof(cd->t10.model));
	strscpy(cd->t10.revision, "4.0", sizeof(cd->t10.revision));
	cd->t10.company_id = 0x001405;
}

static const struct config_item_type tcmx_attrib_type = {
	.ct_attrs	= tcmx_attrib_attrs,
	.ct_owner	= THIS_MODULE,
};

/* ------------------------------------------------------------------ */
/* <dev>/wwn                                                          */
/* ------------------------------------------------------------------ */

/*
 * INQUIRY text: surrounding whitespace is stripped, the rest must be
 * printable ASCII that fits, and the device must not be exported
 * (initiators cache these).
 */
static char *tcmx_wwn_home_find(struct config_item *item,
				struct tcmx_dev **dev)
{
	*dev = TCMX_DEV_OF(item, wwn_group);
	return (char *)&tcmx_core(*dev)->t10;
}

static const struct tcmx_cfs_home tcmx_wwn_home = {
	.dir	= "",
	.find	= tcmx_wwn_home_find,
};

#define TCMX_T10_TEXT(_member)						\
	TCMX_CFS_FIELD(&tcmx_wwn_home, struct tcmx_t10_wwn, _member),	\
	.kind = TCMX_CFS_TEXT, .flags = TCMX_CFS_IDLE,			\
	.strip = TCMX_STRIP_SPACE | TCMX_STRIP_ASCII

TCMX_CFS_ATTR(tcmx_wwn_, vendor_id, 0644, TCMX_T10_TEXT(vendor))
TCMX_CFS_ATTR(tcmx_wwn_, product_id, 0644, TCMX_T10_TEXT(model))
TCMX_CFS_ATTR(tcmx_wwn_, revision, 0644, TCMX_T10_TEXT(revision))
/* rtslib takes the serial from after the first ':' */
TCMX_CFS_ATTR(tcmx_wwn_, vpd_unit_serial, 0644, TCMX_T10_TEXT(unit_serial),
	      .text = "T10 VPD Unit Serial Number: ")

static ssize_t tcmx_wwn_company_id_show(struct config_item *item, char *page)
{
	struct tcmx_dev *dev = TCMX_DEV_OF(item, wwn_group);
	struct tcmx_core_dev *cd = tcmx_core(dev);

	return sysfs_emit(page, "0x%06x\n", READ_ONCE(cd->t10.company_id));
}

static ssize_t tcmx_wwn_company_id_store(struct config_item *item,
					 const char *page, size_t count)
{
	struct tcmx_dev *dev = TCMX_DEV_OF(item, wwn_group);
	struct tcmx_core_dev *cd = tcmx_core(dev);
	ssize_t ret = count;
	u32 val;

	if (tcmx_cfs_u32(page, count, &val) || val > 0xffffff) {
		pr_err("%s: wwn/company_id: need a 24-bit IEEE OUI, e.g. 0x001405\n",
		       tcmx_dev_name(dev));
		return -EINVAL;
	}
	mutex_lock(&cd->lock);
	if (cd->export_count) {
		pr_err("%s: wwn/company_id: cannot change while exported by %d LUN(s)\n",
		       tcmx_dev_name(dev), cd->export_count);
		ret = -EBUSY;
	} else {
		WRITE_ONCE(cd->t10.company_id, val);
	}
	mutex_unlock(&cd->lock);
	return ret;
}
CONFIGFS_ATTR(tcmx_wwn_, company_id);

/* Fixed descriptive files, shown for completeness. */
TCMX_CFS_CONST_ATTR(tcmx_wwn_, vpd_protocol_identifier,
		    "T10 VPD Protocol Identifier: SAS Serial SCSI Protocol")
TCMX_CFS_CONST_ATTR(tcmx_wwn_, vpd_assoc_logical_unit,
		    "T10 VPD Identifier Association: addressed logical unit\nT10 VPD Identifier Type: NAA")
TCMX_CFS_CONST_ATTR(tcmx_wwn_, vpd_assoc_target_port,
		    "T10 VPD Identifier Association: target port\nT10 VPD Identifier Type: Relative target port")
TCMX_CFS_CONST_ATTR(tcmx_wwn_, vpd_assoc_scsi_target_device,
		    "T10 VPD Identifier Association: SCSI target device")

static struct configfs_attribute *tcmx_wwn_attrs[] = {
	&tcmx_wwn_vendor_id.attr,
	&tcmx_wwn_product_id.attr,
	&tcmx_wwn_revision.attr,
	&tcmx_wwn_attr_company_id,
	&tcmx_wwn_vpd_unit_serial.attr,
	&tcmx_wwn_vpd_protocol_identifier.attr,
	&tcmx_wwn_vpd_assoc_logical_unit.attr,
	&tcmx_wwn_vpd_assoc_target_port.attr,
	&tcmx_wwn_vpd_assoc_scsi_target_device.attr,
	NULL,
};

static const struct config_item_type tcmx_wwn_type = {
	.ct_attrs	= tcmx_wwn_attrs,
	.ct_owner	= THIS_MODULE,
};

void tcmx_dev_attrs_init(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	tcmx_dev_set_defaults(dev);
	tcmx_pr_dev_init(dev);
	tcmx_ua_dev_init(dev);
	tcmx_cfs_subdir(&dev->group, &cd->attrib_group, "attrib",
			&tcmx_attrib_type);
	tcmx_cfs_subdir(&dev->group, &cd->wwn_group, "wwn", &tcmx_wwn_type);
	tcmx_cfs_subdir(&dev->group, &cd->pr_group, "pr", &tcmx_pr_cfs_type);
}
