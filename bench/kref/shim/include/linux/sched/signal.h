/* SPDX-License-Identifier: MIT */
/* Shim for <linux/sched/signal.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SCHED_SIGNAL_H
#define KSHIM_LINUX_SCHED_SIGNAL_H
#include <kshim.h>
#endif
