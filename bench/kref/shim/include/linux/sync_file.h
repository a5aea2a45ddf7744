/* SPDX-License-Identifier: MIT */
/* Shim for <linux/sync_file.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SYNC_FILE_H
#define KSHIM_LINUX_SYNC_FILE_H
#include <kshim.h>
#endif
