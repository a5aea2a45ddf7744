/* SPDX-License-Identifier: MIT */
/* Shim for <linux/sched/clock.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SCHED_CLOCK_H
#define KSHIM_LINUX_SCHED_CLOCK_H
#include <kshim.h>
#endif
