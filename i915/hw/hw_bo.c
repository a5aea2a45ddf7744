// SPDX-License-Identifier: MIT
/*
 * GEM objects: create (with memory regions on discrete parts), CPU maps
 * through GEM_MMAP_OFFSET, close and wait.
 */
#include <errno.h>
#include <string.h>

#include <i915_drm.h>

#include "hw_priv.h"

#define HW_PAGE_SIZE 4096ull

int hw_bo_init(struct hw_gpu *gpu, struct hw_bo *bo, uint64_t size,
	       const struct hw_region_id *regions, unsigned int num_regions, unsigned int flags)
{
	struct drm_i915_gem_memory_class_instance placements[HW_MAX_REGIONS];
	struct drm_i915_gem_create_ext_memory_regions ext = {
	    .base = {.name = I915_GEM_CREATE_EXT_MEMORY_REGIONS},
	};
	bool has_system = false;
	unsigned int i;
	int ret;

	memset(bo, 0, sizeof(*bo));
	if (!size || size > UINT64_MAX - HW_PAGE_SIZE || flags & ~HW_BO_NEEDS_CPU_ACCESS)
		return -EINVAL;
	size = (size + HW_PAGE_SIZE - 1) & ~(HW_PAGE_SIZE - 1);
	if (!regions) {
		struct drm_i915_gem_create create = {.size = size};

		if (num_regions || flags)
			return -EINVAL;
		ret = hw_ioctl(gpu, DRM_IOCTL_I915_GEM_CREATE, &create);
		if (ret)
			return ret;
		bo->handle = create.handle;
		bo->size = create.size;
		return 0;
	}
	if (!num_regions || num_regions > HW_MAX_REGIONS)
		return -EINVAL;
	for (i = 0; i < num_regions; i++) {
		placements[i].memory_class = regions[i].mclass;
		placements[i].memory_instance = regions[i].instance;
		has_system |= regions[i].mclass == HW_MEMORY_CLASS_SYSTEM;
	}
	/* The kernel's rule: an object that may be evicted out of the BAR needs somewhere to go. */
	if ((flags & HW_BO_NEEDS_CPU_ACCESS) && !has_system)
		return -EINVAL;
	ext.num_regions = num_regions;
	ext.regions = (uintptr_t)placements;
	{
		struct drm_i915_gem_create_ext create = {
		    .size = size,
		    .flags = (flags & HW_BO_NEEDS_CPU_ACCESS)
				 ? I915_GEM_CREATE_EXT_FLAG_NEEDS_CPU_ACCESS
				 : 0,
		    .extensions = (uintptr_t)&ext,
		};

		ret = hw_ioctl(gpu, DRM_IOCTL_I915_GEM_CREATE_EXT, &create);
		if (ret)
			return ret;
		bo->handle = create.handle;
		bo->size = create.size;
	}
	return 0;
}

void hw_bo_fini(struct hw_gpu *gpu, struct hw_bo *bo)
{
	struct drm_gem_close close_arg = {.handle = bo->handle};

	hw_bo_munmap(gpu, bo);
	if (bo->handle)
		hw_ioctl(gpu, DRM_IOCTL_GEM_CLOSE, &close_arg);
	memset(bo, 0, sizeof(*bo));
}

static const uint64_t hw_mmap_flags[] = {
    [HW_MMAP_WB] = I915_MMAP_OFFSET_WB,
    [HW_MMAP_WC] = I915_MMAP_OFFSET_WC,
    [HW_MMAP_FIXED] = I915_MMAP_OFFSET_FIXED,
};

int hw_bo_mmap(struct hw_gpu *gpu, struct hw_bo *bo, enum hw_mmap_mode mode)
{
	struct drm_i915_gem_mmap_offset arg = {.handle = bo->handle};
	void *ptr;
	int ret;

	if ((unsigned int)mode > HW_MMAP_FIXED || !bo->handle)
		return -EINVAL;
	if (bo->map)
		return bo->map_mode == mode ? 0 : -EBUSY;
	arg.flags = hw_mmap_flags[mode];
	ret = hw_ioctl(gpu, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &arg);
	if (ret)
		return ret;
	ret = gpu->sys->mmap(gpu->sys_data, gpu->fd, arg.offset, (size_t)bo->size, &ptr);
	if (ret)
		return ret;
	bo->map = ptr;
	bo->map_mode = mode;
	return 0;
}

void hw_bo_munmap(struct hw_gpu *gpu, struct hw_bo *bo)
{
	if (!bo->map)
		return;
	gpu->sys->munmap(gpu->sys_data, bo->map, (size_t)bo->size);
	bo->map = NULL;
}

int hw_bo_wait(struct hw_gpu *gpu, struct hw_bo *bo, int64_t timeout_ns)
{
	struct drm_i915_gem_wait arg = {
	    .bo_handle = bo->handle,
	    .timeout_ns = timeout_ns < 0 ? -1 : timeout_ns,
	};

	if (!bo->handle)
		return -EINVAL;
	return hw_ioctl(gpu, DRM_IOCTL_I915_GEM_WAIT, &arg);
}
