// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * Two I_T nexuses on one TPG LUN, as two iSCSI sessions of one initiator
 * (same name, two ISIDs) have them: each has its own unit attentions
 * (struct tcmx_itl, made by itl.c), its own PR registration and
 * reservation identity; READ FULL STATUS gives each its TransportID with
 * the ISID; an SPC-2 reservation ends with its I_T nexus, registrations
 * stay and come back to a nexus of the same identity, which hears I_T
 * NEXUS LOSS OCCURRED (not POWER ON).
 */
#include "ut.h"
#include "pr.h"

#define IN	DMA_FROM_DEVICE
#define OUT	DMA_TO_DEVICE
#define NONE	DMA_NONE

#define NAME	"iqn.2026-12.org.example:host"
#define ISID_A	",i,0x23d000000001"
#define ISID_B	",i,0x23d000000002"
#define B_LUN	3	/* B maps the TPG's LUN 0 as its LUN 3 */

static const struct tcmx_fabric_ops nx_ops = { .name = "iscsi" };
static struct tcmx_nexus nx_b;
static void *nx_b_luns[UT_XA_MAX], *nx_b_itls[UT_XA_MAX];
static void *nx_a_itls[UT_XA_MAX];
static u8 nx_param[24];
static const u8 nx_block[512];

static struct tcmx_itl *itl_a(void)
{
	return xa_load(&ut_nexus.itls, 0);
}

static struct tcmx_itl *itl_b(void)
{
	return xa_load(&nx_b.itls, B_LUN);
}

/* run on nexus A (LUN 0) or B (its LUN 3): the same TPG LUN */
#define on(n, cdb, len, dir)						\
	(ut_run_nexus = (n),						\
	 RUN(cdb, len, dir, (n) == &nx_b ? B_LUN : 0))

static const u8 *nx_prout_param(u64 key, u64 sa_key)
{
	memset(nx_param, 0, sizeof(nx_param));
	put_unaligned_be64(key, &nx_param[0]);
	put_unaligned_be64(sa_key, &nx_param[8]);
	ut_out_len = sizeof(nx_param);
	return nx_param;
}

#define prout_on(n, sa, key, sa_key, type)				\
	(ut_out = nx_prout_param(key, sa_key),				\
	 on(n, C(0x5f, sa, type, 0, 0, 0, 0, 0, 24, 0), 24, OUT))

#define write_on(n)							\
	(ut_out = nx_block, ut_out_len = sizeof(nx_block),		\
	 on(n, C(0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0), 512, OUT))

/*
 * Nexus A is the fixture's, mapping only LUN 0; B another session of the
 * same initiator name with another ISID, mapping LUN 0 as its LUN 3.
 * Their I_T_L nexuses come from itl.c, with POWER ON pending.
 */
static void nx_setup(void)
{
	unsigned int i;

	ut_tpg.ops = &nx_ops;
	ut_dev.attrib.emulate_pr = 1;
	INIT_LIST_HEAD(&ut_cdev.itls);
	for (i = 1; i < ARRAY_SIZE(ut_slots); i++)
		ut_slots[i] = NULL;
	strcpy(ut_nexus.name, NAME);
	strcpy(ut_nexus.port_id, ISID_A);
	memset(nx_a_itls, 0, sizeof(nx_a_itls));
	ut_nexus.itls.slot = nx_a_itls;
	CHECK(tcmx_itl_add(&ut_nexus, 0, &ut_luns[0]) == itl_a());

	memset(&nx_b, 0, sizeof(nx_b));
	memset(nx_b_luns, 0, sizeof(nx_b_luns));
	memset(nx_b_itls, 0, sizeof(nx_b_itls));
	nx_b.tpg = &ut_tpg;
	nx_b.luns.slot = nx_b_luns;
	nx_b.itls.slot = nx_b_itls;
	strcpy(nx_b.name, NAME);
	strcpy(nx_b.port_id, ISID_B);
	nx_b_luns[B_LUN] = &ut_luns[0];
	CHECK(tcmx_itl_add(&nx_b, B_LUN, &ut_luns[0]) == itl_b());
}

static void nx_teardown(void)
{
	tcmx_itl_del(&ut_nexus, 0);
	tcmx_itl_del(&nx_b, B_LUN);
	CHECK(list_empty(&ut_cdev.itls) && !ut_cdev.ua_luns);
	ut_run_nexus = NULL;
}

/* each I_T_L nexus reports and clears its own unit attentions */
static void nexus_unit_attentions(void)
{
	nx_setup();
	CHECK(itl_a()->ua_count == 1 && itl_b()->ua_count == 1 &&
	      ut_cdev.ua_luns == 2);
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), UT_GOOD);
	/* A's gone, B's still there */
	CHECK(!itl_a()->ua_count && itl_b()->ua_count == 1);
	EXPECT(on(&nx_b, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	CHECK(!itl_b()->ua_count && !ut_dev.gate);

	/* MODE SELECT on B: A is told, B is not */
	ut_out = (const u8 []){ 0, 0, 0, 0, 0x08, 0x12, 0x00, 0, 0, 0, 0, 0,
				0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	ut_out_len = 24;
	EXPECT(on(&nx_b, C(0x15, 0x10, 0, 0, 24), 24, OUT), UT_GOOD);
	CHECK(itl_a()->ua_count == 1 && !itl_b()->ua_count);
	EXPECT(on(&nx_b, C(0x00), 0, NONE), UT_GOOD);
	CHECK(!itl_b()->ua_count);
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), TCMX_SENSE_UA_MODE_CHANGED);
	CHECK(ut_sense[12] == 0x2a && ut_sense[13] == 0x01);

	/* SET TARGET PORT GROUPS on B (Active/NonOptimized): A only */
	ut_out = (const u8 []){ 0, 0, 0, 0, 0x01, 0, 0, 0 };
	ut_out_len = 8;
	EXPECT(on(&nx_b, C(0xa4, 0x0a, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0), 8, OUT),
	       UT_GOOD);
	CHECK(itl_a()->ua_count == 1 && !itl_b()->ua_count &&
	      ut_cdev.default_tg_pt_gp.access_state == 1);
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), TCMX_SENSE_UA_ALUA_CHANGED);

	/* a LUN RESET: every I_T nexus of the unit; a nexus's own reset too */
	tcmx_nexus_reset(&nx_b, B_LUN);
	CHECK(itl_a()->ua[0] == TCMX_SENSE_UA_DEVICE_RESET &&
	      itl_b()->ua[0] == TCMX_SENSE_UA_DEVICE_RESET);
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), TCMX_SENSE_UA_DEVICE_RESET);
	EXPECT(on(&nx_b, C(0x00), 0, NONE), TCMX_SENSE_UA_DEVICE_RESET);
	/* a reset of all B's LUNs: LUN 5, which B does not map, is spared */
	tcmx_nexus_reset(&nx_b, TCMX_ALL_LUNS);
	CHECK(itl_a()->ua[0] == TCMX_SENSE_UA_POWER_ON &&
	      itl_b()->ua[0] == TCMX_SENSE_UA_POWER_ON);
	nx_teardown();
}

/*
 * Registrations and a reservation per I_T nexus: A's Exclusive Access
 * blocks B's WRITE and READ (same initiator name, another ISID); READ
 * FULL STATUS lists both with iSCSI TransportIDs of format 01h.
 */
static void nexus_reservations(void)
{
	static const char tid_a[] = NAME ISID_A, tid_b[] = NAME ISID_B;
	u32 tid_len = round_up(4 + sizeof(tid_a), 4);
	u8 *d;

	nx_setup();
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	EXPECT(on(&nx_b, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	EXPECT(prout_on(&ut_nexus, 0, 0, 0xa, 0), UT_GOOD);
	CHECK(itl_a()->pr_reg && !itl_b()->pr_reg);
	/* B is not registered: its key is refused */
	EXPECT(prout_on(&nx_b, 1, 0xa, 0, 3), UT_CONFLICT);
	EXPECT(prout_on(&nx_b, 0, 0, 0xb, 0), UT_GOOD);
	CHECK(itl_b()->pr_reg && itl_b()->pr_reg != itl_a()->pr_reg &&
	      itl_b()->pr_reg->mapped_lun == B_LUN);
	EXPECT(on(&nx_b, C(0x5e, 0, 0, 0, 0, 0, 0, 0, 64, 0), 64, IN),
	       UT_GOOD);
	CHECK_BYTES(4, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0xa,
		    0, 0, 0, 0, 0, 0, 0, 0xb);
	/* A reserves Exclusive Access: B's WRITE and READ conflict */
	EXPECT(prout_on(&ut_nexus, 1, 0xa, 0, 3), UT_GOOD);
	CHECK(ut_cdev.pr_holder == itl_a()->pr_reg &&
	      test_bit(TCMX_GATE_PR, &ut_dev.gate));
	EXPECT(write_on(&nx_b), UT_CONFLICT);
	EXPECT(on(&nx_b, C(0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0), 512, IN),
	       UT_CONFLICT);
	EXPECT(write_on(&ut_nexus), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);

	/* READ FULL STATUS: A holds it; both TransportIDs carry the ISID */
	EXPECT(on(&nx_b, C(0x5e, 3, 0, 0, 0, 0, 0, 2, 0, 0), 512, IN),
	       UT_GOOD);
	CHECK(get_unaligned_be32(&ut_data[4]) == 2 * (24 + tid_len));
	d = &ut_data[8];
	CHECK(get_unaligned_be64(&d[0]) == 0xa && d[12] == 1 && d[13] == 3 &&
	      get_unaligned_be32(&d[20]) == tid_len && d[24] == 0x45 &&
	      get_unaligned_be16(&d[26]) == tid_len - 4 &&
	      !strcmp((char *)&d[28], tid_a));
	d += 24 + tid_len;
	CHECK(get_unaligned_be64(&d[0]) == 0xb && d[12] == 0 &&
	      d[24] == 0x45 && !strcmp((char *)&d[28], tid_b));

	/* PREEMPT by B: A loses its registration, told so; B is not */
	EXPECT(prout_on(&nx_b, 4, 0xb, 0xa, 3), UT_GOOD);
	CHECK(!itl_a()->pr_reg && itl_a()->ua[0] == TCMX_SENSE_UA_REG_PREEMPTED &&
	      !itl_b()->ua_count);
	EXPECT(write_on(&ut_nexus), TCMX_SENSE_UA_REG_PREEMPTED);
	EXPECT(write_on(&ut_nexus), UT_CONFLICT);
	EXPECT(prout_on(&nx_b, 3, 0xb, 0, 0), UT_GOOD);	/* CLEAR */
	CHECK(!ut_dev.gate && list_empty(&ut_cdev.pr_regs));
	nx_teardown();
}

/*
 * An SPC-2 reservation is its I_T nexus's: the other session conflicts,
 * and it ends when that nexus does (I_T nexus loss).  A registration
 * stays, and a nexus of the same identity has it again, with I_T NEXUS
 * LOSS OCCURRED; one of another identity starts with POWER ON.
 */
static void nexus_loss(void)
{
	nx_setup();
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	EXPECT(on(&nx_b, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	EXPECT(on(&ut_nexus, C(0x16), 0, NONE), UT_GOOD);	/* RESERVE(6) */
	CHECK(ut_cdev.spc2_nexus == &ut_nexus);
	EXPECT(write_on(&nx_b), UT_CONFLICT);
	EXPECT(write_on(&ut_nexus), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);
	tcmx_itl_del(&ut_nexus, 0);		/* A's session ends */
	CHECK(!ut_cdev.spc2_holder && !ut_dev.gate);
	EXPECT(write_on(&nx_b), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 512);

	/* B registers, its session ends, a new one of B's identity comes */
	EXPECT(prout_on(&nx_b, 0, 0, 0xb, 0), UT_GOOD);
	CHECK(itl_b()->pr_reg);
	tcmx_itl_del(&nx_b, B_LUN);
	CHECK(!list_empty(&ut_cdev.pr_regs));
	CHECK(tcmx_itl_add(&nx_b, B_LUN, &ut_luns[0]) == itl_b());
	CHECK(itl_b()->pr_reg && itl_b()->pr_reg->key == 0xb &&
	      itl_b()->ua_count == 1 &&
	      itl_b()->ua[0] == TCMX_SENSE_UA_I_T_NEXUS_LOSS);
	/* A again, with another ISID: not B's registration, a new nexus */
	strcpy(ut_nexus.port_id, ",i,0x23d000000003");
	CHECK(tcmx_itl_add(&ut_nexus, 0, &ut_luns[0]) == itl_a());
	CHECK(!itl_a()->pr_reg && itl_a()->ua[0] == TCMX_SENSE_UA_POWER_ON);
	/* B's comes back with I_T NEXUS LOSS OCCURRED: 06/29/07 */
	EXPECT(on(&nx_b, C(0x00), 0, NONE), TCMX_SENSE_UA_I_T_NEXUS_LOSS);
	CHECK(ut_sense[2] == 0x06 && ut_sense[12] == 0x29 &&
	      ut_sense[13] == 0x07);
	EXPECT(on(&nx_b, C(0x00), 0, NONE), UT_GOOD);
	CHECK_NO_DATA();
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	EXPECT(prout_on(&nx_b, 3, 0xb, 0, 0), UT_GOOD);	/* CLEAR */
	CHECK(!itl_b()->pr_reg && list_empty(&ut_cdev.pr_regs));
	nx_teardown();
}

/*
 * A REGISTER parameter list with SPEC_I_PT: the basic 24 bytes with
 * @sa_key and @flags (byte 20), then iSCSI TransportIDs, of format 01h
 * where the name has ",i,0x"; its length.
 */
static u8 nx_tids[512];

static u32 nx_tid_param(u64 sa_key, u8 flags, const char *const *tids,
			unsigned int n)
{
	u32 off = 28, len, i;

	memset(nx_tids, 0, sizeof(nx_tids));
	put_unaligned_be64(sa_key, &nx_tids[8]);
	nx_tids[20] = flags;
	for (i = 0; i < n; i++) {
		len = round_up(strlen(tids[i]) + 1, 4);
		nx_tids[off] = strstr(tids[i], ",i,0x") ? 0x45 : 0x05;
		put_unaligned_be16(len, &nx_tids[off + 2]);
		memcpy(&nx_tids[off + 4], tids[i], strlen(tids[i]));
		off += 4 + len;
	}
	put_unaligned_be32(off - 28, &nx_tids[24]);
	ut_out = nx_tids;
	ut_out_len = off;
	return off;
}

#define register_tids_on(n, len)					\
	on(n, C(0x5f, 0, 0, 0, 0, 0, 0, (len) >> 8, (len) & 0xff, 0),	\
	   len, OUT)

#define SPEC_I_PT	0x08
#define ALL_TG_PT	0x04

/*
 * REGISTER with SPEC_I_PT and ALL_TG_PT from A naming B's initiator port:
 * the I_T nexuses it names are found without a name compared under
 * tcmx_itl_lock, which is taken with interrupts off.
 */
static void nexus_spec_i_pt_compares(void)
{
	static const char *const tid_b[] = { NAME ISID_B };
	u32 len;

	nx_setup();
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	ut_itl_lock_compares = 0;
	len = nx_tid_param(0xa, SPEC_I_PT | ALL_TG_PT, tid_b, 1);
	EXPECT(register_tids_on(&ut_nexus, len), UT_GOOD);
	CHECK(itl_a()->pr_reg && itl_a()->pr_reg->key == 0xa &&
	      itl_b()->pr_reg && itl_b()->pr_reg->key == 0xa &&
	      itl_b()->pr_reg != itl_a()->pr_reg);
	CHECK(!ut_itl_lock_compares);
	EXPECT(prout_on(&ut_nexus, 3, 0xa, 0, 0), UT_GOOD);	/* CLEAR */
	CHECK(list_empty(&ut_cdev.pr_regs));
	nx_teardown();
}

/* node ACLs of the TPG, each mapping one LUN; none after the fixture */
static struct tcmx_acl nx_acls[2];
static struct tcmx_mapped_lun nx_mapped[2];
static void *nx_acl_slots[2][UT_XA_MAX];

static void nx_acl_add(unsigned int i, const char *name, u64 m,
		       struct tcmx_lun *lun)
{
	memset(&nx_acls[i], 0, sizeof(nx_acls[i]));
	memset(nx_acl_slots[i], 0, sizeof(nx_acl_slots[i]));
	nx_acls[i].group.cg_item.ci_name = name;
	nx_acls[i].tpg = &ut_tpg;
	nx_acls[i].mapped.slot = nx_acl_slots[i];
	nx_mapped[i] = (struct tcmx_mapped_lun){
		.acl = &nx_acls[i], .id = m, .lun = lun,
	};
	nx_acl_slots[i][m] = &nx_mapped[i];
	list_add_tail(&nx_acls[i].node, &ut_tpg.acls);
}

/* the registration of initiator port @name, @port_id through @lun */
static struct tcmx_pr_reg *nx_reg(const char *name, const char *port_id,
				  struct tcmx_lun *lun)
{
	struct tcmx_pr_reg *reg;

	list_for_each_entry(reg, &ut_cdev.pr_regs, node)
		if (reg->lun == lun && !strcmp(reg->name, name) &&
		    !strcmp(reg->port_id, port_id))
			return reg;
	return NULL;
}

#define OTHER	"iqn.2026-12.org.example:other"
#define ISID_C	",i,0x23d000000009"

/*
 * SPEC_I_PT names an initiator port with no session but a node ACL that
 * maps the LUN (as 2): it is registered with the TransportID's ISID and
 * its mapped LUN, and the registration waits for its I_T nexus, which has
 * it when it logs in.  ALL_TG_PT registers the sender's initiator port
 * through a target port its node ACL maps (LUN 5, as 1) with no session
 * there.  As in-tree, which looks node ACLs up for both.
 */
static void nexus_register_through_acls(void)
{
	static const char *const tid_c[] = { OTHER ISID_C };
	static void *nx_c_itls[UT_XA_MAX];
	static struct tcmx_nexus nx_c;
	struct tcmx_pr_reg *reg;
	struct tcmx_itl *itl;
	u32 len;

	nx_setup();
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	/* no session, no node ACL of that name: refused */
	len = nx_tid_param(0xa, SPEC_I_PT, tid_c, 1);
	EXPECT(register_tids_on(&ut_nexus, len),
	       TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK(list_empty(&ut_cdev.pr_regs));

	nx_acl_add(0, OTHER, 2, &ut_luns[0]);
	len = nx_tid_param(0xa, SPEC_I_PT, tid_c, 1);
	EXPECT(register_tids_on(&ut_nexus, len), UT_GOOD);
	reg = nx_reg(OTHER, ISID_C, &ut_luns[0]);
	CHECK(reg && reg->key == 0xa && reg->mapped_lun == 2 &&
	      itl_a()->pr_reg && itl_a()->pr_reg != reg && !itl_b()->pr_reg);
	/* READ FULL STATUS lists it, with its ISID */
	EXPECT(on(&nx_b, C(0x5e, 3, 0, 0, 0, 0, 0, 2, 0, 0), 512, IN),
	       TCMX_SENSE_UA_POWER_ON);
	EXPECT(on(&nx_b, C(0x5e, 3, 0, 0, 0, 0, 0, 2, 0, 0), 512, IN),
	       UT_GOOD);
	CHECK(get_unaligned_be32(&ut_data[0]) == 1 &&
	      memmem(ut_data, 512, OTHER ISID_C, sizeof(OTHER ISID_C) - 1));

	/* its initiator logs in: the registration is its nexus's */
	memset(&nx_c, 0, sizeof(nx_c));
	memset(nx_c_itls, 0, sizeof(nx_c_itls));
	nx_c.tpg = &ut_tpg;
	nx_c.itls.slot = nx_c_itls;
	strcpy(nx_c.name, OTHER);
	strcpy(nx_c.port_id, ISID_C);
	itl = tcmx_itl_add(&nx_c, 2, &ut_luns[0]);
	CHECK(itl && itl->pr_reg == reg &&
	      itl->ua[0] == TCMX_SENSE_UA_POWER_ON);
	tcmx_itl_del(&nx_c, 2);
	EXPECT(prout_on(&ut_nexus, 3, 0xa, 0, 0), UT_GOOD);	/* CLEAR */
	CHECK(list_empty(&ut_cdev.pr_regs));

	/*
	 * ALL_TG_PT: A's node ACL maps LUN 5 as 1, A has no session there.
	 * As in-tree, the registration through it has no ISID: every port
	 * of the name, so a session with another ISID has it.
	 */
	nx_acl_add(1, NAME, 1, &ut_luns[1]);
	ut_out = nx_prout_param(0, 0xc);
	nx_param[20] = ALL_TG_PT;
	EXPECT(on(&ut_nexus, C(0x5f, 0, 0, 0, 0, 0, 0, 0, 24, 0), 24, OUT),
	       UT_GOOD);
	reg = nx_reg(NAME, "", &ut_luns[1]);
	CHECK(reg && reg->key == 0xc && reg->all_tg_pt &&
	      reg->mapped_lun == 1 && itl_a()->pr_reg &&
	      itl_a()->pr_reg->all_tg_pt && !nx_reg(NAME, ISID_A, &ut_luns[1]));
	strcpy(nx_c.name, NAME);
	strcpy(nx_c.port_id, ISID_C);
	itl = tcmx_itl_add(&nx_c, 1, &ut_luns[1]);
	CHECK(itl && itl->pr_reg == reg);
	tcmx_itl_del(&nx_c, 1);
	/* A unregisters: the registrations ALL_TG_PT made go with its own */
	EXPECT(prout_on(&ut_nexus, 0, 0xc, 0, 0), UT_GOOD);
	CHECK(list_empty(&ut_cdev.pr_regs) && !itl_a()->pr_reg);
	nx_teardown();
}

/*
 * The walks under pr_lock (interrupts off) compare the names of no
 * identity but the one they look for: registrations of three initiator
 * ports (two ISIDs of one name, another name), a reservation, a
 * preemption, a new session, each walk compares keys, and names only
 * where they match.
 */
static void nexus_pr_lock_compares(void)
{
	static const char *const tid_c[] = { OTHER ISID_C };
	static void *nx_c_itls[UT_XA_MAX];
	static struct tcmx_nexus nx_c;
	struct tcmx_itl *itl;
	u32 len;

	nx_setup();
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	EXPECT(on(&nx_b, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	nx_acl_add(0, OTHER, 2, &ut_luns[0]);
	ut_irqs_off_misses = 0;
	EXPECT(prout_on(&nx_b, 0, 0, 0xb, 0), UT_GOOD);
	CHECK(itl_b()->pr_reg && !itl_a()->pr_reg);
	len = nx_tid_param(0xa, SPEC_I_PT, tid_c, 1);
	EXPECT(register_tids_on(&ut_nexus, len), UT_GOOD);
	CHECK(itl_a()->pr_reg && itl_b()->pr_reg &&
	      nx_reg(OTHER, ISID_C, &ut_luns[0]) &&
	      !strcmp(itl_b()->pr_reg->port_id, ISID_B));
	EXPECT(prout_on(&nx_b, 1, 0xb, 0, 3), UT_GOOD);		/* EA */
	CHECK(ut_cdev.pr_holder == itl_b()->pr_reg);
	EXPECT(prout_on(&ut_nexus, 4, 0xa, 0xb, 3), UT_GOOD);	/* PREEMPT */
	CHECK(!itl_b()->pr_reg && ut_cdev.pr_holder == itl_a()->pr_reg);
	EXPECT(prout_on(&nx_b, 0, 0, 0xd, 0), TCMX_SENSE_UA_REG_PREEMPTED);
	EXPECT(prout_on(&nx_b, 0, 0, 0xd, 0), UT_GOOD);
	/* OTHER logs in: its registration waited for it */
	memset(&nx_c, 0, sizeof(nx_c));
	memset(nx_c_itls, 0, sizeof(nx_c_itls));
	nx_c.tpg = &ut_tpg;
	nx_c.itls.slot = nx_c_itls;
	strcpy(nx_c.name, OTHER);
	strcpy(nx_c.port_id, ISID_C);
	itl = tcmx_itl_add(&nx_c, 2, &ut_luns[0]);
	CHECK(itl && itl->pr_reg == nx_reg(OTHER, ISID_C, &ut_luns[0]));
	tcmx_itl_del(&nx_c, 2);
	EXPECT(prout_on(&ut_nexus, 3, 0xa, 0, 0), UT_GOOD);	/* CLEAR */
	CHECK(list_empty(&ut_cdev.pr_regs));
	CHECK(!ut_irqs_off_misses);
	nx_teardown();
}

/*
 * I_T NEXUS LOSS OCCURRED is told once per loss: a registration without
 * ISID (a TransportID of the name alone) is A's and B's; B's session
 * ends, comes back and hears 29/07; a third session of the name that
 * comes after it starts with POWER ON.
 */
static void nexus_loss_told_once(void)
{
	static const char *const tid_name[] = { NAME };
	static void *nx_c_itls[UT_XA_MAX];
	static struct tcmx_nexus nx_c;
	struct tcmx_pr_reg *reg;
	struct tcmx_itl *itl;
	u32 len;

	nx_setup();
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	EXPECT(on(&nx_b, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	len = nx_tid_param(0xa, SPEC_I_PT, tid_name, 1);
	EXPECT(register_tids_on(&ut_nexus, len), UT_GOOD);
	reg = nx_reg(NAME, "", &ut_luns[0]);
	CHECK(reg && itl_a()->pr_reg == reg && itl_b()->pr_reg == reg);
	tcmx_itl_del(&nx_b, B_LUN);
	CHECK(tcmx_itl_add(&nx_b, B_LUN, &ut_luns[0]) == itl_b());
	CHECK(itl_b()->pr_reg == reg &&
	      itl_b()->ua[0] == TCMX_SENSE_UA_I_T_NEXUS_LOSS);
	EXPECT(on(&nx_b, C(0x00), 0, NONE), TCMX_SENSE_UA_I_T_NEXUS_LOSS);
	memset(&nx_c, 0, sizeof(nx_c));
	memset(nx_c_itls, 0, sizeof(nx_c_itls));
	nx_c.tpg = &ut_tpg;
	nx_c.itls.slot = nx_c_itls;
	strcpy(nx_c.name, NAME);
	strcpy(nx_c.port_id, ISID_C);
	itl = tcmx_itl_add(&nx_c, 2, &ut_luns[0]);
	CHECK(itl && itl->pr_reg == reg &&
	      itl->ua_count == 1 && itl->ua[0] == TCMX_SENSE_UA_POWER_ON);
	tcmx_itl_del(&nx_c, 2);
	EXPECT(prout_on(&ut_nexus, 3, 0xa, 0, 0), UT_GOOD);	/* CLEAR */
	CHECK(list_empty(&ut_cdev.pr_regs));
	nx_teardown();
}

/*
 * enforce_pr_isids: on, SPEC_I_PT from an iSCSI initiator port refuses a
 * TransportID without ISID (INVALID FIELD IN PARAMETER LIST at it) and
 * registers nothing; one with an ISID (its hex in either case) names that
 * port alone.  Off, the one without ISID registers every port of the
 * name.  A sender without ISID is not held to it.
 */
static void nexus_spec_i_pt_isids(void)
{
	static const char *const tid_name[] = { NAME };
	static const char *const tid_b[] = { NAME ",i,0x23D000000002" };
	struct tcmx_pr_reg *reg;
	u32 len;

	nx_setup();
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	EXPECT(on(&nx_b, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	ut_dev.attrib.enforce_pr_isids = 1;
	len = nx_tid_param(0xa, SPEC_I_PT, tid_name, 1);
	EXPECT(register_tids_on(&ut_nexus, len),
	       TCMX_SENSE_INVALID_PARAM_FIELD);
	CHECK(ut_sense[15] == 0x80 && ut_sense[16] == 0 && ut_sense[17] == 28);
	CHECK(list_empty(&ut_cdev.pr_regs) && !itl_a()->pr_reg);

	len = nx_tid_param(0xa, SPEC_I_PT, tid_b, 1);
	EXPECT(register_tids_on(&ut_nexus, len), UT_GOOD);
	reg = nx_reg(NAME, ISID_B, &ut_luns[0]);
	CHECK(reg && reg->key == 0xa && itl_b()->pr_reg == reg &&
	      itl_a()->pr_reg && itl_a()->pr_reg != reg);
	EXPECT(prout_on(&ut_nexus, 3, 0xa, 0, 0), UT_GOOD);	/* CLEAR */
	CHECK(list_empty(&ut_cdev.pr_regs));
	/* B was a registrant: CLEAR tells it so */
	EXPECT(on(&nx_b, C(0x00), 0, NONE), TCMX_SENSE_UA_RES_PREEMPTED);

	ut_dev.attrib.enforce_pr_isids = 0;
	len = nx_tid_param(0xb, SPEC_I_PT, tid_name, 1);
	EXPECT(register_tids_on(&ut_nexus, len), UT_GOOD);
	reg = nx_reg(NAME, "", &ut_luns[0]);
	CHECK(reg && reg->key == 0xb && itl_b()->pr_reg == reg &&
	      itl_a()->pr_reg);
	/* B is registered: its key changes with the one given */
	EXPECT(prout_on(&nx_b, 0, 0xb, 0xc, 0), UT_GOOD);
	CHECK(itl_b()->pr_reg && itl_b()->pr_reg->key == 0xc);
	EXPECT(prout_on(&nx_b, 3, 0xc, 0, 0), UT_GOOD);	/* CLEAR */
	CHECK(list_empty(&ut_cdev.pr_regs));

	/* a sender without ISID (not iSCSI): not refused */
	ut_dev.attrib.enforce_pr_isids = 1;
	strcpy(ut_nexus.port_id, "");
	len = nx_tid_param(0xd, SPEC_I_PT, tid_name, 1);
	EXPECT(register_tids_on(&ut_nexus, len), UT_GOOD);
	CHECK(itl_b()->pr_reg && itl_b()->pr_reg->key == 0xd);
	EXPECT(prout_on(&nx_b, 3, 0xd, 0, 0), UT_GOOD);	/* CLEAR */
	CHECK(list_empty(&ut_cdev.pr_regs));
	nx_teardown();
}

/* a command of @n's entry @id deferred, pinned as tcmx_cmd_pin() does */
static struct tcmx_itl *nx_pin(struct tcmx_nexus *n, u64 id)
{
	atomic_inc(&n->deferred);
	return tcmx_itl_pin(n, id, &ut_luns[0]);
}

/* ... and done, as tcmx_complete_cmd() has it */
static void nx_unpin(struct tcmx_nexus *n, struct tcmx_itl *itl)
{
	tcmx_itl_unpin(itl);
	atomic_dec_and_test(&n->deferred);
}

/* a registered I_T_L nexus leaves its map: its end's work kept, not run */
static void nx_del_held(struct tcmx_nexus *n, u64 id)
{
	ut_hold_work = true;
	tcmx_itl_del(n, id);
	ut_hold_work = false;
}

/* the end kept by nx_del_held() runs now */
static void nx_run_held(void)
{
	if (ut_held_work)
		ut_held_work->func(ut_held_work);
	ut_held_work = NULL;
}

/*
 * PREEMPT AND ABORT waits for the deferred commands of the I_T_L nexuses
 * it preempts, and only for those: commands of its own nexus (A) and of
 * another initiator's (C), on the same LUN, do not hold it up; one of the
 * preempted nexus (B) does.
 */
static void nexus_preempt_and_abort_waits(void)
{
	static void *nx_c_itls[UT_XA_MAX];
	static struct tcmx_nexus nx_c;
	struct tcmx_itl *pa, *pb, *pc;

	nx_setup();
	memset(&nx_c, 0, sizeof(nx_c));
	memset(nx_c_itls, 0, sizeof(nx_c_itls));
	nx_c.tpg = &ut_tpg;
	nx_c.itls.slot = nx_c_itls;
	strcpy(nx_c.name, OTHER);
	strcpy(nx_c.port_id, ISID_C);
	CHECK(tcmx_itl_add(&nx_c, 0, &ut_luns[0]));
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	EXPECT(on(&nx_b, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	EXPECT(prout_on(&ut_nexus, 0, 0, 0xa, 0), UT_GOOD);
	CHECK(itl_a()->pr_reg);
	EXPECT(prout_on(&nx_b, 0, 0, 0xb, 0), UT_GOOD);
	CHECK(itl_b()->pr_reg);
	EXPECT(prout_on(&ut_nexus, 1, 0xa, 0, 5), UT_GOOD);	/* WE_RO */
	CHECK(ut_cdev.pr_holder == itl_a()->pr_reg);

	pa = nx_pin(&ut_nexus, 0);
	pc = nx_pin(&nx_c, 0);
	CHECK(pa == itl_a() && pc && pa->ref.refs == 2 &&
	      atomic_read(&pa->deferred) == 1);
	ut_blocked_waits = 0;
	EXPECT(prout_on(&ut_nexus, 5, 0xa, 0xb, 5), UT_GOOD);
	CHECK(!ut_blocked_waits && !itl_b()->pr_reg &&
	      itl_b()->ua[0] == TCMX_SENSE_UA_REG_PREEMPTED);
	/* B registers again, has a command deferred: the preempt waits */
	EXPECT(prout_on(&nx_b, 0, 0, 0xb, 0), TCMX_SENSE_UA_REG_PREEMPTED);
	EXPECT(prout_on(&nx_b, 0, 0, 0xb, 0), UT_GOOD);
	CHECK(itl_b()->pr_reg);
	pb = nx_pin(&nx_b, B_LUN);
	ut_blocked_waits = 0;
	EXPECT(prout_on(&ut_nexus, 5, 0xa, 0xb, 5), UT_GOOD);
	CHECK(ut_blocked_waits == 1 && !itl_b()->pr_reg);
	/* the references it held are back */
	CHECK(pb == itl_b() && pb->ref.refs == 2 && pa->ref.refs == 2);
	nx_unpin(&nx_b, pb);
	nx_unpin(&ut_nexus, pa);
	nx_unpin(&nx_c, pc);
	CHECK(itl_a()->ref.refs == 1 && itl_b()->ref.refs == 1 &&
	      !atomic_read(&itl_a()->deferred) &&
	      !atomic_read(&itl_b()->deferred));

	/*
	 * A registered I_T_L nexus leaving its map stays on the device's
	 * list until its deferred commands are done, so that a PREEMPT AND
	 * ABORT still waits for them; the caller (who holds tcmx_cfs_mutex)
	 * does not wait: a work does, and holds its nexus and LUN meanwhile.
	 * One not registered (C) goes at once.
	 */
	EXPECT(prout_on(&nx_b, 0, 0, 0xb, 0), TCMX_SENSE_UA_REG_PREEMPTED);
	EXPECT(prout_on(&nx_b, 0, 0, 0xb, 0), UT_GOOD);
	CHECK(itl_b()->pr_reg);
	pb = nx_pin(&nx_b, B_LUN);
	ut_blocked_waits = 0;
	nx_del_held(&nx_b, B_LUN);
	CHECK(!ut_blocked_waits && ut_held_work && itl_b() == pb &&
	      atomic_read(&nx_b.deferred) == 2 && ut_luns[0].ref.count == 1);
	EXPECT(prout_on(&ut_nexus, 5, 0xa, 0xb, 5), UT_GOOD);
	CHECK(ut_blocked_waits == 1 && !pb->pr_reg);
	nx_unpin(&nx_b, pb);
	ut_blocked_waits = 0;
	nx_run_held();
	CHECK(!ut_blocked_waits && !itl_b() &&
	      !atomic_read(&nx_b.deferred) && !ut_luns[0].ref.count);
	pc = nx_pin(&nx_c, 0);
	ut_blocked_waits = 0;
	tcmx_itl_del(&nx_c, 0);
	CHECK(!ut_blocked_waits && pc->ref.refs == 1);
	nx_unpin(&nx_c, pc);
	EXPECT(prout_on(&ut_nexus, 3, 0xa, 0, 0), UT_GOOD);	/* CLEAR */
	CHECK(list_empty(&ut_cdev.pr_regs));
	nx_teardown();
}

/*
 * A registered I_T_L nexus that leaves its map is an I_T nexus loss at
 * once, though it ends later (a command of it still held): B's mapping
 * comes back meanwhile and hears I_T NEXUS LOSS OCCURRED, and no later
 * nexus of B's identity hears it again once the old one has ended.  B
 * unregisters and takes an SPC-2 reservation before that end: the end
 * leaves it to B.
 */
static void nexus_loss_while_ending(void)
{
	struct tcmx_pr_reg *reg;
	struct tcmx_itl *old;

	nx_setup();
	EXPECT(on(&ut_nexus, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	EXPECT(on(&nx_b, C(0x00), 0, NONE), TCMX_SENSE_UA_POWER_ON);
	EXPECT(prout_on(&nx_b, 0, 0, 0xb, 0), UT_GOOD);
	reg = itl_b()->pr_reg;
	CHECK(reg);
	old = itl_b();
	nx_del_held(&nx_b, B_LUN);
	CHECK(ut_held_work && itl_b() == old);
	CHECK(tcmx_itl_add(&nx_b, B_LUN, &ut_luns[0]) == itl_b());
	CHECK(itl_b() != old && itl_b()->pr_reg == reg &&
	      itl_b()->ua_count == 1 &&
	      itl_b()->ua[0] == TCMX_SENSE_UA_I_T_NEXUS_LOSS);
	EXPECT(on(&nx_b, C(0x00), 0, NONE), TCMX_SENSE_UA_I_T_NEXUS_LOSS);
	EXPECT(prout_on(&nx_b, 0, 0xb, 0, 0), UT_GOOD);	/* unregister */
	CHECK(list_empty(&ut_cdev.pr_regs));
	EXPECT(on(&nx_b, C(0x16), 0, NONE), UT_GOOD);	/* RESERVE(6) */
	nx_run_held();
	CHECK(ut_cdev.spc2_holder == &ut_luns[0] && ut_cdev.spc2_nexus == &nx_b);
	EXPECT(write_on(&ut_nexus), UT_CONFLICT);
	EXPECT(on(&nx_b, C(0x17), 0, NONE), UT_GOOD);	/* RELEASE(6) */
	CHECK(!ut_cdev.spc2_holder);

	/* registered again, and the registration tells no stale loss */
	EXPECT(prout_on(&nx_b, 0, 0, 0xb, 0), UT_GOOD);
	reg = itl_b()->pr_reg;
	CHECK(reg && !reg->nexus_lost);
	nx_del_held(&nx_b, B_LUN);
	CHECK(reg->nexus_lost);
	CHECK(tcmx_itl_add(&nx_b, B_LUN, &ut_luns[0]) == itl_b());
	CHECK(!reg->nexus_lost);
	nx_run_held();
	CHECK(!reg->nexus_lost && itl_b() && itl_b()->pr_reg == reg);
	EXPECT(on(&nx_b, C(0x00), 0, NONE), TCMX_SENSE_UA_I_T_NEXUS_LOSS);
	EXPECT(prout_on(&nx_b, 0, 0xb, 0, 0), UT_GOOD);
	nx_teardown();
}

void ut_test_nexus(void)
{
	nexus_unit_attentions();
	ut_fixture_reset();
	nexus_reservations();
	ut_fixture_reset();
	nexus_loss();
	ut_fixture_reset();
	nexus_spec_i_pt_compares();
	ut_fixture_reset();
	nexus_spec_i_pt_isids();
	ut_fixture_reset();
	nexus_register_through_acls();
	ut_fixture_reset();
	nexus_pr_lock_compares();
	ut_fixture_reset();
	nexus_loss_told_once();
	ut_fixture_reset();
	nexus_preempt_and_abort_waits();
	ut_fixture_reset();
	nexus_loss_while_ending();
}
