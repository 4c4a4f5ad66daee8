// SPDX-License-Identifier: GPL-2.0
/*
 * Reservations that persist through a power loss: APTPL (or
 * force_pr_aptpl) keeps the state in <dbroot>/pr/aptpl_<unit
 * serial>, rewritten after each change while active, in the in-tree
 * format that rtslib reads back into pr/res_aptpl_metadata when it
 * creates the device again; a restored registration waits there for its
 * LUN to be linked.
 *
 * A PERSISTENT RESERVE OUT that may change the state opens the file
 * (pr_aptpl_file.c: relative to the pinned directory, without following
 * links) before it changes anything: a state that could not be saved is
 * not made.  The text is taken under the PR lock, and written and renamed
 * into place after the device's locks are dropped, under pr_file_mutex
 * alone, which keeps the writers in order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "pr.h"

#define PR_APTPL_NONE	"No Registrations or Reservations"
#define PR_APTPL_ENTRY	1024	/* one registration's text, at most */
#define PR_SAVED_MAX	1024	/* restored registrations waiting */
#define PR_NAME_MAX	256
#define PR_SID_LEN	17	/* 6 bytes in hex (12), up to 16 digits */

/* a registration pr/res_aptpl_metadata restored, waiting for its nexus */
struct tcmx_pr_saved {
	struct list_head	node;		/* cd->pr_saved */
	u64			key;
	u64			mapped_lun;
	u64			target_lun;
	u16			tpgt;
	u8			type;		/* reservation held: its type */
	bool			all_tg_pt;
	char			i_fabric[PR_NAME_MAX];
	char			i_port[PR_NAME_MAX];
	char			i_sid[PR_SID_LEN];	/* the ISID, in hex */
	char			t_fabric[PR_NAME_MAX];
	char			t_port[PR_NAME_MAX];
};

/* Can the unit serial name the file?  One dmesg line if not. */
static bool pr_aptpl_serial_ok(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	const char *serial = cd->t10.unit_serial;

	if (serial[0] && !strchr(serial, '/'))
		return true;
	pr_err("%s: APTPL: unit serial \"%s\" cannot name a file\n",
	       tcmx_dev_name(dev), serial);
	return false;
}

/* pr_mutex held: the registrations and the reservation, as text */
static size_t pr_aptpl_text(struct tcmx_dev *dev, char *buf, size_t size)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg;
	size_t len = 0;
	int n = 0;

	list_for_each_entry(reg, &cd->pr_regs, node) {
		struct tcmx_tpg *tpg = reg->lun->tpg;
		char name[PR_NAME_MAX];

		/*
		 * the TPG's nexus for a nexus_per_tpg fabric, read once: a
		 * name changing meanwhile stays in its bounds
		 */
		if (pr_per_tpg(reg->lun))
			pr_nexus_copy(reg->lun, name, sizeof(name));
		else
			strscpy(name, reg->name, sizeof(name));
		len += scnprintf(buf + len, size - len,
				 "PR_REG_START: %d\ninitiator_fabric=%s\ninitiator_node=%s\n",
				 n, tpg->ops->name, name);
		/* the ISID, after ",i,0x" */
		if (strlen(reg->port_id) > 5)
			len += scnprintf(buf + len, size - len,
					 "initiator_sid=%s\n", reg->port_id + 5);
		len += scnprintf(buf + len, size - len, "sa_res_key=%llu\n",
				 (unsigned long long)reg->key);
		if (reg == cd->pr_holder)
			len += scnprintf(buf + len, size - len,
					 "res_holder=1\nres_type=%02x\nres_scope=00\n",
					 cd->pr_type);
		else
			len += scnprintf(buf + len, size - len,
					 "res_holder=0\n");
		len += scnprintf(buf + len, size - len,
				 "res_all_tg_pt=%d\nmapped_lun=%llu\ntarget_fabric=%s\ntarget_node=%s\ntpgt=%u\nport_rtpi=%u\ntarget_lun=%llu\nPR_REG_END: %d\n",
				 reg->all_tg_pt,
				 (unsigned long long)reg->mapped_lun,
				 tpg->ops->name, tcmx_wwn_name(tpg->wwn),
				 tpg->tag, reg->lun->rtpi,
				 (unsigned long long)reg->lun->index, n);
		n++;
	}
	if (!n)
		len = scnprintf(buf, size, PR_APTPL_NONE);
	return len;
}

/* the file's name, or its temporary one's */
static int pr_aptpl_name(struct tcmx_dev *dev, char *buf, size_t size,
			 bool tmp)
{
	int n = snprintf(buf, size, "aptpl_%s%s",
			 tcmx_core(dev)->t10.unit_serial, tmp ? ".tmp" : "");

	return n < size ? 0 : -ENAMETOOLONG;
}

int pr_aptpl_begin(struct tcmx_dev *dev, struct pr_aptpl_save *s)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_lun *lun;
	char name[PR_NAME_MAX];
	int ret;

	s->size = PR_APTPL_ENTRY;
	/* a registration per LUN at most, after the change too */
	list_for_each_entry(lun, &cd->luns, dev_node)
		s->size += PR_APTPL_ENTRY;
	if (!pr_aptpl_serial_ok(dev))
		return -EINVAL;
	ret = pr_aptpl_name(dev, name, sizeof(name), true);
	if (!ret)
		ret = pr_aptpl_dir_pin(cd);
	if (ret) {
		pr_err("%s: APTPL: no directory %s/pr to keep the state in: %d\n",
		       tcmx_dev_name(dev), tcmx_dbroot, ret);
		return ret;
	}
	s->buf = kvmalloc(s->size, GFP_KERNEL);
	if (!s->buf)
		return -ENOMEM;
	s->file = pr_aptpl_open(cd, name);
	if (IS_ERR(s->file)) {
		ret = PTR_ERR(s->file);
		s->file = NULL;
		kvfree(s->buf);
		s->buf = NULL;
		pr_err("%s: APTPL: cannot open %s/pr/%s: %d\n",
		       tcmx_dev_name(dev), tcmx_dbroot, name, ret);
	}
	return ret;
}

void pr_aptpl_text_set(struct tcmx_dev *dev, struct pr_aptpl_save *s)
{
	if (tcmx_core(dev)->pr_aptpl)
		s->len = pr_aptpl_text(dev, s->buf, s->size);
	else
		s->len = scnprintf(s->buf, s->size, PR_APTPL_NONE "\n");
}

int pr_aptpl_end(struct tcmx_dev *dev, struct pr_aptpl_save *s, bool commit)
{
	char from[PR_NAME_MAX], to[PR_NAME_MAX];
	loff_t pos = 0;
	ssize_t ret = 0;

	if (!s->file)
		return 0;
	if (commit) {
		ret = kernel_write(s->file, s->buf, s->len, &pos);
		if (ret >= 0)
			ret = ret == s->len ? vfs_fsync(s->file, 0) : -EIO;
	}
	fput(s->file);
	s->file = NULL;
	kvfree(s->buf);
	s->buf = NULL;
	if (!commit)
		return 0;
	if (!ret)
		ret = pr_aptpl_name(dev, from, sizeof(from), true) ?:
		      pr_aptpl_name(dev, to, sizeof(to), false) ?:
		      pr_aptpl_rename(tcmx_core(dev), from, to);
	if (ret)
		pr_err("%s: APTPL: cannot save the state in %s/pr: %zd\n",
		       tcmx_dev_name(dev), tcmx_dbroot, ret);
	return ret;
}

static int pr_saved_str(char *dst, const char *val)
{
	return strscpy(dst, val, PR_NAME_MAX) < 0 ? -EINVAL : 0;
}

/* one key=value of a registration's metadata into @s */
static int pr_saved_field(struct tcmx_pr_saved *s, const char *name,
			  const char *val, bool *holder)
{
	int ret = 0;

	if (!strcmp(name, "initiator_fabric"))
		ret = pr_saved_str(s->i_fabric, val);
	else if (!strcmp(name, "initiator_node"))
		ret = pr_saved_str(s->i_port, val);
	else if (!strcmp(name, "initiator_sid"))
		ret = strscpy(s->i_sid, val, sizeof(s->i_sid)) < 0 ?
		      -EINVAL : 0;			/* the ISID */
	else if (!strcmp(name, "sa_res_key"))
		ret = kstrtou64(val, 10, &s->key);
	else if (!strcmp(name, "res_holder"))
		ret = kstrtobool(val, holder);
	else if (!strcmp(name, "res_type"))
		ret = kstrtou8(val, 16, &s->type);
	else if (!strcmp(name, "res_scope"))
		ret = strcmp(val, "0") && strcmp(val, "00") ? -EINVAL : 0;
	else if (!strcmp(name, "res_all_tg_pt"))
		ret = kstrtobool(val, &s->all_tg_pt);
	else if (!strcmp(name, "mapped_lun"))
		ret = kstrtou64(val, 10, &s->mapped_lun);
	else if (!strcmp(name, "target_fabric"))
		ret = pr_saved_str(s->t_fabric, val);
	else if (!strcmp(name, "target_node"))
		ret = pr_saved_str(s->t_port, val);
	else if (!strcmp(name, "tpgt"))
		ret = kstrtou16(val, 10, &s->tpgt);
	else if (!strcmp(name, "port_rtpi"))
		ret = kstrtou16(val, 10, &(u16){ 0 });	/* a new one comes */
	else if (!strcmp(name, "target_lun"))
		ret = kstrtou64(val, 10, &s->target_lun);
	else
		ret = -EINVAL;
	return ret;
}

/* parse one registration (comma-separated key=value, as rtslib writes) */
static int pr_saved_parse(struct tcmx_dev *dev, struct tcmx_pr_saved *s,
			  char *text)
{
	bool holder = false;
	char *tok, *eq;
	int ret;

	while ((tok = strsep(&text, ",\n")) != NULL) {
		tok = strim(tok);
		eq = strchr(tok, '=');
		/* rtslib passes along PR_REG_START/END's record numbers */
		if (!eq)
			continue;
		*eq = '\0';
		ret = pr_saved_field(s, tok, eq + 1, &holder);
		if (ret) {
			pr_err("%s: pr/res_aptpl_metadata: bad %.*s=%.*s: %d\n",
			       tcmx_dev_name(dev), TCMX_CFS_ECHO, tok,
			       TCMX_CFS_ECHO, eq + 1, ret);
			return -EINVAL;
		}
	}
	if (!s->i_port[0] || !s->t_port[0] || !s->key) {
		pr_err("%s: pr/res_aptpl_metadata: need initiator_node, target_node and a non-zero sa_res_key\n",
		       tcmx_dev_name(dev));
		return -EINVAL;
	}
	if (!holder) {
		s->type = 0;
	} else if (!pr_type_valid(s->type)) {
		pr_err("%s: pr/res_aptpl_metadata: bad reservation type %#x\n",
		       tcmx_dev_name(dev), s->type);
		return -EINVAL;
	}
	return 0;
}

/*
 * pr/res_aptpl_metadata: a registration the device had when APTPL saved
 * it (rtslib writes one per write, from <dbroot>/pr/aptpl_<serial>, after
 * it created the device and before it links LUNs).  Kept until the LUN
 * that is its target port (target port name, TPG tag and LUN) is linked;
 * then it is registered for its initiator port (name and ISID; for a
 * fabric with a nexus per TPG, the TPG's nexus), with its reservation,
 * and APTPL is active again.
 */
ssize_t tcmx_pr_aptpl_metadata(struct tcmx_dev *dev, const char *page,
			       size_t count)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_saved *s;
	char *copy, *text;
	int ret;

	/* a NUL would end the text early: what follows it is not read */
	if (memchr(page, '\0', count)) {
		pr_err("%s: pr/res_aptpl_metadata: a NUL byte in the metadata\n",
		       tcmx_dev_name(dev));
		return -EINVAL;
	}
	copy = kmemdup_nul(page, count, GFP_KERNEL);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!copy || !s) {
		ret = -ENOMEM;
		goto out;
	}
	text = strim(copy);
	/* rtslib writes nothing but whitespace when there is no metadata */
	if (!*text) {
		ret = 0;
		goto out;
	}
	if (!READ_ONCE(dev->attrib.emulate_pr)) {
		pr_err("%s: pr/res_aptpl_metadata: emulate_pr is 0\n",
		       tcmx_dev_name(dev));
		ret = -EINVAL;
		goto out;
	}
	ret = pr_saved_parse(dev, s, text);
	if (ret)
		goto out;

	mutex_lock(&cd->lock);
	mutex_lock(&cd->pr_mutex);
	if (cd->export_count) {
		pr_err("%s: pr/res_aptpl_metadata: only while no LUN links the device\n",
		       tcmx_dev_name(dev));
		ret = -EBUSY;
	} else if (cd->pr_saved_count >= PR_SAVED_MAX) {
		pr_err("%s: pr/res_aptpl_metadata: %u registrations wait already\n",
		       tcmx_dev_name(dev), cd->pr_saved_count);
		ret = -ENOSPC;
	} else {
		list_add_tail(&s->node, &cd->pr_saved);
		cd->pr_saved_count++;
		s = NULL;
	}
	mutex_unlock(&cd->pr_mutex);
	mutex_unlock(&cd->lock);
out:
	kfree(s);
	kfree(copy);
	return ret ?: count;
}

static bool pr_saved_matches(struct tcmx_pr_saved *s, struct tcmx_lun *lun)
{
	struct tcmx_tpg *tpg = lun->tpg;

	return !strcmp(s->t_port, tcmx_wwn_name(tpg->wwn)) &&
	       (!s->i_fabric[0] || !strcmp(s->i_fabric, tpg->ops->name)) &&
	       (!s->t_fabric[0] || !strcmp(s->t_fabric, tpg->ops->name)) &&
	       s->tpgt == tpg->tag && s->target_lun == lun->index;
}

void tcmx_pr_lun_linked(struct tcmx_lun *lun)
{
	struct tcmx_dev *dev = lun->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_saved *s, *tmp;
	char port_id[TCMX_PORT_ID_LEN];
	struct tcmx_pr_reg *reg;

	mutex_lock(&cd->pr_mutex);
	list_for_each_entry_safe(s, tmp, &cd->pr_saved, node) {
		if (!pr_saved_matches(s, lun))
			continue;
		list_del(&s->node);
		cd->pr_saved_count--;
		reg = kzalloc(sizeof(*reg), GFP_KERNEL);
		if (!reg) {
			pr_err("%s: APTPL: no memory to restore a registration\n",
			       tcmx_dev_name(dev));
			kfree(s);
			continue;
		}
		snprintf(port_id, sizeof(port_id), "%s%s",
			 s->i_sid[0] ? ",i,0x" : "", s->i_sid);
		pr_reg_set_id(reg, lun, s->mapped_lun, s->i_port, port_id);
		reg->key = s->key;
		reg->all_tg_pt = s->all_tg_pt;
		INIT_LIST_HEAD(&reg->node);
		pr_state_lock(cd);
		if (pr_find(dev, lun, reg->name, reg->port_id)) {
			kfree(reg);
		} else {
			reg->generation = cd->pr_generation;
			pr_reg_attach(cd, reg);
			if (s->type && !cd->pr_holder && !cd->spc2_holder) {
				cd->pr_holder = reg;
				cd->pr_type = s->type;
			}
			pr_update_gate(dev);
		}
		pr_state_unlock(cd);
		cd->pr_aptpl = true;
		kfree(s);
	}
	mutex_unlock(&cd->pr_mutex);
}

void tcmx_pr_dev_free(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_saved *s, *tmp;

	pr_aptpl_dir_unpin(cd);

	list_for_each_entry_safe(s, tmp, &cd->pr_saved, node)
		kfree(s);
	INIT_LIST_HEAD(&cd->pr_saved);
	cd->pr_saved_count = 0;
}
