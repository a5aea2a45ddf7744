/* SPDX-License-Identifier: MIT */
/*
 * drm_file: the drm core's part of one open file of a DRM device (the
 * kernel's struct drm_file, minus the driver's handles): its syncobj
 * handles and its prime table. A driver embeds it in its own file and
 * calls drm_file_init() at open and drm_file_fini() at the last close.
 *
 * Lock order: @syncobj_table_lock, then a syncobj's lock, then a fence's
 * lock. The prime table's lock is independent (never held with them).
 */
#ifndef DRMCORE_DRM_FILE_H
#define DRMCORE_DRM_FILE_H

#include <pthread.h>

#include <drmcore/drm_idr.h>
#include <drmcore/drm_prime.h>

/**
 * struct drm_file - the core's per-file state.
 * @syncobj_table_lock: protects @syncobj_idr.
 * @syncobj_idr: handle -> struct drm_syncobj (one reference each).
 * @prime: dma-buf <-> GEM handle table.
 */
struct drm_file {
	pthread_mutex_t syncobj_table_lock;
	struct drm_idr syncobj_idr;
	struct drm_prime_file prime;
};

/** drm_file_init() - an open file with no syncobjs and an empty prime table. */
void drm_file_init(struct drm_file *file);

/**
 * drm_file_fini() - release what the file holds, as the kernel's
 * drm_file_free(): every syncobj handle (drm_syncobj_release()) and every
 * prime entry. Nothing else may use @file concurrently.
 */
void drm_file_fini(struct drm_file *file);

#endif /* DRMCORE_DRM_FILE_H */
