// SPDX-License-Identifier: GPL-2.0
/*
 * PERSISTENT RESERVE IN (SPC-4 6.15): READ KEYS, READ RESERVATION, REPORT
 * CAPABILITIES, READ FULL STATUS, from the state of pr.c; and the
 * initiator port's TransportID, which READ FULL STATUS reports.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include "compat.h"
#include <scsi/scsi_proto.h>
#include "pr.h"

#define PRI_HDR			8
#define PRI_RES_DESC		16
#define PRI_CAPS_LEN		8
#define PRI_FULL_DESC		24	/* before the TransportID */

/* REPORT CAPABILITIES: WR_EX_AR EX_AC_RO WR_EX_RO EX_AC WR_EX; EX_AC_AR */
#define PRI_TYPE_MASK		0xea01

static u8 pr_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : 0;
}

/*
 * The initiator port's TransportID (SPC-4 7.6.4) into @p, at most
 * PRI_TID_MAX bytes: with a port id, an iSCSI name and ISID (format 01b:
 * the name, ",i,0x", the ISID, NUL-terminated, padded to a multiple of 4
 * bytes); else an iSCSI name (format 00b) for "iqn."/"eui." names, a SAS
 * address from the "naa." name's 16 hex digits, a Fibre Channel N_Port
 * name for "fc.".  For a nexus_per_tpg fabric the name is the TPG's
 * nexus's, read once (pr_nexus_copy()): its length and its bytes agree
 * even if the fabric changes it meanwhile.
 */
u32 pr_transport_id(struct tcmx_lun *lun, const char *name,
		    const char *port_id, u8 *p)
{
	char buf[PRI_MAX_NAME + TCMX_PORT_ID_LEN];
	size_t len;
	ssize_t n;
	u32 tid_len;
	u64 addr;

	if (pr_per_tpg(lun)) {
		len = pr_nexus_copy(lun, buf, PRI_MAX_NAME);
		port_id = "";
	} else {
		n = strscpy(buf, name, PRI_MAX_NAME);
		len = n < 0 ? PRI_MAX_NAME - 1 : n;
	}
	if (!port_id[0] &&
	    (!strncmp(buf, "naa.", 4) || !strncmp(buf, "fc.", 3))) {
		bool fc = buf[0] == 'f';
		size_t i;

		/* the port name's first 16 hex digits (loop.c checked) */
		addr = 0;
		for (i = fc ? 3 : 4; i < len && i < (fc ? 19 : 20); i++)
			addr = addr << 4 | pr_hex(buf[i]);
		memset(p, 0, PRI_TID_NAA_LEN);
		p[0] = fc ? 0x00 : 0x06;	/* FC, SAS */
		put_unaligned_be64(addr, &p[fc ? 8 : 4]);
		return PRI_TID_NAA_LEN;
	}
	/* iSCSI: ",i,0x<ISID>" after the name, format 01b */
	n = strscpy(buf + len, port_id, TCMX_PORT_ID_LEN);
	len += n < 0 ? TCMX_PORT_ID_LEN - 1 : n;
	tid_len = round_up(PRI_TID_ISCSI_HDR + len + 1, 4);
	memset(p, 0, tid_len);
	p[0] = port_id[0] ? 0x45 : 0x05;	/* iSCSI, format 01b or 00b */
	put_unaligned_be16(tid_len - PRI_TID_ISCSI_HDR, &p[2]);
	memcpy(&p[PRI_TID_ISCSI_HDR], buf, len);
	return tid_len;
}

/*
 * pr_mutex held: the length of @sa's parameter data; for READ FULL
 * STATUS the most it can be, each TransportID at its longest: the names
 * are read once, as the descriptors are written
 */
static u32 pr_in_len(struct tcmx_dev *dev, u8 sa)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg;
	u32 len = PRI_HDR, n = 0;

	/* the state cannot change without pr_mutex: no need for pr_lock */
	list_for_each_entry(reg, &cd->pr_regs, node) {
		n++;
		if (sa == PRI_READ_FULL_STATUS)
			len += PRI_FULL_DESC + PRI_TID_MAX;
	}
	switch (sa) {
	case PRI_READ_KEYS:
		len += 8 * n;
		break;
	case PRI_READ_RESERVATION:
		len += PRI_RES_DESC;
		break;
	case PRI_REPORT_CAPABILITIES:
		len = PRI_CAPS_LEN;
		break;
	}
	return len;
}

static void pr_in_keys(struct tcmx_dev *dev, u8 *buf, u32 len)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg;
	u32 n = PRI_HDR;

	list_for_each_entry(reg, &cd->pr_regs, node) {
		put_unaligned_be64(reg->key, &buf[n]);
		n += 8;
	}
	put_unaligned_be32(len - PRI_HDR, &buf[4]);
}

/* the data's length: the header alone while there is no reservation */
static u32 pr_in_reservation(struct tcmx_dev *dev, u8 *buf, u32 len)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	if (!cd->pr_holder)
		return PRI_HDR;
	put_unaligned_be32(PRI_RES_DESC, &buf[4]);
	/* all registrants: the key is 0 (SPC-4 6.15.3.3) */
	if (!pr_type_all_reg(cd->pr_type))
		put_unaligned_be64(cd->pr_holder->key, &buf[8]);
	buf[8 + 13] = cd->pr_type;	/* scope 0: logical unit */
	return len;
}

static void pr_in_caps(struct tcmx_dev *dev, u8 *buf)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);

	put_unaligned_be16(PRI_CAPS_LEN, &buf[0]);
	/* CRH, SIP_C, ATP_C, PTPL_C */
	buf[2] = BIT(4) | BIT(3) | BIT(2) | BIT(0);
	/* TMV, ALLOW COMMANDS 000b, PTPL_A */
	buf[3] = BIT(7) | (cd->pr_aptpl ? BIT(0) : 0);
	put_unaligned_be16(PRI_TYPE_MASK, &buf[4]);
}

/* the data's length: the descriptors written, in one pass */
static u32 pr_in_full_status(struct tcmx_dev *dev, u8 *buf)
{
	struct tcmx_core_dev *cd = tcmx_core(dev);
	struct tcmx_pr_reg *reg;
	u32 n = PRI_HDR;

	list_for_each_entry(reg, &cd->pr_regs, node) {
		u8 *p = &buf[n];
		u32 tid = pr_transport_id(reg->lun, reg->name, reg->port_id,
					  &p[PRI_FULL_DESC]);

		put_unaligned_be64(reg->key, &p[0]);
		if (pr_is_holder(dev, reg)) {
			p[12] = BIT(0);		/* R_HOLDER */
			p[13] = cd->pr_type;
		}
		/* ALL_TG_PT: the relative port does not matter */
		if (reg->all_tg_pt)
			p[12] |= BIT(1);
		else
			put_unaligned_be16(reg->lun->rtpi, &p[18]);
		put_unaligned_be32(tid, &p[20]);
		n += PRI_FULL_DESC + tid;
	}
	put_unaligned_be32(n - PRI_HDR, &buf[4]);
	return n;
}

enum tcmx_status pr_in(struct tcmx_cmd *cmd)
{
	u32 alloc_len = get_unaligned_be16(&cmd->cdb[7]);
	struct tcmx_dev *dev = cmd->dev;
	struct tcmx_core_dev *cd = tcmx_core(dev);
	u8 sa = cmd->desc->sa;
	u32 len;
	u8 *buf;

	mutex_lock(&cd->pr_mutex);
	len = pr_in_len(dev, sa);
	buf = kzalloc(len, GFP_KERNEL);
	if (!buf) {
		mutex_unlock(&cd->pr_mutex);
		return tcmx_sense(cmd, TCMX_SENSE_INSUFFICIENT_RESOURCES);
	}
	put_unaligned_be32(cd->pr_generation, &buf[0]);
	switch (sa) {
	case PRI_READ_KEYS:
		pr_in_keys(dev, buf, len);
		break;
	case PRI_READ_RESERVATION:
		len = pr_in_reservation(dev, buf, len);
		break;
	case PRI_REPORT_CAPABILITIES:
		pr_in_caps(dev, buf);
		break;
	case PRI_READ_FULL_STATUS:
		len = pr_in_full_status(dev, buf);
		break;
	}
	mutex_unlock(&cd->pr_mutex);
	tcmx_cmd_copy_to_sgl(cmd, buf, min(len, alloc_len));
	kfree(buf);
	return TCMX_GOOD;
}
