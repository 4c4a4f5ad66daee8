/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the few kernel APIs that target/sbc.c, spc.c and
 * the headers they include use.  Every <linux/...>, <asm/...> header under
 * tests/unit/include just includes this file.  When sbc.c/spc.c start using
 * something new, add it here (keep it small and obviously correct).
 */
#ifndef UT_KERNEL_H
#define UT_KERNEL_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;
typedef unsigned int gfp_t;

#define KBUILD_MODNAME		"tcmx_core"
#define __percpu
#define __rcu
#define __user
#define __must_check
#define __must_hold(x)
#define __acquires(x)
#define __releases(x)
#define __always_unused		__attribute__((unused))
#define __maybe_unused		__attribute__((unused))
#define EXPORT_SYMBOL_GPL(sym)
#define EXPORT_SYMBOL(sym)

#define BIT(n)			(1UL << (n))
#define U8_MAX			0xffU
#define U16_MAX			0xffffU
#define U32_MAX			0xffffffffU
#define U64_MAX			0xffffffffffffffffULL
#define PAGE_SIZE		4096UL
#define GFP_ATOMIC		0x1U
#define GFP_KERNEL		0x2U
#define GFP_NOWAIT		0x4U

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define noinline		__attribute__((noinline))
#define READ_ONCE(x)		(*(volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define container_of(p, t, m)	((t *)((char *)(p) - offsetof(t, m)))
#define BUILD_BUG_ON(c)		_Static_assert(!(c), #c)
#define WARN_ON(c)		({ bool _w = !!(c); if (_w) ut_warn(__FILE__, __LINE__); _w; })
#define WARN_ON_ONCE(c)		WARN_ON(c)

#define min(a, b)	({ typeof(a) _a = (a); typeof(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b)	({ typeof(a) _a = (a); typeof(b) _b = (b); _a > _b ? _a : _b; })
#define min_t(t, a, b)	min((t)(a), (t)(b))
#define max_t(t, a, b)	max((t)(a), (t)(b))
#define min3(a, b, c)	min(min(a, b), c)
#define max3(a, b, c)	max(max(a, b), c)
#define clamp(v, l, h)	min(max(v, l), h)
#define clamp_t(t, v, l, h)	clamp((t)(v), (t)(l), (t)(h))
#define ALIGN(x, a)	(((x) + (a) - 1) / (a) * (a))
#define round_up(x, y)	ALIGN(x, y)
#define rounddown(x, y)	((x) - ((x) % (y)))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))

/* pr_*(): format-checked, printed only with UT_VERBOSE set */
void ut_printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ut_warn(const char *file, int line);
#ifndef pr_fmt
#define pr_fmt(fmt)		fmt
#endif
#define pr_err(fmt, ...)	ut_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	ut_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	ut_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_debug(fmt, ...)	ut_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err_ratelimited	pr_err
#define pr_warn_ratelimited	pr_warn

/* memory: plain malloc, so ASan sees every overflow and leak */
static inline void *kmalloc(size_t n, gfp_t f) { (void)f; return malloc(n); }
/*
 * A test may set ut_kzalloc_hook to run at the next kzalloc() (as if
 * another CPU acted between a caller's sizing and its filling); weak, so
 * that a build without the tests that set it still links.
 */
__attribute__((weak)) void (*ut_kzalloc_hook)(void);
static inline void *kzalloc(size_t n, gfp_t f)
{
	void (*hook)(void) = ut_kzalloc_hook;

	(void)f;
	if (hook) {
		ut_kzalloc_hook = NULL;
		hook();
	}
	return calloc(1, n);
}
static inline void *kcalloc(size_t m, size_t n, gfp_t f) { (void)f; return calloc(m, n); }
static inline void kfree(const void *p) { free((void *)p); }

/* the first byte of @p's @n that is not @c, or NULL */
static inline void *memchr_inv(const void *p, int c, size_t n)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != (u8)c)
			return (void *)&b[i];
	return NULL;
}

static inline void cond_resched(void) {}

/* one thread: locks and RCU are no-ops */
struct mutex { int unused; };
typedef struct { int unused; } spinlock_t;
static inline void rcu_read_lock(void) {}
static inline void rcu_read_unlock(void) {}
static inline void mutex_lock(struct mutex *m) { (void)m; }
static inline void mutex_unlock(struct mutex *m) { (void)m; }
/*
 * ut_stubs.c: how deep tcmx_itl_lock is held (the walks under it must
 * compare no names: ut_itl_lock_compares counts those that do)
 */
void ut_lock_note(const void *l, int depth);
extern int ut_itl_lock_held, ut_itl_lock_compares;
/*
 * how deep locks taken with interrupts off are held, and how many
 * compares of names that differ ran meanwhile (a walk under such a lock
 * compares names only where its keys match, so those of its own identity)
 */
extern int ut_irqs_off, ut_irqs_off_misses;
static inline void spin_lock(spinlock_t *l) { ut_lock_note(l, 1); }
static inline void spin_unlock(spinlock_t *l) { ut_lock_note(l, -1); }
static inline int ut_strcmp(const char *a, const char *b)
{
	int r = strcmp(a, b);

	ut_itl_lock_compares += ut_itl_lock_held > 0;
	ut_irqs_off_misses += ut_irqs_off > 0 && r;
	return r;
}

static inline int ut_strcasecmp(const char *a, const char *b)
{
	int r = strcasecmp(a, b);

	ut_itl_lock_compares += ut_itl_lock_held > 0;
	ut_irqs_off_misses += ut_irqs_off > 0 && r;
	return r;
}

#define strcmp(a, b)		ut_strcmp(a, b)
#define strcasecmp(a, b)	ut_strcasecmp(a, b)
#define rcu_dereference(p)	(p)
#define DEFINE_MUTEX(m)		struct mutex m
#define smp_load_acquire(p)	(*(p))
#define cmpxchg_release(p, o, n) \
	({ typeof(*(p)) _o = *(p); if (_o == (o)) *(p) = (n); _o; })
/* time: a clock the test sets */
#define HZ			100
#define NSEC_PER_MSEC		1000000ULL
extern unsigned long jiffies;
extern u64 ut_real_ns;
#define time_before(a, b)	((long)((a) - (b)) < 0)
static inline u64 ktime_get_real_ns(void) { return ut_real_ns; }
static inline u64 div_u64(u64 n, u32 d) { return n / d; }
#define ilog2(n)		(63 - __builtin_clzll((unsigned long long)(n)))
#define lockdep_assert_held(l)	((void)(l))
#define DEFINE_SPINLOCK(x)	spinlock_t x = { 0 }
#define spin_lock_irqsave(l, f)	((f) = 0, ut_irqs_off++, ut_lock_note(l, 1))
#define spin_unlock_irqrestore(l, f)	\
	((void)(f), ut_irqs_off--, ut_lock_note(l, -1))
#define spin_lock_irq(l)	(ut_irqs_off++, ut_lock_note(l, 1))
#define spin_unlock_irq(l)	(ut_irqs_off--, ut_lock_note(l, -1))
#define spin_lock_init(l)	((void)(l))

/* opaque kernel objects that tcmx.h embeds */
struct module;
struct list_head { struct list_head *next, *prev; };
#define list_for_each_entry(pos, head, member)				\
	for (pos = container_of((head)->next, typeof(*pos), member);	\
	     &pos->member != (head);					\
	     pos = container_of(pos->member.next, typeof(*pos), member))
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = container_of((head)->next, typeof(*pos), member),	\
	     n = container_of(pos->member.next, typeof(*pos), member);	\
	     &pos->member != (head);					\
	     pos = n, n = container_of(n->member.next, typeof(*n), member))
#define list_first_entry(head, type, member)				\
	container_of((head)->next, type, member)
#define LIST_HEAD(name)	struct list_head name = { &(name), &(name) }
static inline void INIT_LIST_HEAD(struct list_head *h) { h->next = h->prev = h; }
static inline bool list_empty(const struct list_head *h) { return h->next == h; }
static inline void list_add_tail(struct list_head *e, struct list_head *h)
{
	e->prev = h->prev;
	e->next = h;
	h->prev->next = e;
	h->prev = e;
}
static inline void list_del(struct list_head *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
}
static inline void list_del_init(struct list_head *e)
{
	list_del(e);
	e->next = e->prev = e;
}
static inline void list_add(struct list_head *e, struct list_head *h)
{
	e->prev = h;
	e->next = h->next;
	h->next->prev = e;
	h->next = e;
}
#define list_first_entry_or_null(head, type, member)			\
	(list_empty(head) ? NULL : list_first_entry(head, type, member))
static inline void list_move_tail(struct list_head *e, struct list_head *h)
{
	list_del(e);
	list_add_tail(e, h);
}
static inline void list_splice_init(struct list_head *l, struct list_head *h)
{
	if (list_empty(l))
		return;
	l->next->prev = h;
	l->prev->next = h->next;
	h->next->prev = l->prev;
	h->next = l->next;
	INIT_LIST_HEAD(l);
}
/* bit operations on an unsigned long, non-atomic in one thread */
static inline void set_bit(unsigned int nr, unsigned long *p) { *p |= 1UL << nr; }
static inline void clear_bit(unsigned int nr, unsigned long *p) { *p &= ~(1UL << nr); }
static inline bool test_bit(unsigned int nr, const unsigned long *p) { return *p >> nr & 1; }
struct percpu_ref { long count; };
/* seqcount: one thread, so a read never needs a retry */
typedef struct { unsigned int sequence; } seqcount_spinlock_t;
typedef seqcount_spinlock_t seqcount_raw_spinlock_t;
typedef spinlock_t raw_spinlock_t;
/* inject/'s delay timer: a type only here */
struct hrtimer { long unused; };
#define seqcount_spinlock_init(s, lock)	((s)->sequence = 0)
#define write_seqcount_begin(s)		((s)->sequence++)
#define write_seqcount_end(s)		((s)->sequence++)
#define read_seqcount_begin(s)		((s)->sequence)
#define read_seqcount_retry(s, seq)	((s)->sequence != (seq))
struct completion { int done; };
struct work_struct { int pending; void (*func)(struct work_struct *); };
struct workqueue_struct;
#define INIT_WORK(w, f)		((w)->func = (f))
/*
 * a queued work runs at once, in the caller; with ut_hold_work set it is
 * kept in ut_held_work instead, for the test to run (one at a time)
 */
extern bool ut_hold_work;
extern struct work_struct *ut_held_work;
static inline bool queue_work(struct workqueue_struct *wq,
			      struct work_struct *w)
{
	(void)wq;
	if (ut_hold_work) {
		ut_held_work = w;
		return true;
	}
	w->func(w);
	return true;
}
struct delayed_work { struct work_struct work; };
struct dentry;
typedef struct { int counter; } atomic_t;
typedef struct { long long counter; } atomic64_t;

/* configfs: just the item name */
struct config_item { const char *ci_name; };
struct config_group { struct config_item cg_item; };
struct config_item_type { int unused; };
struct configfs_attribute { int unused; };
static inline const char *config_item_name(struct config_item *i)
{
	return i->ci_name;
}
#define to_config_group(i)	container_of(i, struct config_group, cg_item)

enum dma_data_direction {
	DMA_BIDIRECTIONAL = 0,
	DMA_TO_DEVICE = 1,
	DMA_FROM_DEVICE = 2,
	DMA_NONE = 3,
};

/* xarray: a flat array of UT_XA_MAX slots, NULL = empty */
#define UT_XA_MAX	70000
struct xarray { void **slot; };
typedef unsigned int xa_mark_t;
#define XA_MARK_1	1U
#define xa_for_each(xa, index, entry)					\
	for ((index) = 0; (index) < UT_XA_MAX; (index)++)		\
		if (!((entry) = (xa)->slot ? (xa)->slot[index] : NULL)) {} else
static inline void *xa_load(struct xarray *xa, unsigned long index)
{
	return xa->slot && index < UT_XA_MAX ? xa->slot[index] : NULL;
}
static inline void *xa_store(struct xarray *xa, unsigned long index,
			     void *entry, gfp_t gfp)
{
	void *old = xa_load(xa, index);

	(void)gfp;
	if (!xa->slot || index >= UT_XA_MAX)
		return (void *)-1L;
	xa->slot[index] = entry;
	return old;
}
static inline int xa_err(void *entry) { return entry == (void *)-1L ? -12 : 0; }
static inline void *xa_cmpxchg(struct xarray *xa, unsigned long index,
			       void *old, void *entry, gfp_t gfp)
{
	void *cur = xa_load(xa, index);

	if (cur == old)
		xa_store(xa, index, entry, gfp);
	return cur;
}
static inline void *xa_erase(struct xarray *xa, unsigned long index)
{
	void *old = xa_load(xa, index);

	if (old)
		xa->slot[index] = NULL;
	return old;
}
/* RCU: nothing reads concurrently here, so a deferred free is a free */
struct rcu_head { void *unused; };
#define kfree_rcu(p, field)	free(p)

/* scatterlist: one flat segment */
struct scatterlist { u8 *buf; size_t len; };
size_t sg_pcopy_from_buffer(struct scatterlist *sg, unsigned int nents,
			    const void *buf, size_t len, size_t skip);
size_t sg_pcopy_to_buffer(struct scatterlist *sg, unsigned int nents,
			  void *buf, size_t len, size_t skip);
/* the mapping iterator: the segment in pieces of 4000 bytes, like the
 * pages of a buffer that does not start on a page (pieces cut entries) */
#define SG_MITER_ATOMIC		(1 << 0)
#define SG_MITER_TO_SG		(1 << 1)
struct sg_mapping_iter {
	void *addr;
	size_t length;
	struct scatterlist *sg;
	size_t pos;		/* where the next piece starts */
};
static inline void sg_miter_start(struct sg_mapping_iter *m,
				  struct scatterlist *sg, unsigned int nents,
				  unsigned int flags)
{
	m->addr = NULL;
	m->length = 0;
	m->sg = nents ? sg : NULL;
	m->pos = 0;
}
static inline bool sg_miter_next(struct sg_mapping_iter *m)
{
	if (!m->sg || m->pos >= m->sg->len)
		return false;
	m->addr = m->sg->buf + m->pos;
	m->length = m->sg->len - m->pos < 4000 ? m->sg->len - m->pos : 4000;
	m->pos += m->length;
	return true;
}
static inline void sg_miter_stop(struct sg_mapping_iter *m) { }
#define sg_copy_from_buffer(sg, n, b, l)	sg_pcopy_from_buffer(sg, n, b, l, 0)
#define sg_copy_to_buffer(sg, n, b, l)		sg_pcopy_to_buffer(sg, n, b, l, 0)

int hex_to_bin(unsigned char ch);
int scnprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* big-endian unaligned accessors */
static inline u16 get_unaligned_be16(const void *p)
{
	const u8 *b = p;

	return (u16)(b[0] << 8 | b[1]);
}

static inline u32 get_unaligned_be24(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] << 16 | (u32)b[1] << 8 | b[2];
}

static inline u32 get_unaligned_be32(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

static inline u64 get_unaligned_be64(const void *p)
{
	return (u64)get_unaligned_be32(p) << 32 |
	       get_unaligned_be32((const u8 *)p + 4);
}

static inline void put_unaligned_be16(u16 v, void *p)
{
	u8 *b = p;

	b[0] = v >> 8;
	b[1] = v;
}

static inline void put_unaligned_be24(u32 v, void *p)
{
	u8 *b = p;

	b[0] = v >> 16;
	b[1] = v >> 8;
	b[2] = v;
}

static inline void put_unaligned_be32(u32 v, void *p)
{
	put_unaligned_be16(v >> 16, p);
	put_unaligned_be16(v, (u8 *)p + 2);
}

static inline void put_unaligned_be64(u64 v, void *p)
{
	put_unaligned_be32(v >> 32, p);
	put_unaligned_be32(v, (u8 *)p + 4);
}

static inline u64 get_unaligned_le64(const void *p)
{
	const u8 *b = p;
	u64 v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

#define __init
#define __initconst
#define __ro_after_init

/* <scsi/scsi_common.h>: the midlayer's sense helpers, in ut_main.c */
void scsi_build_sense_buffer(int desc, u8 *buf, u8 key, u8 asc, u8 ascq);
int scsi_set_sense_information(u8 *buf, int buf_len, u64 info);
int scsi_set_sense_field_pointer(u8 *buf, int buf_len, u16 fp, u8 bp, bool cd);

/* sbc_integrity.c: bounce buffers and its exclusion (one thread) */
static inline void *kvmalloc(size_t n, gfp_t f) { (void)f; return malloc(n); }
static inline void kvfree(const void *p) { free((void *)p); }
static inline void *kvcalloc(size_t n, size_t size, gfp_t f)
{
	(void)f;
	return calloc(n, size);
}
static inline void mutex_init(struct mutex *m) { (void)m; }
static inline void synchronize_rcu_expedited(void) {}
static inline void synchronize_rcu(void) {}
static inline bool percpu_ref_tryget_live(struct percpu_ref *r)
{
	r->count++;
	return true;
}
static inline void percpu_ref_put(struct percpu_ref *r) { r->count--; }
static inline void percpu_ref_get(struct percpu_ref *r) { r->count++; }
#define atomic_read(a)		((a)->counter)
#define atomic_set(a, n)	((void)((a)->counter = (n)))
#define HZ			100
/*
 * one thread: nothing can come that a wait would wait for; one that would
 * block is counted in ut_blocked_waits and returns as if it had ended
 */
extern int ut_blocked_waits;
#define wait_var_event_timeout(var, cond, t)				\
	((cond) ? (t) : (ut_blocked_waits++, (t)))
#define wait_var_event(var, cond)	((void)((cond) || ut_blocked_waits++))
/* a reference count: kfree_rcu() frees at once, so no use after it */
typedef struct { int refs; } refcount_t;
static inline void refcount_set(refcount_t *r, int n) { r->refs = n; }
static inline void refcount_inc(refcount_t *r) { r->refs++; }
static inline bool refcount_inc_not_zero(refcount_t *r)
{
	return r->refs ? (r->refs++, true) : false;
}
static inline bool refcount_dec_and_test(refcount_t *r)
{
	return --r->refs == 0;
}

/* pr.c's APTPL file, kept in a real file (ut_stubs.c) */
#define IS_ERR(p)		((unsigned long)(p) >= (unsigned long)-4095)
#define PTR_ERR(p)		((long)(p))
#define ERR_PTR(e)		((void *)(long)(e))
#define LOOKUP_FOLLOW		0x1
#define LOOKUP_DIRECTORY	0x2
struct file { int fd; };
struct path { int unused; };
struct file *filp_open(const char *name, int flags, unsigned short mode);
ssize_t kernel_write(struct file *f, const void *buf, size_t n, loff_t *pos);
void fput(struct file *f);
int vfs_fsync(struct file *f, int datasync);
int kern_path(const char *name, unsigned int flags, struct path *path);
static inline void path_put(struct path *p) { (void)p; }
char *kasprintf(gfp_t gfp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *kmemdup_nul(const char *s, size_t len, gfp_t gfp);
char *strim(char *s);
char *strnstr(const char *s, const char *find, size_t len);
int kstrtou64(const char *s, unsigned int base, u64 *res);
int kstrtou16(const char *s, unsigned int base, u16 *res);
int kstrtou8(const char *s, unsigned int base, u8 *res);
int kstrtobool(const char *s, bool *res);
ssize_t strscpy(char *dst, const char *src, size_t size);

/* one thread: a counter, and nobody to wake */
#ifndef atomic_inc
#define atomic_inc(a)		((void)((a)->counter++))
#endif
#ifndef atomic_dec_and_test
#define atomic_dec_and_test(a)	(--(a)->counter == 0)
#endif
#ifndef wake_up_var
#define wake_up_var(var)	((void)(var))
#endif
/* excl.c: its grace periods and idle work (one thread: nothing to wait) */
static inline unsigned long get_state_synchronize_rcu(void) { return 0; }
static inline void cond_synchronize_rcu(unsigned long cookie) { (void)cookie; }
struct workqueue_struct;
#define system_wq		((struct workqueue_struct *)NULL)
#define to_delayed_work(w)	container_of(w, struct delayed_work, work)
#define INIT_DELAYED_WORK(w, f)	((w)->work.pending = 0, (w)->work.func = (f))
static inline bool mod_delayed_work(struct workqueue_struct *wq,
				    struct delayed_work *w, unsigned long d)
{
	(void)wq; (void)d;
	w->work.pending = 1;
	return true;
}
static inline bool cancel_delayed_work_sync(struct delayed_work *w)
{
	w->work.pending = 0;
	return true;
}
static inline void mutex_destroy(struct mutex *m) { (void)m; }

/* pr.c's keyed hashes of names: any hash will do, with a fixed key */
#include <ctype.h>
typedef struct { u64 key[2]; } siphash_key_t;
static inline u64 siphash(const void *data, size_t len,
			  const siphash_key_t *key)
{
	const u8 *p = data;
	u64 h = key->key[0] ^ 0xcbf29ce484222325ULL;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h ^ key->key[1];
}
static inline void get_random_bytes(void *buf, size_t n)
{
	memset(buf, 0x5a, n);
}

#endif /* UT_KERNEL_H */
