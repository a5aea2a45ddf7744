// SPDX-License-Identifier: MIT
/*
 * kdrv.c - the kernel side of benchmark-kref: a mock TTM driver and the
 * workload loops, compiled against Linux 6.12's own headers (and the shim)
 * by build-kref.sh and linked with the unmodified kernel sources into
 * kref.o. Only the kref_* functions (kref.h) are visible outside.
 *
 * The driver follows the kernel's ttm_kunit_helpers.c: TT is a range
 * manager whose resources use the BO's tt, a move from or to SYSTEM (or of
 * a BO without pages) is ttm_bo_move_null(), evictions from TT go to
 * SYSTEM. BOs are ttm_bo_type_kernel (no mmap offset; ours has none
 * either). Contracts: kref.h.
 */
#include <linux/dma-fence.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-resv.h>
#include <drm/drm_vma_manager.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_pool.h>
#include <drm/ttm/ttm_range_manager.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/ttm/ttm_tt.h>

#define KREF_API
#include "kref.h"

struct kref_dev {
	struct ttm_device bdev;
	struct drm_vma_offset_manager vma;
};

static const struct ttm_place kdrv_sys_place = {.mem_type = TTM_PL_SYSTEM};
static const struct ttm_place kdrv_tt_place = {.mem_type = TTM_PL_TT};

static struct ttm_placement kdrv_placement(int domain)
{
	struct ttm_placement pl = {
	    .num_placement = 1,
	    .placement = domain == KREF_TT ? &kdrv_tt_place : &kdrv_sys_place,
	};

	return pl;
}

static struct ttm_tt *kdrv_tt_create(struct ttm_buffer_object *bo, u32 page_flags)
{
	struct ttm_tt *tt = kzalloc(sizeof(*tt), GFP_KERNEL);

	if (!tt)
		return NULL;
	if (ttm_tt_init(tt, bo, page_flags, ttm_cached, 0)) {
		kfree(tt);
		return NULL;
	}
	return tt;
}

static void kdrv_tt_destroy(struct ttm_device *bdev, struct ttm_tt *tt)
{
	ttm_tt_fini(tt);
	kfree(tt);
}

static int kdrv_move(struct ttm_buffer_object *bo, bool evict, struct ttm_operation_ctx *ctx,
		     struct ttm_resource *new_mem, struct ttm_place *hop)
{
	struct ttm_resource *old = bo->resource;
	u32 from = old ? old->mem_type : TTM_PL_SYSTEM;
	u32 to = new_mem->mem_type;

	if (!old || (from == TTM_PL_SYSTEM && !bo->ttm) ||
	    (from == TTM_PL_SYSTEM && to == TTM_PL_TT) ||
	    (from == TTM_PL_TT && to == TTM_PL_SYSTEM) || from == to) {
		ttm_bo_move_null(bo, new_mem);
		return 0;
	}
	return ttm_bo_move_memcpy(bo, ctx, new_mem);
}

static void kdrv_evict_flags(struct ttm_buffer_object *bo, struct ttm_placement *placement)
{
	placement->num_placement = 1;
	placement->placement = &kdrv_sys_place;
}

static const struct ttm_device_funcs kdrv_funcs = {
    .ttm_tt_create = kdrv_tt_create,
    .ttm_tt_destroy = kdrv_tt_destroy,
    .move = kdrv_move,
    .eviction_valuable = ttm_bo_eviction_valuable,
    .evict_flags = kdrv_evict_flags,
};

KREF_API struct kref_dev *kref_dev_create(unsigned long tt_pages)
{
	struct kref_dev *dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	int ret;

	if (!dev)
		return NULL;
	drm_vma_offset_manager_init(&dev->vma, 1, 1UL << 30);
	ret = ttm_device_init(&dev->bdev, &kdrv_funcs, NULL, NULL, &dev->vma, false, false);
	if (ret)
		goto err_vma;
	if (tt_pages) {
		ret = ttm_range_man_init(&dev->bdev, TTM_PL_TT, true, tt_pages);
		if (ret)
			goto err_dev;
	}
	return dev;

err_dev:
	ttm_device_fini(&dev->bdev);
err_vma:
	drm_vma_offset_manager_destroy(&dev->vma);
	kfree(dev);
	return NULL;
}

KREF_API int kref_dev_destroy(struct kref_dev *dev)
{
	if (!dev)
		return 0;
	flush_workqueue(dev->bdev.wq);
	if (ttm_manager_type(&dev->bdev, TTM_PL_TT)) {
		int ret = ttm_range_man_fini(&dev->bdev, TTM_PL_TT);

		if (ret)
			return ret;
	}
	ttm_device_fini(&dev->bdev);
	drm_vma_offset_manager_destroy(&dev->vma);
	kfree(dev);
	return 0;
}

static void kdrv_bo_destroy(struct ttm_buffer_object *bo)
{
	dma_resv_fini(&bo->base._resv);
	kfree(bo);
}

static int kdrv_bo_init(struct kref_dev *dev, struct ttm_buffer_object *bo, unsigned long size,
			int domain)
{
	struct ttm_placement pl = kdrv_placement(domain);

	/* What drm_gem_private_object_init() does for the TTM core. */
	bo->base.size = size;
	kref_init(&bo->base.refcount);
	dma_resv_init(&bo->base._resv);
	drm_vma_node_reset(&bo->base.vma_node);
	/* On failure ttm_bo_init_validate() has called kdrv_bo_destroy(). */
	return ttm_bo_init_validate(&dev->bdev, bo, ttm_bo_type_kernel, &pl, 0, false, NULL, NULL,
				    kdrv_bo_destroy);
}

static int kdrv_validate(struct ttm_buffer_object *bo, struct ttm_placement *pl)
{
	struct ttm_operation_ctx ctx = {.interruptible = false, .no_wait_gpu = false};
	int ret = ttm_bo_reserve(bo, false, false, NULL);

	if (ret)
		return ret;
	ret = ttm_bo_validate(bo, pl, &ctx);
	ttm_bo_unreserve(bo);
	return ret;
}

KREF_API struct kref_bo *kref_bo_create(struct kref_dev *dev, unsigned long size, int domain,
					int populate)
{
	struct ttm_buffer_object *bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	struct ttm_placement tt = kdrv_placement(KREF_TT);
	struct ttm_placement sys = kdrv_placement(KREF_SYSTEM);

	if (!bo)
		return NULL;
	if (kdrv_bo_init(dev, bo, size, populate ? KREF_TT : domain))
		return NULL;
	if (populate && domain == KREF_SYSTEM && kdrv_validate(bo, &sys))
		goto err;
	if (!populate && domain == KREF_TT && kdrv_validate(bo, &tt))
		goto err;
	return (struct kref_bo *)bo;
err:
	ttm_bo_put(bo);
	return NULL;
}

KREF_API void kref_bo_put(struct kref_bo *bo)
{
	ttm_bo_put((struct ttm_buffer_object *)bo);
}

KREF_API int kref_bo_domain(struct kref_bo *kbo)
{
	struct ttm_buffer_object *bo = (struct ttm_buffer_object *)kbo;

	return bo->resource && bo->resource->mem_type == TTM_PL_TT ? KREF_TT : KREF_SYSTEM;
}

KREF_API int kref_validate_loop(struct kref_bo *kbo, int domain, unsigned long n)
{
	struct ttm_buffer_object *bo = (struct ttm_buffer_object *)kbo;
	struct ttm_placement pl = kdrv_placement(domain);
	unsigned long i;

	for (i = 0; i < n; i++) {
		int ret = kdrv_validate(bo, &pl);

		if (ret)
			return ret;
	}
	return 0;
}

KREF_API int kref_pingpong_loop(struct kref_bo *kbo, unsigned long n)
{
	struct ttm_buffer_object *bo = (struct ttm_buffer_object *)kbo;
	struct ttm_placement tt = kdrv_placement(KREF_TT);
	struct ttm_placement sys = kdrv_placement(KREF_SYSTEM);
	unsigned long i;

	for (i = 0; i < n; i++) {
		int ret = kdrv_validate(bo, &tt);

		if (!ret)
			ret = kdrv_validate(bo, &sys);
		if (ret)
			return ret;
	}
	return 0;
}

KREF_API int kref_thrash_loop(struct kref_bo **bos, unsigned nbos, unsigned *next, unsigned long n)
{
	struct ttm_placement tt = kdrv_placement(KREF_TT);
	unsigned long i;
	unsigned k = *next;

	for (i = 0; i < n; i++) {
		int ret = kdrv_validate((struct ttm_buffer_object *)bos[k], &tt);

		if (ret)
			return ret;
		if (++k == nbos)
			k = 0;
	}
	*next = k;
	return 0;
}

KREF_API int kref_create_loop(struct kref_dev *dev, unsigned long size, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		struct ttm_buffer_object *bo = kzalloc(sizeof(*bo), GFP_KERNEL);
		int ret;

		if (!bo)
			return -ENOMEM;
		ret = kdrv_bo_init(dev, bo, size, KREF_SYSTEM);
		if (ret)
			return ret;
		ttm_bo_put(bo);
	}
	return 0;
}

KREF_API int kref_pool_loop(struct kref_dev *dev, unsigned long size, unsigned long n)
{
	struct ttm_operation_ctx ctx = {.interruptible = false};
	struct ttm_buffer_object *bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	struct ttm_tt *tt = kzalloc(sizeof(*tt), GFP_KERNEL);
	unsigned long i;
	int ret = -ENOMEM;

	if (!bo || !tt)
		goto out;
	/* ttm_tt_init() reads the size (and sg) from the BO. */
	bo->base.size = size;
	ret = ttm_tt_init(tt, bo, 0, ttm_cached, 0);
	if (ret)
		goto out;
	for (i = 0; i < n && !ret; i++) {
		ret = ttm_pool_alloc(&dev->bdev.pool, tt, &ctx);
		if (!ret)
			ttm_pool_free(&dev->bdev.pool, tt);
	}
	ttm_tt_fini(tt);
out:
	kfree(tt);
	kfree(bo);
	return ret;
}

/* ----------------------------------------------------------------- fences */
static DEFINE_SPINLOCK(kdrv_fence_lock);

static const char *kdrv_fence_name(struct dma_fence *f)
{
	return "kref";
}

static const struct dma_fence_ops kdrv_fence_ops = {
    .get_driver_name = kdrv_fence_name,
    .get_timeline_name = kdrv_fence_name,
};

static struct dma_fence *kdrv_fence(u64 context, u64 seqno)
{
	struct dma_fence *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (f)
		dma_fence_init(f, &kdrv_fence_ops, &kdrv_fence_lock, context, seqno);
	return f;
}

struct kref_resv {
	struct dma_resv resv;
	struct dma_fence *pending;
	struct dma_fence *fences[16];
};

/*
 * Signal every fence but the pending one, after all were added: a fence
 * signalled before dma_resv_add_fence() would be replaced in its slot by the
 * next one, and the object would not hold 16 fences. Our references to the
 * signalled ones are dropped; the pending one is kept in @r->pending.
 */
static void kdrv_resv_signal(struct kref_resv *r, unsigned nfences, int pending_index)
{
	for (unsigned i = 0; i < nfences; i++) {
		if (!r->fences[i])
			continue;
		if ((int)i == pending_index) {
			r->pending = r->fences[i];
		} else {
			dma_fence_signal(r->fences[i]);
			dma_fence_put(r->fences[i]);
		}
		r->fences[i] = NULL;
	}
}

KREF_API struct kref_resv *kref_resv_create(unsigned nfences, int pending_index)
{
	struct kref_resv *r;
	u64 ctx;
	unsigned i;
	int ret;

	if (nfences > ARRAY_SIZE(r->fences))
		return NULL;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	ctx = dma_fence_context_alloc(nfences);
	if (!r)
		return NULL;
	dma_resv_init(&r->resv);
	dma_resv_lock(&r->resv, NULL);
	ret = dma_resv_reserve_fences(&r->resv, nfences);
	for (i = 0; i < nfences && !ret; i++) {
		struct dma_fence *f = kdrv_fence(ctx + i, 1);

		if (!f) {
			ret = -ENOMEM;
			break;
		}
		dma_resv_add_fence(&r->resv, f, DMA_RESV_USAGE_READ);
		r->fences[i] = f;
	}
	dma_resv_unlock(&r->resv);
	kdrv_resv_signal(r, nfences, pending_index);
	if (ret) {
		kref_resv_destroy(r);
		return NULL;
	}
	return r;
}

KREF_API void kref_resv_destroy(struct kref_resv *r)
{
	if (!r)
		return;
	if (r->pending) {
		dma_fence_signal(r->pending);
		dma_fence_put(r->pending);
	}
	dma_resv_fini(&r->resv);
	kfree(r);
}

KREF_API int kref_resv_test_loop(struct kref_resv *r, unsigned long n, int *signaled)
{
	unsigned long i;
	bool s = false;

	for (i = 0; i < n; i++) {
		s = dma_resv_test_signaled(&r->resv, DMA_RESV_USAGE_READ);
		barrier();
	}
	*signaled = s;
	return 0;
}

/* Read through a volatile pointer so the inline test is not hoisted. */
static struct dma_fence *volatile kdrv_signalled_fence;

KREF_API int kref_fence_signaled_loop(unsigned long n, unsigned long *count)
{
	struct dma_fence *f = kdrv_fence(dma_fence_context_alloc(1), 1);
	unsigned long i, c = 0;

	if (!f)
		return -ENOMEM;
	dma_fence_signal(f);
	kdrv_signalled_fence = f;
	for (i = 0; i < n; i++)
		c += dma_fence_is_signaled(kdrv_signalled_fence);
	kdrv_signalled_fence = NULL;
	dma_fence_put(f);
	*count = c;
	return 0;
}

struct kref_chain {
	struct dma_fence *head;
	struct dma_fence **fences;
	unsigned links;
};

KREF_API struct kref_chain *kref_chain_create(unsigned links)
{
	struct kref_chain *c = kzalloc(sizeof(*c), GFP_KERNEL);
	u64 fctx = dma_fence_context_alloc(1);
	unsigned i;

	if (!c)
		return NULL;
	c->fences = kcalloc(links, sizeof(*c->fences), GFP_KERNEL);
	if (!c->fences) {
		kfree(c);
		return NULL;
	}
	for (i = 0; i < links; i++) {
		struct dma_fence_chain *link = dma_fence_chain_alloc();
		struct dma_fence *f = kdrv_fence(fctx, i + 1);

		if (!link || !f) {
			dma_fence_chain_free(link);
			if (f)
				dma_fence_put(f);
			c->links = i;
			kref_chain_destroy(c);
			return NULL;
		}
		c->fences[i] = dma_fence_get(f);
		/* The link takes over the head's and the fence's references. */
		dma_fence_chain_init(link, c->head, f, i + 1);
		c->head = &link->base;
	}
	c->links = links;
	return c;
}

KREF_API void kref_chain_destroy(struct kref_chain *c)
{
	unsigned i;

	if (!c)
		return;
	for (i = 0; i < c->links; i++) {
		dma_fence_signal(c->fences[i]);
		dma_fence_put(c->fences[i]);
	}
	dma_fence_put(c->head);
	kfree(c->fences);
	kfree(c);
}

KREF_API int kref_chain_find_loop(struct kref_chain *c, unsigned long seqno, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		struct dma_fence *f = dma_fence_get(c->head);
		int ret = dma_fence_chain_find_seqno(&f, seqno);

		dma_fence_put(f);
		if (ret)
			return ret;
	}
	return 0;
}
