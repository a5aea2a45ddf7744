/* SPDX-License-Identifier: MIT */
/* Shim for <linux/file.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_FILE_H
#define KSHIM_LINUX_FILE_H
#include <kshim.h>
#endif
