/* SPDX-License-Identifier: MIT */
/* Shim for <linux/scatterlist.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SCATTERLIST_H
#define KSHIM_LINUX_SCATTERLIST_H
#include <kshim.h>
#endif
