/* SPDX-License-Identifier: MIT */
/* Shim for <linux/limits.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_LIMITS_H
#define KSHIM_LINUX_LIMITS_H
#include <kshim.h>
#endif
