/* SPDX-License-Identifier: GPL-2.0 */
/* also reached from glibc's <errno.h>: the E* numbers */
#include <asm/errno.h>
#include "../ut_kernel.h"
