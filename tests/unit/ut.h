/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny harness for the core's CDB decoding (target/sbc.c, target/spc.c)
 * built in userspace.  A case starts with each RUN() of one CDB and collects
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
extern struct tcmx_dev ut_dev;
extern struct tcmx_wwn ut_wwn;
extern struct tcmx_tpg ut_tpg;
extern struct tcmx_lun ut_luns[4];	/* at LUN 0, 5, 7 (unlinked), 300 */
extern void *ut_slots[UT_XA_MAX];	/* ut_tpg.luns */
extern struct tcmx_backend_ops ut_ops;

enum tcmx_sense ut_stub_rw(struct tcmx_cmd *cmd);
enum tcmx_sense ut_stub_sync(struct tcmx_cmd *cmd);

void ut_fixture_reset(void);
enum tcmx_sense ut_run(const char *file, int line, const u8 *cdb,
		       u32 data_len, enum dma_data_direction dir, u64 lun_id);
void ut_expect(const char *file, int line, enum tcmx_sense got,
	       enum tcmx_sense want);
void ut_check(const char *file, int line, bool ok, const char *what);
void ut_check_bytes(const char *file, int line, u32 off, const u8 *want,
		    u32 len);

void ut_test_sbc(void);
void ut_test_spc(void);
void ut_test_spc_more(void);

/* a 16-byte CDB from its leading bytes */
#define C(...)		((const u8 []){ __VA_ARGS__, [15] = 0 })
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
/* GOOD without data: nothing reached the initiator's buffer */
#define CHECK_NO_DATA()	CHECK(ut_cmd.xfer_len == 0 && ut_data[0] == UT_FILL)

#endif /* UT_H */
