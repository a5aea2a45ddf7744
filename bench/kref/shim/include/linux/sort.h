/* SPDX-License-Identifier: MIT */
/* Shim for <linux/sort.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SORT_H
#define KSHIM_LINUX_SORT_H
#include <kshim.h>
#endif
