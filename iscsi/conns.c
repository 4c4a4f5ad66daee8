// SPDX-License-Identifier: GPL-2.0
/*
 * Connections, from accept to release, and the sessions on them.  The
 * socket callbacks queue a connection's io work (conn.c) on the CPU its
 * packets arrive on, or on the CPU cpus_allowed_list gave it.
 *
 * Teardown: tcmx_iscsi_conn_close() marks a connection dead and queues its
 * release work, which shuts the socket, waits for the commands the core
 * still holds (tcmx_nexus_unregister()), stops the io work and frees it.
 * Whoever must see connections gone (a TPG disabled, a portal or an ACL
 * removed, the module leaving) closes them and waits on conns_wq.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "login.h"
#include "proto.h"

/* allocated by net.c's tcmx_iscsi_proto_init() */
struct workqueue_struct *tcmx_iscsi_wq;
struct workqueue_struct *tcmx_iscsi_release_wq;

/* every connection, until its release ends: under conns_lock */
static DEFINE_SPINLOCK(conns_lock);
static LIST_HEAD(conns);
static DECLARE_WAIT_QUEUE_HEAD(conns_wq);
static atomic_t half_open = ATOMIC_INIT(0);

/*
 * The CPU a new connection's io work runs on: -1 while cpus_allowed_list
 * holds every online CPU (then the CPU its packets arrive on), else the
 * next CPU of the list, in turn.
 */
static int conn_cpu(void)
{
	static int last = -1;
	int cpu = -1;

	mutex_lock(&tcmx_iscsi_cfg_mutex);
	if (!cpumask_subset(cpu_online_mask, &tcmx_iscsi_cpus)) {
		cpu = cpumask_next_and(last, &tcmx_iscsi_cpus,
				       cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first_and(&tcmx_iscsi_cpus,
						cpu_online_mask);
		/* every CPU of the list went offline: any */
		if (cpu >= nr_cpu_ids)
			cpu = -1;
		else
			last = cpu;
	}
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	return cpu;
}

/* ---- socket callbacks ---- */

/* queue @conn's io work on its CPU, else on @cpu (< 0: this one) */
void tcmx_iscsi_conn_kick(struct tcmx_iscsi_conn *conn, int cpu)
{
	if (conn->io_cpu >= 0)
		cpu = conn->io_cpu;
	queue_work_on(cpu < 0 ? WORK_CPU_UNBOUND : cpu, tcmx_iscsi_wq,
		      &conn->io_work);
}

static void conn_data_ready(struct sock *sk)
{
	struct tcmx_iscsi_conn *conn;

	read_lock_bh(&sk->sk_callback_lock);
	conn = sk->sk_user_data;
	if (conn && !READ_ONCE(conn->dead))
		tcmx_iscsi_conn_kick(conn, READ_ONCE(sk->sk_incoming_cpu));
	read_unlock_bh(&sk->sk_callback_lock);
}

static void conn_state_change(struct sock *sk)
{
	struct tcmx_iscsi_conn *conn;
	void (*saved)(struct sock *sk) = NULL;

	read_lock_bh(&sk->sk_callback_lock);
	conn = sk->sk_user_data;
	if (conn) {
		saved = conn->saved_state_change;
		switch (sk->sk_state) {
		case TCP_FIN_WAIT1:
		case TCP_CLOSE_WAIT:
		case TCP_CLOSE:
			tcmx_iscsi_conn_close(conn);
			break;
		default:
			break;
		}
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (saved)
		saved(sk);
}

static void conn_set_callbacks(struct tcmx_iscsi_conn *conn)
{
	struct sock *sk = conn->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	conn->saved_data_ready = sk->sk_data_ready;
	conn->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = conn;
	sk->sk_data_ready = conn_data_ready;
	sk->sk_state_change = conn_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void conn_restore_callbacks(struct tcmx_iscsi_conn *conn)
{
	struct sock *sk = conn->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data == conn) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = conn->saved_data_ready;
		sk->sk_state_change = conn->saved_state_change;
	}
	write_unlock_bh(&sk->sk_callback_lock);
}

/* ---- connections ---- */

/* Any context: end @conn (once), asynchronously. */
void tcmx_iscsi_conn_close(struct tcmx_iscsi_conn *conn)
{
	if (xchg(&conn->dead, true))
		return;
	queue_work(tcmx_iscsi_release_wq, &conn->release_work);
}

/* login.c: the connection may go on (no teardown asked) */
bool tcmx_iscsi_conn_wanted(struct tcmx_iscsi_conn *conn)
{
	return !READ_ONCE(conn->dead);
}

/* the io work stopped: commands the core handed back while dying */
static void conn_drop_done(struct tcmx_iscsi_conn *conn)
{
	struct llist_node *list = llist_del_all(&conn->done);
	struct tcmx_iscsi_cmd *ic, *tmp;

	llist_for_each_entry_safe(ic, tmp, list, done_node)
		tcmx_iscsi_cmd_put(ic);
}

static void conn_free_rx(struct tcmx_iscsi_conn *conn)
{
	kvfree(conn->rx_buf);
	conn->rx_buf = NULL;
}

/* the login's state, and the session it was building */
void tcmx_iscsi_login_free(struct tcmx_iscsi_conn *conn)
{
	struct tcmx_iscsi_login *login = conn->login;

	if (!login)
		return;
	if (login->sess)
		tcmx_iscsi_sess_free(login->sess);
	kvfree(login);	/* kvzalloc: some 22 KiB */
	conn->login = NULL;
}

static void conn_release(struct work_struct *work)
{
	struct tcmx_iscsi_conn *conn =
		container_of(work, struct tcmx_iscsi_conn, release_work);
	struct tcmx_iscsi_sess *sess;

	/*
	 * Wakes an io work blocked in a send; it stops at conn->dead.  After
	 * a Logout, the io work is done and the response still to send.
	 */
	if (!conn->logout_len)
		kernel_sock_shutdown(conn->sock, SHUT_RDWR);
	conn_restore_callbacks(conn);
	cancel_work_sync(&conn->io_work);
	cancel_delayed_work_sync(&conn->timer_work);
	sess = conn->sess;
	if (sess && sess->registered) {
		/* commands inline, then those deferred, are back */
		tcmx_nexus_unregister(&sess->nexus);
		sess->registered = false;
	}
	if (conn->logout_len) {
		struct kvec vec = { conn->tx_hdr, conn->logout_len };
		struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | MSG_DONTWAIT };

		/* 48 or 52 bytes: the socket takes them without waiting */
		kernel_sendmsg(conn->sock, &msg, &vec, 1, vec.iov_len);
		kernel_sock_shutdown(conn->sock, SHUT_RDWR);
	}
	cancel_work_sync(&conn->io_work);
	conn_drop_done(conn);
	if (conn->state == TCMX_CONN_LOGIN)
		atomic_dec(&half_open);

	spin_lock(&conns_lock);
	conn->sess = NULL;	/* the show functions read it under the lock */
	spin_unlock(&conns_lock);
	if (sess && conn->state == TCMX_CONN_FFP && !sess->p.discovery)
		tcmx_iscsi_stat_sessions(sess->tpg->tiqn, -1);
	if (sess)
		tcmx_iscsi_sess_free(sess);
	tcmx_iscsi_login_free(conn);
	conn_free_rx(conn);
	kvfree(conn->text);
	sock_release(conn->sock);

	spin_lock(&conns_lock);
	list_del(&conn->node);
	spin_unlock(&conns_lock);
	kfree(conn);
	wake_up_all(&conns_wq);
}

/* the login timer, then the NOP-In keepalive (conn.c reads nopin_sent) */
static void conn_timer(struct work_struct *work)
{
	struct tcmx_iscsi_conn *conn =
		container_of(to_delayed_work(work), struct tcmx_iscsi_conn,
			     timer_work);

	if (conn->state == TCMX_CONN_LOGIN) {
		if (!conn->linger)
			pr_warn_ratelimited("login from %pISpc timed out\n",
					    &conn->peer);
		tcmx_iscsi_conn_close(conn);
		return;
	}
	/* full feature phase: the io work sends or checks the NOP-In */
	tcmx_iscsi_conn_kick(conn, -1);
}

/* the session's state for the show functions: login.c, under conns_lock */
void tcmx_iscsi_conn_set_sess(struct tcmx_iscsi_conn *conn,
			      struct tcmx_iscsi_sess *sess)
{
	spin_lock(&conns_lock);
	conn->sess = sess;
	if (conn->state == TCMX_CONN_LOGIN)
		atomic_dec(&half_open);
	conn->state = TCMX_CONN_FFP;
	spin_unlock(&conns_lock);
	if (!sess->p.discovery)
		tcmx_iscsi_stat_sessions(sess->tpg->tiqn, 1);
}

/* net.c: a connection accepted on @l; @io_work receives and sends */
void tcmx_iscsi_conn_start(struct tcmx_iscsi_listener *l, struct socket *sock,
			   work_func_t io_work)
{
	struct tcmx_iscsi_conn *conn;

	if (atomic_inc_return(&half_open) > TCMX_ISCSI_HALF_OPEN) {
		pr_warn_ratelimited("too many connections in login, one refused\n");
		goto out_refuse;
	}
	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		goto out_refuse;
	conn->sock = sock;
	conn->listener = l;
	conn->state = TCMX_CONN_LOGIN;
	conn->io_cpu = conn_cpu();
	INIT_WORK(&conn->io_work, io_work);
	INIT_WORK(&conn->release_work, conn_release);
	INIT_DELAYED_WORK(&conn->timer_work, conn_timer);
	init_llist_head(&conn->done);
	conn->last_rx = jiffies;
	conn->rx_buf = kvmalloc(TCMX_ISCSI_LOGIN_MAX, GFP_KERNEL);
	conn->rx_buf_len = TCMX_ISCSI_LOGIN_MAX;
	if (!conn->rx_buf ||
	    kernel_getsockname(sock, (struct sockaddr *)&conn->local) < 0 ||
	    kernel_getpeername(sock, (struct sockaddr *)&conn->peer) < 0) {
		kvfree(conn->rx_buf);
		kfree(conn);
		goto out_refuse;
	}
	tcp_sock_set_nodelay(sock->sk);
	sock->sk->sk_allocation = GFP_KERNEL;

	spin_lock(&conns_lock);
	list_add_tail(&conn->node, &conns);
	spin_unlock(&conns_lock);
	/* login_timeout is the TPG's: the longest until a TPG is chosen */
	queue_delayed_work(tcmx_iscsi_wq, &conn->timer_work, 30 * HZ);
	conn_set_callbacks(conn);
	tcmx_iscsi_conn_kick(conn, -1);
	return;

out_refuse:
	atomic_dec(&half_open);
	sock_release(sock);
}

/* Close the connections @match picks and wait until they are gone. */
static void conns_end(bool (*match)(struct tcmx_iscsi_conn *conn,
				    const void *arg), const void *arg)
{
	struct tcmx_iscsi_conn *conn;
	bool left;

	for (;;) {
		left = false;
		spin_lock(&conns_lock);
		list_for_each_entry(conn, &conns, node) {
			if (!match(conn, arg))
				continue;
			tcmx_iscsi_conn_close(conn);
			left = true;
		}
		spin_unlock(&conns_lock);
		if (!left)
			return;
		/* woken by each release; a new login may have come in */
		wait_event_timeout(conns_wq, false, HZ / 10);
	}
}

struct conn_match {
	struct tcmx_iscsi_listener	*listener;
	struct tcmx_iscsi_tpg		*tpg;
	const char			*initiator;
};

static bool conn_matches(struct tcmx_iscsi_conn *conn, const void *arg)
{
	const struct conn_match *m = arg;

	if (m->listener && conn->listener != m->listener)
		return false;
	if (m->tpg && READ_ONCE(conn->tpg) != m->tpg)
		return false;
	if (m->initiator)
		return conn->sess &&
		       !strcmp(conn->sess->initiator, m->initiator);
	return true;
}

/* the connections that came in on @l (all: NULL) to @tpg (all: NULL) */
void tcmx_iscsi_conns_end_on(struct tcmx_iscsi_listener *l,
			     struct tcmx_iscsi_tpg *tpg)
{
	struct conn_match m = { .listener = l, .tpg = tpg };

	conns_end(conn_matches, &m);
}

void tcmx_iscsi_tpg_shutdown(struct tcmx_iscsi_tpg *tpg)
{
	struct conn_match m = { .tpg = tpg };

	conns_end(conn_matches, &m);
}

void tcmx_iscsi_acl_shutdown(struct tcmx_iscsi_tpg *tpg,
			     const char *initiator)
{
	struct conn_match m = { .tpg = tpg, .initiator = initiator };

	conns_end(conn_matches, &m);
}

/* the session of @initiator (NULL: every dynamic one) in @tpg: @fn each */
void tcmx_iscsi_sess_walk(struct tcmx_iscsi_tpg *tpg,
			      const char *initiator, tcmx_iscsi_sess_fn fn,
			      void *arg)
{
	struct tcmx_iscsi_conn *conn;

	spin_lock(&conns_lock);
	list_for_each_entry(conn, &conns, node) {
		struct tcmx_iscsi_sess *sess = conn->sess;

		if (!sess || sess->tpg != tpg || conn->dead)
			continue;
		if (initiator ? strcmp(sess->initiator, initiator) :
		    !sess->dynamic)
			continue;
		fn(sess, arg);
	}
	spin_unlock(&conns_lock);
}

/*
 * login.c, reinstatement: close the live session of the same initiator
 * and ISID in @sess's TPG, other than @sess, and wait until it is gone.
 */
static bool conn_same_nexus(struct tcmx_iscsi_conn *conn, const void *arg)
{
	const struct tcmx_iscsi_sess *new = arg;
	const struct tcmx_iscsi_sess *old = conn->sess;

	return old && old != new && old->tpg == new->tpg &&
	       !memcmp(old->isid, new->isid, sizeof(old->isid)) &&
	       !strcmp(old->initiator, new->initiator);
}

void tcmx_iscsi_sess_reinstate(struct tcmx_iscsi_sess *sess)
{
	conns_end(conn_same_nexus, sess);
}
