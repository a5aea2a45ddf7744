// SPDX-License-Identifier: MIT
/*
 * ttm_drm_mm: the memory types of the 2008 TTM uAPI (MM_INIT, _TAKEDOWN,
 * _LOCK, _UNLOCK, _INFO). LOCAL is fixed; every other type below
 * DRM_BO_MEM_TYPES gets a range manager at MM_INIT and loses it at
 * MM_TAKEDOWN, which never removes a manager a fault is using (faults hold
 * mm_lock for reading). MM_LOCK's UNLOCK_BM is accepted, there being no
 * separate buffer-manager lock; a type locked by MM_LOCK is skipped by
 * placements (-EBUSY when it was the only one allowed) instead of blocking
 * validates.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_drm_device.h>
#include <ttm/ttm_faults.h>
#include <ttm/ttm_global.h>
#include <ttm_drm.h>

#include "ttm_drm_priv.h"

/* A type MM_* may name: not LOCAL (fixed), below DRM_BO_MEM_TYPES. */
static bool ttm_drm_mm_type_ok(uint32_t mem_type)
{
	return mem_type > DRM_BO_MEM_LOCAL && mem_type < DRM_BO_MEM_TYPES;
}

/*
 * MM_INIT: a range manager for mem_type over p_size pages at p_offset.
 * -EINVAL for a bad magic/version, type, zero or overflowing range, or a
 * type that has a manager already.
 */
int ttm_drm_mm_init_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_mm_init_arg *arg = data;
	struct ttm_drm_mem_type *mt;
	struct ttm_range_manager *rman;
	int ret;

	if (arg->magic != DRM_BO_INIT_MAGIC || arg->major != DRM_BO_INIT_MAJOR ||
	    arg->minor > DRM_BO_INIT_MINOR || !ttm_drm_mm_type_ok(arg->mem_type))
		return -EINVAL;
	/* Page frame numbers are 32-bit in a ttm_place. */
	if (!arg->p_size || arg->p_size > UINT32_MAX || arg->p_offset > UINT32_MAX ||
	    arg->p_offset + arg->p_size > (1ull << 32))
		return -EINVAL;
	rman = fault_should_fail(&ttm_fault_resource_alloc, sizeof(*rman))
		   ? NULL
		   : calloc(1, sizeof(*rman));
	if (!rman)
		return -ENOMEM;
	pthread_rwlock_wrlock(&ddev->mm_lock);
	mt = &ddev->mem[arg->mem_type];
	if (mt->rman || ttm_manager_type(&ddev->bdev, arg->mem_type)) {
		ret = -EINVAL;
		goto err;
	}
	ret = ttm_range_manager_init(rman, arg->mem_type == DRM_BO_MEM_TT, arg->p_size);
	if (ret)
		goto err;
	ret = ttm_set_driver_manager(&ddev->bdev, arg->mem_type, &rman->manager);
	if (ret) {
		ttm_range_manager_fini(rman);
		goto err;
	}
	pthread_mutex_lock(&ddev->lock);
	mt->rman = rman;
	mt->p_offset = arg->p_offset;
	mt->p_size = arg->p_size;
	mt->locked = false;
	pthread_mutex_unlock(&ddev->lock);
	pthread_rwlock_unlock(&ddev->mm_lock);
	return 0;
err:
	pthread_rwlock_unlock(&ddev->mm_lock);
	free(rman);
	return ret;
}

/*
 * Evict every buffer of @mem_type. NO_MOVE buffers (and NO_EVICT ones with
 * @ignore_no_evict) lose their pin for the eviction and get it back where
 * they land; mapped buffers go too (their CPU views are invalidated and
 * fault them back in wherever they are next). mm_lock held for
 * writing.
 */
static int ttm_drm_mm_evict(struct ttm_drm_device *ddev, unsigned mem_type, bool ignore_no_evict)
{
	struct ttm_operation_ctx ctx = {.interruptible = true};
	struct ttm_drm_bo **bos = NULL;
	struct ttm_drm_object *obj;
	size_t n = 0, cap;
	uint32_t id = 0;
	int ret;

	pthread_mutex_lock(&ddev->lock);
	cap = ddev->objects.count;
	if (cap && !fault_should_fail(&ttm_fault_uapi_alloc, cap * sizeof(*bos)))
		bos = calloc(cap, sizeof(*bos));
	if (cap && !bos) {
		pthread_mutex_unlock(&ddev->lock);
		return -ENOMEM;
	}
	while ((obj = ttm_drm_idr_next(&ddev->objects, &id)) && n < cap) {
		if (obj->type == TTM_DRM_OBJECT_BO) {
			obj->ops->get(obj);
			bos[n++] = to_ttm_drm_bo(obj);
		}
		id++;
	}
	pthread_mutex_unlock(&ddev->lock);

	for (size_t i = 0; i < n; i++) {
		struct ttm_drm_bo *dbo = bos[i];
		bool unpin;

		while (ttm_bo_reserve(&dbo->tbo, false, false, NULL))
			;
		unpin = dbo->flag_pinned && dbo->tbo.resource &&
			dbo->tbo.resource->mem_type == mem_type &&
			(ignore_no_evict || !(dbo->flags & DRM_BO_FLAG_NO_EVICT));
		if (unpin) {
			ttm_bo_unpin(&dbo->tbo);
			dbo->flag_pinned = false;
		} else {
			ttm_bo_unreserve(&dbo->tbo);
			ttm_bo_put(&dbo->tbo);
			bos[i] = NULL;
			continue;
		}
		ttm_bo_unreserve(&dbo->tbo);
	}
	ret = ttm_bo_evict_mem_type(&ddev->bdev, mem_type, &ctx);
	for (size_t i = 0; i < n; i++) {
		struct ttm_drm_bo *dbo = bos[i];

		if (!dbo)
			continue;
		while (ttm_bo_reserve(&dbo->tbo, false, false, NULL))
			;
		ttm_drm_bo_flag_pin(dbo, dbo->flags);
		ttm_bo_unreserve(&dbo->tbo);
		ttm_bo_put(&dbo->tbo);
	}
	free(bos);
	return ret;
}

/*
 * MM_LOCK/MM_UNLOCK: the caller holds mm_lock for writing, so no validate
 * is placing into the type; ddev->lock still guards @mem for its readers.
 */
static void ttm_drm_mm_set_locked(struct ttm_drm_device *ddev, struct ttm_drm_mem_type *mt,
				  bool locked)
{
	pthread_mutex_lock(&ddev->lock);
	mt->locked = locked;
	pthread_mutex_unlock(&ddev->lock);
}

/* MM_TAKEDOWN: evict the type and remove its manager; -EBUSY if buffers stay. */
int ttm_drm_mm_takedown_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_mm_type_arg *arg = data;
	struct ttm_drm_mem_type *mt;
	int ret;

	if (!ttm_drm_mm_type_ok(arg->mem_type) || arg->lock_flags)
		return -EINVAL;
	pthread_rwlock_wrlock(&ddev->mm_lock);
	mt = &ddev->mem[arg->mem_type];
	if (!mt->rman) {
		ret = -EINVAL;
		goto out;
	}
	ret = ttm_drm_mm_evict(ddev, arg->mem_type, false);
	if (ret)
		goto out;
	ttm_set_driver_manager(&ddev->bdev, arg->mem_type, NULL);
	ret = ttm_range_manager_fini(mt->rman);
	if (ret) {
		ttm_set_driver_manager(&ddev->bdev, arg->mem_type, &mt->rman->manager);
		goto out;
	}
	free(mt->rman);
	pthread_mutex_lock(&ddev->lock);
	memset(mt, 0, sizeof(*mt));
	pthread_mutex_unlock(&ddev->lock);
out:
	pthread_rwlock_unlock(&ddev->mm_lock);
	return ret;
}

/*
 * MM_LOCK: evict every buffer of the type and keep new ones out until
 * MM_UNLOCK (the 2008 VT switch). lock_flags: UNLOCK_BM (accepted; there
 * is no separate buffer-manager lock here), IGNORE_NO_EVICT (evict NO_EVICT
 * buffers too). -EBUSY (and not locked) when buffers remain.
 */
int ttm_drm_mm_lock_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_mm_type_arg *arg = data;
	struct ttm_drm_mem_type *mt;
	int ret;

	if (!ttm_drm_mm_type_ok(arg->mem_type) ||
	    (arg->lock_flags & ~(DRM_BO_LOCK_UNLOCK_BM | DRM_BO_LOCK_IGNORE_NO_EVICT)))
		return -EINVAL;
	pthread_rwlock_wrlock(&ddev->mm_lock);
	mt = &ddev->mem[arg->mem_type];
	if (!mt->rman || mt->locked) {
		ret = -EINVAL;
		goto out;
	}
	ret = ttm_drm_mm_evict(ddev, arg->mem_type, arg->lock_flags & DRM_BO_LOCK_IGNORE_NO_EVICT);
	if (!ret)
		ttm_drm_mm_set_locked(ddev, mt, true);
out:
	pthread_rwlock_unlock(&ddev->mm_lock);
	return ret;
}

int ttm_drm_mm_unlock_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_mm_type_arg *arg = data;
	struct ttm_drm_mem_type *mt;
	int ret = 0;

	if (!ttm_drm_mm_type_ok(arg->mem_type) || (arg->lock_flags & ~DRM_BO_LOCK_UNLOCK_BM))
		return -EINVAL;
	pthread_rwlock_wrlock(&ddev->mm_lock);
	mt = &ddev->mem[arg->mem_type];
	if (!mt->rman || !mt->locked)
		ret = -EINVAL;
	else
		ttm_drm_mm_set_locked(ddev, mt, false);
	pthread_rwlock_unlock(&ddev->mm_lock);
	return ret;
}

/* MM_INFO: pages of a type (LOCAL: 0, it has no fixed size). */
int ttm_drm_mm_info_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_mm_info_arg *arg = data;
	int ret = 0;

	if (arg->mem_type >= DRM_BO_MEM_TYPES || arg->pad64)
		return -EINVAL;
	if (arg->mem_type == DRM_BO_MEM_LOCAL) {
		arg->p_size = 0;
		return 0;
	}
	pthread_mutex_lock(&ddev->lock);
	if (ddev->mem[arg->mem_type].rman)
		arg->p_size = ddev->mem[arg->mem_type].p_size;
	else
		ret = -EINVAL;
	pthread_mutex_unlock(&ddev->lock);
	return ret;
}
