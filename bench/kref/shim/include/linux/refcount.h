/* SPDX-License-Identifier: MIT */
/* Shim for <linux/refcount.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_REFCOUNT_H
#define KSHIM_LINUX_REFCOUNT_H
#include <kshim.h>
#endif
