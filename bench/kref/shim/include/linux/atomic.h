/* SPDX-License-Identifier: MIT */
/* Shim for <linux/atomic.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_ATOMIC_H
#define KSHIM_LINUX_ATOMIC_H
#include <kshim.h>
#endif
