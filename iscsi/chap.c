// SPDX-License-Identifier: GPL-2.0
/*
 * CHAP (RFC 1994 as RFC 7143 uses it) in the security stage: the
 * initiator offers CHAP_A, the target picks SHA-256 or MD5 and sends
 * CHAP_A, CHAP_I and a random CHAP_C; the initiator answers CHAP_N and
 * CHAP_R, and for mutual CHAP its own CHAP_I and CHAP_C, which the target
 * answers with its CHAP_N and CHAP_R.  Digests through the kernel crypto
 * API.  A value of the wrong form or length is an authentication failure.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/hash.h>
#include <crypto/algapi.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/string.h>
#include "chap.h"
#include "proto.h"

struct chap_alg {
	u8		id;	/* CHAP_A */
	const char	*hash;
	u32		len;	/* digest bytes */
};

/* ours, in order of preference */
static const struct chap_alg chap_algs[] = {
	{ 7, "sha256", 32 },
	{ 5, "md5", 16 },
};

static const struct chap_alg *chap_alg(u8 id)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(chap_algs); i++)
		if (chap_algs[i].id == id)
			return &chap_algs[i];
	return NULL;
}

/* H(id || secret || challenge) into @out */
static int chap_digest(const struct chap_alg *a, u8 id, const char *secret,
		       const u8 *challenge, u32 clen, u8 *out)
{
	struct crypto_shash *tfm;
	int ret;

	tfm = crypto_alloc_shash(a->hash, 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	{
		SHASH_DESC_ON_STACK(desc, tfm);

		desc->tfm = tfm;
		ret = crypto_shash_init(desc) ?:
		      crypto_shash_update(desc, &id, 1) ?:
		      crypto_shash_update(desc, secret, strlen(secret)) ?:
		      crypto_shash_update(desc, challenge, clen) ?:
		      crypto_shash_final(desc, out);
		shash_desc_zero(desc);
	}
	crypto_free_shash(tfm);
	return ret;
}

/* "0x<hex>" into @out (at most @max bytes): its length, or -EINVAL */
static int chap_hex(const char *s, u8 *out, u32 max)
{
	size_t n;

	if (strncasecmp(s, "0x", 2))
		return -EINVAL;
	s += 2;
	n = strlen(s);
	if (!n || n % 2 || n / 2 > max || hex2bin(out, s, n / 2))
		return -EINVAL;
	return n / 2;
}

static int chap_add_hex(char *buf, u32 size, u32 *len, const char *key,
			const u8 *bin, u32 n)
{
	char hex[2 * TCMX_CHAP_MAX + 3];

	hex[0] = '0';
	hex[1] = 'x';
	bin2hex(hex + 2, bin, n);
	hex[2 + 2 * n] = '\0';
	return tcmx_iscsi_kv_add(buf, size, len, key, hex);
}

static const char *chap_find(struct tcmx_iscsi_kv *kv, int n,
			     const char *key)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].value;
	return NULL;
}

/* CHAP_A: the first of the initiator's list we have; our challenge */
static int chap_offer(struct tcmx_iscsi_chap *c, const char *list,
		      char *rsp, u32 size, u32 *len)
{
	char num[4];
	const char *p = list;
	u32 id;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n < sizeof(num)) {
			memcpy(num, p, n);
			num[n] = '\0';
			if (!kstrtou32(num, 10, &id) && id < 256 && chap_alg(id))
				goto found;
		}
		p += n + (p[n] == ',');
	}
	return -EACCES;
found:
	c->alg = id;
	c->id = get_random_u32() & 0xff;
	c->clen = chap_alg(id)->len;
	get_random_bytes(c->challenge, c->clen);
	snprintf(num, sizeof(num), "%u", id);
	if (tcmx_iscsi_kv_add(rsp, size, len, "CHAP_A", num))
		return -ENOSPC;
	snprintf(num, sizeof(num), "%u", c->id);
	if (tcmx_iscsi_kv_add(rsp, size, len, "CHAP_I", num))
		return -ENOSPC;
	c->state = TCMX_CHAP_WAIT_R;
	return chap_add_hex(rsp, size, len, "CHAP_C", c->challenge, c->clen);
}

/* the mutual half: our answer to the initiator's CHAP_I, CHAP_C */
static int chap_mutual(struct tcmx_iscsi_chap *c, const char *ci,
		       const char *cc, char *rsp, u32 size, u32 *len)
{
	const struct chap_alg *a = chap_alg(c->alg);
	u8 challenge[TCMX_CHAP_MAX * 4], digest[TCMX_CHAP_MAX];
	int clen;
	u32 id;

	if (!c->cred.userid_mutual[0] || !c->cred.password_mutual[0] ||
	    kstrtou32(ci, 10, &id) || id > 255)
		return -EACCES;
	clen = chap_hex(cc, challenge, sizeof(challenge));
	if (clen <= 0)
		return -EACCES;
	/* our own challenge sent back: a reflection */
	if (clen == c->clen && !memcmp(challenge, c->challenge, clen))
		return -EACCES;
	if (chap_digest(a, id, c->cred.password_mutual, challenge, clen,
			digest))
		return -EACCES;
	if (tcmx_iscsi_kv_add(rsp, size, len, "CHAP_N",
			      c->cred.userid_mutual))
		return -ENOSPC;
	return chap_add_hex(rsp, size, len, "CHAP_R", digest, a->len);
}

/* CHAP_N, CHAP_R: the initiator's answer; mutual if it asks */
static int chap_check(struct tcmx_iscsi_chap *c, struct tcmx_iscsi_kv *kv,
		      int n, char *rsp, u32 size, u32 *len)
{
	const struct chap_alg *a = chap_alg(c->alg);
	const char *name = chap_find(kv, n, "CHAP_N");
	const char *r = chap_find(kv, n, "CHAP_R");
	const char *ci = chap_find(kv, n, "CHAP_I");
	const char *cc = chap_find(kv, n, "CHAP_C");
	u8 got[TCMX_CHAP_MAX], want[TCMX_CHAP_MAX];

	if (!name || !r || !c->cred.userid[0] || !c->cred.password[0] ||
	    strcmp(name, c->cred.userid))
		return -EACCES;
	if (chap_hex(r, got, sizeof(got)) != a->len ||
	    chap_digest(a, c->id, c->cred.password, c->challenge, c->clen,
			want) ||
	    crypto_memneq(got, want, a->len))
		return -EACCES;
	c->state = TCMX_CHAP_DONE;
	if (!ci && !cc)
		return 1;
	if (!ci || !cc)
		return -EACCES;
	return chap_mutual(c, ci, cc, rsp, size, len) ?: 1;
}

/*
 * The CHAP keys of one Login Request, with AuthMethod=CHAP agreed: 0 to go
 * on, 1 once the initiator is authenticated, -EACCES an authentication
 * failure, -ENOSPC no room for the response.
 */
int tcmx_iscsi_chap_step(struct tcmx_iscsi_chap *c, struct tcmx_iscsi_kv *kv,
			 int n, char *rsp, u32 size, u32 *len)
{
	const char *alg = chap_find(kv, n, "CHAP_A");

	switch (c->state) {
	case TCMX_CHAP_WAIT_A:
		if (!alg)
			return 0;	/* the AuthMethod PDU itself */
		return chap_offer(c, alg, rsp, size, len);
	case TCMX_CHAP_WAIT_R:
		if (alg)
			return -EACCES;
		return chap_check(c, kv, n, rsp, size, len);
	default:
		return -EACCES;
	}
}
