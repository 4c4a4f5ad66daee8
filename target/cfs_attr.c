// SPDX-License-Identifier: GPL-2.0
/*
 * tcmx_core: the one mechanism for configfs files backed by a field with
 * a rule (struct tcmx_cfs_attr, tcmx_core.h), which serves a device's own
 * files, attrib/, wwn/ and alua/<group>/; and
 * tcmx_cfs_strip(), the text of any configfs write, and
 * tcmx_parse_index(), the name of a numbered directory.  It knows no
 * directory: each home (struct tcmx_cfs_home) says how its object is
 * found and what a new value's further rules are.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/string.h>
#include "cfs_attr.h"
#include "tcmx_core.h"

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

int tcmx_cfs_u32(const char *page, size_t count, u32 *val)
{
	if (memchr(page, '\0', count))
		return -EINVAL;
	return kstrtou32(page, 0, val);
}

int tcmx_cfs_int(const char *page, size_t count, int *val)
{
	if (memchr(page, '\0', count))
		return -EINVAL;
	return kstrtoint(page, 0, val);
}

/* parse "<prefix><number>" with number < @limit */
int tcmx_parse_index(const char *name, const char *prefix, u64 limit,
		     u64 *index)
{
	size_t plen = strlen(prefix);
	const char *num = name + plen;
	char canon[24];

	/*
	 * Only the canonical spelling: lun_07 or lun_+7 would be a second
	 * directory for the index of lun_7, and one LUN would hide the other.
	 */
	if (strncmp(name, prefix, plen) || kstrtou64(num, 10, index) ||
	    *index >= limit)
		goto bad;
	snprintf(canon, sizeof(canon), "%llu", *index);
	if (!strcmp(num, canon))
		return 0;
bad:
	pr_err("%s: expected %s<0..%llu>, in decimal without leading zeros or sign\n",
	       name, prefix, limit - 1);
	return -EINVAL;
}

/* The object a file's field is in, the lock it is under, its device. */
struct tcmx_cfs_obj {
	char			*base;
	struct mutex		*lock;
	struct tcmx_dev		*dev;	/* NULL for a global */
};

static void tcmx_cfs_find(struct config_item *item,
			  const struct tcmx_cfs_attr *a, struct tcmx_cfs_obj *h)
{
	if (!a->home) {
		h->dev = NULL;
		h->base = a->global;
		h->lock = &tcmx_cfs_mutex;
		return;
	}
	h->base = a->home->find(item, &h->dev);
	h->lock = &tcmx_core(h->dev)->lock;
}

/*
 * The one error line of a refused write: "<dev>: [alua/]<dir>/<file>: ..."
 * ("<dev>: <file>: ..." for the device's own files) or, for a global,
 * "<parent>: <dir>/<file>: ...".
 */
static __printf(4, 5)
void tcmx_cfs_err(struct config_item *item, const struct tcmx_cfs_attr *a,
		  const struct tcmx_cfs_obj *h, const char *fmt, ...)
{
	const char *dir = config_item_name(item);
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (a->home && !a->home->dir)
		pr_err("%s: %s: %pV\n", tcmx_dev_name(h->dev),
		       a->attr.ca_name, &vaf);
	else
		pr_err("%s: %s%s/%s: %pV\n",
		       h->dev ? tcmx_dev_name(h->dev) :
				config_item_name(item->ci_parent),
		       a->home ? a->home->dir : "", dir,
		       a->attr.ca_name, &vaf);
	va_end(args);
}

static u32 tcmx_cfs_get(const char *field, const struct tcmx_cfs_attr *a)
{
	return a->size == 1 ? READ_ONCE(*(const u8 *)field) :
			      READ_ONCE(*(const u32 *)field);
}

void tcmx_cfs_set(char *home, const struct tcmx_cfs_attr *a, u32 val)
{
	char *field = home + a->off;

	if (a->size == 1)
		WRITE_ONCE(*(u8 *)field, val);
	else
		WRITE_ONCE(*(u32 *)field, val);
}

ssize_t tcmx_cfs_show(struct config_item *item, char *page,
		      const struct tcmx_cfs_attr *a)
{
	struct tcmx_cfs_obj h;
	char *field;
	ssize_t ret = 0;
	u32 val;

	if (a->kind == TCMX_CFS_CONST)
		return sysfs_emit(page, "%s\n", a->text);
	tcmx_cfs_find(item, a, &h);
	field = h.base + a->off;
	if (a->kind == TCMX_CFS_TEXT) {
		mutex_lock(h.lock);
		if (field[0] || !(a->flags & TCMX_CFS_OPT))
			ret = sysfs_emit(page, "%s%s\n", a->text ?: "", field);
		mutex_unlock(h.lock);
		return ret;
	}
	val = tcmx_cfs_get(field, a);
	if (a->kind == TCMX_CFS_BIT)
		val = !!(val & a->bit);
	if (a->kind == TCMX_CFS_NAME)
		return sysfs_emit(page, "%s\n",
				  val <= a->max ? a->names[val] : "Unknown");
	return sysfs_emit(page, "%u\n", val);
}

/* cd->lock held: -EBUSY, said once, if a LUN exports the device. */
static int tcmx_cfs_idle(struct config_item *item,
			 const struct tcmx_cfs_attr *a,
			 const struct tcmx_cfs_obj *h)
{
	int n;

	if (!(a->flags & TCMX_CFS_IDLE))
		return 0;
	n = tcmx_core(h->dev)->export_count;
	if (!n)
		return 0;
	tcmx_cfs_err(item, a, h, "cannot change while exported by %d LUN(s)",
		     n);
	return -EBUSY;
}

static ssize_t tcmx_cfs_store_text(struct config_item *item,
				   const struct tcmx_cfs_attr *a,
				   const struct tcmx_cfs_obj *h,
				   const char *page, size_t count)
{
	char *field = h->base + a->off;
	const char *s;
	size_t len;
	int ret;

	if (tcmx_cfs_strip(page, count, a->size - 1, a->strip, &s, &len)) {
		tcmx_cfs_err(item, a, h, "need at most %u %s", a->size - 1,
			     a->strip & TCMX_STRIP_ASCII ?
			     "printable ASCII characters" : "bytes, no NUL");
		return -EINVAL;
	}
	if (a->flags & TCMX_CFS_NULL && len == 4 && !memcmp(s, "NULL", 4))
		len = 0;
	mutex_lock(h->lock);
	ret = tcmx_cfs_idle(item, a, h);
	if (!ret) {
		memcpy(field, s, len);
		field[len] = '\0';
	}
	mutex_unlock(h->lock);
	return ret ?: count;
}

ssize_t tcmx_cfs_store(struct config_item *item, const char *page,
		       size_t count, const struct tcmx_cfs_attr *a)
{
	struct tcmx_cfs_obj h;
	const char *s;
	char *field;
	u32 val, max;
	size_t len;
	int ret = 0;

	tcmx_cfs_find(item, a, &h);
	if (a->kind == TCMX_CFS_TEXT)
		return tcmx_cfs_store_text(item, a, &h, page, count);
	if (tcmx_cfs_u32(page, count, &val)) {
		tcmx_cfs_strip(page, count, count, 0, &s, &len);
		tcmx_cfs_err(item, a, &h, "'%.*s' is not an unsigned number",
			     (int)min_t(size_t, len, TCMX_CFS_ECHO), s);
		return -EINVAL;
	}

	field = h.base + a->off;
	mutex_lock(h.lock);
	max = a->kind == TCMX_CFS_BIT ? 1 : a->max;
	if (a->flags & TCMX_CFS_HWQD)
		max = h.dev->attrib.hw_queue_depth;
	if (a->flags & TCMX_CFS_CLAMP)
		val = min(val, h.dev->attrib.hw_max_sectors);
	if (val < a->min || val > max ||
	    (a->flags & TCMX_CFS_POW2 && !is_power_of_2(val))) {
		tcmx_cfs_err(item, a, &h, "%u is not allowed (%u..%u%s)", val,
			     a->min, max,
			     a->flags & TCMX_CFS_POW2 ? ", a power of 2" : "");
		ret = -EINVAL;
	} else if (a->kind == TCMX_CFS_BIT) {
		tcmx_cfs_set(h.base, a, val ? tcmx_cfs_get(field, a) | a->bit :
					tcmx_cfs_get(field, a) & ~a->bit);
	} else if (val != tcmx_cfs_get(field, a)) {
		ret = tcmx_cfs_idle(item, a, &h);
		if (!ret && a->home && a->home->check)
			ret = a->home->check(h.dev, a, val);
		if (!ret) {
			tcmx_cfs_set(h.base, a, val);
			if (a->home && a->home->apply)
				a->home->apply(h.dev, a);
		}
	}
	mutex_unlock(h.lock);
	return ret ?: count;
}

void tcmx_cfs_subdir(struct config_group *parent, struct config_group *child,
		     const char *name, const struct config_item_type *type)
{
	config_group_init_type_name(child, name, type);
	configfs_add_default_group(child, parent);
}

void tcmx_cfs_init_type(struct config_item_type *type, struct module *owner,
			struct configfs_item_operations *item_ops,
			struct configfs_group_operations *group_ops,
			struct configfs_attribute **attrs)
{
	type->ct_owner = owner;
	type->ct_item_ops = item_ops;
	type->ct_group_ops = group_ops;
	type->ct_attrs = attrs;
}
