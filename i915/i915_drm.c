// SPDX-License-Identifier: MIT
/*
 * i915_drm: the driver's side of the 2008 TTM uAPI: fence hooks (one
 * class, the render ring; a fence is a render request), and the driver
 * commands that run batches: the 2007 superioctl DRM_I915_EXECBUFFER and
 * execbuffer2. Both translate user handles and relocation formats into
 * struct i915_execbuffer and run it through i915_gem_execbuffer(), which
 * reserves everything under one ww ticket and leaves nothing changed on
 * failure; results go back to the caller only after it succeeded, so a
 * failed call leaves the argument as it was.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <drmcore/drm_user.h>
#include <i915/i915_faults.h>
#include <i915/i915_gem.h>
#include <i915/i915_uapi.h>
#include <i915_drm.h>

#include "i915_backend.h"
#include "i915_priv.h"

/* Bounds that keep a hostile list from making us allocate without end. */
#define I915_DRM_MAX_BUFFERS 4096u
#define I915_DRM_MAX_RELOCS (1u << 20)

static struct i915_device *ddev_to_i915(struct ttm_drm_device *ddev)
{
	return container_of(ddev, struct i915_device, drm);
}

/* --- fence hooks --- */

static struct dma_fence *i915_drm_fence_emit(struct ttm_drm_device *ddev, uint32_t fence_class,
					     uint32_t type, uint32_t *sequence)
{
	struct i915_engine *rcs = i915_engine_get(ddev_to_i915(ddev), I915_ENGINE_RCS);
	struct dma_fence *fence = NULL;

	/* The uAPI checked the class; every type is covered by completion. */
	(void)fence_class;
	(void)type;
	if (i915_request_submit(rcs, NULL, NULL, 0, 0, &fence))
		return NULL;
	*sequence = to_i915_request(fence)->seqno;
	return fence;
}

static uint32_t i915_drm_fence_type(struct ttm_drm_device *ddev, uint64_t access)
{
	(void)ddev;
	/* 2008: buffers the GPU reads or writes need the flush type too. */
	if (access & (DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE))
		return DRM_FENCE_TYPE_EXE | DRM_I915_FENCE_TYPE_RW;
	return DRM_FENCE_TYPE_EXE;
}

/*
 * A fence object of @file over @fence, as FENCE_CREATE would have made
 * one, so FENCE_WAIT/SIGNALED/UNREFERENCE work on it. Fills @arg.
 */
static int i915_drm_fence_object(struct ttm_drm_file *file, struct dma_fence *fence, uint32_t flags,
				 struct drm_fence_arg *arg)
{
	uint32_t type = DRM_FENCE_TYPE_EXE | DRM_I915_FENCE_TYPE_RW;
	uint32_t seqno = to_i915_request(fence) ? to_i915_request(fence)->seqno : 0;
	struct ttm_drm_fence *f;
	uint32_t handle = 0;
	int ret;

	if (!(flags & DRM_FENCE_FLAG_NO_USER)) {
		f = ttm_drm_fence_alloc(DRM_I915_FENCE_CLASS_ACCEL, type,
					flags & ~DRM_FENCE_FLAG_NO_USER);
		if (!f)
			return -ENOMEM;
		f->fence = dma_fence_get(fence);
		f->sequence = seqno;
		ret = ttm_drm_object_add(file, &f->base);
		if (ret) {
			ttm_drm_object_put(&f->base);
			return ret;
		}
		handle = f->base.handle;
	}
	arg->handle = handle;
	arg->fence_class = DRM_I915_FENCE_CLASS_ACCEL;
	arg->type = type;
	arg->flags = flags;
	arg->signaled = dma_fence_is_signaled(fence) ? type : 0;
	arg->error = dma_fence_get_status(fence) < 0 ? (uint32_t)-dma_fence_get_status(fence) : 0;
	arg->sequence = seqno;
	return 0;
}

/* --- shared by both forms --- */

/**
 * struct i915_drm_eb - one uAPI execbuffer call translated for the core.
 * @eb: the core's arguments; its objects point at the uAPI buffers.
 * @objs: a container reference per buffer (from the handle lookup), so no
 *	buffer is freed under the call when its client drops the handle.
 * @relocs: every relocation of the call, converted; @nrelocs entries.
 */
struct i915_drm_eb {
	struct i915_execbuffer eb;
	struct ttm_drm_object **objs;
	struct i915_exec_reloc *relocs;
	uint32_t nrelocs;
};

static int i915_drm_eb_alloc(struct i915_drm_eb *d, uint32_t count, uint64_t nrelocs)
{
	memset(d, 0, sizeof(*d));
	if (nrelocs > I915_DRM_MAX_RELOCS)
		return -EINVAL;
	if (fault_should_fail(&i915_fault_exec_alloc, count))
		return -ENOMEM;
	d->eb.objects = calloc(count, sizeof(*d->eb.objects));
	d->objs = calloc(count, sizeof(*d->objs));
	d->relocs = nrelocs ? calloc(nrelocs, sizeof(*d->relocs)) : NULL;
	if (!d->eb.objects || !d->objs || (nrelocs && !d->relocs))
		return -ENOMEM;
	d->eb.count = count;
	d->nrelocs = (uint32_t)nrelocs;
	return 0;
}

static void i915_drm_eb_free(struct i915_drm_eb *d)
{
	for (uint32_t i = 0; d->objs && i < d->eb.count; i++)
		if (d->objs[i])
			ttm_drm_object_put(d->objs[i]);
	free(d->objs);
	free(d->eb.objects);
	free(d->relocs);
}

static int i915_drm_eb_lookup(struct ttm_drm_file *file, struct i915_drm_eb *d, uint32_t i,
			      uint32_t handle)
{
	struct ttm_drm_object *obj = ttm_drm_object_lookup(file, handle, TTM_DRM_OBJECT_BO);

	if (!obj)
		return -EINVAL;
	d->objs[i] = obj;
	d->eb.objects[i].bo = &to_ttm_drm_bo(obj)->tbo;
	return 0;
}

/*
 * After success: the buffers are in the GGTT now and carry the call's
 * fence; say so in what BO_INFO reports.
 */
static void i915_drm_eb_update_flags(struct i915_drm_eb *d)
{
	for (uint32_t i = 0; i < d->eb.count; i++) {
		struct ttm_drm_bo *dbo = to_ttm_drm_bo(d->objs[i]);
		struct ttm_resource *res;

		if (ttm_bo_reserve(&dbo->tbo, false, false, NULL))
			continue;
		res = dbo->tbo.resource;
		if (res && (res->mem_type == TTM_PL_TT || res->mem_type == TTM_PL_SYSTEM))
			dbo->flags = (dbo->flags & ~DRM_BO_MASK_MEM) |
				     (res->mem_type == TTM_PL_TT ? DRM_BO_FLAG_MEM_TT
								 : DRM_BO_FLAG_MEM_LOCAL);
		dbo->fence_flags = DRM_FENCE_TYPE_EXE | DRM_I915_FENCE_TYPE_RW;
		ttm_bo_unreserve(&dbo->tbo);
	}
}

/* --- form (1): the 2007 superioctl --- */

#define I915_DRM_FENCE_FLAGS                                                                       \
	(DRM_FENCE_FLAG_SHAREABLE | DRM_FENCE_FLAG_WAIT_LAZY | DRM_FENCE_FLAG_NO_USER |            \
	 DRM_I915_FENCE_FLAG_FLUSHED | DRM_FENCE_FLAG_EMIT)
#define I915_DRM_OP_HINTS                                                                          \
	(DRM_BO_HINT_DONT_BLOCK | DRM_BO_HINT_DONT_FENCE | DRM_BO_HINT_WAIT_LAZY |                 \
	 DRM_BO_HINT_PRESUMED_OFFSET)

/* Relocations copied in per step (a stack buffer), and cliprects likewise. */
#define I915_DRM_COPY_CHUNK 64u

static const void *i915_drm_user_ptr(uint64_t addr)
{
	return (const void *)(uintptr_t)addr;
}

/* A validate-list entry by buffer handle, for the 2008 relocation targets. */
struct i915_drm_handle_index {
	uint32_t handle;
	uint32_t index;
};

static int i915_drm_handle_cmp(const void *a, const void *b)
{
	const struct i915_drm_handle_index *x = a, *y = b;

	if (x->handle != y->handle)
		return x->handle < y->handle ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The first list index of @handle in @map (@n entries, sorted), or -1. */
static int64_t i915_drm_handle_find(const struct i915_drm_handle_index *map, uint32_t n,
				    uint32_t handle)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (map[mid].handle < handle)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && map[lo].handle == handle ? (int64_t)map[lo].index : -1;
}

/*
 * Walk one buffer's chain of relocation blocks through the checked user
 * copy: count them (@out NULL: headers only), or convert them into @out
 * (room for @max), resolving each target handle in @map (@num_buffers
 * entries). A type-0 relocation patches 32 bits, the address width of
 * 2008 parts. Return: 0; -EINVAL (bad block, unknown handle); -EFAULT.
 */
static int i915_drm_reloc_chain(struct ttm_drm_device *ddev, uint64_t ptr,
				const struct i915_drm_handle_index *map, uint32_t num_buffers,
				uint32_t *count, struct i915_exec_reloc *out, uint64_t max)
{
	uint32_t n = 0, blocks = 0;
	int ret;

	while (ptr) {
		uint32_t hdr[I915_RELOC_HEADER];
		uint64_t next;

		if ((ptr & 3) || ++blocks > I915_DRM_MAX_BUFFERS)
			return -EINVAL;
		ret = ttm_drm_copy_from_user(ddev, hdr, i915_drm_user_ptr(ptr), sizeof(hdr));
		if (ret)
			return ret;
		if (hdr[1] != I915_RELOC_TYPE_0 || hdr[0] > max - n)
			return -EINVAL;
		for (uint32_t r = 0; out && r < hdr[0]; r += I915_DRM_COPY_CHUNK) {
			uint32_t e[I915_DRM_COPY_CHUNK][I915_RELOC0_STRIDE];
			uint32_t k =
			    hdr[0] - r < I915_DRM_COPY_CHUNK ? hdr[0] - r : I915_DRM_COPY_CHUNK;
			uint64_t at = ptr + sizeof(hdr) + (uint64_t)r * sizeof(e[0]);

			ret = ttm_drm_copy_from_user(ddev, e, i915_drm_user_ptr(at),
						     k * sizeof(e[0]));
			if (ret)
				return ret;
			for (uint32_t j = 0; j < k; j++) {
				int64_t target = i915_drm_handle_find(map, num_buffers, e[j][2]);

				if (target < 0 || e[j][3])
					return -EINVAL;
				/* No presumed offset in 2007: always written. */
				out[n + r + j] = (struct i915_exec_reloc){
				    .target = (uint32_t)target,
				    .delta = e[j][1],
				    .offset = e[j][0],
				    .presumed_offset = UINT64_MAX,
				    .flags = I915_EXEC_RELOC_32,
				};
			}
		}
		n += hdr[0];
		memcpy(&next, &hdr[2], sizeof(next));
		ptr = next;
	}
	*count = n;
	return 0;
}

/*
 * The cliprects of a 2008 batch: the driver has no display and ignores
 * them, as a headless i915 would, but, as the 2008 kernel verified the
 * area, they must be readable. Return: 0; -EINVAL (negative count); -EFAULT.
 */
static int i915_drm_check_cliprects(struct ttm_drm_device *ddev,
				    const struct drm_i915_batchbuffer *batch)
{
	const char *p = (const char *)batch->cliprects;

	if (batch->num_cliprects < 0)
		return -EINVAL;
	for (uint32_t r = 0; r < (uint32_t)batch->num_cliprects; r += I915_DRM_COPY_CHUNK) {
		struct drm_clip_rect rects[I915_DRM_COPY_CHUNK];
		uint32_t k = (uint32_t)batch->num_cliprects - r;
		int ret;

		if (k > I915_DRM_COPY_CHUNK)
			k = I915_DRM_COPY_CHUNK;
		if (!p)
			return -EFAULT;
		ret = ttm_drm_copy_from_user(ddev, rects, p + (size_t)r * sizeof(rects[0]),
					     k * sizeof(rects[0]));
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The 2007 superioctl. Every user memory it reads (the op list, the
 * relocation blocks, the cliprects) is read through the driver's checked
 * copy, all of it before the batch is submitted: a bad pointer is -EFAULT
 * with nothing changed. The replies are written back after the batch ran.
 */
static int i915_drm_execbuffer(struct ttm_drm_file *file, struct drm_i915_execbuffer *arg)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct i915_device *i915 = ddev_to_i915(ddev);
	struct drm_i915_op_arg *ops = NULL;
	struct i915_drm_handle_index *map = NULL;
	uint64_t *uops = NULL;
	uint32_t n = arg->num_buffers;
	uint64_t nrelocs = 0, next = arg->ops_list;
	struct i915_drm_eb d;
	int ret;

	memset(&d, 0, sizeof(d));
	if (!n || n > I915_DRM_MAX_BUFFERS || !arg->ops_list || arg->context ||
	    arg->batch.used <= 0 || (arg->fence_arg.flags & ~I915_DRM_FENCE_FLAGS) ||
	    arg->fence_arg.fence_class != DRM_I915_FENCE_CLASS_ACCEL)
		return -EINVAL;
	ret = i915_drm_check_cliprects(ddev, &arg->batch);
	if (ret)
		return ret;
	if (fault_should_fail(&i915_fault_exec_alloc, n))
		return -ENOMEM;
	ops = calloc(n, sizeof(*ops));
	uops = calloc(n, sizeof(*uops));
	map = calloc(n, sizeof(*map));
	if (!ops || !uops || !map) {
		ret = -ENOMEM;
		goto out_ops;
	}
	/* First pass: the shape of the list, before anything is taken. */
	for (uint32_t i = 0; i < n; i++) {
		struct drm_i915_op_arg *op = &ops[i];
		const struct drm_bo_info_req *req = &op->d.req.bo_req;
		uint32_t cnt;

		ret = -EINVAL;
		if (!next || (next & 7))
			goto out_ops;
		ret = ttm_drm_copy_from_user(ddev, op, i915_drm_user_ptr(next), sizeof(*op));
		if (ret)
			goto out_ops;
		ret = -EINVAL;
		if (op->d.req.op != drm_bo_validate || op->pad64 || req->pad64 ||
		    (req->hint & ~I915_DRM_OP_HINTS) ||
		    req->fence_class != DRM_I915_FENCE_CLASS_ACCEL)
			goto out_ops;
		ret = i915_drm_reloc_chain(ddev, op->reloc_ptr, NULL, 0, &cnt, NULL,
					   I915_DRM_MAX_RELOCS - nrelocs);
		if (ret)
			goto out_ops;
		nrelocs += cnt;
		uops[i] = next;
		map[i] = (struct i915_drm_handle_index){.handle = req->handle, .index = i};
		next = op->next;
	}
	if (next) {
		ret = -EINVAL; /* more entries than num_buffers says */
		goto out_ops;
	}
	qsort(map, n, sizeof(*map), i915_drm_handle_cmp);
	ret = i915_drm_eb_alloc(&d, n, nrelocs);
	if (ret)
		goto out_eb;
	nrelocs = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct drm_bo_info_req *req = &ops[i].d.req.bo_req;
		struct i915_exec_object *eo = &d.eb.objects[i];
		uint32_t cnt;

		ret = i915_drm_eb_lookup(file, &d, i, req->handle);
		if (ret)
			goto out_eb;
		if (req->flags & req->mask & DRM_BO_FLAG_WRITE)
			eo->flags |= EXEC_OBJECT_WRITE;
		if (req->flags & req->mask & DRM_BO_FLAG_MAPPABLE)
			eo->flags |= EXEC_OBJECT_NEEDS_MAPPABLE;
		/* Bounded by what the first pass counted, should the list change. */
		ret = i915_drm_reloc_chain(ddev, ops[i].reloc_ptr, map, n, &cnt, d.relocs + nrelocs,
					   d.nrelocs - nrelocs);
		if (ret)
			goto out_eb;
		eo->relocs = cnt ? d.relocs + nrelocs : NULL;
		eo->nreloc = cnt;
		nrelocs += cnt;
	}
	d.eb.batch_len = (uint32_t)arg->batch.used;
	ret = i915_gem_execbuffer(i915, &d.eb);
	if (ret == -EINTR || ret == -ERESTART)
		ret = -EAGAIN; /* nothing happened: the 2008 client calls again */
	if (ret)
		goto out_eb;
	ret = i915_drm_fence_object(file, d.eb.out_fence, arg->fence_arg.flags, &arg->fence_arg);
	if (ret) {
		/*
		 * The batch runs anyway and every buffer carries its fence;
		 * only the handle could not be made. Wait so "no fence" is true.
		 */
		dma_fence_wait(d.eb.out_fence, false);
	}
	i915_drm_eb_update_flags(&d);
	for (uint32_t i = 0; !ret && i < n; i++) {
		struct ttm_drm_bo *dbo = to_ttm_drm_bo(d.objs[i]);
		struct drm_bo_info_rep *rep = &ops[i].d.rep.bo_info;
		const size_t from = offsetof(struct drm_i915_op_arg, handled);

		memset(&ops[i].d.rep, 0, sizeof(ops[i].d.rep));
		rep->handle = dbo->base.handle;
		rep->flags = dbo->flags;
		rep->proposed_flags = dbo->proposed_flags;
		rep->size = dbo->tbo.size;
		rep->offset = d.eb.objects[i].offset;
		rep->arg_handle = dbo->map_handle;
		rep->fence_flags = dbo->fence_flags;
		rep->page_alignment = dbo->tbo.page_alignment;
		ops[i].handled = 1;
		/* The batch has run: an unwritable reply is still -EFAULT. */
		ret = ttm_drm_copy_to_user(ddev, (char *)(uintptr_t)uops[i] + from,
					   (const char *)&ops[i] + from, sizeof(ops[i]) - from);
	}
	if (!ret)
		arg->batch.start = (int)(uint32_t)d.eb.objects[n - 1].offset;
	dma_fence_put(d.eb.out_fence);
out_eb:
	i915_drm_eb_free(&d);
out_ops:
	free(map);
	free(uops);
	free(ops);
	return ret;
}

/* --- form (2): execbuffer2 --- */

#define I915_DRM_EB2_FLAGS (I915_EXEC_FLAGS_MASK | I915_EXEC_FENCE_OUT)

/*
 * Execbuffer2. The object array and every relocation array are read
 * through the driver's checked copy before anything is submitted (a bad
 * pointer is -EFAULT with nothing changed); offsets and presumed offsets
 * are written back only after success.
 */
static int i915_drm_execbuffer2(struct ttm_drm_file *file, struct drm_i915_gem_execbuffer2 *arg)
{
	struct ttm_drm_device *ddev = file->ddev;
	struct i915_device *i915 = ddev_to_i915(ddev);
	struct drm_i915_gem_exec_object2 *uobjs =
	    (struct drm_i915_gem_exec_object2 *)(uintptr_t)arg->buffers_ptr;
	struct drm_i915_gem_exec_object2 *objs = NULL;
	uint32_t n = arg->buffer_count;
	struct drm_fence_arg fence_arg = {0};
	uint64_t nrelocs = 0, at = 0;
	struct i915_drm_eb d;
	int ret;

	memset(&d, 0, sizeof(d));
	if (!n || n > I915_DRM_MAX_BUFFERS || !uobjs || (arg->buffers_ptr & 7) ||
	    (arg->flags & ~(uint64_t)I915_DRM_EB2_FLAGS) || arg->DR1 || arg->DR4 ||
	    arg->num_cliprects || arg->cliprects_ptr || arg->rsvd1 || arg->rsvd2)
		return -EINVAL;
	if (fault_should_fail(&i915_fault_exec_alloc, n))
		return -ENOMEM;
	objs = calloc(n, sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	ret = ttm_drm_copy_from_user(ddev, objs, uobjs, n * sizeof(*objs));
	if (ret)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		const struct drm_i915_gem_exec_object2 *o = &objs[i];

		ret = -EINVAL;
		if (o->rsvd1 || o->rsvd2 ||
		    (o->flags & ~(uint64_t)(EXEC_OBJECT_WRITE | EXEC_OBJECT_PINNED)) ||
		    (o->alignment & (o->alignment - 1)) || o->alignment > TTM_PAGE_SIZE ||
		    (o->relocation_count && !o->relocs_ptr))
			goto out;
		nrelocs += o->relocation_count;
	}
	ret = i915_drm_eb_alloc(&d, n, nrelocs);
	if (ret)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		ret = i915_drm_eb_lookup(file, &d, i, objs[i].handle);
		if (ret)
			goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct drm_i915_gem_exec_object2 *o = &objs[i];
		struct i915_exec_object *eo = &d.eb.objects[i];

		eo->flags = (uint32_t)o->flags;
		eo->offset = o->offset;
		eo->relocs = o->relocation_count ? d.relocs + at : NULL;
		eo->nreloc = o->relocation_count;
		for (uint32_t r = 0; r < o->relocation_count; r += I915_DRM_COPY_CHUNK) {
			struct drm_i915_gem_relocation_entry re[I915_DRM_COPY_CHUNK];
			uint32_t k = o->relocation_count - r;

			if (k > I915_DRM_COPY_CHUNK)
				k = I915_DRM_COPY_CHUNK;
			ret = ttm_drm_copy_from_user(
			    ddev, re,
			    i915_drm_user_ptr(o->relocs_ptr + (uint64_t)r * sizeof(re[0])),
			    k * sizeof(re[0]));
			if (ret)
				goto out;
			for (uint32_t j = 0; j < k; j++) {
				uint32_t target = re[j].target_handle;

				if (!(arg->flags & I915_EXEC_HANDLE_LUT)) {
					uint32_t t;

					for (t = 0; t < n && objs[t].handle != target; t++)
						;
					target = t; /* n when absent: the core says -EINVAL */
				}
				d.relocs[at + r + j] = (struct i915_exec_reloc){
				    .target = target,
				    .delta = re[j].delta,
				    .offset = re[j].offset,
				    .presumed_offset = re[j].presumed_offset,
				    .read_domains = re[j].read_domains,
				    .write_domain = re[j].write_domain,
				};
			}
		}
		at += o->relocation_count;
	}
	d.eb.batch_start_offset = arg->batch_start_offset;
	d.eb.batch_len = arg->batch_len;
	d.eb.flags = (uint32_t)(arg->flags & I915_EXEC_FLAGS_MASK);
	ret = i915_gem_execbuffer(i915, &d.eb);
	if (ret)
		goto out;
	if (arg->flags & I915_EXEC_FENCE_OUT)
		ret = i915_drm_fence_object(file, d.eb.out_fence, 0, &fence_arg);
	if (ret)
		dma_fence_wait(d.eb.out_fence, false);
	dma_fence_put(d.eb.out_fence);
	i915_drm_eb_update_flags(&d);
	if (ret)
		goto out;
	/* Results only now: a failed call leaves the caller's arrays alone. */
	at = 0;
	for (uint32_t i = 0; !ret && i < n; i++) {
		struct drm_i915_gem_relocation_entry *ure =
		    (struct drm_i915_gem_relocation_entry *)(uintptr_t)objs[i].relocs_ptr;

		ret = ttm_drm_copy_to_user(ddev, &uobjs[i].offset, &d.eb.objects[i].offset,
					   sizeof(uobjs[i].offset));
		for (uint32_t r = 0; !ret && r < objs[i].relocation_count; r++)
			ret = ttm_drm_copy_to_user(ddev, &ure[r].presumed_offset,
						   &d.relocs[at + r].presumed_offset,
						   sizeof(ure[r].presumed_offset));
		at += objs[i].relocation_count;
	}
	if (arg->flags & I915_EXEC_FENCE_OUT)
		arg->rsvd2 = (uint64_t)fence_arg.handle << 32;
out:
	i915_drm_eb_free(&d);
	free(objs);
	return ret;
}

/* --- the driver --- */

static int i915_drm_command(struct ttm_drm_file *file, unsigned index, void *data, size_t size)
{
	switch (index) {
	case DRM_I915_EXECBUFFER:
		if (!data || size != sizeof(struct drm_i915_execbuffer))
			return -EINVAL;
		return i915_drm_execbuffer(file, data);
	case DRM_I915_GEM_EXECBUFFER2:
		if (!data || size != sizeof(struct drm_i915_gem_execbuffer2))
			return -EINVAL;
		return i915_drm_execbuffer2(file, data);
	default:
		return -EINVAL;
	}
}

/*
 * The CPU reaches lmem only through the small BAR at its start, stolen
 * memory not at all: a fault moves a uAPI buffer out of what it cannot
 * reach (the blitter copies it, i915_ttm_move()).
 */
static uint64_t i915_drm_cpu_visible_pages(struct ttm_drm_device *ddev, uint32_t mem_type)
{
	struct i915_device *i915 = ddev_to_i915(ddev);

	if (mem_type == TTM_PL_VRAM && i915->has_lmem)
		return i915->be->lmem_visible_size >> TTM_PAGE_SHIFT;
	return 0;
}

/*
 * Every request ends with MI_USER_INTERRUPT, so completions are reported
 * without being asked; a flush only makes the waiter see at once what the
 * status page already says, should the interrupt still be in flight.
 */
static void i915_drm_fence_flush(struct ttm_drm_device *ddev, uint32_t fence_class, uint32_t type)
{
	(void)fence_class;
	(void)type;
	i915_engine_retire(i915_engine_get(ddev_to_i915(ddev), I915_ENGINE_RCS));
}

const struct ttm_drm_driver i915_drm_driver = {
    .num_fence_classes = 1,
    .fence_types = DRM_I915_FENCE_TYPE_RW,
    .fence_emit = i915_drm_fence_emit,
    .fence_flush = i915_drm_fence_flush,
    .fence_type = i915_drm_fence_type,
    .command = i915_drm_command,
    .cpu_visible_pages = i915_drm_cpu_visible_pages,
    /* Registered by i915_gem_init() on parts that have them (DRM_BO_MEM_PRIV0 is stolen). */
    .mem_types = (1u << DRM_BO_MEM_VRAM) | (1u << I915_PL_STOLEN),
    /* Callers are untrusted: their pointers go through drm/'s checked copy. */
    .copy_from_user = drm_copy_from_user,
    .copy_to_user = drm_copy_to_user,
};

int i915_drm_open(struct i915_device *i915)
{
	if (!i915 || !i915->gem_ready)
		return -EINVAL;
	return ttm_drm_open(&i915->drm);
}

const char *i915_drm_name(struct i915_device *i915)
{
	return i915->drm.name;
}
