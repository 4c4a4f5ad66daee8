// SPDX-License-Identifier: GPL-2.0
/*
 * The command table: one row per opcode (and per service action of an
 * opcode that has them), indexed by opcode, and the one CDB decoder built
 * on it.  Because what runs a command, what REPORT SUPPORTED OPERATION
 * CODES reports and what the gate lets through are the same rows, neither
 * the report nor the policy can drift from the code.
 *
 * The rows live beside their code (sbc.c, spc.c, lbp.c, sbc_integrity.c,
 * xcopy.c, mode.c, buffer.c, pr.c, and the two reports at the end of this
 * file).
 * tcmx_cdb_init() checks them, turns each usage mask into words of bits to
 * reject, chains the service actions of one opcode, and fills the index;
 * from then on the table is read-only.  tcmx_cdb_row() (tcmx_core.h) finds
 * a CDB's row; tcmx_submit_cmd() (submit.c) takes it through the gate
 * and here, then runs it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cache.h>
#include <linux/kernel.h>
#include "compat.h"
#include <scsi/scsi_proto.h>
#include "tcmx_core.h"

#define RSOC_DESC_LEN		8	/* all commands: one command descriptor */
#define RSOC_CTD_LEN		12	/* command timeouts descriptor */
#define RSOC_ONE_HDR		4	/* one command: header before the usage */

const struct tcmx_cmd_desc *tcmx_opcodes[256] __ro_after_init;

enum tcmx_status tcmx_execute_nop(struct tcmx_cmd *cmd)
{
	return TCMX_GOOD;
}

/* ---- the decoder ------------------------------------------------------ */

/* Two loads and two masks: a bit set that the row does not use. */
static bool tcmx_cdb_reserved(const u8 *cdb, const struct tcmx_cmd_desc *d)
{
	return (get_unaligned_le64(cdb) & d->reject[0]) |
	       (get_unaligned_le64(cdb + 8) & d->reject[1]);
}

/* INVALID FIELD IN CDB, pointing at the first reserved bit that is set. */
static enum tcmx_status tcmx_reserved_bit(struct tcmx_cmd *cmd,
					  const struct tcmx_cmd_desc *d)
{
	unsigned int i;
	u8 bad = 0;

	for (i = 1; i < d->len; i++) {
		bad = cmd->cdb[i] & ~d->usage[i];
		if (bad)
			break;
	}
	return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true, i,
				bad ? fls(bad) - 1 : TCMX_NO_BIT);
}

/* An unknown opcode, or a known one with an unknown service action. */
static enum tcmx_status tcmx_unknown_cdb(struct tcmx_cmd *cmd)
{
	if (tcmx_opcodes[cmd->cdb[0]])
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					1, 4);
	return tcmx_sense(cmd, TCMX_SENSE_INVALID_OPCODE);
}

/*
 * LBA and transfer length by CDB group (SBC-3 4.2.2 ff.).  Only READ(6)
 * and WRITE(6) carry an LBA in group 0; their length 0 means 256 blocks.
 */
void tcmx_cdb_lba(struct tcmx_cmd *cmd)
{
	const u8 *cdb = cmd->cdb;

	switch (cdb[0] >> 5) {
	case 0:
		cmd->lba = get_unaligned_be24(&cdb[1]) & 0x1fffff;
		cmd->nr_blocks = cdb[4] ? cdb[4] : 256;
		break;
	case 1:
	case 2:
		cmd->lba = get_unaligned_be32(&cdb[2]);
		cmd->nr_blocks = get_unaligned_be16(&cdb[7]);
		break;
	case 4:
		cmd->lba = get_unaligned_be64(&cdb[2]);
		cmd->nr_blocks = get_unaligned_be32(&cdb[10]);
		break;
	case 5:
		cmd->lba = get_unaligned_be32(&cdb[2]);
		cmd->nr_blocks = get_unaligned_be32(&cdb[6]);
		break;
	}
}

/*
 * A write whose data-out buffer holds less than the @need bytes its CDB
 * transfers (cmd->overflow: the difference).  If the fabric reports
 * overflows (iSCSI) and the buffer holds whole blocks, the command goes on
 * with those blocks, none perhaps: GOOD, and the initiator learns from the
 * residual what was left.  Otherwise, or if a block would be torn at the
 * buffer's end, it is refused before anything moves, as INVALID FIELD IN
 * COMMAND INFORMATION UNIT (what libiscsi accepts for such a write).
 */
enum tcmx_status tcmx_write_overflow(struct tcmx_cmd *cmd, u64 need)
{
	struct tcmx_dev *dev = cmd->dev;
	u32 len = cmd->data_len;

	cmd->overflow = min_t(u64, need - len, U32_MAX);
	if (!cmd->tpg->ops->reports_overflow || len & (dev->block_size - 1))
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_IU_FIELD);
	cmd->nr_blocks = len >> dev->block_shift;
	cmd->xfer_len = len;
	return TCMX_GOOD;
}

/*
 * Out of line, for tcmx_setup_rw(): a transfer length beyond the backend's
 * limit, or an overflow (the initiator's buffer is shorter than the CDB's
 * transfer length).  As SAM has it for an overflow, a READ runs with no data
 * moved beyond the buffer: it fills the buffer (a partial block at its end
 * included), GOOD.  A write: tcmx_write_overflow().
 */
static noinline enum tcmx_status tcmx_rw_overflow(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u64 need = (u64)cmd->nr_blocks << dev->block_shift;

	if (cmd->nr_blocks > dev->attrib.hw_max_sectors)
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_CDB_FIELD);
	if (cmd->desc->dir != DMA_FROM_DEVICE) {
		if (tcmx_write_overflow(cmd, need))
			return TCMX_CHECK;
	} else {
		cmd->overflow = min_t(u64, need - cmd->data_len, U32_MAX);
		cmd->xfer_len = cmd->data_len;
	}
	cmd->fua = tcmx_cdb_dpofua(cmd->cdb) & TCMX_CDB_FUA;
	cmd->execute = cmd->xfer_len ? READ_ONCE(dev->execute_rw) :
				       tcmx_execute_nop;
	return TCMX_GOOD;
}

/*
 * READ/WRITE(6/10/12/16): within the capacity, the backend's limit and
 * the initiator's buffer.  FUA (byte 1 bit 3 beyond group 0) is passed
 * through as asked; emulate_fua_* only decide what MODE SENSE advertises.
 * cmd->xfer_len is what the backend moves: the fabric reports the rest of
 * the buffer as the residual (an underflow when the buffer is longer).
 */
static enum tcmx_status tcmx_setup_rw(struct tcmx_cmd *cmd)
{
	struct tcmx_dev *dev = cmd->dev;
	u64 bytes = (u64)cmd->nr_blocks << dev->block_shift;

	if (unlikely(cmd->nr_blocks > dev->attrib.hw_max_sectors ||
		     bytes > cmd->data_len))
		return tcmx_rw_overflow(cmd);
	if (unlikely(!cmd->nr_blocks)) {
		cmd->execute = tcmx_execute_nop;
		return TCMX_GOOD;
	}
	cmd->fua = tcmx_cdb_dpofua(cmd->cdb) & TCMX_CDB_FUA;
	cmd->xfer_len = bytes;
	cmd->execute = READ_ONCE(dev->execute_rw);
	return TCMX_GOOD;
}

/*
 * A data-in command sent with a data-out buffer, by a fabric whose
 * buffers are its own (->own_buffers): it reads into that buffer, and the
 * fabric sends nothing back, the initiator having asked for nothing.
 */
static noinline bool tcmx_data_in_to_fabric(struct tcmx_cmd *cmd,
					    const struct tcmx_cmd_desc *d)
{
	if (d->dir != DMA_FROM_DEVICE || cmd->data_dir != DMA_TO_DEVICE ||
	    !cmd->tpg->ops->own_buffers)
		return false;
	cmd->data_dir = DMA_FROM_DEVICE;
	return true;
}

/*
 * Once per command, for the row @d of its CDB (tcmx_cdb_row(), NULL if
 * there is none).  On success cmd->desc and cmd->execute are set: the
 * row's ->execute, unless its ->parse chose another; a failure has its
 * sense data built.  cmd->lun is NULL if nothing is mapped at the
 * addressed LUN.
 */
enum tcmx_status tcmx_parse_cdb(struct tcmx_cmd *cmd,
				const struct tcmx_cmd_desc *d)
{
	struct tcmx_dev *dev = cmd->dev;

	if (unlikely(!cmd->lun) && (!d || d->flags & TCMX_CMD_LUN))
		return tcmx_sense(cmd, TCMX_SENSE_LUN_NOT_SUPPORTED);
	if (unlikely(!d))
		return tcmx_unknown_cdb(cmd);
	cmd->desc = d;
	/*
	 * The CDB as carried must hold the whole command: no shorter than its
	 * row, and no longer than the 16 bytes transports pad CDBs to (iSCSI's
	 * BHS, FCP_CMND).  Only a variable-length CDB (7Fh, no row) is longer.
	 */
	if (unlikely(cmd->cdb_len < d->len || cmd->cdb_len > TCMX_CDB_MAX))
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_IU_FIELD);
	if (unlikely(tcmx_cdb_reserved(cmd->cdb, d)))
		return tcmx_reserved_bit(cmd, d);
	/* no parameter data into a DATA-OUT buffer, no DATA-IN written */
	if (unlikely(cmd->data_len && cmd->data_dir != d->dir) &&
	    !tcmx_data_in_to_fabric(cmd, d))
		return tcmx_sense(cmd, TCMX_SENSE_INVALID_CDB_FIELD);

	if (d->flags & TCMX_CMD_LBA) {
		tcmx_cdb_lba(cmd);
		if (unlikely(cmd->lba > dev->nr_blocks ||
			     cmd->nr_blocks > dev->nr_blocks - cmd->lba))
			return tcmx_sense(cmd, TCMX_SENSE_LBA_OUT_OF_RANGE);
		if (likely(d->flags & TCMX_CMD_RW))
			return tcmx_setup_rw(cmd);
	}
	cmd->execute = d->execute;
	if (d->parse)
		return d->parse(cmd);
	return TCMX_GOOD;
}

/* ---- building the index ----------------------------------------------- */

static int __init tcmx_cdb_check_row(const struct tcmx_cmd_desc *d)
{
	bool has_sa = d->flags & TCMX_CMD_SA;
	const struct tcmx_cmd_desc *first = tcmx_opcodes[d->opcode];

	if (d->len > TCMX_CDB_MAX || d->usage[0] != d->opcode ||
	    (has_sa && (d->usage[1] & TCMX_SA_MASK) != d->sa) ||
	    (!d->parse && !d->execute && !(d->flags & TCMX_CMD_RW)) ||
	    (d->flags & TCMX_CMD_RW && !(d->flags & TCMX_CMD_LBA)) ||
	    (d->flags & TCMX_CMD_DEFER &&
	     (!d->execute || d->flags & TCMX_CMD_RW)))
		return -EINVAL;
	if (!first)
		return 0;
	/* one opcode: all rows with service actions, none the same */
	if (!has_sa || !(first->flags & TCMX_CMD_SA) ||
	    tcmx_find_sa(first, d->sa))
		return -EEXIST;
	return 0;
}

/* Insert @d into its opcode's chain, by increasing service action. */
static void __init tcmx_cdb_insert(struct tcmx_cmd_desc *d)
{
	const struct tcmx_cmd_desc **pos = &tcmx_opcodes[d->opcode];

	while (*pos && (*pos)->sa < d->sa)
		pos = (const struct tcmx_cmd_desc **)&(*pos)->next_sa;
	d->next_sa = *pos;
	*pos = d;
}

static int __init tcmx_cdb_add(struct tcmx_cmd_desc *rows)
{
	struct tcmx_cmd_desc *d;
	unsigned int i;
	int ret;

	for (d = rows; d->len; d++) {
		ret = tcmx_cdb_check_row(d);
		if (ret) {
			pr_err("command table: bad row %02xh/%02xh (%s): %d\n",
			       d->opcode, d->sa, d->name, ret);
			return ret;
		}
		memset(d->reject, 0, sizeof(d->reject));
		for (i = 1; i < d->len; i++)
			d->reject[i / 8] |= (u64)(u8)~d->usage[i] << (i % 8 * 8);
		tcmx_cdb_insert(d);
	}
	return 0;
}

/* every file's rows; each array ends with a row of len 0 */
static struct tcmx_cmd_desc *const tcmx_row_arrays[] __initconst = {
	tcmx_sbc_cmds, tcmx_spc_cmds, tcmx_cdb_cmds, tcmx_lbp_cmds,
	tcmx_integrity_cmds, tcmx_xcopy_cmds, tcmx_mode_cmds,
	tcmx_buffer_cmds, tcmx_pr_cmds,
};

int __init tcmx_cdb_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(tcmx_row_arrays); i++) {
		ret = tcmx_cdb_add(tcmx_row_arrays[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- REPORT SUPPORTED OPERATION CODES (SPC-4 6.35) -------------------- */

#define RSOC_ALL		0
#define RSOC_OPCODE		1	/* opcode, which has no service actions */
#define RSOC_OPCODE_SA		2	/* opcode and service action */
#define RSOC_OPCODE_ANY		3	/* opcode, and service action if any */
#define RSOC_SUPPORTED		0x03	/* SUPPORT: as the standard says */
#define RSOC_NOT_SUPPORTED	0x01

/* A command timeouts descriptor: no timeouts specified. */
static void rsoc_fill_ctd(u8 *p)
{
	put_unaligned_be16(RSOC_CTD_LEN - 2, p);
}

/* A row the device has: REPORT SUPPORTED OPERATION CODES lists it. */
static bool rsoc_listed(const struct tcmx_cmd_desc *d,
			const struct tcmx_dev *dev)
{
	return !d->enabled || d->enabled(dev);
}

static enum tcmx_status rsoc_all(struct tcmx_cmd *cmd, bool ctd, u32 limit)
{
	u32 dlen = RSOC_DESC_LEN + (ctd ? RSOC_CTD_LEN : 0);
	const struct tcmx_cmd_desc *d;
	u8 p[RSOC_DESC_LEN + RSOC_CTD_LEN];
	u32 off = 4;
	unsigned int op;

	for (op = 0; op < ARRAY_SIZE(tcmx_opcodes); op++) {
		for (d = tcmx_opcodes[op]; d; d = d->next_sa) {
			if (!rsoc_listed(d, cmd->dev))
				continue;
			memset(p, 0, sizeof(p));
			p[0] = d->opcode;
			if (d->flags & TCMX_CMD_SA) {
				put_unaligned_be16(d->sa, &p[2]);
				p[5] = 0x01;		/* SERVACTV */
			}
			if (ctd) {
				p[5] |= 0x02;		/* CTDP */
				rsoc_fill_ctd(&p[RSOC_DESC_LEN]);
			}
			put_unaligned_be16(d->len, &p[6]);
			tcmx_cmd_copy_at(cmd, p, dlen, off, limit);
			off += dlen;
		}
	}
	put_unaligned_be32(off - 4, p);
	tcmx_cmd_copy_at(cmd, p, 4, 0, limit);
	cmd->xfer_len = min3(off, limit, cmd->data_len);
	return TCMX_GOOD;
}

static enum tcmx_status rsoc_one(struct tcmx_cmd *cmd, u8 options, bool ctd,
				 u32 limit)
{
	const struct tcmx_cmd_desc *d = tcmx_opcodes[cmd->cdb[3]];
	u16 sa = get_unaligned_be16(&cmd->cdb[4]);
	u8 p[RSOC_ONE_HDR + TCMX_CDB_MAX + RSOC_CTD_LEN] = {};
	bool has_sa = d && d->flags & TCMX_CMD_SA;
	u32 len = RSOC_ONE_HDR;

	if ((options == RSOC_OPCODE && has_sa) ||
	    (options == RSOC_OPCODE_SA && d && !has_sa))
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					2, 2);
	if (has_sa)
		d = sa <= TCMX_SA_MASK ? tcmx_find_sa(d, sa) : NULL;
	if (d && !rsoc_listed(d, cmd->dev))
		d = NULL;

	if (!d) {
		p[1] = RSOC_NOT_SUPPORTED;
	} else {
		p[1] = RSOC_SUPPORTED | (ctd ? 0x80 : 0);	/* CTDP */
		put_unaligned_be16(d->len, &p[2]);
		memcpy(&p[len], d->usage, d->len);
		if (d->flags & TCMX_CMD_RW && d->opcode >= 0x20 &&
		    test_bit(TCMX_GATE_NOFUA, &cmd->dev->gate))
			p[len + 1] &= ~(TCMX_CDB_DPO | TCMX_CDB_FUA);
		len += d->len;
		if (ctd) {
			rsoc_fill_ctd(&p[len]);
			len += RSOC_CTD_LEN;
		}
	}
	tcmx_cmd_copy_to_sgl(cmd, p, min(len, limit));
	return TCMX_GOOD;
}

static enum tcmx_status tcmx_report_opcodes(struct tcmx_cmd *cmd)
{
	const u8 *cdb = cmd->cdb;
	u8 options = cdb[2] & 0x07;
	bool ctd = cdb[2] & 0x80;			/* RCTD */
	u32 limit = get_unaligned_be32(&cdb[6]);

	if (options == RSOC_ALL)
		return rsoc_all(cmd, ctd, limit);
	if (options <= RSOC_OPCODE_ANY)
		return rsoc_one(cmd, options, ctd, limit);
	return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true, 2, 2);
}

/* ---- REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS (SPC-4 6.36) ---------- */

/*
 * What a fabric can ask of the core: what the loopback's SCSI error
 * handler does (abort a command, reset a LUN).  The bit of each in the
 * parameter data's first byte.
 */
static const struct {
	enum tcmx_tmf	tmf;
	u8		bit;
} tcmx_tmfs[] = {
	{ TCMX_TMF_ABORT_TASK,	7 },	/* ATS */
	{ TCMX_TMF_LUN_RESET,	3 },	/* LURS */
};

#define RSTMF_LEN		4
#define RSTMF_EXT_LEN		16	/* REPD: with the timeouts part */

static enum tcmx_status tcmx_report_tmfs(struct tcmx_cmd *cmd)
{
	bool repd = cmd->cdb[2] & 0x80;
	u32 alloc_len = get_unaligned_be32(&cmd->cdb[6]);
	u8 p[RSTMF_EXT_LEN] = {};
	unsigned int i;

	if (alloc_len < RSTMF_LEN)
		return tcmx_sense_field(cmd, TCMX_SENSE_INVALID_CDB_FIELD, true,
					6, TCMX_NO_BIT);
	for (i = 0; i < ARRAY_SIZE(tcmx_tmfs); i++)
		p[0] |= BIT(tcmx_tmfs[i].bit);
	if (repd)
		p[3] = RSTMF_EXT_LEN - RSTMF_LEN;	/* additional length */
	tcmx_cmd_copy_to_sgl(cmd, p, min_t(u32, alloc_len,
					   repd ? RSTMF_EXT_LEN : RSTMF_LEN));
	return TCMX_GOOD;
}

struct tcmx_cmd_desc tcmx_cdb_cmds[] __ro_after_init = {
	{ .opcode = MAINTENANCE_IN, .sa = MI_REPORT_SUPPORTED_OPERATION_CODES,
	  .len = 12, .dir = DMA_FROM_DEVICE,
	  .flags = TCMX_CMD_LUN | TCMX_CMD_SA | TCMX_CMD_PR_OK,
	  .name = "REPORT SUPPORTED OPERATION CODES",
	  .usage = { MAINTENANCE_IN, MI_REPORT_SUPPORTED_OPERATION_CODES, 0x87,
		     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00 },
	  .execute = tcmx_report_opcodes },
	{ .opcode = MAINTENANCE_IN, .sa = MI_REPORT_SUPPORTED_TASK_MANAGEMENT_FUNCTIONS,
	  .len = 12, .dir = DMA_FROM_DEVICE,
	  .flags = TCMX_CMD_LUN | TCMX_CMD_SA | TCMX_CMD_PR_OK,
	  .name = "REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS",
	  .usage = { MAINTENANCE_IN, MI_REPORT_SUPPORTED_TASK_MANAGEMENT_FUNCTIONS,
		     0x80, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00 },
	  .execute = tcmx_report_tmfs },
	{}
};
