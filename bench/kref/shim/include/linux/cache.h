/* SPDX-License-Identifier: MIT */
/* Shim for <linux/cache.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_CACHE_H
#define KSHIM_LINUX_CACHE_H
#include <kshim.h>
#endif
