/* SPDX-License-Identifier: MIT */
/* Shim for <linux/completion.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_COMPLETION_H
#define KSHIM_LINUX_COMPLETION_H
#include <kshim.h>
#endif
