// SPDX-License-Identifier: GPL-2.0
/*
 * MODE SENSE(6/10) and MODE SELECT(6/10) (SPC-4 6.11-6.14): the caching
 * and control mode pages, as a table, and the block descriptor.
 *
 * MODE SENSE may run in atomic context (its response lives on the
 * stack); MODE SELECT takes cd->lock: it runs in a worker (TCMX_CMD_DEFER).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "compat.h"
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"

#define SPC_MODE_BUF_LEN	96	/* header + long descriptor + pages */

/*
 * The mode parameters MODE SELECT can change, or a page shows: current
 * values from the device, defaults as a new device has them.  All u8, so
 * that two sets compare with memcmp().
 */
struct spc_mode_vals {
	u8 wce, rcd;			/* caching */
	u8 d_sense, qerr, swp, tas;	/* control */
	u8 intlck, rest_reord;		/* control, set by configfs only */
};

static const struct tcmx_dev_attrib spc_attrib_defaults = {
#define TCMX_DEV_ATTRIB(_name, _def, _min, _max, _flags)	._name = _def,
#include "dev_attrib.h"
#undef TCMX_DEV_ATTRIB
};

static void spc_mode_current(struct tcmx_dev *dev, struct spc_mode_vals *v)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	v->wce = !!READ_ONCE(dev->attrib.emulate_write_cache);
	v->rcd = READ_ONCE(cd->mode_rcd);
	v->d_sense = READ_ONCE(dev->d_sense);
	v->qerr = READ_ONCE(cd->mode_qerr);
	v->swp = test_bit(TCMX_GATE_WP, &dev->gate);
	v->tas = !!READ_ONCE(dev->attrib.emulate_tas);
	v->intlck = READ_ONCE(dev->attrib.emulate_ua_intlck_ctrl);
	v->rest_reord = !!dev->attrib.emulate_rest_reord;
}

/* what MODE SELECT can change takes its default; the rest is current */
static void spc_mode_default(struct tcmx_dev *dev, struct spc_mode_vals *v)
{
	spc_mode_current(dev, v);
	v->wce = !!spc_attrib_defaults.emulate_write_cache;
	v->rcd = 0;
	v->d_sense = 0;
	v->qerr = 0;
	v->swp = 0;
	v->tas = !!spc_attrib_defaults.emulate_tas;
}

struct spc_mode_page {
	u8 code;
	u8 len;					/* including the 2-byte header */
	void (*fill)(const struct spc_mode_vals *v, u8 *p);
	/*
	 * How MODE SELECT takes the changeable fields of page @p: 0, or for
	 * a value it refuses 1 + the field's offset in the page, with the
	 * field pointer's bit in bits 15-8.
	 */
	u32 (*take)(struct spc_mode_vals *v, const u8 *p);
	const u8 *changeable;			/* len bytes; NULL: none */
};

static void spc_mode_caching(const struct spc_mode_vals *v, u8 *p)
{
	p[2] = (v->wce ? 0x04 : 0) | (v->rcd ? 0x01 : 0);	/* WCE, RCD */
}

static u32 spc_take_caching(struct spc_mode_vals *v, const u8 *p)
{
	v->wce = !!(p[2] & 0x04);
	v->rcd = p[2] & 0x01;
	return 0;
}

/* UA_INTLCK_CTRL of emulate_ua_intlck_ctrl 0, 1, 2: 00b, 10b, 11b */
static const u8 spc_intlck_bits[] = { 0x00, 0x20, 0x30 };

static void spc_mode_control(const struct spc_mode_vals *v, u8 *p)
{
	p[2] = 0x02 | (v->d_sense ? 0x04 : 0);	/* GLTSD, D_SENSE */
	/* QUEUE ALGORITHM MODIFIER 1: unrestricted reordering; QERR */
	p[3] = (v->rest_reord ? 0x00 : 0x10) | v->qerr << 1;
	p[4] = (v->swp ? 0x08 : 0) |
	       spc_intlck_bits[min_t(u8, v->intlck, 2)];
	p[5] = v->tas ? 0x40 : 0;		/* TAS */
}

static u32 spc_take_control(struct spc_mode_vals *v, const u8 *p)
{
	u8 qerr = (p[3] >> 1) & 0x03;

	if (qerr == 2)				/* reserved */
		return (2 << 8) | (1 + 3);
	v->d_sense = !!(p[2] & 0x04);
	v->qerr = qerr;
	v->swp = !!(p[4] & 0x08);
	v->tas = !!(p[5] & 0x40);
	return 0;
}

static const u8 spc_caching_changeable[20] = { [2] = 0x05 };
static const u8 spc_control_changeable[12] = {
	[2] = 0x04, [3] = 0x06, [4] = 0x08, [5] = 0x40,
};

/* in increasing page code order, as "all pages" returns them */
static const struct spc_mode_page spc_mode_pages[] = {
	{ 0x01, 12, NULL },			/* read-write error recovery */
	{ 0x08, 20, spc_mode_caching, spc_take_caching,
	  spc_caching_changeable },
	{ 0x0a, 12, spc_mode_control, spc_take_control,
	  spc_control_changeable },
	{ 0x1c, 12, NULL },			/* informational exceptions */
};

#define SPC_PC_CURRENT		0
#define SPC_PC_CHANGEABLE	1
#define SPC_PC_DEFAULT		2
#define SPC_PC_SAVED		3
#define SPC_MODE_PAGE_MAX	20		/* the longest page above */

static const struct spc_mode_page *spc_find_mode_page(u8 code)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(spc_mode_pages); i++)
		if (spc_mode_pages[i].code == code)
			return &spc_mode_pages[i];
	return NULL;
}

/* one page as @pc asks for it, header included */
static void spc_mode_page_fill(const struct spc_mode_page *mp,
			       const struct spc_mode_vals *v, u8 pc, u8 *p)
{
	if (pc == SPC_PC_CHANGEABLE && mp->changeable)
		memcpy(p, mp->changeable, mp->len);
	else if (pc != SPC_PC_CHANGEABLE && mp->fill)
		mp->fill(v, p);
	p[0] = mp->code;
	p[1] = mp->len - 2;
}

/* the block descriptor, short (8) or long (16); returns its length */
static u32 spc_mode_block_desc(struct tcmx_dev *dev, u8 *p, bool long_lba)
{
	if (long_lba) {
		put_unaligned_be64(dev->nr_blocks, &p[0]);
		put_unaligned_be32(dev->block_size, &p[12]);
		return 16;
	}
	put_unaligned_be32(min_t(u64, dev->nr_blocks, U32_MAX), &p[0]);
	put_unaligned_be24(dev->block_size, &p[5]);
	return 8;
}

static u32 spc_mode_pages_fill(struct tcmx_dev *dev, u8 *p, u8 code, u8 pc)
{
	const struct spc_mode_page *mp;
	struct spc_mode_vals v;
	u32 off = 0;

	if (pc == SPC_PC_DEFAULT)
		spc_mode_default(dev, &v);
	else
		spc_mode_current(dev, &v);
	for (mp = spc_mode_pages; mp < spc_mode_pages + ARRAY_SIZE(spc_mode_pages);
	     mp++) {
		if (code != 0x3f && code != mp->code)
			continue;
		spc_mode_page_fill(mp, &v, pc, &p[off]);
		off += mp->len;
	}
	return off;
}

/*
 * MODE SENSE(6) and (10).  No page has subpages: subpage 0xff (all of
 * them) returns the page itself.  The changeable values of the block
 * descriptor are zeroes: only the current block length is accepted.
 */
static enum tcmx_status spc_mode_sense(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	const u8 *cdb = cmd->cdb;
	bool ten = cdb[0] == MODE_SENSE_10;
	u32 hdr = ten ? 8 : 4;
	u32 alloc_len = ten ? get_unaligned_be16(&cdb[7]) : cdb[4];
	u8 pc = cdb[2] >> 6, code = cdb[2] & 0x3f, subpage = cdb[3];
	u8 buf[SPC_MODE_BUF_LEN] = {};
	u8 dev_spec = 0;
	u32 bd = 0, pages;

	if (pc == SPC_PC_SAVED)
		return tcmx_sense(cmd, TCMX_SENSE_SAVING_NOT_SUPPORTED);
	if (subpage && subpage != 0xff)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					3, TCMX_NO_BIT);
	if (!(cdb[1] & 0x08)) {				/* DBD */
		bd = spc_mode_block_desc(dev, &buf[hdr], ten && (cdb[1] & 0x10));
		if (pc == SPC_PC_CHANGEABLE)
			memset(&buf[hdr], 0, bd);
	}
	pages = spc_mode_pages_fill(dev, &buf[hdr + bd], code, pc);
	if (!pages)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					2, 5);

	if (test_bit(TCMX_GATE_WP, &dev->gate) || tcmx_cmd_mapped_wp(cmd))
		dev_spec |= 0x80;			/* WP */
	/*
	 * DPOFUA: READ and WRITE take DPO and FUA (their CDB usage data say
	 * so), and a ramdisk honours FUA with or without a write cache.
	 * emulate_fua_write=0 takes both away (TCMX_GATE_NOFUA).
	 */
	if (dev->attrib.emulate_fua_write)
		dev_spec |= 0x10;			/* DPOFUA */
	if (ten) {
		put_unaligned_be16(hdr + bd + pages - 2, &buf[0]);
		buf[3] = dev_spec;
		buf[4] = bd == 16;			/* LONGLBA */
		put_unaligned_be16(bd, &buf[6]);
	} else {
		buf[0] = hdr + bd + pages - 1;
		buf[2] = dev_spec;
		buf[3] = bd;
	}
	tcmx_cmd_copy_to_sgl(cmd, buf, min(hdr + bd + pages, alloc_len));
	return TCMX_GOOD;
}

/* INVALID FIELD IN PARAMETER LIST at byte @byte, bit @bit of the list */
static enum tcmx_status spc_bad_param(struct tcmx_cmd *cmd, u32 byte, u8 bit)
{
	return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_PARAM_FIELD, false,
				byte, bit);
}

/* first bit set in @diff, for a field pointer */
static u8 spc_top_bit(u8 diff)
{
	return fls(diff) - 1;
}

/* The block descriptor of a MODE SELECT list at @buf, after @hdr bytes. */
static enum tcmx_status spc_select_block_desc(struct tcmx_cmd *cmd,
					      const u8 *buf, u32 hdr,
					      bool long_lba)
{
	u32 blen, i;

	/* the number of blocks is not changeable: any value keeps it */
	if (long_lba) {
		for (i = 8; i < 12; i++)
			if (buf[i])
				return spc_bad_param(cmd, hdr + i, TCMX_NO_BIT);
		blen = get_unaligned_be32(&buf[12]);
		i = 12;
	} else {
		if (buf[4])
			return spc_bad_param(cmd, hdr + 4, TCMX_NO_BIT);
		blen = get_unaligned_be24(&buf[5]);
		i = 5;
	}
	if (blen && blen != cmd->dev->block_size)
		return spc_bad_param(cmd, hdr + i, TCMX_NO_BIT);
	return TCMX_GOOD;
}

/*
 * The mode parameter header and block descriptor of a MODE SELECT list of
 * @len bytes; sets *@off to the first page.
 */
static enum tcmx_status spc_select_header(struct tcmx_cmd *cmd, const u8 *buf,
					  u32 len, u32 *off)
{
	bool ten = cmd->cdb[0] == MODE_SELECT_10;
	u32 hdr = ten ? 8 : 4, bdl;
	bool long_lba = false;
	u8 bad;

	if (len < hdr)
		return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
	/* MODE DATA LENGTH is reserved; medium type 0; WP, DPOFUA ignored */
	if (ten) {
		if (buf[0] || buf[1])
			return spc_bad_param(cmd, buf[0] ? 0 : 1, TCMX_NO_BIT);
		if (buf[2])
			return spc_bad_param(cmd, 2, TCMX_NO_BIT);
		bad = buf[3] & ~0x90;
		if (bad)
			return spc_bad_param(cmd, 3, spc_top_bit(bad));
		bad = buf[4] & ~0x01;
		if (bad)
			return spc_bad_param(cmd, 4, spc_top_bit(bad));
		if (buf[5])
			return spc_bad_param(cmd, 5, TCMX_NO_BIT);
		long_lba = buf[4] & 0x01;
		bdl = get_unaligned_be16(&buf[6]);
	} else {
		if (buf[0] || buf[1])
			return spc_bad_param(cmd, buf[0] ? 0 : 1, TCMX_NO_BIT);
		bad = buf[2] & ~0x90;
		if (bad)
			return spc_bad_param(cmd, 2, spc_top_bit(bad));
		bdl = buf[3];
	}
	if (bdl && bdl != (long_lba ? 16 : 8))
		return spc_bad_param(cmd, ten ? 6 : 3, TCMX_NO_BIT);
	if (len < hdr + bdl)
		return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
	*off = hdr + bdl;
	if (!bdl)
		return TCMX_GOOD;
	return spc_select_block_desc(cmd, buf + hdr, hdr, long_lba);
}

/*
 * The pages of a MODE SELECT list, from @off: each must be one of ours,
 * whole, of its length, differing from the current values @cur only in
 * changeable bits.  Their values go to @v.
 */
static enum tcmx_status spc_select_pages(struct tcmx_cmd *cmd, const u8 *buf,
					 u32 len, u32 off,
					 const struct spc_mode_vals *cur,
					 struct spc_mode_vals *v)
{
	const struct spc_mode_page *mp;
	u8 page[SPC_MODE_PAGE_MAX];
	u32 i, bad;
	u8 diff;

	while (off < len) {
		if (len - off < 2)
			return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);
		if (buf[off] & 0xc0)		/* PS reserved; no subpages */
			return spc_bad_param(cmd, off,
					     spc_top_bit(buf[off] & 0xc0));
		mp = spc_find_mode_page(buf[off] & 0x3f);
		if (!mp)
			return spc_bad_param(cmd, off, 5);
		if (buf[off + 1] != mp->len - 2)
			return spc_bad_param(cmd, off + 1, TCMX_NO_BIT);
		if (len - off < mp->len)
			return tcmx_sense(cmd, TCMX_SENSE_PARAM_LIST_LENGTH);

		memset(page, 0, sizeof(page));
		spc_mode_page_fill(mp, cur, SPC_PC_CURRENT, page);
		for (i = 2; i < mp->len; i++) {
			diff = buf[off + i] ^ page[i];
			if (mp->changeable)
				diff &= ~mp->changeable[i];
			if (diff)
				return spc_bad_param(cmd, off + i,
						     spc_top_bit(diff));
		}
		bad = mp->take ? mp->take(v, &buf[off]) : 0;
		if (bad)
			return spc_bad_param(cmd, off + (bad & 0xff) - 1,
					     bad >> 8);
		off += mp->len;
	}
	return TCMX_GOOD;
}

/* cd->lock held: make @v current */
static void spc_mode_apply(struct tcmx_dev *dev, const struct spc_mode_vals *v)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	WRITE_ONCE(dev->attrib.emulate_write_cache, v->wce);
	WRITE_ONCE(cd->mode_rcd, v->rcd);
	WRITE_ONCE(dev->d_sense, v->d_sense);
	WRITE_ONCE(cd->mode_qerr, v->qerr);
	WRITE_ONCE(dev->attrib.emulate_tas, v->tas);
	if (v->swp)
		set_bit(TCMX_GATE_WP, &dev->gate);
	else
		clear_bit(TCMX_GATE_WP, &dev->gate);
}

/*
 * MODE SELECT, in process context: all of the list is checked before any
 * of it applies.  A change is a unit attention, MODE PARAMETERS CHANGED,
 * for the device's other I_T nexuses.
 */
static enum tcmx_status spc_mode_select_work(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	const u8 *cdb = cmd->cdb;
	u32 len = cdb[0] == MODE_SELECT_10 ? get_unaligned_be16(&cdb[7]) :
					     cdb[4];
	struct spc_mode_vals cur, v;
	enum tcmx_status status;
	u32 off = 0;
	u8 *buf;

	buf = kmalloc(len, GFP_KERNEL);
	if (!buf)
		return TCMX_BUSY;
	len = tcmx_cmd_copy_from_sgl(cmd, buf, len);

	mutex_lock(&cd->lock);
	spc_mode_current(dev, &cur);
	v = cur;
	status = spc_select_header(cmd, buf, len, &off);
	if (status == TCMX_GOOD)
		status = spc_select_pages(cmd, buf, len, off, &cur, &v);
	if (status == TCMX_GOOD && memcmp(&cur, &v, sizeof(v))) {
		spc_mode_apply(dev, &v);
		tcmx_ua_dev_others(dev, cmd, TCMX_SENSE_UA_MODE_CHANGED);
	}
	mutex_unlock(&cd->lock);
	kfree(buf);
	return status;
}

/* MODE SELECT(6) and (10): page format only, nothing saved */
static enum tcmx_status spc_parse_mode_select(struct tcmx_cmd *cmd)
{
	const u8 *cdb = cmd->cdb;
	u32 len = cdb[0] == MODE_SELECT_10 ? get_unaligned_be16(&cdb[7]) :
					     cdb[4];

	if (cdb[1] & 0x01)				/* SP */
		return tcmx_sense(cmd, TCMX_SENSE_SAVING_NOT_SUPPORTED);
	if (!(cdb[1] & 0x10))				/* PF */
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					1, 4);
	if (!len)
		cmd->execute = tcmx_execute_nop;
	return TCMX_GOOD;
}

/* the mode pages: in Standby too */
#define SPC_MODE	(TCMX_CMD_LUN | TCMX_CMD_IN_STANDBY)

struct tcmx_cmd_desc tcmx_mode_cmds[] __ro_after_init = {
	{ .opcode = MODE_SENSE, .len = 6, .dir = DMA_FROM_DEVICE,
	  .flags = SPC_MODE, .name = "MODE SENSE(6)",
	  .usage = { MODE_SENSE, 0x08, 0xff, 0xff, 0xff, 0x00 },
	  .execute = spc_mode_sense },
	{ .opcode = MODE_SENSE_10, .len = 10, .dir = DMA_FROM_DEVICE,
	  .flags = SPC_MODE, .name = "MODE SENSE(10)",
	  .usage = { MODE_SENSE_10, 0x18, 0xff, 0xff, 0x00, 0x00, 0x00, 0xff,
		     0xff, 0x00 },
	  .execute = spc_mode_sense },
	{ .opcode = MODE_SELECT, .len = 6, .dir = DMA_TO_DEVICE,
	  .flags = SPC_MODE | TCMX_CMD_DEFER, .name = "MODE SELECT(6)",
	  .usage = { MODE_SELECT, 0x11, 0x00, 0x00, 0xff, 0x00 },
	  .parse = spc_parse_mode_select, .execute = spc_mode_select_work },
	{ .opcode = MODE_SELECT_10, .len = 10, .dir = DMA_TO_DEVICE,
	  .flags = SPC_MODE | TCMX_CMD_DEFER, .name = "MODE SELECT(10)",
	  .usage = { MODE_SELECT_10, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff,
		     0xff, 0x00 },
	  .parse = spc_parse_mode_select, .execute = spc_mode_select_work },
	{}
};
