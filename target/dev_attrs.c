// SPDX-License-Identifier: GPL-2.0
/*
 * tcmx_core: the attrib/, wwn/ and pr/ directories of a device
 * (core/<plugin>_<id>/<name>/...) and the device's default attributes;
 * and tcmx_cfs_strip() (tcmx_core.h), the text of any configfs write.
 * Every store takes dev->lock; values that initiators or the fast path
 * depend on are refused with EBUSY while a LUN exports the device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/string.h>
#include "tcmx_core.h"
#include "device.h"

#define TCMX_DEFAULT_QUEUE_DEPTH	128
/* U32_MAX rounded down to a whole page of 512-byte sectors, as LIO shows */
#define TCMX_DEFAULT_MAX_SECTORS	(U32_MAX & ~7U)

/* ------------------------------------------------------------------ */
/* the text of a configfs write (tcmx_core.h)                         */
/* ------------------------------------------------------------------ */

int tcmx_cfs_strip(const char *page, size_t count, size_t max,
		   unsigned int flags, const char **s, size_t *len)
{
	size_t i, n = count;

	if (flags & TCMX_STRIP_SPACE) {
		while (n && isspace(page[n - 1]))
			n--;
		while (n && isspace(*page)) {
			page++;
			n--;
		}
	} else if (n && page[n - 1] == '\n') {
		n--;
	}
	*s = page;
	*len = n;
	if (n > max || memchr(page, '\0', n))
		return -EINVAL;
	if (flags & TCMX_STRIP_ASCII)
		for (i = 0; i < n; i++)
			if ((u8)page[i] < 0x20 || (u8)page[i] > 0x7e)
				return -EINVAL;
	return 0;
}

/* ------------------------------------------------------------------ */
/* <dev>/attrib: one rule per attribute, one show and one store       */
/* ------------------------------------------------------------------ */

#define TCMX_DA_IDLE	BIT(0)	/* refused (-EBUSY) while exported */
#define TCMX_DA_POW2	BIT(1)	/* power of two within min..max */
#define TCMX_DA_HWQD	BIT(2)	/* max is attrib.hw_queue_depth */
#define TCMX_DA_CLAMP	BIT(3)	/* clamped to attrib.hw_max_sectors */

struct tcmx_da_rule {
	struct configfs_attribute	attr;
	unsigned int			off;	/* in struct tcmx_dev_attrib */
	u32				def, min, max;
	unsigned int			flags;
};

static inline u32 *tcmx_da_field(struct tcmx_dev *dev,
				 const struct tcmx_da_rule *r)
{
	return (u32 *)((char *)&dev->attrib + r->off);
}

static ssize_t tcmx_da_show(struct config_item *item, char *page,
			    const struct tcmx_da_rule *r)
{
	struct tcmx_dev *dev = TCMX_DEV_OF(item, attrib_group);

	return sysfs_emit(page, "%u\n", READ_ONCE(*tcmx_da_field(dev, r)));
}

/* Side effects of a new attribute value; dev->lock held. */
static void tcmx_da_apply(struct tcmx_dev *dev, u32 *field)
{
	struct tcmx_dev_attrib *a = &dev->attrib;

	if (field == &a->block_size) {
		dev->block_size = a->block_size;
		dev->block_shift = ilog2(a->block_size);
		if (dev->enabled)
			dev->nr_blocks = dev->size_bytes >> dev->block_shift;
	} else if (field == &a->emulate_model_alias) {
		strscpy(dev->t10.model, a->emulate_model_alias ?
			tcmx_dev_name(dev) : dev->ops->product ?: "",
			sizeof(dev->t10.model));
	}
}

static ssize_t tcmx_da_store(struct config_item *item, const char *page,
			     size_t count, const struct tcmx_da_rule *r)
{
	struct tcmx_dev *dev = TCMX_DEV_OF(item, attrib_group);
	u32 *field = tcmx_da_field(dev, r);
	const char *name = r->attr.ca_name;
	const char *s;
	u32 val, max;
	size_t len;
	ssize_t ret;

	if (kstrtou32(page, 0, &val)) {
		tcmx_cfs_strip(page, count, count, 0, &s, &len);
		pr_err("%s: attrib/%s: '%.*s' is not an unsigned number\n",
		       tcmx_dev_name(dev), name, (int)len, s);
		return -EINVAL;
	}

	mutex_lock(&dev->lock);
	max = r->flags & TCMX_DA_HWQD ? dev->attrib.hw_queue_depth : r->max;
	if (r->flags & TCMX_DA_CLAMP)
		val = min(val, dev->attrib.hw_max_sectors);
	if (val < r->min || val > max ||
	    (r->flags & TCMX_DA_POW2 && !is_power_of_2(val))) {
		pr_err("%s: attrib/%s: %u is not allowed (%u..%u%s)\n",
		       tcmx_dev_name(dev), name, val, r->min, max,
		       r->flags & TCMX_DA_POW2 ? ", a power of 2" : "");
		ret = -EINVAL;
	} else if (r->flags & TCMX_DA_IDLE && dev->export_count &&
		   val != *field) {
		pr_err("%s: attrib/%s: cannot change while exported by %d LUN(s)\n",
		       tcmx_dev_name(dev), name, dev->export_count);
		ret = -EBUSY;
	} else {
		WRITE_ONCE(*field, val);
		tcmx_da_apply(dev, field);
		ret = count;
	}
	mutex_unlock(&dev->lock);
	return ret;
}

/* A rw attribute: default, allowed range, TCMX_DA_* flags. */
#define TCMX_DA_RW(_n, _def, _min, _max, _flags)			\
static struct tcmx_da_rule tcmx_da_##_n;				\
static ssize_t tcmx_da_##_n##_show(struct config_item *item, char *page) \
{									\
	return tcmx_da_show(item, page, &tcmx_da_##_n);			\
}									\
static ssize_t tcmx_da_##_n##_store(struct config_item *item,		\
				    const char *page, size_t count)	\
{									\
	return tcmx_da_store(item, page, count, &tcmx_da_##_n);		\
}									\
static struct tcmx_da_rule tcmx_da_##_n = {				\
	.attr = {							\
		.ca_name	= #_n,					\
		.ca_owner	= THIS_MODULE,				\
		.ca_mode	= 0644,					\
		.show		= tcmx_da_##_n##_show,			\
		.store		= tcmx_da_##_n##_store,			\
	},								\
	.off = offsetof(struct tcmx_dev_attrib, _n),			\
	.def = _def, .min = _min, .max = _max, .flags = _flags,		\
}

/* A read-only attribute, set from the backend's limits. */
#define TCMX_DA_RO(_n)							\
static struct tcmx_da_rule tcmx_da_##_n;				\
static ssize_t tcmx_da_##_n##_show(struct config_item *item, char *page) \
{									\
	return tcmx_da_show(item, page, &tcmx_da_##_n);			\
}									\
static struct tcmx_da_rule tcmx_da_##_n = {				\
	.attr = {							\
		.ca_name	= #_n,					\
		.ca_owner	= THIS_MODULE,				\
		.ca_mode	= 0444,					\
		.show		= tcmx_da_##_n##_show,			\
	},								\
	.off = offsetof(struct tcmx_dev_attrib, _n),			\
}

/*
 * Defaults are LIO's for rd_mcp, so that a saveconfig.json written by
 * either stack restores on the other.  Features tcmx does not have accept
 * only their "off" value (pi_*, emulate_rest_reord); alua_support and
 * pgr_support are fixed at 1.  optimal_sectors is clamped, not refused:
 * LIO saves 4294967288 there, whatever our backend's hw_max_sectors is.
 */
TCMX_DA_RW(emulate_model_alias,	0, 0, 1, TCMX_DA_IDLE);
TCMX_DA_RW(emulate_dpo,		1, 0, 1, 0);
TCMX_DA_RW(emulate_fua_write,	1, 0, 1, 0);
TCMX_DA_RW(emulate_fua_read,	1, 0, 1, 0);
TCMX_DA_RW(emulate_write_cache,	0, 0, 1, 0);
TCMX_DA_RW(emulate_ua_intlck_ctrl, 0, 0, 2, TCMX_DA_IDLE);
TCMX_DA_RW(emulate_tas,		1, 0, 1, TCMX_DA_IDLE);
TCMX_DA_RW(emulate_tpu,		0, 0, 1, 0);
TCMX_DA_RW(emulate_tpws,	0, 0, 1, 0);
TCMX_DA_RW(emulate_caw,		1, 0, 1, 0);
TCMX_DA_RW(emulate_3pc,		1, 0, 1, 0);
TCMX_DA_RW(emulate_pr,		1, 0, 1, 0);
TCMX_DA_RW(pi_prot_type,	0, 0, 0, TCMX_DA_IDLE);
TCMX_DA_RW(pi_prot_format,	0, 0, 0, TCMX_DA_IDLE);
TCMX_DA_RW(pi_prot_verify,	0, 0, 0, 0);
TCMX_DA_RW(enforce_pr_isids,	1, 0, 1, 0);
TCMX_DA_RW(is_nonrot,		1, 0, 1, 0);
TCMX_DA_RW(emulate_rest_reord,	0, 0, 0, 0);
TCMX_DA_RW(force_pr_aptpl,	0, 0, 1, TCMX_DA_IDLE);
TCMX_DA_RW(block_size,		512, 512, 4096, TCMX_DA_IDLE | TCMX_DA_POW2);
TCMX_DA_RW(optimal_sectors,	0, 0, U32_MAX, TCMX_DA_IDLE | TCMX_DA_CLAMP);
TCMX_DA_RW(queue_depth,		0, 1, 0, TCMX_DA_IDLE | TCMX_DA_HWQD);
TCMX_DA_RW(max_unmap_lba_count,	0, 0, U32_MAX, 0);
TCMX_DA_RW(max_unmap_block_desc_count, 0, 0, U32_MAX, 0);
TCMX_DA_RW(unmap_granularity,	0, 0, U32_MAX, 0);
TCMX_DA_RW(unmap_granularity_alignment, 0, 0, U32_MAX, 0);
TCMX_DA_RW(unmap_zeroes_data,	0, 0, 1, TCMX_DA_IDLE);
TCMX_DA_RW(max_write_same_len,	0, 0, U32_MAX, 0);
TCMX_DA_RW(alua_support,	1, 1, 1, 0);
TCMX_DA_RW(pgr_support,		1, 1, 1, 0);
TCMX_DA_RO(hw_block_size);
TCMX_DA_RO(hw_max_sectors);
TCMX_DA_RO(hw_queue_depth);
TCMX_DA_RO(hw_pi_prot_type);

static struct configfs_attribute *tcmx_attrib_attrs[] = {
	&tcmx_da_emulate_model_alias.attr,
	&tcmx_da_emulate_dpo.attr,
	&tcmx_da_emulate_fua_write.attr,
	&tcmx_da_emulate_fua_read.attr,
	&tcmx_da_emulate_write_cache.attr,
	&tcmx_da_emulate_ua_intlck_ctrl.attr,
	&tcmx_da_emulate_tas.attr,
	&tcmx_da_emulate_tpu.attr,
	&tcmx_da_emulate_tpws.attr,
	&tcmx_da_emulate_caw.attr,
	&tcmx_da_emulate_3pc.attr,
	&tcmx_da_emulate_pr.attr,
	&tcmx_da_pi_prot_type.attr,
	&tcmx_da_pi_prot_format.attr,
	&tcmx_da_pi_prot_verify.attr,
	&tcmx_da_enforce_pr_isids.attr,
	&tcmx_da_is_nonrot.attr,
	&tcmx_da_emulate_rest_reord.attr,
	&tcmx_da_force_pr_aptpl.attr,
	&tcmx_da_block_size.attr,
	&tcmx_da_optimal_sectors.attr,
	&tcmx_da_queue_depth.attr,
	&tcmx_da_max_unmap_lba_count.attr,
	&tcmx_da_max_unmap_block_desc_count.attr,
	&tcmx_da_unmap_granularity.attr,
	&tcmx_da_unmap_granularity_alignment.attr,
	&tcmx_da_unmap_zeroes_data.attr,
	&tcmx_da_max_write_same_len.attr,
	&tcmx_da_alua_support.attr,
	&tcmx_da_pgr_support.attr,
	&tcmx_da_hw_block_size.attr,
	&tcmx_da_hw_max_sectors.attr,
	&tcmx_da_hw_queue_depth.attr,
	&tcmx_da_hw_pi_prot_type.attr,
	NULL,
};

static void tcmx_dev_set_defaults(struct tcmx_dev *dev)
{
	const struct tcmx_backend_ops *ops = dev->ops;
	struct tcmx_dev_attrib *a = &dev->attrib;
	struct configfs_attribute **attr;

	for (attr = tcmx_attrib_attrs; *attr; attr++) {
		const struct tcmx_da_rule *r =
			container_of(*attr, struct tcmx_da_rule, attr);

		*tcmx_da_field(dev, r) = r->def;
	}
	a->hw_block_size = a->block_size;
	a->hw_queue_depth = ops->hw_queue_depth ?: TCMX_DEFAULT_QUEUE_DEPTH;
	a->queue_depth = a->hw_queue_depth;
	a->hw_max_sectors = ops->hw_max_sectors ?: TCMX_DEFAULT_MAX_SECTORS;
	a->optimal_sectors = a->hw_max_sectors;
	dev->block_size = a->block_size;
	dev->block_shift = ilog2(a->block_size);

	strscpy(dev->t10.vendor, "LIO-ORG", sizeof(dev->t10.vendor));
	strscpy(dev->t10.model, ops->product ?: "", sizeof(dev->t10.model));
	strscpy(dev->t10.revision, "4.0", sizeof(dev->t10.revision));
	dev->t10.company_id = 0x001405;
}

static const struct config_item_type tcmx_attrib_type = {
	.ct_attrs	= tcmx_attrib_attrs,
	.ct_owner	= THIS_MODULE,
};

/* ------------------------------------------------------------------ */
/* <dev>/wwn                                                          */
/* ------------------------------------------------------------------ */

/*
 * Store an INQUIRY text field: surrounding whitespace is stripped, the
 * rest must be printable ASCII of at most @size - 1 characters, and the
 * device must not be exported (initiators cache these).
 */
static ssize_t tcmx_wwn_store_text(struct config_item *item, const char *attr,
				   size_t off, size_t size,
				   const char *page, size_t count)
{
	struct tcmx_dev *dev = TCMX_DEV_OF(item, wwn_group);
	char *dst = (char *)&dev->t10 + off;
	ssize_t ret = count;
	const char *s;
	size_t len;

	if (tcmx_cfs_strip(page, count, size - 1,
			   TCMX_STRIP_SPACE | TCMX_STRIP_ASCII, &s, &len)) {
		pr_err("%s: wwn/%s: need at most %zu printable ASCII characters\n",
		       tcmx_dev_name(dev), attr, size - 1);
		return -EINVAL;
	}

	mutex_lock(&dev->lock);
	if (dev->export_count) {
		pr_err("%s: wwn/%s: cannot change while exported by %d LUN(s)\n",
		       tcmx_dev_name(dev), attr, dev->export_count);
		ret = -EBUSY;
	} else {
		memcpy(dst, s, len);
		dst[len] = '\0';
	}
	mutex_unlock(&dev->lock);
	return ret;
}

static ssize_t tcmx_wwn_show_text(struct config_item *item, const char *fmt,
				  size_t off, char *page)
{
	struct tcmx_dev *dev = TCMX_DEV_OF(item, wwn_group);
	ssize_t ret;

	mutex_lock(&dev->lock);
	ret = sysfs_emit(page, fmt, (char *)&dev->t10 + off);
	mutex_unlock(&dev->lock);
	return ret;
}

#define TCMX_WWN_TEXT(_attr, _field, _fmt)				\
static ssize_t tcmx_wwn_##_attr##_show(struct config_item *item, char *page) \
{									\
	return tcmx_wwn_show_text(item, _fmt,				\
				  offsetof(struct tcmx_t10_wwn, _field), page); \
}									\
static ssize_t tcmx_wwn_##_attr##_store(struct config_item *item,	\
					const char *page, size_t count)	\
{									\
	return tcmx_wwn_store_text(item, #_attr,			\
		offsetof(struct tcmx_t10_wwn, _field),			\
		sizeof_field(struct tcmx_t10_wwn, _field), page, count); \
}									\
CONFIGFS_ATTR(tcmx_wwn_, _attr)

TCMX_WWN_TEXT(vendor_id, vendor, "%s\n");
TCMX_WWN_TEXT(product_id, model, "%s\n");
TCMX_WWN_TEXT(revision, revision, "%s\n");
/* rtslib takes the serial from after the first ':' */
TCMX_WWN_TEXT(vpd_unit_serial, unit_serial, "T10 VPD Unit Serial Number: %s\n");

static ssize_t tcmx_wwn_company_id_show(struct config_item *item, char *page)
{
	struct tcmx_dev *dev = TCMX_DEV_OF(item, wwn_group);

	return sysfs_emit(page, "0x%06x\n", READ_ONCE(dev->t10.company_id));
}

static ssize_t tcmx_wwn_company_id_store(struct config_item *item,
					 const char *page, size_t count)
{
	struct tcmx_dev *dev = TCMX_DEV_OF(item, wwn_group);
	ssize_t ret = count;
	u32 val;

	if (kstrtou32(page, 0, &val) || val > 0xffffff) {
		pr_err("%s: wwn/company_id: need a 24-bit IEEE OUI, e.g. 0x001405\n",
		       tcmx_dev_name(dev));
		return -EINVAL;
	}
	mutex_lock(&dev->lock);
	if (dev->export_count) {
		pr_err("%s: wwn/company_id: cannot change while exported by %d LUN(s)\n",
		       tcmx_dev_name(dev), dev->export_count);
		ret = -EBUSY;
	} else {
		WRITE_ONCE(dev->t10.company_id, val);
	}
	mutex_unlock(&dev->lock);
	return ret;
}
CONFIGFS_ATTR(tcmx_wwn_, company_id);

/* Fixed descriptive files, shown for completeness. */
#define TCMX_CONST_RO(_pfx, _attr, _text)				\
static ssize_t _pfx##_attr##_show(struct config_item *item, char *page)	\
{									\
	return sysfs_emit(page, "%s\n", _text);				\
}									\
CONFIGFS_ATTR_RO(_pfx, _attr)

TCMX_CONST_RO(tcmx_wwn_, vpd_protocol_identifier,
	      "T10 VPD Protocol Identifier: SAS Serial SCSI Protocol");
TCMX_CONST_RO(tcmx_wwn_, vpd_assoc_logical_unit,
	      "T10 VPD Identifier Association: addressed logical unit\nT10 VPD Identifier Type: NAA");
TCMX_CONST_RO(tcmx_wwn_, vpd_assoc_target_port,
	      "T10 VPD Identifier Association: target port\nT10 VPD Identifier Type: Relative target port");
TCMX_CONST_RO(tcmx_wwn_, vpd_assoc_scsi_target_device,
	      "T10 VPD Identifier Association: SCSI target device");

static struct configfs_attribute *tcmx_wwn_attrs[] = {
	&tcmx_wwn_attr_vendor_id,
	&tcmx_wwn_attr_product_id,
	&tcmx_wwn_attr_revision,
	&tcmx_wwn_attr_company_id,
	&tcmx_wwn_attr_vpd_unit_serial,
	&tcmx_wwn_attr_vpd_protocol_identifier,
	&tcmx_wwn_attr_vpd_assoc_logical_unit,
	&tcmx_wwn_attr_vpd_assoc_target_port,
	&tcmx_wwn_attr_vpd_assoc_scsi_target_device,
	NULL,
};

static const struct config_item_type tcmx_wwn_type = {
	.ct_attrs	= tcmx_wwn_attrs,
	.ct_owner	= THIS_MODULE,
};

/* ------------------------------------------------------------------ */
/* <dev>/pr: no persistent reservation state yet                      */
/* ------------------------------------------------------------------ */

#define TCMX_NO_HOLDER	"No SPC-3 reservation holder"

TCMX_CONST_RO(tcmx_pr_, res_holder, TCMX_NO_HOLDER);
TCMX_CONST_RO(tcmx_pr_, res_pr_all_tgt_pts, TCMX_NO_HOLDER);
TCMX_CONST_RO(tcmx_pr_, res_pr_holder_tg_port, TCMX_NO_HOLDER);
TCMX_CONST_RO(tcmx_pr_, res_pr_type, TCMX_NO_HOLDER);
TCMX_CONST_RO(tcmx_pr_, res_pr_registered_i_pts,
	      "SPC-3 PR registrations:\nNone");
TCMX_CONST_RO(tcmx_pr_, res_pr_generation, "0x00000000");
TCMX_CONST_RO(tcmx_pr_, res_aptpl_active, "APTPL Bit Status: Disabled");

static ssize_t tcmx_pr_res_type_show(struct config_item *item, char *page)
{
	struct tcmx_dev *dev = TCMX_DEV_OF(item, pr_group);

	return sysfs_emit(page, "%s\n", READ_ONCE(dev->attrib.emulate_pr) ?
			  "SPC3_PERSISTENT_RESERVATIONS" :
			  "SPC_RESERVATIONS_DISABLED");
}
CONFIGFS_ATTR_RO(tcmx_pr_, res_type);

static ssize_t tcmx_pr_res_aptpl_metadata_show(struct config_item *item,
					       char *page)
{
	return sysfs_emit(page, "No APTPL metadata support\n");
}

static ssize_t tcmx_pr_res_aptpl_metadata_store(struct config_item *item,
						const char *page, size_t count)
{
	struct tcmx_dev *dev = TCMX_DEV_OF(item, pr_group);
	const char *s;
	size_t len;

	/* rtslib writes nothing but whitespace when there is no metadata */
	if (!tcmx_cfs_strip(page, count, count, TCMX_STRIP_SPACE, &s, &len) &&
	    !len)
		return count;
	pr_err("%s: pr/res_aptpl_metadata: APTPL is not supported, registrations not restored\n",
	       tcmx_dev_name(dev));
	return -EOPNOTSUPP;
}
CONFIGFS_ATTR(tcmx_pr_, res_aptpl_metadata);

static struct configfs_attribute *tcmx_pr_attrs[] = {
	&tcmx_pr_attr_res_holder,
	&tcmx_pr_attr_res_pr_all_tgt_pts,
	&tcmx_pr_attr_res_pr_generation,
	&tcmx_pr_attr_res_pr_holder_tg_port,
	&tcmx_pr_attr_res_pr_registered_i_pts,
	&tcmx_pr_attr_res_pr_type,
	&tcmx_pr_attr_res_type,
	&tcmx_pr_attr_res_aptpl_active,
	&tcmx_pr_attr_res_aptpl_metadata,
	NULL,
};

static const struct config_item_type tcmx_pr_type = {
	.ct_attrs	= tcmx_pr_attrs,
	.ct_owner	= THIS_MODULE,
};

void tcmx_dev_attrs_init(struct tcmx_dev *dev)
{
	tcmx_dev_set_defaults(dev);
	config_group_init_type_name(&dev->attrib_group, "attrib",
				    &tcmx_attrib_type);
	configfs_add_default_group(&dev->attrib_group, &dev->group);
	config_group_init_type_name(&dev->wwn_group, "wwn", &tcmx_wwn_type);
	configfs_add_default_group(&dev->wwn_group, &dev->group);
	config_group_init_type_name(&dev->pr_group, "pr", &tcmx_pr_type);
	configfs_add_default_group(&dev->pr_group, &dev->group);
}
