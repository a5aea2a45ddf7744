/* SPDX-License-Identifier: MIT */
/* Shim for <linux/stackdepot.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_STACKDEPOT_H
#define KSHIM_LINUX_STACKDEPOT_H
#include <kshim.h>
#endif
