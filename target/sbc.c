// SPDX-License-Identifier: GPL-2.0
/* STUB: replaced by the real sbc.c */
#include "tcmx_core.h"
enum tcmx_sense tcmx_parse_cdb(struct tcmx_cmd *cmd) { return TCMX_SENSE_INVALID_OPCODE; }
enum tcmx_sense tcmx_sbc_parse(struct tcmx_cmd *cmd) { return TCMX_SENSE_INVALID_OPCODE; }
