/* SPDX-License-Identifier: MIT */
/* Shim for <linux/pgtable.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_PGTABLE_H
#define KSHIM_LINUX_PGTABLE_H
#include <kshim.h>
#endif
