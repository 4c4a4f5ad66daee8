// SPDX-License-Identifier: GPL-2.0
/*
 * key=value text: parsing a PDU's keys, building a response, and
 * negotiating a key by its RFC 7143 kind.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/string.h>
#include "proto.h"

/* Split @buf (@len bytes of NUL-terminated key=value) in place. */
int tcmx_iscsi_kv_parse(char *buf, u32 len, struct tcmx_iscsi_kv *kv,
			int max)
{
	char *p = buf, *end = buf + len, *nul, *eq;
	int n = 0;

	while (p < end) {
		nul = memchr(p, '\0', end - p);
		if (!nul)
			return -EINVAL;
		if (nul == p) {		/* padding NULs */
			p++;
			continue;
		}
		eq = strchr(p, '=');
		if (!eq || eq == p || n == max)
			return -EINVAL;
		*eq = '\0';
		kv[n].key = p;
		kv[n].value = eq + 1;
		n++;
		p = nul + 1;
	}
	return n;
}

/* Append key=value and its NUL; -ENOSPC when it does not fit. */
int tcmx_iscsi_kv_add(char *buf, u32 size, u32 *len, const char *key,
		      const char *value)
{
	int n = snprintf(buf + *len, size - *len, "%s=%s", key, value);

	if (n < 0 || *len + n + 1 > size)
		return -ENOSPC;
	*len += n + 1;
	return 0;
}

int tcmx_iscsi_key_id(const char *name)
{
	int i;

	for (i = 0; i < TCMX_ISCSI_KEY_NR; i++)
		if (!strcmp(tcmx_iscsi_keys[i].name, name))
			return i;
	return -1;
}

static bool in_list(const char *list, const char *value, size_t len)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, value, len))
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

/* the first of @theirs (a list) that @ours has, or "Reject" */
static const char *negotiate_list(const char *ours, const char *theirs,
				  char *out, size_t size)
{
	const char *p = theirs;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n && n < size && in_list(ours, p, n)) {
			memcpy(out, p, n);
			out[n] = '\0';
			return out;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return "Reject";
}

static int yes_no(const char *v)
{
	if (!strcmp(v, "Yes"))
		return 1;
	if (!strcmp(v, "No"))
		return 0;
	return -1;
}

/*
 * The response to the initiator's @theirs for @key, given our configured
 * @ours: in @out, or a constant.  NULL: @theirs is not a valid value.
 */
const char *tcmx_iscsi_negotiate(enum tcmx_iscsi_key key, const char *ours,
				 const char *theirs, char *out, size_t size)
{
	const struct tcmx_iscsi_key_info *k = &tcmx_iscsi_keys[key];
	int a, b;
	u32 x, y;

	switch (k->kind) {
	case TCMX_KEY_LIST:
		return negotiate_list(ours, theirs, out, size);
	case TCMX_KEY_AND:
	case TCMX_KEY_OR:
		a = yes_no(ours);
		b = yes_no(theirs);
		if (a < 0 || b < 0)
			return NULL;
		if (k->kind == TCMX_KEY_AND)
			return a && b ? "Yes" : "No";
		return a || b ? "Yes" : "No";
	case TCMX_KEY_MIN:
	case TCMX_KEY_MAX:
		if (kstrtou32(ours, 10, &x) || kstrtou32(theirs, 10, &y))
			return NULL;
		if (k->max && (y < k->min || y > k->max))
			return NULL;
		snprintf(out, size, "%u", k->kind == TCMX_KEY_MIN ?
			 min(x, y) : max(x, y));
		return out;
	case TCMX_KEY_DECL_NUM:
		if (kstrtou32(theirs, 10, &y) || y < 512 || y > 16777215)
			return NULL;
		return ours;
	case TCMX_KEY_DECL:
		return ours;
	case TCMX_KEY_RANGE:
		return "Irrelevant";
	}
	return NULL;
}
