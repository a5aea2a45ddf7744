/* SPDX-License-Identifier: MIT */
/* Shim for <linux/sched.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SCHED_H
#define KSHIM_LINUX_SCHED_H
#include <kshim.h>
#endif
