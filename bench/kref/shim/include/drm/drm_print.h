/* SPDX-License-Identifier: MIT */
/*
 * Shim for <drm/drm_print.h>: a printer that formats into nothing (the
 * benchmark never dumps state) and the logging macros, which print through
 * kshim_printk() like pr_err().
 */
#ifndef KSHIM_DRM_DRM_PRINT_H
#define KSHIM_DRM_DRM_PRINT_H
#include <kshim.h>

struct drm_device;
struct drm_printer {
	void (*printfn)(struct drm_printer *p, const char *fmt, ...);
	void *arg;
	const char *prefix;
};
void drm_printf(struct drm_printer *p, const char *f, ...) __printf(2, 3);
void drm_puts(struct drm_printer *p, const char *str);
enum drm_debug_category {
	DRM_UT_CORE,
	DRM_UT_DRIVER,
	DRM_UT_KMS,
	DRM_UT_PRIME,
	DRM_UT_ATOMIC,
	DRM_UT_VBL,
	DRM_UT_STATE,
	DRM_UT_LEASE,
	DRM_UT_DP,
	DRM_UT_DRMRES
};
static inline struct drm_printer
drm_dbg_printer(struct drm_device *drm, enum drm_debug_category category, const char *prefix)
{
	struct drm_printer p = {0, 0, prefix};

	(void)drm;
	(void)category;
	return p;
}
static inline struct drm_printer drm_seq_file_printer(struct seq_file *f)
{
	struct drm_printer p = {0, f, 0};

	return p;
}
#define DRM_ERROR(fmt, ...) kshim_printk("[drm] " fmt, ##__VA_ARGS__)
#define DRM_DEBUG(fmt, ...)                                                                        \
	do {                                                                                       \
	} while (0)
#define DRM_INFO(fmt, ...) kshim_printk("[drm] " fmt, ##__VA_ARGS__)
#define drm_info_once(d, fmt, ...) kshim_printk("[drm] " fmt, ##__VA_ARGS__)
#define drm_err(d, fmt, ...) kshim_printk("[drm] " fmt, ##__VA_ARGS__)
#define drm_warn(d, fmt, ...) kshim_printk("[drm] " fmt, ##__VA_ARGS__)
#define drm_dbg(d, fmt, ...)                                                                       \
	do {                                                                                       \
	} while (0)
#endif
