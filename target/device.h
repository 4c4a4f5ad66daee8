/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by device.c, dev_attrs.c and alua.c only. */
#ifndef TCMX_DEVICE_H
#define TCMX_DEVICE_H

#include "tcmx_core.h"

#define TCMX_DEV_OF(item, member) \
	container_of(to_config_group(item), struct tcmx_dev, member)

/*
 * A configfs file backed by a field with a rule (dev_attrs.c): one
 * struct tcmx_cfs_attr per file, declared by TCMX_CFS_ATTR(), and one
 * show and one store for them all.  The field is found from the file's
 * directory (@home) and an offset; its width is @size.  Stores take
 * dev->lock, check the rule and on a bad value return -EINVAL (-EBUSY for
 * TCMX_CFS_IDLE while a LUN exports the device) with one pr_err naming the
 * device and the file, leaving the value as it was.  Files with rules of
 * their own are plain CONFIGFS_ATTR()s.
 */
enum tcmx_cfs_home {
	TCMX_CFS_IN_ATTRIB,	/* <dev>/attrib: dev->attrib */
	TCMX_CFS_IN_WWN,	/* <dev>/wwn: dev->t10 */
	TCMX_CFS_IN_GP,		/* <dev>/alua/<group>: the tcmx_tg_pt_gp */
};

enum tcmx_cfs_kind {
	TCMX_CFS_NUM,		/* u8 or u32 in min..max, "%u\n" */
	TCMX_CFS_BIT,		/* @bit of a u8: 0 or 1 */
	TCMX_CFS_NAME,		/* u8 in 0..max, shown as names[value] */
	TCMX_CFS_TEXT,		/* char[size], shown after @text */
	TCMX_CFS_CONST,		/* @text, no field */
};

#define TCMX_CFS_RO	BIT(0)	/* read-only */
#define TCMX_CFS_IDLE	BIT(1)	/* refused (-EBUSY) while exported */
#define TCMX_CFS_POW2	BIT(2)	/* a power of two */
#define TCMX_CFS_HWQD	BIT(3)	/* max is attrib.hw_queue_depth */
#define TCMX_CFS_CLAMP	BIT(4)	/* lowered to attrib.hw_max_sectors */

struct tcmx_cfs_attr {
	struct configfs_attribute	attr;
	u8				home;	/* enum tcmx_cfs_home */
	u8				kind;	/* enum tcmx_cfs_kind */
	u8				flags;	/* TCMX_CFS_* */
	u8				bit;	/* TCMX_CFS_BIT */
	u16				off;	/* of the field in its home */
	u16				size;	/* of the field */
	u32				def, min, max;
	const char			*text;	/* TEXT: prefix; CONST: text */
	const char * const		*names;	/* NAME: max + 1 of them */
};

/* Where a field is: for the descriptor's initializer. */
#define TCMX_CFS_FIELD(_home, _type, _member)				\
	.home = _home, .off = offsetof(_type, _member),			\
	.size = sizeof_field(_type, _member)

ssize_t tcmx_cfs_show(struct config_item *item, char *page,
		      const struct tcmx_cfs_attr *a);
ssize_t tcmx_cfs_store(struct config_item *item, const char *page,
		       size_t count, const struct tcmx_cfs_attr *a);

/*
 * Declare the file _name, in C _pfx##_name (.attr for the directory's
 * array), with mode _mode (0644 or 0444) and the descriptor's other
 * fields as designated initializers.  It ends with a function: no ';'.
 */
#define TCMX_CFS_ATTR(_pfx, _name, _mode, ...)				\
static ssize_t _pfx##_name##_show(struct config_item *item, char *page); \
static ssize_t _pfx##_name##_store(struct config_item *item,		\
				   const char *page, size_t count);	\
static struct tcmx_cfs_attr _pfx##_name = {				\
	.attr = {							\
		.ca_name	= #_name,				\
		.ca_owner	= THIS_MODULE,				\
		.ca_mode	= _mode,				\
		.show		= _pfx##_name##_show,			\
		.store		= (_mode) & 0200 ? _pfx##_name##_store : NULL, \
	},								\
	__VA_ARGS__							\
};									\
static ssize_t _pfx##_name##_show(struct config_item *item, char *page) \
{									\
	return tcmx_cfs_show(item, page, &_pfx##_name);			\
}									\
static ssize_t _pfx##_name##_store(struct config_item *item,		\
				   const char *page, size_t count)	\
{									\
	return tcmx_cfs_store(item, page, count, &_pfx##_name);		\
}

/*
 * For a new device, before the backend's ->alloc_dev(): set the default
 * attributes and identification from dev->ops, and add the default groups
 * attrib/, wwn/, pr/ (dev_attrs.c) and alua/ (alua.c) to dev->group.
 */
void tcmx_dev_attrs_init(struct tcmx_dev *dev);
void tcmx_alua_dev_init(struct tcmx_dev *dev);

#endif /* TCMX_DEVICE_H */
