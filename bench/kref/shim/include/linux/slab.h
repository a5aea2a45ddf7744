/* SPDX-License-Identifier: MIT */
/* Shim for <linux/slab.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SLAB_H
#define KSHIM_LINUX_SLAB_H
#include <kshim.h>
#endif
