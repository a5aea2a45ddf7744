/* SPDX-License-Identifier: MIT */
/* Shim for <linux/numa.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_NUMA_H
#define KSHIM_LINUX_NUMA_H
#include <kshim.h>
#endif
