/* SPDX-License-Identifier: MIT */
/* Shim for <linux/random.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_RANDOM_H
#define KSHIM_LINUX_RANDOM_H
#include <kshim.h>
#endif
