/* SPDX-License-Identifier: GPL-2.0 */
#include "../ut_kernel.h"
