/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configfs files of the core that are fields with a rule (cfs_attr.c),
 * for the files that declare such directories.
 */
#ifndef TCMX_CFS_ATTR_H
#define TCMX_CFS_ATTR_H

#include "tcmx_core.h"

/*
 * cfs_attr.c: a configfs file backed by a field with a rule, one struct
 * tcmx_cfs_attr per file, declared by TCMX_CFS_ATTR(), and one show and
 * one store for them all.  The field is at an offset in its home, the
 * object that the file's directory stands for, which the home's ->find()
 * returns (@global instead for a directory of one global object); its
 * width is @size.  A store takes the home's lock (cd->lock;
 * tcmx_cfs_mutex for a global), checks the rule and on a bad value
 * returns -EINVAL (-EBUSY for TCMX_CFS_IDLE while a LUN exports the
 * device) with one pr_err naming the object and the file, leaving the
 * value as it was.  Files with rules of their own are plain
 * CONFIGFS_ATTR()s.
 */
struct tcmx_cfs_attr;

/*
 * A directory of a device whose files are fields of one object: declared
 * by the file that owns the directory (dev_attrs.c, device.c, alua.c).
 */
struct tcmx_cfs_home {
	/* before the directory's name in an error line; NULL: the device's
	 * own files, named without a directory
	 */
	const char	*dir;
	/* the object of @item's directory, and in *@dev its device */
	char		*(*find)(struct config_item *item,
				 struct tcmx_dev **dev);
	/* optional, cd->lock held: a rule beyond the range (pr_err and
	 * -EINVAL), then the side effects of a value once set
	 */
	int		(*check)(struct tcmx_dev *dev,
				 const struct tcmx_cfs_attr *a, u32 val);
	void		(*apply)(struct tcmx_dev *dev,
				 const struct tcmx_cfs_attr *a);
};

enum tcmx_cfs_kind {
	TCMX_CFS_NUM,		/* u8 or u32 in min..max, "%u\n" */
	TCMX_CFS_BIT,		/* @bit of a u8: 0 or 1 */
	TCMX_CFS_NAME,		/* u8 in 0..max, shown as names[value] */
	TCMX_CFS_TEXT,		/* char[size], shown after @text; @strip */
	TCMX_CFS_CONST,		/* @text, no field */
};

#define TCMX_CFS_RO	BIT(0)	/* read-only */
#define TCMX_CFS_IDLE	BIT(1)	/* refused (-EBUSY) while exported */
#define TCMX_CFS_POW2	BIT(2)	/* a power of two */
#define TCMX_CFS_HWQD	BIT(3)	/* max is attrib.hw_queue_depth */
#define TCMX_CFS_CLAMP	BIT(4)	/* lowered to attrib.hw_max_sectors */
#define TCMX_CFS_NULL	BIT(5)	/* TEXT: "NULL" stores "" */
#define TCMX_CFS_OPT	BIT(6)	/* TEXT: shows nothing while "" */
/* IDLE, HWQD and CLAMP are for the homes in a device only. */

struct tcmx_cfs_attr {
	struct configfs_attribute	attr;
	const struct tcmx_cfs_home	*home;	/* NULL: @global */
	u8				kind;	/* enum tcmx_cfs_kind */
	u8				flags;	/* TCMX_CFS_* */
	u8				bit;	/* BIT */
	u8				strip;	/* TEXT: TCMX_STRIP_* */
	u16				off;	/* of the field in its home */
	u16				size;	/* of the field */
	u32				def, min, max;
	const char			*text;	/* TEXT: prefix; CONST: text */
	const char * const		*names;	/* NAME: max + 1 of them */
	void				*global; /* GLOBAL: the object */
};

/* Where a field is: for the descriptor's initializer. */
#define TCMX_CFS_FIELD(_home, _type, _member)				\
	.home = _home, .off = offsetof(_type, _member),			\
	.size = sizeof_field(_type, _member)
#define TCMX_CFS_GLOBAL_FIELD(_obj, _member)				\
	TCMX_CFS_FIELD(NULL, typeof(_obj), _member), .global = &(_obj)

ssize_t tcmx_cfs_show(struct config_item *item, char *page,
		      const struct tcmx_cfs_attr *a);
ssize_t tcmx_cfs_store(struct config_item *item, const char *page,
		       size_t count, const struct tcmx_cfs_attr *a);
/* set @a's field in @home (its object) to @val */
void tcmx_cfs_set(char *home, const struct tcmx_cfs_attr *a, u32 val);

/*
 * Declare the file _name, in C _pfx##_name (.attr for the directory's
 * array), with mode _mode (0644, 0600 or 0444) and the descriptor's other
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

/* A read-only file showing _text and a newline. */
#define TCMX_CFS_CONST_ATTR(_pfx, _name, _text)				\
	TCMX_CFS_ATTR(_pfx, _name, 0444, .kind = TCMX_CFS_CONST, .text = _text)

#endif /* TCMX_CFS_ATTR_H */
