/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ALUA for the core (alua.c, alua_cmd.c): the access states, a group's
 * access type and status values, and the calls of the gate, configfs and
 * the TARGET PORT GROUPS commands.  tcmx_core.h includes it.
 */
#ifndef TCMX_ALUA_H
#define TCMX_ALUA_H

#include "tcmx.h"

struct tcmx_cmd_desc;
struct tcmx_tg_pt_gp;

/*
 * alua_cmd.c: the primary access states (SCSI_ACCESS_STATE_*), one entry
 * each, for configfs (alua.c), REPORT and SET TARGET PORT GROUPS and the
 * gate: the group's alua_support_* bit, the name configfs shows, whether
 * SET TARGET PORT GROUPS may ask for it, and the TCMX_CMD_IN_* row flag a
 * command needs to run in it (0: every command runs), else the sense it
 * gets.  tcmx_alua_state() is NULL for a value that is no state.
 */
struct tcmx_alua_state {
	u8		sup;		/* TCMX_ALUA_SUP_* */
	bool		explicit;	/* SET TARGET PORT GROUPS may set it */
	u16		runs;		/* TCMX_CMD_IN_*, 0: all */
	u8		sense;		/* enum tcmx_sense, if refused */
	const char	*name;
};
const struct tcmx_alua_state *tcmx_alua_state(u32 state);

/* a group's alua_access_type bits, its alua_access_status values */
#define TCMX_ALUA_IMPLICIT		BIT(0)
#define TCMX_ALUA_EXPLICIT		BIT(1)
#define TCMX_ALUA_STATUS_NONE		0
#define TCMX_ALUA_STATUS_EXPLICIT	1	/* altered by SET TPGS */
#define TCMX_ALUA_STATUS_IMPLICIT	2	/* altered by implicit ALUA */

/*
 * alua_cmd.c: the access state check (while TCMX_GATE_ALUA is set), a
 * group's change of state and the gate bit (cd->lock held), and REPORT /
 * SET TARGET PORT GROUPS.
 */
enum tcmx_status tcmx_alua_check(struct tcmx_cmd *cmd,
				 const struct tcmx_cmd_desc *d);
void tcmx_alua_update_gate(struct tcmx_dev *dev);
void tcmx_alua_set_state(struct tcmx_dev *dev, struct tcmx_tg_pt_gp *gp,
			 u8 state, u8 status, struct tcmx_cmd *except);
/* the rows' ->parse, and their ->execute, in a worker */
enum tcmx_status tcmx_alua_parse_report_tpgs(struct tcmx_cmd *cmd);
enum tcmx_status tcmx_alua_report_tpgs(struct tcmx_cmd *cmd);
enum tcmx_status tcmx_alua_parse_set_tpgs(struct tcmx_cmd *cmd);
enum tcmx_status tcmx_alua_set_tpgs(struct tcmx_cmd *cmd);

#endif /* TCMX_ALUA_H */
