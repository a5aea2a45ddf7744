/* SPDX-License-Identifier: MIT */
/* Shim for <linux/math64.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_MATH64_H
#define KSHIM_LINUX_MATH64_H
#include <kshim.h>
#endif
