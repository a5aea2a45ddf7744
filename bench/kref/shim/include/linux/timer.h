/* SPDX-License-Identifier: MIT */
/* Shim for <linux/timer.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_TIMER_H
#define KSHIM_LINUX_TIMER_H
#include <kshim.h>
#endif
