// SPDX-License-Identifier: GPL-2.0
/*
 * Persistent reservations and SPC-2 RESERVE/RELEASE (pr.c) between two
 * I_T nexuses to one device: the fixture's LUN 0 and LUN 5 both export
 * ut_dev.  Registration, keys, the generation, the reservation types'
 * conflicts through the gate, PREEMPT's unit attentions, CLEAR, the
 * parameter list checks, RESERVE(6) and a LUN leaving.
 */
#include <unistd.h>
#include "ut.h"
#include "pr.h"

int mkdir(const char *path, mode_t mode);	/* <sys/stat.h> clashes */

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
	CHECK(ut_cdev.pr_generation == 5 && !ut_dev.gate);
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
	CHECK(ut_itls[1].ua_count == 1 &&
	      ut_itls[1].ua[0] == TCMX_SENSE_UA_RES_RELEASED &&
	      !ut_itls[0].ua_count);
	EXPECT(RUN(C(0x00), 0, NONE, B), TCMX_SENSE_UA_RES_RELEASED);
	/* CLEAR */
	EXPECT(prout(B, 3, 2, 0, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK(ut_itls[0].ua_count == 1 &&
	      ut_itls[0].ua[0] == TCMX_SENSE_UA_RES_PREEMPTED);
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
	/* it held A's LUN while it waited for A's commands, and let go */
	CHECK(!ut_luns[0].ref.count);
	CHECK(ut_itls[0].ua_count == 1 &&
	      ut_itls[0].ua[0] == TCMX_SENSE_UA_REG_PREEMPTED &&
	      !ut_itls[1].ua_count);
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
	CHECK(!ut_dev.gate && !ut_cdev.pr_holder);
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
	CHECK(ut_cdev.pr_holder && ut_dev.gate == BIT(TCMX_GATE_PR));
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0), 512, IN, A),
	       UT_CONFLICT);
	EXPECT(prout(B, 0, 2, 0, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK(!ut_dev.gate && !ut_cdev.pr_holder);
}

static void pr_fields(void)
{
	EXPECT(prin(A, 2, 64), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 8);
	/* CRH SIP_C ATP_C PTPL_C; TMV, APTPL not active */
	CHECK_BYTES(0, 0, 8, 0x1d, 0x80, 0xea, 0x01, 0, 0);
	EXPECT(prin(A, 4, 64), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(prout(A, 8, 0, 1, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	memset(pr_param, 0, sizeof(pr_param));
	pr_param[15] = 1;
	EXPECT(RUN_OUT(C(0x5f, 0, 0, 0, 0, 0, 0, 0, 23, 0), pr_param, 23, 23,
		       A), TCMX_SENSE_PARAM_LIST_LENGTH);
	EXPECT(RUN_OUT(C(0x5f, 0, 0, 0, 0, 0, 0, 0, 24, 0), pr_param, 24, 23,
		       A), TCMX_SENSE_PARAM_LIST_LENGTH);
	pr_param[20] = 0x01;		/* APTPL, and no <dbroot>/pr */
	EXPECT(RUN_OUT(C(0x5f, 0, 0, 0, 0, 0, 0, 0, 24, 0), pr_param, 24, 24,
		       A), TCMX_SENSE_LU_COMM_FAILURE);
	pr_param[20] = 0x08;		/* SPEC_I_PT needs its length too */
	EXPECT(RUN_OUT(C(0x5f, 0, 0, 0, 0, 0, 0, 0, 24, 0), pr_param, 24, 24,
		       A), TCMX_SENSE_PARAM_LIST_LENGTH);
	EXPECT(RUN_OUT(C(0x5f, 6, 0, 0, 0, 0, 0, 0, 24, 0), pr_param, 24, 24,
		       A), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK(ut_sense[15] == 0x8b && ut_sense[17] == 20);
	CHECK(list_empty(&ut_cdev.pr_regs) && !ut_cdev.pr_generation);
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
	      ut_cdev.spc2_holder == &ut_luns[0]);
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
	CHECK(!ut_dev.gate && !ut_cdev.spc2_holder);
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
	/* APTPL, with no <dbroot>/pr to keep it in */
	EXPECT(prmove(A, 0xa, 0xb, 1, 2, 48), TCMX_SENSE_LU_COMM_FAILURE);
	CHECK(ut_cdev.pr_generation == 1);
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

/* one registration's REGISTER parameter list: @bits in byte 20, TIDs */
static u8 reg_param[28 + 2 * 24];

static int prreg(u64 lun, u8 sa, u64 sa_key, u8 bits, int ntid, u64 sas)
{
	u32 len = bits & 0x08 ? 28 + ntid * 24 : 24;
	int i;

	memset(reg_param, 0, sizeof(reg_param));
	put_unaligned_be64(sa_key, &reg_param[8]);
	reg_param[20] = bits;
	if (bits & 0x08)
		put_unaligned_be32(ntid * 24, &reg_param[24]);
	for (i = 0; i < ntid; i++) {
		reg_param[28 + 24 * i] = 0x06;		/* SAS */
		put_unaligned_be64(sas + i, &reg_param[28 + 24 * i + 4]);
	}
	return RUN_OUT(C(0x5f, sa, 0, 0, 0, 0, 0, 0, len, 0), reg_param, len,
		       len, lun);
}

/*
 * ALL_TG_PT and SPEC_I_PT.  The fixture's linked LUNs 0, 5 and 300 are
 * all in one TPG: one initiator port, three target ports (RTPIs 1, 2, 4).
 */
static void pr_all_tg_pt_and_spec_i_pt(void)
{
	ut_tpg.nexus_name = "naa.5001405abcdef012";
	/* ALL_TG_PT: every nexus of the initiator port, one key */
	EXPECT(prreg(A, 0, 0xa, 0x04, 0, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24 && ut_cdev.pr_generation == 1);
	EXPECT(prin(B, 0, 64), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 1, 0, 0, 0, 24, 0, 0, 0, 0, 0, 0, 0, 0xa,
		    0, 0, 0, 0, 0, 0, 0, 0xa, 0, 0, 0, 0, 0, 0, 0, 0xa);
	/* READ FULL STATUS: ALL_TG_PT set, no relative port */
	EXPECT(prin(A, 3, 256), UT_GOOD);
	CHECK(ut_data[8 + 12] == 0x02 && !ut_data[8 + 18] &&
	      !ut_data[8 + 19]);
	/* B reserves with it; unregistering through LUN 300 ends all three */
	EXPECT(prout(B, 1, 0xa, 0, 5), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24 && ut_cdev.pr_holder);
	EXPECT(prreg(300, 0, 0, 0, 0, 0), UT_CONFLICT);	/* key 0 != 0xa */
	memset(pr_param, 0, sizeof(pr_param));
	put_unaligned_be64(0xa, &pr_param[0]);
	EXPECT(RUN_OUT(C(0x5f, 0, 0, 0, 0, 0, 0, 0, 24, 0), pr_param, 24, 24,
		       300), UT_GOOD);
	CHECK(list_empty(&ut_cdev.pr_regs) && !ut_cdev.pr_holder &&
	      !ut_dev.gate && ut_cdev.pr_generation == 2);

	/* SPEC_I_PT: a registered nexus may not; a bad TransportID, none */
	EXPECT(prreg(A, 0, 0xb, 0, 0, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prreg(A, 0, 0xb, 0x08, 1, 0x5001405abcdef012ULL),
	       UT_CONFLICT);				/* key 0 != 0xb */
	tcmx_pr_lun_gone(&ut_luns[0], &ut_dev);
	/* through the receiving port only, the initiator is itself */
	EXPECT(prreg(A, 0, 0xb, 0x08, 1, 0x5001405abcdef012ULL), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 52);
	EXPECT(prin(B, 0, 64), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 4, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0xb);
	/* a registered nexus may not give TransportIDs */
	put_unaligned_be64(0xb, &reg_param[0]);
	EXPECT(RUN_OUT(C(0x5f, 0, 0, 0, 0, 0, 0, 0, 52, 0), reg_param, 52,
		       52, A), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK(ut_sense[15] == 0x8b && ut_sense[17] == 20);
	tcmx_pr_lun_gone(&ut_luns[0], &ut_dev);
	/* an initiator no nexus has: refused, pointing at its TransportID */
	EXPECT(prreg(A, 0, 0xb, 0x0c, 2, 0x5001405abcdef012ULL),
	       TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK(ut_sense[15] == 0x80 && ut_sense[16] == 0 && ut_sense[17] == 52);
	CHECK(list_empty(&ut_cdev.pr_regs));
	/* a TRANSPORTID PARAMETER DATA LENGTH that does not add up */
	put_unaligned_be32(25, &reg_param[24]);
	EXPECT(RUN_OUT(C(0x5f, 0, 0, 0, 0, 0, 0, 0, 52, 0), reg_param, 52,
		       52, A), TCMX_SENSE_PARAM_LIST_LENGTH);
	/* with ALL_TG_PT: the initiator through every port */
	EXPECT(prreg(A, 0, 0xc, 0x0c, 1, 0x5001405abcdef012ULL), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 52);
	EXPECT(prin(A, 0, 64), UT_GOOD);
	CHECK(get_unaligned_be32(&ut_data[4]) == 24);
	tcmx_pr_lun_gone(&ut_luns[0], &ut_dev);
	tcmx_pr_lun_gone(&ut_luns[1], &ut_dev);
	tcmx_pr_lun_gone(&ut_luns[3], &ut_dev);
	ut_tpg.nexus_name = NULL;
}

static const struct tcmx_fabric_ops ut_loop_ops = { .name = "loopback" };

/*
 * ut_nexus has another identity now: its I_T_L nexuses' hashes, which
 * tcmx_itl_add() makes from the name in the kernel
 */
static void ut_nexus_renamed(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ut_itls); i++)
		if (ut_itls[i].lun)
			pr_hash_set(&ut_dev, &ut_itls[i].pr_hash,
				    ut_nexus.name, ut_nexus.port_id);
}

static char *aptpl_file(char *buf, size_t size)
{
	char path[4200];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/pr/aptpl_%s", tcmx_dbroot,
		 ut_cdev.t10.unit_serial);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* APTPL: the file after each change, and its metadata restored */
static void pr_aptpl(void)
{
	static const char want[] =
		"PR_REG_START: 0\ninitiator_fabric=loopback\n"
		"initiator_node=naa.5001405abcdef012\nsa_res_key=10\n"
		"res_holder=1\nres_type=05\nres_scope=00\nres_all_tg_pt=0\n"
		"mapped_lun=0\ntarget_fabric=loopback\n"
		"target_node=naa.50014050a1b2c3d4\ntpgt=1\nport_rtpi=1\n"
		"target_lun=0\nPR_REG_END: 0\n";
	static const char restore[] =
		"0,initiator_fabric=loopback,initiator_node=naa.5001405abcdef012,"
		"sa_res_key=10,res_holder=1,res_type=05,res_scope=00,"
		"res_all_tg_pt=0,mapped_lun=0,target_fabric=loopback,"
		"target_node=naa.50014050a1b2c3d4,tpgt=1,port_rtpi=1,"
		"target_lun=0,0";
	static const u8 block[512];
	const char *saved_root = "/tmp";
	char root[] = "/tmp/ut_aptpl_XXXXXX", dir[64], buf[2048];
	const struct tcmx_fabric_ops *ops = ut_tpg.ops;

	CHECK(mkdtemp(root) != NULL);
	snprintf(dir, sizeof(dir), "%s/pr", root);
	CHECK(mkdir(dir, 0700) == 0);
	strcpy(tcmx_dbroot, root);
	/* a fabric of several nexuses per TPG: the nexus names itself */
	ut_tpg.ops = &ut_loop_ops;
	strcpy(ut_nexus.name, "naa.5001405abcdef012");
	ut_nexus_renamed();

	EXPECT(prreg(A, 0, 0xa, 0x01, 0, 0), UT_GOOD);
	CHECK(ut_cdev.pr_aptpl);
	EXPECT(prout(A, 1, 0xa, 0, 5), UT_GOOD);
	CHECK(aptpl_file(buf, sizeof(buf)) && !strcmp(buf, want));
	EXPECT(prin(A, 2, 64), UT_GOOD);
	CHECK(ut_data[3] == 0x81);			/* PTPL_A */

	/* the device again: its metadata waits for LUN 0's nexus */
	tcmx_pr_lun_gone(&ut_luns[0], &ut_dev);
	ut_cdev.pr_aptpl = false;
	CHECK(!ut_cdev.pr_holder && list_empty(&ut_cdev.pr_regs));
	CHECK(tcmx_pr_aptpl_metadata(&ut_dev, "  \n", 3) == 3);
	CHECK(tcmx_pr_aptpl_metadata(&ut_dev, "sa_res_key=1,bogus=2", 20) ==
	      -EINVAL);
	CHECK(tcmx_pr_aptpl_metadata(&ut_dev, "initiator_node=x,sa_res_key=1",
				     29) == -EINVAL);	/* no target_node */
	CHECK(tcmx_pr_aptpl_metadata(&ut_dev, "initiator_node=x,target_node=y,sa_res_key=1,res_holder=1,res_type=02",
				     68) == -EINVAL);	/* not a type */
	ut_cdev.export_count = 1;
	CHECK(tcmx_pr_aptpl_metadata(&ut_dev, restore, strlen(restore)) ==
	      -EBUSY);
	ut_cdev.export_count = 0;
	CHECK(tcmx_pr_aptpl_metadata(&ut_dev, restore, strlen(restore)) ==
	      strlen(restore));
	CHECK(ut_cdev.pr_saved_count == 1 && list_empty(&ut_cdev.pr_regs));
	ut_cdev.export_count = 1;
	tcmx_pr_lun_linked(&ut_luns[1]);		/* LUN 5: not its */
	CHECK(ut_cdev.pr_saved_count == 1 && list_empty(&ut_cdev.pr_regs));
	/* LUN 0's: registered for its initiator port, the nexus has it */
	tcmx_pr_lun_linked(&ut_luns[0]);
	CHECK(!ut_cdev.pr_saved_count && ut_cdev.pr_aptpl &&
	      ut_cdev.pr_type == 5 && ut_dev.gate == BIT(TCMX_GATE_PR));
	CHECK(ut_itls[0].pr_reg && !ut_itls[1].pr_reg &&
	      !strcmp(ut_itls[0].pr_reg->name, "naa.5001405abcdef012"));
	EXPECT(prin(B, 1, 64), UT_GOOD);
	CHECK_BYTES(8, 0, 0, 0, 0, 0, 0, 0, 0xa, 0, 0, 0, 0, 0, 0x05);
	/* Write Exclusive, Registrants Only: B's writes conflict */
	EXPECT(RUN_OUT(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0), block, 512, 512, B),
	       UT_CONFLICT);

	/* APTPL 0 in the last REGISTER: the file says nothing is kept */
	EXPECT(prreg(A, 6, 0xa, 0, 0, 0), UT_GOOD);
	CHECK(!ut_cdev.pr_aptpl);
	CHECK(aptpl_file(buf, sizeof(buf)) &&
	      !strcmp(buf, "No Registrations or Reservations\n"));
	EXPECT(prout(A, 3, 0xa, 0, 0), UT_GOOD);	/* CLEAR */
	CHECK(!ut_dev.gate && list_empty(&ut_cdev.pr_regs));
	/* metadata left waiting goes with the device */
	CHECK(tcmx_pr_aptpl_metadata(&ut_dev, restore, strlen(restore)) ==
	      -EBUSY);
	ut_cdev.export_count = 0;
	CHECK(tcmx_pr_aptpl_metadata(&ut_dev, restore, strlen(restore)) ==
	      strlen(restore));
	tcmx_pr_dev_free(&ut_dev);
	CHECK(!ut_cdev.pr_saved_count && list_empty(&ut_cdev.pr_saved));
	ut_cdev.export_count = 1;

	snprintf(buf, sizeof(buf), "%s/aptpl_%s", dir, ut_cdev.t10.unit_serial);
	unlink(buf);
	rmdir(dir);
	rmdir(root);
	strcpy(tcmx_dbroot, saved_root);
	ut_tpg.ops = ops;
	ut_nexus.name[0] = '\0';
}

/* an iSCSI name of the longest kind a TransportID carries */
static char pr_long_name[PRI_MAX_NAME + 32];

static void pr_name_grows(void)
{
	ut_tpg.nexus_name = pr_long_name;
}

/*
 * READ FULL STATUS while the initiator port's name changes under it
 * (another CPU renaming the nexus between the command's sizing and its
 * writing): the data stays inside its buffer (ASan) and tells one name.
 */
static void pr_full_status_name_changes(void)
{
	u32 tid;

	memset(pr_long_name, 0, sizeof(pr_long_name));
	memcpy(pr_long_name, "iqn.", 4);
	memset(pr_long_name + 4, 'x', sizeof(pr_long_name) - 5);
	ut_tpg.nexus_name = "iqn.a";
	EXPECT(prout(A, 0, 0, 0xa, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prout(B, 0, 0, 0xb, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	ut_kzalloc_hook = pr_name_grows;
	EXPECT(prin(A, 3, 2048), UT_GOOD);
	CHECK(!ut_kzalloc_hook);
	/* two descriptors, each 24 bytes and a TransportID of one name */
	tid = get_unaligned_be32(&ut_data[8 + 20]);
	CHECK(tid == 8 || tid == PRI_TID_ISCSI_HDR + PRI_MAX_NAME);
	CHECK(get_unaligned_be32(&ut_data[4]) == 2 * (24 + tid));
	CHECK(ut_cmd.xfer_len == 8 + 2 * (24 + tid));
	ut_tpg.nexus_name = "iqn.a";
	EXPECT(prout(A, 0, 0xa, 0, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(prout(B, 0, 0xb, 0, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	ut_tpg.nexus_name = NULL;
}

void ut_test_pr(void)
{
	ut_dev.attrib.emulate_pr = 1;
	ut_luns[0].tpg = ut_luns[1].tpg = &ut_tpg;
	pr_register_read_keys();
	ut_cdev.pr_generation = 0;
	pr_write_exclusive_registrants_only();
	tcmx_pr_lun_gone(&ut_luns[0], &ut_dev);
	ut_cdev.pr_generation = 0;
	pr_exclusive_access_preempt();
	tcmx_pr_lun_gone(&ut_luns[0], &ut_dev);
	ut_cdev.pr_generation = 0;
	pr_all_registrants();
	ut_cdev.pr_generation = 0;
	pr_fields();
	ut_cdev.pr_generation = 0;
	pr_register_and_move();
	ut_cdev.pr_generation = 0;
	pr_all_tg_pt_and_spec_i_pt();
	pr_aptpl();
	pr_spc2();
	pr_full_status_name_changes();
	tcmx_pr_lun_gone(&ut_luns[0], &ut_dev);
	tcmx_pr_lun_gone(&ut_luns[1], &ut_dev);
}
