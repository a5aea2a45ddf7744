/* SPDX-License-Identifier: MIT */
/* Shim for <linux/hrtimer.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_HRTIMER_H
#define KSHIM_LINUX_HRTIMER_H
#include <kshim.h>
#endif
