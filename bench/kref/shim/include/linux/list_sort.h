/* SPDX-License-Identifier: MIT */
/* Shim for <linux/list_sort.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_LIST_SORT_H
#define KSHIM_LINUX_LIST_SORT_H
#include <kshim.h>
#endif
