// SPDX-License-Identifier: MIT
/*
 * hw_ttm - TTM over a real Intel GPU: TT is GPU address assignment in the
 * context's ppGTT, VRAM moves are blitter copies. See hw_ttm.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ttm/dma_resv.h>
#include <ttm/ttm_trace.h>
#include <ttm/ww_mutex.h>

#include "hw_faults.h"
#include "hw_ttm.h"

#define HW_TTM_PAGE 4096ull

/**
 * struct hw_ttm_tt - the tt of a hw BO: no pages of ours, one GEM object.
 * @tt: the TTM view (EXTERNAL: the kernel owns the pages).
 * @gem: the system-memory GEM object with the BO's content.
 * @gpu: the device @gem belongs to (the destroy hook gets no BO).
 */
struct hw_ttm_tt {
	struct ttm_tt tt;
	struct hw_bo gem;
	struct hw_gpu *gpu;
};

static const struct ttm_place sys_place = {.mem_type = TTM_PL_SYSTEM};
static const struct ttm_place tt_place = {.mem_type = TTM_PL_TT};
static const struct ttm_place vram_place = {.mem_type = TTM_PL_VRAM};

const struct ttm_placement hw_ttm_placement_system = {1, &sys_place};
const struct ttm_placement hw_ttm_placement_tt = {1, &tt_place};
const struct ttm_placement hw_ttm_placement_vram = {1, &vram_place};

static struct hw_ttm_device *to_hw_ttm_device(struct ttm_device *bdev)
{
	return container_of(bdev, struct hw_ttm_device, bdev);
}

static struct ttm_tt *hw_ttm_tt_create(struct ttm_buffer_object *tbo, uint32_t page_flags)
{
	struct hw_ttm_device *dev = to_hw_ttm_device(tbo->bdev);
	struct hw_ttm_tt *htt =
	    fault_should_fail(&hw_fault_alloc, sizeof(*htt)) ? NULL : calloc(1, sizeof(*htt));

	if (!htt)
		return NULL;
	/* The kernel zeroes new GEM pages; ZERO_ALLOC is implied. */
	page_flags &= ~TTM_TT_FLAG_ZERO_ALLOC;
	if (ttm_tt_init(&htt->tt, tbo->size, page_flags | TTM_TT_FLAG_EXTERNAL, ttm_cached, 0))
		goto err_free;
	/*
	 * On discrete parts a plain GEM_CREATE may land in device-local
	 * memory; SYSTEM/TT content must be in system memory, so say so.
	 */
	if (hw_bo_init(dev->gpu, &htt->gem, tbo->size, dev->has_vram ? &dev->sys_region : NULL,
		       dev->has_vram ? 1 : 0, 0))
		goto err_fini;
	htt->gpu = dev->gpu;
	return &htt->tt;

err_fini:
	ttm_tt_fini(NULL, &htt->tt);
err_free:
	free(htt);
	return NULL;
}

static void hw_ttm_tt_destroy(struct ttm_device *bdev, struct ttm_tt *tt)
{
	struct hw_ttm_tt *htt = container_of(tt, struct hw_ttm_tt, tt);

	/* Still-busy objects are kept alive by the kernel until idle. */
	hw_bo_fini(htt->gpu, &htt->gem);
	ttm_tt_fini(&bdev->pool, tt);
	free(htt);
}

static struct hw_bo *hw_ttm_tt_gem(struct ttm_buffer_object *tbo)
{
	return tbo->ttm ? &container_of(tbo->ttm, struct hw_ttm_tt, tt)->gem : NULL;
}

/* Losing an address or VRAM both end in SYSTEM: the content stays in a GEM object. */
static void hw_ttm_evict_flags(struct ttm_buffer_object *tbo, struct ttm_placement *placement)
{
	(void)tbo;
	*placement = hw_ttm_placement_system;
}

/*
 * Copy @size bytes from @src to @dst on the blitter through the copy
 * window. The kernel orders the copy after earlier GPU work on both
 * objects (implicit sync: @dst is marked written), so no CPU wait here.
 */
static int hw_ttm_blit(struct hw_ttm_device *dev, const struct hw_bo *dst, const struct hw_bo *src,
		       uint64_t size, struct dma_fence **fence)
{
	uint64_t dst_va = dev->copy_base, src_va = dst_va + dev->copy_slot;
	uint64_t batch_va = src_va + dev->copy_slot;
	unsigned int dw = hw_batch_copy_dwords(size);
	bool discrete = hw_gpu_info(dev->gpu)->discrete;
	struct hw_exec_obj objs[3];
	struct hw_bo batch = {0};
	struct hw_exec eb;
	int n, ret;

	if (!dw)
		return -EINVAL;
	if (size > dev->copy_slot || (uint64_t)dw * 4 > dev->copy_slot)
		return -E2BIG;
	ret = hw_bo_init(dev->gpu, &batch, (uint64_t)dw * 4, discrete ? &dev->sys_region : NULL,
			 discrete ? 1 : 0, 0);
	if (ret)
		return ret;
	ret = hw_bo_mmap(dev->gpu, &batch, discrete ? HW_MMAP_FIXED : HW_MMAP_WC);
	if (ret)
		goto out;
	n = hw_batch_copy(batch.map, dw, dst_va, src_va, size);
	if (n < 0) {
		ret = n;
		goto out;
	}
	objs[0] = (struct hw_exec_obj){dst, dst_va, HW_EXEC_OBJ_WRITE};
	objs[1] = (struct hw_exec_obj){src, src_va, 0};
	objs[2] = (struct hw_exec_obj){&batch, batch_va, 0};
	eb = (struct hw_exec){
	    .ctx = &dev->ctx,
	    .engine = HW_ENGINE_BLT,
	    .objs = objs,
	    .count = 3,
	    .batch_len = (uint32_t)n * 4,
	};
	pthread_mutex_lock(&dev->copy_lock);
	ret = hw_exec_submit(dev->gpu, &eb, fence);
	pthread_mutex_unlock(&dev->copy_lock);
	if (!ret)
		atomic_fetch_add_explicit(&dev->blits, 1, memory_order_relaxed);
out:
	/* A submitted batch stays alive in the kernel until it retires. */
	hw_bo_fini(dev->gpu, &batch);
	return ret;
}

static int hw_ttm_move(struct ttm_buffer_object *tbo, bool evict, struct ttm_operation_ctx *ctx,
		       struct ttm_resource *new_mem, struct ttm_place *hop)
{
	struct hw_ttm_bo *bo = to_hw_ttm_bo(tbo);
	struct hw_ttm_device *dev = bo->dev;
	struct ttm_resource *old = tbo->resource;
	bool to_vram = new_mem->mem_type == TTM_PL_VRAM;
	bool from_vram = old && old->mem_type == TTM_PL_VRAM;
	struct dma_fence *fence = NULL;
	struct hw_bo *src;
	int ret;

	(void)ctx;
	(void)hop;
	if (to_vram == from_vram && (!to_vram || bo->lmem.handle)) {
		/* SYSTEM <-> TT and TT -> TT: only the GPU address changes. */
		ttm_bo_move_null(tbo, new_mem);
		return 0;
	}

	if (to_vram) {
		ret = hw_bo_init(dev->gpu, &bo->lmem, tbo->size, &dev->vram_region, 1, 0);
		if (ret)
			return ret;
		src = old ? hw_ttm_tt_gem(tbo) : NULL;
		if (!src) {
			/* No content yet: the new object is zeroed by the kernel. */
			ttm_bo_move_null(tbo, new_mem);
			return 0;
		}
		ret = hw_ttm_blit(dev, &bo->lmem, src, tbo->size, &fence);
		if (ret) {
			hw_bo_fini(dev->gpu, &bo->lmem);
			return ret;
		}
	} else {
		/* Out of VRAM: the core created the tt, hence the GEM object. */
		struct hw_bo *dst = hw_ttm_tt_gem(tbo);

		if (!dst)
			return -EINVAL;
		ret = hw_ttm_blit(dev, dst, &bo->lmem, tbo->size, &fence);
		if (ret)
			return ret;
	}

	ret = ttm_bo_move_accel_cleanup(tbo, fence, evict, true, new_mem);
	dma_fence_put(fence);
	if (ret) {
		/* The copy never completed: the BO stays where it was. */
		if (to_vram)
			hw_bo_fini(dev->gpu, &bo->lmem);
		return ret;
	}
	ctx->bytes_copied += tbo->size;
	/* The old device-local object is read by the copy; the kernel keeps it until then. */
	if (from_vram)
		hw_bo_fini(dev->gpu, &bo->lmem);
	return 0;
}

static const struct ttm_device_funcs hw_ttm_funcs = {
    .ttm_tt_create = hw_ttm_tt_create,
    .ttm_tt_destroy = hw_ttm_tt_destroy,
    .evict_flags = hw_ttm_evict_flags,
    .move = hw_ttm_move,
};

static void hw_ttm_bo_destroy(struct ttm_buffer_object *tbo)
{
	struct hw_ttm_bo *bo = to_hw_ttm_bo(tbo);

	hw_bo_fini(bo->dev->gpu, &bo->lmem);
	free(bo);
}

int hw_ttm_bo_create(struct hw_ttm_device *dev, uint64_t size,
		     const struct ttm_placement *placement, struct hw_ttm_bo **out)
{
	struct ttm_operation_ctx ctx = {.interruptible = true};
	struct hw_ttm_bo *bo;
	int ret;

	if (!dev || !placement || !out)
		return -EINVAL;
	*out = NULL;
	bo = fault_should_fail(&hw_fault_alloc, sizeof(*bo)) ? NULL : calloc(1, sizeof(*bo));
	if (!bo)
		return -ENOMEM;
	bo->dev = dev;
	/* On failure the destroy hook has already freed @bo. */
	ret = ttm_bo_init_validate(&dev->bdev, &bo->tbo, size, ttm_bo_type_device, placement, 0,
				   &ctx, NULL, hw_ttm_bo_destroy);
	if (ret)
		return ret;
	*out = bo;
	return 0;
}

struct hw_bo *hw_ttm_bo_gem(struct hw_ttm_bo *bo)
{
	struct ttm_resource *res = bo->tbo.resource;

	if (!res)
		return NULL;
	if (res->mem_type == TTM_PL_VRAM)
		return &bo->lmem;
	return hw_ttm_tt_gem(&bo->tbo);
}

uint64_t hw_ttm_bo_gpu_addr(const struct hw_ttm_bo *bo)
{
	const struct ttm_resource *res = bo->tbo.resource;

	if (!res || res->mem_type != TTM_PL_TT)
		return UINT64_MAX;
	return res->start * HW_TTM_PAGE;
}

static void hw_ttm_unreserve_all(struct hw_ttm_bo *const *list, unsigned int count,
				 const struct hw_ttm_bo *except)
{
	for (unsigned int i = 0; i < count; i++)
		if (list[i] != except)
			ttm_bo_unreserve(&list[i]->tbo);
}

/*
 * Lock every object of @list with @ticket. On -EDEADLK the held locks go,
 * the contended one is waited for on the slow path and the pass restarts
 * (wait-die: our ticket keeps its age, so we eventually win).
 */
static int hw_ttm_reserve_all(struct hw_ttm_bo *const *list, unsigned int count,
			      struct ww_acquire_ctx *ticket)
{
	struct hw_ttm_bo *contended = NULL;
	unsigned int i;
	int ret;

retry:
	for (i = 0; i < count; i++) {
		if (list[i] == contended)
			continue;
		ret = ttm_bo_reserve(&list[i]->tbo, true, false, ticket);
		if (!ret)
			continue;
		hw_ttm_unreserve_all(list, i, contended);
		if (contended && contended != list[i])
			ttm_bo_unreserve(&contended->tbo);
		contended = NULL;
		if (ret != -EDEADLK)
			return ret;
		ret = ttm_bo_reserve_slowpath(&list[i]->tbo, true, ticket);
		if (ret)
			return ret;
		contended = list[i];
		goto retry;
	}
	return 0;
}

int hw_ttm_exec(struct hw_ttm_device *dev, struct hw_ttm_bo *const *bos, unsigned int n,
		struct hw_ttm_bo *batch, struct dma_fence **fence)
{
	struct hw_ttm_bo *list[HW_TTM_EXEC_MAX];
	struct hw_exec_obj objs[HW_TTM_EXEC_MAX];
	struct ww_acquire_ctx ticket;
	struct ttm_operation_ctx ctx;
	unsigned int count = n + 1;
	struct dma_fence *f = NULL;
	struct hw_exec eb;
	int ret;

	if (fence)
		*fence = NULL;
	if (!dev || !batch || !fence || (n && !bos) || n >= HW_TTM_EXEC_MAX)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++)
		list[i] = bos[i];
	list[n] = batch;
	for (unsigned int i = 0; i < count; i++) {
		if (!list[i] || list[i]->dev != dev)
			return -EINVAL;
		for (unsigned int j = 0; j < i; j++)
			if (list[j] == list[i])
				return -EINVAL;
	}

	ww_acquire_init(&ticket, &reservation_ww_class);
again:
	ret = hw_ttm_reserve_all(list, count, &ticket);
	if (ret)
		goto out_ticket;

	ctx = (struct ttm_operation_ctx){.interruptible = true, .ticket = &ticket};
	for (unsigned int i = 0; i < count; i++) {
		struct ttm_buffer_object *tbo = &list[i]->tbo;

		ret = ttm_bo_validate(tbo, &hw_ttm_placement_tt, &ctx);
		if (!ret)
			ret = dma_resv_reserve_fences(tbo->resv, 1);
		if (ret == -EDEADLK) {
			/* A victim's owner is older: let it finish, then start over. */
			hw_ttm_unreserve_all(list, count, NULL);
			goto again;
		}
		if (ret)
			goto out_unreserve;
		objs[i] = (struct hw_exec_obj){
		    .bo = hw_ttm_tt_gem(tbo),
		    .offset = hw_ttm_bo_gpu_addr(list[i]),
		    .flags = i < n ? HW_EXEC_OBJ_WRITE : 0,
		};
	}
	ww_acquire_done(&ticket);

	eb = (struct hw_exec){
	    .ctx = &dev->ctx,
	    .engine = HW_ENGINE_RENDER,
	    .objs = objs,
	    .count = count,
	};
	ret = hw_exec_submit(dev->gpu, &eb, &f);
	if (ret)
		goto out_unreserve;
	TTM_PROBE3(execbuf_submit, f->context, count, f->seqno);
	for (unsigned int i = 0; i < count; i++)
		dma_resv_add_fence(list[i]->tbo.resv, f, DMA_RESV_USAGE_WRITE);
	*fence = f;

out_unreserve:
	hw_ttm_unreserve_all(list, count, NULL);
out_ticket:
	ww_acquire_fini(&ticket);
	return ret;
}

int hw_ttm_device_create(struct hw_gpu *gpu, const struct hw_ttm_device_args *args,
			 struct hw_ttm_device **out)
{
	static const struct hw_ttm_device_args defaults;
	const struct hw_gpu_info *info;
	const struct hw_region *lmem;
	struct hw_ttm_device *dev;
	uint64_t tt_pages, max_pages, vram_size = 0;
	int ret;

	if (!gpu || !out)
		return -EINVAL;
	*out = NULL;
	if (!args)
		args = &defaults;
	info = hw_gpu_info(gpu);
	if (!info->has_exec_fence)
		return -EOPNOTSUPP;

	dev = fault_should_fail(&hw_fault_alloc, sizeof(*dev)) ? NULL : calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->gpu = gpu;
	dev->sys_region = (struct hw_region_id){HW_MEMORY_CLASS_SYSTEM, 0};
	ret = hw_context_init(gpu, &dev->ctx);
	if (ret)
		goto err_free;

	/* The copy window takes an eighth of a small VM, 3 GiB of a large one. */
	dev->copy_slot = dev->ctx.vm_size / 8;
	if (dev->copy_slot > HW_TTM_COPY_SLOT_MAX)
		dev->copy_slot = HW_TTM_COPY_SLOT_MAX;
	dev->copy_slot &= ~(HW_TTM_PAGE - 1);
	if (dev->copy_slot < HW_TTM_PAGE) {
		ret = -EOPNOTSUPP;
		goto err_ctx;
	}
	max_pages = (dev->ctx.vm_size - 3 * dev->copy_slot) / HW_TTM_PAGE;
	if (max_pages > UINT32_MAX)
		max_pages = UINT32_MAX;
	tt_pages = args->tt_size ? (args->tt_size + HW_TTM_PAGE - 1) / HW_TTM_PAGE : max_pages;
	if (tt_pages > max_pages) {
		ret = -EINVAL;
		goto err_ctx;
	}
	dev->copy_base = tt_pages * HW_TTM_PAGE;

	lmem = hw_gpu_find_region(gpu, HW_MEMORY_CLASS_DEVICE);
	dev->has_vram = lmem && !args->no_vram;
	if (dev->has_vram) {
		dev->vram_region = lmem->id;
		vram_size = args->vram_size ? args->vram_size : lmem->probed_size;
		if (vram_size < HW_TTM_PAGE) {
			ret = -EINVAL;
			goto err_ctx;
		}
	}

	if (pthread_mutex_init(&dev->copy_lock, NULL)) {
		ret = -ENOMEM;
		goto err_ctx;
	}
	ret = ttm_device_init(&dev->bdev, &hw_ttm_funcs, false);
	if (ret)
		goto err_lock;
	ret = ttm_range_manager_init(&dev->tt_mgr, true, tt_pages);
	if (ret)
		goto err_bdev;
	ret = ttm_set_driver_manager(&dev->bdev, TTM_PL_TT, &dev->tt_mgr.manager);
	if (ret)
		goto err_tt;
	if (dev->has_vram) {
		ret = ttm_range_manager_init(&dev->vram_mgr, false, vram_size / HW_TTM_PAGE);
		if (ret)
			goto err_tt_reg;
		ret = ttm_set_driver_manager(&dev->bdev, TTM_PL_VRAM, &dev->vram_mgr.manager);
		if (ret) {
			ttm_range_manager_fini(&dev->vram_mgr);
			goto err_tt_reg;
		}
	}
	*out = dev;
	return 0;

err_tt_reg:
	ttm_set_driver_manager(&dev->bdev, TTM_PL_TT, NULL);
err_tt:
	ttm_range_manager_fini(&dev->tt_mgr);
err_bdev:
	ttm_device_fini(&dev->bdev);
err_lock:
	pthread_mutex_destroy(&dev->copy_lock);
err_ctx:
	hw_context_fini(gpu, &dev->ctx);
err_free:
	free(dev);
	return ret;
}

int hw_ttm_device_destroy(struct hw_ttm_device *dev)
{
	if (!dev)
		return 0;
	ttm_device_flush_delayed(&dev->bdev, true);
	if (atomic_load(&dev->bdev.stats.bo_count))
		return -EBUSY;
	if (dev->has_vram) {
		ttm_set_driver_manager(&dev->bdev, TTM_PL_VRAM, NULL);
		ttm_range_manager_fini(&dev->vram_mgr);
	}
	ttm_set_driver_manager(&dev->bdev, TTM_PL_TT, NULL);
	ttm_range_manager_fini(&dev->tt_mgr);
	ttm_device_fini(&dev->bdev);
	pthread_mutex_destroy(&dev->copy_lock);
	hw_context_fini(dev->gpu, &dev->ctx);
	free(dev);
	return 0;
}
