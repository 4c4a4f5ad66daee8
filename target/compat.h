/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels tcmx builds for (6.1 and 6.12, each
 * also PREEMPT_RT), said once here instead of in every file that needs it.
 */
#ifndef TCMX_COMPAT_H
#define TCMX_COMPAT_H

#include <linux/version.h>

/* get_unaligned_be16() and kin: the header moved to linux/ in 6.12 */
#if KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#endif /* TCMX_COMPAT_H */
