/* SPDX-License-Identifier: MIT */
/* Shim for <linux/agp_backend.h>: everything is in kshim.h (see bench/kref/README.md). */
#ifndef KSHIM_LINUX_AGP_BACKEND_H
#define KSHIM_LINUX_AGP_BACKEND_H
#include <kshim.h>
#endif
