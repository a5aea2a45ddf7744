/* SPDX-License-Identifier: MIT */
/* Shim for <linux/kconfig.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_KCONFIG_H
#define KSHIM_LINUX_KCONFIG_H
#include <kshim.h>
#endif
