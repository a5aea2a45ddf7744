// SPDX-License-Identifier: MIT
/*
 * The per-file dma-buf <-> handle table; see drmcore/drm_prime.h. A flat
 * array: a file imports few dma-bufs, and lookups by either key are rare
 * next to the ioctls around them.
 */
#include <drmcore/drm_prime.h>
#include <drmcore/dma_buf.h>
#include <drmcore/drm_faults.h>

#include <errno.h>
#include <stdlib.h>

void drm_prime_file_init(struct drm_prime_file *pf)
{
	pthread_mutex_init(&pf->lock, NULL);
	pf->entries = NULL;
	pf->count = pf->size = 0;
}

void drm_prime_file_fini(struct drm_prime_file *pf)
{
	for (uint32_t i = 0; i < pf->count; i++)
		drm_dma_buf_put(pf->entries[i].buf);
	free(pf->entries);
	pf->entries = NULL;
	pf->count = pf->size = 0;
	pthread_mutex_destroy(&pf->lock);
}

void drm_prime_lock(struct drm_prime_file *pf)
{
	pthread_mutex_lock(&pf->lock);
}

void drm_prime_unlock(struct drm_prime_file *pf)
{
	pthread_mutex_unlock(&pf->lock);
}

int drm_prime_add_buf_handle_locked(struct drm_prime_file *pf, struct drm_dma_buf *buf,
				    uint32_t handle)
{
	if (pf->count == pf->size) {
		uint32_t size = pf->size ? pf->size * 2 : 8;
		void *v;

		if (fault_should_fail(&drm_fault_dma_buf_alloc, size * sizeof(*pf->entries)))
			return -ENOMEM;
		v = realloc(pf->entries, size * sizeof(*pf->entries));
		if (!v)
			return -ENOMEM;
		pf->entries = v;
		pf->size = size;
	}
	drm_dma_buf_ref(buf);
	pf->entries[pf->count].buf = buf;
	pf->entries[pf->count].handle = handle;
	pf->count++;
	return 0;
}

int drm_prime_lookup_buf_handle_locked(struct drm_prime_file *pf, struct drm_dma_buf *buf,
				       uint32_t *handle)
{
	for (uint32_t i = 0; i < pf->count; i++) {
		if (pf->entries[i].buf == buf) {
			*handle = pf->entries[i].handle;
			return 0;
		}
	}
	return -ENOENT;
}

struct drm_dma_buf *drm_prime_lookup_handle_locked(struct drm_prime_file *pf, uint32_t handle)
{
	for (uint32_t i = 0; i < pf->count; i++)
		if (pf->entries[i].handle == handle)
			return pf->entries[i].buf;
	return NULL;
}

void drm_prime_remove_buf_handle(struct drm_prime_file *pf, uint32_t handle)
{
	struct drm_dma_buf *buf = NULL;

	pthread_mutex_lock(&pf->lock);
	for (uint32_t i = 0; i < pf->count; i++) {
		if (pf->entries[i].handle == handle) {
			buf = pf->entries[i].buf;
			pf->entries[i] = pf->entries[--pf->count];
			break;
		}
	}
	pthread_mutex_unlock(&pf->lock);
	/* Outside the lock: the last reference may release the BO. */
	drm_dma_buf_put(buf);
}
