// SPDX-License-Identifier: GPL-2.0
/*
 * The I_T nexuses a PERSISTENT RESERVE OUT names (pr_out.c), found before
 * the state lock is taken: TransportIDs, the initiator ports they name
 * (an iSCSI name, with or without ISID; a SAS or FC address for a fabric
 * with one nexus per TPG), and which of them have an I_T nexus through
 * which target port of the device.  A TransportID with an ISID names
 * that port of the initiator, one without every port of the name.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "compat.h"
#include <scsi/scsi_proto.h>
#include "pr.h"

/*
 * The initiator port a TransportID names (@len bytes at @tid, checked by
 * pr_tid_len()): an iSCSI name, and with format 01b its ",i,0x<ISID>";
 * a SAS or FC TransportID names no iSCSI port ("").
 */
static void pr_tid_ident(const u8 *tid, u32 len, struct pr_ident *id)
{
	const char *name = (const char *)tid + PRI_TID_ISCSI_HDR;
	size_t n = strnlen(name, len - PRI_TID_ISCSI_HDR);
	const char *sep = strnstr(name, ",i,0x", n);
	char *p;

	id->name[0] = '\0';
	id->port_id[0] = '\0';
	if ((tid[0] & 0x0f) != 0x05)
		return;
	if (sep) {
		if (tid[0] & 0x40) {
			strscpy(id->port_id, sep,
				min_t(size_t, sizeof(id->port_id),
				      n - (sep - name) + 1));
			/* the ISID's hex in lower case, as a session's */
			for (p = id->port_id; *p; p++)
				*p = tolower(*p);
		}
		n = sep - name;
	}
	strscpy(id->name, name, min_t(size_t, sizeof(id->name), n + 1));
}

void pr_nx_ident(const struct pr_out *o, const struct pr_nx *nx,
			struct pr_ident *id)
{
	if (nx->tid != PR_NX_SELF && nx->tid != PR_NX_SELF_NAME) {
		pr_tid_ident(o->tids + nx->tid, o->tids_len - nx->tid, id);
		return;
	}
	strscpy(id->name, o->name, sizeof(id->name));
	strscpy(id->port_id, nx->tid == PR_NX_SELF ? o->port_id : "",
		sizeof(id->port_id));
}

/* The length of the TransportID at @p (@len bytes left), or 0 if bad. */
static u32 pr_tid_len(const u8 *p, u32 len)
{
	u32 n;

	if (len < PRI_TID_ISCSI_HDR)
		return 0;
	switch (p[0] & 0xcf) {		/* FORMAT CODE and PROTOCOL IDENTIFIER */
	case 0x00:			/* Fibre Channel */
	case 0x06:			/* SAS */
		return len >= PRI_TID_NAA_LEN ? PRI_TID_NAA_LEN : 0;
	case 0x05:			/* iSCSI name */
	case 0x45:			/* iSCSI name and ISID */
		n = PRI_TID_ISCSI_HDR + get_unaligned_be16(&p[2]);
		return n > PRI_TID_ISCSI_HDR && n <= len && !(n % 4) ? n : 0;
	}
	return 0;
}

/*
 * Does the TransportID @tid (@len bytes) name initiator port @name,
 * @port_id through @lun (for a nexus_per_tpg fabric: the TPG's nexus)?
 * An iSCSI one without ISID names every port of the name.
 */
static bool pr_tid_matches(struct tcmx_lun *lun, const char *name,
			   const char *port_id, const u8 *tid, u32 len)
{
	u8 own[PRI_TID_MAX];
	u32 n = pr_transport_id(lun, name, "", own);
	struct pr_ident id;

	if (len < PRI_TID_ISCSI_HDR || (tid[0] & 0x0f) != (own[0] & 0x0f))
		return false;
	if ((own[0] & 0x0f) != 0x05)			/* SAS, FC: 24 bytes */
		return len >= n && !memcmp(own, tid, n);
	/* iSCSI: the name, case aside; the ISID if the TransportID has one */
	pr_tid_ident(tid, len, &id);
	if (strcasecmp(id.name, (const char *)own + PRI_TID_ISCSI_HDR))
		return false;
	return pr_per_tpg(lun) || !id.port_id[0] ||
	       !strcasecmp(id.port_id, port_id);
}

/*
 * cd->lock and pr_mutex held: the lowest number a node ACL of @lun's TPG
 * whose name @named accepts (with @arg) maps @lun as, into *@mapped; false
 * if none maps it.  Its initiator reaches @lun as soon as it logs in, so a
 * registration made for it waits for its I_T nexus, as an APTPL one does
 * (in-tree, SPEC_I_PT, ALL_TG_PT and REGISTER AND MOVE look node ACLs up,
 * not sessions).  Under tcmx_acl_mutex, not tcmx_cfs_mutex: a LUN's unlink
 * holds that while it drains this very command.
 */
typedef bool (*pr_acl_named_fn)(struct tcmx_lun *lun, const char *name,
				const void *arg);

static bool pr_acl_maps(struct tcmx_lun *lun, pr_acl_named_fn named,
			const void *arg, u64 *mapped)
{
	struct tcmx_mapped_lun *m;
	struct tcmx_acl *acl;
	unsigned long id;
	bool found = false;

	mutex_lock(&tcmx_acl_mutex);
	list_for_each_entry(acl, &lun->tpg->acls, node) {
		if (!named(lun, tcmx_acl_name(acl), arg))
			continue;
		xa_for_each(&acl->mapped, id, m)
			if (READ_ONCE(m->lun) == lun) {
				*mapped = id;
				found = true;
				break;
			}
		if (found)
			break;
	}
	mutex_unlock(&tcmx_acl_mutex);
	return found;
}

/* a TransportID and the initiator port it names, for pr_acl_maps() */
struct pr_acl_tid {
	const u8		*tid;
	u32			len;
	struct pr_ident		id;
};

/* the TransportID names an initiator port of node ACL @name (any ISID) */
static bool pr_acl_tid_names(struct tcmx_lun *lun, const char *name,
			     const void *arg)
{
	const struct pr_acl_tid *t = arg;

	return pr_tid_matches(lun, name, t->id.port_id, t->tid, t->len);
}

/* node ACL @name is the sending initiator port's */
static bool pr_acl_is_sender(struct tcmx_lun *lun, const char *name,
			     const void *arg)
{
	const struct pr_out *o = arg;

	return !strcmp(name, o->name);
}

/*
 * cd->lock and pr_mutex held: does an I_T nexus through @lun have the
 * initiator port the TransportID at @tid names, or a node ACL of its name
 * map @lun?  Its mapped LUN into *@mapped.  cd->itls changes only under
 * pr_mutex too (pr.c), and an I_T_L nexus's initiator port stays
 * registered while it is on the list, so the walk takes no spinlock: the
 * compares run with interrupts on.
 */
static bool pr_tid_reaches(struct tcmx_lun *lun, const u8 *tid, u32 len,
			   u64 *mapped)
{
	struct tcmx_core_dev *cd = tcmx_core(lun->dev);
	struct pr_acl_tid t = { tid, len };
	struct tcmx_itl *itl;

	lockdep_assert_held(&cd->pr_mutex);
	*mapped = lun->index;
	if (pr_per_tpg(lun))
		return pr_tid_matches(lun, "", "", tid, len);
	list_for_each_entry(itl, &cd->itls, dev_node) {
		if (itl->lun != lun ||
		    !pr_tid_matches(lun, itl->nexus->name, itl->nexus->port_id,
				    tid, len))
			continue;
		*mapped = itl->id;
		return true;
	}
	if (len < PRI_TID_ISCSI_HDR)
		return false;
	pr_tid_ident(tid, len, &t.id);
	return pr_acl_maps(lun, pr_acl_tid_names, &t, mapped);
}

/*
 * cd->lock and pr_mutex held: does a node ACL of the sending initiator
 * port's name, of the same fabric, map @lun, or else does that port have
 * an I_T nexus through @lun?  Into *@nx: @lun, its mapped LUN, and whose
 * identity it registers.  In-tree (__core_scsi3_alloc_registration())
 * registers the ports a node ACL maps without ISID: every port of the
 * name (PR_NX_SELF_NAME); one only a session reaches (demo mode), which
 * in-tree skips, is the sender's very port.  The walk as above.
 */
static bool pr_port_reaches(struct tcmx_cmd *cmd, struct pr_out *o,
			    struct tcmx_lun *lun, struct pr_nx *nx)
{
	struct tcmx_core_dev *cd = tcmx_core(lun->dev);
	struct tcmx_itl *itl;

	lockdep_assert_held(&cd->pr_mutex);
	*nx = (struct pr_nx){ lun, lun->index, PR_NX_SELF };
	if (pr_per_tpg(lun))
		return lun->tpg->ops == cmd->lun->tpg->ops &&
		       !strcmp(pr_nexus_name(lun), pr_nexus_name(cmd->lun));
	if (lun->tpg->ops == cmd->lun->tpg->ops &&
	    pr_acl_maps(lun, pr_acl_is_sender, o, &nx->mapped)) {
		nx->tid = PR_NX_SELF_NAME;
		return true;
	}
	list_for_each_entry(itl, &cd->itls, dev_node) {
		if (itl->lun != lun || strcmp(itl->nexus->name, o->name) ||
		    strcmp(itl->nexus->port_id, o->port_id))
			continue;
		nx->mapped = itl->id;
		return true;
	}
	return false;
}

/* cd->lock held: the I_T nexus through relative port @rtpi @tid names */
static void pr_find_nexus(struct tcmx_dev *dev, struct pr_out *o, u16 rtpi)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_lun *lun;

	list_for_each_entry(lun, &cd->luns, dev_node)
		if (lun->rtpi == rtpi &&
		    pr_tid_reaches(lun, o->tids, o->tids_len,
				   &o->move_to.mapped)) {
			o->move_to.lun = lun;
			o->move_to.tid = 0;
			return;
		}
}

/* How many TransportIDs @o has, up to the first bad one. */
static u32 pr_out_count_tids(struct pr_out *o)
{
	u32 off = 0, n, count = 0;

	while (off < o->tids_len) {
		n = pr_tid_len(o->tids + off, o->tids_len - off);
		if (!n)
			break;
		count++;
		off += n;
	}
	return count;
}

/*
 * An iSCSI TransportID without ISID (format 00b) names every port of the
 * name; with enforce_pr_isids (the default) SPEC_I_PT refuses one from
 * an initiator port that has an ISID itself (an iSCSI one), as in-tree.
 * With it off, such a TransportID registers every port of the name.
 */
static bool pr_tid_isid_missing(struct tcmx_cmd *cmd, const struct pr_out *o,
				const u8 *tid)
{
	return cmd->dev->attrib.enforce_pr_isids && o->port_id[0] &&
	       (tid[0] & 0xcf) == 0x05;
}

/* cd->lock held: the I_T nexuses to @dev that @o's TransportIDs name */
static void pr_out_tids(struct tcmx_cmd *cmd, struct pr_out *o, u32 max)
{
	struct tcmx_core_dev *cd = tcmx_core(cmd->dev);
	struct tcmx_lun *lun;
	u32 off = 0, n;
	bool found;
	u64 mapped;

	while (off < o->tids_len) {
		n = pr_tid_len(o->tids + off, o->tids_len - off);
		if (n && pr_tid_isid_missing(cmd, o, o->tids + off)) {
			o->tid_bad = off;
			return;
		}
		found = false;
		list_for_each_entry(lun, &cd->luns, dev_node) {
			if (!n || (!o->all_tg_pt && lun != cmd->lun) ||
			    !pr_tid_reaches(lun, o->tids + off, n, &mapped))
				continue;
			found = true;
			if (o->nnamed < max)
				o->named[o->nnamed++] =
					(struct pr_nx){ lun, mapped, off };
		}
		if (!found) {
			o->tid_bad = off;
			return;
		}
		off += n;
		/* up to ~1000 TransportIDs, each a walk: let others run */
		cond_resched();
	}
}

/*
 * cd->lock and pr_mutex held, before the state lock: what the service
 * action will need of names and TransportIDs (struct pr_out); false
 * without memory.
 */
bool pr_out_match(struct tcmx_cmd *cmd, struct pr_out *o,
			 const u8 *p)
{
	struct tcmx_core_dev *cd = tcmx_core(cmd->dev);
	struct tcmx_lun *lun;
	u32 nluns = 0, max;
	u8 sa = cmd->desc->sa;

	o->tid_bad = PR_TID_OK;
	if (sa == PRO_REGISTER_AND_MOVE) {
		pr_find_nexus(cmd->dev, o, get_unaligned_be16(&p[18]));
		return true;
	}
	if (sa != PRO_REGISTER && sa != PRO_REGISTER_IGNORE)
		return true;
	list_for_each_entry(lun, &cd->luns, dev_node)
		nluns++;
	/* a TransportID names one nexus per target port at most */
	max = pr_out_count_tids(o) * (o->all_tg_pt ? nluns : 1);
	o->port = kvcalloc(nluns, sizeof(*o->port), GFP_KERNEL);
	o->named = kvcalloc(max ?: 1, sizeof(*o->named), GFP_KERNEL);
	if (!o->port || !o->named)
		return false;
	list_for_each_entry(lun, &cd->luns, dev_node)
		if (lun != cmd->lun &&
		    pr_port_reaches(cmd, o, lun, &o->port[o->nport]))
			o->nport++;
	if (o->tids)
		pr_out_tids(cmd, o, max);
	return true;
}
