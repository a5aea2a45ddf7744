// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include <i915/i915_gem.h>

#include "backend_dev.h"

int backend_dev_open(struct backend_dev *d, const char *name, const struct hw_open_args *hw)
{
	struct i915_device_config cfg;
	int ret;

	memset(d, 0, sizeof(*d));
	if (!strcmp(name, "sim")) {
		i915_device_config_init(&cfg, I915_BACKEND_SIM);
		ret = i915_device_create(&cfg, &d->i915);
	} else {
		ret = i915_device_create_hw(hw, &d->i915);
	}
	if (ret)
		return ret;
	ret = i915_gem_init(d->i915);
	if (!ret)
		ret = i915_context_create_vm(d->i915, &d->ctx);
	return ret;
}

int backend_dev_close(struct backend_dev *d)
{
	int ret = 0, r;

	i915_context_put(d->ctx);
	if (!d->i915)
		return 0;
	r = i915_gem_fini(d->i915);
	if (r && r != -EINVAL)
		ret = r;
	r = i915_device_destroy(d->i915);
	return ret ? ret : r;
}

int backend_dev_gem_exec(struct backend_dev *d, bool in_vm)
{
	uint32_t bb_end[2] = {0x05000000 /* MI_BATCH_BUFFER_END */, 0};
	struct i915_gem_object *obj = NULL;
	struct i915_exec_object eo = {0};
	struct i915_execbuffer eb = {.objects = &eo, .count = 1, .ctx = in_vm ? d->ctx : NULL};
	int ret;

	ret = i915_gem_object_create(d->i915, 4096, I915_GEM_REGION_SMEM, &obj);
	if (ret)
		return ret;
	ret = i915_gem_object_access(obj, 0, bb_end, sizeof(bb_end), true);
	eo.obj = obj;
	if (!ret)
		ret = i915_gem_execbuffer(d->i915, &eb);
	if (!ret) {
		dma_fence_wait(eb.out_fence, false);
		dma_fence_put(eb.out_fence);
	}
	i915_gem_object_put(obj);
	return ret;
}
