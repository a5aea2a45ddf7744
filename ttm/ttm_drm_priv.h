/* SPDX-License-Identifier: MIT */
/*
 * ttm_drm_priv.h: what the files of the 2008 TTM uAPI share and nothing
 * outside them sees: the request handlers the dispatch table of
 * ttm_drm_ioctl.c names (each gets the kernel copy of its argument and
 * returns 0 or a negative errno), and the few checks one object's file
 * makes on behalf of another's.
 */
#ifndef TTM_DRM_PRIV_H
#define TTM_DRM_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <ttm/ttm_drm_device.h>

/* ttm_drm_fence.c */
/* The fence types @ddev knows: EXE and the driver's own. */
uint32_t ttm_drm_valid_fence_types(struct ttm_drm_device *ddev);
bool ttm_drm_fence_class_ok(struct ttm_drm_device *ddev, uint32_t fence_class);
int ttm_drm_fence_create_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_fence_reference_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_fence_unreference_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_fence_signaled_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_fence_flush_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_fence_wait_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_fence_emit_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_fence_buffers_ioctl(struct ttm_drm_file *file, void *data);

/* ttm_drm_bo.c; ttm_drm_bo_flag_pin(): pin or unpin @dbo for NO_EVICT/NO_MOVE in @flags (reserved).
 */
void ttm_drm_bo_flag_pin(struct ttm_drm_bo *dbo, uint64_t flags);
int ttm_drm_bo_create_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_bo_map_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_bo_unmap_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_bo_reference_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_bo_unreference_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_bo_info_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_bo_setstatus_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_bo_wait_idle_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_bo_version_ioctl(struct ttm_drm_file *file, void *data);

/* ttm_drm_mm.c */
int ttm_drm_mm_init_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_mm_takedown_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_mm_lock_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_mm_unlock_ioctl(struct ttm_drm_file *file, void *data);
int ttm_drm_mm_info_ioctl(struct ttm_drm_file *file, void *data);

/* ttm_drm_file.c, for the buffer code */

/**
 * ttm_drm_ref_map() - count one map or unmap of a client on a handle.
 * @file: the client.
 * @handle: a handle it holds a reference to.
 * @delta: +1 for a map, -1 for an unmap.
 *
 * Return: 0; -EINVAL (no reference, or an unmap without a map).
 */
int ttm_drm_ref_map(struct ttm_drm_file *file, uint32_t handle, int delta);

/**
 * ttm_drm_file_maps() - the BO_MAPs a client holds on a handle.
 * @file: the client.
 * @handle: the handle.
 *
 * Return: the count; 0 when none or no reference.
 */
int ttm_drm_file_maps(struct ttm_drm_file *file, uint32_t handle);

/* ttm_drm_bo.c, for the file code: what closing a file undoes */

/**
 * ttm_drm_bo_unmap_all() - drop the CPU maps a closing client held on a buffer.
 * @dbo: the buffer.
 * @maps: how many BO_MAPs the client held on it.
 */
void ttm_drm_bo_unmap_all(struct ttm_drm_bo *dbo, unsigned long maps);

/**
 * ttm_drm_file_drop_unfenced() - take a closing client's buffers off its
 * unfenced list and drop the reference the list held on each (they keep
 * whatever fences they have).
 * @file: the client.
 */
void ttm_drm_file_drop_unfenced(struct ttm_drm_file *file);

#endif /* TTM_DRM_PRIV_H */
