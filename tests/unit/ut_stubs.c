// SPDX-License-Identifier: GPL-2.0
/*
 * What the linked core files call from the parts of the core that the unit
 * test does not build (transport.c): commands "deferred" run at once.
 */
#include "ut.h"

enum tcmx_status tcmx_defer(struct tcmx_cmd *cmd, tcmx_execute_fn fn)
{
	return fn(cmd);
}
