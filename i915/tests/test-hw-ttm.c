// SPDX-License-Identifier: MIT
/*
 * hw_ttm against the recording fake i915: the addresses the TT range
 * manager assigns are exactly the softpin offsets execbuffer2 receives,
 * eviction reassigns them, and VRAM moves are blitter batches whose fence
 * is what the BO waits for.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include <i915_drm.h>
#include <linux/sync_file.h>

#include "hw_fake.h"
#include "hw_ttm.h"
#include "ktest.h"

#define WAIT_NS (5ll * 1000 * 1000 * 1000)

struct fixture {
	struct hw_fake *fake;
	struct hw_gpu *gpu;
	struct hw_ttm_device *dev;
	unsigned int fences; /* out-fences handed out so far */
};

static int fixture_init(struct fixture *fx, bool discrete, const struct hw_ttm_device_args *args)
{
	struct hw_open_args oa = {.sys = &hw_fake_ops};
	int ret;

	memset(fx, 0, sizeof(*fx));
	fx->fake = hw_fake_new();
	if (!fx->fake)
		return -ENOMEM;
	if (discrete)
		hw_fake_make_discrete(fx->fake);
	oa.sys_data = fx->fake;
	ret = hw_gpu_open(&oa, &fx->gpu);
	if (ret)
		return ret;
	return hw_ttm_device_create(fx->gpu, args, &fx->dev);
}

static void fixture_fini(struct fixture *fx)
{
	char why[128] = "";

	EXPECT_EQ(hw_ttm_device_destroy(fx->dev), 0);
	hw_gpu_close(fx->gpu);
	KTEST_CHECK_(hw_fake_clean(fx->fake, why, sizeof(why)), false, "%s", why);
	hw_fake_free(fx->fake);
}

/* The n-th recorded execbuffer2 (0-based), or -1. */
static int nth_exec(struct hw_fake *fake, unsigned int nth)
{
	int i = -1;

	for (unsigned int k = 0; k <= nth; k++) {
		i = hw_fake_find(fake, DRM_IOCTL_I915_GEM_EXECBUFFER2_WR, (unsigned int)(i + 1));
		if (i < 0)
			return -1;
	}
	return i;
}

static const struct drm_i915_gem_execbuffer2 *exec_arg(struct hw_fake *fake, int i)
{
	return (const struct drm_i915_gem_execbuffer2 *)fake->calls[i].arg;
}

/* Run one hw_ttm_exec, signal its fence (as the GPU would) and wait for it. */
static int exec_and_retire(struct fixture *fx, struct hw_ttm_bo *const *bos, unsigned int n,
			   struct hw_ttm_bo *batch)
{
	struct dma_fence *f = NULL;
	int ret = hw_ttm_exec(fx->dev, bos, n, batch, &f);

	if (ret)
		return ret;
	ret = hw_fake_signal(fx->fake, fx->fences++, 1);
	if (!ret && dma_fence_wait_timeout(f, false, WAIT_NS) <= 0)
		ret = -ETIME;
	dma_fence_put(f);
	return ret;
}

static uint64_t addr_of(struct hw_ttm_bo *bo)
{
	uint64_t a;

	ttm_bo_reserve(&bo->tbo, false, false, NULL);
	a = hw_ttm_bo_gpu_addr(bo);
	ttm_bo_unreserve(&bo->tbo);
	return a;
}

static uint32_t handle_of(struct hw_ttm_bo *bo)
{
	uint32_t h;

	ttm_bo_reserve(&bo->tbo, false, false, NULL);
	h = hw_ttm_bo_gem(bo) ? hw_ttm_bo_gem(bo)->handle : 0;
	ttm_bo_unreserve(&bo->tbo);
	return h;
}

KTEST(hw_ttm_exec_softpins_at_range_manager_addresses)
{
	struct hw_ttm_bo *bos[3], *batch;
	const struct drm_i915_gem_execbuffer2 *eb;
	struct dma_fence *f = NULL;
	struct fixture fx;
	int i;

	ASSERT_EQ(fixture_init(&fx, false, NULL), 0);
	EXPECT_FALSE(fx.dev->has_vram);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(
		    hw_ttm_bo_create(fx.dev, 8192 * (i + 1), &hw_ttm_placement_system, &bos[i]), 0);
	ASSERT_EQ(hw_ttm_bo_create(fx.dev, 4096, &hw_ttm_placement_system, &batch), 0);
	/* SYSTEM has a GEM object but no GPU address yet. */
	EXPECT_NE(handle_of(bos[0]), 0);
	EXPECT_UEQ(addr_of(bos[0]), UINT64_MAX);

	hw_fake_clear_calls(fx.fake);
	ASSERT_EQ(hw_ttm_exec(fx.dev, bos, 3, batch, &f), 0);
	ASSERT_NOT_NULL(f);
	i = nth_exec(fx.fake, 0);
	ASSERT_GE(i, 0);
	eb = exec_arg(fx.fake, i);
	EXPECT_EQ(eb->buffer_count, 4);
	EXPECT_UEQ(eb->flags & I915_EXEC_RING_MASK, I915_EXEC_RENDER);
	for (int k = 0; k < 4; k++) {
		struct hw_ttm_bo *bo = k < 3 ? bos[k] : batch;
		const struct drm_i915_gem_exec_object2 *o = &fx.fake->calls[i].objs[k];
		uint64_t addr = addr_of(bo);

		EXPECT_NE(addr, UINT64_MAX);
		EXPECT_EQ(o->handle, handle_of(bo));
		EXPECT_UEQ(o->offset, hw_canonical_addr(addr));
		EXPECT_TRUE(o->flags & EXEC_OBJECT_PINNED);
		EXPECT_EQ(o->relocation_count, 0);
		EXPECT_EQ(!!(o->flags & EXEC_OBJECT_WRITE), k < 3);
		EXPECT_EQ(bo->tbo.resource->mem_type, TTM_PL_TT);
	}
	/* Distinct, non-overlapping ranges. */
	EXPECT_TRUE(addr_of(bos[0]) + 8192 <= addr_of(bos[1]) ||
		    addr_of(bos[1]) + 16384 <= addr_of(bos[0]));

	/* The fence is on every BO until the GPU completes the batch. */
	EXPECT_FALSE(dma_resv_test_signaled(bos[2]->tbo.resv, DMA_RESV_USAGE_BOOKKEEP));
	EXPECT_FALSE(dma_resv_test_signaled(batch->tbo.resv, DMA_RESV_USAGE_BOOKKEEP));
	ASSERT_EQ(hw_fake_signal(fx.fake, 0, 1), 0);
	EXPECT_GT(dma_fence_wait_timeout(f, false, WAIT_NS), 0);
	EXPECT_EQ(dma_fence_get_status(f), 1);
	EXPECT_TRUE(dma_resv_test_signaled(bos[2]->tbo.resv, DMA_RESV_USAGE_BOOKKEEP));
	dma_fence_put(f);

	for (i = 0; i < 3; i++)
		ttm_bo_put(&bos[i]->tbo);
	ttm_bo_put(&batch->tbo);
	fixture_fini(&fx);
}

KTEST(hw_ttm_exec_after_eviction_submits_the_new_address)
{
	/* Three pages of GPU address space: A, B, C and the batch compete. */
	struct hw_ttm_device_args args = {.tt_size = 3 * 4096};
	struct hw_ttm_bo *a, *b, *c, *batch;
	uint64_t a_first, a_now;
	struct fixture fx;
	int i;

	ASSERT_EQ(fixture_init(&fx, false, &args), 0);
	ASSERT_EQ(hw_ttm_bo_create(fx.dev, 4096, &hw_ttm_placement_system, &a), 0);
	ASSERT_EQ(hw_ttm_bo_create(fx.dev, 4096, &hw_ttm_placement_system, &b), 0);
	ASSERT_EQ(hw_ttm_bo_create(fx.dev, 4096, &hw_ttm_placement_system, &c), 0);
	ASSERT_EQ(hw_ttm_bo_create(fx.dev, 4096, &hw_ttm_placement_system, &batch), 0);

	ASSERT_EQ(exec_and_retire(&fx, &a, 1, batch), 0);
	a_first = addr_of(a);
	ASSERT_EQ(exec_and_retire(&fx, &b, 1, batch), 0);
	/* TT is full: C takes the least recently used address, A's. */
	ASSERT_EQ(exec_and_retire(&fx, &c, 1, batch), 0);
	EXPECT_UEQ(addr_of(c), a_first);
	EXPECT_EQ(a->tbo.resource->mem_type, TTM_PL_SYSTEM);
	EXPECT_UEQ(addr_of(a), UINT64_MAX);
	EXPECT_GE(atomic_load(&fx.dev->bdev.stats.evictions), 1);

	/* A comes back where B was, and that is what the GPU is told. */
	hw_fake_clear_calls(fx.fake);
	ASSERT_EQ(exec_and_retire(&fx, &a, 1, batch), 0);
	a_now = addr_of(a);
	EXPECT_NE(a_now, UINT64_MAX);
	EXPECT_NE(a_now, a_first);
	EXPECT_UEQ(addr_of(b), UINT64_MAX);
	i = nth_exec(fx.fake, 0);
	ASSERT_GE(i, 0);
	EXPECT_EQ(fx.fake->calls[i].objs[0].handle, handle_of(a));
	EXPECT_UEQ(fx.fake->calls[i].objs[0].offset, hw_canonical_addr(a_now));
	EXPECT_UEQ(fx.fake->calls[i].objs[1].offset, hw_canonical_addr(addr_of(batch)));
	/* No copy for an address change: no blit was submitted. */
	EXPECT_EQ(hw_fake_count(fx.fake, DRM_IOCTL_I915_GEM_EXECBUFFER2_WR), 1);
	EXPECT_UEQ(atomic_load(&fx.dev->blits), 0);

	ttm_bo_put(&a->tbo);
	ttm_bo_put(&b->tbo);
	ttm_bo_put(&c->tbo);
	ttm_bo_put(&batch->tbo);
	fixture_fini(&fx);
}

KTEST(hw_ttm_exec_rejects_bad_lists)
{
	struct hw_ttm_bo *a, *batch, *list[2];
	struct dma_fence *f = (struct dma_fence *)1;
	struct fixture fx;

	ASSERT_EQ(fixture_init(&fx, false, NULL), 0);
	ASSERT_EQ(hw_ttm_bo_create(fx.dev, 4096, &hw_ttm_placement_system, &a), 0);
	ASSERT_EQ(hw_ttm_bo_create(fx.dev, 4096, &hw_ttm_placement_system, &batch), 0);
	list[0] = a;
	list[1] = a;
	EXPECT_EQ(hw_ttm_exec(fx.dev, list, 2, batch, &f), -EINVAL);
	EXPECT_NULL(f);
	EXPECT_EQ(hw_ttm_exec(fx.dev, list, 1, a, &f), -EINVAL);
	EXPECT_EQ(hw_ttm_exec(fx.dev, list, 1, NULL, &f), -EINVAL);
	EXPECT_EQ(hw_fake_count(fx.fake, DRM_IOCTL_I915_GEM_EXECBUFFER2_WR), 0);
	ttm_bo_put(&a->tbo);
	ttm_bo_put(&batch->tbo);
	fixture_fini(&fx);
}

KTEST(hw_ttm_exec_wedged_gpu_leaves_no_fence)
{
	struct hw_ttm_bo *a, *batch;
	struct dma_fence *f = NULL;
	struct fixture fx;

	ASSERT_EQ(fixture_init(&fx, false, NULL), 0);
	ASSERT_EQ(hw_ttm_bo_create(fx.dev, 4096, &hw_ttm_placement_system, &a), 0);
	ASSERT_EQ(hw_ttm_bo_create(fx.dev, 4096, &hw_ttm_placement_system, &batch), 0);
	fx.fake->fail_request = DRM_IOCTL_I915_GEM_EXECBUFFER2_WR;
	fx.fake->fail_err = -EIO;
	fx.fake->fail_times = 1;
	EXPECT_EQ(hw_ttm_exec(fx.dev, &a, 1, batch, &f), -EIO);
	EXPECT_NULL(f);
	EXPECT_TRUE(dma_resv_test_signaled(a->tbo.resv, DMA_RESV_USAGE_BOOKKEEP));
	EXPECT_TRUE(hw_gpu_is_wedged(fx.gpu));
	ttm_bo_put(&a->tbo);
	ttm_bo_put(&batch->tbo);
	fixture_fini(&fx);
}

/* Check the i-th call is a blit copying @src_handle to @dst_handle through the window. */
static void expect_blit(struct fixture *fx, int i, uint32_t dst_handle, uint32_t src_handle)
{
	const struct drm_i915_gem_execbuffer2 *eb = exec_arg(fx->fake, i);
	const struct drm_i915_gem_exec_object2 *o = fx->fake->calls[i].objs;

	EXPECT_UEQ(eb->flags & I915_EXEC_RING_MASK, I915_EXEC_BLT);
	EXPECT_EQ(eb->buffer_count, 3);
	EXPECT_EQ(o[0].handle, dst_handle);
	EXPECT_UEQ(o[0].offset, hw_canonical_addr(fx->dev->copy_base));
	EXPECT_TRUE(o[0].flags & EXEC_OBJECT_WRITE);
	EXPECT_EQ(o[1].handle, src_handle);
	EXPECT_UEQ(o[1].offset, hw_canonical_addr(fx->dev->copy_base + fx->dev->copy_slot));
	EXPECT_FALSE(o[1].flags & EXEC_OBJECT_WRITE);
	EXPECT_UEQ(o[2].offset, hw_canonical_addr(fx->dev->copy_base + 2 * fx->dev->copy_slot));
	for (int k = 0; k < 3; k++)
		EXPECT_TRUE(o[k].flags & EXEC_OBJECT_PINNED);
}

KTEST(hw_ttm_vram_moves_are_blits_behind_their_fence)
{
	struct ttm_operation_ctx ctx = {0};
	struct hw_ttm_bo *bo, *batch;
	uint32_t lmem_handle, sys_handle;
	struct dma_fence *f = NULL;
	struct fixture fx;
	int i, c;

	ASSERT_EQ(fixture_init(&fx, true, NULL), 0);
	ASSERT_TRUE(fx.dev->has_vram);
	ASSERT_EQ(hw_ttm_bo_create(fx.dev, 65536, &hw_ttm_placement_system, &bo), 0);
	ASSERT_EQ(hw_ttm_bo_create(fx.dev, 4096, &hw_ttm_placement_system, &batch), 0);
	sys_handle = handle_of(bo);

	/* SYSTEM -> VRAM: a new device-local object, filled by a blit. */
	hw_fake_clear_calls(fx.fake);
	ASSERT_EQ(ttm_bo_reserve(&bo->tbo, false, false, NULL), 0);
	ASSERT_EQ(ttm_bo_validate(&bo->tbo, &hw_ttm_placement_vram, &ctx), 0);
	EXPECT_EQ(bo->tbo.resource->mem_type, TTM_PL_VRAM);
	lmem_handle = bo->lmem.handle;
	EXPECT_NE(lmem_handle, 0);
	EXPECT_EQ(hw_ttm_bo_gem(bo)->handle, lmem_handle);
	ttm_bo_unreserve(&bo->tbo);
	c = hw_fake_find(fx.fake, DRM_IOCTL_I915_GEM_CREATE_EXT, 0);
	ASSERT_GE(c, 0);
	EXPECT_EQ(fx.fake->calls[c].num_regions, 1);
	EXPECT_EQ(fx.fake->calls[c].regions[0].memory_class, HW_MEMORY_CLASS_DEVICE);
	i = nth_exec(fx.fake, 0);
	ASSERT_GE(i, 0);
	expect_blit(&fx, i, lmem_handle, sys_handle);
	EXPECT_UEQ(atomic_load(&fx.dev->blits), 1);
	/* Pipelined: the BO waits for the copy's fence. */
	EXPECT_FALSE(dma_resv_test_signaled(bo->tbo.resv, DMA_RESV_USAGE_KERNEL));
	ASSERT_EQ(hw_fake_signal(fx.fake, fx.fences++, 1), 0);
	EXPECT_GT(dma_resv_wait_timeout(bo->tbo.resv, DMA_RESV_USAGE_KERNEL, false, WAIT_NS), 0);

	/* exec needs it in TT: VRAM -> TT is a blit back, then the softpinned exec. */
	hw_fake_clear_calls(fx.fake);
	ASSERT_EQ(hw_ttm_exec(fx.dev, &bo, 1, batch, &f), 0);
	EXPECT_EQ(hw_fake_count(fx.fake, DRM_IOCTL_I915_GEM_EXECBUFFER2_WR), 2);
	i = nth_exec(fx.fake, 0);
	ASSERT_GE(i, 0);
	expect_blit(&fx, i, handle_of(bo), lmem_handle);
	EXPECT_EQ(bo->lmem.handle, 0);
	i = nth_exec(fx.fake, 1);
	ASSERT_GE(i, 0);
	EXPECT_UEQ(exec_arg(fx.fake, i)->flags & I915_EXEC_RING_MASK, I915_EXEC_RENDER);
	EXPECT_EQ(fx.fake->calls[i].objs[0].handle, handle_of(bo));
	EXPECT_UEQ(fx.fake->calls[i].objs[0].offset, hw_canonical_addr(addr_of(bo)));
	EXPECT_UEQ(atomic_load(&fx.dev->blits), 2);

	/* The copy's fence and the batch's: the BO is idle when both signal. */
	ASSERT_EQ(hw_fake_signal(fx.fake, fx.fences++, 1), 0);
	ASSERT_EQ(hw_fake_signal(fx.fake, fx.fences++, 1), 0);
	EXPECT_GT(dma_fence_wait_timeout(f, false, WAIT_NS), 0);
	EXPECT_GT(dma_resv_wait_timeout(bo->tbo.resv, DMA_RESV_USAGE_BOOKKEEP, false, WAIT_NS), 0);
	dma_fence_put(f);

	ttm_bo_put(&bo->tbo);
	ttm_bo_put(&batch->tbo);
	fixture_fini(&fx);
}

/*
 * Plays the GPU for moves that block inside one call (validate waiting
 * for VRAM's move fence): completes every out-fence as it appears.
 */
struct gpu_thread {
	struct hw_fake *fake;
	atomic_bool stop;
	unsigned int done;
};

static void *gpu_thread_fn(void *arg)
{
	struct gpu_thread *g = arg;
	const struct timespec ms = {0, 1000 * 1000};

	while (!atomic_load(&g->stop)) {
		unsigned int have;

		pthread_mutex_lock(&g->fake->lock);
		have = g->fake->num_fences;
		pthread_mutex_unlock(&g->fake->lock);
		while (g->done < have)
			hw_fake_signal(g->fake, g->done++, 1);
		nanosleep(&ms, NULL);
	}
	return NULL;
}

KTEST(hw_ttm_vram_eviction_blits_to_system)
{
	struct gpu_thread g = {0};
	pthread_t thread;
	/* Room for one 64 KiB BO in VRAM: the second evicts the first. */
	struct hw_ttm_device_args args = {.vram_size = 65536};
	struct hw_ttm_bo *a, *b;
	struct fixture fx;
	int i, ret;

	ASSERT_EQ(fixture_init(&fx, true, &args), 0);
	ASSERT_EQ(hw_ttm_bo_create(fx.dev, 65536, &hw_ttm_placement_vram, &a), 0);
	/* Born in VRAM: no content to copy, so no blit. */
	EXPECT_UEQ(atomic_load(&fx.dev->blits), 0);
	hw_fake_clear_calls(fx.fake);
	g.fake = fx.fake;
	ASSERT_EQ(pthread_create(&thread, NULL, gpu_thread_fn, &g), 0);
	ret = hw_ttm_bo_create(fx.dev, 65536, &hw_ttm_placement_vram, &b);
	atomic_store(&g.stop, true);
	pthread_join(thread, NULL);
	ASSERT_EQ(ret, 0);
	EXPECT_EQ(a->tbo.resource->mem_type, TTM_PL_SYSTEM);
	EXPECT_EQ(b->tbo.resource->mem_type, TTM_PL_VRAM);
	EXPECT_UEQ(atomic_load(&fx.dev->blits), 1);
	i = nth_exec(fx.fake, 0);
	ASSERT_GE(i, 0);
	expect_blit(&fx, i, handle_of(a), fx.fake->calls[i].objs[1].handle);
	EXPECT_EQ(a->lmem.handle, 0);
	EXPECT_EQ(g.done, 1);
	EXPECT_GT(dma_resv_wait_timeout(a->tbo.resv, DMA_RESV_USAGE_KERNEL, false, WAIT_NS), 0);
	ttm_bo_put(&a->tbo);
	ttm_bo_put(&b->tbo);
	fixture_fini(&fx);
}

/*
 * The whole hw_ttm flow on a discrete part (device, BOs in SYSTEM and
 * VRAM, an exec that blits one out of VRAM, a move into VRAM) with the
 * @nth ioctl failing. Returns the first error, or 0.
 */
static int ttm_flow(struct fixture *fx, struct hw_ttm_bo **bos)
{
	struct ttm_operation_ctx ctx = {0};
	struct dma_fence *f = NULL;
	int ret;

	ret = hw_ttm_device_create(fx->gpu, NULL, &fx->dev);
	if (ret)
		return ret;
	ret = hw_ttm_bo_create(fx->dev, 65536, &hw_ttm_placement_system, &bos[0]);
	if (!ret)
		ret = hw_ttm_bo_create(fx->dev, 65536, &hw_ttm_placement_vram, &bos[1]);
	if (!ret)
		ret = hw_ttm_bo_create(fx->dev, 4096, &hw_ttm_placement_system, &bos[2]);
	if (!ret)
		ret = hw_ttm_exec(fx->dev, bos, 2, bos[2], &f);
	if (!ret) {
		if (dma_fence_wait_timeout(f, false, WAIT_NS) <= 0)
			ret = -ETIME;
		dma_fence_put(f);
	}
	if (!ret) {
		ret = ttm_bo_reserve(&bos[0]->tbo, false, false, NULL);
		if (!ret) {
			ret = ttm_bo_validate(&bos[0]->tbo, &hw_ttm_placement_vram, &ctx);
			ttm_bo_unreserve(&bos[0]->tbo);
		}
	}
	return ret;
}

KTEST(hw_ttm_every_failing_ioctl_is_reported_and_leaks_nothing)
{
	unsigned int failures = 0;

	for (unsigned int n = 1; n < 200; n++) {
		struct hw_ttm_bo *bos[3] = {0};
		struct gpu_thread g = {0};
		struct hw_open_args oa = {.sys = &hw_fake_ops};
		struct fixture fx = {0};
		pthread_t thread;
		int teardown_leak = 0;
		bool fired;
		int ret;

		fx.fake = hw_fake_new();
		ASSERT_NOT_NULL(fx.fake);
		hw_fake_make_discrete(fx.fake);
		oa.sys_data = fx.fake;
		ASSERT_EQ(hw_gpu_open(&oa, &fx.gpu), 0);
		g.fake = fx.fake;
		ASSERT_EQ(pthread_create(&thread, NULL, gpu_thread_fn, &g), 0);

		pthread_mutex_lock(&fx.fake->lock);
		fx.fake->fail_err = -ENOSPC;
		fx.fake->fail_nth = n;
		pthread_mutex_unlock(&fx.fake->lock);
		ret = ttm_flow(&fx, bos);
		pthread_mutex_lock(&fx.fake->lock);
		fired = fx.fake->fail_nth == 0;
		fx.fake->fail_nth = 0;
		pthread_mutex_unlock(&fx.fake->lock);

		if (fired) {
			unsigned long req = 0;

			failures++;
			pthread_mutex_lock(&fx.fake->lock);
			for (unsigned int i = 0; i < fx.fake->num_calls && !req; i++)
				if (fx.fake->calls[i].ret == -ENOSPC)
					req = fx.fake->calls[i].request;
			pthread_mutex_unlock(&fx.fake->lock);
			if (req == DRM_IOCTL_GEM_CLOSE) {
				/*
				 * A failing close cannot be reported (fini is
				 * void); the fake still counts the object.
				 */
				teardown_leak = 1;
			} else if (req != SYNC_IOC_FILE_INFO) {
				/* Anything else reaches the caller. */
				KTEST_CHECK_(ret != 0, false,
					     "ioctl %u (0x%lx) failing was swallowed", n, req);
			}
		} else {
			/* Fewer ioctls than n: the flow ran clean, the sweep ends. */
			EXPECT_EQ(ret, 0);
		}
		for (int i = 0; i < 3; i++)
			if (bos[i])
				ttm_bo_put(&bos[i]->tbo);
		/* Idle everything (ghosts too) before the device goes. */
		if (fx.dev) {
			ttm_device_flush_delayed(&fx.dev->bdev, true);
			EXPECT_EQ(hw_ttm_device_destroy(fx.dev), 0);
		}
		atomic_store(&g.stop, true);
		pthread_join(thread, NULL);
		hw_gpu_close(fx.gpu);
		/*
		 * A fence whose sync_file query failed still signals (with the
		 * error); only GEM_CLOSE/destroy failures could leave the fake
		 * counting, and those are issued after the fault was disarmed.
		 */
		fx.fake->live_handles -= teardown_leak;
		KTEST_CHECK_(!fx.fake->live_handles && !fx.fake->live_maps && !fx.fake->live_ctx &&
				 !fx.fake->live_vms,
			     false, "ioctl %u failing (flow gave %d) leaked %d handles %d maps", n,
			     ret, fx.fake->live_handles, fx.fake->live_maps);
		hw_fake_free(fx.fake);
		if (!fired)
			break;
	}
	EXPECT_GT(failures, 5);
}
