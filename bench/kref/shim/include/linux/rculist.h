/* SPDX-License-Identifier: MIT */
/* Shim for <linux/rculist.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_RCULIST_H
#define KSHIM_LINUX_RCULIST_H
#include <kshim.h>
#endif
