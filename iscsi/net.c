// SPDX-License-Identifier: GPL-2.0
/*
 * Listeners: one listening socket per address, shared by
 * every portal (np) on it: a login's TargetName picks the TPG among them.
 * A new connection is accepted from the listener's sk_data_ready through a
 * work item, and handed to conns.c.  No thread per connection.
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

/* listeners: under listeners_mutex */
static DEFINE_MUTEX(listeners_mutex);
static LIST_HEAD(listeners);

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
		tcmx_iscsi_conn_start(l, sock, tcmx_iscsi_io_work);
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

void tcmx_iscsi_np_disable(struct tcmx_iscsi_np *np)
{
	struct tcmx_iscsi_listener *l;

	mutex_lock(&listeners_mutex);
	mutex_lock(&tcmx_iscsi_cfg_mutex);
	l = np->listener;
	np->listener = NULL;
	mutex_unlock(&tcmx_iscsi_cfg_mutex);
	if (!l)
		goto out;
	tcmx_iscsi_conns_end_on(l, np->tpg);
	if (--l->users)
		goto out;
	/* the last portal on the address: its socket goes */
	write_lock_bh(&l->sock->sk->sk_callback_lock);
	l->sock->sk->sk_user_data = NULL;
	write_unlock_bh(&l->sock->sk->sk_callback_lock);
	cancel_work_sync(&l->accept_work);
	tcmx_iscsi_conns_end_on(l, NULL);
	sock_release(l->sock);
	list_del(&l->node);
	kfree(l);
out:
	mutex_unlock(&listeners_mutex);
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

void tcmx_iscsi_proto_exit(void)
{
	/* the portals were disabled: end what is left, then the queues */
	tcmx_iscsi_conns_end_on(NULL, NULL);
	WARN_ON(!list_empty(&listeners));
	destroy_workqueue(tcmx_iscsi_release_wq);
	destroy_workqueue(tcmx_iscsi_wq);
}
