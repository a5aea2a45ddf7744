/* SPDX-License-Identifier: MIT */
/* Shim for <linux/ww_mutex.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_WW_MUTEX_H
#define KSHIM_LINUX_WW_MUTEX_H
#include <kshim.h>
#endif
