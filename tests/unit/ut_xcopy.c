// SPDX-License-Identifier: GPL-2.0
/*
 * EXTENDED COPY and RECEIVE COPY RESULTS (xcopy.c), VPD pages 86h and 8Fh
 * and the 3PC bit (spc.c), and the smaller primary commands: REPORT
 * TIMESTAMP, PREVENT ALLOW MEDIUM REMOVAL (spc.c), READ/WRITE BUFFER
 * (echo; buffer.c).
 * The backend is a 4 MiB window of memory per device; a second device,
 * exported by another LUN of the TPG (the nexus's LUN 9), exercises copies
 * between devices.
 */
#include <linux/errno.h>
#include <scsi/scsi_proto.h>
#include "ut.h"

#define IN	DMA_FROM_DEVICE
#define OUT	DMA_TO_DEVICE
#define XT_BLOCKS	8192			/* the window, 512-byte blocks */

/* fixed-format ILLEGAL REQUEST/@asc/00h, field pointer @sks0, @byte */
#define XT_FIELD(asc, sks0, byte)					\
	CHECK_SENSE(0x70, 0, 0x05, 0, 0, 0, 0, 18, 0, 0, 0, 0, (asc), 0, 0, \
		    (sks0), 0x00, (byte), 0, 0, 0, 0, 0, 0, 0, 0)

static u8 *xt_disk, *xt_disk2;
static struct tcmx_core_dev xt_cdev2;
#define xt_dev2		(xt_cdev2.dev)
static struct tcmx_lun xt_lun2;		/* LUN 9, device 2 */
#define XT_LUN2		9
/* references EXTENDED COPY took and did not drop */
#define xt_pins		(xt_lun2.ref.count)
static u8 xt_list[2048];
static int xt_dev2_writes_pinned;	/* device 2 written with LUN 9 pinned */

static u8 *xt_mem(struct tcmx_dev *dev)
{
	return dev == &xt_dev2 ? xt_disk2 : xt_disk;
}

static int xt_read(struct tcmx_dev *dev, u64 lba, u32 nr, void *buf)
{
	if (lba + nr > XT_BLOCKS)
		return -EIO;
	memcpy(buf, xt_mem(dev) + lba * 512, nr * 512);
	return 0;
}

static int xt_write(struct tcmx_dev *dev, u64 lba, u32 nr, const void *buf)
{
	if (lba + nr > XT_BLOCKS)
		return -EIO;
	if (dev == &xt_dev2 && xt_lun2.ref.count == 1)
		xt_dev2_writes_pinned++;
	memcpy(xt_mem(dev) + lba * 512, buf, nr * 512);
	return 0;
}

/* what the first device holds before any copy */
static u8 xt_pat(unsigned int i)
{
	return i / 512 + i % 7;
}

static void xt_setup(void)
{
	unsigned int i;

	xt_disk = malloc(XT_BLOCKS * 512);
	xt_disk2 = malloc(XT_BLOCKS * 512);
	for (i = 0; i < XT_BLOCKS * 512; i++) {
		xt_disk[i] = xt_pat(i);
		xt_disk2[i] = 0x5a;
	}
	ut_ops.read_blocks = xt_read;
	ut_ops.write_blocks = xt_write;
	memset(&xt_cdev2, 0, sizeof(xt_cdev2));
	xt_dev2.ops = &ut_ops;
	xt_dev2.nr_blocks = XT_BLOCKS;
	xt_dev2.block_size = 512;
	xt_dev2.block_shift = 9;
	strcpy(xt_cdev2.t10.unit_serial,
	       "77aa0001-0000-4000-8000-000000000002");
	xt_cdev2.t10.company_id = 0x001405;
	xt_dev2.attrib.emulate_3pc = 1;
	xt_lun2.dev = &xt_dev2;
	xt_lun2.tpg = &ut_tpg;
	xt_lun2.index = XT_LUN2;
	ut_slots[XT_LUN2] = &xt_lun2;
	ut_dout = xt_list;
}

static void xt_teardown(void)
{
	ut_ops.read_blocks = NULL;
	ut_ops.write_blocks = NULL;
	ut_slots[XT_LUN2] = NULL;
	ut_dout = NULL;
	free(xt_disk);
	free(xt_disk2);
	kfree(ut_cdev.xcopy_ids);
	ut_cdev.xcopy_ids = NULL;
}

/* an identification CSCD descriptor naming @dev, at @p */
static void xt_cscd(u8 *p, struct tcmx_dev *dev)
{
	memset(p, 0, 32);
	p[0] = 0xe4;
	p[4] = 0x01;				/* binary */
	p[5] = 0x03;				/* LU, NAA */
	p[7] = 16;
	tcmx_dev_naa(dev, &p[8]);
	put_unaligned_be24(512, &p[29]);
}

/*
 * A parameter list: @ncscd CSCD descriptors (source @src, then the
 * destination @dst device, repeating), @nseg block to block segments;
 * returns its length.
 */
static u32 xt_list_of(u8 id, u8 usage, int ncscd, struct tcmx_dev *src,
		      struct tcmx_dev *dst, int nseg, u16 si, u16 di,
		      u16 nolb, u64 slba, u64 dlba)
{
	u8 *p = &xt_list[16];
	int i;

	memset(xt_list, 0, sizeof(xt_list));
	xt_list[0] = id;
	xt_list[1] = usage << 3;
	put_unaligned_be16(ncscd * 32, &xt_list[2]);
	put_unaligned_be32(nseg * 28, &xt_list[8]);
	for (i = 0; i < ncscd; i++, p += 32)
		xt_cscd(p, i & 1 ? dst : src);
	for (i = 0; i < nseg; i++, p += 28) {
		p[0] = 0x02;
		put_unaligned_be16(0x18, &p[2]);
		put_unaligned_be16(si, &p[4]);
		put_unaligned_be16(di, &p[6]);
		put_unaligned_be16(nolb, &p[10]);
		put_unaligned_be64(slba, &p[12]);
		put_unaligned_be64(dlba, &p[20]);
	}
	return p - xt_list;
}

#define XCOPY(len)							\
	RUN(C(0x83, 0, 0, 0, 0, 0, 0, 0, 0, 0, (len) >> 24, (len) >> 16,	\
	      (len) >> 8, (len)), (len), OUT, 0)
#define RCR(sa, id, alloc)						\
	RUN(C(0x84, (sa), (id), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (alloc)), \
	    (alloc), IN, 0)

static void xcopy_op_params(void)
{
	EXPECT(RCR(0x03, 0, 255), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 46);
	CHECK_BYTES(0, 0, 0, 0, 42, 0x01, 0, 0, 0,
		    0, 2, 0, 1, 0, 0, 0x04, 0x00, 0x10, 0, 0, 0,
		    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16,
		    16, 9, 9, 9, 0, 0, 0, 2, 0x02, 0xe4, UT_FILL);
	/* clipped to the allocation length */
	EXPECT(RCR(0x03, 0, 8), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 8);
	CHECK_BYTES(0, 0, 0, 0, 42, 0x01, 0, 0, 0, UT_FILL);
	/* no other service action: FAILED SEGMENT DETAILS, RECEIVE DATA */
	EXPECT(RCR(0x04, 0, 255), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RCR(0x01, 0, 255), TCMX_SENSE_INVALID_CDB_FIELD);
}

static void xcopy_same_device(void)
{
	u8 want[16 * 512];
	u32 len;

	memcpy(want, xt_disk + 100 * 512, sizeof(want));
	/* one CSCD descriptor, source and destination both, list id 1 */
	len = xt_list_of(1, 0, 1, &ut_dev, &ut_dev, 1, 0, 0, 16, 100, 4000);
	EXPECT(XCOPY(len), UT_GOOD);
	CHECK(ut_cmd.xfer_len == len);
	CHECK(!memcmp(xt_disk + 4000 * 512, want, sizeof(want)));
	CHECK(xt_disk[4000 * 512 - 1] == xt_pat(4000 * 512 - 1) &&
	      xt_disk[4016 * 512] == xt_pat(4016 * 512));
	/* its status, once: done, one segment, 8 KiB */
	EXPECT(RCR(0x00, 1, 255), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 12);
	CHECK_BYTES(0, 0, 0, 0, 8, 0x01, 0, 1, 0, 0, 0, 0x20, 0, UT_FILL);
	EXPECT(RCR(0x00, 1, 255), TCMX_SENSE_INVALID_CDB_FIELD);
	XT_FIELD(0x24, 0xc0, 2);
	/*
	 * A PARAMETER LIST LENGTH beyond the buffer: no more reported moved
	 * than the buffer holds (found by fuzz_cdb)
	 */
	len = xt_list_of(0, 3, 1, &ut_dev, &ut_dev, 1, 0, 0, 1, 100, 4000);
	EXPECT(RUN(C(0x83, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, len), len,
		   OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == len);
}

/* overlapping upwards: every block read before it is overwritten */
static void xcopy_overlap(void)
{
	u8 want[3000 * 512];
	u32 len;

	memcpy(want, xt_disk + 10 * 512, sizeof(want));
	len = xt_list_of(0, 3, 1, &ut_dev, &ut_dev, 1, 0, 0, 3000, 10, 1000);
	EXPECT(XCOPY(len), UT_GOOD);
	CHECK(!memcmp(xt_disk + 1000 * 512, want, sizeof(want)));
	/* no list identifier: no status */
	EXPECT(RCR(0x00, 0, 255), TCMX_SENSE_INVALID_CDB_FIELD);
}

static void xcopy_two_devices(void)
{
	u8 want[2048 * 512];
	u32 len;

	memcpy(want, xt_disk + 2 * 512, sizeof(want));
	len = xt_list_of(2, 2, 2, &ut_dev, &xt_dev2, 1, 0, 1, 2048, 2, 6000);
	EXPECT(XCOPY(len), UT_GOOD);
	CHECK(!memcmp(xt_disk2 + 6000 * 512, want, sizeof(want)));
	CHECK(xt_disk2[5999 * 512 + 511] == 0x5a && xt_pins == 0);
	/* LUN 9 pinned as a deferred command's LUN while the copy wrote */
	CHECK(xt_dev2_writes_pinned == 1);
	/* and back, to the receiving device, at its end */
	len = xt_list_of(0, 3, 2, &xt_dev2, &ut_dev, 1, 0, 1, 8, 6000, 8184);
	EXPECT(XCOPY(len), UT_GOOD);
	CHECK(!memcmp(xt_disk + 8184 * 512, want, 8 * 512) && xt_pins == 0);
	/* the destination beyond the other device's capacity */
	len = xt_list_of(0, 3, 2, &ut_dev, &xt_dev2, 1, 0, 1, 2, 0, XT_BLOCKS - 1);
	EXPECT(XCOPY(len), TCMX_SENSE_COPY_TARGET_NOT_REACHABLE);
	CHECK(xt_pins == 0);
	/* write protected: what its WRITE would get stops the copy */
	xt_dev2.gate = BIT(TCMX_GATE_WP);
	len = xt_list_of(0, 3, 2, &ut_dev, &xt_dev2, 1, 0, 1, 2, 0, 0);
	EXPECT(XCOPY(len), TCMX_SENSE_COPY_TARGET_NOT_REACHABLE);
	CHECK(xt_pins == 0 && xt_disk2[0] == 0x5a);
	xt_dev2.gate = 0;
	/* a different block size */
	xt_dev2.block_size = 4096;
	EXPECT(XCOPY(len), TCMX_SENSE_INVALID_PARAM_FIELD);
	XT_FIELD(0x26, 0x80, 77);
	xt_dev2.block_size = 512;
}

static void xcopy_errors(void)
{
	struct tcmx_core_dev other = xt_cdev2;
	u32 len;

	/* parameter list length 0: nothing, GOOD */
	EXPECT(XCOPY(0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 0);
	/* shorter than the header, than its lists */
	len = xt_list_of(1, 0, 1, &ut_dev, &ut_dev, 1, 0, 0, 1, 0, 1);
	EXPECT(XCOPY(15), TCMX_SENSE_PARAM_LIST_LENGTH);
	EXPECT(XCOPY(16 + 31), TCMX_SENSE_PARAM_LIST_LENGTH);
	EXPECT(XCOPY(len - 1), TCMX_SENSE_PARAM_LIST_LENGTH);
	/* three CSCD descriptors, two segments */
	len = xt_list_of(1, 0, 3, &ut_dev, &ut_dev, 1, 0, 0, 1, 0, 1);
	EXPECT(XCOPY(len), TCMX_SENSE_TOO_MANY_TARGET_DESC);
	len = xt_list_of(1, 0, 1, &ut_dev, &ut_dev, 2, 0, 0, 1, 0, 1);
	EXPECT(XCOPY(len), TCMX_SENSE_TOO_MANY_SEGMENT_DESC);
	/* lists over 1024 bytes: a length error first */
	len = xt_list_of(1, 0, 3, &ut_dev, &ut_dev, 34, 0, 0, 1, 0, 1);
	EXPECT(XCOPY(len), TCMX_SENSE_PARAM_LIST_LENGTH);
	/* an FC N_Port_Name CSCD, a stream to stream segment */
	len = xt_list_of(1, 0, 1, &ut_dev, &ut_dev, 1, 0, 0, 1, 0, 1);
	xt_list[16] = 0xe0;
	EXPECT(XCOPY(len), TCMX_SENSE_UNSUPPORTED_TARGET_DESC);
	xt_list[16] = 0xe4;
	xt_list[48] = 0x03;
	EXPECT(XCOPY(len), TCMX_SENSE_UNSUPPORTED_SEGMENT_DESC);
	xt_list[48] = 0x02;
	/* a segment list of 20 bytes */
	put_unaligned_be32(20, &xt_list[8]);
	EXPECT(XCOPY(len), TCMX_SENSE_UNSUPPORTED_SEGMENT_DESC);
	put_unaligned_be32(28, &xt_list[8]);
	/* inline data, a T10 designator, LIST ID USAGE 01b */
	put_unaligned_be32(4, &xt_list[12]);
	EXPECT(XCOPY(len), TCMX_SENSE_INVALID_PARAM_FIELD);
	XT_FIELD(0x26, 0x80, 12);
	put_unaligned_be32(0, &xt_list[12]);
	xt_list[21] = 0x01;
	EXPECT(XCOPY(len), TCMX_SENSE_INVALID_PARAM_FIELD);
	XT_FIELD(0x26, 0x8b, 21);
	xt_list[21] = 0x03;
	xt_list[1] = 1 << 3;
	EXPECT(XCOPY(len), TCMX_SENSE_INVALID_PARAM_FIELD);
	/* no list identifier (11b) with a list identifier */
	xt_list[1] = 3 << 3;
	EXPECT(XCOPY(len), TCMX_SENSE_INVALID_PARAM_FIELD);
	/* a LU nobody has; a destination index past the list */
	strcpy(other.t10.unit_serial, "1234");
	len = xt_list_of(1, 0, 2, &ut_dev, &other.dev, 1, 0, 1, 1, 0, 1);
	EXPECT(XCOPY(len), TCMX_SENSE_COPY_TARGET_NOT_REACHABLE);
	CHECK_SENSE(0x70, 0, 0x0a, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x0d, 0x02,
		    0, 0, 0, 0);
	len = xt_list_of(1, 0, 1, &ut_dev, &ut_dev, 1, 0, 1, 1, 0, 1);
	EXPECT(XCOPY(len), TCMX_SENSE_COPY_TARGET_NOT_REACHABLE);
	/* the failed copy's status: failed, nothing moved */
	EXPECT(RCR(0x00, 1, 255), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 8, 0x02, 0, 0, 0, 0, 0, 0, 0, UT_FILL);
	/* beyond the receiving device's capacity */
	len = xt_list_of(1, 0, 1, &ut_dev, &ut_dev, 1, 0, 0, 2048, 0,
			 ut_dev.nr_blocks - 1);
	EXPECT(XCOPY(len), TCMX_SENSE_COPY_TARGET_NOT_REACHABLE);
	/* reserved CDB bytes, the LID4 service action */
	EXPECT(RUN(C(0x83, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 0, OUT, 0),
	       TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x83, 1), 0, OUT, 0), TCMX_SENSE_INVALID_CDB_FIELD);
	CHECK(xt_pins == 0);
}

/* a finished copy's status is held for a while only */
static void xcopy_status_hold(void)
{
	u32 len = xt_list_of(7, 0, 1, &ut_dev, &ut_dev, 1, 0, 0, 1, 0, 1);

	EXPECT(XCOPY(len), UT_GOOD);
	CHECK(ut_cmd.xfer_len == len);
	jiffies += HZ;
	EXPECT(RCR(0x00, 7, 255), TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(XCOPY(len), UT_GOOD);
	CHECK(ut_cmd.xfer_len == len);
	EXPECT(RCR(0x00, 7, 255), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 8, 0x01, 0, 1, 0, 0, 0, 0x02, 0, UT_FILL);
}

/* with block operations: the 3PC bit and VPD page 8Fh */
static void xcopy_vpd(void)
{
	EXPECT(RUN(C(0x12, 0, 0, 0, 96), 96, IN, 0), UT_GOOD);
	CHECK(ut_data[5] == 0x38);		/* 3PC, TPGS explicit+implicit */
	EXPECT(RUN(C(0x12, 1, 0x00, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0, 0, 0, 8, 0x00, 0x80, 0x83, 0x86, 0x8f, 0xb0,
		    0xb1, 0xb2, UT_FILL);
	EXPECT(RUN(C(0x12, 1, 0x8f, 1, 0), 256, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 4 + 96);
	CHECK_BYTES(0, 0x00, 0x8f, 0x00, 96,
		    /* supported commands */
		    0x00, 0x01, 0x00, 0x08, 7, 0x83, 1, 0x00, 0x84, 2, 0x00,
		    0x03,
		    /* parameter data */
		    0x00, 0x04, 0x00, 0x1c, 0, 0, 0, 0, 0, 2, 0, 1,
		    0, 0, 0x04, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		    0, 0, 0, 0,
		    /* supported descriptors */
		    0x00, 0x08, 0x00, 0x04, 2, 0x02, 0xe4, 0,
		    /* supported CSCD descriptor IDs */
		    0x00, 0x0c, 0x00, 0x04, 0, 0, 0, 0,
		    /* general copy operations */
		    0x80, 0x01, 0x00, 0x20, 0, 0, 0, 16, 0, 0, 0, 16,
		    0x10, 0, 0, 0, 9, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		    0, 0, 0, 0, 0, 0, UT_FILL);
}

/*
 * A copy stays within what the sending nexus reaches: device 2 only while
 * its LUN 9 is in the TPG, with the receiving LU one side of the segment,
 * and only while device 2 has emulate_3pc and its LUN passes the gate.
 */
static void xcopy_nexus(void)
{
	u32 len;

	ut_slots[XT_LUN2] = NULL;
	len = xt_list_of(0, 3, 2, &ut_dev, &xt_dev2, 1, 0, 1, 8, 0, 0);
	EXPECT(XCOPY(len), TCMX_SENSE_COPY_TARGET_NOT_REACHABLE);
	CHECK(xt_disk2[0] == 0x5a && xt_disk2[8 * 512 - 1] == 0x5a);
	len = xt_list_of(0, 3, 2, &xt_dev2, &ut_dev, 1, 0, 1, 8, 0, 5000);
	EXPECT(XCOPY(len), TCMX_SENSE_COPY_TARGET_NOT_REACHABLE);
	CHECK(xt_disk[5000 * 512] == xt_pat(5000 * 512) && xt_pins == 0);
	ut_slots[XT_LUN2] = &xt_lun2;
	/* device 2 to itself, sent to device 1: neither side receives it */
	len = xt_list_of(0, 3, 2, &xt_dev2, &xt_dev2, 1, 0, 1, 8, 100, 0);
	xt_disk2[100 * 512] = 0x77;
	EXPECT(XCOPY(len), TCMX_SENSE_COPY_TARGET_NOT_REACHABLE);
	CHECK(xt_disk2[0] == 0x5a && xt_pins == 0);
	xt_disk2[100 * 512] = 0x5a;
	/* device 2 with emulate_3pc=0 is no copy target */
	xt_dev2.attrib.emulate_3pc = 0;
	len = xt_list_of(0, 3, 2, &ut_dev, &xt_dev2, 1, 0, 1, 8, 0, 0);
	EXPECT(XCOPY(len), TCMX_SENSE_COPY_TARGET_NOT_REACHABLE);
	CHECK(xt_disk2[0] == 0x5a && xt_pins == 0);
	xt_dev2.attrib.emulate_3pc = 1;
}

/* LUN 9 in Standby: neither a READ nor a WRITE through it would run */
static void xcopy_remote_gate(void)
{
	struct tcmx_tg_pt_gp standby = {
		.access_state = SCSI_ACCESS_STATE_STANDBY,
	};
	u32 len;

	xt_lun2.tg_pt_gp = &standby;
	xt_dev2.gate = BIT(TCMX_GATE_ALUA);
	len = xt_list_of(0, 3, 2, &ut_dev, &xt_dev2, 1, 0, 1, 8, 0, 0);
	EXPECT(XCOPY(len), TCMX_SENSE_COPY_TARGET_NOT_REACHABLE);
	CHECK(xt_disk2[0] == 0x5a && xt_pins == 0);
	len = xt_list_of(0, 3, 2, &xt_dev2, &ut_dev, 1, 0, 1, 8, 0, 5000);
	EXPECT(XCOPY(len), TCMX_SENSE_COPY_TARGET_NOT_REACHABLE);
	CHECK(xt_disk[5000 * 512] == xt_pat(5000 * 512) && xt_pins == 0);
	/* Active/Optimized again: the same copy runs */
	standby.access_state = SCSI_ACCESS_STATE_OPTIMAL;
	EXPECT(XCOPY(len), UT_GOOD);
	CHECK(xt_disk[5000 * 512] == 0x5a && xt_pins == 0);
	xt_dev2.gate = 0;
	xt_lun2.tg_pt_gp = NULL;
}

/*
 * emulate_3pc=0 on the receiving device: EXTENDED COPY is no command,
 * INQUIRY clears 3PC, VPD page 8Fh and RSOC leave it out; emulate_caw=0:
 * COMPARE AND WRITE likewise, and MAXIMUM COMPARE AND WRITE LENGTH is 0.
 */
static void xcopy_caw_switched_off(void)
{
	u32 len = xt_list_of(0, 3, 1, &ut_dev, &ut_dev, 1, 0, 0, 1, 0, 7000);

	ut_dev.attrib.emulate_3pc = 0;
	EXPECT(XCOPY(len), TCMX_SENSE_INVALID_OPCODE);
	CHECK(xt_disk[7000 * 512] == xt_pat(7000 * 512));
	EXPECT(RUN(C(0x12, 0, 0, 0, 96), 96, IN, 0), UT_GOOD);
	CHECK(!(ut_data[5] & 0x08));
	EXPECT(RUN(C(0x12, 1, 0x8f, 0, 255), 255, IN, 0),
	       TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0xa3, 0x0c, 2, 0x83, 0, 0, 0, 0, 0, 64), 64, IN, 0),
	       UT_GOOD);
	CHECK(ut_data[1] == 0x01);
	/* RECEIVE COPY RESULTS stays, as in-tree */
	EXPECT(RCR(0x03, 0, 255), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 46);
	ut_dev.attrib.emulate_3pc = 1;
	EXPECT(RUN(C(0xa3, 0x0c, 2, 0x83, 0, 0, 0, 0, 0, 64), 64, IN, 0),
	       UT_GOOD);
	CHECK(ut_data[1] == 0x03);

	ut_dev.attrib.emulate_caw = 0;
	memset(xt_list, 0, 1024);
	EXPECT(RUN_OUT(C(0x89, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 1),
		       xt_list, 1024, 1024, 0), TCMX_SENSE_INVALID_OPCODE);
	CHECK(xt_disk[16 * 512] == xt_pat(16 * 512));
	EXPECT(RUN(C(0xa3, 0x0c, 1, 0x89, 0, 0, 0, 0, 0, 64), 64, IN, 0),
	       UT_GOOD);
	CHECK(ut_data[1] == 0x01);
	EXPECT(RUN(C(0x12, 1, 0xb0, 0, 64), 64, IN, 0), UT_GOOD);
	CHECK(ut_data[5] == 0);
	ut_dev.attrib.emulate_caw = 1;
	EXPECT(RUN(C(0x12, 1, 0xb0, 0, 64), 64, IN, 0), UT_GOOD);
	CHECK(ut_data[5] == 255);
}

void ut_test_xcopy(void)
{
	xt_setup();
	xcopy_op_params();
	xcopy_same_device();
	xcopy_overlap();
	xcopy_two_devices();
	xcopy_nexus();
	xcopy_remote_gate();
	xcopy_caw_switched_off();
	xcopy_errors();
	xcopy_status_hold();
	xcopy_vpd();
	xt_teardown();
}

/* ---- timestamp, medium removal, buffers and VPD page 86h ---- */

static void misc_ext_inquiry(void)
{
	/* without block operations no 3PC bit, no page 8Fh */
	EXPECT(RUN(C(0x12, 0, 0, 0, 96), 96, IN, 0), UT_GOOD);
	CHECK(ut_data[5] == 0x30);
	EXPECT(RUN(C(0x12, 1, 0x8f, 0, 255), 255, IN, 0),
	       TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x12, 1, 0x86, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 64);
	CHECK_BYTES(0, 0x00, 0x86, 0x00, 0x3c, 0x00, 0x07, 0x01, 0x00, 0x00,
		    0x00, 0x00, 0x00);
	ut_dev.attrib.emulate_write_cache = 0;
	EXPECT(RUN(C(0x12, 1, 0x86, 0, 255), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(4, 0x00, 0x07, 0x00, 0x00);
	ut_dev.attrib.emulate_write_cache = 1;
}

static void misc_timestamp(void)
{
	ut_real_ns = 1764593000123456789ULL;	/* ms 1764593000123 */
	EXPECT(RUN(C(0xa3, 0x0f, 0, 0, 0, 0, 0, 0, 0, 12), 255, IN, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 12);
	CHECK_BYTES(0, 0x00, 0x0a, 0x03, 0x00, 0x01, 0x9a, 0xd9, 0xf0, 0x5e,
		    0xbb, 0x00, 0x00, UT_FILL);
	EXPECT(RUN(C(0xa3, 0x0f, 0, 0, 0, 0, 0, 0, 0, 4), 255, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0x00, 0x0a, 0x03, 0x00, UT_FILL);
	EXPECT(RUN(C(0xa3, 0x2f, 0, 0, 0, 0, 0, 0, 0, 4), 255, IN, 0),
	       TCMX_SENSE_INVALID_CDB_FIELD);
}

static void misc_prevent_allow(void)
{
	EXPECT(RUN(C(0x1e, 0, 0, 0, 0, 0), 0, DMA_NONE, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 0 && ut_data[0] == UT_FILL);
	EXPECT(RUN(C(0x1e, 0, 0, 0, 1, 0), 0, DMA_NONE, 0),
	       TCMX_SENSE_INVALID_CDB_FIELD);
	XT_FIELD(0x24, 0xc9, 4);
	EXPECT(RUN(C(0x1e, 0, 0, 0, 2, 0), 0, DMA_NONE, 0),
	       TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x1e, 0, 0, 0, 4, 0), 0, DMA_NONE, 0),
	       TCMX_SENSE_INVALID_CDB_FIELD);
}

static void misc_echo_buffer(void)
{
	static u8 pattern[4096];
	unsigned int i;

	/* nothing written yet: COMMAND SEQUENCE ERROR */
	EXPECT(RUN(C(0x3c, 0x0a, 0, 0, 0, 0, 0, 0x10, 0, 0), 4096, IN, 0),
	       TCMX_SENSE_COMMAND_SEQUENCE);
	/* the descriptor: EBOS 0, 4096 bytes */
	EXPECT(RUN(C(0x3c, 0x0b, 0, 0, 0, 0, 0, 0, 4, 0), 4, IN, 0), UT_GOOD);
	CHECK_BYTES(0, 0x00, 0x00, 0x10, 0x00, UT_FILL);
	for (i = 0; i < sizeof(pattern); i++)
		pattern[i] = i * 13 + 1;
	ut_dout = pattern;
	EXPECT(RUN(C(0x3b, 0x0a, 0, 0, 0, 0, 0, 0x10, 0x00, 0), 4096, OUT, 0),
	       UT_GOOD);
	CHECK(ut_cmd.xfer_len == 4096);
	/* over the capacity, other modes */
	EXPECT(RUN(C(0x3b, 0x0a, 0, 0, 0, 0, 0, 0x10, 0x01, 0), 4097, OUT, 0),
	       TCMX_SENSE_INVALID_CDB_FIELD);
	EXPECT(RUN(C(0x3b, 0x02, 0, 0, 0, 0, 0, 0, 4, 0), 4, OUT, 0),
	       TCMX_SENSE_INVALID_CDB_FIELD);
	XT_FIELD(0x24, 0xcc, 1);
	ut_dout = NULL;
	EXPECT(RUN(C(0x3c, 0x0a, 0, 0, 0, 0, 0, 0x10, 0, 0), 4096, IN, 0),
	       UT_GOOD);
	CHECK(ut_cmd.xfer_len == 4096 && !memcmp(ut_data, pattern, 4096));
	/* a shorter write is what a read returns, clipped */
	ut_dout = pattern + 1;
	EXPECT(RUN(C(0x3b, 0x0a, 0, 0, 0, 0, 0, 0, 3, 0), 3, OUT, 0), UT_GOOD);
	CHECK(ut_cmd.xfer_len == 3);
	ut_dout = NULL;
	EXPECT(RUN(C(0x3c, 0x0a, 0, 0, 0, 0, 0, 0x10, 0, 0), 4096, IN, 0),
	       UT_GOOD);
	CHECK(ut_cmd.xfer_len == 3);
	CHECK_BYTES(0, pattern[1], pattern[2], pattern[3], UT_FILL);
	EXPECT(RUN(C(0x3c, 0x0a, 0, 0, 0, 0, 0, 0, 2, 0), 4096, IN, 0),
	       UT_GOOD);
	CHECK_BYTES(0, pattern[1], pattern[2], UT_FILL);
	EXPECT(RUN(C(0x3c, 0x02, 0, 0, 0, 0, 0, 0, 2, 0), 4096, IN, 0),
	       TCMX_SENSE_INVALID_CDB_FIELD);
	kfree(ut_cdev.echo_buf);
	ut_cdev.echo_buf = NULL;
}

void ut_test_timestamp_buffers(void)
{
	misc_ext_inquiry();
	misc_timestamp();
	misc_prevent_allow();
	misc_echo_buffer();
}
