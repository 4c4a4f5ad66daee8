/* SPDX-License-Identifier: GPL-2.0 */
#include "../ut_kernel.h"
/* the stand-ins are the kernel's API as of 6.1 */
#define KERNEL_VERSION(a, b, c)	(((a) << 16) + ((b) << 8) + (c))
#define LINUX_VERSION_CODE	KERNEL_VERSION(6, 1, 0)
