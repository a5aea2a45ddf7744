/* SPDX-License-Identifier: MIT */
/* Shim for <linux/shrinker.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SHRINKER_H
#define KSHIM_LINUX_SHRINKER_H
#include <kshim.h>
#endif
