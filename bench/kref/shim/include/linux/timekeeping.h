/* SPDX-License-Identifier: MIT */
/* Shim for <linux/timekeeping.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_TIMEKEEPING_H
#define KSHIM_LINUX_TIMEKEEPING_H
#include <kshim.h>
#endif
