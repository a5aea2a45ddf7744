/* SPDX-License-Identifier: MIT */
/* Shim for <linux/fs.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_FS_H
#define KSHIM_LINUX_FS_H
#include <kshim.h>
#endif
