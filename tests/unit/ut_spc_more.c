// SPDX-License-Identifier: GPL-2.0
/* Primary commands, continued: REPORT LUNS, MODE SENSE, ALUA */
#include "ut.h"

#define IN	DMA_FROM_DEVICE
#define OUT	DMA_TO_DEVICE
#define NONE	DMA_NONE

static void spc_report_luns(void)
{
	/* LUNs 0, 5, 300 (7 is unlinked), single-level format */
	EXPECT(RUN(C(0xa0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 32);
	CHECK_BYTES(0, 0, 0, 0, 24, 0, 0, 0, 0,
		    0x00, 0x00, 0, 0, 0, 0, 0, 0,
		    0x00, 0x05, 0, 0, 0, 0, 0, 0,
		    0x01, 0x2c, 0, 0, 0, 0, 0, 0, UT_FILL);
	/* the same from a missing LUN, clipped to 16 bytes */
	EXPECT(RUN(C(0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 16), 4096, IN, 7), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 16);
	CHECK_BYTES(0, 0, 0, 0, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UT_FILL);
	/* allocation length under 16, SELECT REPORT 0x10 */
	EXPECT(RUN(C(0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 15), 4096, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0xa0, 0, 0x10, 0, 0, 0, 0, 0, 1, 0), 4096, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	/* well-known LUNs only: an empty list */
	EXPECT(RUN(C(0xa0, 0, 1, 0, 0, 0, 0, 0, 1, 0), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 8);
	CHECK_BYTES(0, 0, 0, 0, 0, 0, 0, 0, 0, UT_FILL);
	/* a short initiator buffer wins over the allocation length */
	EXPECT(RUN(C(0xa0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0), 20, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 20);
	CHECK_BYTES(16, 0x00, 0x05, 0, 0, UT_FILL);
}

static void spc_report_many_luns(void)
{
	static struct tcmx_lun many[UT_XA_MAX];
	unsigned int i;
	u32 n = 0;
	bool ok = true;

	memset(ut_slots, 0, sizeof(ut_slots));
	for (i = 0; i < TCMX_MAX_LUN; i += 3) {
		many[i].dev = &ut_dev;
		ut_slots[i] = &many[i];
		n++;
	}
	/* streamed in chunks: every one in order, nothing past the end */
	EXPECT(RUN(C(0xa0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0), 1 << 20, IN, 0), UT_GOOD);
	CHECK(get_unaligned_be32(ut_data) == n * 8 && ut_cmd.xfer_len == 8 + n * 8);
	for (i = 0; i < n && ok; i++)
		ok = get_unaligned_be16(ut_data + 8 + i * 8) == i * 3 &&
		     !get_unaligned_be16(ut_data + 10 + i * 8);
	CHECK(ok);
	CHECK(ut_data[8 + n * 8] == UT_FILL);
	/* clipped mid-chunk and mid-entry */
	EXPECT(RUN(C(0xa0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x04), 1 << 20, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 0x104);
	CHECK_BYTES(0xf8, 0x00, 90, 0, 0, 0, 0, 0, 0, 0x00, 93, 0, 0, UT_FILL);
	/* no LUN at all: LUN 0 is listed anyway */
	memset(ut_slots, 0, sizeof(ut_slots));
	EXPECT(RUN(C(0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 16), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 16);
	CHECK_BYTES(0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UT_FILL);
	ut_fixture_reset();
}

/*
 * A nexus with an explicit ACL: REPORT LUNS lists its mapped numbers only,
 * a write-protected mapping's entry (bit 0 set) as well.
 */
static void spc_report_luns_mapped(void)
{
	static void *map[UT_XA_MAX];

	memset(map, 0, sizeof(map));
	map[0] = (void *)((unsigned long)&ut_luns[1] | TCMX_MAP_WP);
	map[2] = &ut_luns[2];			/* unlinked: not listed */
	map[9] = &ut_luns[0];
	ut_nexus.luns.slot = map;
	EXPECT(RUN(C(0xa0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0), 4096, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK_BYTES(0, 0, 0, 0, 16, 0, 0, 0, 0,
		    0x00, 0x00, 0, 0, 0, 0, 0, 0,
		    0x00, 0x09, 0, 0, 0, 0, 0, 0, UT_FILL);
	ut_fixture_reset();
}

/* the mode pages as "all pages" returns them, after header + descriptor */
#define MS_PAGES							\
	0x01, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,			\
	0x08, 0x12, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
	0x0a, 0x0a, 0x02, 0x10, 0x00, 0x40, 0, 0, 0, 0, 0, 0,		\
	0x1c, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0

static void spc_mode_sense(void)
{
	/* MODE SENSE(6), all pages: DPOFUA, short block descriptor */
	EXPECT(RUN(C(0x1a, 0, 0x3f, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 68);
	CHECK_BYTES(0, 67, 0x00, 0x10, 0x08,
		    0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, MS_PAGES,
		    UT_FILL);
	/* header only: the length still counts everything */
	EXPECT(RUN(C(0x1a, 0, 0x3f, 0, 4), 4, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 4);
	CHECK_BYTES(0, 67, 0x00, 0x10, 0x08, UT_FILL);
	/* caching page, DBD: no descriptor */
	EXPECT(RUN(C(0x1a, 0x08, 0x08, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK_BYTES(0, 23, 0x00, 0x10, 0x00, 0x08, 0x12, 0x04, 0x00, 0x00);
	/* changeable values: WCE and RCD; no write cache: no WCE, no DPOFUA */
	EXPECT(RUN(C(0x1a, 0x08, 0x48, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK_BYTES(0, 23, 0x00, 0x10, 0x00, 0x08, 0x12, 0x05, 0x00);
	/* no write cache: WCE 0, DPOFUA still 1 (FUA is honoured) */
	ut_dev.attrib.emulate_write_cache = 0;
	EXPECT(RUN(C(0x1a, 0x08, 0x08, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 23, 0x00, 0x10, 0x00, 0x08, 0x12, 0x00, 0x00);
	ut_dev.attrib.emulate_fua_write = 0;
	EXPECT(RUN(C(0x1a, 0x08, 0x08, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 23, 0x00, 0x00, 0x00, 0x08, 0x12, 0x00, 0x00);
	ut_dev.attrib.emulate_fua_write = 1;
	ut_dev.attrib.emulate_write_cache = 1;
	/* MODE SENSE(10), LLBAA: long descriptor, control page, TAS */
	EXPECT(RUN(C(0x5a, 0x10, 0x0a, 0, 0, 0, 0, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 36);
	CHECK_BYTES(0, 0x00, 34, 0x00, 0x10, 0x01, 0x00, 0x00, 16,
		    0, 0, 0, 0, 0x00, 0x20, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x02, 0x00,
		    0x0a, 0x0a, 0x02, 0x10, 0x00, 0x40, 0, 0, 0, 0, 0, 0, UT_FILL);
	/* all pages and subpages */
	EXPECT(RUN(C(0x5a, 0, 0x3f, 0xff, 0, 0, 0, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 72);
	CHECK_BYTES(0, 0x00, 70, 0x00, 0x10, 0x00, 0x00, 0x00, 8);
	/* all subpages of one page: the page itself */
	EXPECT(RUN(C(0x5a, 0x08, 0x08, 0xff, 0, 0, 0, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 28);
	CHECK_BYTES(0, 0x00, 26, 0x00, 0x10, 0, 0, 0, 0, 0x08, 0x12, 0x04);
	/* a subpage, saved values, an unknown page */
	EXPECT(RUN(C(0x5a, 0, 0x0a, 0x05, 0, 0, 0, 0, 255), 255, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x1a, 0, 0xc8, 0, 255), 255, IN, 0), TCMX_SENSE_SAVING_NOT_SUPPORTED);
	EXPECT(RUN(C(0x1a, 0, 0x00, 0, 255), 255, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x1a, 0, 0x02, 0, 255), 255, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
}

static void spc_report_tpgs(void)
{
	/* extended header, preferred, LUN 300 = relative port 4 */
	ut_cdev.default_tg_pt_gp.preferred = 1;
	ut_cdev.default_tg_pt_gp.implicit_trans_secs = 300;
	EXPECT(RUN(C(0xa3, 0x2a, 0, 0, 0, 0, 0, 0, 1, 0), 256, IN, 300), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 28);
	CHECK_BYTES(0, 0, 0, 0, 24, 0x10, 0xff, 0, 0,
		    0x80, 0xdf, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
		    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,
		    0x00, 0x00, 0x00, 0x04, UT_FILL);
	/* length-only header, standby, explicit status */
	ut_cdev.default_tg_pt_gp.preferred = 0;
	ut_cdev.default_tg_pt_gp.access_state = 2;
	ut_cdev.default_tg_pt_gp.access_status = 1;
	ut_cdev.default_tg_pt_gp.id = 0x1234;
	EXPECT(RUN(C(0xa3, 0x0a, 0, 0, 0, 0, 0, 0, 1, 0), 256, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	CHECK_BYTES(0, 0, 0, 0, 20, 0x02, 0xdf, 0x12, 0x34,
		    0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01,
		    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x04, UT_FILL);
	/* allocation length clips */
	EXPECT(RUN(C(0xa3, 0x0a, 0, 0, 0, 0, 0, 0, 0, 6), 256, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 6);
	CHECK_BYTES(0, 0, 0, 0, 20, 0x02, 0xdf, UT_FILL);
	/* other MAINTENANCE IN actions, a reserved format, no ALUA */
	EXPECT(RUN(C(0xa3, 0x05, 0, 0, 0, 0, 0, 0, 1, 0), 256, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(ut_sense[15] == 0xcc && ut_sense[16] == 0 && ut_sense[17] == 1);
	EXPECT(RUN(C(0xa3, 0x4a, 0, 0, 0, 0, 0, 0, 1, 0), 256, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	ut_dev.attrib.alua_support = 0;
	EXPECT(RUN(C(0xa3, 0x0a, 0, 0, 0, 0, 0, 0, 1, 0), 256, IN, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	ut_fixture_reset();
}

/* an STPG parameter list: header, then one descriptor */
static u8 stpg[8];

static enum tcmx_status ut_stpg(u8 state, u16 id, u64 lun)
{
	memset(stpg, 0, sizeof(stpg));
	stpg[4] = state;
	stpg[6] = id >> 8;
	stpg[7] = id;
	return RUN_OUT(C(0xa4, 0x0a, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0), stpg, 8,
		       8, lun);
}

/* a second group "b" (id 7) holds LUN 5 (relative port 2) */
static void spc_alua_states(void)
{
	static struct tcmx_tg_pt_gp b = { .id = 7, .access_type = 3,
					   .supported = 0xdf };
	/* what a SET TARGET PORT GROUPS through LUN 5 would pass */
	struct tcmx_cmd via5 = { .nexus = &ut_nexus, .lun = &ut_luns[1],
				 .lun_id = 5 };

	list_add_tail(&b.node, &ut_cdev.tg_pt_gps);
	ut_luns[1].tg_pt_gp = &b;
	EXPECT(RUN(C(0xa3, 0x0a, 0, 0, 0, 0, 0, 0, 1, 0), 256, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 32);
	CHECK_BYTES(0, 0, 0, 0, 28,
		    0x00, 0xdf, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
		    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x04,
		    0x00, 0xdf, 0x00, 0x07, 0x00, 0x00, 0x00, 0x01,
		    0x00, 0x00, 0x00, 0x02, UT_FILL);
	/* Standby, implicitly: the gate's bit, a unit attention for all */
	tcmx_alua_set_state(&ut_dev, &b, 2, 2, NULL);
	CHECK(ut_dev.gate & BIT(TCMX_GATE_ALUA));
	EXPECT(RUN(C(0, 0, 0, 0, 0, 0), 0, NONE, 5), TCMX_SENSE_UA_ALUA_CHANGED);
	EXPECT(RUN(C(0, 0, 0, 0, 0, 0), 0, NONE, 5), TCMX_SENSE_ALUA_STANDBY);
	CHECK_SENSE(0x70, 0, 0x02, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x04, 0x0b,
		    0, 0, 0, 0);
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0), 512, IN, 5), TCMX_SENSE_ALUA_STANDBY);
	EXPECT(RUN(C(0x12, 0, 0, 0, 36, 0), 36, IN, 5), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 36);
	EXPECT(RUN(C(0x1a, 0x08, 0x08, 0, 255), 255, IN, 5), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 24);
	EXPECT(RUN(C(0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32), 32, IN, 5), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 32);
	/* the other group's port serves, after its unit attention */
	EXPECT(RUN(C(0, 0, 0, 0, 0, 0), 0, NONE, 0), TCMX_SENSE_UA_ALUA_CHANGED);
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0), 512, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	/* Unavailable: not READ CAPACITY(16) either; Offline, Transitioning */
	tcmx_alua_set_state(&ut_dev, &b, 3, 2, &via5);
	EXPECT(RUN(C(0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32), 32, IN, 5), TCMX_SENSE_ALUA_UNAVAILABLE);
	EXPECT(RUN(C(0x3c, 0x0b, 0, 0, 0, 0, 0, 0, 4, 0), 4, IN, 5), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 4);
	tcmx_alua_set_state(&ut_dev, &b, 14, 2, &via5);
	EXPECT(RUN(C(0x3c, 0x0b, 0, 0, 0, 0, 0, 0, 4, 0), 4, IN, 5), TCMX_SENSE_ALUA_OFFLINE);
	tcmx_alua_set_state(&ut_dev, &b, 15, 2, &via5);
	EXPECT(RUN(C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0), 512, OUT, 5), TCMX_SENSE_ALUA_TRANSITIONING);
	EXPECT(ut_stpg(0, 7, 5), TCMX_SENSE_ALUA_TRANSITIONING);
	/* SET TARGET PORT GROUPS from LUN 0: bad lists change nothing */
	EXPECT(RUN(C(0, 0, 0, 0, 0, 0), 0, NONE, 0), TCMX_SENSE_UA_ALUA_CHANGED);
	EXPECT(ut_stpg(0, 9, 0), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK(ut_sense[15] == 0x80 && ut_sense[16] == 0 && ut_sense[17] == 6);
	EXPECT(ut_stpg(14, 7, 0), TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK(ut_sense[15] == 0x8b && ut_sense[16] == 0 && ut_sense[17] == 4);
	CHECK(b.access_state == 15);
	EXPECT(RUN_OUT(C(0xa4, 0x0a, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0), stpg, 8, 8, 0), TCMX_SENSE_PARAM_LIST_LENGTH);
	/* Active/Optimized: explicit status, the gate clear, LUN 5 told */
	EXPECT(ut_stpg(0, 7, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 8);
	CHECK(b.access_state == 0 && b.access_status == 1);
	CHECK(!(ut_dev.gate & BIT(TCMX_GATE_ALUA)));
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0), 512, IN, 5), TCMX_SENSE_UA_ALUA_CHANGED);
	EXPECT(RUN(C(0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0), 512, IN, 5), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	EXPECT(RUN(C(0, 0, 0, 0, 0, 0), 0, NONE, 0), UT_GOOD);
	CHECK_NO_DATA();
	/* a group without explicit ALUA, asked or asking */
	b.access_type = 1;
	EXPECT(ut_stpg(2, 7, 0), TCMX_SENSE_INVALID_PARAM_FIELD);
	ut_cdev.default_tg_pt_gp.access_type = 1;
	EXPECT(ut_stpg(2, 0, 0), TCMX_SENSE_INVALID_OPCODE);
	ut_fixture_reset();
}

void ut_test_spc_more(void)
{
	spc_alua_states();
	spc_report_luns();
	spc_report_luns_mapped();
	spc_report_many_luns();
	spc_mode_sense();
	spc_report_tpgs();
}
