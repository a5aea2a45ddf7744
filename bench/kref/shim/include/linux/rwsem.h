/* SPDX-License-Identifier: MIT */
/* Shim for <linux/rwsem.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_RWSEM_H
#define KSHIM_LINUX_RWSEM_H
#include <kshim.h>
#endif
