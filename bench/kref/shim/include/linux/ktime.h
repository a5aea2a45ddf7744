/* SPDX-License-Identifier: MIT */
/* Shim for <linux/ktime.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_KTIME_H
#define KSHIM_LINUX_KTIME_H
#include <kshim.h>
#endif
