/* SPDX-License-Identifier: MIT */
/*
 * drm_prime: a file's table of imported/exported dma-bufs and the GEM
 * handle each maps to (the kernel's drm_prime_file_private), so that
 * importing one dma-buf twice into one file gives the same handle, and
 * exporting a handle again finds its dma-buf.
 *
 * Each entry holds one dma-buf reference. Locking: one mutex per table;
 * callers that need lookup-then-add to be atomic hold @lock themselves
 * through drm_prime_lock()/drm_prime_unlock() and use the _locked calls.
 */
#ifndef DRMCORE_DRM_PRIME_H
#define DRMCORE_DRM_PRIME_H

#include <pthread.h>
#include <stdint.h>

struct drm_dma_buf;

/**
 * struct drm_prime_file - the table.
 * @lock: protects the entries.
 * @entries: (dma-buf, handle) pairs; @count used, @size allocated.
 */
struct drm_prime_file {
	pthread_mutex_t lock;
	struct drm_prime_entry {
		struct drm_dma_buf *buf;
		uint32_t handle;
	} * entries;
	uint32_t count;
	uint32_t size;
};

/** drm_prime_file_init() - an empty table. */
void drm_prime_file_init(struct drm_prime_file *pf);

/** drm_prime_file_fini() - drop every entry's dma-buf reference and free the table. */
void drm_prime_file_fini(struct drm_prime_file *pf);

/** drm_prime_lock() - take @pf->lock for a sequence of _locked calls. */
void drm_prime_lock(struct drm_prime_file *pf);

/** drm_prime_unlock() - release @pf->lock. */
void drm_prime_unlock(struct drm_prime_file *pf);

/**
 * drm_prime_add_buf_handle_locked() - record (@buf, @handle); takes a
 * reference on @buf. Return: 0; -ENOMEM (fault point "dma_buf_alloc").
 */
int drm_prime_add_buf_handle_locked(struct drm_prime_file *pf, struct drm_dma_buf *buf,
				    uint32_t handle);

/** drm_prime_lookup_buf_handle_locked() - 0 with *@handle of @buf; -ENOENT. */
int drm_prime_lookup_buf_handle_locked(struct drm_prime_file *pf, struct drm_dma_buf *buf,
				       uint32_t *handle);

/**
 * drm_prime_lookup_handle_locked() - the dma-buf recorded for @handle (no
 * reference added), or NULL.
 */
struct drm_dma_buf *drm_prime_lookup_handle_locked(struct drm_prime_file *pf, uint32_t handle);

/**
 * drm_prime_remove_buf_handle() - forget @handle (GEM_CLOSE of it) and
 * drop the entry's reference. Takes @lock itself.
 */
void drm_prime_remove_buf_handle(struct drm_prime_file *pf, uint32_t handle);

#endif /* DRMCORE_DRM_PRIME_H */
