// SPDX-License-Identifier: GPL-2.0
/*
 * tcmx_loop: the loopback fabric.  Each TPG has one I_T nexus, whose
 * initiator port name its nexus file sets; every LUN the core maps for that
 * nexus (every LUN of the TPG, or those of the ACL named as the nexus)
 * becomes a local SCSI disk H:0:<t>:<mapped lun>.
 *
 * One Scsi_Host per WWN, target id = TPG tag.  queuecommand hands the
 * command straight to the core from the submitting context: no lock, no
 * allocation, no workqueue.  When the core completes inline, the command is
 * completed with scsi_done_direct() once tcmx_submit_cmd() returns true; when
 * a backend defers it, ->queue_status() later completes it with scsi_done().
 *
 * The files of tpgt_<t>/ are loop_cfs.c's; loop.h is what the two share.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <scsi/scsi.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include "loop.h"
#include "trace.h"

#define LOOP_DRAIN_MS		10000	/* device/host reset wait */
#define LOOP_ABORT_MS		30000	/* abort of a timed-out command */
/*
 * Longest CDB carried to the core: as tcm_loop, what the midlayer's
 * struct scsi_cmnd holds.  The core answers what it has no row for (a
 * variable-length CDB) with INVALID COMMAND OPERATION CODE; with 16 the
 * midlayer would fail such a CDB with a host error instead.
 */
#define LOOP_MAX_CDB		32

/*
 * Queue depths.  rd_mcp completes READ/WRITE inside queuecommand, so a tag is
 * held only from bio submission (blk-mq allocates it then, up to a plug's
 * worth of requests per submitting CPU) until queuecommand returns.  Under
 * the seed fio job (tools/bench, 2 vCPUs, 8 LUNs) can_queue 64, 128, 256 and
 * 1024 and cmd_per_lun 32..1024 measured the same within noise; what a
 * host needs is room for every CPU's plug plus commands a backend defers,
 * so the default scales with the CPUs: 64 per CPU, at least 256.
 */
#define LOOP_TAGS_PER_CPU	64
#define LOOP_MIN_CAN_QUEUE	256

static unsigned int loop_can_queue;
module_param_named(can_queue, loop_can_queue, uint, 0444);
MODULE_PARM_DESC(can_queue,
		 "Commands in flight per SCSI host (per hardware queue if shared_tags=0), 1..10240; 0 = 64 per CPU, at least 256 (default 0)");

static unsigned int loop_cmd_per_lun;
module_param_named(cmd_per_lun, loop_cmd_per_lun, uint, 0444);
MODULE_PARM_DESC(cmd_per_lun,
		 "Initial queue depth of each LUN, 1..can_queue; 0 = can_queue (default 0)");

static unsigned int loop_nr_hw_queues;
module_param_named(nr_hw_queues, loop_nr_hw_queues, uint, 0444);
MODULE_PARM_DESC(nr_hw_queues,
		 "blk-mq hardware queues per SCSI host, 0 = one per CPU (default 0)");

static bool loop_shared_tags = true;
module_param_named(shared_tags, loop_shared_tags, bool, 0444);
MODULE_PARM_DESC(shared_tags,
		 "Share one tag set between the hardware queues of a host (default Y)");

/*
 * Who owns a command, for the error handlers.  FREE: not in the core (never
 * submitted, or completed inline); CORE: handed to the core and not handed
 * back yet; DONE: a deferred command came back through ->queue_status().
 * Only deferred commands ever stay in CORE beyond loop_queuecommand().
 */
enum {
	LOOP_CMD_FREE = 0,
	LOOP_CMD_CORE,
	LOOP_CMD_DONE,
};

/* Per-command state: the SCSI command's private area. */
struct loop_cmd {
	struct tcmx_cmd		cmd;
	struct scsi_cmnd	*sc;
	int			state;
};

static struct device *loop_root;

/* ---- fast path ---- */

static void loop_set_result(struct scsi_cmnd *sc, const struct tcmx_cmd *cmd)
{
	u32 len = scsi_bufflen(sc);

	sc->result = cmd->status;	/* host byte DID_OK */
	scsi_set_resid(sc, len - min(cmd->xfer_len, len));
}

/*
 * Once per preallocated command.  Having this hook also spares every command
 * the midlayer's memset of the whole private area: the core resets the
 * fields it owns and queuecommand sets the fabric's.
 */
static int loop_init_cmd_priv(struct Scsi_Host *shost, struct scsi_cmnd *sc)
{
	struct loop_cmd *lc = scsi_cmd_priv(sc);

	lc->sc = sc;
	lc->state = LOOP_CMD_FREE;
	return 0;
}

/* A deferred command is back from the core: any context. */
static void loop_queue_status(struct tcmx_cmd *cmd)
{
	struct loop_cmd *lc = container_of(cmd, struct loop_cmd, cmd);
	struct scsi_cmnd *sc = lc->sc;

	/* the sense data is already in sc->sense_buffer (cmd->sense) */
	loop_set_result(sc, cmd);
	/*
	 * The EH handlers wait for DONE and then for an RCU grace period, so
	 * they never reuse a command this scsi_done() could still touch.
	 */
	rcu_read_lock();
	/* result before DONE: pairs with loop_cmd_released() */
	smp_store_release(&lc->state, LOOP_CMD_DONE);
	scsi_done(sc);
	rcu_read_unlock();
}

static int loop_queuecommand(struct Scsi_Host *shost, struct scsi_cmnd *sc)
{
	struct loop_host *host = shost_priv(shost);
	struct loop_cmd *lc = scsi_cmd_priv(sc);
	struct tcmx_cmd *cmd = &lc->cmd;
	unsigned int id = sc->device->id;
	struct loop_tpg *lt = NULL;

	/* keeps the TPG, and the LUN of a command the core runs inline */
	rcu_read_lock();
	if (likely(id < LOOP_MAX_TPGT))
		lt = rcu_dereference(host->tpgs[id]);
	if (unlikely(!lt)) {
		sc->result = DID_NO_CONNECT << 16;
		goto refused;
	}
	if (unlikely(READ_ONCE(lt->offline))) {
		sc->result = DID_TRANSPORT_DISRUPTED << 16;
		goto refused;
	}

	/* only the fabric's fields: the core resets its own */
	cmd->nexus = &lt->nexus;
	cmd->tpg = &lt->tpg;
	cmd->lun_id = sc->device->lun;
	cmd->cdb = sc->cmnd;
	cmd->cdb_len = sc->cmd_len;
	cmd->sgl = scsi_sglist(sc);
	cmd->sg_nents = scsi_sg_count(sc);
	cmd->data_len = scsi_bufflen(sc);
	cmd->data_dir = sc->sc_data_direction;
	cmd->sense = sc->sense_buffer;
	WRITE_ONCE(lc->state, LOOP_CMD_CORE);
	if (!tcmx_submit_cmd(cmd)) {
		/* deferred: loop_queue_status() completes it, maybe already */
		rcu_read_unlock();
		return 0;
	}
	WRITE_ONCE(lc->state, LOOP_CMD_FREE);
	loop_set_result(sc, cmd);
done:
	/*
	 * Completed inside the read-side section: an error handler that
	 * sees FREE waits for a grace period before the midlayer may reuse
	 * the command, and that must cover this scsi_done_direct() too.
	 */
	scsi_done_direct(sc);
	rcu_read_unlock();
	return 0;
refused:
	/* nothing moved: the midlayer's residual starts at 0 */
	scsi_set_resid(sc, scsi_bufflen(sc));
	goto done;
}

/*
 * Every device the midlayer makes, by post_map's scsi_add_device() or a
 * user's scan of the host: none for a map entry that is going, whose
 * device loop_pre_unmap() has removed already or will look for after this
 * device is on the host's list.
 */
static int loop_slave_alloc(struct scsi_device *sdev)
{
	struct loop_host *host = shost_priv(sdev->host);
	struct loop_tpg *lt = NULL;
	int ret = 0;

	rcu_read_lock();
	if (sdev->id < LOOP_MAX_TPGT)
		lt = rcu_dereference(host->tpgs[sdev->id]);
	if (lt && tcmx_nexus_unmapping(&lt->nexus, sdev->lun))
		ret = -ENXIO;
	rcu_read_unlock();
	return ret;
}

/* ---- error handling ---- */

/*
 * A command the core still holds lives in memory the midlayer would reuse
 * after a successful abort or reset, so no handler may give up on it: each
 * waits until the core has released every command concerned, and then for
 * an RCU grace period, which covers the scsi_done() or scsi_done_direct()
 * call that follows the release (both run inside the RCU read-side
 * section).  A command that times out is aborted that way: the abort waits
 * for the core to finish it (a backend holding it, or inject/fault stuck
 * does), up to LOOP_ABORT_MS; the midlayer, which owns a timed-out command,
 * drops the late completion and retries the command or escalates to the
 * resets, which wait again (LOOP_DRAIN_MS each; the host reset, the last,
 * for as long as the core holds a command).
 */
static bool loop_cmd_released(struct scsi_cmnd *sc)
{
	struct loop_cmd *lc = scsi_cmd_priv(sc);
	/* pairs with the release/cmpxchg in loop_queue_status() */
	int state = smp_load_acquire(&lc->state);

	return state == LOOP_CMD_FREE || state == LOOP_CMD_DONE;
}

/* tcmx:tmr for one error handler's work, begun at @start (ns) */
static void loop_trace_tmr(struct scsi_cmnd *sc, enum tcmx_tmf tmf, int ret,
			   u64 start)
{
	trace_tcmx_tmr(sc->device->id, sc->device->lun, tmf,
		       ret == SUCCESS ? 0 : -EIO, ktime_get_ns() - start);
}

/*
 * A command the core holds for a time (a SANITIZE waiting for its
 * operation's end) comes back at once; the core only compares the pointer.
 */
static void loop_abort_held(struct scsi_cmnd *sc)
{
	struct loop_cmd *lc = scsi_cmd_priv(sc);

	if (!loop_cmd_released(sc))
		tcmx_abort_cmd(&lc->cmd);
}

static int loop_eh_abort(struct scsi_cmnd *sc)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(LOOP_ABORT_MS);
	u64 start = ktime_get_ns();
	int ret = SUCCESS;

	loop_abort_held(sc);
	while (!loop_cmd_released(sc)) {
		if (time_after(jiffies, deadline)) {
			scmd_printk(KERN_WARNING, sc,
				    "command 0x%02x still in the target core, abort failed\n",
				    sc->cmnd[0]);
			ret = FAILED;
			break;
		}
		msleep(20);
	}
	if (ret == SUCCESS)
		synchronize_rcu();
	loop_trace_tmr(sc, TCMX_TMF_ABORT_TASK, ret, start);
	return ret;
}

struct loop_busy {
	struct scsi_device	*sdev;	/* NULL: the whole host */
	unsigned int		held;
};

static bool loop_count_held(struct scsi_cmnd *sc, void *data)
{
	struct loop_busy *busy = data;

	if ((!busy->sdev || sc->device == busy->sdev) &&
	    !loop_cmd_released(sc)) {
		busy->held++;
		loop_abort_held(sc);	/* a reset aborts every task */
	}
	return true;
}

/*
 * Wait until the core has released every command of @sdev (or the host).
 * The host reset (@last) is the midlayer's last resort: should it fail,
 * the midlayer would take back the commands the core still holds and
 * reuse their memory.  So it never does: it waits as long as the core
 * holds one, which is bounded (a delay or a backend's wait is at most a
 * minute or two; what is held until an abort was aborted above), and
 * says so every LOOP_DRAIN_MS.
 */
static int loop_drain(struct Scsi_Host *shost, struct scsi_device *sdev,
		      bool last)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(LOOP_DRAIN_MS);
	struct loop_busy busy = { .sdev = sdev };

	for (;;) {
		busy.held = 0;
		scsi_host_busy_iter(shost, loop_count_held, &busy);
		if (!busy.held)
			break;
		if (time_after(jiffies, deadline)) {
			shost_printk(KERN_WARNING, shost,
				     "%u command(s) still in the target core, %s\n",
				     busy.held,
				     last ? "waiting" : "reset failed");
			if (!last)
				return FAILED;
			deadline = jiffies + msecs_to_jiffies(LOOP_DRAIN_MS);
		}
		msleep(20);
	}
	synchronize_rcu();
	return SUCCESS;
}

/*
 * A reset leaves POWER ON, RESET, OR BUS DEVICE RESET OCCURRED on each LUN
 * it reset: @lun (as mapped) of target (TPG) @id, every LUN of it
 * (TCMX_ALL_LUNS), or with @id LOOP_MAX_TPGT every LUN of every TPG of the
 * host.
 */
static void loop_reset_ua(struct Scsi_Host *shost, unsigned int id, u64 lun)
{
	struct loop_host *host = shost_priv(shost);
	struct tcmx_lun *mapped;
	struct loop_tpg *lt;
	unsigned int i;
	bool wp;

	rcu_read_lock();
	for (i = 0; i < LOOP_MAX_TPGT; i++) {
		if (id != LOOP_MAX_TPGT && i != id)
			continue;
		lt = rcu_dereference(host->tpgs[i]);
		if (!lt)
			continue;
		if (lun == TCMX_ALL_LUNS) {
			tcmx_ua_reset(&lt->tpg, lun);
			continue;
		}
		mapped = tcmx_nexus_lun(&lt->nexus, lun, &wp);
		if (mapped)
			tcmx_ua_reset(&lt->tpg, mapped->index);
	}
	rcu_read_unlock();
}

static int loop_eh_device_reset(struct scsi_cmnd *sc)
{
	u64 start = ktime_get_ns();
	int ret = loop_drain(sc->device->host, sc->device, false);

	if (ret == SUCCESS)
		loop_reset_ua(sc->device->host, sc->device->id,
			      sc->device->lun);
	loop_trace_tmr(sc, TCMX_TMF_LUN_RESET, ret, start);
	return ret;
}

/* every LUN of the target: one TPG */
static int loop_eh_target_reset(struct scsi_cmnd *sc)
{
	u64 start = ktime_get_ns();
	int ret = loop_drain(sc->device->host, NULL, false);

	if (ret == SUCCESS)
		loop_reset_ua(sc->device->host, sc->device->id, TCMX_ALL_LUNS);
	loop_trace_tmr(sc, TCMX_TMF_NEXUS_LOSS, ret, start);
	return ret;
}

/* every I_T nexus of the host (one per TPG): a bus or a host reset */
static int loop_reset_all(struct scsi_cmnd *sc, bool last)
{
	u64 start = ktime_get_ns();
	int ret = loop_drain(sc->device->host, NULL, last);

	if (ret == SUCCESS)
		loop_reset_ua(sc->device->host, LOOP_MAX_TPGT, TCMX_ALL_LUNS);
	loop_trace_tmr(sc, TCMX_TMF_NEXUS_LOSS, ret, start);
	return ret;
}

static int loop_eh_bus_reset(struct scsi_cmnd *sc)
{
	return loop_reset_all(sc, false);
}

/* the last handler: it does not fail (loop_drain()) */
static int loop_eh_host_reset(struct scsi_cmnd *sc)
{
	return loop_reset_all(sc, true);
}

static struct scsi_host_template loop_sht = {
	.module			= THIS_MODULE,
	.name			= "tcmx_loop",
	.proc_name		= "tcmx_loop",
	.queuecommand		= loop_queuecommand,
	.init_cmd_priv		= loop_init_cmd_priv,
	.slave_alloc		= loop_slave_alloc,
	.change_queue_depth	= scsi_change_queue_depth,
	.eh_abort_handler	= loop_eh_abort,
	.eh_device_reset_handler = loop_eh_device_reset,
	.eh_target_reset_handler = loop_eh_target_reset,
	.eh_bus_reset_handler	= loop_eh_bus_reset,
	.eh_host_reset_handler	= loop_eh_host_reset,
	.this_id		= -1,
	.sg_tablesize		= SG_MAX_SEGMENTS,
	.max_sectors		= SG_MAX_SEGMENTS * (PAGE_SIZE >> SECTOR_SHIFT),
	.cmd_size		= sizeof(struct loop_cmd),
	.skip_settle_delay	= 1,
};

/* ---- WWN: one Scsi_Host ---- */

static bool loop_all_hex(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isxdigit(s[i]))
			return false;
	return true;
}

enum loop_kind loop_port_kind(const char *name, size_t len, bool target)
{
	size_t i;

	if (len > 4 && !strncmp(name, "naa.", 4)) {
		if (len - 4 != LOOP_WWN_HEX && (target || len - 4 != 32))
			return LOOP_BAD;
		return loop_all_hex(name + 4, len - 4) ? LOOP_NAA : LOOP_BAD;
	}
	if (len > 3 && !strncmp(name, "fc.", 3))
		return len - 3 == LOOP_WWN_HEX && loop_all_hex(name + 3, len - 3) ?
		       LOOP_FC : LOOP_BAD;
	if (len > 4 && !strncmp(name, "iqn.", 4) && len < LOOP_NAME_LEN) {
		for (i = 4; i < len; i++)
			if (name[i] <= ' ' || name[i] > '~')
				return LOOP_BAD;
		return LOOP_IQN;
	}
	return LOOP_BAD;
}

static struct tcmx_wwn *loop_make_wwn(struct tcmx_fabric *tf, const char *name)
{
	struct Scsi_Host *shost;
	struct loop_hba *hba;
	int ret;

	if (loop_port_kind(name, strlen(name), true) == LOOP_BAD) {
		pr_err("WWN %.64s is not naa.<16 hex digits>, fc.<16 hex digits> or iqn.<name>\n",
		       name);
		return ERR_PTR(-EINVAL);
	}
	hba = kzalloc(sizeof(*hba), GFP_KERNEL);
	if (!hba)
		return ERR_PTR(-ENOMEM);
	mutex_init(&hba->lock);

	shost = scsi_host_alloc(&loop_sht, sizeof(struct loop_host));
	if (!shost) {
		ret = -ENOMEM;
		goto out_free;
	}
	shost->max_channel = 0;
	shost->max_id = LOOP_MAX_TPGT;
	shost->max_lun = TCMX_MAX_LUN;
	shost->max_cmd_len = LOOP_MAX_CDB;
	/*
	 * No SCSI-2 LUN bits in CDB byte 1: the target addresses LUNs by
	 * the nexus, and checks those bits as the reserved bits they are.
	 */
	shost->no_scsi2_lun_in_cdb = 1;
	shost->can_queue = loop_can_queue;
	shost->cmd_per_lun = loop_cmd_per_lun;
	shost->nr_hw_queues = loop_nr_hw_queues ?: nr_cpu_ids;
	shost->host_tagset = loop_shared_tags;

	ret = scsi_add_host(shost, loop_root);
	if (ret) {
		pr_err("WWN %s: scsi_add_host failed: %d\n", name, ret);
		goto out_put;
	}
	/*
	 * No I/O scheduler by default, as for NVMe.  With shared tags blk-mq
	 * would give every disk mq-deadline and its own MAX_SCHED_RQ (2048)
	 * requests: ~2 MiB per LUN, allocated and initialised when the LUN
	 * is linked.  A memory-backed LUN has nothing to gain from it; the
	 * scheduler can still be chosen in /sys/block/sdX/queue/scheduler.
	 * Read only when a disk's queue is set up, after this.
	 */
	shost->tag_set.flags |= BLK_MQ_F_NO_SCHED_BY_DEFAULT;
	hba->shost = shost;
	return &hba->wwn;

out_put:
	scsi_host_put(shost);
out_free:
	kfree(hba);
	return ERR_PTR(ret);
}

static void loop_drop_wwn(struct tcmx_wwn *wwn)
{
	struct loop_hba *hba = to_loop_hba(wwn);

	scsi_remove_host(hba->shost);
	scsi_host_put(hba->shost);
	kfree(hba);
}

/* ---- TPG ---- */

static struct tcmx_tpg *loop_make_tpg(struct tcmx_wwn *wwn, u16 tag)
{
	struct loop_hba *hba = to_loop_hba(wwn);
	struct loop_tpg *lt;

	if (tag >= LOOP_MAX_TPGT) {
		pr_err("tpgt_%u: tag must be below %u\n", tag, LOOP_MAX_TPGT);
		return ERR_PTR(-EINVAL);
	}
	lt = kzalloc(sizeof(*lt), GFP_KERNEL);
	if (!lt)
		return ERR_PTR(-ENOMEM);
	lt->hba = hba;
	lt->tpg.wwn = wwn;
	lt->tpg.tag = tag;

	mutex_lock(&hba->lock);
	if (hba->tags & BIT(tag)) {
		mutex_unlock(&hba->lock);
		pr_err("tpgt_%u: a TPG with this tag exists\n", tag);
		kfree(lt);
		return ERR_PTR(-EEXIST);
	}
	hba->tags |= BIT(tag);
	mutex_unlock(&hba->lock);
	return &lt->tpg;
}

/*
 * Caller holds hba->lock.  The TPG reaches the fast path first, its map
 * still empty, so that the core's ->post_map() calls can scan each LUN.
 */
int loop_add_nexus(struct loop_tpg *lt, const char *name)
{
	struct loop_host *host = shost_priv(lt->hba->shost);
	int ret;

	rcu_assign_pointer(host->tpgs[lt->tpg.tag], lt);
	ret = tcmx_nexus_register(&lt->tpg, &lt->nexus, name);
	if (ret) {
		RCU_INIT_POINTER(host->tpgs[lt->tpg.tag], NULL);
		synchronize_rcu();
	}
	return ret;
}

/*
 * Caller holds hba->lock.  The core removes the nexus's devices
 * (->pre_unmap()) and waits for its commands; commands to the TPG fail
 * from then on.  -EPERM while a LUN of the TPG is linked, as in-tree.
 */
int loop_drop_nexus(struct loop_tpg *lt)
{
	struct loop_host *host = shost_priv(lt->hba->shost);
	int ret;

	ret = tcmx_nexus_unregister(&lt->nexus);
	if (ret)
		return ret;
	RCU_INIT_POINTER(host->tpgs[lt->tpg.tag], NULL);
	synchronize_rcu();
	return 0;
}

static void loop_drop_tpg(struct tcmx_tpg *tpg)
{
	struct loop_tpg *lt = to_loop_tpg(tpg);
	struct Scsi_Host *shost = lt->hba->shost;
	struct scsi_device *sdev;

	/*
	 * rtslib never writes nexus=NULL before removing a TPG; its LUNs are
	 * gone by now (configfs removes the TPG only without them)
	 */
	mutex_lock(&lt->hba->lock);
	if (lt->nexus.name[0])
		WARN_ON(loop_drop_nexus(lt));
	mutex_unlock(&lt->hba->lock);

	/* devices a user scan created on this target id */
	shost_for_each_device(sdev, shost)
		if (sdev->channel == 0 && sdev->id == tpg->tag)
			scsi_remove_device(sdev);

	mutex_lock(&lt->hba->lock);
	lt->hba->tags &= ~BIT(tpg->tag);
	mutex_unlock(&lt->hba->lock);
	kfree(lt);
}

/* ---- the nexus's LUNs: its map's entries ---- */

static struct loop_tpg *loop_nexus_tpg(struct tcmx_nexus *n)
{
	return container_of(n, struct loop_tpg, nexus);
}

/* a new entry: its disk, H:0:<t>:<mapped lun> (tcmx_cfs_mutex held) */
static void loop_post_map(struct tcmx_nexus *n, u64 id)
{
	struct loop_tpg *lt = loop_nexus_tpg(n);
	int ret;

	ret = scsi_add_device(lt->hba->shost, 0, lt->tpg.tag, id);
	if (ret)
		pr_err("tpgt_%u lun %llu: scsi_add_device failed: %d\n",
		       lt->tpg.tag, id, ret);
}

/* an entry going: its disk goes first, its commands drained */
static void loop_pre_unmap(struct tcmx_nexus *n, u64 id)
{
	struct loop_tpg *lt = loop_nexus_tpg(n);
	struct scsi_device *sdev;

	/* gone already if the user deleted it through sysfs */
	sdev = scsi_device_lookup(lt->hba->shost, 0, lt->tpg.tag, id);
	if (sdev) {
		scsi_remove_device(sdev);	/* drains its commands */
		scsi_device_put(sdev);
	}
}

/* ---- module ---- */

static const struct tcmx_fabric_ops loop_ops = {
	.name			= "loopback",
	.owner			= THIS_MODULE,
	.version		= "tcmx loopback fabric v" TCMX_VERSION,
	.max_tpgt		= LOOP_MAX_TPGT,
	.nexus_per_tpg		= true,
	.make_wwn		= loop_make_wwn,
	.drop_wwn		= loop_drop_wwn,
	.make_tpg		= loop_make_tpg,
	.drop_tpg		= loop_drop_tpg,
	.post_map		= loop_post_map,
	.pre_unmap		= loop_pre_unmap,
	.queue_status		= loop_queue_status,
	.tpg_attrs		= loop_tpg_attrs,
	.tpg_attrib_attrs	= loop_tpg_attrib_attrs,
};

static int __init loop_check_params(void)
{
	if (loop_can_queue > BLK_MQ_MAX_DEPTH) {
		pr_err("can_queue=%u: must be 0 (auto) or 1..%d\n",
		       loop_can_queue, BLK_MQ_MAX_DEPTH);
		return -EINVAL;
	}
	if (!loop_can_queue)
		loop_can_queue = clamp(LOOP_TAGS_PER_CPU * nr_cpu_ids,
				       LOOP_MIN_CAN_QUEUE, BLK_MQ_MAX_DEPTH);
	if (!loop_cmd_per_lun)
		loop_cmd_per_lun = loop_can_queue;
	if (loop_cmd_per_lun > loop_can_queue) {
		pr_err("cmd_per_lun=%u: must be 0 (= can_queue) or 1..can_queue (%u)\n",
		       loop_cmd_per_lun, loop_can_queue);
		return -EINVAL;
	}
	if (loop_nr_hw_queues > nr_cpu_ids) {
		pr_err("nr_hw_queues=%u: must be 0..%u (CPUs)\n",
		       loop_nr_hw_queues, nr_cpu_ids);
		return -EINVAL;
	}
	return 0;
}

static int __init loop_init(void)
{
	int ret;

	BUILD_BUG_ON(TCMX_SENSE_BUFFER_LEN != SCSI_SENSE_BUFFERSIZE);
	/* the core reads TCMX_CDB_MAX bytes of every CDB, cmd_len fits cdb_len */
	BUILD_BUG_ON(sizeof_field(struct scsi_cmnd, cmnd) < TCMX_CDB_MAX);
	BUILD_BUG_ON(sizeof_field(struct scsi_cmnd, cmnd) < LOOP_MAX_CDB);
	BUILD_BUG_ON(LOOP_MAX_CDB > U8_MAX);
	BUILD_BUG_ON(BLK_MQ_MAX_DEPTH > SHRT_MAX);

	ret = loop_check_params();
	if (ret)
		return ret;

	loop_root = root_device_register("tcmx_loop");
	if (IS_ERR(loop_root)) {
		ret = PTR_ERR(loop_root);
		pr_err("root_device_register failed: %d\n", ret);
		return ret;
	}
	ret = tcmx_register_fabric(&loop_ops);
	if (ret) {
		pr_err("tcmx_register_fabric failed: %d\n", ret);
		root_device_unregister(loop_root);
	}
	return ret;
}

static void __exit loop_exit(void)
{
	tcmx_unregister_fabric(&loop_ops);
	root_device_unregister(loop_root);
}

module_init(loop_init);
module_exit(loop_exit);

MODULE_ALIAS("tcmx-fabric-loopback");
MODULE_DESCRIPTION("tcmx loopback fabric: mapped LUNs become local SCSI disks");
MODULE_LICENSE("GPL");
MODULE_VERSION(TCMX_VERSION);
