/* SPDX-License-Identifier: MIT */
/* Shim for <linux/sched/debug.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SCHED_DEBUG_H
#define KSHIM_LINUX_SCHED_DEBUG_H
#include <kshim.h>
#endif
