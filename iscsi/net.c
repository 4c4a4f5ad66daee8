// SPDX-License-Identifier: GPL-2.0
/*
 * Listeners and connections.  One listening socket per address, shared by
 * every portal (np) on it: a login's TargetName picks the TPG among them.
 * A new connection is accepted from the listener's sk_data_ready through a
 * work item; its socket callbacks queue its io work (conn.c) on the CPU
 * its packets arrive on.  No thread per connection.
 *
 * Teardown: tcmx_iscsi_conn_close() marks a connection dead and queues its
 * release work, which shuts the socket, waits for the commands the core
 * still holds (tcmx_nexus_unregister()), stops the io work and frees it.
 * Whoever must see connections gone (a TPG disabled, a portal or an ACL
 * removed, the module leaving) closes them and waits on tcmx_iscsi_conns_wq.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "proto.h"

struct workqueue_struct *tcmx_iscsi_wq;
static struct workqueue_struct *tcmx_iscsi_release_wq;

/* listeners: under listeners_mutex */
static DEFINE_MUTEX(listeners_mutex);
static LIST_HEAD(listeners);

/* every connection, until its release ends: under conns_lock */
static DEFINE_SPINLOCK(conns_lock);
static LIST_HEAD(conns);
static DECLARE_WAIT_QUEUE_HEAD(conns_wq);
static atomic_t half_open = ATOMIC_INIT(0);

/* ---- socket callbacks ---- */

static void conn_data_ready(struct sock *sk)
{
	struct tcmx_iscsi_conn *conn;

	read_lock_bh(&sk->sk_callback_lock);
	conn = sk->sk_user_data;
	if (conn && !READ_ONCE(conn->dead))
		queue_work_on(sk->sk_incoming_cpu < 0 ? WORK_CPU_UNBOUND :
			      sk->sk_incoming_cpu, tcmx_iscsi_wq,
			      &conn->io_work);
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

static void conn_release(struct work_struct *work)
{
	struct tcmx_iscsi_conn *conn =
		container_of(work, struct tcmx_iscsi_conn, release_work);
	struct tcmx_iscsi_sess *sess;

	/* wakes an io work blocked in a send; it stops at conn->dead */
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
	cancel_work_sync(&conn->io_work);
	conn_drop_done(conn);
	if (conn->state == TCMX_CONN_LOGIN)
		atomic_dec(&half_open);

	spin_lock(&conns_lock);
	conn->sess = NULL;	/* the show functions read it under the lock */
	spin_unlock(&conns_lock);
	if (sess)
		tcmx_iscsi_sess_free(sess);
	tcmx_iscsi_login_free(conn);
	tcmx_iscsi_conn_free_rx(conn);
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
		pr_warn_ratelimited("login from %pISpc timed out\n",
				    &conn->peer);
		tcmx_iscsi_conn_close(conn);
		return;
	}
	/* full feature phase: the io work sends or checks the NOP-In */
	queue_work(tcmx_iscsi_wq, &conn->io_work);
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
}

static void conn_start(struct tcmx_iscsi_listener *l, struct socket *sock)
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
	INIT_WORK(&conn->io_work, tcmx_iscsi_io_work);
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
	queue_work(tcmx_iscsi_wq, &conn->io_work);
	return;

out_refuse:
	atomic_dec(&half_open);
	sock_release(sock);
}

/* ---- listeners ---- */

static void listener_data_ready(struct sock *sk)
{
	struct tcmx_iscsi_listener *l;

	read_lock_bh(&sk->sk_callback_lock);
	l = sk->sk_user_data;
	if (l && sk->sk_state == TCP_LISTEN)
		queue_work(tcmx_iscsi_wq, &l->accept_work);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void listener_accept(struct work_struct *work)
{
	struct tcmx_iscsi_listener *l =
		container_of(work, struct tcmx_iscsi_listener, accept_work);
	struct socket *sock;

	while (!kernel_accept(l->sock, &sock, O_NONBLOCK))
		conn_start(l, sock);
}

static int listener_open(struct tcmx_iscsi_listener *l)
{
	int len = l->addr.ss_family == AF_INET6 ?
		  sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	struct sock *sk;
	int ret;

	ret = sock_create_kern(&init_net, l->addr.ss_family, SOCK_STREAM,
			       IPPROTO_TCP, &l->sock);
	if (ret)
		return ret;
	sk = l->sock->sk;
	sock_set_reuseaddr(sk);
	tcp_sock_set_nodelay(sk);
	ret = kernel_bind(l->sock, (struct sockaddr *)&l->addr, len);
	if (!ret)
		ret = kernel_listen(l->sock, 128);
	if (ret) {
		sock_release(l->sock);
		return ret;
	}
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = l;
	sk->sk_data_ready = listener_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	return 0;
}

static bool addr_equal(const struct sockaddr_storage *a,
		       const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET6)
		return a6->sin6_port == b6->sin6_port &&
		       ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr);
	return a4->sin_port == b4->sin_port &&
	       a4->sin_addr.s_addr == b4->sin_addr.s_addr;
}

int tcmx_iscsi_np_enable(struct tcmx_iscsi_np *np)
{
	struct tcmx_iscsi_listener *l;
	int ret;

	mutex_lock(&listeners_mutex);
	list_for_each_entry(l, &listeners, node)
		if (addr_equal(&l->addr, &np->addr))
			goto found;
	ret = -ENOMEM;
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		goto out;
	l->addr = np->addr;
	INIT_WORK(&l->accept_work, listener_accept);
	ret = listener_open(l);
	if (ret) {
		pr_err("portal %pISpc: cannot listen: %d\n", &np->addr, ret);
		kfree(l);
		goto out;
	}
	list_add_tail(&l->node, &listeners);
found:
	l->users++;
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	np->listener = l;
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	ret = 0;
out:
	mutex_unlock(&listeners_mutex);
	return ret;
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

void tcmx_iscsi_np_disable(struct tcmx_iscsi_np *np)
{
	struct conn_match m = { .tpg = np->tpg };
	struct tcmx_iscsi_listener *l;

	mutex_lock(&listeners_mutex);
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	l = np->listener;
	np->listener = NULL;
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	if (!l)
		goto out;
	m.listener = l;
	conns_end(conn_matches, &m);
	if (--l->users)
		goto out;
	/* the last portal on the address: its socket goes */
	write_lock_bh(&l->sock->sk->sk_callback_lock);
	l->sock->sk->sk_user_data = NULL;
	write_unlock_bh(&l->sock->sk->sk_callback_lock);
	cancel_work_sync(&l->accept_work);
	m.tpg = NULL;
	conns_end(conn_matches, &m);
	sock_release(l->sock);
	list_del(&l->node);
	kfree(l);
out:
	mutex_unlock(&listeners_mutex);
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

int tcmx_iscsi_proto_init(void)
{
	tcmx_iscsi_wq = alloc_workqueue("tcmx_iscsi",
					WQ_MEM_RECLAIM | WQ_HIGHPRI, 0);
	if (!tcmx_iscsi_wq)
		return -ENOMEM;
	tcmx_iscsi_release_wq = alloc_workqueue("tcmx_iscsi_release",
						WQ_UNBOUND, 0);
	if (!tcmx_iscsi_release_wq) {
		destroy_workqueue(tcmx_iscsi_wq);
		return -ENOMEM;
	}
	return 0;
}

static bool conn_any(struct tcmx_iscsi_conn *conn, const void *arg)
{
	return true;
}

void tcmx_iscsi_proto_exit(void)
{
	/* the portals were disabled: end what is left, then the queues */
	conns_end(conn_any, NULL);
	WARN_ON(!list_empty(&listeners));
	destroy_workqueue(tcmx_iscsi_release_wq);
	destroy_workqueue(tcmx_iscsi_wq);
}
