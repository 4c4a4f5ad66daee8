// SPDX-License-Identifier: GPL-2.0
/*
 * Node ACLs, LUN masking and the I_T nexus maps:
 *
 *   $T/<fabric>/<wwn>/tpgt_<t>/acls/<initiator>/	fabric files,
 *				attrib/, auth/, param/, fabric_statistics/
 *   .../acls/<initiator>/lun_<m>/<alias> -> tpgt_<t>/lun/lun_<l>
 *   .../acls/<initiator>/lun_<m>/write_protect
 *
 * A fabric registers each I_T nexus it has (tcmx_nexus_register()).  The
 * nexus reaches the LUNs of the ACL named as its initiator port, under
 * their mapped numbers (write-protected where the mapping says so), or
 * without such an ACL every linked LUN of the TPG under its own number
 * (demo mode).  Its map holds exactly that at all times: whatever changes
 * it (a LUN linked or unlinked, a mapping made, removed or its
 * write_protect written, an ACL made or removed, a nexus registered or
 * unregistered) brings every map of the TPG in line, under tcmx_cfs_mutex.
 *
 * An entry comes into a map published first, then ->post_map() tells the
 * fabric; one leaves it marked TCMX_MAP_GOING first (a fabric's device
 * scan, tcmx_nexus_unmapping(), sees that), then ->pre_unmap() lets the
 * fabric drain it while commands still reach it, then it is unpublished.
 * A LUN being unlinked leaves every map before it leaves the TPG, so the
 * grace period its drain waits for covers commands that found it in a map;
 * its ->pre_unmap() calls run without tcmx_cfs_mutex (tcmx_lun_unmap()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include "tcmx_core.h"
#include "sanitize.h"

/* inside tcmx_cfs_mutex: what PR reads of the ACLs (tcmx_core.h) */
DEFINE_MUTEX(tcmx_acl_mutex);

/* ------------------------------------------------------------------ */
/* the maps                                                            */
/* ------------------------------------------------------------------ */

/* The entry @n should have as @id now: tcmx_cfs_mutex held. */
static void *tcmx_nexus_want(struct tcmx_nexus *n, u64 id)
{
	struct tcmx_tpg *tpg = n->tpg;
	struct tcmx_mapped_lun *m;
	struct tcmx_lun *lun;
	unsigned long wp = 0;

	if (n->acl) {
		m = xa_load(&n->acl->mapped, id);
		if (!m)
			return NULL;
		lun = m->lun;
		wp = m->write_protect ? TCMX_MAP_WP : 0;
	} else {
		lun = xa_load(&tpg->luns, id);
		wp = n->demo_wp ? TCMX_MAP_WP : 0;
	}
	/* linked, not on its way out, and published in the TPG */
	if (!lun || !lun->dev || lun->unlinking ||
	    xa_load(&tpg->luns, lun->index) != lun)
		return NULL;
	return (void *)((unsigned long)lun | wp);
}

/* The counters of the ACL's lun_<@id> that @n's entry @id maps, if any. */
static struct tcmx_stats __percpu *tcmx_map_stats(struct tcmx_nexus *n,
						  u64 id)
{
	struct tcmx_mapped_lun *m;

	if (!n->acl)
		return NULL;
	m = xa_load(&n->acl->mapped, id);
	return m ? m->stats.counters : NULL;
}

static int tcmx_map_set(struct tcmx_nexus *n, u64 id, void *entry)
{
	int ret = xa_err(xa_store(&n->luns, id, entry, GFP_KERNEL));

	if (!ret && id < TCMX_LUN_MAP) {
		WRITE_ONCE(n->map_stats[id], tcmx_map_stats(n, id));
		rcu_assign_pointer(n->lun_map[id], (struct tcmx_lun *)entry);
	}
	return ret;
}

/* ->pre_unmap() may look for the entry's devices from here on */
static void tcmx_map_going(struct tcmx_nexus *n, u64 id)
{
	xa_set_mark(&n->luns, id, TCMX_MAP_GOING);
	smp_mb();	/* mark before ->pre_unmap() looks for devices */
}

/*
 * Commands may reach the entry until it is unpublished here; the grace
 * period of the LUN's drain (or of tcmx_nexus_unregister()) outlasts
 * those that found it.
 */
static void tcmx_map_gone(struct tcmx_nexus *n, u64 id)
{
	if (id < TCMX_LUN_MAP) {
		RCU_INIT_POINTER(n->lun_map[id], NULL);
		WRITE_ONCE(n->map_stats[id], NULL);
	}
	xa_erase(&n->luns, id);
	/*
	 * xa_erase() clears the mark before the slot: a command that found
	 * the entry may test it in between and be held after the pass of
	 * tcmx_map_pre_unmap().  This pass finds it; one that tests the
	 * entry after this pass sees it gone (sanitize.c).
	 */
	tcmx_parked_abort_entry(n, id);
	/* its I_T_L nexus's state, once no new command finds the entry */
	tcmx_itl_del(n, id);
}

/*
 * Entry @id of @n, marked going: what the core holds for it comes back,
 * then the fabric's ->pre_unmap(), which may wait for its commands.
 */
static void tcmx_map_pre_unmap(struct tcmx_nexus *n, u64 id)
{
	const struct tcmx_fabric_ops *ops = n->tpg->ops;

	tcmx_parked_abort_entry(n, id);
	if (ops->pre_unmap)
		ops->pre_unmap(n, id);
}

static void tcmx_map_drop(struct tcmx_nexus *n, u64 id)
{
	tcmx_map_going(n, id);
	tcmx_map_pre_unmap(n, id);
	tcmx_map_gone(n, id);
}

static bool tcmx_map_add(struct tcmx_nexus *n, u64 id)
{
	void *want = tcmx_nexus_want(n, id);

	if (!want || xa_load(&n->luns, id))
		return false;
	/* the entry's state (unit attentions, registration) before it */
	if (!tcmx_itl_add(n, id, tcmx_map_lun(want))) {
		pr_err("%s: no memory to map LUN %llu\n", n->name, id);
		return false;
	}
	if (tcmx_map_set(n, id, want)) {
		tcmx_itl_del(n, id);
		pr_err("%s: no memory to map LUN %llu\n", n->name, id);
		return false;
	}
	if (n->tpg->ops->post_map)
		n->tpg->ops->post_map(n, id);
	return true;
}

/*
 * @leaving: empty the map (the nexus goes).  Returns whether a LUN came
 * or went.
 */
static bool tcmx_nexus_sync(struct tcmx_nexus *n, bool leaving)
{
	struct tcmx_mapped_lun *m;
	struct tcmx_lun *lun;
	unsigned long id;
	void *cur, *want;
	bool changed = false;

	xa_for_each(&n->luns, id, cur) {
		/*
		 * A LUN's unlinking drops it (tcmx_lun_unmap()); its counters
		 * follow the ACL, whose mapping may be going sooner.
		 */
		if (xa_get_mark(&n->luns, id, TCMX_MAP_GOING)) {
			if (id < TCMX_LUN_MAP)
				WRITE_ONCE(n->map_stats[id],
					   tcmx_map_stats(n, id));
			continue;
		}
		want = leaving ? NULL : tcmx_nexus_want(n, id);
		/* in place, the counters too: n->acl may have changed */
		if (want && tcmx_map_lun(want) == tcmx_map_lun(cur)) {
			WARN_ON(tcmx_map_set(n, id, want));
			continue;
		}
		tcmx_map_drop(n, id);
		changed = true;
	}
	if (leaving)
		return changed;
	if (n->acl)
		xa_for_each(&n->acl->mapped, id, m)
			changed |= tcmx_map_add(n, id);
	else
		xa_for_each(&n->tpg->luns, id, lun)
			changed |= tcmx_map_add(n, id);
	return changed;
}

void tcmx_tpg_sync_maps(struct tcmx_tpg *tpg)
{
	struct tcmx_nexus *n;

	lockdep_assert_held(&tcmx_cfs_mutex);
	list_for_each_entry(n, &tpg->nexuses, node)
		tcmx_nexus_sync(n, false);
}

/* An entry of @lun that tcmx_lun_unmap() marked going, in a map of @tpg. */
static struct tcmx_nexus *tcmx_lun_next_going(struct tcmx_tpg *tpg,
					      struct tcmx_lun *lun,
					      unsigned long *idp)
{
	struct tcmx_nexus *n;
	unsigned long id;
	void *cur;

	list_for_each_entry(n, &tpg->nexuses, node)
		xa_for_each_marked(&n->luns, id, cur, TCMX_MAP_GOING)
			if (tcmx_map_lun(cur) == lun) {
				*idp = id;
				return n;
			}
	return NULL;
}

/*
 * Take @lun, marked unlinking, out of every map of its TPG.  All its
 * entries are marked going at once, so that no other change of the maps
 * touches them (tcmx_nexus_sync() leaves them alone); then each entry's
 * ->pre_unmap() runs without tcmx_cfs_mutex, since a fabric waits there
 * for the commands the LUN still has, and the entry goes under the mutex
 * again.  A nexus that unregisters meanwhile waits for its entries
 * (n->unmapping).  Called with tcmx_cfs_mutex held and returns with it
 * held; drops it in between.
 */
void tcmx_lun_unmap(struct tcmx_lun *lun)
{
	struct tcmx_nexus *n;
	unsigned long id;
	void *cur;

	lockdep_assert_held(&tcmx_cfs_mutex);
	list_for_each_entry(n, &lun->tpg->nexuses, node)
		xa_for_each(&n->luns, id, cur)
			if (tcmx_map_lun(cur) == lun) {
				tcmx_map_going(n, id);
				n->unmapping++;
			}
	while ((n = tcmx_lun_next_going(lun->tpg, lun, &id))) {
		mutex_unlock(&tcmx_cfs_mutex);
		tcmx_map_pre_unmap(n, id);
		mutex_lock(&tcmx_cfs_mutex);
		tcmx_map_gone(n, id);
		WRITE_ONCE(n->unmapping, n->unmapping - 1);
		if (!n->unmapping)
			wake_up_var(&n->unmapping);
	}
}

/*
 * After a change of ACLs or mappings: each nexus whose LUNs came or went
 * gets REPORTED LUNS DATA HAS CHANGED on those it reaches now, and no
 * other nexus does (each I_T_L nexus has its own queue, ua.c).  (A link or
 * unlink gives it to every I_T nexus through the TPG's LUNs, lun.c.)
 */
static void tcmx_acl_sync_maps(struct tcmx_tpg *tpg)
{
	struct tcmx_nexus *n;
	struct tcmx_itl *itl;
	unsigned long id;

	lockdep_assert_held(&tcmx_cfs_mutex);
	list_for_each_entry(n, &tpg->nexuses, node) {
		if (!tcmx_nexus_sync(n, false))
			continue;
		xa_for_each(&n->itls, id, itl)
			tcmx_ua_itl(itl, TCMX_SENSE_UA_LUNS_CHANGED);
	}
}

/* the last ACL's index: in-tree's scsiAuthIntrIndex counts from 1 too */
static atomic_t tcmx_acl_index = ATOMIC_INIT(0);

static struct tcmx_acl *tcmx_acl_find(struct tcmx_tpg *tpg, const char *name)
{
	struct tcmx_acl *acl;

	list_for_each_entry(acl, &tpg->acls, node)
		if (!strcmp(tcmx_acl_name(acl), name))
			return acl;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* the fabric's I_T nexuses                                            */
/* ------------------------------------------------------------------ */

int tcmx_nexus_register_port(struct tcmx_tpg *tpg, struct tcmx_nexus *n,
			     const char *name, const char *port_id)
{
	if (strscpy(n->name, name, sizeof(n->name)) <= 0 ||
	    strscpy(n->port_id, port_id ?: "", sizeof(n->port_id)) < 0) {
		pr_err("tpgt_%u: bad initiator port name for an I_T nexus\n",
		       tpg->tag);
		n->name[0] = '\0';
		n->port_id[0] = '\0';
		return -EINVAL;
	}
	xa_init(&n->luns);
	xa_init(&n->itls);
	atomic_set(&n->deferred, 0);
	n->unmapping = 0;
	mutex_lock(&tcmx_cfs_mutex);
	n->tpg = tpg;
	n->acl = tcmx_acl_find(tpg, n->name);
	list_add_tail(&n->node, &tpg->nexuses);
	/*
	 * The TPG's one nexus names the registrations made through it (PR
	 * reads tpg->nexus_name): the whole name, never one being written.
	 */
	if (tpg->ops->nexus_per_tpg) {
		/* the name before the pointer: pairs with pr_nexus_name() */
		smp_store_release(&tpg->nexus_name, n->name);
	}
	tcmx_nexus_sync(n, false);
	mutex_unlock(&tcmx_cfs_mutex);
	return 0;
}
EXPORT_SYMBOL_GPL(tcmx_nexus_register_port);

int tcmx_nexus_register(struct tcmx_tpg *tpg, struct tcmx_nexus *n,
			const char *name)
{
	return tcmx_nexus_register_port(tpg, n, name, NULL);
}
EXPORT_SYMBOL_GPL(tcmx_nexus_register);

int tcmx_nexus_unregister(struct tcmx_nexus *n)
{
	struct tcmx_tpg *tpg = n->tpg;

	mutex_lock(&tcmx_cfs_mutex);
	/* the TPG's nexus names its registrations while a LUN is linked */
	if (tpg->ops->nexus_per_tpg && tpg->nr_linked) {
		mutex_unlock(&tcmx_cfs_mutex);
		pr_err("tpgt_%u: %u LUN(s) still linked, I_T nexus %s kept\n",
		       tpg->tag, tpg->nr_linked, n->name);
		return -EPERM;
	}
	/* each entry's I_T_L nexus ends: SPC-2 reservations with it */
	tcmx_nexus_sync(n, true);
	/* those a LUN's unlinking drops: it ends them (tcmx_lun_unmap()) */
	while (n->unmapping) {
		mutex_unlock(&tcmx_cfs_mutex);
		wait_var_event(&n->unmapping, !READ_ONCE(n->unmapping));
		mutex_lock(&tcmx_cfs_mutex);
		tcmx_nexus_sync(n, true);
	}
	list_del_init(&n->node);
	n->acl = NULL;
	if (tpg->ops->nexus_per_tpg)
		WRITE_ONCE(tpg->nexus_name, "");
	mutex_unlock(&tcmx_cfs_mutex);
	/*
	 * Commands running inline, then those a backend deferred: a SANITIZE
	 * the core holds is aborted (and again, should one be held later).
	 */
	synchronize_rcu();
	do
		tcmx_parked_abort_nexus(n);
	while (!wait_var_event_timeout(&n->deferred, !atomic_read(&n->deferred),
				       HZ / 10));
	xa_destroy(&n->luns);
	xa_destroy(&n->itls);
	n->name[0] = '\0';
	n->port_id[0] = '\0';
	return 0;
}
EXPORT_SYMBOL_GPL(tcmx_nexus_unregister);

/* ------------------------------------------------------------------ */
/* acls/<initiator>/lun_<m>                                            */
/* ------------------------------------------------------------------ */

static struct tcmx_mapped_lun *to_mapped(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_mapped_lun,
			    group);
}

static int tcmx_mapped_allow_link(struct config_item *item,
				  struct config_item *target)
{
	struct tcmx_mapped_lun *m = to_mapped(item);
	struct tcmx_tpg *tpg = m->acl->tpg;
	struct tcmx_lun *lun;
	int ret = 0;

	if (target->ci_type != &tpg->wwn->fabric->lun_type) {
		pr_err("%s/%s: link target is not a LUN\n",
		       tcmx_acl_name(m->acl), config_item_name(item));
		return -EINVAL;
	}
	lun = container_of(to_config_group(target), struct tcmx_lun, group);
	if (lun->tpg != tpg) {
		pr_err("%s/%s: LUN %s is not one of tpgt_%u\n",
		       tcmx_acl_name(m->acl), config_item_name(item),
		       config_item_name(target), tpg->tag);
		return -EINVAL;
	}
	mutex_lock(&tcmx_cfs_mutex);
	if (m->lun) {
		pr_err("%s/%s: already maps a LUN\n", tcmx_acl_name(m->acl),
		       config_item_name(item));
		ret = -EEXIST;
	} else {
		/* a new mapping: its statistics start again, as in-tree */
		tcmx_stats_mapped_restart(m);
		mutex_lock(&tcmx_acl_mutex);
		m->lun = lun;
		mutex_unlock(&tcmx_acl_mutex);
		tcmx_acl_sync_maps(tpg);
	}
	mutex_unlock(&tcmx_cfs_mutex);
	return ret;
}

static void tcmx_mapped_drop_link(struct config_item *item,
				  struct config_item *target)
{
	struct tcmx_mapped_lun *m = to_mapped(item);

	mutex_lock(&tcmx_cfs_mutex);
	mutex_lock(&tcmx_acl_mutex);
	m->lun = NULL;
	mutex_unlock(&tcmx_acl_mutex);
	tcmx_acl_sync_maps(m->acl->tpg);
	mutex_unlock(&tcmx_cfs_mutex);
}

/*
 * Its entries left every map (its symlink and then lun_<m> went, each
 * bringing the maps in line); commands read its counters in their RCU
 * section only.
 */
static void tcmx_mapped_release(struct config_item *item)
{
	struct tcmx_mapped_lun *m = to_mapped(item);

	synchronize_rcu();
	free_percpu(m->stats.counters);
	kfree(m);
}

static ssize_t tcmx_mapped_write_protect_show(struct config_item *item,
					      char *page)
{
	return sysfs_emit(page, "%d\n",
			  READ_ONCE(to_mapped(item)->write_protect));
}

static ssize_t tcmx_mapped_write_protect_store(struct config_item *item,
					       const char *page, size_t count)
{
	struct tcmx_mapped_lun *m = to_mapped(item);
	unsigned long val;

	if (kstrtoul(page, 0, &val) || val > 1) {
		pr_err("%s/%s: write_protect must be 0 or 1\n",
		       tcmx_acl_name(m->acl), config_item_name(item));
		return -EINVAL;
	}
	mutex_lock(&tcmx_cfs_mutex);
	WRITE_ONCE(m->write_protect, val);
	tcmx_acl_sync_maps(m->acl->tpg);
	mutex_unlock(&tcmx_cfs_mutex);
	return count;
}

CONFIGFS_ATTR(tcmx_mapped_, write_protect);

static struct configfs_attribute *tcmx_mapped_attrs[] = {
	&tcmx_mapped_attr_write_protect,
	NULL,
};

static struct configfs_item_operations tcmx_mapped_item_ops = {
	.allow_link	= tcmx_mapped_allow_link,
	.drop_link	= tcmx_mapped_drop_link,
	.release	= tcmx_mapped_release,
};

static struct tcmx_acl *to_acl(struct config_item *item)
{
	return container_of(to_config_group(item), struct tcmx_acl, group);
}

/* mkdir acls/<initiator>/lun_<m> */
static struct config_group *tcmx_mapped_make(struct config_group *group,
					     const char *name)
{
	struct tcmx_acl *acl = to_acl(&group->cg_item);
	struct tcmx_fabric *tf = acl->tpg->wwn->fabric;
	struct tcmx_mapped_lun *m;
	u64 id;
	int ret;

	if (tcmx_parse_index(name, "lun_", TCMX_MAX_LUN, &id))
		return ERR_PTR(-EINVAL);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->acl = acl;
	m->id = id;
	config_group_init_type_name(&m->group, name, &tf->mapped_lun_type);
	ret = tcmx_stats_mapped_init(m);
	if (!ret) {
		mutex_lock(&tcmx_cfs_mutex);
		mutex_lock(&tcmx_acl_mutex);
		ret = xa_insert(&acl->mapped, id, m, GFP_KERNEL);
		mutex_unlock(&tcmx_acl_mutex);
		mutex_unlock(&tcmx_cfs_mutex);
	}
	if (ret) {
		pr_err("%s/%s: cannot add the mapping: %d\n",
		       tcmx_acl_name(acl), name, ret);
		free_percpu(m->stats.counters);
		kfree(m);
		return ERR_PTR(ret);
	}
	return &m->group;
}

/* rmdir acls/<initiator>/lun_<m>: its symlink is gone already */
static void tcmx_mapped_drop(struct config_group *group,
			     struct config_item *item)
{
	struct tcmx_mapped_lun *m = to_mapped(item);

	mutex_lock(&tcmx_cfs_mutex);
	mutex_lock(&tcmx_acl_mutex);
	xa_erase(&m->acl->mapped, m->id);
	mutex_unlock(&tcmx_acl_mutex);
	tcmx_acl_sync_maps(m->acl->tpg);
	mutex_unlock(&tcmx_cfs_mutex);
	config_item_put(item);
}

/* ------------------------------------------------------------------ */
/* acls/<initiator>                                                    */
/* ------------------------------------------------------------------ */

static void tcmx_acl_release(struct config_item *item)
{
	struct tcmx_acl *acl = to_acl(item);

	xa_destroy(&acl->mapped);
	kfree(acl);
}

static struct configfs_item_operations tcmx_acl_item_ops = {
	.release	= tcmx_acl_release,
};

static struct configfs_group_operations tcmx_acl_group_ops = {
	.make_group	= tcmx_mapped_make,
	.drop_item	= tcmx_mapped_drop,
};

/* an initiator port name: printable, no blanks, shorter than TCMX_NAME_LEN */
static bool tcmx_acl_name_ok(const char *name)
{
	size_t len = strnlen(name, TCMX_NAME_LEN), i;

	if (!len || len >= TCMX_NAME_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!isgraph(name[i]))
			return false;
	return true;
}

/* mkdir acls/<initiator> */
static struct config_group *tcmx_acl_make(struct config_group *group,
					  const char *name)
{
	struct tcmx_tpg *tpg = container_of(group, struct tcmx_tpg, acl_group);
	struct tcmx_fabric *tf = tpg->wwn->fabric;
	size_t priv = tf->ops->acl_priv_size;
	struct tcmx_acl *acl;
	struct tcmx_nexus *n;
	int ret;

	if (!tcmx_acl_name_ok(name)) {
		pr_err("tpgt_%u: ACL name %.64s is not an initiator port name\n",
		       tpg->tag, name);
		return ERR_PTR(-EINVAL);
	}
	/* the fabric's data right after the ACL, aligned as kmalloc is */
	acl = kzalloc(ALIGN(sizeof(*acl), ARCH_KMALLOC_MINALIGN) + priv,
		      GFP_KERNEL);
	if (!acl)
		return ERR_PTR(-ENOMEM);
	acl->tpg = tpg;
	acl->index = atomic_inc_return(&tcmx_acl_index);
	if (priv)
		acl->fabric_priv = (char *)acl +
				   ALIGN(sizeof(*acl), ARCH_KMALLOC_MINALIGN);
	xa_init(&acl->mapped);
	config_group_init_type_name(&acl->group, name, &tf->acl_type);
	if (tf->ops->init_acl) {
		ret = tf->ops->init_acl(acl);
		if (ret) {
			kfree(acl);
			return ERR_PTR(ret);
		}
	}
	tcmx_cfs_subdir(&acl->group, &acl->attrib_group, "attrib",
			&tf->acl_attrib_type);
	tcmx_cfs_subdir(&acl->group, &acl->auth_group, "auth",
			&tf->acl_auth_type);
	tcmx_cfs_subdir(&acl->group, &acl->param_group, "param",
			&tf->acl_param_type);
	tcmx_cfs_subdir(&acl->group, &acl->stats_group, "fabric_statistics",
			&tf->acl_stats_type);
	if (tf->ops->add_acl_stats)
		tf->ops->add_acl_stats(acl);

	/* the initiator's nexuses leave demo mode: nothing mapped yet */
	mutex_lock(&tcmx_cfs_mutex);
	mutex_lock(&tcmx_acl_mutex);
	list_add_tail(&acl->node, &tpg->acls);
	mutex_unlock(&tcmx_acl_mutex);
	list_for_each_entry(n, &tpg->nexuses, node)
		if (!strcmp(n->name, name))
			n->acl = acl;
	tcmx_acl_sync_maps(tpg);
	mutex_unlock(&tcmx_cfs_mutex);
	return &acl->group;
}

/* rmdir acls/<initiator>: its nexuses are back in demo mode */
static void tcmx_acl_drop(struct config_group *group, struct config_item *item)
{
	struct tcmx_acl *acl = to_acl(item);
	struct tcmx_nexus *n;

	/* the fabric ends the initiator's sessions */
	if (acl->tpg->ops->drop_acl)
		acl->tpg->ops->drop_acl(acl);
	mutex_lock(&tcmx_cfs_mutex);
	mutex_lock(&tcmx_acl_mutex);
	list_del(&acl->node);
	mutex_unlock(&tcmx_acl_mutex);
	list_for_each_entry(n, &acl->tpg->nexuses, node)
		if (n->acl == acl)
			n->acl = NULL;
	tcmx_acl_sync_maps(acl->tpg);
	mutex_unlock(&tcmx_cfs_mutex);
	config_item_put(item);
}

static struct configfs_group_operations tcmx_tpg_acls_group_ops = {
	.make_group	= tcmx_acl_make,
	.drop_item	= tcmx_acl_drop,
};

void tcmx_acl_tpg_init(struct tcmx_tpg *tpg)
{
	INIT_LIST_HEAD(&tpg->nexuses);
	INIT_LIST_HEAD(&tpg->acls);
	tcmx_cfs_subdir(&tpg->group, &tpg->acl_group, "acls",
			&tpg->wwn->fabric->tpg_acls_type);
}

void tcmx_acl_init_types(struct tcmx_fabric *tf)
{
	const struct tcmx_fabric_ops *ops = tf->ops;
	struct module *m = ops->owner;

	tcmx_cfs_init_type(&tf->tpg_acls_type, m, NULL,
			   &tcmx_tpg_acls_group_ops, NULL);
	tcmx_cfs_init_type(&tf->acl_type, m, &tcmx_acl_item_ops,
			   &tcmx_acl_group_ops, ops->acl_attrs);
	tcmx_cfs_init_type(&tf->acl_attrib_type, m, NULL, NULL,
			   ops->acl_attrib_attrs);
	tcmx_cfs_init_type(&tf->acl_auth_type, m, NULL, NULL,
			   ops->acl_auth_attrs);
	tcmx_cfs_init_type(&tf->acl_param_type, m, NULL, NULL,
			   ops->acl_param_attrs);
	tcmx_cfs_init_type(&tf->mapped_lun_type, m, &tcmx_mapped_item_ops,
			   NULL, tcmx_mapped_attrs);
	tcmx_cfs_init_type(&tf->acl_stats_type, m, NULL, NULL, NULL);
}
