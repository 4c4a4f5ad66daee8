/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sanitize.c, for SANITIZE's workers (lbp.c): begin the operation before
 * the medium is touched (02/04/1B if one is in progress), then, with the
 * work's @status, hold the command until the operation ends unless IMMED
 * is set or it is aborted.  For the teardown paths: abort the held
 * commands of a nexus, a LUN or an I_T_L nexus (process context); for a
 * logical unit reset (tmr.c), every held command of @dev (process
 * context, in an RCU read-side section or not).  For inject/fault stuck
 * (inject.c): hold a pinned command until one of those aborts it.
 */
#ifndef TCMX_SANITIZE_H
#define TCMX_SANITIZE_H

#include "tcmx_core.h"

enum tcmx_status tcmx_sanitize_begin(struct tcmx_cmd *cmd);
enum tcmx_status tcmx_sanitize_wait(struct tcmx_cmd *cmd,
				    enum tcmx_status status);
void tcmx_parked_abort_nexus(struct tcmx_nexus *n);
void tcmx_parked_abort_lun(struct tcmx_lun *lun);
void tcmx_parked_abort_entry(struct tcmx_nexus *n, u64 id);
void tcmx_parked_abort_itl(struct tcmx_itl *itl, bool other);
void tcmx_parked_abort_dev(struct tcmx_dev *dev);
bool tcmx_park_stuck(struct tcmx_cmd *cmd);
ssize_t tcmx_sanitize_ms_show(struct tcmx_core_dev *cd, char *page);
ssize_t tcmx_sanitize_ms_store(struct tcmx_core_dev *cd, const char *page,
			       size_t count);
void tcmx_sanitize_dev_init(struct tcmx_dev *dev);
void tcmx_sanitize_dev_exit(struct tcmx_dev *dev);

#endif /* TCMX_SANITIZE_H */
