/* SPDX-License-Identifier: MIT */
/* Shim for <linux/shmem_fs.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_SHMEM_FS_H
#define KSHIM_LINUX_SHMEM_FS_H
#include <kshim.h>
#endif
