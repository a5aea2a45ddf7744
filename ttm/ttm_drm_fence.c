// SPDX-License-Identifier: MIT
/*
 * ttm_drm_fence: the fence objects of the 2008 TTM uAPI and their requests
 * (FENCE_CREATE, _REFERENCE, _UNREFERENCE, _SIGNALED, _FLUSH, _WAIT, _EMIT,
 * _BUFFERS). Each handler checks every field of its argument before it
 * changes anything: a nonzero pad, an unknown flag, an unknown or invisible
 * handle, a fence class the driver does not have or a type outside its
 * mask is -EINVAL with no state changed.
 *
 * Fences: a fence object wraps the driver's dma_fence; dma_fence has one
 * signalled state, so all types of a fence signal together: @signaled is
 * either 0 or the fence's whole type mask.
 *
 * FENCE_WAIT gives up with -EBUSY after 3 s, as 2008's lockup check did.
 */
#include <errno.h>
#include <stdlib.h>

#include <ttm/dma_resv.h>
#include <ttm/ttm_bo.h>
#include <ttm/ttm_drm_device.h>
#include <ttm/ttm_faults.h>
#include <ttm_drm.h>

#include "ttm_drm_priv.h"

#define TTM_DRM_FENCE_FLAGS                                                                        \
	(DRM_FENCE_FLAG_EMIT | DRM_FENCE_FLAG_SHAREABLE | DRM_FENCE_FLAG_WAIT_LAZY |               \
	 DRM_FENCE_FLAG_NO_USER)
/* A lost interrupt must not hang a client forever: 2008 gave up after 3 s. */
#define TTM_DRM_FENCE_TIMEOUT_NS (3ll * 1000 * 1000 * 1000)

static bool ttm_drm_pads_zero(const uint64_t *pad, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (pad[i])
			return false;
	return true;
}

static void ttm_drm_fence_obj_get(struct ttm_drm_object *obj)
{
	atomic_fetch_add(&to_ttm_drm_fence(obj)->refcount, 1);
}

static void ttm_drm_fence_obj_put(struct ttm_drm_object *obj)
{
	struct ttm_drm_fence *f = to_ttm_drm_fence(obj);

	if (atomic_fetch_sub(&f->refcount, 1) != 1)
		return;
	dma_fence_put(f->fence);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

static const struct ttm_drm_object_ops ttm_drm_fence_obj_ops = {
    .get = ttm_drm_fence_obj_get,
    .put = ttm_drm_fence_obj_put,
};

uint32_t ttm_drm_valid_fence_types(struct ttm_drm_device *ddev)
{
	return DRM_FENCE_TYPE_EXE | ddev->driver->fence_types;
}

bool ttm_drm_fence_class_ok(struct ttm_drm_device *ddev, uint32_t fence_class)
{
	return fence_class < ddev->driver->num_fence_classes;
}

static bool ttm_drm_fence_type_ok(struct ttm_drm_device *ddev, uint32_t type)
{
	return type && !(type & ~ttm_drm_valid_fence_types(ddev));
}

/* The common checks of struct drm_fence_arg: pads and known flags. */
static bool ttm_drm_fence_arg_ok(const struct drm_fence_arg *arg)
{
	return !arg->pad64 && ttm_drm_pads_zero(arg->expand_pad, 2) &&
	       !(arg->flags & ~TTM_DRM_FENCE_FLAGS);
}

static void ttm_drm_fence_fill(struct ttm_drm_fence *f, struct drm_fence_arg *arg)
{
	struct dma_fence *fence;

	pthread_mutex_lock(&f->lock);
	fence = dma_fence_get(f->fence);
	arg->handle = f->base.handle;
	arg->fence_class = f->fence_class;
	arg->type = f->type;
	arg->flags = f->flags;
	arg->sequence = f->sequence;
	pthread_mutex_unlock(&f->lock);
	arg->signaled = 0;
	arg->error = 0;
	if (fence && dma_fence_is_signaled(fence)) {
		int status = dma_fence_get_status(fence);

		arg->signaled = arg->type;
		arg->error = status < 0 ? (uint32_t)-status : 0;
	}
	dma_fence_put(fence);
}

/* Emit on the driver and install the new dma_fence in @f. */
static int ttm_drm_fence_emit(struct ttm_drm_device *ddev, struct ttm_drm_fence *f,
			      uint32_t fence_class, uint32_t type, uint32_t flags)
{
	struct dma_fence *fence, *old;
	uint32_t seq = 0;

	fence = ddev->driver->fence_emit(ddev, fence_class, type, &seq);
	if (!fence)
		return -ENOMEM;
	pthread_mutex_lock(&f->lock);
	old = f->fence;
	f->fence = fence;
	f->fence_class = fence_class;
	f->type = type;
	f->flags = flags & ~(DRM_FENCE_FLAG_EMIT | DRM_FENCE_FLAG_NO_USER);
	f->sequence = seq;
	pthread_mutex_unlock(&f->lock);
	dma_fence_put(old);
	return 0;
}

struct ttm_drm_fence *ttm_drm_fence_alloc(uint32_t fence_class, uint32_t type, uint32_t flags)
{
	struct ttm_drm_fence *f;

	if (fault_should_fail(&ttm_fault_uapi_alloc, sizeof(*f)))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->base.ops = &ttm_drm_fence_obj_ops;
	f->base.type = TTM_DRM_OBJECT_FENCE;
	f->base.shareable = flags & DRM_FENCE_FLAG_SHAREABLE;
	atomic_init(&f->refcount, 1);
	pthread_mutex_init(&f->lock, NULL);
	f->fence_class = fence_class;
	f->type = type;
	f->flags = flags;
	return f;
}

/* FENCE_CREATE and FENCE_EMIT take the same class, type and flags. */
static bool ttm_drm_fence_emit_arg_ok(struct ttm_drm_device *ddev, const struct drm_fence_arg *arg)
{
	return ttm_drm_fence_arg_ok(arg) && !(arg->flags & DRM_FENCE_FLAG_NO_USER) &&
	       ttm_drm_fence_class_ok(ddev, arg->fence_class) &&
	       ttm_drm_fence_type_ok(ddev, arg->type);
}

/*
 * FENCE_CREATE: in fence_class, type, flags (EMIT, SHAREABLE, WAIT_LAZY);
 * out handle and state. Without EMIT the fence exists unemitted until
 * FENCE_EMIT.
 */
int ttm_drm_fence_create_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_fence_arg *arg = data;
	struct ttm_drm_fence *f;
	int ret;

	if (!ttm_drm_fence_emit_arg_ok(ddev, arg))
		return -EINVAL;
	f = ttm_drm_fence_alloc(arg->fence_class, arg->type,
				arg->flags & ~(DRM_FENCE_FLAG_EMIT | DRM_FENCE_FLAG_NO_USER));
	if (!f)
		return -ENOMEM;
	if (arg->flags & DRM_FENCE_FLAG_EMIT) {
		ret = ttm_drm_fence_emit(ddev, f, arg->fence_class, arg->type, arg->flags);
		if (ret)
			goto err;
	}
	ret = ttm_drm_object_add(file, &f->base);
	if (ret)
		goto err;
	ttm_drm_fence_fill(f, arg);
	return 0;
err:
	ttm_drm_fence_obj_put(&f->base);
	return ret;
}

/* The fence named by @arg->handle, visible to @file, with a reference. */
static struct ttm_drm_fence *ttm_drm_fence_lookup(struct ttm_drm_file *file,
						  const struct drm_fence_arg *arg)
{
	struct ttm_drm_object *obj;

	obj = ttm_drm_object_lookup(file, arg->handle, TTM_DRM_OBJECT_FENCE);
	return obj ? to_ttm_drm_fence(obj) : NULL;
}

/* FENCE_REFERENCE: another reference (a shareable fence of another client). */
int ttm_drm_fence_reference_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_fence_arg *arg = data;
	struct ttm_drm_object *obj;
	int ret;

	if (!ttm_drm_fence_arg_ok(arg))
		return -EINVAL;
	ret = ttm_drm_object_reference(file, arg->handle, TTM_DRM_OBJECT_FENCE, &obj);
	if (ret)
		return ret;
	ttm_drm_fence_fill(to_ttm_drm_fence(obj), arg);
	ttm_drm_object_put(obj);
	return 0;
}

int ttm_drm_fence_unreference_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_fence_arg *arg = data;

	if (!ttm_drm_fence_arg_ok(arg))
		return -EINVAL;
	return ttm_drm_object_unreference(file, arg->handle, TTM_DRM_OBJECT_FENCE);
}

int ttm_drm_fence_signaled_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_fence_arg *arg = data;
	struct ttm_drm_fence *f;

	if (!ttm_drm_fence_arg_ok(arg))
		return -EINVAL;
	f = ttm_drm_fence_lookup(file, arg);
	if (!f)
		return -EINVAL;
	ttm_drm_fence_fill(f, arg);
	ttm_drm_fence_obj_put(&f->base);
	return 0;
}

/*
 * The emitted dma_fence of @f with a reference, after checking that the
 * @type asked for (FLUSH/WAIT) is part of the fence. -EINVAL otherwise.
 */
static int ttm_drm_fence_emitted(struct ttm_drm_fence *f, uint32_t type, struct dma_fence **out,
				 uint32_t *fence_class)
{
	int ret = 0;

	pthread_mutex_lock(&f->lock);
	if (!f->fence || !type || (type & ~f->type))
		ret = -EINVAL;
	else
		*out = dma_fence_get(f->fence);
	*fence_class = f->fence_class;
	pthread_mutex_unlock(&f->lock);
	return ret;
}

/*
 * FLUSH and WAIT: look up @arg->handle, check @arg->type against the
 * emitted fence and ask the driver to flush that type unless the fence has
 * signaled. On 0 the caller owns a reference on *@fp and on *@fence.
 */
static int ttm_drm_fence_lookup_flush(struct ttm_drm_file *file, const struct drm_fence_arg *arg,
				      struct ttm_drm_fence **fp, struct dma_fence **fence)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct ttm_drm_fence *f;
	uint32_t fence_class;
	int ret;

	f = ttm_drm_fence_lookup(file, arg);
	if (!f)
		return -EINVAL;
	ret = ttm_drm_fence_emitted(f, arg->type, fence, &fence_class);
	if (ret) {
		ttm_drm_fence_obj_put(&f->base);
		return ret;
	}
	if (!dma_fence_is_signaled(*fence) && ddev->driver->fence_flush)
		ddev->driver->fence_flush(ddev, fence_class, arg->type);
	*fp = f;
	return 0;
}

/* FENCE_FLUSH: in handle, type (a subset of the fence's types). */
int ttm_drm_fence_flush_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_fence_arg *arg = data;
	struct dma_fence *fence;
	struct ttm_drm_fence *f;
	int ret;

	if (!ttm_drm_fence_arg_ok(arg))
		return -EINVAL;
	ret = ttm_drm_fence_lookup_flush(file, arg, &f, &fence);
	if (ret)
		return ret;
	dma_fence_put(fence);
	ttm_drm_fence_fill(f, arg);
	ttm_drm_fence_obj_put(&f->base);
	return 0;
}

/*
 * FENCE_WAIT: in handle, type, flags (WAIT_LAZY: no difference here, every
 * wait sleeps). Flushes first as 2008 did. Return: 0 (arg->error carries a
 * fence error); -EBUSY after 3 s without signal; -EINTR; -EINVAL (also for
 * an unemitted fence).
 */
int ttm_drm_fence_wait_ioctl(struct ttm_drm_file *file, void *data)
{
	struct drm_fence_arg *arg = data;
	struct dma_fence *fence;
	struct ttm_drm_fence *f;
	int64_t left;
	int ret;

	if (!ttm_drm_fence_arg_ok(arg) || (arg->flags & ~DRM_FENCE_FLAG_WAIT_LAZY))
		return -EINVAL;
	ret = ttm_drm_fence_lookup_flush(file, arg, &f, &fence);
	if (ret)
		return ret;
	left = dma_fence_wait_timeout(fence, true, TTM_DRM_FENCE_TIMEOUT_NS);
	dma_fence_put(fence);
	if (left < 0)
		ret = (int)left;
	else if (left == 0)
		ret = -EBUSY;
	else
		ttm_drm_fence_fill(f, arg);
	ttm_drm_fence_obj_put(&f->base);
	return ret;
}

/* FENCE_EMIT: (re-)emit the fence object with a class, type and flags. */
int ttm_drm_fence_emit_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_fence_arg *arg = data;
	struct ttm_drm_fence *f;
	int ret;

	if (!ttm_drm_fence_emit_arg_ok(ddev, arg))
		return -EINVAL;
	f = ttm_drm_fence_lookup(file, arg);
	if (!f)
		return -EINVAL;
	if ((arg->flags & DRM_FENCE_FLAG_SHAREABLE) && !f->base.shareable)
		ret = -EINVAL; /* sharing is decided at creation */
	else
		ret = ttm_drm_fence_emit(ddev, f, arg->fence_class, arg->type,
					 arg->flags |
					     (f->base.shareable ? DRM_FENCE_FLAG_SHAREABLE : 0));
	if (!ret)
		ttm_drm_fence_fill(f, arg);
	ttm_drm_fence_obj_put(&f->base);
	return ret;
}

/*
 * FENCE_BUFFERS: in fence_class, flags (NO_USER: no fence object, only the
 * state; SHAREABLE); emits one fence whose types are the union of the
 * client's unfenced buffers of that class, attaches it to each (WRITE usage
 * for buffers validated with WRITE access, else READ) and empties them from
 * the list. With no unfenced buffer an EXE fence is still emitted.
 */
int ttm_drm_fence_buffers_ioctl(struct ttm_drm_file *file, void *data)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct drm_fence_arg *arg = data;
	struct ttm_drm_bo *dbo, *tmp;
	struct ttm_drm_fence *f;
	struct list_head list;
	uint32_t type = 0;
	bool no_user;
	int ret;

	if (!ttm_drm_fence_arg_ok(arg) || (arg->flags & DRM_FENCE_FLAG_EMIT) ||
	    !ttm_drm_fence_class_ok(ddev, arg->fence_class))
		return -EINVAL;
	f = ttm_drm_fence_alloc(arg->fence_class, DRM_FENCE_TYPE_EXE, arg->flags);
	if (!f)
		return -ENOMEM;

	INIT_LIST_HEAD(&list);
	pthread_mutex_lock(&ddev->lock);
	list_for_each_entry_safe (dbo, tmp, &file->unfenced, struct ttm_drm_bo, unfenced) {
		if (dbo->fence_class != arg->fence_class)
			continue;
		list_move_tail(&dbo->unfenced, &list);
	}
	pthread_mutex_unlock(&ddev->lock);

	/* Make room for the fence in every buffer first: after emit nothing may fail. */
	list_for_each_entry (dbo, &list, struct ttm_drm_bo, unfenced) {
		ret = ttm_bo_reserve(&dbo->tbo, true, false, NULL);
		if (!ret) {
			ret = dma_resv_reserve_fences(dbo->tbo.resv, 1);
			type |= dbo->fence_type;
			ttm_bo_unreserve(&dbo->tbo);
		}
		if (ret)
			goto err_restore;
	}
	if (!type)
		type = DRM_FENCE_TYPE_EXE;
	ret = ttm_drm_fence_emit(ddev, f, arg->fence_class, type, arg->flags);
	if (ret)
		goto err_restore;
	no_user = arg->flags & DRM_FENCE_FLAG_NO_USER;
	if (!no_user) {
		ret = ttm_drm_object_add(file, &f->base);
		/* On failure still attach below so the buffers are fenced; report it. */
		if (ret)
			no_user = true;
	}

	list_for_each_entry_safe (dbo, tmp, &list, struct ttm_drm_bo, unfenced) {
		struct ttm_buffer_object *tbo = &dbo->tbo;
		enum dma_resv_usage usage;

		while (ttm_bo_reserve(tbo, false, false, NULL))
			;
		usage = dbo->flags & DRM_BO_FLAG_WRITE ? DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ;
		/*
		 * The slot reserved above was taken meanwhile and no new one
		 * could be had: the buffer cannot carry the fence, so it must be
		 * idle before it is reported fenced. Ask the hardware to hurry.
		 */
		if (dma_resv_add_fence(tbo->resv, f->fence, usage)) {
			if (ddev->driver->fence_flush)
				ddev->driver->fence_flush(ddev, arg->fence_class, type);
			dma_fence_wait(f->fence, false);
		}
		dbo->fence_flags = type;
		ttm_bo_unreserve(tbo);
		pthread_mutex_lock(&ddev->lock);
		list_del_init(&dbo->unfenced);
		dbo->unfenced_file = NULL;
		pthread_mutex_unlock(&ddev->lock);
		ttm_bo_put(tbo);
	}
	ttm_drm_fence_fill(f, arg);
	if (no_user) {
		arg->handle = 0;
		ttm_drm_fence_obj_put(&f->base);
	}
	return ret;

err_restore:
	pthread_mutex_lock(&ddev->lock);
	list_for_each_entry_safe (dbo, tmp, &list, struct ttm_drm_bo, unfenced) {
		list_move_tail(&dbo->unfenced, &file->unfenced);
	}
	pthread_mutex_unlock(&ddev->lock);
	ttm_drm_fence_obj_put(&f->base);
	return ret;
}
