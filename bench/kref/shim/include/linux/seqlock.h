/* SPDX-License-Identifier: MIT */
/* Shim for <linux/seqlock.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SEQLOCK_H
#define KSHIM_LINUX_SEQLOCK_H
#include <kshim.h>
#endif
