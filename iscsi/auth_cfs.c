// SPDX-License-Identifier: GPL-2.0
/*
 * The files of every auth/ directory of tcmx_iscsi (a TPG's, a node
 * ACL's, discovery_auth/): CHAP credentials, "NULL" clears one, at most
 * 255 bytes, shown with a newline; authenticate_target is 1 while both
 * mutual credentials are set.  As the in-tree's, only CAP_SYS_ADMIN
 * reads or writes them.  Under tcmx_iscsi_cfg_mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/module.h>
#include <linux/string.h>
#include "cfs.h"

ssize_t tcmx_iscsi_auth_show(struct config_item *item, tcmx_iscsi_auth_home h,
			     size_t off, char *page)
{
	char where[8];
	ssize_t ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	ret = sysfs_emit(page, "%s\n", (char *)h(item, where, 0) + off);
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return ret;
}

ssize_t tcmx_iscsi_auth_store(struct config_item *item,
			      tcmx_iscsi_auth_home h, size_t off,
			      const char *file, const char *page, size_t count)
{
	char where[TCMX_ISCSI_NAME_LEN * 2 + 32];
	size_t len = count;
	char *field;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (len && page[len - 1] == '\n')
		len--;
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	field = (char *)h(item, where, sizeof(where)) + off;
	if (memchr(page, '\0', len) || len >= TCMX_ISCSI_AUTH_LEN) {
		mutex_unlock(&tcmx_iscsi_cfg_mutex);
		pr_err("%s/%s: at most %d bytes, no NUL\n", where, file,
		       TCMX_ISCSI_AUTH_LEN - 1);
		return -EINVAL;
	}
	if (len == 4 && !strncmp(page, "NULL", 4))
		len = 0;
	memcpy(field, page, len);
	field[len] = '\0';
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return count;
}

ssize_t tcmx_iscsi_auth_target_show(struct config_item *item,
				    tcmx_iscsi_auth_home h, char *page)
{
	struct tcmx_iscsi_auth *a;
	char where[8];
	bool mutual;

	mutex_lock(&tcmx_iscsi_cfg_mutex);
	a = h(item, where, 0);
	mutual = a->userid_mutual[0] && a->password_mutual[0];
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return sysfs_emit(page, "%d\n", mutual);
}
