/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UT_LINUX_IDR_H
#define UT_LINUX_IDR_H
#include "../ut_kernel.h"

/* only embedded (struct tcmx_dev); the tests allocate no IDs */
struct ida { struct xarray xa; };

#endif
