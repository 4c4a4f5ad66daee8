/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcmx tracepoints: every command once it is decoded (tcmx:tcmx_cmd_submit)
 * and once it is done (tcmx:tcmx_cmd_complete, with the time between the
 * two), the task management a fabric performs (tcmx:tcmx_tmr), and what
 * inject/ does to a command (tcmx:inject).  While disabled each is
 * a patched-out branch; the submit time is only read while cmd_complete is
 * enabled.
 *
 *   echo 1 > /sys/kernel/tracing/events/tcmx/enable
 *   perf trace -e 'tcmx:*'	or	trace-cmd record -e tcmx
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tcmx

#if !defined(TCMX_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define TCMX_TRACE_H

#include <linux/tracepoint.h>
#include "tcmx.h"
#include "compat.h"

/* sense key, ASC and ASCQ of fixed (0x70) or descriptor (0x72) sense data */
#define TCMX_TRACE_KCQ(cmd, fixed_at, desc_at)				\
	((cmd)->sense_len ? (cmd)->sense[((cmd)->sense[0] & 0x7f) == 0x72 ? \
					 (desc_at) : (fixed_at)] : 0)

/* what both command events record: where the command went, what it was */
#define TCMX_TRACE_CMD_ASSIGN(cmd)					\
	do {								\
		__entry->lun = (cmd)->lun_id;				\
		__entry->lba = (cmd)->lba;				\
		__entry->blocks = (cmd)->nr_blocks;			\
		__entry->tpg = (cmd)->tpg->tag;				\
		__entry->opcode = (cmd)->cdb[0];			\
	} while (0)

TRACE_EVENT(tcmx_cmd_submit,
	TP_PROTO(const struct tcmx_cmd *cmd),
	TP_ARGS(cmd),
	TP_STRUCT__entry(
		__field(u64, lun)
		__field(u64, lba)
		__field(u32, blocks)
		__field(u32, data_len)
		__field(u16, tpg)
		__field(u8, opcode)
	),
	TP_fast_assign(
		TCMX_TRACE_CMD_ASSIGN(cmd);
		__entry->data_len = cmd->data_len;
	),
	TP_printk("tpg=%u lun=%llu opcode=0x%02x lba=%llu blocks=%u data_len=%u",
		  __entry->tpg, __entry->lun, __entry->opcode, __entry->lba,
		  __entry->blocks, __entry->data_len)
);

TRACE_EVENT(tcmx_cmd_complete,
	TP_PROTO(const struct tcmx_cmd *cmd, u64 latency_ns),
	TP_ARGS(cmd, latency_ns),
	TP_STRUCT__entry(
		__field(u64, lun)
		__field(u64, lba)
		__field(u64, latency_ns)
		__field(u32, blocks)
		__field(u32, xfer_len)
		__field(u16, tpg)
		__field(u8, opcode)
		__field(u8, status)
		__field(u8, key)
		__field(u8, asc)
		__field(u8, ascq)
	),
	TP_fast_assign(
		TCMX_TRACE_CMD_ASSIGN(cmd);
		__entry->latency_ns = latency_ns;
		__entry->xfer_len = cmd->xfer_len;
		__entry->status = cmd->status;
		__entry->key = TCMX_TRACE_KCQ(cmd, 2, 1) & 0x0f;
		__entry->asc = TCMX_TRACE_KCQ(cmd, 12, 2);
		__entry->ascq = TCMX_TRACE_KCQ(cmd, 13, 3);
	),
	TP_printk("tpg=%u lun=%llu opcode=0x%02x lba=%llu blocks=%u status=0x%02x sense=%02x/%02x/%02x xfer_len=%u latency_ns=%llu",
		  __entry->tpg, __entry->lun, __entry->opcode, __entry->lba,
		  __entry->blocks, __entry->status, __entry->key, __entry->asc,
		  __entry->ascq, __entry->xfer_len, __entry->latency_ns)
);

/* @tmf: enum tcmx_tmf; @result: 0 done, else -errno */
TRACE_EVENT(tcmx_tmr,
	TP_PROTO(u16 tpg, u64 lun, u8 tmf, int result, u64 latency_ns),
	TP_ARGS(tpg, lun, tmf, result, latency_ns),
	TP_STRUCT__entry(
		__field(u64, lun)
		__field(u64, latency_ns)
		__field(int, result)
		__field(u16, tpg)
		__field(u8, tmf)
	),
	TP_fast_assign(
		__entry->lun = lun;
		__entry->latency_ns = latency_ns;
		__entry->result = result;
		__entry->tpg = tpg;
		__entry->tmf = tmf;
	),
	TP_printk("tpg=%u lun=%llu tmf=%s result=%d latency_ns=%llu",
		  __entry->tpg, __entry->lun,
		  __print_symbolic(__entry->tmf,
				   { TCMX_TMF_ABORT_TASK, "ABORT_TASK" },
				   { TCMX_TMF_LUN_RESET, "LUN_RESET" },
				   { TCMX_TMF_NEXUS_LOSS, "I_T_NEXUS_LOSS" }),
		  __entry->result, __entry->latency_ns)
);

/*
 * inject/ (inject.c) acting on a command: @kind its name (the counters'
 * names, and "badblock_heal"), @delay_us the completion delay of a delayed
 * one.  Named as configfs-docs name it: tcmx:inject.
 */
TRACE_EVENT(inject,
	TP_PROTO(const struct tcmx_cmd *cmd, const char *kind, u32 delay_us),
	TP_ARGS(cmd, kind, delay_us),
	TP_STRUCT__entry(
		__string(dev, tcmx_dev_name(cmd->dev))
		__string(kind, kind)
		__field(u64, lun)
		__field(u64, lba)
		__field(u32, blocks)
		__field(u32, delay_us)
		__field(u16, tpg)
		__field(u8, opcode)
	),
	TP_fast_assign(
		TCMX_ASSIGN_STR(dev, tcmx_dev_name(cmd->dev));
		TCMX_ASSIGN_STR(kind, kind);
		TCMX_TRACE_CMD_ASSIGN(cmd);
		__entry->delay_us = delay_us;
	),
	TP_printk("dev=%s tpg=%u lun=%llu opcode=0x%02x lba=%llu blocks=%u kind=%s delay_us=%u",
		  __get_str(dev), __entry->tpg, __entry->lun, __entry->opcode,
		  __entry->lba, __entry->blocks, __get_str(kind),
		  __entry->delay_us)
);

#endif /* TCMX_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
