/* SPDX-License-Identifier: MIT */
/* Shim for <linux/wait.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_WAIT_H
#define KSHIM_LINUX_WAIT_H
#include <kshim.h>
#endif
