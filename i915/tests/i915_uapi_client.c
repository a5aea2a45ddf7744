// SPDX-License-Identifier: MIT
/*
 * A batch submission written the 2008 way: only <drm.h>, <xf86drm.h>,
 * <xf86mm.h> and <i915_drm.h>, no header of this project's driver. The
 * command encodings are the client's own, as 2008 drivers kept them.
 */
#include <errno.h>
#include <string.h>

#include <drm.h>
#include <i915_drm.h>
#include <xf86drm.h>
#include <xf86mm.h>

#include "i915_uapi_client.h"

/* gen8 MI_STORE_DWORD_IMM through the GGTT (4 dwords), MI_BATCH_BUFFER_END. */
#define CLIENT_MI_STORE_DWORD_IMM ((0x20u << 23) | (1u << 22) | 2u)
#define CLIENT_MI_BATCH_BUFFER_END (0x0au << 23)

static int client_submit(int fd, drmBO *target, drmBO *batch, uint32_t delta, drmFence *fence)
{
	uint32_t reloc[I915_RELOC_HEADER + I915_RELOC0_STRIDE] = {0};
	struct drm_i915_op_arg op[2];
	struct drm_i915_execbuffer eb;
	int ret;

	/* One type-0 relocation: dwords 1-2 of the batch get the target's address. */
	reloc[0] = 1;
	reloc[1] = I915_RELOC_TYPE_0;
	reloc[I915_RELOC_HEADER + 0] = 4;
	reloc[I915_RELOC_HEADER + 1] = delta;
	reloc[I915_RELOC_HEADER + 2] = 0; /* the target is entry 0 of the list */

	memset(op, 0, sizeof(op));
	op[0].next = (uint64_t)(uintptr_t)&op[1];
	op[0].d.req.op = drm_bo_validate;
	op[0].d.req.bo_req.handle = target->handle;
	op[0].d.req.bo_req.flags = DRM_BO_FLAG_MEM_TT | DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE;
	op[0].d.req.bo_req.mask = op[0].d.req.bo_req.flags;
	op[0].d.req.bo_req.fence_class = DRM_I915_FENCE_CLASS_ACCEL;
	op[1].reloc_ptr = (uint64_t)(uintptr_t)reloc;
	op[1].d.req.op = drm_bo_validate;
	op[1].d.req.bo_req.handle = batch->handle;
	op[1].d.req.bo_req.flags = DRM_BO_FLAG_MEM_TT | DRM_BO_FLAG_EXE;
	op[1].d.req.bo_req.mask = op[1].d.req.bo_req.flags;
	op[1].d.req.bo_req.fence_class = DRM_I915_FENCE_CLASS_ACCEL;

	memset(&eb, 0, sizeof(eb));
	eb.ops_list = (uint64_t)(uintptr_t)&op[0];
	eb.num_buffers = 2;
	eb.batch.used = 6 * 4;
	eb.fence_arg.flags = DRM_I915_FENCE_FLAG_FLUSHED;
	do {
		ret = drmCommandWriteRead(fd, DRM_I915_EXECBUFFER, &eb, sizeof(eb));
	} while (ret == -EAGAIN);
	if (ret)
		return ret;
	if (!op[0].handled || !op[1].handled)
		return -EPROTO;
	memset(fence, 0, sizeof(*fence));
	fence->handle = eb.fence_arg.handle;
	fence->fence_class = (int)eb.fence_arg.fence_class;
	fence->type = eb.fence_arg.type;
	fence->flags = eb.fence_arg.flags;
	fence->signaled = eb.fence_arg.signaled;
	fence->sequence = eb.fence_arg.sequence;
	return 0;
}

int client_store_dword(const char *name, uint32_t value, uint32_t delta, uint32_t *readback)
{
	drmBO target, batch;
	drmFence fence;
	uint32_t *cs, *dst;
	void *addr;
	int fd, ret;

	fd = drmOpen(name, NULL);
	if (fd < 0)
		return -errno;
	ret = drmBOCreate(fd, 4096, 0, NULL,
			  DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE, 0, &target);
	if (ret)
		goto out_close;
	ret = drmBOCreate(fd, 4096, 0, NULL, DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_EXE, 0, &batch);
	if (ret)
		goto out_target;

	ret = drmBOMap(fd, &batch, DRM_BO_FLAG_WRITE, 0, &addr);
	if (ret)
		goto out_batch;
	cs = addr;
	cs[0] = CLIENT_MI_STORE_DWORD_IMM;
	cs[1] = 0; /* relocated */
	cs[2] = 0;
	cs[3] = value;
	cs[4] = CLIENT_MI_BATCH_BUFFER_END;
	cs[5] = 0;
	/* 2008: no move while mapped, so unmap before the GPU takes it. */
	drmBOUnmap(fd, &batch);

	ret = client_submit(fd, &target, &batch, delta, &fence);
	if (ret)
		goto out_batch;
	ret = drmFenceWait(fd, DRM_FENCE_FLAG_WAIT_LAZY, &fence, fence.type);
	if (!ret) {
		ret = drmBOMap(fd, &target, DRM_BO_FLAG_READ, 0, &addr);
		if (!ret) {
			dst = (uint32_t *)((char *)addr + delta);
			*readback = *dst;
			drmBOUnmap(fd, &target);
		}
	}
	drmFenceUnreference(fd, &fence);
out_batch:
	drmBOUnreference(fd, &batch);
out_target:
	drmBOUnreference(fd, &target);
out_close:
	drmClose(fd);
	return ret;
}
