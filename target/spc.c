// SPDX-License-Identifier: GPL-2.0
/* STUB: replaced by the real spc.c */
#include "tcmx_core.h"
enum tcmx_sense tcmx_spc_parse(struct tcmx_cmd *cmd) { return TCMX_SENSE_INVALID_OPCODE; }
enum tcmx_sense tcmx_parse_cdb_nolun(struct tcmx_cmd *cmd) { return TCMX_SENSE_LUN_NOT_SUPPORTED; }
