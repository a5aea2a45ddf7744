/* SPDX-License-Identifier: MIT */
/* Shim for <linux/uaccess.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_UACCESS_H
#define KSHIM_LINUX_UACCESS_H
#include <kshim.h>
#endif
