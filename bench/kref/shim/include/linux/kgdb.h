/* SPDX-License-Identifier: MIT */
/* Shim for <linux/kgdb.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_KGDB_H
#define KSHIM_LINUX_KGDB_H
#include <kshim.h>
#endif
