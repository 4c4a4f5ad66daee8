// SPDX-License-Identifier: GPL-2.0
/*
 * Persistent reservations and SPC-2 RESERVE/RELEASE (pr.c) between two
 * I_T nexuses to one device: the fixture's LUN 0 and LUN 5 both export
 * ut_dev.  Registration, keys, the generation, the reservation types'
 * conflicts through the gate, PREEMPT's unit attentions, CLEAR, the
 * parameter list checks, RESERVE(6) and a LUN leaving.
 */
#include "ut.h"

#define IN	DMA_FROM_DEVICE
#define OUT	DMA_TO_DEVICE
#define NONE	DMA_NONE

#define A	0	/* LUN ids: two nexuses */
#define B	5

static u8 pr_param[24];

/* PERSISTENT RESERVE OUT @sa with @key, @sa_key, @type from @lun */
static int prout(u64 lun, u8 sa, u64 key, u64 sa_key, u8 type)
{
	memset(pr_param, 0, sizeof(pr_param));
	put_unaligned_be64(key, &pr_param[0]);
	put_unaligned_be64(sa_key, &pr_param[8]);
	return RUN_OUT(C(0x5f, sa, type, 0, 0, 0, 0, 0, 24, 0), pr_param, 24,
		       24, lun);
}

static int prin(u64 lun, u8 sa, u16 alloc)
{
	return RUN(C(0x5e, sa, 0, 0, 0, 0, 0, alloc >> 8, alloc & 0xff, 0),
		   alloc, IN, lun);
}

static void pr_register_read_keys(void)
{
	EXPECT(prin(A, 0, 64), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 8);
	CHECK_BYTES(0, 0, 0, 0, 0, 0, 0, 0, 0);
	/* an unregistered nexus with a key: conflict, nothing registered */
	EXPECT(prout(A, 0, 1, 0xaa, 0), UT_CONFLICT);
	EXPECT(prout(A, 0, 0, 0xaa, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prout(B, 6, 0x77, 0xbb, 0), UT_GOOD);	/* ignores the key */
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prin(B, 0, 64), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK_BYTES(0, 0, 0, 0, 2, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0xaa,
		    0, 0, 0, 0, 0, 0, 0, 0xbb);
	/* truncated: the length field still says 16 */
	EXPECT(prin(B, 0, 12), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 12);
	CHECK_BYTES(0, 0, 0, 0, 2, 0, 0, 0, 16, 0, 0, 0, 0, UT_FILL);
	/* a wrong key changes nothing; the right one changes the key */
	EXPECT(prout(A, 0, 0xab, 0xcc, 0), UT_CONFLICT);
	EXPECT(prout(A, 0, 0xaa, 0xcc, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prout(A, 0, 0xcc, 0, 0), UT_GOOD);	/* unregister */
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prin(A, 0, 64), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 4, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0xbb);
	EXPECT(prout(B, 0, 0xbb, 0, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK(ut_dev.pr_generation == 5 && !ut_dev.gate);
}

static void pr_write_exclusive_registrants_only(void)
{
	static const u8 block[512];

	EXPECT(prout(A, 0, 0, 1, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	/* registrations alone: nothing in the gate */
	CHECK(!ut_dev.gate);
	EXPECT(prout(A, 1, 1, 0, 5), UT_GOOD);
	CHECK(ut_dev.gate == BIT(TCMX_GATE_PR));
	EXPECT(prin(B, 1, 64), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK_BYTES(0, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 1,
		    0, 0, 0, 0, 0, 5, 0, 0);
	/* B unregistered: reads and TEST UNIT READY pass, writes conflict */
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0), 512, IN, B), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	EXPECT(RUN(C(0x00), 0, NONE, B), UT_GOOD);
	CHECK_NO_DATA();
	EXPECT(RUN_OUT(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0), block, 512, 512, B),
	       UT_CONFLICT);
	EXPECT(RUN_OUT(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0), block, 512, 512, A),
	       UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	/* RESERVE from an unregistered nexus, another type from the holder */
	EXPECT(prout(B, 1, 0, 0, 5), UT_CONFLICT);
	EXPECT(prout(A, 1, 1, 0, 1), UT_CONFLICT);
	/* registered: B writes */
	EXPECT(prout(B, 0, 0, 2, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(RUN_OUT(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0), block, 512, 512, B),
	       UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	/* RELEASE with the wrong type; the right one tells B */
	EXPECT(prout(A, 2, 1, 0, 6), TCMX_SENSE_INVALID_RELEASE);
	EXPECT(prout(A, 2, 1, 0, 5), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK(!(ut_dev.gate & BIT(TCMX_GATE_PR)));
	CHECK(ut_luns[1].ua_count == 1 &&
	      ut_luns[1].ua[0] == TCMX_SENSE_UA_RES_RELEASED &&
	      !ut_luns[0].ua_count);
	EXPECT(RUN(C(0x00), 0, NONE, B), TCMX_SENSE_UA_RES_RELEASED);
	/* CLEAR */
	EXPECT(prout(B, 3, 2, 0, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK(ut_luns[0].ua_count == 1 &&
	      ut_luns[0].ua[0] == TCMX_SENSE_UA_RES_PREEMPTED);
	EXPECT(RUN(C(0x00), 0, NONE, A), TCMX_SENSE_UA_RES_PREEMPTED);
	EXPECT(prin(A, 0, 64), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 3, 0, 0, 0, 0);
}

static void pr_exclusive_access_preempt(void)
{
	EXPECT(prout(A, 0, 0, 1, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prout(B, 0, 0, 2, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prout(A, 1, 1, 0, 3), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	/* exclusive access: even a registered B may not read */
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0), 512, IN, B),
	       UT_CONFLICT);
	EXPECT(RUN(C(0x12, 0, 0, 0, 36, 0), 36, IN, B), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 36);
	/* PREEMPT with a key nobody has */
	EXPECT(prout(B, 4, 2, 9, 3), UT_CONFLICT);
	EXPECT(prout(B, 4, 2, 0, 3), TCMX_SENSE_INVALID_PARAM_FIELD);
	/* B preempts A, and takes it as write exclusive */
	EXPECT(prout(B, 5, 2, 1, 1), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK(ut_luns[0].ua_count == 1 &&
	      ut_luns[0].ua[0] == TCMX_SENSE_UA_REG_PREEMPTED &&
	      !ut_luns[1].ua_count);
	/* PERSISTENT RESERVE IN reports a unit attention too */
	EXPECT(prin(A, 1, 64), TCMX_SENSE_UA_REG_PREEMPTED);
	EXPECT(prin(A, 1, 64), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 3, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 2,
		    0, 0, 0, 0, 0, 1, 0, 0);
	/* READ FULL STATUS: B's key, R_HOLDER, type, RTPI 2 */
	EXPECT(prin(A, 3, 256), UT_GOOD);
	CHECK_BYTES(8, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0x01, 1, 0, 0,
		    0, 0, 0, 2);
	/* the LUN leaves: its registration and reservation go */
	tcmx_pr_lun_gone(&ut_luns[1], &ut_dev);
	CHECK(!ut_dev.gate && !ut_dev.pr_holder);
	EXPECT(prin(A, 0, 64), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 3, 0, 0, 0, 0);
}

static void pr_all_registrants(void)
{
	EXPECT(prout(A, 0, 0, 1, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prout(B, 0, 0, 2, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prout(A, 1, 1, 0, 8), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	/* every registrant holds it: B reads; the key reads as 0 */
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0), 512, IN, B), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	EXPECT(prin(B, 1, 64), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 2, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0,
		    0, 0, 0, 0, 0, 8, 0, 0);
	/* A leaves: the reservation stays with B */
	EXPECT(prout(A, 0, 1, 0, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK(ut_dev.pr_holder && ut_dev.gate == BIT(TCMX_GATE_PR));
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0), 512, IN, A),
	       UT_CONFLICT);
	EXPECT(prout(B, 0, 2, 0, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK(!ut_dev.gate && !ut_dev.pr_holder);
}

static void pr_fields(void)
{
	EXPECT(prin(A, 2, 64), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 8);
	CHECK_BYTES(0, 0, 8, 0x10, 0x80, 0xea, 0x01, 0, 0);
	EXPECT(prin(A, 4, 64), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(prout(A, 8, 0, 1, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	memset(pr_param, 0, sizeof(pr_param));
	pr_param[15] = 1;
	EXPECT(RUN_OUT(C(0x5f, 0, 0, 0, 0, 0, 0, 0, 23, 0), pr_param, 23, 23,
		       A), TCMX_SENSE_PARAM_LIST_LENGTH);
	EXPECT(RUN_OUT(C(0x5f, 0, 0, 0, 0, 0, 0, 0, 24, 0), pr_param, 24, 23,
		       A), TCMX_SENSE_PARAM_LIST_LENGTH);
	pr_param[20] = 0x01;		/* APTPL */
	EXPECT(RUN_OUT(C(0x5f, 0, 0, 0, 0, 0, 0, 0, 24, 0), pr_param, 24, 24,
		       A), TCMX_SENSE_INVALID_PARAM_FIELD);
	pr_param[20] = 0x08;		/* SPEC_I_PT, longer list */
	EXPECT(RUN_OUT(C(0x5f, 0, 0, 0, 0, 0, 0, 0, 24, 0), pr_param, 24, 24,
		       A), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK(list_empty(&ut_dev.pr_regs) && !ut_dev.pr_generation);
	EXPECT(prout(A, 0, 0, 1, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prout(A, 1, 1, 0, 2), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(prout(A, 1, 1, 0, 0x13), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(prout(A, 0, 1, 0, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	/* emulate_pr 0: no such commands */
	ut_dev.attrib.emulate_pr = 0;
	EXPECT(prin(A, 0, 64), TCMX_SENSE_INVALID_OPCODE);
	EXPECT(RUN(C(0x16), 0, NONE, A), TCMX_SENSE_INVALID_OPCODE);
	ut_dev.attrib.emulate_pr = 1;
}

static void pr_spc2(void)
{
	EXPECT(RUN(C(0x16), 0, NONE, A), UT_GOOD);
	CHECK_NO_DATA();
	CHECK(ut_dev.gate == BIT(TCMX_GATE_PR) &&
	      ut_dev.spc2_holder == &ut_luns[0]);
	EXPECT(RUN(C(0x00), 0, NONE, B), UT_CONFLICT);
	EXPECT(RUN(C(0x16), 0, NONE, B), UT_CONFLICT);
	EXPECT(prin(B, 0, 64), UT_CONFLICT);
	EXPECT(RUN(C(0x12, 0, 0, 0, 36, 0), 36, IN, B), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 36);
	/* RELEASE by another nexus: GOOD, still reserved */
	EXPECT(RUN(C(0x17), 0, NONE, B), UT_GOOD);
	CHECK_NO_DATA();
	EXPECT(RUN(C(0x00), 0, NONE, B), UT_CONFLICT);
	EXPECT(RUN(C(0x00), 0, NONE, A), UT_GOOD);
	CHECK_NO_DATA();
	EXPECT(RUN(C(0x57), 0, NONE, A), UT_GOOD);
	CHECK_NO_DATA();
	CHECK(!ut_dev.gate && !ut_dev.spc2_holder);
	EXPECT(RUN(C(0x16, 0x10), 0, NONE, A), TCMX_SENSE_INVALID_CDB_FIELD);
	/* not while a registration exists */
	EXPECT(prout(B, 0, 0, 3, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(RUN(C(0x56), 0, NONE, A), UT_CONFLICT);
	EXPECT(prout(B, 0, 3, 0, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK(!ut_dev.gate);
}

/* REGISTER AND MOVE from @lun to relative port @rtpi, a SAS TransportID */
static u8 mv_param[48];

static int prmove(u64 lun, u64 key, u64 sa_key, u8 byte17, u16 rtpi,
		  u32 len)
{
	memset(mv_param, 0, sizeof(mv_param));
	put_unaligned_be64(key, &mv_param[0]);
	put_unaligned_be64(sa_key, &mv_param[8]);
	mv_param[17] = byte17;
	put_unaligned_be16(rtpi, &mv_param[18]);
	put_unaligned_be32(24, &mv_param[20]);
	mv_param[24] = 0x06;				/* SAS */
	put_unaligned_be64(0x5001405abcdef012ULL, &mv_param[28]);
	return RUN_OUT(C(0x5f, 7, 1, 0, 0, 0, 0, 0, len, 0), mv_param, len,
		       len, lun);
}

static void pr_register_and_move(void)
{
	static const u8 block[512];

	ut_tpg.nexus_name = "naa.5001405abcdef012";
	EXPECT(prout(A, 0, 0, 0xa, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prout(A, 1, 0xa, 0, 1), UT_GOOD);		/* WE */
	CHECK(ut_cmd.xfer_len == 24);
	/* not the holder, not its key: conflicts; bad lists: refused */
	EXPECT(prmove(B, 0xb, 0xb, 0, 1, 48), UT_CONFLICT);
	EXPECT(prmove(A, 0xb, 0xb, 0, 2, 48), UT_CONFLICT);
	EXPECT(prmove(A, 0xa, 0, 0, 2, 48), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK(ut_sense[15] == 0x80 && ut_sense[16] == 0 && ut_sense[17] == 8);
	EXPECT(prmove(A, 0xa, 0xb, 0, 9, 48), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK(ut_sense[17] == 18);
	EXPECT(prmove(A, 0xa, 0xb, 0, 1, 48), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK(ut_sense[17] == 24);
	EXPECT(prmove(A, 0xa, 0xb, 0, 2, 40), TCMX_SENSE_PARAM_LIST_LENGTH);
	EXPECT(prmove(A, 0xa, 0xb, 1, 2, 48), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK(ut_sense[15] == 0x88 && ut_sense[17] == 17);
	CHECK(ut_dev.pr_generation == 1);
	/* to B: registered with the service action key, the holder */
	EXPECT(prmove(A, 0xa, 0xb, 0, 2, 48), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 48);
	EXPECT(prin(A, 1, 64), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 2, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0xb,
		    0, 0, 0, 0, 0, 0x01, 0, 0);
	EXPECT(RUN_OUT(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0), block, 512, 512, A),
	       UT_CONFLICT);
	EXPECT(RUN_OUT(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0), block, 512, 512, B),
	       UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	/* back to A, which keeps its key; UNREG drops B */
	EXPECT(prmove(B, 0xb, 0xc, 0x02, 1, 48), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 48);
	EXPECT(prin(B, 0, 64), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 3, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0xa);
	EXPECT(prin(B, 1, 64), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 3, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0xa,
		    0, 0, 0, 0, 0, 0x01, 0, 0);
	/* an all-registrants reservation cannot move */
	EXPECT(prout(A, 2, 0xa, 0, 1), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prout(A, 1, 0xa, 0, 7), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prmove(A, 0xa, 0xb, 0, 2, 48), UT_CONFLICT);
	EXPECT(prout(A, 3, 0xa, 0, 0), UT_GOOD);		/* CLEAR */
	CHECK(ut_cmd.xfer_len == 24 && !ut_dev.gate);
	ut_tpg.nexus_name = NULL;
}

void ut_test_pr(void)
{
	ut_dev.attrib.emulate_pr = 1;
	ut_luns[0].tpg = ut_luns[1].tpg = &ut_tpg;
	pr_register_read_keys();
	ut_dev.pr_generation = 0;
	pr_write_exclusive_registrants_only();
	tcmx_pr_lun_gone(&ut_luns[0], &ut_dev);
	ut_dev.pr_generation = 0;
	pr_exclusive_access_preempt();
	tcmx_pr_lun_gone(&ut_luns[0], &ut_dev);
	ut_dev.pr_generation = 0;
	pr_all_registrants();
	ut_dev.pr_generation = 0;
	pr_fields();
	ut_dev.pr_generation = 0;
	pr_register_and_move();
	pr_spc2();
	tcmx_pr_lun_gone(&ut_luns[0], &ut_dev);
	tcmx_pr_lun_gone(&ut_luns[1], &ut_dev);
}
