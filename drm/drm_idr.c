// SPDX-License-Identifier: MIT
/* The lowest-free handle table; see drmcore/drm_idr.h. */
#include <drmcore/drm_idr.h>
#include <drmcore/drm_faults.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DRM_IDR_MAX 0x7fffffffu

void drm_idr_init(struct drm_idr *idr)
{
	memset(idr, 0, sizeof(*idr));
	idr->hint = 1;
}

void drm_idr_fini(struct drm_idr *idr)
{
	free(idr->slots);
	drm_idr_init(idr);
}

int drm_idr_alloc(struct drm_idr *idr, void *ptr)
{
	uint32_t h;

	if (!ptr)
		return -EINVAL;
	for (h = idr->hint; h < idr->size && idr->slots[h]; h++)
		;
	if (h >= idr->size) {
		uint32_t nsize = idr->size ? idr->size * 2 : 16;
		void **n;

		if (h > DRM_IDR_MAX)
			return -ENOSPC;
		if (nsize > DRM_IDR_MAX + 1u)
			nsize = DRM_IDR_MAX + 1u;
		if (fault_should_fail(&drm_fault_idr_alloc, nsize * sizeof(void *)))
			return -ENOMEM;
		n = realloc(idr->slots, (size_t)nsize * sizeof(void *));
		if (!n)
			return -ENOMEM;
		memset(n + idr->size, 0, (size_t)(nsize - idr->size) * sizeof(void *));
		idr->slots = n;
		idr->size = nsize;
	}
	idr->slots[h] = ptr;
	idr->count++;
	idr->hint = h + 1;
	return (int)h;
}

void *drm_idr_find(const struct drm_idr *idr, uint32_t handle)
{
	if (!handle || handle >= idr->size)
		return NULL;
	return idr->slots[handle];
}

void *drm_idr_remove(struct drm_idr *idr, uint32_t handle)
{
	void *p = drm_idr_find(idr, handle);

	if (!p)
		return NULL;
	idr->slots[handle] = NULL;
	idr->count--;
	if (handle < idr->hint)
		idr->hint = handle;
	return p;
}

void *drm_idr_replace(struct drm_idr *idr, uint32_t handle, void *ptr)
{
	void *p = drm_idr_find(idr, handle);

	if (p && ptr)
		idr->slots[handle] = ptr;
	return p;
}

int drm_idr_for_each(struct drm_idr *idr, int (*fn)(uint32_t handle, void *ptr, void *data),
		     void *data)
{
	for (uint32_t h = 1; h < idr->size; h++) {
		int ret;

		if (!idr->slots[h])
			continue;
		ret = fn(h, idr->slots[h], data);
		if (ret)
			return ret;
	}
	return 0;
}
