/* SPDX-License-Identifier: MIT */
/* Shim for <linux/overflow.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_OVERFLOW_H
#define KSHIM_LINUX_OVERFLOW_H
#include <kshim.h>
#endif
