// SPDX-License-Identifier: GPL-2.0
/*
 * Primary commands (SPC-4): INQUIRY and its VPD pages, REPORT LUNS,
 * REQUEST SENSE, REPORT TARGET PORT GROUPS, TEST UNIT READY, REPORT
 * TIMESTAMP, PREVENT ALLOW MEDIUM REMOVAL.  MODE SENSE and MODE SELECT are
 * mode.c's, READ BUFFER and WRITE BUFFER buffer.c's.
 *
 * Their rows of the command table are at the end.  The table has checked
 * reserved bits and the data direction; each function checks the values
 * of its own CDB fields and builds its parameter data in a zeroed buffer,
 * of which it sends at most the allocation length.  Everything may run in atomic context: small
 * responses live on the stack, INQUIRY allocates with GFP_ATOMIC (BUSY if
 * that fails) and REPORT LUNS streams its list in chunks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "compat.h"
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"

#define SPC_INQUIRY_BUF_LEN	1024	/* the largest page, 0x83, is < 830 */
#define SPC_STD_INQUIRY_LEN	96
#define SPC_DESIG_MAX		255	/* DESIGNATOR LENGTH is one byte */
#define SPC_NAME_MAX		252	/* SCSI name string: also a multiple of 4 */
#define SPC_SD_MAX_OPT_BLOCKS	0xffff	/* sd's limit w/o 16-byte CDBs */

static void spc_put_ascii(u8 *dst, const char *src, size_t width)
{
	memset(dst, ' ', width);
	memcpy(dst, src, strnlen(src, width));
}

/* ---- INQUIRY ---------------------------------------------------------- */

static struct tcmx_tg_pt_gp *spc_alua_group(struct tcmx_cmd *cmd)
{
	if (!cmd->dev->attrib.alua_support)
		return NULL;
	return READ_ONCE(cmd->lun->tg_pt_gp);
}

/* TPGS: access_type bit 0 (implicit) -> 01b, bit 1 (explicit) -> 10b */
static u8 spc_tpgs(struct tcmx_cmd *cmd)
{
	struct tcmx_tg_pt_gp *gp = spc_alua_group(cmd);

	return gp ? (gp->access_type & 0x03) << 4 : 0;
}

/* EXTENDED COPY (xcopy.c): emulate_3pc, and the backend's block operations */
static bool spc_has_3pc(struct tcmx_dev *dev)
{
	return tcmx_xcopy_enabled(dev);
}

static u32 spc_inquiry_std(struct tcmx_cmd *cmd, u8 *buf)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd;

	buf[2] = 0x06;				/* SPC-4 */
	buf[3] = 0x12;				/* HISUP, response format 2 */
	buf[4] = SPC_STD_INQUIRY_LEN - 5;
	buf[7] = 0x02;				/* CMDQUE */
	if (!dev) {
		memset(&buf[8], ' ', 28);
		return SPC_STD_INQUIRY_LEN;
	}
	cd = tcmx_core(dev);
	buf[5] = spc_tpgs(cmd);
	if (spc_has_3pc(dev))
		buf[5] |= 0x08;			/* 3PC: EXTENDED COPY */
	if (READ_ONCE(cd->export_count) > 1)
		buf[6] = 0x10;			/* MULTIP */
	spc_put_ascii(&buf[8], cd->t10.vendor, 8);
	spc_put_ascii(&buf[16], cd->t10.model, 16);
	spc_put_ascii(&buf[32], cd->t10.revision, 4);
	put_unaligned_be16(SCSI_VERSION_DESCRIPTOR_SAM5, &buf[58]);
	put_unaligned_be16(SCSI_VERSION_DESCRIPTOR_SPC4, &buf[60]);
	put_unaligned_be16(SCSI_VERSION_DESCRIPTOR_SBC3, &buf[62]);
	return SPC_STD_INQUIRY_LEN;
}

/*
 * VPD pages.  Each fill function gets the whole page (header included, so
 * offsets match the standard's tables) and returns the PAGE LENGTH.
 */
struct spc_vpd_page {
	u8 code;
	u32 (*fill)(struct tcmx_cmd *cmd, u8 *buf);
	bool (*shown)(struct tcmx_dev *dev);	/* NULL: always */
};

static u32 spc_vpd_serial(struct tcmx_cmd *cmd, u8 *buf)
{
	const struct tcmx_t10_wwn *t10 = &tcmx_core(cmd->dev)->t10;
	size_t len = strnlen(t10->unit_serial, sizeof(t10->unit_serial));

	memcpy(&buf[4], t10->unit_serial, len);
	return len;
}

/*
 * NAA 6 (IEEE Registered Extended), 32 nibbles: 6h, the 24-bit OUI, then
 * the first 25 hex digits of the unit serial, zero-filled.
 */
static void spc_fill_naa(struct tcmx_dev *dev, u8 *p)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	const char *s = cd->t10.unit_serial;
	u32 oui = cd->t10.company_id;
	unsigned int n;
	int val;

	p[0] = 0x60 | ((oui >> 20) & 0x0f);
	p[1] = oui >> 12;
	p[2] = oui >> 4;
	p[3] = (oui & 0x0f) << 4;
	for (n = 7; *s && n < 32; s++) {
		val = hex_to_bin(*s);
		if (val < 0)
			continue;
		p[n / 2] |= n & 1 ? val : val << 4;
		n++;
	}
}

/* a designation descriptor header; returns the descriptor's full size */
static u32 spc_designator(u8 *p, u8 code_set, u8 type, u32 len)
{
	p[0] = code_set;
	p[1] = type;
	p[3] = len;
	return 4 + len;
}

#define SPC_CODE_BINARY		0x01
#define SPC_CODE_ASCII		0x02
#define SPC_CODE_UTF8		0x03
/* byte 1: ASSOCIATION (bits 5-4) | DESIGNATOR TYPE (bits 3-0) */
#define SPC_LU_T10		0x01
#define SPC_LU_NAA		0x03
#define SPC_PORT_RTPI		0x14
#define SPC_PORT_TPG		0x15
#define SPC_PORT_NAME		0x18
#define SPC_TARGET_NAME		0x28

/* null-terminated, null-padded to a multiple of 4 (so at most 252) */
static u32 spc_name_designator(u8 *p, u8 type, const char *wwn, int tag)
{
	int n;

	if (tag < 0)
		n = scnprintf(&p[4], SPC_NAME_MAX, "%s", wwn);
	else
		n = scnprintf(&p[4], SPC_NAME_MAX, "%s,t,0x%04x", wwn, tag);
	return spc_designator(p, SPC_CODE_UTF8, type, ALIGN(n + 1, 4));
}

static u32 spc_vpd_devid(struct tcmx_cmd *cmd, u8 *buf)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_tg_pt_gp *gp = spc_alua_group(cmd);
	const char *wwn = tcmx_wwn_name(cmd->tpg->wwn);
	u8 *p = &buf[4];
	int n;

	if (cd->t10.unit_serial[0]) {
		spc_fill_naa(dev, &p[4]);
		p += spc_designator(p, SPC_CODE_BINARY, SPC_LU_NAA, 16);
	}
	/* T10 vendor ID: vendor (8, space padded), then "model:serial" */
	spc_put_ascii(&p[4], cd->t10.vendor, 8);
	n = scnprintf(&p[12], SPC_DESIG_MAX - 8 + 1, "%s:%s", cd->t10.model,
		      cd->t10.unit_serial);
	p += spc_designator(p, SPC_CODE_ASCII, SPC_LU_T10, 8 + n);

	put_unaligned_be16(cmd->lun->rtpi, &p[6]);
	p += spc_designator(p, SPC_CODE_BINARY, SPC_PORT_RTPI, 4);
	if (gp) {
		put_unaligned_be16(gp->id, &p[6]);
		p += spc_designator(p, SPC_CODE_BINARY, SPC_PORT_TPG, 4);
	}
	p += spc_name_designator(p, SPC_PORT_NAME, wwn, cmd->tpg->tag);
	p += spc_name_designator(p, SPC_TARGET_NAME, wwn, -1);
	return p - &buf[4];
}

bool tcmx_dev_naa(struct tcmx_dev *dev, u8 *naa)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	memset(naa, 0, TCMX_NAA_LEN);
	if (!cd->t10.unit_serial[0])
		return false;
	spc_fill_naa(dev, naa);
	return true;
}

/*
 * Extended INQUIRY data: simple, ordered and head of queue task
 * attributes; V_SUP with a volatile cache to verify against.  No
 * protection information, no non-volatile cache.
 */
static u32 spc_vpd_ext_inquiry(struct tcmx_cmd *cmd, u8 *buf)
{
	buf[5] = 0x07;				/* HEADSUP ORDSUP SIMPSUP */
	if (cmd->dev->attrib.emulate_write_cache)
		buf[6] = 0x01;			/* V_SUP */
	return 0x3c;
}

/* one third-party copy descriptor: type, then length (a multiple of 4) */
static u32 spc_3pc_desc(u8 *p, u16 type, u32 len)
{
	len = ALIGN(len, 4);
	put_unaligned_be16(type, &p[0]);
	put_unaligned_be16(len - 4, &p[2]);
	return len;
}

/* What xcopy.c does: opcode, count of service actions, the actions */
static const u8 spc_3pc_cmds[] = {
	EXTENDED_COPY, 1, 0x00,				/* LID1 */
	RECEIVE_COPY_RESULTS, 2, 0x00, 0x03,	/* COPY STATUS, OP PARAMS */
};

/*
 * Third-party copy (SPC-4 7.8.17): supported commands, parameter data,
 * supported descriptors (block to block, identification CSCD), supported
 * CSCD descriptor IDs (none beyond list indexes), general copy operations.
 */
static u32 spc_vpd_3pc(struct tcmx_cmd *cmd, u8 *buf)
{
	u8 shift = cmd->dev->block_shift;
	u8 *p = &buf[4];

	p[4] = sizeof(spc_3pc_cmds);
	memcpy(&p[5], spc_3pc_cmds, sizeof(spc_3pc_cmds));
	p += spc_3pc_desc(p, 0x0001, 5 + sizeof(spc_3pc_cmds));

	put_unaligned_be16(TCMX_XCOPY_MAX_CSCD, &p[8]);
	put_unaligned_be16(TCMX_XCOPY_MAX_SEG, &p[10]);
	put_unaligned_be32(TCMX_XCOPY_MAX_LIST, &p[12]);
	p += spc_3pc_desc(p, 0x0004, 32);	/* no inline data */

	p[4] = 2;
	p[5] = 0x02;				/* block to block */
	p[6] = 0xe4;				/* identification CSCD */
	p += spc_3pc_desc(p, 0x0008, 7);

	p += spc_3pc_desc(p, 0x000c, 6);	/* an empty list */

	put_unaligned_be32(TCMX_XCOPY_IDS, &p[4]);
	put_unaligned_be32(TCMX_XCOPY_IDS, &p[8]);
	put_unaligned_be32(TCMX_XCOPY_MAX_SEG_BYTES, &p[12]);
	p[16] = shift;				/* DATA SEGMENT GRANULARITY */
	p[17] = shift;				/* INLINE DATA GRANULARITY */
	p += spc_3pc_desc(p, 0x8001, 36);
	return p - &buf[4];
}

/*
 * Optimal transfer length as the sd driver accepts it silently: below the
 * maximum transfer length and not above 0xffff blocks, a whole number of
 * pages, at least one page; else 0, "not reported".  At the maximum (the
 * default) it would say nothing the maximum does not, yet Linux would take
 * it as io_opt: readahead of twice that, and a RAID stripe width that
 * mkfs.ext4 and mkfs.xfs lay the file system out by.  A 4 MiB stripe on an
 * rd_mcp LUN cost ext4's buffered block write about a third.  The in-tree
 * rd_mcp reports a value sd discards, so its disks have no io_opt either.
 */
static u32 spc_opt_xfer_blocks(struct tcmx_dev *dev, u32 max_blocks)
{
	u32 per_page = max_t(u32, PAGE_SIZE >> dev->block_shift, 1);
	u32 opt = dev->attrib.optimal_sectors;

	if (opt >= max_blocks)
		return 0;
	return rounddown(min_t(u32, opt, SPC_SD_MAX_OPT_BLOCKS), per_page);
}

/*
 * Block limits.  WSNZ 0: WRITE SAME with 0 blocks reaches the last LBA.
 * The UNMAP limits only while UNMAP is enabled (emulate_tpu); the atomic
 * write limits (SBC-4) for WRITE ATOMIC(16).
 */
static u32 spc_vpd_block_limits(struct tcmx_cmd *cmd, u8 *buf)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_dev_attrib *a = &dev->attrib;
	u32 max_blocks = a->hw_max_sectors;

	/* MAXIMUM COMPARE AND WRITE LENGTH; 0 with emulate_caw=0 */
	if (tcmx_caw_enabled(dev))
		buf[5] = min_t(u32, TCMX_CAW_MAX_BLOCKS, max_blocks);
	put_unaligned_be32(max_blocks, &buf[8]);
	put_unaligned_be32(spc_opt_xfer_blocks(dev, max_blocks), &buf[12]);
	if (a->emulate_tpu) {
		put_unaligned_be32(a->max_unmap_lba_count, &buf[20]);
		put_unaligned_be32(a->max_unmap_block_desc_count, &buf[24]);
		put_unaligned_be32(a->unmap_granularity, &buf[28]);
		put_unaligned_be32(a->unmap_granularity_alignment, &buf[32]);
		if (a->unmap_granularity_alignment)
			buf[32] |= 0x80;			/* UGAVALID */
	}
	put_unaligned_be64(a->max_write_same_len, &buf[36]);
	put_unaligned_be32(tcmx_atomic_max_blocks(dev), &buf[44]);
	put_unaligned_be32(1, &buf[48]);		/* ATOMIC ALIGNMENT */
	put_unaligned_be32(1, &buf[52]);	/* ATOMIC TRANSFER LENGTH GRAN. */
	return 0x3c;
}

/* WABEREQ, WACEREQ 01b: a sanitized block reads as zeroes (lbp.c) */
static u32 spc_vpd_block_chars(struct tcmx_cmd *cmd, u8 *buf)
{
	if (cmd->dev->attrib.is_nonrot)
		put_unaligned_be16(1, &buf[4]);	/* non-rotating medium */
	buf[7] = 0x50;
	return 0x3c;
}

/*
 * Logical block provisioning: LBPU (UNMAP) with emulate_tpu, LBPWS and
 * LBPWS10 (WRITE SAME with UNMAP) with emulate_tpws, LBPRZ 001b (a
 * deallocated block reads as zeroes) with unmap_zeroes_data, provisioning
 * type thin (010b) while either is on; else fully provisioned.
 */
static u32 spc_vpd_lbp(struct tcmx_cmd *cmd, u8 *buf)
{
	struct tcmx_dev *dev = cmd->dev;

	if (!tcmx_dev_thin(dev))
		return 4;
	if (dev->attrib.emulate_tpu)
		buf[5] |= 0x80;					/* LBPU */
	if (dev->attrib.emulate_tpws)
		buf[5] |= 0x40 | 0x20;			/* LBPWS, LBPWS10 */
	if (dev->attrib.unmap_zeroes_data)
		buf[5] |= 0x01 << 2;				/* LBPRZ */
	buf[6] = 0x02;				/* PROVISIONING TYPE: thin */
	return 4;
}

/* every page but 0x00, in increasing order */
static const struct spc_vpd_page spc_vpd_pages[] = {
	{ 0x80, spc_vpd_serial },
	{ 0x83, spc_vpd_devid },
	{ 0x86, spc_vpd_ext_inquiry },
	{ 0x8f, spc_vpd_3pc, spc_has_3pc },
	{ 0xb0, spc_vpd_block_limits },
	{ 0xb1, spc_vpd_block_chars },
	{ 0xb2, spc_vpd_lbp },
};

static u32 spc_vpd_supported(struct tcmx_cmd *cmd, u8 *buf)
{
	const struct spc_vpd_page *pg;
	u32 n = 1;

	/* buf[4] is page 0x00 itself; without a LUN that is all */
	if (!cmd->dev)
		return 1;
	for (pg = spc_vpd_pages; pg < spc_vpd_pages + ARRAY_SIZE(spc_vpd_pages);
	     pg++)
		if (!pg->shown || pg->shown(cmd->dev))
			buf[4 + n++] = pg->code;
	return n;
}

static const struct spc_vpd_page spc_vpd_page_00 = { 0x00, spc_vpd_supported };

static const struct spc_vpd_page *spc_find_vpd(struct tcmx_cmd *cmd, u8 code)
{
	unsigned int i;

	if (code == 0x00)
		return &spc_vpd_page_00;
	for (i = 0; cmd->dev && i < ARRAY_SIZE(spc_vpd_pages); i++)
		if (spc_vpd_pages[i].code == code)
			return !spc_vpd_pages[i].shown ||
			       spc_vpd_pages[i].shown(cmd->dev) ?
			       &spc_vpd_pages[i] : NULL;
	return NULL;
}

/* A VPD page into @buf (SPC_INQUIRY_BUF_LEN bytes, zeroed); its length. */
static u32 spc_vpd_fill(struct tcmx_cmd *cmd, const struct spc_vpd_page *vpd,
			u8 *buf)
{
	u32 len;

	buf[0] = cmd->dev ? TYPE_DISK : TYPE_NO_LUN;
	buf[1] = vpd->code;
	len = vpd->fill(cmd, buf);
	put_unaligned_be16(len, &buf[2]);
	return len + 4;
}

/*
 * The VPD pages but the list of them: process context (TCMX_CMD_DEFER), so
 * that the page buffer is allocated where it may sleep, never failing a
 * scan under memory pressure; the fill functions, written for the
 * submitter's context, run under rcu_read_lock() as they would there.
 */
static enum tcmx_status spc_inquiry_vpd(struct tcmx_cmd *cmd)
{
	const struct spc_vpd_page *vpd;
	u32 len = 0;
	u8 *buf;

	buf = kzalloc(SPC_INQUIRY_BUF_LEN, GFP_KERNEL);
	if (!buf)
		return tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_RESOURCES);
	rcu_read_lock();
	vpd = spc_find_vpd(cmd, cmd->cdb[2]);
	if (vpd)
		len = spc_vpd_fill(cmd, vpd, buf);
	rcu_read_unlock();
	tcmx_cmd_copy_to_sgl(cmd, buf,
			     min_t(u32, len, get_unaligned_be16(&cmd->cdb[3])));
	kfree(buf);
	return TCMX_GOOD;
}

/*
 * Standard INQUIRY data and the list of VPD pages fit on the stack: a scan
 * (and a LUN that does not exist) is answered inline; the other pages are
 * built in a worker (the row's ->execute, spc_inquiry_vpd()).
 */
static enum tcmx_status spc_inquiry(struct tcmx_cmd *cmd)
{
	const u8 *cdb = cmd->cdb;
	u32 alloc_len = get_unaligned_be16(&cdb[3]);
	u8 buf[SPC_STD_INQUIRY_LEN] = {};
	u32 len;

	BUILD_BUG_ON(5 + ARRAY_SIZE(spc_vpd_pages) > SPC_STD_INQUIRY_LEN);

	if (cdb[1] & 0x01) {				/* EVPD */
		len = spc_vpd_fill(cmd, &spc_vpd_page_00, buf);
	} else {
		buf[0] = cmd->dev ? TYPE_DISK : TYPE_NO_LUN;
		len = spc_inquiry_std(cmd, buf);
	}
	tcmx_cmd_copy_to_sgl(cmd, buf, min(len, alloc_len));
	return TCMX_GOOD;
}

static enum tcmx_status spc_parse_inquiry(struct tcmx_cmd *cmd)
{
	const u8 *cdb = cmd->cdb;
	const struct spc_vpd_page *vpd = NULL;

	if (cdb[1] & 0x01)				/* EVPD */
		vpd = spc_find_vpd(cmd, cdb[2]);
	if (cdb[1] & 0x01 ? !vpd : cdb[2])
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					2, TCMX_NO_BIT);
	if (!vpd || vpd == &spc_vpd_page_00)
		cmd->execute = spc_inquiry;
	return TCMX_GOOD;
}

/* ---- REPORT LUNS ------------------------------------------------------ */

/*
 * Single-level LUN as the Linux midlayer's int_to_scsilun() writes it, so
 * that scsilun_to_int() gives back the same number: the loopback hands us
 * that number as cmd->lun_id, and it must equal the number the nexus's
 * map has the LUN under.
 */
static void spc_encode_lun(u64 index, u8 *p)
{
	memset(p, 0, 8);
	put_unaligned_be16(index, p);
}

/*
 * The LUNs the nexus reaches, by their mapped numbers, increasing; returns
 * how many (all, not just sent).
 */
static u32 spc_list_luns(struct tcmx_cmd *cmd, struct tcmx_din *w)
{
	unsigned long index;
	void *mapped;
	u32 count = 0;
	u8 entry[8];

	rcu_read_lock();
	tcmx_nexus_for_each_lun(cmd->nexus, index, mapped) {
		if (!READ_ONCE(tcmx_map_lun(mapped)->dev))
			continue;
		spc_encode_lun(index, entry);
		tcmx_din_put(w, entry, sizeof(entry));
		count++;
	}
	rcu_read_unlock();
	if (!count) {				/* an empty list shows LUN 0 */
		spc_encode_lun(0, entry);
		tcmx_din_put(w, entry, sizeof(entry));
		count = 1;
	}
	return count;
}

/*
 * One walk of the buffer, the header's place written first; the header
 * once the count is known.
 */
static enum tcmx_status spc_report_luns(struct tcmx_cmd *cmd)
{
	const u8 *cdb = cmd->cdb;
	u32 alloc_len = get_unaligned_be32(&cdb[6]);
	u32 limit = min(alloc_len, cmd->data_len);
	struct tcmx_din w;
	u32 count = 0;
	u8 hdr[8] = {};

	/* SELECT REPORT 0 and 2: all LUNs; 1: well-known LUNs, we have none */
	if (cdb[2] > 0x02)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					2, TCMX_NO_BIT);
	if (alloc_len < 16)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					6, TCMX_NO_BIT);
	tcmx_din_start(cmd, &w, limit);
	tcmx_din_put(&w, hdr, sizeof(hdr));
	if (cdb[2] != 0x01)
		count = spc_list_luns(cmd, &w);
	tcmx_din_end(&w);
	put_unaligned_be32(count * 8, hdr);
	tcmx_cmd_copy_at(cmd, hdr, sizeof(hdr), 0, limit);
	cmd->xfer_len = min(8 + count * 8, limit);
	return TCMX_GOOD;
}

/* ---- REQUEST SENSE ---------------------------------------------------- */

/*
 * The LUN's highest priority unit attention, which this clears whatever
 * emulate_ua_intlck_ctrl says; else SANITIZE IN PROGRESS while one is
 * (SBC-4 4.11.2), NO SENSE, or LOGICAL UNIT NOT SUPPORTED without a LUN.
 */
static enum tcmx_status spc_request_sense(struct tcmx_cmd *cmd)
{
	enum tcmx_sense code = TCMX_SENSE_LUN_NOT_SUPPORTED;
	u8 buf[TCMX_SENSE_BUFFER_LEN];
	u8 len;

	if (cmd->lun && !tcmx_ua_take(cmd, true, &code))
		code = test_bit(TCMX_GATE_SANITIZE, &cmd->dev->gate) ?
		       TCMX_SENSE_SANITIZE_IN_PROGRESS : TCMX_SENSE_NO_SENSE;
	len = tcmx_build_sense(buf, cmd->cdb[1] & 0x01,		/* DESC */
			       code, NULL);
	tcmx_cmd_copy_to_sgl(cmd, buf, min_t(u32, len, cmd->cdb[4]));
	return TCMX_GOOD;
}

/* ---- REPORT TIMESTAMP (SPC-4 6.29) ------------------------------------ */

#define TIMESTAMP_LEN		12
#define TIMESTAMP_ORIGIN_OTHER	0x03	/* set outside this standard */

/* The system's wall clock, in milliseconds since the epoch (48 bits). */
static enum tcmx_status spc_report_timestamp(struct tcmx_cmd *cmd)
{
	u32 alloc_len = get_unaligned_be32(&cmd->cdb[6]);
	u64 ms = div_u64(ktime_get_real_ns(), NSEC_PER_MSEC);
	u8 p[TIMESTAMP_LEN] = {};

	put_unaligned_be16(TIMESTAMP_LEN - 2, &p[0]);
	p[2] = TIMESTAMP_ORIGIN_OTHER;
	put_unaligned_be16(ms >> 32, &p[4]);
	put_unaligned_be32(ms, &p[6]);
	tcmx_cmd_copy_to_sgl(cmd, p, min_t(u32, sizeof(p), alloc_len));
	return TCMX_GOOD;
}

/* ---- PREVENT ALLOW MEDIUM REMOVAL (SPC-4 6.13) ------------------------ */

/* The medium is not removable (RMB 0): removal cannot be prevented. */
static enum tcmx_status spc_prevent_allow(struct tcmx_cmd *cmd)
{
	if (cmd->cdb[4] & 0x03)				/* PREVENT */
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					4, 1);
	return TCMX_GOOD;
}

/*
 * INQUIRY, REPORT LUNS and REQUEST SENSE answer for a LUN that is not
 * mapped too, and while a unit attention is pending.
 */
#define SPC_ANY_LUN	TCMX_CMD_ALWAYS

struct tcmx_cmd_desc tcmx_spc_cmds[] __ro_after_init = {
	{ .opcode = TEST_UNIT_READY, .len = 6, .dir = DMA_NONE,
	  .flags = TCMX_CMD_LUN | TCMX_CMD_PR_OK, .name = "TEST UNIT READY",
	  .usage = { TEST_UNIT_READY, 0x00, 0x00, 0x00, 0x00, 0x00 },
	  .execute = tcmx_execute_nop },
	{ .opcode = REQUEST_SENSE, .len = 6, .dir = DMA_FROM_DEVICE,
	  .flags = SPC_ANY_LUN, .name = "REQUEST SENSE",
	  .usage = { REQUEST_SENSE, 0x01, 0x00, 0x00, 0xff, 0x00 },
	  .execute = spc_request_sense },
	{ .opcode = INQUIRY, .len = 6, .dir = DMA_FROM_DEVICE,
	  .flags = SPC_ANY_LUN | TCMX_CMD_DEFER, .name = "INQUIRY",
	  .usage = { INQUIRY, 0x01, 0xff, 0xff, 0xff, 0x00 },
	  .parse = spc_parse_inquiry, .execute = spc_inquiry_vpd },
	{ .opcode = REPORT_LUNS, .len = 12, .dir = DMA_FROM_DEVICE,
	  .flags = SPC_ANY_LUN, .name = "REPORT LUNS",
	  .usage = { REPORT_LUNS, 0x00, 0xff, 0x00, 0x00, 0x00, 0xff, 0xff,
		     0xff, 0xff, 0x00, 0x00 },
	  .execute = spc_report_luns },
	{ .opcode = MAINTENANCE_IN, .sa = MI_REPORT_TARGET_PGS, .len = 12,
	  .dir = DMA_FROM_DEVICE,
	  .flags = TCMX_CMD_LUN | TCMX_CMD_SA | TCMX_CMD_DEFER |
		   TCMX_CMD_IN_ANY_STATE | TCMX_CMD_PR_OK,
	  .name = "REPORT TARGET PORT GROUPS",
	  .usage = { MAINTENANCE_IN, 0xe0 | MI_REPORT_TARGET_PGS, 0x00, 0x00,
		     0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00 },
	  .parse = tcmx_alua_parse_report_tpgs,
	  .execute = tcmx_alua_report_tpgs },
	{ .opcode = MAINTENANCE_OUT, .sa = MO_SET_TARGET_PGS, .len = 12,
	  .dir = DMA_TO_DEVICE,
	  .flags = TCMX_CMD_LUN | TCMX_CMD_SA | TCMX_CMD_DEFER |
		   TCMX_CMD_IN_STANDBY | TCMX_CMD_IN_UNAVAIL,
	  .name = "SET TARGET PORT GROUPS",
	  .usage = { MAINTENANCE_OUT, MO_SET_TARGET_PGS, 0x00, 0x00, 0x00,
		     0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00 },
	  .parse = tcmx_alua_parse_set_tpgs, .execute = tcmx_alua_set_tpgs },
	{ .opcode = ALLOW_MEDIUM_REMOVAL, .len = 6, .dir = DMA_NONE,
	  .flags = TCMX_CMD_LUN, .name = "PREVENT ALLOW MEDIUM REMOVAL",
	  .usage = { ALLOW_MEDIUM_REMOVAL, 0x00, 0x00, 0x00, 0x03, 0x00 },
	  .execute = spc_prevent_allow },
	{ .opcode = MAINTENANCE_IN, .sa = MI_REPORT_TIMESTAMP, .len = 12,
	  .dir = DMA_FROM_DEVICE,
	  .flags = TCMX_CMD_LUN | TCMX_CMD_SA | TCMX_CMD_PR_OK,
	  .name = "REPORT TIMESTAMP",
	  .usage = { MAINTENANCE_IN, MI_REPORT_TIMESTAMP, 0x00, 0x00, 0x00,
		     0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00 },
	  .execute = spc_report_timestamp },
	{}
};
