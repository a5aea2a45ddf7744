/* SPDX-License-Identifier: MIT */
/* Shim for <linux/cc_platform.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_CC_PLATFORM_H
#define KSHIM_LINUX_CC_PLATFORM_H
#include <kshim.h>
#endif
