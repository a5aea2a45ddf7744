/* SPDX-License-Identifier: MIT */
/* Shim for <linux/build_bug.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_BUILD_BUG_H
#define KSHIM_LINUX_BUILD_BUG_H
#include <kshim.h>
#endif
