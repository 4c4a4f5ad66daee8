// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: one per connection (MaxConnections=1).  A session holds its
 * I_T nexus (the initiator name and the ISID: two sessions of one name are
 * two nexuses for PR, reservations and unit attentions), registered with
 * the core once the login reaches the full feature phase, and its command
 * pool: CmdSN depth + a few slots for immediate commands, each with the
 * pages of its data buffer kept from one command to the next (up to
 * TCMX_ISCSI_KEEP_PAGES; a longer transfer allocates the rest and gives it
 * back when it is done).  Only the connection's io work takes and returns
 * slots, so the pool is a plain free list.
 *
 * The show functions (sess_info.c) read sessions under conns.c's list lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include "proto.h"

#define TCMX_ISCSI_IMMEDIATE_SLOTS	8
#define TCMX_ISCSI_KEEP_PAGES		(SZ_256K >> PAGE_SHIFT)
#define TCMX_ISCSI_MAX_XFER		SZ_32M

struct tcmx_iscsi_sess *tcmx_iscsi_sess_alloc(struct tcmx_iscsi_conn *conn)
{
	struct tcmx_iscsi_sess *sess = kzalloc(sizeof(*sess), GFP_KERNEL);

	if (sess)
		sess->conn = conn;
	return sess;
}

static void cmd_free_pages(struct tcmx_iscsi_cmd *ic, unsigned int keep)
{
	while (ic->nr_pages > keep) {
		ic->nr_pages--;
		__free_page(sg_page(&ic->sgl[ic->nr_pages]));
	}
}

void tcmx_iscsi_sess_free(struct tcmx_iscsi_sess *sess)
{
	unsigned int i;

	if (sess->registered) {
		tcmx_nexus_unregister(&sess->nexus);
		sess->registered = false;
	}
	for (i = 0; sess->cmds && i < sess->nr_cmds; i++) {
		cmd_free_pages(&sess->cmds[i], 0);
		kvfree(sess->cmds[i].sgl);
	}
	kvfree(sess->cmds);
	kfree(sess);
}

/* the pool; the nexus of a normal session */
int tcmx_iscsi_sess_start(struct tcmx_iscsi_sess *sess)
{
	char port_id[TCMX_PORT_ID_LEN];
	unsigned int i;
	int ret;

	sess->nr_cmds = sess->depth + TCMX_ISCSI_IMMEDIATE_SLOTS;
	sess->cmds = kvcalloc(sess->nr_cmds, sizeof(*sess->cmds), GFP_KERNEL);
	if (!sess->cmds)
		return -ENOMEM;
	for (i = sess->nr_cmds; i-- > 0; ) {
		struct tcmx_iscsi_cmd *ic = &sess->cmds[i];

		ic->conn = sess->conn;
		ic->index = i;
		ic->next_free = sess->free;
		sess->free = ic;
	}
	if (sess->p.discovery)
		return 0;
	/* the initiator port: name and ISID, as the in-tree names it */
	snprintf(port_id, sizeof(port_id), ",i,0x%6phN", sess->isid);
	ret = tcmx_nexus_register_port(&sess->tpg->tpg, &sess->nexus,
				       sess->initiator, port_id);
	if (ret)
		return ret;
	sess->registered = true;
	return 0;
}

/* io work: a free slot, or NULL */
struct tcmx_iscsi_cmd *tcmx_iscsi_cmd_get(struct tcmx_iscsi_sess *sess)
{
	struct tcmx_iscsi_cmd *ic = sess->free;

	if (unlikely(!ic))
		return NULL;
	sess->free = ic->next_free;
	sess->nr_busy++;
	ic->busy = true;
	ic->submitted = false;
	ic->aborted = false;
	ic->data_err = false;
	ic->data_got = 0;
	ic->r2t_out = 0;
	ic->r2tsn = 0;
	ic->datasn = 0;
	return ic;
}

/* io work (or the release, once the io work stopped) */
void tcmx_iscsi_cmd_put(struct tcmx_iscsi_cmd *ic)
{
	struct tcmx_iscsi_sess *sess = ic->conn->sess;

	if (WARN_ON_ONCE(!ic->busy || !sess))
		return;
	if (unlikely(ic->nr_pages > TCMX_ISCSI_KEEP_PAGES))
		cmd_free_pages(ic, TCMX_ISCSI_KEEP_PAGES);
	ic->busy = false;
	ic->next_free = sess->free;
	sess->free = ic;
	sess->nr_busy--;
}

static int cmd_grow(struct tcmx_iscsi_cmd *ic, unsigned int need)
{
	struct scatterlist *sgl;
	unsigned int i;

	if (need > ic->max_pages) {
		sgl = kvcalloc(need, sizeof(*sgl), GFP_NOIO);
		if (!sgl)
			return -ENOMEM;
		sg_init_table(sgl, need);
		for (i = 0; i < ic->nr_pages; i++)
			sg_set_page(&sgl[i], sg_page(&ic->sgl[i]), PAGE_SIZE, 0);
		kvfree(ic->sgl);
		ic->sgl = sgl;
		ic->max_pages = need;
	}
	while (ic->nr_pages < need) {
		struct page *page = alloc_page(GFP_NOIO | __GFP_NOWARN);

		if (!page)
			return -ENOMEM;
		sg_set_page(&ic->sgl[ic->nr_pages++], page, PAGE_SIZE, 0);
	}
	return 0;
}

/* io work: a data buffer of @len bytes for @ic, its sgl for the core */
int tcmx_iscsi_cmd_buf(struct tcmx_iscsi_cmd *ic, u32 len)
{
	unsigned int need = DIV_ROUND_UP(len, PAGE_SIZE), i;
	struct tcmx_cmd *cmd = &ic->cmd;

	cmd->sgl = NULL;
	cmd->sg_nents = 0;
	if (!len)
		return 0;
	if (len > TCMX_ISCSI_MAX_XFER || cmd_grow(ic, need))
		return -ENOMEM;
	for (i = 0; i < need; i++) {
		ic->sgl[i].length = PAGE_SIZE;
		sg_unmark_end(&ic->sgl[i]);
	}
	ic->sgl[need - 1].length = len - (need - 1) * PAGE_SIZE;
	sg_mark_end(&ic->sgl[need - 1]);
	cmd->sgl = ic->sgl;
	cmd->sg_nents = need;
	return 0;
}
