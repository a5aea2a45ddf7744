/* SPDX-License-Identifier: MIT */
/* Shim for <linux/lockdep.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_LOCKDEP_H
#define KSHIM_LINUX_LOCKDEP_H
#include <kshim.h>
#endif
