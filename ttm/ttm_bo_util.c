// SPDX-License-Identifier: MIT
/*
 * ttm_bo_util: what happens to a BO's content when its resource changes.
 * Moves (null, memcpy, pipelined behind a driver fence), ghost objects that
 * keep an old resource alive until the GPU is done with it, gutting, tt
 * creation and population (swap-in), CPU access and the metadata figure.
 *
 * Every function here runs with the BO reserved. The LRU lock is taken only
 * around the LRU links and resource frees, never across a copy or a wait.
 *
 * CPU reachability: a resource whose manager uses a tt is reached through
 * the tt's pages; any other resource through the driver's io_mem_reserve(),
 * which sets bus.addr to the CPU address of the resource's first page of
 * the memory type; a scattered resource (buddy blocks) is then walked piece
 * by piece with ttm_resource_io_segment(). A resource without a CPU view
 * cannot be copied by the CPU (-EIO).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ttm/drm_cache.h>
#include <ttm/ttm_bo.h>
#include <ttm/ttm_faults.h>
#include <ttm/ttm_trace.h>

#include "ttm_bo_internal.h"

static struct ttm_resource_manager *ttm_bo_res_man(struct ttm_buffer_object *bo,
						   const struct ttm_resource *res)
{
	return ttm_manager_type(bo->bdev, res->mem_type);
}

static bool ttm_bo_res_uses_tt(struct ttm_buffer_object *bo, const struct ttm_resource *res)
{
	struct ttm_resource_manager *man = ttm_bo_res_man(bo, res);

	return man && man->use_tt;
}

/* Free bo->resource; it may sit on an LRU, hence the lock. */
static void ttm_bo_free_resource(struct ttm_buffer_object *bo)
{
	struct ttm_device *bdev = bo->bdev;

	if (!bo->resource)
		return;
	ttm_lock(&bdev->lru_lock);
	ttm_resource_free(ttm_bo_res_man(bo, bo->resource), &bo->resource);
	ttm_unlock(&bdev->lru_lock);
}

int ttm_bo_tt_create(struct ttm_buffer_object *bo, bool zero_alloc)
{
	struct ttm_device *bdev = bo->bdev;
	uint32_t page_flags = 0;
	struct ttm_tt *tt;

	if (bo->ttm)
		return 0;
	switch (bo->type) {
	case ttm_bo_type_userptr:
		page_flags |= TTM_TT_FLAG_EXTERNAL | TTM_TT_FLAG_EXTERNAL_MAPPABLE;
		break;
	case ttm_bo_type_device:
	case ttm_bo_type_kernel:
		if (zero_alloc)
			page_flags |= TTM_TT_FLAG_ZERO_ALLOC;
		break;
	default:
		/* As the kernel's ttm_tt_create(): no tt for a type it does not know. */
		return -EINVAL;
	}

	if (bdev->funcs->ttm_tt_create) {
		tt = bdev->funcs->ttm_tt_create(bo, page_flags);
		if (!tt)
			return -ENOMEM;
	} else {
		tt = fault_should_fail(&ttm_fault_tt_alloc, sizeof(*tt)) ? NULL
									 : calloc(1, sizeof(*tt));
		if (!tt)
			return -ENOMEM;
		if (ttm_tt_init(tt, bo->size, page_flags, ttm_cached, 0)) {
			free(tt);
			return -ENOMEM;
		}
	}
	bo->ttm = tt;
	return 0;
}

void ttm_bo_tt_destroy(struct ttm_buffer_object *bo)
{
	struct ttm_device *bdev = bo->bdev;
	struct ttm_tt *tt = bo->ttm;

	if (!tt)
		return;
	/* A swapped tt holds no pages; its swap copy dies with it. */
	if (ttm_tt_is_swapped(tt))
		atomic_fetch_sub_explicit(&bdev->stats.swapped, 1, memory_order_relaxed);
	ttm_tt_unpopulate(&bdev->pool, tt);
	if (bdev->funcs->ttm_tt_destroy) {
		bdev->funcs->ttm_tt_destroy(bdev, tt);
	} else {
		ttm_tt_fini(&bdev->pool, tt);
		free(tt);
	}
	bo->ttm = NULL;
}

void ttm_bo_assign_mem(struct ttm_buffer_object *bo, struct ttm_resource *new_mem)
{
	struct ttm_device *bdev = bo->bdev;

	bo->resource = new_mem;
	/* @new_mem may already be on an LRU (ttm_resource_init()): walkers read it. */
	ttm_lock(&bdev->lru_lock);
	new_mem->bo = bo;
	new_mem->priority = bo->priority;
	ttm_bo_lru_update_locked(bo);
	ttm_unlock(&bdev->lru_lock);
}

void ttm_bo_move_null(struct ttm_buffer_object *bo, struct ttm_resource *new_mem)
{
	struct ttm_device *bdev = bo->bdev;

	/*
	 * The old resource's free and the new one's LRU entry in one LRU
	 * section; @new_mem may already be on an LRU, where walkers read it.
	 */
	ttm_lock(&bdev->lru_lock);
	new_mem->bo = bo;
	new_mem->priority = bo->priority;
	if (bo->resource)
		ttm_resource_free(ttm_bo_res_man(bo, bo->resource), &bo->resource);
	bo->resource = new_mem;
	ttm_bo_lru_update_locked(bo);
	ttm_unlock(&bdev->lru_lock);
}

int ttm_bo_populate(struct ttm_buffer_object *bo, struct ttm_operation_ctx *ctx)
{
	struct ttm_device *bdev = bo->bdev;
	struct ttm_tt *tt;
	bool swapped;
	int ret;

	ret = ttm_bo_tt_create(bo, true);
	if (ret)
		return ret;
	tt = bo->ttm;
	if (ttm_tt_is_populated(tt))
		return 0;
	swapped = ttm_tt_is_swapped(tt);
	ret = ttm_tt_populate(&bdev->pool, tt, ctx);
	if (ret)
		return ret;
	if (swapped) {
		atomic_fetch_sub_explicit(&bdev->stats.swapped, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&bdev->stats.swapins, 1, memory_order_relaxed);
		TTM_PROBE2(swapin, bo, tt->num_pages);
	}
	/* The pages of a userptr tt are the creator's memory. */
	if ((tt->page_flags & TTM_TT_FLAG_EXTERNAL) && bo->user_ptr) {
		uint64_t pages = bo->size >> TTM_PAGE_SHIFT;

		for (uint64_t i = 0; i < pages && i < tt->num_pages; i++)
			tt->pages[i] = (char *)bo->user_ptr + (i << TTM_PAGE_SHIFT);
	}
	return 0;
}

/*
 * Map @res for the CPU. Return: 0 with @res->bus.addr set; -EIO when the
 * driver cannot give a linear CPU view.
 */
static int ttm_bo_io_reserve(struct ttm_device *bdev, struct ttm_resource *res)
{
	if (!bdev->funcs->io_mem_reserve)
		return -EIO;
	if (bdev->funcs->io_mem_reserve(bdev, res))
		return -EIO;
	if (!res->bus.addr) {
		if (bdev->funcs->io_mem_free)
			bdev->funcs->io_mem_free(bdev, res);
		return -EIO;
	}
	return 0;
}

static void ttm_bo_io_free(struct ttm_device *bdev, struct ttm_resource *res)
{
	if (bdev->funcs->io_mem_free)
		bdev->funcs->io_mem_free(bdev, res);
}

/*
 * One side of a copy: tt pages or an io resource walked piece by piece;
 * NULL @tt and NULL @io is a source without content (reads as zeroes).
 * Pages are visited in order, so the io side keeps a cursor into its
 * current piece (@seg, @seg_left) and asks the manager only at a piece's
 * end.
 */
struct ttm_copy_side {
	struct ttm_tt *tt;
	char *io;
	struct ttm_resource_manager *man;
	struct ttm_resource *res;
	char *seg;
	uint64_t seg_left;
};

static void ttm_copy_side_io(struct ttm_copy_side *s, struct ttm_buffer_object *bo,
			     struct ttm_resource *res)
{
	s->io = res->bus.addr;
	s->man = ttm_bo_res_man(bo, res);
	s->res = res;
	s->seg = NULL;
	s->seg_left = 0;
}

static void *ttm_copy_side_page(struct ttm_copy_side *s, uint64_t i)
{
	void *p;

	if (s->tt)
		return ttm_tt_page_ptr(s->tt, i);
	if (!s->io)
		return NULL;
	if (s->seg_left < TTM_PAGE_SIZE) {
		uint64_t len;
		uint64_t off = ttm_resource_io_segment(s->man, s->res, i << TTM_PAGE_SHIFT, &len);

		s->seg = s->io + off;
		s->seg_left = len;
	}
	p = s->seg;
	s->seg += TTM_PAGE_SIZE;
	s->seg_left -= TTM_PAGE_SIZE;
	return p;
}

/*
 * A move of at least this many pages into recycled pool pages copies with
 * non-temporal stores: nothing of a buffer that large stays in the caches
 * anyway, and cached stores would first read every destination line for
 * ownership. Pages fresh from the OS are left to cached stores: the
 * kernel zeroes each one at its first touch, inside the copy, and a
 * streamed store would then write every line twice.
 */
#define TTM_COPY_STREAM_MIN_PAGES 256u

/*
 * Page-wise, because consecutive tt pages need not be contiguous in memory;
 * pool blocks of higher order are, but a page at a time is already at
 * memcpy bandwidth for 4 KiB. @stream: see TTM_COPY_STREAM_MIN_PAGES.
 */
static void ttm_copy_pages(struct ttm_copy_side *dst, struct ttm_copy_side *src, uint64_t pages,
			   bool stream)
{
	for (uint64_t i = 0; i < pages; i++) {
		void *d = ttm_copy_side_page(dst, i);
		void *s = ttm_copy_side_page(src, i);

		if (s && stream)
			drm_memcpy_stream(d, s, TTM_PAGE_SIZE);
		else if (s)
			memcpy(d, s, TTM_PAGE_SIZE);
		else
			memset(d, 0, TTM_PAGE_SIZE);
	}
	/* Streamed stores are weakly ordered: publish them before the move does. */
	if (stream)
		drm_memcpy_stream_fence();
}

int ttm_bo_move_memcpy(struct ttm_buffer_object *bo, struct ttm_operation_ctx *ctx,
		       struct ttm_resource *new_mem)
{
	struct ttm_device *bdev = bo->bdev;
	struct ttm_resource *old_mem = bo->resource;
	bool old_tt = old_mem && ttm_bo_res_uses_tt(bo, old_mem);
	bool new_tt = ttm_bo_res_uses_tt(bo, new_mem);
	struct ttm_copy_side src = {0}, dst = {0};
	bool old_io = false, new_io = false, dst_populated_here = false, stream = false;
	uint64_t pages = bo->size >> TTM_PAGE_SHIFT;
	int ret;

	ret = ttm_bo_wait_ctx(bo, ctx);
	if (ret)
		return ret;

	/*
	 * Both sides are the same tt pages: a rebind, nothing to copy. A new
	 * BO going to tt memory has nothing to copy either: its tt zeroes its
	 * pages when they are populated (and a userptr's are the creator's).
	 */
	if (new_tt && (old_tt || !old_mem)) {
		if (!old_mem) {
			ret = ttm_bo_tt_create(bo, true);
			if (ret)
				return ret;
		}
		ttm_bo_move_null(bo, new_mem);
		return 0;
	}

	if (old_tt) {
		/* A never-populated tt reads as zeroes; a swapped one comes back. */
		if (bo->ttm && ttm_tt_is_swapped(bo->ttm)) {
			ret = ttm_bo_populate(bo, ctx);
			if (ret)
				return ret;
		}
		if (bo->ttm && ttm_tt_is_populated(bo->ttm))
			src.tt = bo->ttm;
	} else if (old_mem) {
		ret = ttm_bo_io_reserve(bdev, old_mem);
		if (ret)
			return ret;
		old_io = true;
		ttm_copy_side_io(&src, bo, old_mem);
	}

	if (new_tt) {
		/* Every page is overwritten from the source: no need to zero them. */
		ret = ttm_bo_tt_create(bo, false);
		if (ret)
			goto out_io;
		if (!ttm_tt_is_populated(bo->ttm)) {
			/* Only a large copy out of io memory may stream: ask the pool then. */
			bool big = pages >= TTM_COPY_STREAM_MIN_PAGES && src.io;
			unsigned long os_pages = big ? ttm_pool_os_pages(&bdev->pool) : 0;

			ret = ttm_bo_populate(bo, ctx);
			if (ret)
				goto out_io;
			dst_populated_here = true;
			/* Another thread's fresh pages only make this err on cached stores. */
			stream = big && ttm_pool_os_pages(&bdev->pool) == os_pages;
		}
		dst.tt = bo->ttm;
	} else {
		ret = ttm_bo_io_reserve(bdev, new_mem);
		if (ret && !old_mem) {
			/* Nothing to keep and no CPU view: clearing is the driver's job. */
			ttm_bo_tt_destroy(bo);
			ttm_bo_move_null(bo, new_mem);
			return 0;
		}
		if (ret)
			goto out_tt;
		new_io = true;
		ttm_copy_side_io(&dst, bo, new_mem);
	}

	/* Fail before the first byte is written: the old copy stays whole. */
	if (fault_should_fail(&ttm_fault_move_copy, bo->size)) {
		ret = -ENOMEM;
		goto out_new_io;
	}
	ttm_copy_pages(&dst, &src, pages, stream);
	ctx->bytes_copied += bo->size;

	if (new_io)
		ttm_bo_io_free(bdev, new_mem);
	if (old_io)
		ttm_bo_io_free(bdev, old_mem);
	/* The content left the tt for good: give its pages back. */
	if (!new_tt)
		ttm_bo_tt_destroy(bo);
	ttm_bo_move_null(bo, new_mem);
	return 0;

out_new_io:
	if (new_io)
		ttm_bo_io_free(bdev, new_mem);
out_tt:
	if (dst_populated_here)
		ttm_tt_unpopulate(&bdev->pool, bo->ttm);
out_io:
	if (old_io)
		ttm_bo_io_free(bdev, old_mem);
	return ret;
}

static void ttm_bo_ghost_destroy(struct ttm_buffer_object *ghost)
{
	atomic_fetch_sub_explicit(&ghost->bdev->stats.ghost_count, 1, memory_order_relaxed);
	free(ghost);
}

/*
 * Hand bo->resource (and, with @take_tt, bo->ttm) to a new ghost object that
 * carries copies of every fence of @bo plus @fence (may be NULL). The ghost
 * sits on the LRU where the resource was, so eviction sees it as a deleted,
 * busy BO; its last reference is dropped here, so the delayed-destroy path
 * frees the old memory once the fences signal. On success bo->resource is
 * NULL (and bo->ttm too with @take_tt). Return: 0; -ENOMEM with @bo
 * untouched.
 */
static int ttm_bo_move_to_ghost(struct ttm_buffer_object *bo, struct dma_fence *fence, bool take_tt)
{
	struct ttm_device *bdev = bo->bdev;
	struct ttm_buffer_object *ghost;
	struct dma_fence **fences = NULL;
	unsigned num = 0;
	int ret;

	/* The kernel's ttm_buffer_object_transfer() allocates the ghost too. */
	if (fault_should_fail(&ttm_fault_bo_alloc, sizeof(*ghost)))
		return -ENOMEM;
	ghost = calloc(1, sizeof(*ghost));
	if (!ghost)
		return -ENOMEM;
	ghost->priority = bo->priority;
	ret = ttm_bo_init_common(bdev, ghost, bo->size, bo->type, bo->page_alignment, NULL,
				 ttm_bo_ghost_destroy);
	if (ret) {
		free(ghost);
		return ret;
	}
	atomic_fetch_add_explicit(&bdev->stats.ghost_count, 1, memory_order_relaxed);

	/* Fresh and unshared: the trylock cannot fail. */
	dma_resv_trylock(ghost->resv);
	ret = dma_resv_get_fences(bo->resv, DMA_RESV_USAGE_BOOKKEEP, &num, &fences);
	if (!ret)
		ret = dma_resv_reserve_fences(ghost->resv, num + 1);
	if (ret) {
		dma_resv_put_fences(fences, num);
		dma_resv_unlock(ghost->resv);
		/* No resource, no tt: the release is immediate. */
		ttm_bo_put(ghost);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < num; i++)
		dma_resv_add_fence(ghost->resv, fences[i], DMA_RESV_USAGE_BOOKKEEP);
	dma_resv_put_fences(fences, num);
	if (fence)
		dma_resv_add_fence(ghost->resv, fence, DMA_RESV_USAGE_KERNEL);

	ttm_lock(&bdev->lru_lock);
	ghost->is_ghost = true;
	ghost->resource = bo->resource;
	bo->resource = NULL;
	if (ghost->resource) {
		ghost->resource->bo = ghost;
		ttm_bo_lru_update_locked(ghost);
	}
	ttm_unlock(&bdev->lru_lock);
	if (take_tt) {
		ghost->ttm = bo->ttm;
		bo->ttm = NULL;
	}
	dma_resv_unlock(ghost->resv);
	ttm_bo_put(ghost);
	return 0;
}

/*
 * A pipelined eviction out of a type without tt: the old range is freed now,
 * while the copy may still read it, and @fence becomes @man's move fence,
 * which every later allocation from @man waits for (ttm_bo_mem_space()), so
 * nobody writes the range before the copy is done. Return: true when done;
 * false when @man's slot holds another timeline's pending fence (the caller
 * keeps the range alive with a ghost instead).
 */
static bool ttm_bo_move_pipeline_evict(struct ttm_buffer_object *bo,
				       struct ttm_resource_manager *man, struct dma_fence *fence)
{
	/* Recorded before the free, so whoever gets the range sees the fence. */
	if (ttm_resource_manager_set_move(man, fence))
		return false;
	ttm_bo_free_resource(bo);
	return true;
}

int ttm_bo_move_accel_cleanup(struct ttm_buffer_object *bo, struct dma_fence *fence, bool evict,
			      bool pipeline, struct ttm_resource *new_mem)
{
	struct ttm_resource_manager *old_man =
	    bo->resource ? ttm_bo_res_man(bo, bo->resource) : NULL;
	bool new_tt = ttm_bo_res_uses_tt(bo, new_mem);
	int ret;

	/* Without a slot the fence cannot be published: wait for it instead. */
	if (dma_resv_reserve_fences(bo->resv, 1) == 0)
		dma_resv_add_fence(bo->resv, fence, DMA_RESV_USAGE_KERNEL);
	else
		pipeline = false;

	/*
	 * Leaving a tt type, the old tt pages go to the ghost (not to the move
	 * fence), and a plain move keeps its old range for its own waiters:
	 * only an eviction out of io memory can free the range early.
	 */
	if (pipeline && evict && old_man && !old_man->use_tt &&
	    ttm_bo_move_pipeline_evict(bo, old_man, fence)) {
		ttm_bo_assign_mem(bo, new_mem);
		return 0;
	}
	if (pipeline && bo->resource) {
		/* The GPU still reads the old tt when the BO leaves tt memory. */
		ret = ttm_bo_move_to_ghost(bo, fence, !new_tt);
		if (!ret) {
			ttm_bo_assign_mem(bo, new_mem);
			return 0;
		}
	}

	ret = dma_fence_wait(fence, false);
	if (!ret) {
		int status = dma_fence_get_status(fence);

		if (status < 0)
			ret = status;
	}
	if (ret)
		return ret;
	if (!new_tt)
		ttm_bo_tt_destroy(bo);
	ttm_bo_move_null(bo, new_mem);
	return 0;
}

int ttm_bo_pipeline_gutting(struct ttm_buffer_object *bo)
{
	struct ttm_device *bdev = bo->bdev;
	struct ttm_tt *old_tt, *new_tt;
	int ret;

	if (dma_resv_test_signaled(bo->resv, DMA_RESV_USAGE_BOOKKEEP)) {
		/* Idle: nothing to hand over; the pages go, the tt stays empty. */
		if (!bo->ttm) {
			ret = ttm_bo_tt_create(bo, true);
			if (ret)
				return ret;
		} else {
			ttm_tt_unpopulate(&bdev->pool, bo->ttm);
			/* What a later populate hands out must not show old data. */
			if (bo->type == ttm_bo_type_device)
				bo->ttm->page_flags |= TTM_TT_FLAG_ZERO_ALLOC;
		}
		ttm_bo_unmap_virtual(bo);
		if (bo->resource && bdev->funcs->delete_mem_notify)
			bdev->funcs->delete_mem_notify(bo);
		ttm_bo_free_resource(bo);
		return 0;
	}

	/*
	 * Busy: the resource and the tt go to a ghost until the fences signal.
	 * The BO gets a fresh empty tt, zero-filled when populated again, made
	 * first because nothing may fail once the ghost has taken over.
	 */
	old_tt = bo->ttm;
	bo->ttm = NULL;
	ret = ttm_bo_tt_create(bo, true);
	new_tt = bo->ttm;
	bo->ttm = old_tt;
	if (ret)
		return ret;

	ttm_bo_unmap_virtual(bo);
	if (bo->resource && bdev->funcs->delete_mem_notify)
		bdev->funcs->delete_mem_notify(bo);
	ret = ttm_bo_move_to_ghost(bo, NULL, true);
	if (ret) {
		bo->ttm = new_tt;
		ttm_bo_tt_destroy(bo);
		bo->ttm = old_tt;
		return ret;
	}
	bo->ttm = new_tt;
	return 0;
}

/* Wait for the fences an access must respect: every one for a write. */
static int ttm_bo_access_wait(struct ttm_buffer_object *bo, bool write,
			      struct ttm_operation_ctx *ctx)
{
	enum dma_resv_usage usage = write ? DMA_RESV_USAGE_BOOKKEEP : DMA_RESV_USAGE_WRITE;
	int64_t r;

	if (dma_resv_test_signaled(bo->resv, usage))
		return 0;
	if (ctx->no_wait_gpu)
		return -EBUSY;
	r = dma_resv_wait_timeout(bo->resv, usage, ctx->interruptible, MAX_SCHEDULE_TIMEOUT);
	if (r < 0)
		return (int)r;
	return r == 0 ? -EBUSY : 0;
}

int ttm_bo_access(struct ttm_buffer_object *bo, uint64_t offset, void *buf, size_t len, bool write,
		  struct ttm_operation_ctx *ctx)
{
	struct ttm_device *bdev = bo->bdev;
	struct ttm_resource *res = bo->resource;
	int ret;

	if (!res || offset > bo->size || len > bo->size - offset)
		return -EINVAL;
	ret = ttm_bo_access_wait(bo, write, ctx);
	if (ret)
		return ret;
	if (!len)
		return 0;

	if (ttm_bo_res_uses_tt(bo, res)) {
		ret = ttm_bo_populate(bo, ctx);
		if (ret)
			return ret;
		if (write)
			return ttm_tt_copy_to(bo->ttm, offset, buf, len);
		return ttm_tt_copy_from(bo->ttm, offset, buf, len);
	}

	ret = ttm_bo_io_reserve(bdev, res);
	if (ret)
		return ret;
	/* A scattered resource is copied one contiguous piece at a time. */
	while (len) {
		uint64_t seg_len;
		uint64_t off =
		    ttm_resource_io_segment(ttm_bo_res_man(bo, res), res, offset, &seg_len);
		size_t n = seg_len < len ? (size_t)seg_len : len;
		char *p = (char *)res->bus.addr + off;

		if (!n) {
			ret = -EIO;
			break;
		}
		if (write)
			memcpy(p, buf, n);
		else
			memcpy(buf, p, n);
		buf = (char *)buf + n;
		offset += n;
		len -= n;
	}
	ttm_bo_io_free(bdev, res);
	return ret;
}

size_t ttm_bo_metadata_size(const struct ttm_buffer_object *bo)
{
	size_t size = sizeof(*bo);

	/* A manager's subclass is larger; the base is what every BO pays. */
	if (bo->resource)
		size += sizeof(*bo->resource);
	if (bo->ttm) {
		size += sizeof(*bo->ttm);
		if (bo->ttm->pages)
			size += (size_t)bo->ttm->num_pages * (sizeof(void *) + sizeof(uint8_t));
	}
	return size;
}
