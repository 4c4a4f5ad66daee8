/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcmx_iscsi, the protocol half: what its files share.
 *
 * Top to bottom (a file calls only files below it):
 * net.c      listeners (one per address, shared by every portal on it),
 *            accept
 * conn.c     a connection's io work: the PDU receive state machine,
 *            dispatch by opcode, NOP, Logout
 * login.c    the login phase: stages, status classes, TPG and ACL choice
 * chap.c     CHAP, for the login's security stage
 * text.c     Text requests (SendTargets)
 * keys.c     key=value lists: negotiation (RFC 7143 rules)
 * sess_info.c the configfs files that show sessions
 * cmd.c      SCSI commands: immediate/unsolicited data, R2T, Data-Out,
 *            submission to the core, Data-In and SCSI Response
 * tmf.c      task management: aborts, resets, the answer once commands are back
 * pdu.c      PDU transmit: header, data, digests, SNs, Reject
 * conns.c    connection lifetime: the socket callbacks, teardown, the
 *            walks over connections and sessions, reinstatement
 * session.c  sessions: command pool, nexus
 * counts.c   the target's fabric_statistics counters
 *
 * One connection per session (MaxConnections=1): its io work (on
 * tcmx_iscsi_wq) is the only context that receives or sends on it and the
 * only one that takes or frees its commands, so none of that locks.  A
 * command the core defers comes back through ->queue_status() on an llist
 * and the io work sends its response.
 */
#ifndef TCMX_ISCSI_PROTO_H
#define TCMX_ISCSI_PROTO_H

#include <linux/kref.h>
#include <linux/llist.h>
#include <linux/net.h>
#include <linux/wait.h>
#include <scsi/iscsi_proto.h>
#include "iscsi.h"

#define TCMX_ISCSI_BHS		48
#define TCMX_ISCSI_AHS_MAX	(255 * 4)	/* TotalAHSLength is in words */
#define TCMX_ISCSI_LOGIN_MAX	8192	/* a login/text PDU's data */
#define TCMX_ISCSI_TEXT_MAX	65536	/* a Text response, all PDUs */
#define TCMX_ISCSI_HALF_OPEN	64	/* connections in login, at most */
#define TCMX_ISCSI_RECV_BUDGET	16	/* PDUs per io work pass */

extern struct workqueue_struct *tcmx_iscsi_wq;

/* A listening socket: one per address, shared by its portals (np). */
struct tcmx_iscsi_listener {
	struct list_head		node;	/* listeners, net.c */
	struct sockaddr_storage		addr;
	struct socket			*sock;
	struct work_struct		accept_work;
	unsigned int			users;	/* portals on it */
};

enum tcmx_iscsi_conn_state {
	TCMX_CONN_LOGIN,
	TCMX_CONN_FFP,		/* full feature phase */
	TCMX_CONN_CLOSING,	/* teardown queued */
};

enum tcmx_iscsi_rx_phase {
	TCMX_RX_BHS,
	TCMX_RX_AHS,		/* and the header digest */
	TCMX_RX_DATA,		/* the data segment */
	TCMX_RX_PAD,		/* padding and the data digest */
};

struct tcmx_iscsi_cmd;
struct tcmx_iscsi_sess;

/* What a session negotiated (login.c) and uses on every PDU. */
struct tcmx_iscsi_ops_params {
	u32	max_recv_dsl;	/* what we accept in one PDU */
	u32	max_xmit_dsl;	/* what we send in one PDU */
	u32	max_burst;
	u32	first_burst;
	u32	max_r2t;
	bool	initial_r2t;
	bool	immediate_data;
	bool	header_digest;
	bool	data_digest;
	bool	discovery;	/* SessionType=Discovery */
	u32	nopin_timeout;	/* seconds, 0: none */
	u32	nopin_response_timeout;
	/* the responses sent for each key (for acls/<i>/param and info) */
	char	value[TCMX_ISCSI_KEY_NR][32];
};

/* how long a refused login waits for the initiator to close first */
#define TCMX_LINGER	(2 * HZ)

struct tcmx_iscsi_conn {
	struct list_head		node;	/* conns, conns.c */
	struct socket			*sock;
	struct tcmx_iscsi_listener	*listener;
	/* set under tcmx_iscsi_cfg_mutex at login, then fixed */
	struct tcmx_iscsi_tpg		*tpg;
	struct tcmx_iscsi_sess		*sess;
	enum tcmx_iscsi_conn_state	state;
	bool				dead;	/* stop: teardown queued */
	bool				linger;	/* login refused: wait for FIN */
	int				io_cpu;	/* -1: where packets arrive */
	u8				logout_len; /* tx_hdr, sent at release */
	struct work_struct		io_work;
	struct work_struct		release_work;
	struct delayed_work		timer_work;	/* login, NOP-In */
	struct sockaddr_storage		local, peer;
	void	(*saved_data_ready)(struct sock *sk);
	void	(*saved_state_change)(struct sock *sk);
	void	(*saved_write_space)(struct sock *sk);

	/* receive state: the io work's */
	enum tcmx_iscsi_rx_phase	rx_phase;
	u32				rx_got;		/* of this phase */
	u32				rx_need;
	u32				rx_dlen;	/* DataSegmentLength */
	u32				rx_ahs;		/* AHS bytes */
	u8				rx_hdr[TCMX_ISCSI_BHS +
					       TCMX_ISCSI_AHS_MAX + 4];
	u8				rx_pad[8];	/* pad + digest */
	u32				rx_crc;
	/* where the data segment goes: a command's buffer, or rx_buf */
	struct tcmx_iscsi_cmd		*rx_cmd;
	u32				rx_off;		/* in rx_cmd's buffer */
	bool				rx_discard;
	u8				*rx_buf;	/* login/text/nop data */
	u32				rx_buf_len;

	/* transmit */
	u32				stat_sn;
	u32				exp_stat_sn;
	u8				tx_hdr[TCMX_ISCSI_BHS + 4];
	u8				tx_ddigest[4];
	struct llist_head		done;	/* deferred commands back */

	/* a Text response, sent in PDUs of max_xmit_dsl */
	char				*text;
	u32				text_len;
	u32				text_off;
	u32				text_ttt;

	/* login: the io work's */
	struct tcmx_iscsi_login		*login;
	struct tcmx_iscsi_sess		*login_sess;	/* its SNs */
	unsigned long			last_rx;	/* jiffies */
	bool				nopin_sent;
	u32				nopin_ttt;
};

/*
 * A command slot of a session's pool: its tcmx_cmd, CDB, sense, and data
 * pages, kept from one command to the next.
 */
struct tcmx_iscsi_cmd {
	struct tcmx_cmd			cmd;
	struct tcmx_iscsi_conn		*conn;
	struct llist_node		done_node;
	struct tcmx_iscsi_cmd		*next_free;
	itt_t				itt;
	u32				cmdsn;
	u32				edtl;	/* expected data transfer len */
	u16				index;	/* in the pool: the TTT */
	bool				busy;
	bool				write;
	bool				read;
	bool				submitted;
	bool				aborted;	/* answer nothing */
	bool				data_err;	/* a Data-Out lost */
	/* a write's data */
	u32				data_got;
	u32				unsol_left;	/* unsolicited to come */
	u32				r2t_off;	/* next offset to ask */
	u32				r2t_out;	/* outstanding R2Ts */
	u32				r2tsn;
	u32				datasn;		/* next Data-Out */
	u8				cdb[TCMX_CDB_MAX + 16];
	u8				sense[TCMX_SENSE_BUFFER_LEN];
	/* data buffer: one page per entry, nr_pages of them */
	struct scatterlist		*sgl;
	unsigned int			nr_pages;
	unsigned int			max_pages;
};

struct tcmx_iscsi_sess {
	struct tcmx_nexus		nexus;	/* registered in FFP */
	bool				registered;
	struct tcmx_iscsi_conn		*conn;
	struct tcmx_iscsi_tpg		*tpg;
	char				initiator[TCMX_ISCSI_NAME_LEN];
	char				alias[TCMX_ISCSI_NAME_LEN];
	u8				isid[6];
	u16				tsih;
	bool				dynamic;	/* no ACL: demo mode */
	u32				exp_cmdsn;
	u32				depth;		/* CmdSN window */
	struct tcmx_iscsi_ops_params	p;
	struct tcmx_iscsi_cmd		*cmds;
	struct tcmx_iscsi_cmd		*free;
	unsigned int			nr_cmds;
	unsigned int			nr_busy;
	/* iscsi_sess_stats: written by the io work only (WRITE_ONCE) */
	struct tcmx_iscsi_sess_counts	counts;
	/* the TMF in progress (tmf.c) */
	bool				tmf_busy;
	u8				tmf_func;
	itt_t				tmf_itt;
	u64				tmf_lun;
	unsigned int			tmf_wait;	/* commands in core */
	__be16				cid;	/* its connection's */
};

/* add @n to a counter of @sess, from its io work */
static inline void tcmx_iscsi_count(u64 *counter, u64 n)
{
	WRITE_ONCE(*counter, *counter + n);
}

/* pdu.c: conn->tx_hdr ready to go, @len bytes of data after it */
size_t tcmx_iscsi_tx_hdr(struct tcmx_iscsi_conn *conn, u32 len);

/* conns.c: connection and session lifetime */
typedef void (*tcmx_iscsi_sess_fn)(struct tcmx_iscsi_sess *sess, void *arg);

extern struct workqueue_struct *tcmx_iscsi_release_wq;

void tcmx_iscsi_conn_start(struct tcmx_iscsi_listener *l, struct socket *sock,
			   work_func_t io_work);
void tcmx_iscsi_conn_close(struct tcmx_iscsi_conn *conn);
/* queue @conn's io work on its CPU, else on @cpu (< 0: this one) */
void tcmx_iscsi_conn_kick(struct tcmx_iscsi_conn *conn, int cpu);
bool tcmx_iscsi_conn_wanted(struct tcmx_iscsi_conn *conn);
void tcmx_iscsi_conn_set_sess(struct tcmx_iscsi_conn *conn,
			      struct tcmx_iscsi_sess *sess);
void tcmx_iscsi_conns_end_on(struct tcmx_iscsi_listener *l,
			     struct tcmx_iscsi_tpg *tpg);
void tcmx_iscsi_sess_walk(struct tcmx_iscsi_tpg *tpg,
			      const char *initiator, tcmx_iscsi_sess_fn fn,
			      void *arg);
void tcmx_iscsi_sess_reinstate(struct tcmx_iscsi_sess *sess);
void tcmx_iscsi_login_free(struct tcmx_iscsi_conn *conn);

/* pdu.c */
int tcmx_iscsi_send_pdu(struct tcmx_iscsi_conn *conn, const void *data,
			u32 len, bool more);
int tcmx_iscsi_send_sgl(struct tcmx_iscsi_conn *conn,
			struct tcmx_iscsi_cmd *ic, u32 off, u32 len,
			bool more);
void tcmx_iscsi_reject(struct tcmx_iscsi_conn *conn, u8 reason);
void tcmx_iscsi_set_sn(struct tcmx_iscsi_conn *conn, __be32 *statsn,
		       __be32 *expcmdsn, __be32 *maxcmdsn, bool advance);

/* conn.c */
void tcmx_iscsi_io_work(struct work_struct *work);

/* the data segment goes to rx_buf (@len bytes), or nowhere */
static inline void tcmx_iscsi_expect_data(struct tcmx_iscsi_conn *conn,
					  u32 len)
{
	conn->rx_cmd = NULL;
	conn->rx_discard = len > conn->rx_buf_len;
}

/* digests: CRC32C, sent least significant byte first */
static inline bool tcmx_iscsi_hdigest(struct tcmx_iscsi_conn *conn)
{
	return conn->sess && conn->sess->p.header_digest;
}

static inline bool tcmx_iscsi_ddigest(struct tcmx_iscsi_conn *conn)
{
	return conn->sess && conn->sess->p.data_digest;
}

static inline __le32 tcmx_iscsi_digest_final(u32 crc)
{
	return cpu_to_le32(~crc);
}

/* login.c */
int tcmx_iscsi_login_pdu(struct tcmx_iscsi_conn *conn);

/* keys.c */
struct tcmx_iscsi_kv {
	char	*key;
	char	*value;
};

int tcmx_iscsi_kv_parse(char *buf, u32 len, struct tcmx_iscsi_kv *kv,
			int max);
int tcmx_iscsi_kv_add(char *buf, u32 size, u32 *len, const char *key,
		      const char *value);
const char *tcmx_iscsi_negotiate(enum tcmx_iscsi_key key, const char *ours,
				 const char *theirs, char *out, size_t size);
int tcmx_iscsi_key_id(const char *name);

/* text.c */
int tcmx_iscsi_sendtargets(struct tcmx_iscsi_conn *conn, const char *which,
			   char *buf, u32 size);
int tcmx_iscsi_text_pdu(struct tcmx_iscsi_conn *conn);

/* session.c */
struct tcmx_iscsi_sess *tcmx_iscsi_sess_alloc(struct tcmx_iscsi_conn *conn);
int tcmx_iscsi_sess_start(struct tcmx_iscsi_sess *sess);
void tcmx_iscsi_sess_free(struct tcmx_iscsi_sess *sess);
struct tcmx_iscsi_cmd *tcmx_iscsi_cmd_get(struct tcmx_iscsi_sess *sess);
void tcmx_iscsi_cmd_put(struct tcmx_iscsi_cmd *ic);
int tcmx_iscsi_cmd_buf(struct tcmx_iscsi_cmd *ic, u32 len);

/* cmd.c */
int tcmx_iscsi_scsi_cmd(struct tcmx_iscsi_conn *conn);
int tcmx_iscsi_data_out(struct tcmx_iscsi_conn *conn);
int tcmx_iscsi_data_done(struct tcmx_iscsi_conn *conn);
void tcmx_iscsi_send_done(struct tcmx_iscsi_conn *conn);
bool tcmx_iscsi_cmdsn_ok(struct tcmx_iscsi_conn *conn);

/* tmf.c */
int tcmx_iscsi_tmf(struct tcmx_iscsi_conn *conn);
void tcmx_iscsi_tmf_cmd_back(struct tcmx_iscsi_conn *conn);

static inline u32 tcmx_iscsi_pad(u32 len)
{
	return (4 - (len & 3)) & 3;
}

#endif /* TCMX_ISCSI_PROTO_H */
