// SPDX-License-Identifier: GPL-2.0
/* Primary commands: INQUIRY/VPD, MODE SENSE, REPORT LUNS, REQUEST SENSE, RTPG */
#include "ut.h"

#define IN	DMA_FROM_DEVICE
#define NONE	DMA_NONE

static void spc_inquiry_std(void)
{
	EXPECT(RUN(C(0x12, 0, 0, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 96);
	/* disk, SPC-4, HISUP, format 2, TPGS 11b, CMDQUE */
	CHECK_BYTES(0, 0x00, 0x00, 0x06, 0x12, 0x5b, 0x30, 0x00, 0x02);
	CHECK_STR(8, "LIO-ORG r0              4.0 ");
	/* version descriptors SAM-5, SPC-4, SBC-3, then zeros */
	CHECK_BYTES(56, 0, 0, 0x00, 0xa0, 0x04, 0x60, 0x04, 0xc0, 0, 0, 0, 0);
	CHECK_BYTES(92, 0, 0, 0, 0, UT_FILL);
	/* allocation length clips; MULTIP with a second export */
	ut_cdev.export_count = 2;
	EXPECT(RUN(C(0x12, 0, 0, 0, 36), 255, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 36);
	CHECK_BYTES(4, 0x5b, 0x30, 0x10, 0x02);
	CHECK_BYTES(32, '4', '.', '0', ' ', UT_FILL);
	ut_cdev.export_count = 1;
	/* PAGE CODE without EVPD, CMDDT, an unknown VPD page */
	EXPECT(RUN(C(0x12, 0, 0x80, 0, 255), 255, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x12, 2, 0, 0, 255), 255, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x12, 1, 0x87, 0, 255), 255, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	/* no ALUA: TPGS 00b */
	ut_dev.attrib.alua_support = 0;
	EXPECT(RUN(C(0x12, 0, 0, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(4, 0x5b, 0x00, 0x00, 0x02);
	ut_dev.attrib.alua_support = 1;
}

static void spc_inquiry_vpd(void)
{
	EXPECT(RUN(C(0x12, 1, 0x00, 0x10, 0), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 11);
	CHECK_BYTES(0, 0x00, 0x00, 0x00, 0x07, 0x00, 0x80, 0x83, 0x86, 0xb0, 0xb1,
		    0xb2, UT_FILL);

	EXPECT(RUN(C(0x12, 1, 0x80, 0x10, 0), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 40);
	CHECK_BYTES(0, 0x00, 0x80, 0x00, 0x24);
	CHECK_STR(4, "3a5b0712-04c1-4f5e-9e4b-0123456789ab");

	EXPECT(RUN(C(0x12, 1, 0x83, 0x10, 0), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 155);
	CHECK_BYTES(0, 0x00, 0x83, 0x00, 0x97,
		    /* NAA 6: OUI 001405, then the serial's first 25 digits */
		    0x01, 0x03, 0x00, 0x10, 0x60, 0x01, 0x40, 0x53,
		    0xa5, 0xb0, 0x71, 0x20, 0x4c, 0x14, 0xf5, 0xe9,
		    0xe4, 0xb0, 0x12, 0x34,
		    /* T10 vendor ID, 47 bytes */
		    0x02, 0x01, 0x00, 0x2f);
	CHECK_STR(28, "LIO-ORG r0:3a5b0712-04c1-4f5e-9e4b-0123456789ab");
	CHECK_BYTES(75,
		    /* relative target port 1, target port group 0 */
		    0x01, 0x14, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01,
		    0x01, 0x15, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00,
		    /* target port name, UTF-8, 32 bytes */
		    0x03, 0x18, 0x00, 0x20);
	CHECK_STR(95, "naa.50014050a1b2c3d4,t,0x0001\0\0\0");
	CHECK_BYTES(127, 0x03, 0x28, 0x00, 0x18);	/* target name, 24 */
	CHECK_STR(131, "naa.50014050a1b2c3d4\0\0\0\0");
	CHECK_BYTES(155, UT_FILL);

	EXPECT(RUN(C(0x12, 1, 0xb0, 0x10, 0), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 64);
	/*
	 * COMPARE AND WRITE up to 255 blocks; max transfer 0xfffffff8;
	 * optimal not reported: it is the maximum (the default)
	 */
	CHECK_BYTES(0, 0x00, 0xb0, 0x00, 0x3c, 0, 0xff, 0, 0,
		    0xff, 0xff, 0xff, 0xf8, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0);

	EXPECT(RUN(C(0x12, 1, 0xb1, 0x10, 0), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 64);
	/* non-rotating; WABEREQ, WACEREQ 01b: sanitized blocks read */
	CHECK_BYTES(0, 0x00, 0xb1, 0x00, 0x3c, 0x00, 0x01, 0, 0x50, 0, 0);

	EXPECT(RUN(C(0x12, 1, 0xb2, 0x10, 0), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 8);
	CHECK_BYTES(0, 0x00, 0xb2, 0x00, 0x04, 0, 0, 0, 0, UT_FILL);

	/* the longest names are clipped inside the buffer */
	{
		static char longwwn[300];

		memset(longwwn, 'x', sizeof(longwwn) - 1);
		ut_wwn.group.cg_item.ci_name = longwwn;
		memset(ut_cdev.t10.unit_serial, 'f', 253);
		strcpy(ut_cdev.t10.model, "0123456789abcdef");
		EXPECT(RUN(C(0x12, 1, 0x83, 0x10, 0), 4096, IN, 0), UT_GOOD);
		/* NAA 20 + T10 259 + RTPI 8 + TPG 8 + 2 names 256 each */
		CHECK(ut_cmd.xfer_len == 4 + 20 + 259 + 8 + 8 + 256 + 256);
		CHECK_BYTES(24, 0x02, 0x01, 0x00, 0xff);
		CHECK_BYTES(299, 0x03, 0x18, 0x00, 0xfc);
		CHECK_BYTES(303 + 250, 'x', 0x00, 0x03, 0x28);
		CHECK_BYTES(555, 0x03, 0x28, 0x00, 0xfc);
		CHECK_BYTES(809, 'x', 0x00, UT_FILL);
		ut_fixture_reset();
	}
}

static void spc_opt_xfer(void)
{
	/* 4k blocks: any count is whole pages */
	ut_dev.block_size = 4096;
	ut_dev.block_shift = 12;
	ut_dev.attrib.optimal_sectors = 5;
	EXPECT(RUN(C(0x12, 1, 0xb0, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(12, 0x00, 0x00, 0x00, 0x05);
	/* under one page of 512-byte blocks: not reported */
	ut_dev.block_size = 512;
	ut_dev.block_shift = 9;
	ut_dev.attrib.optimal_sectors = 7;
	EXPECT(RUN(C(0x12, 1, 0xb0, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(12, 0x00, 0x00, 0x00, 0x00);
	/*
	 * 512-byte blocks: at or above the maximum transfer length not
	 * reported; below it whole pages, never above sd's 0xffff
	 */
	{
		static const struct { u32 max, opt, want; } c[] = {
			{ 1001, 4096, 0 }, { 1001, 1001, 0 }, { 1001, 1000, 1000 },
			{ 0x20000, 1007, 1000 }, { 0x20000, 0x10000, 0xfff8 },
		};
		unsigned int i;

		for (i = 0; i < ARRAY_SIZE(c); i++) {
			ut_dev.attrib.hw_max_sectors = c[i].max;
			ut_dev.attrib.optimal_sectors = c[i].opt;
			EXPECT(RUN(C(0x12, 1, 0xb0, 0, 255), 255, IN, 0),
			       UT_GOOD);
			CHECK(get_unaligned_be32(&ut_data[8]) == c[i].max);
			CHECK(get_unaligned_be32(&ut_data[12]) == c[i].want);
		}
	}
	ut_fixture_reset();
}

/* LUN 9 does not exist, LUN 7 exists but is unlinked: both have no LUN */
static void spc_no_lun(void)
{
	EXPECT(RUN(C(0x12, 0, 0, 0, 96), 96, IN, 9), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 96);
	CHECK_BYTES(0, 0x7f, 0x00, 0x06, 0x12, 0x5b, 0x00, 0x00, 0x02);
	CHECK_STR(8, "                            ");
	CHECK_BYTES(36, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		    0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	EXPECT(RUN(C(0x12, 1, 0, 0, 96), 96, IN, 9), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 5);
	CHECK_BYTES(0, 0x7f, 0x00, 0x00, 0x01, 0x00, UT_FILL);
	EXPECT(RUN(C(0x12, 1, 0x83, 0, 96), 96, IN, 9), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x00), 0, NONE, 7), TCMX_SENSE_LUN_NOT_SUPPORTED);
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1), 512, IN, 7), TCMX_SENSE_LUN_NOT_SUPPORTED);
	EXPECT(RUN(C(0x1a, 0, 0x3f, 0, 255), 255, IN, 9), TCMX_SENSE_LUN_NOT_SUPPORTED);
}

static void spc_request_sense(void)
{
	/* fixed format, LOGICAL UNIT NOT SUPPORTED for a missing LUN */
	EXPECT(RUN(C(0x03, 0, 0, 0, 252), 252, IN, 7), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 18);
	CHECK_BYTES(0, 0x70, 0x00, 0x05, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0,
		    0x25, 0x00, 0, 0, 0, 0, UT_FILL);
	/* descriptor format, NO SENSE */
	EXPECT(RUN(C(0x03, 1, 0, 0, 252), 252, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 8);
	CHECK_BYTES(0, 0x72, 0x00, 0x00, 0x00, 0, 0, 0, 0, UT_FILL);
	/* allocation length clips */
	EXPECT(RUN(C(0x03, 0, 0, 0, 3), 252, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 3);
	CHECK_BYTES(0, 0x70, 0x00, 0x00, UT_FILL);
}

void ut_test_spc(void)
{
	spc_inquiry_std();
	spc_inquiry_vpd();
	spc_opt_xfer();
	spc_no_lun();
	spc_request_sense();
	ut_test_spc_more();
}
