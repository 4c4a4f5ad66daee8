/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny harness for the core's command table and CDB decoding (target/cdb.c,
 * sbc.c, spc.c) and its sense builder and data-in copies (target/reply.c),
 * the real files built in userspace.  A case starts with each RUN() of one CDB and collects
 * the EXPECT()/CHECK*() that follow it; it passes if all of them hold.  A
 * case must check some observable bytes besides the returned status (a
 * failing status checks itself: nothing may have been transferred), else it
 * fails as "no byte assertion".
 */
#ifndef UT_H
#define UT_H

#include "tcmx_core.h"

#define UT_DATA_LEN	(1 << 20)
#define UT_FILL		0xee		/* data-in buffer before each case */

extern u8 ut_data[UT_DATA_LEN];		/* what the initiator receives */
extern struct tcmx_cmd ut_cmd;		/* the last command run */
/* the device, as the core allocates it; ut_dev is what a backend sees */
extern struct tcmx_core_dev ut_cdev;
#define ut_dev		(ut_cdev.dev)
extern struct tcmx_wwn ut_wwn;
extern struct tcmx_tpg ut_tpg;
extern struct tcmx_nexus ut_nexus;	/* demo mode: luns.slot = ut_slots */
extern struct tcmx_lun ut_luns[4];	/* at LUN 0, 5, 7 (unlinked), 300 */
extern void *ut_slots[UT_XA_MAX];	/* ut_tpg.luns */
/* ut_nexus's I_T_L nexuses, one per linked LUN: ut_itls[i] is ut_luns[i]'s */
extern struct tcmx_itl ut_itls[4];
extern void *ut_itl_slots[UT_XA_MAX];	/* ut_nexus.itls */
/* a nexus_per_tpg fabric, as loopback: ut_tpg's unless a case changes it */
extern const struct tcmx_fabric_ops ut_fabric_ops;
/* the nexus RUN() sends on (NULL: ut_nexus); the reset sets it NULL */
extern struct tcmx_nexus *ut_run_nexus;
extern struct tcmx_backend_ops ut_ops;

extern u8 ut_sense[TCMX_SENSE_BUFFER_LEN];	/* the last command's */

enum tcmx_status ut_stub_rw(struct tcmx_cmd *cmd);
enum tcmx_status ut_stub_sync(struct tcmx_cmd *cmd);

/*
 * What RUN() gives: one of these, or for a CHECK CONDITION the enum
 * tcmx_sense code whose key/ASC/ASCQ (checked against ut_main.c's own
 * table) its sense data holds.
 */
#define UT_GOOD		(-1)
#define UT_BUSY		(-2)
#define UT_DEFERRED	(-3)
#define UT_CONFLICT	(-5)	/* RESERVATION CONFLICT */
#define UT_BAD_SENSE	(-4)	/* malformed, or a code no row names */

void ut_fixture_reset(void);
/* ut_fixture.c: set @cmd up as a fabric submits it; parse and execute it */
void ut_cmd_prepare(struct tcmx_cmd *cmd, const u8 *cdb,
		    struct scatterlist *sg, u32 data_len,
		    enum dma_data_direction dir, u64 lun_id, u8 *sense);
#define UT_NO_EXECUTE	(-6)	/* parse gave GOOD without ->execute, ->desc */
int ut_cmd_exec(struct tcmx_cmd *cmd);
/* key/ASC/ASCQ of sense data (-1: not 70h/72h); their enum tcmx_sense */
int ut_sense_kcq(const u8 *s, u8 *key, u8 *asc, u8 *ascq);
int ut_sense_code(u8 key, u8 asc, u8 ascq);
int ut_run(const char *file, int line, const u8 *cdb, u32 data_len,
	   enum dma_data_direction dir, u64 lun_id);
void ut_expect(const char *file, int line, int got, int want);
void ut_check_sense(const char *file, int line, const u8 *want, u32 len);
void ut_check(const char *file, int line, bool ok, const char *what);
void ut_check_bytes(const char *file, int line, u32 off, const u8 *want,
		    u32 len);

void ut_test_sbc(void);
void ut_test_spc(void);
void ut_test_spc_more(void);
void ut_test_cdb(void);
void ut_test_lbp(void);

/* the next RUN()'s data-out buffer starts with these @ut_out_len bytes */
extern const u8 *ut_out;
extern u32 ut_out_len;
#define RUN_OUT(cdb, buf, buf_len, data_len, lun)			\
	(ut_out = (buf), ut_out_len = (buf_len),			\
	 RUN(cdb, data_len, DMA_TO_DEVICE, lun))
/* RUN() with a CDB of @cdb_len bytes (1..32) carried, @cdb that long */
extern u8 ut_cdb_len;
#define RUN_LEN(cdb, cdb_len, len, dir, lun)				\
	(ut_cdb_len = (cdb_len), RUN(cdb, len, dir, lun))
void ut_test_xcopy(void);
void ut_test_timestamp_buffers(void);
extern u8 *ut_dout;		/* ut_xcopy.c: see ut_main.c */
void ut_test_integrity(void);
void ut_test_mode(void);
void ut_test_pr(void);
void ut_test_nexus(void);

/* tcmx_defer() calls so far (ut_stubs.c: each runs at once) */
extern int ut_defers;

/* WARN_ON()s seen, and whether the current check expects them */
extern int ut_warns;
extern bool ut_warn_ok;
/* @c holds and evaluating it WARNs exactly once */
#define EXPECT_WARN(c)	do {						\
	ut_warns = 0;							\
	ut_warn_ok = true;						\
	CHECK((c) && ut_warns == 1);					\
	ut_warn_ok = false;						\
} while (0)

/* a 16-byte CDB from its leading bytes */
#define C(...)		((const u8 []){ __VA_ARGS__, [15] = 0 })
/* a 32-byte CDB from its leading bytes */
#define C32(...)	((const u8 []){ __VA_ARGS__, [31] = 0 })
#define RUN(cdb, len, dir, lun) ut_run(__FILE__, __LINE__, cdb, len, dir, lun)
#define EXPECT(e, want)	ut_expect(__FILE__, __LINE__, (e), (want))
#define CHECK(c)	ut_check(__FILE__, __LINE__, (c), #c)
/* ut_data[off...] holds exactly these bytes */
#define CHECK_BYTES(off, ...)						\
	ut_check_bytes(__FILE__, __LINE__, off, (const u8 []){ __VA_ARGS__ }, \
		       sizeof((const u8 []){ __VA_ARGS__ }))
/* ut_data[off...] holds string literal s, without its NUL */
#define CHECK_STR(off, s)						\
	ut_check_bytes(__FILE__, __LINE__, off, (const u8 *)(s), sizeof(s) - 1)
/* the sense data are exactly these bytes */
#define CHECK_SENSE(...)						\
	ut_check_sense(__FILE__, __LINE__, (const u8 []){ __VA_ARGS__ },	\
		       sizeof((const u8 []){ __VA_ARGS__ }))
/* GOOD without data: nothing reached the initiator's buffer */
#define CHECK_NO_DATA()	CHECK(ut_cmd.xfer_len == 0 && ut_data[0] == UT_FILL)

#endif /* UT_H */
