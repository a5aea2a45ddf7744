// SPDX-License-Identifier: MIT
/*
 * The hw back end against the recording fake i915: discovery, parameters,
 * regions, contexts, GEM objects, maps, softpinned execbuffer and out-
 * fences, checked call by call down to the argument structs, and the
 * failure paths (missing features, -EIO, -ENOSPC) leaving nothing behind.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ttm_config.h>

#include <i915/i915_cmds.h>
#include <linux/sync_file.h>
#include <ttm/ttm_faults.h>

#include "hw_fake.h"
#include "hw_gpu.h"
#include "ktest.h"

#define WAIT_NS (5ll * 1000 * 1000 * 1000)

/* A fake, with $TTM_HW_DEVICE unset so that discovery is what the fake offers. */
static struct hw_fake *fake_new(void)
{
	unsetenv(HW_DEVICE_ENV);
	return hw_fake_new();
}

/* Everything the back end took from the fake was given back. */
static void expect_no_leaks(struct hw_fake *fake)
{
	char why[128] = "";
	unsigned int i;

	KTEST_CHECK_(hw_fake_clean(fake, why, sizeof(why)), false, "%s", why);
	for (i = 0; i < fake->num_fences; i++)
		EXPECT_TRUE(fake->fences[i].closed);
}

static int open_fake(struct hw_fake *fake, struct hw_gpu **gpu, char *why, size_t len)
{
	struct hw_open_args args = {
	    .sys = &hw_fake_ops,
	    .sys_data = fake,
	    .why = why,
	    .why_len = len,
	};

	return hw_gpu_open(&args, gpu);
}

static const void *call_arg(struct hw_fake *fake, int i)
{
	return fake->calls[i].arg;
}

KTEST(hw_gpu_open_reads_parameters_in_order)
{
	static const unsigned long expect[] = {
	    DRM_IOCTL_I915_GETPARAM,	     DRM_IOCTL_I915_GETPARAM, DRM_IOCTL_I915_GETPARAM,
	    DRM_IOCTL_I915_GEM_GET_APERTURE, DRM_IOCTL_I915_QUERY,    DRM_IOCTL_I915_QUERY,
	};
	static const int params[] = {I915_PARAM_CHIPSET_ID, I915_PARAM_HAS_EXEC_SOFTPIN,
				     I915_PARAM_HAS_EXEC_FENCE};
	struct hw_fake *fake = fake_new();
	const struct hw_gpu_info *info;
	struct hw_gpu *gpu;
	char why[128];
	unsigned int i;

	ASSERT_NOT_NULL(fake);
	ASSERT_EQ(open_fake(fake, &gpu, why, sizeof(why)), 0);
	EXPECT_STREQ(why, "");
	ASSERT_EQ(fake->num_calls, 6);
	for (i = 0; i < 6; i++)
		EXPECT_UEQ(fake->calls[i].request, expect[i]);
	for (i = 0; i < 3; i++) {
		const struct drm_i915_getparam *gp = call_arg(fake, (int)i);

		EXPECT_EQ(gp->param, params[i]);
		EXPECT_EQ(fake->calls[i].arg_size, sizeof(*gp));
	}
	/* The first query asks for the length only, the second passes it back. */
	EXPECT_EQ(((const struct drm_i915_query *)call_arg(fake, 4))->num_items, 1);
	EXPECT_UEQ(fake->calls[4].ext_param, DRM_I915_QUERY_MEMORY_REGIONS);
	EXPECT_EQ((int64_t)fake->calls[4].ext_value, 0);
	EXPECT_UEQ(fake->calls[5].ext_param, DRM_I915_QUERY_MEMORY_REGIONS);
	EXPECT_EQ((int64_t)fake->calls[5].ext_value,
		  sizeof(struct drm_i915_query_memory_regions) +
		      sizeof(struct drm_i915_memory_region_info));
	info = hw_gpu_info(gpu);
	EXPECT_STREQ(info->path, "/dev/dri/renderD128");
	EXPECT_STREQ(info->driver, "i915");
	EXPECT_EQ(info->drv_major, 1);
	EXPECT_UEQ(info->chipset_id, 0x9a49);
	EXPECT_TRUE(info->has_softpin);
	EXPECT_TRUE(info->has_exec_fence);
	EXPECT_UEQ(info->aperture_size, 256ull << 20);
	EXPECT_FALSE(info->discrete);
	ASSERT_EQ(info->num_regions, 1);
	EXPECT_EQ(info->regions[0].id.mclass, HW_MEMORY_CLASS_SYSTEM);
	EXPECT_UEQ(info->regions[0].probed_size, 16ull << 30);
	/* No visible size from the kernel: all of it is CPU visible. */
	EXPECT_UEQ(info->regions[0].cpu_visible_size, 16ull << 30);
	EXPECT_NULL(hw_gpu_find_region(gpu, HW_MEMORY_CLASS_DEVICE));
	EXPECT_FALSE(hw_gpu_is_wedged(gpu));
	hw_gpu_close(gpu);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

KTEST(hw_gpu_open_finds_discrete_regions)
{
	struct hw_fake *fake = fake_new();
	const struct hw_region *lmem;
	struct hw_gpu *gpu;

	ASSERT_NOT_NULL(fake);
	hw_fake_make_discrete(fake);
	ASSERT_EQ(open_fake(fake, &gpu, NULL, 0), 0);
	EXPECT_TRUE(hw_gpu_info(gpu)->discrete);
	EXPECT_EQ(hw_gpu_info(gpu)->num_regions, 2);
	lmem = hw_gpu_find_region(gpu, HW_MEMORY_CLASS_DEVICE);
	ASSERT_NOT_NULL(lmem);
	EXPECT_UEQ(lmem->probed_size, 4ull << 30);
	EXPECT_UEQ(lmem->cpu_visible_size, 256ull << 20);
	hw_gpu_close(gpu);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

KTEST(hw_gpu_open_skips_nodes_of_other_drivers)
{
	struct hw_fake *fake = fake_new();
	struct hw_gpu *gpu;

	ASSERT_NOT_NULL(fake);
	fake->num_nodes = 3;
	strcpy(fake->nodes[0].driver, "amdgpu");
	strcpy(fake->nodes[1].path, "/dev/dri/renderD129");
	strcpy(fake->nodes[1].driver, "i915");
	strcpy(fake->nodes[2].path, "/dev/dri/renderD130");
	strcpy(fake->nodes[2].driver, "i915");
	ASSERT_EQ(open_fake(fake, &gpu, NULL, 0), 0);
	EXPECT_STREQ(hw_gpu_info(gpu)->path, "/dev/dri/renderD129");
	hw_gpu_close(gpu);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

KTEST(hw_gpu_open_without_i915_is_enodev)
{
	struct hw_fake *fake = fake_new();
	struct hw_gpu *gpu = (void *)1;
	char why[128];

	ASSERT_NOT_NULL(fake);
	fake->num_nodes = 0;
	EXPECT_EQ(open_fake(fake, &gpu, why, sizeof(why)), -ENODEV);
	EXPECT_NULL(gpu);
	EXPECT_TRUE(strstr(why, "no DRM render node") != NULL);
	fake->num_nodes = 1;
	strcpy(fake->nodes[0].driver, "nouveau");
	EXPECT_EQ(open_fake(fake, &gpu, why, sizeof(why)), -ENODEV);
	EXPECT_TRUE(strstr(why, "no i915 render node") != NULL);
	EXPECT_EQ(hw_exit_status(-ENODEV), 77);
	EXPECT_EQ(fake->num_calls, 0);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

KTEST(hw_gpu_open_honours_device_and_env)
{
	struct hw_fake *fake = fake_new();
	struct hw_open_args args = {.sys = &hw_fake_ops};
	struct hw_gpu *gpu;
	char why[128];

	ASSERT_NOT_NULL(fake);
	args.sys_data = fake;
	args.why = why;
	args.why_len = sizeof(why);
	fake->num_nodes = 2;
	strcpy(fake->nodes[1].path, "/dev/dri/renderD129");
	strcpy(fake->nodes[1].driver, "i915");

	args.device = "/dev/dri/renderD129";
	ASSERT_EQ(hw_gpu_open(&args, &gpu), 0);
	EXPECT_STREQ(hw_gpu_info(gpu)->path, "/dev/dri/renderD129");
	hw_gpu_close(gpu);

	args.device = NULL;
	setenv(HW_DEVICE_ENV, "/dev/dri/renderD129", 1);
	ASSERT_EQ(hw_gpu_open(&args, &gpu), 0);
	EXPECT_STREQ(hw_gpu_info(gpu)->path, "/dev/dri/renderD129");
	hw_gpu_close(gpu);

	/* An explicit node that is not i915 is not replaced by another one. */
	strcpy(fake->nodes[1].driver, "amdgpu");
	EXPECT_EQ(hw_gpu_open(&args, &gpu), -ENODEV);
	EXPECT_TRUE(strstr(why, "not i915") != NULL);
	setenv(HW_DEVICE_ENV, "/dev/dri/renderD140", 1);
	EXPECT_EQ(hw_gpu_open(&args, &gpu), -ENODEV);
	EXPECT_TRUE(strstr(why, "renderD140") != NULL);
	unsetenv(HW_DEVICE_ENV);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

KTEST(hw_gpu_open_permission_denied_is_eacces)
{
	struct hw_fake *fake = fake_new();
	struct hw_gpu *gpu;
	char why[128];

	ASSERT_NOT_NULL(fake);
	fake->nodes[0].open_err = -EACCES;
	EXPECT_EQ(open_fake(fake, &gpu, why, sizeof(why)), -EACCES);
	EXPECT_TRUE(strstr(why, "renderD128") != NULL);
	EXPECT_EQ(hw_exit_status(-EACCES), 77);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

KTEST(hw_gpu_open_names_missing_softpin)
{
	struct hw_fake *fake = fake_new();
	struct hw_gpu *gpu;
	char why[160];

	ASSERT_NOT_NULL(fake);
	fake->softpin = 0;
	EXPECT_EQ(open_fake(fake, &gpu, why, sizeof(why)), -EOPNOTSUPP);
	EXPECT_TRUE(strstr(why, "I915_PARAM_HAS_EXEC_SOFTPIN") != NULL);
	/* A kernel that does not know the parameter at all is the same. */
	fake->softpin = 1;
	fake->old_kernel = true;
	EXPECT_EQ(open_fake(fake, &gpu, why, sizeof(why)), -EOPNOTSUPP);
	EXPECT_TRUE(strstr(why, "I915_PARAM_HAS_EXEC_SOFTPIN") != NULL);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

KTEST(hw_gpu_open_need_exec_fence)
{
	struct hw_fake *fake = fake_new();
	struct hw_open_args args = {.sys = &hw_fake_ops, .need = HW_NEED_EXEC_FENCE};
	struct hw_gpu *gpu;
	char why[160];

	ASSERT_NOT_NULL(fake);
	args.sys_data = fake;
	args.why = why;
	args.why_len = sizeof(why);
	fake->exec_fence = 0;
	EXPECT_EQ(hw_gpu_open(&args, &gpu), -EOPNOTSUPP);
	EXPECT_TRUE(strstr(why, "I915_PARAM_HAS_EXEC_FENCE") != NULL);
	/* Without the requirement the device opens, and fences are refused later. */
	args.need = 0;
	ASSERT_EQ(hw_gpu_open(&args, &gpu), 0);
	EXPECT_FALSE(hw_gpu_info(gpu)->has_exec_fence);
	hw_gpu_close(gpu);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

KTEST(hw_gpu_open_propagates_ioctl_errors)
{
	static const unsigned long requests[] = {
	    DRM_IOCTL_I915_GETPARAM, DRM_IOCTL_I915_GEM_GET_APERTURE, DRM_IOCTL_I915_QUERY};
	struct hw_fake *fake = fake_new();
	struct hw_gpu *gpu;
	unsigned int i;

	ASSERT_NOT_NULL(fake);
	for (i = 0; i < 3; i++) {
		fake->fail_request = requests[i];
		fake->fail_err = -EFAULT;
		fake->fail_times = 1;
		EXPECT_EQ(open_fake(fake, &gpu, NULL, 0), -EFAULT);
		expect_no_leaks(fake);
	}
	/* A kernel without the region query: system memory only, no failure. */
	fake->fail_times = 0;
	fake->old_kernel = true;
	fake->softpin = 1;
	hw_fake_make_discrete(fake);
	fake->old_kernel = false;
	fake->fail_request = DRM_IOCTL_I915_QUERY;
	fake->fail_err = -EINVAL;
	fake->fail_times = -1;
	ASSERT_EQ(open_fake(fake, &gpu, NULL, 0), 0);
	EXPECT_EQ(hw_gpu_info(gpu)->num_regions, 1);
	EXPECT_FALSE(hw_gpu_info(gpu)->discrete);
	hw_gpu_close(gpu);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

KTEST(hw_context_init_creates_vm_then_context)
{
	struct hw_fake *fake = fake_new();
	struct hw_context ctx;
	struct hw_gpu *gpu;
	int vm_call, ctx_call, gp_call;

	ASSERT_NOT_NULL(fake);
	ASSERT_EQ(open_fake(fake, &gpu, NULL, 0), 0);
	hw_fake_clear_calls(fake);
	fake->vm_size = 1ull << 47;
	ASSERT_EQ(hw_context_init(gpu, &ctx), 0);
	ASSERT_EQ(fake->num_calls, 3);
	vm_call = hw_fake_find(fake, DRM_IOCTL_I915_GEM_VM_CREATE, 0);
	ctx_call = hw_fake_find(fake, DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT, 0);
	gp_call = hw_fake_find(fake, DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM, 0);
	EXPECT_EQ(vm_call, 0);
	EXPECT_EQ(ctx_call, 1);
	EXPECT_EQ(gp_call, 2);
	{
		const struct drm_i915_gem_context_create_ext *c = call_arg(fake, ctx_call);

		EXPECT_UEQ(c->flags, I915_CONTEXT_CREATE_FLAGS_USE_EXTENSIONS);
		EXPECT_UEQ(fake->calls[ctx_call].ext_param, I915_CONTEXT_PARAM_VM);
		EXPECT_UEQ(fake->calls[ctx_call].ext_value, ctx.vm_id);
	}
	{
		const struct drm_i915_gem_context_param *p = call_arg(fake, gp_call);

		EXPECT_UEQ(p->param, I915_CONTEXT_PARAM_GTT_SIZE);
		EXPECT_EQ(p->ctx_id, ctx.ctx_id);
	}
	EXPECT_NE(ctx.ctx_id, 0);
	EXPECT_UEQ(ctx.vm_size, 1ull << 47);
	EXPECT_EQ(fake->live_ctx, 1);
	EXPECT_EQ(fake->live_vms, 1);
	hw_context_fini(gpu, &ctx);
	EXPECT_EQ(ctx.ctx_id, 0);
	hw_gpu_close(gpu);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

KTEST(hw_context_init_failure_undoes_everything)
{
	struct hw_fake *fake = fake_new();
	struct hw_context ctx;
	struct hw_gpu *gpu;

	ASSERT_NOT_NULL(fake);
	ASSERT_EQ(open_fake(fake, &gpu, NULL, 0), 0);
	/* No full ppGTT: VM_CREATE says -ENODEV. */
	fake->fail_request = DRM_IOCTL_I915_GEM_VM_CREATE;
	fake->fail_err = -ENODEV;
	fake->fail_times = 1;
	EXPECT_EQ(hw_context_init(gpu, &ctx), -EOPNOTSUPP);
	fake->fail_request = DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT;
	fake->fail_err = -ENOMEM;
	fake->fail_times = 1;
	EXPECT_EQ(hw_context_init(gpu, &ctx), -ENOMEM);
	EXPECT_EQ(fake->live_vms, 0);
	fake->fail_request = DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM;
	fake->fail_err = -EINVAL;
	fake->fail_times = 1;
	EXPECT_EQ(hw_context_init(gpu, &ctx), -EINVAL);
	EXPECT_EQ(fake->live_ctx, 0);
	EXPECT_EQ(fake->live_vms, 0);
	hw_gpu_close(gpu);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

KTEST(hw_bo_init_plain_and_with_regions)
{
	struct hw_fake *fake = fake_new();
	const struct hw_region_id lmem_first[] = {{HW_MEMORY_CLASS_DEVICE, 0},
						  {HW_MEMORY_CLASS_SYSTEM, 0}};
	const struct hw_region_id lmem_only[] = {{HW_MEMORY_CLASS_DEVICE, 0}};
	struct hw_bo a, b, c;
	struct hw_gpu *gpu;
	int i;

	ASSERT_NOT_NULL(fake);
	hw_fake_make_discrete(fake);
	ASSERT_EQ(open_fake(fake, &gpu, NULL, 0), 0);
	hw_fake_clear_calls(fake);

	ASSERT_EQ(hw_bo_init(gpu, &a, 5000, NULL, 0, 0), 0);
	i = hw_fake_find(fake, DRM_IOCTL_I915_GEM_CREATE, 0);
	ASSERT_EQ(i, 0);
	EXPECT_UEQ(((const struct drm_i915_gem_create *)call_arg(fake, i))->size, 8192);
	EXPECT_UEQ(a.size, 8192);
	EXPECT_NE(a.handle, 0);

	ASSERT_EQ(hw_bo_init(gpu, &b, 1 << 20, lmem_first, 2, HW_BO_NEEDS_CPU_ACCESS), 0);
	i = hw_fake_find(fake, DRM_IOCTL_I915_GEM_CREATE_EXT, 0);
	ASSERT_EQ(i, 1);
	{
		const struct drm_i915_gem_create_ext *ce = call_arg(fake, i);

		EXPECT_UEQ(ce->size, 1 << 20);
		EXPECT_UEQ(ce->flags, I915_GEM_CREATE_EXT_FLAG_NEEDS_CPU_ACCESS);
		EXPECT_NE(ce->extensions, 0);
	}
	ASSERT_EQ(fake->calls[i].num_regions, 2);
	EXPECT_EQ(fake->calls[i].regions[0].memory_class, I915_MEMORY_CLASS_DEVICE);
	EXPECT_EQ(fake->calls[i].regions[1].memory_class, I915_MEMORY_CLASS_SYSTEM);

	/* CPU access needs a system fallback; the kernel would say -EINVAL too. */
	EXPECT_EQ(hw_bo_init(gpu, &c, 4096, lmem_only, 1, HW_BO_NEEDS_CPU_ACCESS), -EINVAL);
	EXPECT_EQ(hw_bo_init(gpu, &c, 0, NULL, 0, 0), -EINVAL);
	EXPECT_EQ(hw_bo_init(gpu, &c, 4096, lmem_only, 0, 0), -EINVAL);
	EXPECT_EQ(hw_bo_init(gpu, &c, 4096, NULL, 0, HW_BO_NEEDS_CPU_ACCESS), -EINVAL);
	EXPECT_EQ(hw_bo_init(gpu, &c, 4096, NULL, 0, 1u << 7), -EINVAL);
	EXPECT_EQ(fake->num_calls, 2);

	fake->fail_request = DRM_IOCTL_I915_GEM_CREATE_EXT;
	fake->fail_err = -ENOSPC;
	fake->fail_times = 1;
	EXPECT_EQ(hw_bo_init(gpu, &c, 4096, lmem_only, 1, 0), -ENOSPC);
	EXPECT_EQ(c.handle, 0);

	EXPECT_EQ(fake->live_handles, 2);
	hw_fake_clear_calls(fake);
	hw_bo_fini(gpu, &a);
	hw_bo_fini(gpu, &b);
	hw_bo_fini(gpu, &c); /* zeroed by the failed init: a no-op */
	EXPECT_EQ(hw_fake_count(fake, DRM_IOCTL_GEM_CLOSE), 2);
	hw_gpu_close(gpu);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

KTEST(hw_bo_mmap_asks_for_the_right_mode)
{
	struct hw_fake *fake = fake_new();
	struct hw_bo bo;
	struct hw_gpu *gpu;
	int i;

	ASSERT_NOT_NULL(fake);
	ASSERT_EQ(open_fake(fake, &gpu, NULL, 0), 0);
	ASSERT_EQ(hw_bo_init(gpu, &bo, 8192, NULL, 0, 0), 0);
	hw_fake_clear_calls(fake);
	ASSERT_EQ(hw_bo_mmap(gpu, &bo, HW_MMAP_WC), 0);
	ASSERT_NOT_NULL(bo.map);
	i = hw_fake_find(fake, DRM_IOCTL_I915_GEM_MMAP_OFFSET, 0);
	ASSERT_EQ(i, 0);
	{
		const struct drm_i915_gem_mmap_offset *m = call_arg(fake, i);

		EXPECT_EQ(m->handle, bo.handle);
		EXPECT_UEQ(m->flags, I915_MMAP_OFFSET_WC);
	}
	memset(bo.map, 0xa5, 8192);
	/* Same mode again: nothing new; another mode while mapped: -EBUSY. */
	EXPECT_EQ(hw_bo_mmap(gpu, &bo, HW_MMAP_WC), 0);
	EXPECT_EQ(hw_bo_mmap(gpu, &bo, HW_MMAP_WB), -EBUSY);
	EXPECT_EQ(fake->num_calls, 1);
	hw_bo_munmap(gpu, &bo);
	EXPECT_NULL(bo.map);
	ASSERT_EQ(hw_bo_mmap(gpu, &bo, HW_MMAP_WB), 0);
	EXPECT_UEQ(((const struct drm_i915_gem_mmap_offset *)call_arg(fake, 1))->flags,
		   I915_MMAP_OFFSET_WB);
	EXPECT_EQ(hw_bo_mmap(gpu, &bo, (enum hw_mmap_mode)7), -EINVAL);
	/* fini unmaps too. */
	hw_bo_fini(gpu, &bo);
	hw_gpu_close(gpu);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

KTEST(hw_bo_mmap_discrete_needs_fixed)
{
	struct hw_fake *fake = fake_new();
	struct hw_bo bo;
	struct hw_gpu *gpu;

	ASSERT_NOT_NULL(fake);
	hw_fake_make_discrete(fake);
	ASSERT_EQ(open_fake(fake, &gpu, NULL, 0), 0);
	ASSERT_EQ(hw_bo_init(gpu, &bo, 4096, NULL, 0, 0), 0);
	EXPECT_EQ(hw_bo_mmap(gpu, &bo, HW_MMAP_WB), -ENODEV);
	EXPECT_NULL(bo.map);
	EXPECT_EQ(hw_bo_mmap(gpu, &bo, HW_MMAP_FIXED), 0);
	EXPECT_EQ(bo.map_mode, HW_MMAP_FIXED);
	hw_bo_fini(gpu, &bo);
	hw_gpu_close(gpu);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

KTEST(hw_bo_wait_reports_busy_as_etime)
{
	struct hw_fake *fake = fake_new();
	struct hw_bo bo;
	struct hw_gpu *gpu;
	const struct drm_i915_gem_wait *w;

	ASSERT_NOT_NULL(fake);
	ASSERT_EQ(open_fake(fake, &gpu, NULL, 0), 0);
	ASSERT_EQ(hw_bo_init(gpu, &bo, 4096, NULL, 0, 0), 0);
	hw_fake_clear_calls(fake);
	EXPECT_EQ(hw_bo_wait(gpu, &bo, 1000), 0);
	fake->busy = true;
	EXPECT_EQ(hw_bo_wait(gpu, &bo, 0), -ETIME);
	EXPECT_EQ(hw_bo_wait(gpu, &bo, -5), -ETIME);
	ASSERT_EQ(fake->num_calls, 3);
	w = call_arg(fake, 0);
	EXPECT_EQ(w->bo_handle, bo.handle);
	EXPECT_EQ(w->timeout_ns, 1000);
	EXPECT_EQ(((const struct drm_i915_gem_wait *)call_arg(fake, 2))->timeout_ns, -1);
	hw_bo_fini(gpu, &bo);
	hw_gpu_close(gpu);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

/* A device, a context, a target object and a batch object, ready to submit. */
struct fixture {
	struct hw_fake *fake;
	struct hw_gpu *gpu;
	struct hw_context ctx;
	struct hw_bo target;
	struct hw_bo batch;
	struct hw_exec_obj objs[2];
	struct hw_exec eb;
};

static void fixture_init(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	fx->fake = fake_new();
	ASSERT_NOT_NULL(fx->fake);
	ASSERT_EQ(open_fake(fx->fake, &fx->gpu, NULL, 0), 0);
	ASSERT_EQ(hw_context_init(fx->gpu, &fx->ctx), 0);
	ASSERT_EQ(hw_bo_init(fx->gpu, &fx->target, 64 << 10, NULL, 0, 0), 0);
	ASSERT_EQ(hw_bo_init(fx->gpu, &fx->batch, 4096, NULL, 0, 0), 0);
	ASSERT_EQ(hw_bo_mmap(fx->gpu, &fx->batch, HW_MMAP_WB), 0);
	ASSERT_EQ(hw_batch_nop(fx->batch.map, 1024), 2);
	/* The target above bit 47 exercises the canonical form. */
	fx->objs[0] = (struct hw_exec_obj){&fx->target, 0x800000010000ull, HW_EXEC_OBJ_WRITE};
	fx->objs[1] = (struct hw_exec_obj){&fx->batch, 0x100000, 0};
	fx->eb = (struct hw_exec){
	    .ctx = &fx->ctx,
	    .engine = HW_ENGINE_BLT,
	    .objs = fx->objs,
	    .count = 2,
	    .batch_len = 8,
	};
	hw_fake_clear_calls(fx->fake);
}

static void fixture_fini(struct fixture *fx)
{
	hw_bo_fini(fx->gpu, &fx->batch);
	hw_bo_fini(fx->gpu, &fx->target);
	hw_context_fini(fx->gpu, &fx->ctx);
	hw_gpu_close(fx->gpu);
	expect_no_leaks(fx->fake);
	hw_fake_free(fx->fake);
}

KTEST(hw_exec_submit_softpins_every_object)
{
	const struct drm_i915_gem_execbuffer2 *exec;
	struct fixture fx;
	int i;

	fixture_init(&fx);
	ASSERT_EQ(hw_exec_submit(fx.gpu, &fx.eb, NULL), 0);
	ASSERT_EQ(fx.fake->num_calls, 1);
	i = hw_fake_find(fx.fake, DRM_IOCTL_I915_GEM_EXECBUFFER2, 0);
	ASSERT_EQ(i, 0);
	exec = call_arg(fx.fake, i);
	EXPECT_EQ(fx.fake->calls[i].arg_size, sizeof(*exec));
	EXPECT_EQ(exec->buffer_count, 2);
	EXPECT_EQ(exec->batch_start_offset, 0);
	EXPECT_EQ(exec->batch_len, 8);
	EXPECT_UEQ(exec->flags, I915_EXEC_BLT | I915_EXEC_NO_RELOC);
	EXPECT_UEQ(exec->rsvd1, fx.ctx.ctx_id);
	EXPECT_EQ(exec->num_cliprects, 0);
	/* Objects in the caller's order, the batch last, at exactly the chosen addresses. */
	EXPECT_EQ(fx.fake->calls[i].objs[0].handle, fx.target.handle);
	EXPECT_UEQ(fx.fake->calls[i].objs[0].offset, 0xffff800000010000ull);
	EXPECT_UEQ(fx.fake->calls[i].objs[0].flags,
		   EXEC_OBJECT_PINNED | EXEC_OBJECT_SUPPORTS_48B_ADDRESS | EXEC_OBJECT_WRITE);
	EXPECT_EQ(fx.fake->calls[i].objs[0].relocation_count, 0);
	EXPECT_EQ(fx.fake->calls[i].objs[1].handle, fx.batch.handle);
	EXPECT_UEQ(fx.fake->calls[i].objs[1].offset, 0x100000);
	EXPECT_UEQ(fx.fake->calls[i].objs[1].flags,
		   EXEC_OBJECT_PINNED | EXEC_OBJECT_SUPPORTS_48B_ADDRESS);
	EXPECT_UEQ(fx.fake->calls[i].objs[1].relocs_ptr, 0);
	/* The render engine is the other legacy ring flag. */
	fx.eb.engine = HW_ENGINE_RENDER;
	ASSERT_EQ(hw_exec_submit(fx.gpu, &fx.eb, NULL), 0);
	exec = call_arg(fx.fake, 1);
	EXPECT_UEQ(exec->flags & I915_EXEC_RING_MASK, I915_EXEC_RENDER);
	fixture_fini(&fx);
}

KTEST(hw_exec_submit_many_objects)
{
	struct hw_exec_obj objs[40];
	struct hw_bo bos[39];
	struct fixture fx;
	unsigned int i;

	fixture_init(&fx);
	for (i = 0; i < 39; i++) {
		ASSERT_EQ(hw_bo_init(fx.gpu, &bos[i], 4096, NULL, 0, 0), 0);
		objs[i] = (struct hw_exec_obj){&bos[i], 0x200000 + i * 0x1000ull, 0};
	}
	objs[39] = fx.objs[1];
	fx.eb.objs = objs;
	fx.eb.count = 40;
	hw_fake_clear_calls(fx.fake);
	ASSERT_EQ(hw_exec_submit(fx.gpu, &fx.eb, NULL), 0);
	EXPECT_EQ(((const struct drm_i915_gem_execbuffer2 *)call_arg(fx.fake, 0))->buffer_count,
		  40);
	EXPECT_UEQ(fx.fake->calls[0].objs[15].offset, 0x200000 + 15 * 0x1000ull);
	for (i = 0; i < 39; i++)
		hw_bo_fini(fx.gpu, &bos[i]);
	fixture_fini(&fx);
}

KTEST(hw_exec_submit_rejects_bad_submissions)
{
	struct fixture fx;

	fixture_init(&fx);
	fx.objs[0].offset = 0x10010; /* not page aligned */
	EXPECT_EQ(hw_exec_submit(fx.gpu, &fx.eb, NULL), -EINVAL);
	fx.objs[0].offset = fx.ctx.vm_size - 4096; /* runs off the end of the VM */
	EXPECT_EQ(hw_exec_submit(fx.gpu, &fx.eb, NULL), -EINVAL);
	fx.objs[0].offset = 0x10000;
	fx.objs[0].flags = 1u << 9;
	EXPECT_EQ(hw_exec_submit(fx.gpu, &fx.eb, NULL), -EINVAL);
	fx.objs[0].flags = 0;
	fx.eb.batch_len = 12;
	EXPECT_EQ(hw_exec_submit(fx.gpu, &fx.eb, NULL), -EINVAL);
	fx.eb.batch_len = 8;
	fx.eb.batch_start = 4096;
	EXPECT_EQ(hw_exec_submit(fx.gpu, &fx.eb, NULL), -EINVAL);
	fx.eb.batch_start = 0;
	fx.eb.count = 0;
	EXPECT_EQ(hw_exec_submit(fx.gpu, &fx.eb, NULL), -EINVAL);
	fx.eb.count = 2;
	fx.eb.engine = (enum hw_engine)9;
	EXPECT_EQ(hw_exec_submit(fx.gpu, &fx.eb, NULL), -EINVAL);
	EXPECT_EQ(hw_exec_submit(fx.gpu, NULL, NULL), -EINVAL);
	/* Nothing reached the kernel. */
	EXPECT_EQ(fx.fake->num_calls, 0);
	fixture_fini(&fx);
}

KTEST(hw_exec_submit_out_fence_becomes_dma_fence)
{
	const struct drm_i915_gem_execbuffer2 *exec;
	struct dma_fence *f1, *f2;
	long live = dma_fence_live_count();
	struct fixture fx;

	fixture_init(&fx);
	ASSERT_EQ(hw_exec_submit(fx.gpu, &fx.eb, &f1), 0);
	ASSERT_NOT_NULL(f1);
	ASSERT_EQ(hw_exec_submit(fx.gpu, &fx.eb, &f2), 0);
	ASSERT_NOT_NULL(f2);
	ASSERT_EQ(hw_fake_find(fx.fake, DRM_IOCTL_I915_GEM_EXECBUFFER2_WR, 0), 0);
	exec = call_arg(fx.fake, 0);
	EXPECT_UEQ(exec->flags, I915_EXEC_BLT | I915_EXEC_NO_RELOC | I915_EXEC_FENCE_OUT);
	EXPECT_TRUE(dma_fence_is_later(f2, f1));
	EXPECT_FALSE(dma_fence_is_signaled(f1));
	/* Completion out of order is fine: each fence follows its own sync_file. */
	ASSERT_EQ(hw_fake_signal(fx.fake, 1, 1), 0);
	EXPECT_GT(dma_fence_wait_timeout(f2, false, WAIT_NS), 0);
	EXPECT_FALSE(dma_fence_is_signaled(f1));
	/* The first request was killed by a reset. */
	ASSERT_EQ(hw_fake_signal(fx.fake, 0, -EIO), 0);
	EXPECT_GT(dma_fence_wait_timeout(f1, false, WAIT_NS), 0);
	EXPECT_EQ(dma_fence_get_status(f1), -EIO);
	EXPECT_EQ(dma_fence_get_status(f2), 1);
	dma_fence_put(f1);
	dma_fence_put(f2);
	fixture_fini(&fx);
	EXPECT_EQ(dma_fence_live_count(), live);
}

KTEST(hw_exec_submit_fence_without_kernel_support)
{
	struct dma_fence *f = (void *)1;
	struct fixture fx;

	fixture_init(&fx);
	/* What a kernel without HAS_EXEC_FENCE would have reported at open. */
	((struct hw_gpu_info *)hw_gpu_info(fx.gpu))->has_exec_fence = false;
	EXPECT_EQ(hw_exec_submit(fx.gpu, &fx.eb, &f), -EOPNOTSUPP);
	EXPECT_NULL(f);
	EXPECT_EQ(fx.fake->num_calls, 0);
	EXPECT_EQ(hw_exec_submit(fx.gpu, &fx.eb, NULL), 0);
	fixture_fini(&fx);
}

KTEST(hw_exec_submit_eio_wedges_the_device)
{
	struct dma_fence *f = (void *)1;
	struct fixture fx;

	fixture_init(&fx);
	fx.fake->fail_request = DRM_IOCTL_I915_GEM_EXECBUFFER2_WR;
	fx.fake->fail_err = -EIO;
	fx.fake->fail_times = 1;
	EXPECT_EQ(hw_exec_submit(fx.gpu, &fx.eb, &f), -EIO);
	EXPECT_NULL(f);
	EXPECT_TRUE(hw_gpu_is_wedged(fx.gpu));
	/* Later submissions fail at once, without asking the kernel. */
	EXPECT_EQ(hw_exec_submit(fx.gpu, &fx.eb, NULL), -EIO);
	EXPECT_EQ(fx.fake->num_calls, 1);
	fixture_fini(&fx);
}

KTEST(hw_exec_submit_passes_kernel_errors)
{
	static const int errs[] = {-ENOSPC, -ENOMEM, -EINTR, -EINVAL};
	struct dma_fence *f;
	struct fixture fx;
	unsigned int i;

	fixture_init(&fx);
	for (i = 0; i < 4; i++) {
		fx.fake->fail_request = DRM_IOCTL_I915_GEM_EXECBUFFER2_WR;
		fx.fake->fail_err = errs[i];
		fx.fake->fail_times = 1;
		EXPECT_EQ(hw_exec_submit(fx.gpu, &fx.eb, &f), errs[i]);
		EXPECT_NULL(f);
	}
	EXPECT_FALSE(hw_gpu_is_wedged(fx.gpu));
	EXPECT_EQ(fx.fake->num_fences, 0);
	fixture_fini(&fx);
}

KTEST(hw_exec_submit_fence_alloc_failure_closes_the_fd)
{
	struct dma_fence *f = (void *)1;
	struct fixture fx;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	fixture_init(&fx);
	fault_set_nth(&ttm_fault_fence_alloc, 1);
	EXPECT_EQ(hw_exec_submit(fx.gpu, &fx.eb, &f), -ENOMEM);
	EXPECT_NULL(f);
	ASSERT_EQ(fx.fake->num_fences, 1);
	EXPECT_TRUE(fx.fake->fences[0].closed);
	fault_reset(&ttm_fault_fence_alloc);
	fixture_fini(&fx);
}

KTEST(hw_gpu_close_cancels_pending_fences)
{
	struct dma_fence *f;
	struct fixture fx;

	fixture_init(&fx);
	ASSERT_EQ(hw_exec_submit(fx.gpu, &fx.eb, &f), 0);
	hw_bo_fini(fx.gpu, &fx.batch);
	hw_bo_fini(fx.gpu, &fx.target);
	hw_context_fini(fx.gpu, &fx.ctx);
	hw_gpu_close(fx.gpu);
	EXPECT_TRUE(dma_fence_test_signaled_flag(f));
	EXPECT_EQ(dma_fence_get_status(f), -ENODEV);
	dma_fence_put(f);
	expect_no_leaks(fx.fake);
	hw_fake_free(fx.fake);
}

KTEST(hw_exec_copy_batch_in_a_submission)
{
	struct fixture fx;
	unsigned int need = hw_batch_copy_dwords(64 << 10);
	int n;

	fixture_init(&fx);
	/* Eviction out of device memory: one blit from the old range to the new. */
	n = hw_batch_copy(fx.batch.map, 1024, 0x100000000ull, fx.objs[0].offset, 64 << 10);
	ASSERT_EQ(n, (int)need);
	fx.eb.batch_len = (uint32_t)n * 4;
	ASSERT_EQ(hw_exec_submit(fx.gpu, &fx.eb, NULL), 0);
	EXPECT_UEQ(((uint32_t *)fx.batch.map)[0], XY_FAST_COPY_BLT_CMD | 8);
	EXPECT_EQ(((const struct drm_i915_gem_execbuffer2 *)call_arg(fx.fake, 0))->batch_len,
		  n * 4);
	fixture_fini(&fx);
}

KTEST(hw_gpu_getparam_goes_through_the_table)
{
	struct hw_fake *fake = fake_new();
	struct hw_gpu *gpu;
	int v = -1;

	ASSERT_NOT_NULL(fake);
	ASSERT_EQ(open_fake(fake, &gpu, NULL, 0), 0);
	hw_fake_clear_calls(fake);
	EXPECT_EQ(hw_gpu_getparam(gpu, I915_PARAM_CHIPSET_ID, &v), 0);
	EXPECT_EQ(v, 0x9a49);
	EXPECT_EQ(hw_gpu_getparam(gpu, 12345, &v), -EINVAL);
	EXPECT_EQ(v, 0);
	EXPECT_EQ(hw_fake_count(fake, DRM_IOCTL_I915_GETPARAM), 2);
	hw_gpu_close(gpu);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}

/*
 * Everything a driver does in one go: open, context, objects, map, a
 * fenced submission, wait, teardown. Returns the first error; on error
 * whatever was set up is torn down again.
 */
static int whole_flow(struct hw_fake *fake, int *fence_status)
{
	const struct hw_region_id sys = {HW_MEMORY_CLASS_SYSTEM, 0};
	struct hw_exec_obj objs[2];
	struct dma_fence *f = NULL;
	struct hw_bo bo = {0}, batch = {0};
	struct hw_context ctx = {0};
	struct hw_exec eb;
	struct hw_gpu *gpu;
	int ret;

	ret = open_fake(fake, &gpu, NULL, 0);
	if (ret)
		return ret;
	ret = hw_context_init(gpu, &ctx);
	if (!ret)
		ret = hw_bo_init(gpu, &bo, 8192, &sys, 1, 0);
	if (!ret)
		ret = hw_bo_init(gpu, &batch, 4096, NULL, 0, 0);
	if (!ret)
		ret = hw_bo_mmap(gpu, &batch, HW_MMAP_WB);
	if (!ret) {
		hw_batch_nop(batch.map, 1024);
		objs[0] = (struct hw_exec_obj){&bo, 0x10000, HW_EXEC_OBJ_WRITE};
		objs[1] = (struct hw_exec_obj){&batch, 0x20000, 0};
		eb = (struct hw_exec){.ctx = &ctx,
				      .engine = HW_ENGINE_RENDER,
				      .objs = objs,
				      .count = 2,
				      .batch_len = 8};
		ret = hw_exec_submit(gpu, &eb, &f);
	}
	if (!ret) {
		ret = hw_fake_signal(fake, fake->num_fences - 1, 1);
		if (!ret && dma_fence_wait_timeout(f, false, WAIT_NS) <= 0)
			ret = -ETIMEDOUT;
		*fence_status = dma_fence_get_status(f);
	}
	if (!ret)
		ret = hw_bo_wait(gpu, &bo, 0);
	dma_fence_put(f);
	hw_bo_fini(gpu, &batch);
	hw_bo_fini(gpu, &bo);
	if (ctx.ctx_id)
		hw_context_fini(gpu, &ctx);
	hw_gpu_close(gpu);
	return ret;
}

static unsigned long failed_request(struct hw_fake *fake)
{
	unsigned int i;

	for (i = 0; i < fake->num_calls; i++)
		if (fake->calls[i].ret == -ENOSPC)
			return fake->calls[i].request;
	return 0;
}

static bool is_teardown(unsigned long req)
{
	return req == DRM_IOCTL_GEM_CLOSE || req == DRM_IOCTL_I915_GEM_CONTEXT_DESTROY ||
	       req == DRM_IOCTL_I915_GEM_VM_DESTROY;
}

KTEST(hw_fault_sweep_every_ioctl_fails_cleanly)
{
	unsigned int n, failures = 0;
	long live = dma_fence_live_count();

	for (n = 1; n < 64; n++) {
		struct hw_fake *fake = fake_new();
		int status = 0, ret;
		bool fired;

		ASSERT_NOT_NULL(fake);
		fake->fail_nth = n;
		fake->fail_err = -ENOSPC;
		ret = whole_flow(fake, &status);
		fired = fake->fail_nth == 0;
		if (fired) {
			unsigned long req = failed_request(fake);

			failures++;
			if (is_teardown(req)) {
				/*
				 * A failing close/destroy cannot be reported (the
				 * _fini calls are void, as in the kernel): the flow
				 * succeeds, and the fake still counts that object.
				 */
				EXPECT_EQ(ret, 0);
				fake->live_handles = fake->live_ctx = fake->live_vms = 0;
			} else {
				/* The failure reaches the caller: as an error, or on the fence. */
				KTEST_CHECK_(ret == -ENOSPC || ret == -EOPNOTSUPP ||
						 status == -ENOSPC,
					     false, "ioctl %u (0x%lx) failing gave %d, fence %d", n,
					     req, ret, status);
			}
		} else {
			/* Fewer ioctls than n: the flow ran clean, the sweep is done. */
			EXPECT_EQ(ret, 0);
			EXPECT_EQ(status, 1);
		}
		expect_no_leaks(fake);
		hw_fake_free(fake);
		if (!fired)
			break;
	}
	/* open 6, context 3, objects 2, map 1, exec 1, fence 1, wait 1, teardown 4 */
	EXPECT_EQ(failures, 19);
	EXPECT_LT(n, 64);
	EXPECT_EQ(dma_fence_live_count(), live);
}

struct pairs {
	char text[512];
	size_t len;
};

static void collect_pair(void *data, const char *key, const char *value)
{
	struct pairs *p = data;
	int n = snprintf(p->text + p->len, sizeof(p->text) - p->len, "%s=%s;", key, value);

	if (n > 0 && (size_t)n < sizeof(p->text) - p->len)
		p->len += (size_t)n;
}

KTEST(hw_gpu_describe_lists_the_machine_block_pairs)
{
	struct hw_fake *fake = fake_new();
	struct pairs p = {.len = 0};
	struct hw_gpu *gpu;

	ASSERT_NOT_NULL(fake);
	hw_fake_make_discrete(fake);
	ASSERT_EQ(open_fake(fake, &gpu, NULL, 0), 0);
	hw_gpu_describe(hw_gpu_info(gpu), collect_pair, &p);
	EXPECT_STREQ(p.text, "device=/dev/dri/renderD128;pci_id=8086:9a49;driver=i915 1.6.0;"
			     "softpin=1;exec_fence=1;aperture_bytes=268435456;discrete=1;"
			     "lmem_bytes=4294967296;lmem_visible_bytes=268435456;");
	hw_gpu_close(gpu);
	expect_no_leaks(fake);
	hw_fake_free(fake);
}
