/* SPDX-License-Identifier: MIT */
/* Shim for <linux/rwlock.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_RWLOCK_H
#define KSHIM_LINUX_RWLOCK_H
#include <kshim.h>
#endif
