// SPDX-License-Identifier: GPL-2.0
/*
 * MODE SELECT(6)/(10) of the caching and control pages, the unit
 * attentions it and others establish (ua.c), their order, REQUEST SENSE,
 * the commands exempt from them and emulate_ua_intlck_ctrl.
 */
#include "ut.h"

#define IN	DMA_FROM_DEVICE
#define OUT	DMA_TO_DEVICE
#define NONE	DMA_NONE

/* RUN() with these data-out bytes in the buffer */
#define RUN_PARAMS(cdb, lun, ...) ({					\
	static const u8 _d[] = { __VA_ARGS__ };				\
									\
	RUN_OUT(cdb, _d, sizeof(_d), sizeof(_d), lun);			\
})

#define HDR6		0, 0, 0, 0
#define CONTROL		0x0a, 0x0a, 0x02, 0x10, 0x00, 0x40, 0, 0, 0, 0, 0, 0
#define CACHING_WCE	0x08, 0x12, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
			0, 0, 0, 0, 0

/* the field pointer bytes of fixed sense data: SKSV, C/D, BPV, bit; byte */
#define CHECK_FIELD(b15, fp)						\
	CHECK(ut_sense[15] == (b15) && ut_sense[16] == (fp) >> 8 &&	\
	      ut_sense[17] == ((fp) & 0xff))

static void mode_select_changes(void)
{
	/* WCE off by MODE SELECT(6): the attribute follows */
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 24), 0, HDR6, 0x08, 0x12, 0x00, 0,
		       0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), UT_GOOD);
	CHECK(ut_dev.attrib.emulate_write_cache == 0);
	/* the other LUNs of the device are told; LUN 0 is not */
	CHECK(ut_itls[0].ua_count == 0 && ut_itls[1].ua_count == 1 &&
	      ut_itls[3].ua_count == 1 && ut_cdev.ua_luns == 2);
	CHECK(ut_dev.gate & BIT(TCMX_GATE_UA));
	EXPECT(RUN(C(0x00), 0, NONE, 5), TCMX_SENSE_UA_MODE_CHANGED);
	CHECK_SENSE(0x70, 0, 0x06, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x2a, 0x01,
		    0, 0, 0, 0);
	EXPECT(RUN(C(0x00), 0, NONE, 5), UT_GOOD);
	CHECK(ut_itls[1].ua_count == 0);
	/* INQUIRY and REPORT LUNS pass by it, REQUEST SENSE takes it */
	EXPECT(RUN(C(0x12, 0, 0, 0, 36), 36, IN, 300), UT_GOOD);
	CHECK_BYTES(0, 0x00, 0x00, 0x06);
	EXPECT(RUN(C(0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 32), 32, IN, 300), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 24);
	EXPECT(RUN(C(0x03, 0, 0, 0, 18), 18, IN, 300), UT_GOOD);
	CHECK_BYTES(0, 0x70, 0, 0x06, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x2a, 0x01);
	CHECK(ut_cdev.ua_luns == 0 && !(ut_dev.gate & BIT(TCMX_GATE_UA)));
	EXPECT(RUN(C(0x03, 0, 0, 0, 18), 18, IN, 300), UT_GOOD);
	CHECK_BYTES(0, 0x70, 0, 0x00, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x00, 0x00);

	/* SWP, D_SENSE, TAS 0, QERR 01b by MODE SELECT(10) */
	EXPECT(RUN_PARAMS(C(0x55, 0x10, 0, 0, 0, 0, 0, 0, 20), 0,
		       0, 0, 0, 0, 0, 0, 0, 0,
		       0x0a, 0x0a, 0x06, 0x12, 0x08, 0x00, 0, 0, 0, 0, 0, 0),
	       UT_GOOD);
	CHECK(ut_dev.d_sense && ut_cdev.mode_qerr == 1 &&
	      !ut_dev.attrib.emulate_tas &&
	      (ut_dev.gate & BIT(TCMX_GATE_WP)));
	/* a write is refused, in descriptor format; WP in MODE SENSE */
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1), 512, OUT, 0),
	       TCMX_SENSE_WRITE_PROTECTED);
	CHECK_SENSE(0x72, 0x07, 0x27, 0x00, 0, 0, 0, 0);
	EXPECT(RUN(C(0x1a, 0x08, 0x0a, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 15, 0, 0x90, 0, 0x0a, 0x0a, 0x06, 0x12, 0x08, 0x00);
	/* the other LUN: unit attention first, then write protection */
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1), 512, OUT, 5),
	       TCMX_SENSE_UA_MODE_CHANGED);
	CHECK_SENSE(0x72, 0x06, 0x2a, 0x01, 0, 0, 0, 0);
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1), 512, OUT, 5),
	       TCMX_SENSE_WRITE_PROTECTED);
	CHECK_SENSE(0x72, 0x07, 0x27, 0x00, 0, 0, 0, 0);
	/* back: reads and writes go on */
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 16), 0, HDR6, CONTROL), UT_GOOD);
	CHECK(!ut_dev.d_sense && !(ut_dev.gate & BIT(TCMX_GATE_WP)));
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1), 512, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	ut_fixture_reset();
}

static void mode_select_refusals(void)
{
	/* SP: saving; no PF */
	EXPECT(RUN_PARAMS(C(0x15, 0x11, 0, 0, 16), 0, HDR6, CONTROL),
	       TCMX_SENSE_SAVING_NOT_SUPPORTED);
	CHECK(ut_sense[15] == 0);
	EXPECT(RUN_PARAMS(C(0x15, 0x00, 0, 0, 16), 0, HDR6, CONTROL),
	       TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_FIELD(0xcc, 1);
	/* a bit not changeable (GLTSD): list byte 6 bit 1 */
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 16), 0, HDR6, 0x0a, 0x0a, 0x00,
		       0x10, 0, 0x40, 0, 0, 0, 0, 0, 0),
	       TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_FIELD(0x89, 6);
	/* a busy timeout period: not changeable either, list byte 12 */
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 16), 0, HDR6, 0x0a, 0x0a, 0x02,
		       0x10, 0, 0x40, 0, 0, 0x01, 0, 0, 0),
	       TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_FIELD(0x88, 12);
	/* page length, unknown page, subpage format, QERR 10b */
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 16), 0, HDR6, 0x0a, 0x09, 0x02,
		       0x10, 0, 0x40, 0, 0, 0, 0, 0, 0),
	       TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_FIELD(0x80, 5);
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 6), 0, HDR6, 0x19, 0x00),
	       TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_FIELD(0x8d, 4);
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 16), 0, HDR6, 0x4a, 0x0a, 0x02,
		       0x10, 0, 0x40, 0, 0, 0, 0, 0, 0),
	       TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_FIELD(0x8e, 4);
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 16), 0, HDR6, 0x0a, 0x0a, 0x02,
		       0x14, 0, 0x40, 0, 0, 0, 0, 0, 0),
	       TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_FIELD(0x8a, 7);
	/* header: mode data length reserved, medium type, bd length */
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 16), 0, 15, 0, 0, 0, CONTROL),
	       TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_FIELD(0x80, 0);
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 16), 0, 0, 1, 0, 0, CONTROL),
	       TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_FIELD(0x80, 1);
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 16), 0, 0, 0, 0, 4, CONTROL),
	       TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_FIELD(0x80, 3);
	/* WP and DPOFUA are ignored */
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 16), 0, 0, 0, 0x90, 0, CONTROL),
	       UT_GOOD);
	CHECK(ut_cdev.ua_luns == 0);
	/* block length: the current one or 0 */
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 24), 0, 0, 0, 0, 8,
		       0, 0, 0, 0, 0, 0, 0x10, 0, CONTROL),
	       TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_FIELD(0x80, 9);
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 24), 0, 0, 0, 0, 8,
		       0, 0x20, 0, 0, 0, 0, 0x02, 0, CONTROL), UT_GOOD);
	CHECK(ut_cdev.ua_luns == 0);
	/* long LBA descriptor with MODE SELECT(10), a short one refused */
	EXPECT(RUN_PARAMS(C(0x55, 0x10, 0, 0, 0, 0, 0, 0, 36), 0,
		       0, 0, 0, 0, 1, 0, 0, 16,
		       0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0,
		       CONTROL), UT_GOOD);
	CHECK(ut_cdev.ua_luns == 0);
	EXPECT(RUN_PARAMS(C(0x55, 0x10, 0, 0, 0, 0, 0, 0, 28), 0,
		       0, 0, 0, 0, 1, 0, 0, 8,
		       0, 0, 0, 0, 0, 0, 0x02, 0, CONTROL),
	       TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_FIELD(0x80, 6);
	/* lengths: shorter than the header, than the descriptor, a page */
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 3), 0, 0, 0, 0),
	       TCMX_SENSE_PARAM_LIST_LENGTH);
	CHECK(ut_sense[15] == 0);
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 8), 0, 0, 0, 0, 8, 0, 0, 0, 0),
	       TCMX_SENSE_PARAM_LIST_LENGTH);
	CHECK(ut_sense[12] == 0x1a);
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 10), 0, HDR6, 0x0a, 0x0a, 0x02,
		       0x10, 0, 0x40), TCMX_SENSE_PARAM_LIST_LENGTH);
	CHECK(ut_sense[12] == 0x1a);
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 17), 0, HDR6, CONTROL, 0x08),
	       TCMX_SENSE_PARAM_LIST_LENGTH);
	CHECK(ut_sense[12] == 0x1a);
	/* a refusal later in the list applies nothing of it */
	EXPECT(RUN_PARAMS(C(0x15, 0x10, 0, 0, 36), 0, HDR6,
		       0x08, 0x12, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		       0, 0, 0, 0, 0x0a, 0x0a, 0x03, 0x10, 0, 0x40, 0, 0, 0, 0,
		       0, 0), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK_FIELD(0x88, 26);
	CHECK(ut_dev.attrib.emulate_write_cache == 1);
	/* an empty list: nothing to do; the reserved CDB bits */
	EXPECT(RUN(C(0x15, 0x10, 0, 0, 0), 0, NONE, 0), UT_GOOD);
	CHECK(ut_dev.attrib.emulate_write_cache == 1 && ut_cdev.ua_luns == 0);
	EXPECT(RUN_PARAMS(C(0x15, 0x12, 0, 0, 16), 0, HDR6, CONTROL),
	       TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK_FIELD(0xc9, 1);
	ut_fixture_reset();
}

static void ua_order(void)
{
	struct tcmx_lun *lun = &ut_luns[0];
	struct tcmx_itl *itl = &ut_itls[0];
	unsigned int i;

	/* 29h first, the others in order; twice the same is once */
	tcmx_ua_add(lun, &ut_dev, TCMX_SENSE_UA_MODE_CHANGED);
	tcmx_ua_add(lun, &ut_dev, TCMX_SENSE_UA_LUNS_CHANGED);
	tcmx_ua_add(lun, &ut_dev, TCMX_SENSE_UA_BUS_RESET);
	tcmx_ua_add(lun, &ut_dev, TCMX_SENSE_UA_POWER_ON);
	tcmx_ua_add(lun, &ut_dev, TCMX_SENSE_UA_MODE_CHANGED);
	CHECK(itl->ua_count == 4 && ut_cdev.ua_luns == 1);
	EXPECT(RUN(C(0x00), 0, NONE, 0), TCMX_SENSE_UA_POWER_ON);
	CHECK_SENSE(0x70, 0, 0x06, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x29, 0x00,
		    0, 0, 0, 0);
	EXPECT(RUN(C(0x25), 8, IN, 0), TCMX_SENSE_UA_BUS_RESET);
	CHECK(ut_sense[13] == 0x02);
	/* an unknown opcode reports one too */
	EXPECT(RUN(C(0xff), 0, NONE, 0), TCMX_SENSE_UA_MODE_CHANGED);
	CHECK(ut_sense[12] == 0x2a);
	EXPECT(RUN(C(0x00), 0, NONE, 0), TCMX_SENSE_UA_LUNS_CHANGED);
	CHECK(ut_sense[12] == 0x3f);
	EXPECT(RUN(C(0x00), 0, NONE, 0), UT_GOOD);
	CHECK(ut_dev.gate == 0 && itl->ua_count == 0);

	/* a full queue keeps the highest priority ones */
	for (i = 0; i < TCMX_UA_MAX; i++)
		tcmx_ua_add(lun, &ut_dev, TCMX_SENSE_UA_MODE_CHANGED + i);
	CHECK(itl->ua_count == TCMX_UA_MAX);
	tcmx_ua_add(lun, &ut_dev, TCMX_SENSE_UA_I_T_NEXUS_LOSS);
	CHECK(itl->ua_count == TCMX_UA_MAX &&
	      itl->ua[0] == TCMX_SENSE_UA_I_T_NEXUS_LOSS &&
	      itl->ua[TCMX_UA_MAX - 1] ==
			TCMX_SENSE_UA_MODE_CHANGED + TCMX_UA_MAX - 2);
	/* clearing a LUN's queue (unlink) clears the device's gate */
	tcmx_ua_lun_clear(lun, &ut_dev);
	CHECK(itl->ua_count == 0 && ut_cdev.ua_luns == 0 && ut_dev.gate == 0);

	/*
	 * a LUN RESET of LUN 5: 29/03 for every I_T nexus of its device
	 * (LUNs 0, 5 and 300 export it), and its SPC-2 reservation ends
	 */
	ut_cdev.spc2_holder = &ut_luns[0];
	set_bit(TCMX_GATE_PR, &ut_dev.gate);
	tcmx_ua_reset(&ut_tpg, 5);
	CHECK(ut_itls[0].ua_count == 1 && ut_itls[1].ua_count == 1 &&
	      ut_itls[2].ua_count == 0 && ut_itls[3].ua_count == 1 &&
	      ut_cdev.ua_luns == 3);
	CHECK(ut_itls[0].ua[0] == TCMX_SENSE_UA_DEVICE_RESET &&
	      ut_itls[3].ua[0] == TCMX_SENSE_UA_DEVICE_RESET);
	CHECK(!ut_cdev.spc2_holder && !test_bit(TCMX_GATE_PR, &ut_dev.gate));
	/* every LUN of the TPG: POWER ON first */
	tcmx_ua_reset(&ut_tpg, TCMX_ALL_LUNS);
	CHECK(ut_itls[0].ua_count == 2 && ut_itls[1].ua_count == 2 &&
	      ut_itls[2].ua_count == 0 && ut_itls[3].ua_count == 2 &&
	      ut_cdev.ua_luns == 3 &&
	      ut_itls[1].ua[0] == TCMX_SENSE_UA_POWER_ON);
	/* LUNs changed: all others of the TPG with a device */
	tcmx_ua_tpg(&ut_tpg, &ut_luns[0], TCMX_SENSE_UA_LUNS_CHANGED);
	CHECK(ut_itls[0].ua_count == 2 && ut_itls[1].ua_count == 3 &&
	      ut_itls[2].ua_count == 0 && ut_itls[3].ua_count == 3);
	ut_fixture_reset();
}

static void ua_interlock(void)
{
	/* 1 and 2: reported, not cleared, until REQUEST SENSE */
	ut_dev.attrib.emulate_ua_intlck_ctrl = 1;
	tcmx_ua_add(&ut_luns[0], &ut_dev, TCMX_SENSE_UA_POWER_ON);
	EXPECT(RUN(C(0x00), 0, NONE, 0), TCMX_SENSE_UA_POWER_ON);
	CHECK(ut_itls[0].ua_count == 1);
	ut_dev.attrib.emulate_ua_intlck_ctrl = 2;
	EXPECT(RUN(C(0x00), 0, NONE, 0), TCMX_SENSE_UA_POWER_ON);
	CHECK(ut_itls[0].ua_count == 1);
	/* UA_INTLCK_CTRL 11b in the control page */
	EXPECT(RUN(C(0x12, 0, 0, 0, 36), 36, IN, 0), UT_GOOD);
	CHECK(ut_itls[0].ua_count == 1);
	EXPECT(RUN(C(0x03, 1, 0, 0, 8), 8, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0x72, 0x06, 0x29, 0x00, 0, 0, 0, 0, UT_FILL);
	EXPECT(RUN(C(0x1a, 0x08, 0x0a, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(4, 0x0a, 0x0a, 0x02, 0x10, 0x30, 0x40);
	ut_dev.attrib.emulate_ua_intlck_ctrl = 1;
	EXPECT(RUN(C(0x1a, 0x08, 0x0a, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(4, 0x0a, 0x0a, 0x02, 0x10, 0x20, 0x40);
	ut_fixture_reset();
}

static void mode_sense_default_changeable(void)
{
	/* defaults: as a new device (WCE 0, TAS 1), whatever is current */
	ut_dev.attrib.emulate_tas = 0;
	EXPECT(RUN(C(0x1a, 0x08, 0x88, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(4, 0x08, 0x12, 0x00, 0x00);
	EXPECT(RUN(C(0x1a, 0x08, 0x8a, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(4, CONTROL, UT_FILL);
	EXPECT(RUN(C(0x1a, 0x08, 0x4a, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(4, 0x0a, 0x0a, 0x04, 0x06, 0x08, 0x40, 0, 0, 0, 0, 0, 0,
		    UT_FILL);
	/* changeable: no block descriptor bit */
	EXPECT(RUN(C(0x1a, 0, 0x48, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 31, 0, 0x10, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x12, 0x05);
	ut_fixture_reset();
}

/*
 * The echo buffer is the I_T nexus's: what one nexus (LUN 0) wrote is
 * not what another (LUN 5, the same device) reads; it reads COMMAND
 * SEQUENCE ERROR, as before any WRITE BUFFER, until it writes its own.
 */
static void echo_buffer_per_nexus(void)
{
	static const u8 mine[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	EXPECT(RUN_OUT(C(0x3b, 0x0a, 0, 0, 0, 0, 0, 0, 8, 0), mine, 8, 8, 0),
	       UT_GOOD);
	CHECK(ut_cmd.xfer_len == 8);
	EXPECT(RUN(C(0x3c, 0x0a, 0, 0, 0, 0, 0, 0, 8, 0), 8, DMA_FROM_DEVICE,
		   0), UT_GOOD);
	CHECK_BYTES(0, 1, 2, 3, 4, 5, 6, 7, 8);
	EXPECT(RUN(C(0x3c, 0x0a, 0, 0, 0, 0, 0, 0, 8, 0), 8, DMA_FROM_DEVICE,
		   5), TCMX_SENSE_COMMAND_SEQUENCE);
	/* the nexus leaves: what it wrote goes with it */
	tcmx_pr_lun_gone(&ut_luns[0], &ut_dev);
	EXPECT(RUN(C(0x3c, 0x0a, 0, 0, 0, 0, 0, 0, 8, 0), 8, DMA_FROM_DEVICE,
		   0), TCMX_SENSE_COMMAND_SEQUENCE);
	kfree(ut_cdev.echo_buf);		/* the device's end */
	ut_fixture_reset();
}

void ut_test_mode(void)
{
	echo_buffer_per_nexus();
	mode_select_changes();
	mode_select_refusals();
	ua_order();
	ua_interlock();
	mode_sense_default_changeable();
}
