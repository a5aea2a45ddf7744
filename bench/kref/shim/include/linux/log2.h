/* SPDX-License-Identifier: MIT */
/* Shim for <linux/log2.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_LOG2_H
#define KSHIM_LINUX_LOG2_H
#include <kshim.h>
#endif
