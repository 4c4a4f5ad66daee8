// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * What the linked core files call from the parts of the core that the unit
 * test does not build (transport.c): commands "deferred" run at once.
 */
#include <ctype.h>
#include <dirent.h>
#include <unistd.h>
#include "ut.h"
#include "sanitize.h"

int ut_defers;
int ut_itl_lock_held, ut_itl_lock_compares;
int ut_irqs_off, ut_irqs_off_misses;
bool ut_hold_work;
struct work_struct *ut_held_work;
int ut_blocked_waits;

void ut_lock_note(const void *l, int depth)
{
	if (l == &tcmx_itl_lock)
		ut_itl_lock_held += depth;
}

enum tcmx_status tcmx_defer(struct tcmx_cmd *cmd, tcmx_execute_fn fn)
{
	ut_defers++;
	return fn(cmd);
}

/* sanitize.c: no operation time in the unit test (inject/sanitize_ms 0) */
enum tcmx_status tcmx_sanitize_begin(struct tcmx_cmd *cmd)
{
	return TCMX_GOOD;
}

enum tcmx_status tcmx_sanitize_wait(struct tcmx_cmd *cmd,
				    enum tcmx_status status)
{
	return status;
}

void tcmx_parked_abort_itl(struct tcmx_itl *itl, bool other)
{
}

void tcmx_parked_abort_dev(struct tcmx_dev *dev)
{
}

/* core.c's dbroot: pr.c keeps APTPL state under <dbroot>/pr */
char tcmx_dbroot[4096] = "/tmp";
struct workqueue_struct *tcmx_wq;
/* acl.c's, which the unit test does not build */
DEFINE_MUTEX(tcmx_acl_mutex);

struct file *filp_open(const char *name, int flags, unsigned short mode)
{
	struct file *f = malloc(sizeof(*f));

	if (!f)
		return ERR_PTR(-ENOMEM);
	f->fd = open(name, flags, mode);
	if (f->fd < 0) {
		int err = -errno;

		free(f);
		return ERR_PTR(err);
	}
	return f;
}

ssize_t kernel_write(struct file *f, const void *buf, size_t n, loff_t *pos)
{
	ssize_t ret = pwrite(f->fd, buf, n, *pos);

	if (ret < 0)
		return -errno;
	*pos += ret;
	return ret;
}

void fput(struct file *f)
{
	close(f->fd);
	free(f);
}

int kern_path(const char *name, unsigned int flags, struct path *path)
{
	DIR *d;

	/* only directories are looked up */
	if (!(flags & LOOKUP_DIRECTORY))
		return -EINVAL;
	d = opendir(name);
	if (!d)
		return -errno;
	closedir(d);
	return 0;
}

char *kasprintf(gfp_t gfp, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

char *kmemdup_nul(const char *s, size_t len, gfp_t gfp)
{
	char *d = malloc(len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

char *strim(char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

char *strnstr(const char *s, const char *find, size_t len)
{
	size_t n = strlen(find);

	for (; len >= n; s++, len--)
		if (!memcmp(s, find, n))
			return (char *)s;
	return NULL;
}

static int ut_kstrtoull(const char *s, unsigned int base, u64 max, u64 *res)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	if (errno || v > max)
		return -ERANGE;
	*res = v;
	return 0;
}

int kstrtou64(const char *s, unsigned int base, u64 *res)
{
	return ut_kstrtoull(s, base, UINT64_MAX, res);
}

int kstrtou16(const char *s, unsigned int base, u16 *res)
{
	u64 v;
	int ret = ut_kstrtoull(s, base, 0xffff, &v);

	if (!ret)
		*res = v;
	return ret;
}

int kstrtou8(const char *s, unsigned int base, u8 *res)
{
	u64 v;
	int ret = ut_kstrtoull(s, base, 0xff, &v);

	if (!ret)
		*res = v;
	return ret;
}

int kstrtobool(const char *s, bool *res)
{
	if (!strcmp(s, "1") || !strcmp(s, "y") || !strcmp(s, "Y")) {
		*res = true;
		return 0;
	}
	if (!strcmp(s, "0") || !strcmp(s, "n") || !strcmp(s, "N")) {
		*res = false;
		return 0;
	}
	return -EINVAL;
}

ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size);

	if (n == size) {
		if (size) {
			memcpy(dst, src, size - 1);
			dst[size - 1] = '\0';
		}
		return -E2BIG;
	}
	memcpy(dst, src, n + 1);
	return n;
}

/*
 * pr_aptpl_file.c's stand-ins: the directory is <tcmx_dbroot>/pr at each
 * use (the test changes dbroot); the open and the rename are the system's.
 */
int pr_aptpl_dir_pin(struct tcmx_core_dev *cd)
{
	char dir[4200];
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/pr", tcmx_dbroot);
	d = opendir(dir);
	if (!d)
		return -errno;
	closedir(d);
	return 0;
}

void pr_aptpl_dir_unpin(struct tcmx_core_dev *cd)
{
}

struct file *pr_aptpl_open(struct tcmx_core_dev *cd, const char *name)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/pr/%s", tcmx_dbroot, name);
	return filp_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW,
			 0600);
}

int pr_aptpl_rename(struct tcmx_core_dev *cd, const char *from,
		    const char *to)
{
	char a[4400], b[4400];

	snprintf(a, sizeof(a), "%s/pr/%s", tcmx_dbroot, from);
	snprintf(b, sizeof(b), "%s/pr/%s", tcmx_dbroot, to);
	return rename(a, b) ? -errno : 0;
}

int vfs_fsync(struct file *f, int datasync)
{
	return fsync(f->fd) ? -errno : 0;
}
