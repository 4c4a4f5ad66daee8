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

/* struct renamedata's mount idmapping: a user namespace before 6.3 */
#if KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE
#define TCMX_RENAMEDATA_IDMAP(rd, mnt) \
	((rd)->old_mnt_idmap = (rd)->new_mnt_idmap = mnt_idmap(mnt))
#else
#define TCMX_RENAMEDATA_IDMAP(rd, mnt) \
	((rd)->old_mnt_userns = (rd)->new_mnt_userns = mnt_user_ns(mnt))
#endif

/* a tracepoint's __string field: __assign_str() lost its source in 6.10 */
#if KERNEL_VERSION(6, 10, 0) <= LINUX_VERSION_CODE
#define TCMX_ASSIGN_STR(field, src)	__assign_str(field)
#else
#define TCMX_ASSIGN_STR(field, src)	__assign_str(field, src)
#endif

#endif /* TCMX_COMPAT_H */
