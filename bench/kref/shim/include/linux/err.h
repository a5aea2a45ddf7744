/* SPDX-License-Identifier: MIT */
/* Shim for <linux/err.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_ERR_H
#define KSHIM_LINUX_ERR_H
#include <kshim.h>
#endif
