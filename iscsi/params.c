// SPDX-License-Identifier: GPL-2.0
/*
 * The negotiable keys of tpgt_<t>/param/: their table (name, kind,
 * default, range of a number) and the check a value must pass to be
 * configured or offered, as RFC 7143 and the in-tree target define them.
 * It prints nothing: the caller's one line says who refused what.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/string.h>
#include "iscsi.h"

const struct tcmx_iscsi_key_info tcmx_iscsi_keys[TCMX_ISCSI_KEY_NR] = {
#define TCMX_ISCSI_KEY(_id, _name, _kind, _def, _min, _max)		\
	[TCMX_ISCSI_KEY_##_id] = {					\
		.name = _name, .kind = _kind, .def = _def,		\
		.min = _min, .max = _max,				\
	},
#include "keys.h"
#undef TCMX_ISCSI_KEY
};

static const char * const tcmx_iscsi_auth_methods[] = {
	"CHAP", "None", "KRB5", "SPKM1", "SPKM2", "SRP", NULL,
};

static const char * const tcmx_iscsi_digests[] = {
	"CRC32C", "None", NULL,
};

static bool tcmx_iscsi_word_in(const char *w, size_t len,
			       const char * const *words)
{
	for (; *words; words++)
		if (strlen(*words) == len && !strncmp(w, *words, len))
			return true;
	return false;
}

/* "a,b,c": every element one of @words, none empty */
static int tcmx_iscsi_check_list(const char *value, const char * const *words)
{
	const char *p = value, *comma;
	size_t len;

	do {
		comma = strchr(p, ',');
		len = comma ? comma - p : strlen(p);
		if (!tcmx_iscsi_word_in(p, len, words))
			return -EINVAL;
		p = comma + 1;
	} while (comma);
	return 0;
}

static int tcmx_iscsi_check_num(const struct tcmx_iscsi_key_info *k,
				const char *value)
{
	u32 v;

	if (kstrtou32(value, 0, &v) || v < k->min || v > k->max)
		return -EINVAL;
	return 0;
}

/* IFMarkInt/OFMarkInt: "Reject", "Irrelevant" or "low~high" */
static int tcmx_iscsi_check_range(const struct tcmx_iscsi_key_info *k,
				  const char *value)
{
	char low[12];
	const char *tilde;
	u32 a, b;

	if (!strcmp(value, "Reject") || !strcmp(value, "Irrelevant"))
		return 0;
	tilde = strchr(value, '~');
	if (!tilde || tilde - value >= sizeof(low))
		return -EINVAL;
	memcpy(low, value, tilde - value);
	low[tilde - value] = '\0';
	if (kstrtou32(low, 10, &a) || kstrtou32(tilde + 1, 10, &b) ||
	    a < k->min || b > k->max || a > b)
		return -EINVAL;
	return 0;
}

/* a declarative text: printable, not empty, no '=' or control byte */
static int tcmx_iscsi_check_text(const char *value)
{
	const unsigned char *p = (const unsigned char *)value;

	if (!*p || strlen(value) >= TCMX_ISCSI_VALUE_LEN)
		return -EINVAL;
	for (; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return -EINVAL;
	return 0;
}

int tcmx_iscsi_key_check(enum tcmx_iscsi_key key, const char *value)
{
	const struct tcmx_iscsi_key_info *k = &tcmx_iscsi_keys[key];

	switch (k->kind) {
	case TCMX_KEY_LIST:
		return tcmx_iscsi_check_list(value,
					     key == TCMX_ISCSI_KEY_AUTH_METHOD ?
					     tcmx_iscsi_auth_methods :
					     tcmx_iscsi_digests);
	case TCMX_KEY_AND:
	case TCMX_KEY_OR:
		return strcmp(value, "Yes") && strcmp(value, "No") ?
		       -EINVAL : 0;
	case TCMX_KEY_MIN:
	case TCMX_KEY_MAX:
	case TCMX_KEY_DECL_NUM:
		return tcmx_iscsi_check_num(k, value);
	case TCMX_KEY_RANGE:
		return tcmx_iscsi_check_range(k, value);
	case TCMX_KEY_DECL:
		return tcmx_iscsi_check_text(value);
	}
	return -EINVAL;
}
