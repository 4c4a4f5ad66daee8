// SPDX-License-Identifier: GPL-2.0
/*
 * The APTPL file's VFS side: the directory <dbroot>/pr, pinned once
 * (when the device is created, from the configuring process, or else at
 * its first use), and the file opened and renamed relative to it only.
 * The open does not follow a symbolic link (O_NOFOLLOW), and the state
 * is written to aptpl_<serial>.tmp and renamed over aptpl_<serial>, so
 * that the file holds one state or the next, never a part of one; a link
 * in place of the file is replaced, never followed.  pr_aptpl.c decides
 * what and when; the unit test has stand-ins for these.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/slab.h>
#include "compat.h"
#include "pr.h"

int pr_aptpl_dir_pin(struct tcmx_core_dev *cd)
{
	char *dir;
	int ret;

	if (cd->pr_dir_pinned)
		return 0;
	dir = kasprintf(GFP_KERNEL, "%s/pr", tcmx_dbroot);
	if (!dir)
		return -ENOMEM;
	ret = kern_path(dir, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &cd->pr_dir);
	kfree(dir);
	if (!ret)
		cd->pr_dir_pinned = true;
	return ret;
}

void pr_aptpl_dir_unpin(struct tcmx_core_dev *cd)
{
	if (cd->pr_dir_pinned)
		path_put(&cd->pr_dir);
	cd->pr_dir_pinned = false;
}

struct file *pr_aptpl_open(struct tcmx_core_dev *cd, const char *name)
{
	return file_open_root(&cd->pr_dir, name,
			      O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
}

int pr_aptpl_rename(struct tcmx_core_dev *cd, const char *from,
		    const char *to)
{
	struct dentry *dir = cd->pr_dir.dentry, *old, *new;
	struct renamedata rd = { };
	int ret;

	ret = mnt_want_write(cd->pr_dir.mnt);
	if (ret)
		return ret;
	lock_rename(dir, dir);		/* one directory: its lock */
	old = lookup_one_len(from, dir, strlen(from));
	ret = PTR_ERR_OR_ZERO(old);
	if (ret)
		goto unlock;
	new = lookup_one_len(to, dir, strlen(to));
	ret = PTR_ERR_OR_ZERO(new);
	if (ret)
		goto put_old;
	if (d_really_is_negative(old))
		ret = -ENOENT;
	else if (d_is_dir(new))
		ret = -EISDIR;
	if (ret)
		goto put_new;
	rd.old_dir = d_inode(dir);
	rd.old_dentry = old;
	rd.new_dir = d_inode(dir);
	rd.new_dentry = new;
	TCMX_RENAMEDATA_IDMAP(&rd, cd->pr_dir.mnt);
	ret = vfs_rename(&rd);
put_new:
	dput(new);
put_old:
	dput(old);
unlock:
	unlock_rename(dir, dir);
	mnt_drop_write(cd->pr_dir.mnt);
	return ret;
}
