/* SPDX-License-Identifier: MIT */
/* Shim for <linux/math.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_MATH_H
#define KSHIM_LINUX_MATH_H
#include <kshim.h>
#endif
