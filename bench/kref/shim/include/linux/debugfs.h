/* SPDX-License-Identifier: MIT */
/* Shim for <linux/debugfs.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_DEBUGFS_H
#define KSHIM_LINUX_DEBUGFS_H
#include <kshim.h>
#endif
