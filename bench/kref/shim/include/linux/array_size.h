/* SPDX-License-Identifier: MIT */
/* Shim for <linux/array_size.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_ARRAY_SIZE_H
#define KSHIM_LINUX_ARRAY_SIZE_H
#include <kshim.h>
#endif
