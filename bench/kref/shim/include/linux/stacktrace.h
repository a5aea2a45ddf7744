/* SPDX-License-Identifier: MIT */
/* Shim for <linux/stacktrace.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_STACKTRACE_H
#define KSHIM_LINUX_STACKTRACE_H
#include <kshim.h>
#endif
