// SPDX-License-Identifier: MIT
/*
 * execbuffer2, softpinned and relocation-free, with an optional out-fence;
 * and the batches the back end submits (empty, blitter copy).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <i915_drm.h>

#include <i915/i915_cmds.h>

#include "hw_faults.h"
#include "hw_priv.h"

#define HW_PAGE_MASK 4095ull

/* Small submissions (the common case) build their object array on the stack. */
#define HW_EXEC_STACK_OBJS 16

static int hw_exec_check(const struct hw_exec *eb)
{
	unsigned int i;

	if (!eb || !eb->ctx || !eb->objs || !eb->count || eb->batch_len & 7 || eb->batch_start & 7)
		return -EINVAL;
	if (eb->engine != HW_ENGINE_RENDER && eb->engine != HW_ENGINE_BLT)
		return -EINVAL;
	for (i = 0; i < eb->count; i++) {
		const struct hw_exec_obj *o = &eb->objs[i];

		if (!o->bo || !o->bo->handle || o->offset & HW_PAGE_MASK ||
		    o->flags & ~HW_EXEC_OBJ_WRITE)
			return -EINVAL;
		if (o->bo->size > eb->ctx->vm_size || o->offset > eb->ctx->vm_size - o->bo->size)
			return -EINVAL;
	}
	if ((uint64_t)eb->batch_start + eb->batch_len > eb->objs[eb->count - 1].bo->size)
		return -EINVAL;
	return 0;
}

int hw_exec_submit(struct hw_gpu *gpu, const struct hw_exec *eb, struct dma_fence **fence)
{
	struct drm_i915_gem_exec_object2 stack_objs[HW_EXEC_STACK_OBJS];
	struct drm_i915_gem_exec_object2 *objs = stack_objs;
	struct drm_i915_gem_execbuffer2 exec;
	unsigned int i;
	int ret;

	if (fence)
		*fence = NULL;
	ret = hw_exec_check(eb);
	if (ret)
		return ret;
	if (fence && !gpu->info.has_exec_fence)
		return -EOPNOTSUPP;
	if (atomic_load_explicit(&gpu->wedged, memory_order_relaxed))
		return -EIO;
	if (eb->count > HW_EXEC_STACK_OBJS) {
		objs = fault_should_fail(&hw_fault_alloc, eb->count * sizeof(*objs))
			   ? NULL
			   : calloc(eb->count, sizeof(*objs));
		if (!objs)
			return -ENOMEM;
	} else {
		memset(objs, 0, eb->count * sizeof(*objs));
	}
	for (i = 0; i < eb->count; i++) {
		const struct hw_exec_obj *o = &eb->objs[i];

		objs[i].handle = o->bo->handle;
		/* The kernel rejects a pinned offset that is not in canonical form. */
		objs[i].offset = hw_canonical_addr(o->offset);
		objs[i].flags = EXEC_OBJECT_PINNED | EXEC_OBJECT_SUPPORTS_48B_ADDRESS;
		if (o->flags & HW_EXEC_OBJ_WRITE)
			objs[i].flags |= EXEC_OBJECT_WRITE;
	}
	memset(&exec, 0, sizeof(exec));
	exec.buffers_ptr = (uintptr_t)objs;
	exec.buffer_count = eb->count;
	exec.batch_start_offset = eb->batch_start;
	exec.batch_len = eb->batch_len;
	/* Pinned offsets are final: tell the kernel there is nothing to relocate. */
	exec.flags =
	    (eb->engine == HW_ENGINE_BLT ? I915_EXEC_BLT : I915_EXEC_RENDER) | I915_EXEC_NO_RELOC;
	if (fence)
		exec.flags |= I915_EXEC_FENCE_OUT;
	i915_execbuffer2_set_context_id(exec, eb->ctx->ctx_id);

	ret = hw_ioctl(
	    gpu, fence ? DRM_IOCTL_I915_GEM_EXECBUFFER2_WR : DRM_IOCTL_I915_GEM_EXECBUFFER2, &exec);
	if (objs != stack_objs)
		free(objs);
	if (ret == -EIO)
		atomic_store(&gpu->wedged, true);
	if (ret)
		return ret;
	if (fence)
		ret = hw_fence_waiter_add(&gpu->waiter, (int)(exec.rsvd2 >> 32), fence);
	/*
	 * The batch is queued even when the fence could not be made: a caller
	 * that gets an error here must still treat its objects as busy, which
	 * hw_bo_wait() resolves.
	 */
	return ret;
}

int hw_batch_nop(uint32_t *cs, unsigned int max_dw)
{
	uint32_t *p = cs;

	if (!cs)
		return -EINVAL;
	if (max_dw < 2)
		return -ENOSPC;
	p = i915_emit_bb_end(p);
	p = i915_emit_noop(p);
	return (int)(p - cs);
}

static uint64_t hw_copy_blits(uint64_t size)
{
	uint64_t chunk = (uint64_t)HW_COPY_PITCH * HW_COPY_MAX_ROWS;

	return (size + chunk - 1) / chunk;
}

unsigned int hw_batch_copy_dwords(uint64_t size)
{
	uint64_t dw;

	if (!size || size & HW_PAGE_MASK)
		return 0;
	/* The blits, MI_BATCH_BUFFER_END, and a pad to an even count. */
	dw = hw_copy_blits(size) * I915_FAST_COPY_BLT_DWORDS + 1;
	dw += dw & 1;
	return dw > INT32_MAX ? 0 : (unsigned int)dw;
}

int hw_batch_copy(uint32_t *cs, unsigned int max_dw, uint64_t dst, uint64_t src, uint64_t size)
{
	unsigned int need = hw_batch_copy_dwords(size);
	uint32_t *p = cs;

	if (!cs || !need || dst & HW_PAGE_MASK || src & HW_PAGE_MASK)
		return -EINVAL;
	if (dst > UINT64_MAX - size || src > UINT64_MAX - size)
		return -EINVAL;
	if (dst < src + size && src < dst + size)
		return -EINVAL;
	if (max_dw < need)
		return -ENOSPC;
	while (size) {
		uint64_t rows = size / HW_COPY_PITCH;

		if (rows > HW_COPY_MAX_ROWS)
			rows = HW_COPY_MAX_ROWS;
		p = i915_emit_fast_copy_blt(p, dst, HW_COPY_PITCH, src, HW_COPY_PITCH,
					    HW_COPY_PITCH, (uint32_t)rows);
		dst += rows * HW_COPY_PITCH;
		src += rows * HW_COPY_PITCH;
		size -= rows * HW_COPY_PITCH;
	}
	p = i915_emit_bb_end(p);
	if ((p - cs) & 1)
		p = i915_emit_noop(p);
	return (int)(p - cs);
}
