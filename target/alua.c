// SPDX-License-Identifier: GPL-2.0
/*
 * tcmx_core: ALUA target port groups of a device (<dev>/alua/<group>) and
 * the membership of the LUNs that export a device (<lun>/alua_tg_pt_gp).
 *
 * Every LUN linked to a device is on cd->luns (lun.c).  Locking: cd->lock
 * guards that list, each LUN's tg_pt_gp, nr_members and the groups.  The
 * fast path reads lun->tg_pt_gp->access_state under RCU only; a group is
 * freed after a grace period once no LUN points at it.
 *
 * A user group that is removed hands its LUNs back to default_tg_pt_gp (as
 * LIO does): rtslib removes a device's groups before its LUNs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <scsi/scsi_proto.h>
#include "cfs_attr.h"
#include "tcmx_core.h"
#include "device.h"

#define TCMX_ALUA_MAX_NONOP_DELAY	10000	/* ms */
#define TCMX_ALUA_MAX_TRANS_DELAY	30000	/* ms */
#define TCMX_ALUA_MAX_IMPLICIT_TRANS	255	/* s */

/* ------------------------------------------------------------------ */
/* state names                                                        */
/* ------------------------------------------------------------------ */

static const char *tcmx_alua_state_name(u8 state)
{
	const struct tcmx_alua_state *st = tcmx_alua_state(state);

	return st ? st->name : "Unknown";
}

/* rtslib maps these back to 0, 1, 2 */
static const char * const tcmx_alua_status_names[] = {
	"None", "Altered by Explicit STPG", "Altered by Implicit ALUA",
};

static const char *tcmx_alua_status_name(u8 status)
{
	return status < ARRAY_SIZE(tcmx_alua_status_names) ?
		tcmx_alua_status_names[status] : "Unknown";
}

/* rtslib maps these back to 0..3 == the access_type bits */
static const char * const tcmx_alua_type_names[] = {
	"None", "Implicit", "Explicit", "Implicit and Explicit",
};

/* ------------------------------------------------------------------ */
/* <dev>/alua/<group> attributes                                      */
/* ------------------------------------------------------------------ */

static inline struct tcmx_tg_pt_gp *to_gp(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_tg_pt_gp,
			    group);
}

/* A group has a valid ID once it is on cd->tg_pt_gps. */
static bool tcmx_gp_has_id(struct tcmx_tg_pt_gp *gp)
{
	return !list_empty(&gp->node);
}

static ssize_t tcmx_gp_alua_access_state_show(struct config_item *item,
					      char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(to_gp(item)->access_state));
}

/* An implicit (configfs-driven) transition, checked as LIO does. */
static ssize_t tcmx_gp_alua_access_state_store(struct config_item *item,
					       const char *page, size_t count)
{
	struct tcmx_tg_pt_gp *gp = to_gp(item);
	struct tcmx_dev *dev = gp->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	const struct tcmx_alua_state *st;
	const char *why = NULL;
	ssize_t ret = count;
	u32 state;

	if (tcmx_cfs_u32(page, count, &state) || !tcmx_alua_state(state)) {
		pr_err("%s: alua/%s/alua_access_state: need one of 0-4, 14, 15\n",
		       tcmx_dev_name(dev), config_item_name(item));
		return -EINVAL;
	}
	st = tcmx_alua_state(state);

	mutex_lock(&cd->lock);
	if (!(gp->supported & st->sup))
		why = "is not enabled by its alua_support_* file";
	else if (!(gp->access_type & TCMX_ALUA_IMPLICIT))
		why = "needs implicit ALUA (alua_access_type 1 or 3)";
	else if (state == SCSI_ACCESS_STATE_LBA &&
		 gp->access_type & TCMX_ALUA_EXPLICIT)
		why = "is not allowed with explicit ALUA";
	if (why) {
		pr_err("%s: alua/%s/alua_access_state: state %s %s\n",
		       tcmx_dev_name(dev), config_item_name(item), st->name,
		       why);
		ret = -EINVAL;
	} else {
		tcmx_alua_set_state(dev, gp, state, TCMX_ALUA_STATUS_IMPLICIT,
				    NULL);
	}
	mutex_unlock(&cd->lock);
	return ret;
}
CONFIGFS_ATTR(tcmx_gp_, alua_access_state);

/* The other files are fields of the group with a rule (cfs_attr.c). */
static char *tcmx_gp_home_find(struct config_item *item,
			       struct tcmx_dev **dev)
{
	struct tcmx_tg_pt_gp *gp = container_of(to_config_group(item),
						struct tcmx_tg_pt_gp, group);

	*dev = gp->dev;
	return (char *)gp;
}

static const struct tcmx_cfs_home tcmx_gp_home = {
	.dir	= "alua/",
	.find	= tcmx_gp_home_find,
};

#define TCMX_GP_FIELD(_member)						\
	TCMX_CFS_FIELD(&tcmx_gp_home, struct tcmx_tg_pt_gp, _member)

TCMX_CFS_ATTR(tcmx_gp_, alua_access_status, 0644, TCMX_GP_FIELD(access_status),
	      .kind = TCMX_CFS_NAME, .max = 2,
	      .names = tcmx_alua_status_names)
TCMX_CFS_ATTR(tcmx_gp_, alua_access_type, 0644, TCMX_GP_FIELD(access_type),
	      .kind = TCMX_CFS_NAME, .max = 3, .names = tcmx_alua_type_names)

/* alua_support_<state>: one bit of the group's supported states */
#define TCMX_GP_SUPPORT(_state, _bit)					\
	TCMX_CFS_ATTR(tcmx_gp_, alua_support_##_state, 0644,		\
		      TCMX_GP_FIELD(supported), .kind = TCMX_CFS_BIT,	\
		      .bit = TCMX_ALUA_SUP_##_bit)

TCMX_GP_SUPPORT(transitioning, TRANSITIONING)
TCMX_GP_SUPPORT(offline, OFFLINE)
TCMX_GP_SUPPORT(lba_dependent, LBA_DEPENDENT)
TCMX_GP_SUPPORT(unavailable, UNAVAILABLE)
TCMX_GP_SUPPORT(standby, STANDBY)
TCMX_GP_SUPPORT(active_nonoptimized, NONOPTIMIZED)
TCMX_GP_SUPPORT(active_optimized, OPTIMIZED)

TCMX_CFS_ATTR(tcmx_gp_, alua_write_metadata, 0644,
	      TCMX_GP_FIELD(write_metadata), .max = 1)
TCMX_CFS_ATTR(tcmx_gp_, nonop_delay_msecs, 0644,
	      TCMX_GP_FIELD(nonop_delay_msecs), .max = TCMX_ALUA_MAX_NONOP_DELAY)
TCMX_CFS_ATTR(tcmx_gp_, trans_delay_msecs, 0644,
	      TCMX_GP_FIELD(trans_delay_msecs), .max = TCMX_ALUA_MAX_TRANS_DELAY)
TCMX_CFS_ATTR(tcmx_gp_, implicit_trans_secs, 0644,
	      TCMX_GP_FIELD(implicit_trans_secs),
	      .max = TCMX_ALUA_MAX_IMPLICIT_TRANS)
TCMX_CFS_ATTR(tcmx_gp_, preferred, 0644, TCMX_GP_FIELD(preferred), .max = 1)

static ssize_t tcmx_gp_tg_pt_gp_id_show(struct config_item *item, char *page)
{
	struct tcmx_tg_pt_gp *gp = to_gp(item);
	struct tcmx_core_dev *cd = tcmx_core(gp->dev);
	ssize_t ret = 0;

	mutex_lock(&cd->lock);
	if (tcmx_gp_has_id(gp))
		ret = sysfs_emit(page, "%u\n", gp->id);
	mutex_unlock(&cd->lock);
	return ret;
}

static bool tcmx_gp_id_in_use(struct tcmx_dev *dev, u32 id)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_tg_pt_gp *gp;

	list_for_each_entry(gp, &cd->tg_pt_gps, node)
		if (gp->id == id)
			return true;
	return false;
}

/*
 * The ID is set once; it makes the group usable by LUNs.  0 picks the
 * lowest free ID (0 itself belongs to default_tg_pt_gp).
 */
static ssize_t tcmx_gp_tg_pt_gp_id_store(struct config_item *item,
					 const char *page, size_t count)
{
	struct tcmx_tg_pt_gp *gp = to_gp(item);
	struct tcmx_dev *dev = gp->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	const char *why = NULL;
	u32 id;

	if (tcmx_cfs_u32(page, count, &id) || id > U16_MAX) {
		pr_err("%s: alua/%s/tg_pt_gp_id: need a number in 0..%u\n",
		       tcmx_dev_name(dev), config_item_name(item), U16_MAX);
		return -EINVAL;
	}

	mutex_lock(&cd->lock);
	if (tcmx_gp_has_id(gp)) {
		why = "is already set";
	} else if (!id) {
		for (id = 1; id <= U16_MAX && tcmx_gp_id_in_use(dev, id); id++)
			;
		if (id > U16_MAX)
			why = "has no free value left";
	} else if (tcmx_gp_id_in_use(dev, id)) {
		why = "is used by another group";
	}
	if (!why) {
		gp->id = id;
		list_add_tail(&gp->node, &cd->tg_pt_gps);
	}
	mutex_unlock(&cd->lock);

	if (why) {
		pr_err("%s: alua/%s/tg_pt_gp_id: %u %s\n", tcmx_dev_name(dev),
		       config_item_name(item), id, why);
		return -EINVAL;
	}
	return count;
}
CONFIGFS_ATTR(tcmx_gp_, tg_pt_gp_id);

/* One "<fabric>/<wwn>/tpgt_<t>/lun_<n>" line per LUN in the group. */
static ssize_t tcmx_gp_members_show(struct config_item *item, char *page)
{
	struct tcmx_tg_pt_gp *gp = to_gp(item);
	struct tcmx_core_dev *cd = tcmx_core(gp->dev);
	struct tcmx_lun *lun;
	char line[384];
	ssize_t n = 0;
	int len;

	mutex_lock(&cd->lock);
	list_for_each_entry(lun, &cd->luns, dev_node) {
		struct tcmx_wwn *wwn = lun->tpg->wwn;

		if (lun->tg_pt_gp != gp)
			continue;
		len = scnprintf(line, sizeof(line), "%s/%s/tpgt_%u/%s\n",
				wwn->fabric->ops->name, tcmx_wwn_name(wwn),
				lun->tpg->tag,
				config_item_name(&lun->group.cg_item));
		if (n + len >= PAGE_SIZE)
			break;
		memcpy(page + n, line, len);
		n += len;
	}
	mutex_unlock(&cd->lock);
	return n;
}
CONFIGFS_ATTR_RO(tcmx_gp_, members);

static struct configfs_attribute *tcmx_gp_attrs[] = {
	&tcmx_gp_attr_alua_access_state,
	&tcmx_gp_alua_access_status.attr,
	&tcmx_gp_alua_access_type.attr,
	&tcmx_gp_alua_support_transitioning.attr,
	&tcmx_gp_alua_support_offline.attr,
	&tcmx_gp_alua_support_lba_dependent.attr,
	&tcmx_gp_alua_support_unavailable.attr,
	&tcmx_gp_alua_support_standby.attr,
	&tcmx_gp_alua_support_active_nonoptimized.attr,
	&tcmx_gp_alua_support_active_optimized.attr,
	&tcmx_gp_alua_write_metadata.attr,
	&tcmx_gp_nonop_delay_msecs.attr,
	&tcmx_gp_trans_delay_msecs.attr,
	&tcmx_gp_implicit_trans_secs.attr,
	&tcmx_gp_preferred.attr,
	&tcmx_gp_attr_tg_pt_gp_id,
	&tcmx_gp_attr_members,
	NULL,
};

/* default_tg_pt_gp: embedded in the device, never removed on its own */
static const struct config_item_type tcmx_default_gp_type = {
	.ct_attrs	= tcmx_gp_attrs,
	.ct_owner	= THIS_MODULE,
};

static void tcmx_gp_release(struct config_item *item)
{
	kfree(to_gp(item));
}

static struct configfs_item_operations tcmx_user_gp_item_ops = {
	.release	= tcmx_gp_release,
};

static const struct config_item_type tcmx_user_gp_type = {
	.ct_item_ops	= &tcmx_user_gp_item_ops,
	.ct_attrs	= tcmx_gp_attrs,
	.ct_owner	= THIS_MODULE,
};

/* ------------------------------------------------------------------ */
/* <dev>/alua: mkdir/rmdir of user groups                             */
/* ------------------------------------------------------------------ */

static void tcmx_gp_init(struct tcmx_tg_pt_gp *gp, struct tcmx_dev *dev)
{
	gp->dev = dev;
	INIT_LIST_HEAD(&gp->node);
	gp->access_type = TCMX_ALUA_IMPLICIT | TCMX_ALUA_EXPLICIT;
	gp->supported = TCMX_ALUA_SUP_TRANSITIONING |
			TCMX_ALUA_SUP_UNAVAILABLE | TCMX_ALUA_SUP_STANDBY |
			TCMX_ALUA_SUP_NONOPTIMIZED | TCMX_ALUA_SUP_OPTIMIZED;
	gp->nonop_delay_msecs = 100;
}

static struct config_group *tcmx_alua_make_gp(struct config_group *group,
					      const char *name)
{
	struct tcmx_dev *dev = &container_of(group, struct tcmx_core_dev,
					     alua_group)->dev;
	struct tcmx_tg_pt_gp *gp;

	gp = kzalloc(sizeof(*gp), GFP_KERNEL);
	if (!gp)
		return ERR_PTR(-ENOMEM);
	tcmx_gp_init(gp, dev);
	config_group_init_type_name(&gp->group, name, &tcmx_user_gp_type);
	return &gp->group;
}

static void tcmx_alua_drop_gp(struct config_group *group,
			      struct config_item *item)
{
	struct tcmx_tg_pt_gp *gp = to_gp(item);
	struct tcmx_dev *dev = gp->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_lun *lun;

	mutex_lock(&cd->lock);
	list_del_init(&gp->node);
	list_for_each_entry(lun, &cd->luns, dev_node) {
		if (lun->tg_pt_gp != gp)
			continue;
		cd->default_tg_pt_gp.nr_members++;
		WRITE_ONCE(lun->tg_pt_gp, &cd->default_tg_pt_gp);
	}
	gp->nr_members = 0;
	tcmx_alua_update_gate(dev);
	mutex_unlock(&cd->lock);

	synchronize_rcu();	/* the gate's readers of @gp (alua_cmd.c) */
	config_item_put(item);
}

static struct configfs_group_operations tcmx_alua_group_ops = {
	.make_group	= tcmx_alua_make_gp,
	.drop_item	= tcmx_alua_drop_gp,
};

static const struct config_item_type tcmx_alua_type = {
	.ct_group_ops	= &tcmx_alua_group_ops,
	.ct_owner	= THIS_MODULE,
};

void tcmx_alua_dev_init(struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_tg_pt_gp *gp = &cd->default_tg_pt_gp;

	tcmx_cfs_subdir(&dev->group, &cd->alua_group, "alua", &tcmx_alua_type);

	tcmx_gp_init(gp, dev);
	gp->id = 0;
	list_add_tail(&gp->node, &cd->tg_pt_gps);
	tcmx_cfs_subdir(&cd->alua_group, &gp->group, "default_tg_pt_gp",
			&tcmx_default_gp_type);
}

/* ------------------------------------------------------------------ */
/* LUN export accounting: group membership                            */
/* ------------------------------------------------------------------ */

/* A LUN starts exporting @dev in its default group; cd->lock held. */
void tcmx_alua_lun_join(struct tcmx_lun *lun, struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	lockdep_assert_held(&cd->lock);
	cd->default_tg_pt_gp.nr_members++;
	WRITE_ONCE(lun->tg_pt_gp, &cd->default_tg_pt_gp);
}

/* The LUN is drained and stops exporting @dev; cd->lock held. */
void tcmx_alua_lun_leave(struct tcmx_lun *lun, struct tcmx_dev *dev)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	lockdep_assert_held(&cd->lock);
	if (lun->tg_pt_gp)
		lun->tg_pt_gp->nr_members--;
	WRITE_ONCE(lun->tg_pt_gp, NULL);
}

/* ------------------------------------------------------------------ */
/* <lun>/alua_tg_pt_gp and the fast-path state                        */
/* ------------------------------------------------------------------ */

/* Both with tcmx_cfs_mutex held and lun->dev set (lun.c). */
ssize_t tcmx_lun_tg_pt_gp_show(struct tcmx_lun *lun, char *page)
{
	struct tcmx_dev *dev = lun->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_tg_pt_gp *gp;
	ssize_t ret = -ENODEV;

	mutex_lock(&cd->lock);
	gp = lun->tg_pt_gp;
	/* rtslib takes the group name from after the first ':' */
	if (gp)
		ret = sysfs_emit(page,
				 "TG Port Alias: %s\nTG Port Group ID: %u\nTG Port Primary Access State: %s\nTG Port Primary Access Status: %s\nTG Port Secondary Access State: %s\nTG Port Secondary Access Status: %s\n",
				 config_item_name(&gp->group.cg_item), gp->id,
				 tcmx_alua_state_name(READ_ONCE(gp->access_state)),
				 tcmx_alua_status_name(gp->access_status),
				 "None", "None");
	mutex_unlock(&cd->lock);
	return ret;
}

/* The group of @dev named @name (@len bytes), "NULL" for the default. */
static struct tcmx_tg_pt_gp *tcmx_gp_find(struct tcmx_dev *dev,
					  const char *name, size_t len)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_tg_pt_gp *gp;

	lockdep_assert_held(&cd->lock);
	if (len == 4 && !memcmp(name, "NULL", 4))
		return &cd->default_tg_pt_gp;
	list_for_each_entry(gp, &cd->tg_pt_gps, node) {
		const char *gp_name = config_item_name(&gp->group.cg_item);

		if (strlen(gp_name) == len && !memcmp(gp_name, name, len))
			return gp;
	}
	return NULL;
}

/* A group name of the LUN's device, or "NULL" for default_tg_pt_gp. */
ssize_t tcmx_lun_tg_pt_gp_store(struct tcmx_lun *lun, const char *page,
				size_t count)
{
	struct tcmx_dev *dev = lun->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_tg_pt_gp *new;
	ssize_t ret = count;
	const char *name;
	size_t len;

	if (tcmx_cfs_strip(page, count, NAME_MAX, TCMX_STRIP_SPACE, &name,
			   &len)) {
		pr_err("%s: alua_tg_pt_gp: need a group name of at most %d bytes\n",
		       config_item_name(&lun->group.cg_item), NAME_MAX);
		return -EINVAL;
	}

	mutex_lock(&cd->lock);
	new = tcmx_gp_find(dev, name, len);
	if (!new) {
		pr_err("%s: alua_tg_pt_gp: device %s has no ALUA group '%.*s' with an ID\n",
		       config_item_name(&lun->group.cg_item),
		       tcmx_dev_name(dev), (int)len, name);
		ret = -EINVAL;
	} else if (new != lun->tg_pt_gp) {
		if (lun->tg_pt_gp)
			lun->tg_pt_gp->nr_members--;
		new->nr_members++;
		WRITE_ONCE(lun->tg_pt_gp, new);
		/* VPD 0x83's target port group designator is another one */
		tcmx_ua_add(lun, dev, TCMX_SENSE_UA_INQUIRY_CHANGED);
	}
	mutex_unlock(&cd->lock);
	return ret;
}
