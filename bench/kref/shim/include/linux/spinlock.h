/* SPDX-License-Identifier: MIT */
/* Shim for <linux/spinlock.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SPINLOCK_H
#define KSHIM_LINUX_SPINLOCK_H
#include <kshim.h>
#endif
