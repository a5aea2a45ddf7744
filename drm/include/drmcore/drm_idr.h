/* SPDX-License-Identifier: MIT */
/*
 * drm_idr: a handle table with the kernel's idr_alloc(idr, ptr, 1, 0)
 * behaviour: each new handle is the lowest free one >= 1, so a handle
 * freed is the next one handed out (userspace and igt depend on it).
 *
 * Not locked: the owner serialises every call (struct drm_file does it
 * with its own locks). Lookup is O(1); allocation is amortised O(1) while
 * handles are only added, and scans from the lowest freed handle after
 * removals.
 */
#ifndef DRMCORE_DRM_IDR_H
#define DRMCORE_DRM_IDR_H

#include <stdint.h>

/**
 * struct drm_idr - the table.
 * @slots: @slots[h] is the pointer of handle h (slot 0 unused).
 * @size: entries allocated in @slots.
 * @count: handles in use.
 * @hint: no handle below it is free.
 */
struct drm_idr {
	void **slots;
	uint32_t size;
	uint32_t count;
	uint32_t hint;
};

/** drm_idr_init() - an empty table; the first handle will be 1. */
void drm_idr_init(struct drm_idr *idr);

/**
 * drm_idr_fini() - free the table (left empty and reusable); the pointers
 * it held are the caller's to release first.
 */
void drm_idr_fini(struct drm_idr *idr);

/**
 * drm_idr_alloc() - store non-NULL @ptr at the lowest free handle.
 * Return: the handle (>= 1); -ENOMEM (fault point "idr_alloc");
 * -ENOSPC when 2^31 - 1 handles are in use; -EINVAL for NULL @ptr.
 */
int drm_idr_alloc(struct drm_idr *idr, void *ptr);

/** drm_idr_find() - the pointer at @handle, or NULL. */
void *drm_idr_find(const struct drm_idr *idr, uint32_t handle);

/** drm_idr_remove() - free @handle. Return: its pointer, or NULL. */
void *drm_idr_remove(struct drm_idr *idr, uint32_t handle);

/**
 * drm_idr_replace() - store @ptr at the allocated @handle.
 * Return: the old pointer, or NULL when @handle is not allocated
 * (nothing stored).
 */
void *drm_idr_replace(struct drm_idr *idr, uint32_t handle, void *ptr);

/**
 * drm_idr_for_each() - call @fn for every handle in ascending order; stops
 * and returns the first non-zero value @fn returns. @fn may remove the
 * handle it is called for.
 */
int drm_idr_for_each(struct drm_idr *idr, int (*fn)(uint32_t handle, void *ptr, void *data),
		     void *data);

#endif /* DRMCORE_DRM_IDR_H */
