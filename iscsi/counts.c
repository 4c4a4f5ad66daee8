// SPDX-License-Identifier: GPL-2.0
/*
 * What the protocol counts for a target's fabric_statistics/ (stats.c
 * shows it): logins by their final status, as the in-tree sorts them,
 * with the last refusal's initiator, address and time; logouts by
 * reason; Normal sessions; sessions that failed.  All under the target's
 * stats lock, off the I/O path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/string.h>
#include "proto.h"

/* the login's final status: which counter, which failure type (MIB) */
void tcmx_iscsi_stat_login(struct tcmx_iscsi_tiqn *t, u8 class, u8 detail,
			   const char *initiator,
			   const struct sockaddr_storage *peer)
{
	struct tcmx_iscsi_tiqn_stats *st = &t->stats;
	/* the MIB's iscsiTgtLoginFailType: 2 other ... 6 negotiate */
	u32 *count = &st->other_fails;
	u32 type = 2;

	if (class == ISCSI_STATUS_CLS_SUCCESS) {
		count = &st->accepts;
		type = 0;
	} else if (class == ISCSI_STATUS_CLS_REDIRECT) {
		count = &st->redirects;
		type = 3;
	} else if (class == ISCSI_STATUS_CLS_INITIATOR_ERR) {
		if (detail == ISCSI_LOGIN_STATUS_TGT_FORBIDDEN) {
			count = &st->authorize_fails;
			type = 4;
		} else if (detail == ISCSI_LOGIN_STATUS_AUTH_FAILED) {
			count = &st->authenticate_fails;
			type = 5;
		} else if (detail == ISCSI_LOGIN_STATUS_INIT_ERR) {
			count = &st->negotiate_fails;
			type = 6;
		}
	}
	spin_lock_bh(&st->lock);
	(*count)++;
	if (type) {
		st->last_fail_type = type;
		st->last_fail_time = get_jiffies_64();
		strscpy(st->last_fail_name, initiator ?: "Unknown",
			sizeof(st->last_fail_name));
		st->last_fail_addr = *peer;
	}
	spin_unlock_bh(&st->lock);
}

void tcmx_iscsi_stat_logout(struct tcmx_iscsi_tiqn *t, u8 reason)
{
	spin_lock_bh(&t->stats.lock);
	if (reason == ISCSI_LOGOUT_REASON_CLOSE_SESSION)
		t->stats.normal_logouts++;
	else
		t->stats.abnormal_logouts++;
	spin_unlock_bh(&t->stats.lock);
}

void tcmx_iscsi_stat_sessions(struct tcmx_iscsi_tiqn *t, int delta)
{
	spin_lock_bh(&t->stats.lock);
	t->stats.sessions += delta;
	spin_unlock_bh(&t->stats.lock);
}

void tcmx_iscsi_stat_sess_err(struct tcmx_iscsi_tiqn *t,
			      enum tcmx_iscsi_sess_err err,
			      const char *initiator)
{
	struct tcmx_iscsi_tiqn_stats *st = &t->stats;

	spin_lock_bh(&st->lock);
	if (err == TCMX_ISCSI_ERR_DIGEST)
		st->digest_errors++;
	else if (err == TCMX_ISCSI_ERR_TIMEOUT)
		st->timeout_errors++;
	else
		st->format_errors++;
	st->last_sess_fail_type = err;
	strscpy(st->last_sess_fail_name, initiator,
		sizeof(st->last_sess_fail_name));
	spin_unlock_bh(&st->lock);
}
