/* SPDX-License-Identifier: MIT */
/* Shim for <linux/minmax.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_MINMAX_H
#define KSHIM_LINUX_MINMAX_H
#include <kshim.h>
#endif
