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

/*
 * One superioctl: the two targets and the batch on the validate list, two
 * type-0 relocations naming their target by buffer handle (as the 2008
 * kernel matched them), and the cliprects a 2008 X client passed along
 * (the driver ignores them).
 */
static int client_submit(int fd, drmBO *target[2], drmBO *batch, uint32_t delta, drmFence *fence)
{
	uint32_t reloc[I915_RELOC_HEADER + 2 * I915_RELOC0_STRIDE] = {0};
	struct drm_clip_rect clip[2] = {{0, 0, 640, 480}, {640, 0, 1280, 480}};
	struct drm_i915_op_arg op[3];
	struct drm_i915_execbuffer eb;
	int ret;

	/* Dword 1 of each store gets its target's address (32 bits, 2008's width). */
	reloc[0] = 2;
	reloc[1] = I915_RELOC_TYPE_0;
	for (unsigned i = 0; i < 2; i++) {
		uint32_t *e = &reloc[I915_RELOC_HEADER + i * I915_RELOC0_STRIDE];

		e[0] = 4 + 16 * i;
		e[1] = delta;
		e[2] = target[i]->handle;
	}

	memset(op, 0, sizeof(op));
	for (unsigned i = 0; i < 2; i++) {
		op[i].next = (uint64_t)(uintptr_t)&op[i + 1];
		op[i].d.req.op = drm_bo_validate;
		op[i].d.req.bo_req.handle = target[i]->handle;
		op[i].d.req.bo_req.flags =
		    DRM_BO_FLAG_MEM_TT | DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE;
		op[i].d.req.bo_req.mask = op[i].d.req.bo_req.flags;
		op[i].d.req.bo_req.fence_class = DRM_I915_FENCE_CLASS_ACCEL;
	}
	op[2].reloc_ptr = (uint64_t)(uintptr_t)reloc;
	op[2].d.req.op = drm_bo_validate;
	op[2].d.req.bo_req.handle = batch->handle;
	op[2].d.req.bo_req.flags = DRM_BO_FLAG_MEM_TT | DRM_BO_FLAG_EXE;
	op[2].d.req.bo_req.mask = op[2].d.req.bo_req.flags;
	op[2].d.req.bo_req.fence_class = DRM_I915_FENCE_CLASS_ACCEL;

	memset(&eb, 0, sizeof(eb));
	eb.ops_list = (uint64_t)(uintptr_t)&op[0];
	eb.num_buffers = 3;
	eb.batch.used = 10 * 4;
	eb.batch.num_cliprects = 2;
	eb.batch.cliprects = clip;
	eb.fence_arg.flags = DRM_I915_FENCE_FLAG_FLUSHED;
	do {
		ret = drmCommandWriteRead(fd, DRM_I915_EXECBUFFER, &eb, sizeof(eb));
	} while (ret == -EAGAIN);
	if (ret)
		return ret;
	if (!op[0].handled || !op[1].handled || !op[2].handled)
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

int client_store_dword(const char *name, uint32_t value, uint32_t delta, uint32_t readback[2])
{
	drmBO target[2], batch;
	drmBO *targets[2] = {&target[0], &target[1]};
	drmFence fence;
	uint32_t *cs;
	void *addr;
	int fd, ret;
	unsigned made = 0;

	fd = drmOpen(name, NULL);
	if (fd < 0)
		return -errno;
	for (; made < 2; made++) {
		ret = drmBOCreate(fd, 4096, 0, NULL,
				  DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE, 0,
				  &target[made]);
		if (ret)
			goto out_targets;
	}
	ret = drmBOCreate(fd, 4096, 0, NULL, DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_EXE, 0, &batch);
	if (ret)
		goto out_targets;

	ret = drmBOMap(fd, &batch, DRM_BO_FLAG_WRITE, 0, &addr);
	if (ret)
		goto out_batch;
	cs = addr;
	for (unsigned i = 0; i < 2; i++) {
		cs[4 * i + 0] = CLIENT_MI_STORE_DWORD_IMM;
		cs[4 * i + 1] = 0; /* relocated */
		cs[4 * i + 2] = 0; /* high address bits: none on 2008 parts */
		cs[4 * i + 3] = value + i;
	}
	cs[8] = CLIENT_MI_BATCH_BUFFER_END;
	cs[9] = 0;
	/* 2008: no move while mapped, so unmap before the GPU takes it. */
	drmBOUnmap(fd, &batch);

	ret = client_submit(fd, targets, &batch, delta, &fence);
	if (ret)
		goto out_batch;
	ret = drmFenceWait(fd, DRM_FENCE_FLAG_WAIT_LAZY, &fence, fence.type);
	for (unsigned i = 0; !ret && i < 2; i++) {
		ret = drmBOMap(fd, &target[i], DRM_BO_FLAG_READ, 0, &addr);
		if (!ret) {
			memcpy(&readback[i], (char *)addr + delta, sizeof(readback[i]));
			drmBOUnmap(fd, &target[i]);
		}
	}
	drmFenceUnreference(fd, &fence);
out_batch:
	drmBOUnreference(fd, &batch);
out_targets:
	while (made)
		drmBOUnreference(fd, &target[--made]);
	drmClose(fd);
	return ret;
}
