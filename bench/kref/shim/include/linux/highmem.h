/* SPDX-License-Identifier: MIT */
/* Shim for <linux/highmem.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_HIGHMEM_H
#define KSHIM_LINUX_HIGHMEM_H
#include <kshim.h>
#endif
