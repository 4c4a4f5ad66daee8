/* SPDX-License-Identifier: GPL-2.0 */
#include <ctype.h>
#include "../ut_kernel.h"
