// SPDX-License-Identifier: MIT
/*
 * ttm_device.c: device set-up and teardown, the driver's manager table, the
 * delayed-destroy worker, the swap shrinker and the info dump.
 *
 * The worker sleeps on @worker_cond while the delayed list is empty and is
 * woken by every new entry. While entries remain it polls their fences every
 * TTM_DEVICE_POLL_NS instead of arming a callback per fence: a callback
 * would have to outlive the BO it points at or be removed under the fence
 * lock on every path that frees the BO, and deleted-but-busy BOs are rare
 * enough that a millisecond of latency costs nothing.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_device.h>

#include "ttm_bo_internal.h"

#define TTM_DEVICE_POLL_NS 1000000L

static void *ttm_device_worker(void *arg)
{
	struct ttm_device *bdev = arg;

	pthread_mutex_lock(&bdev->lru_lock);
	while (!bdev->worker_stop) {
		if (list_empty(&bdev->ddestroy_list)) {
			pthread_cond_wait(&bdev->worker_cond, &bdev->lru_lock);
			continue;
		}
		pthread_mutex_unlock(&bdev->lru_lock);
		ttm_device_flush_delayed(bdev, false);
		pthread_mutex_lock(&bdev->lru_lock);
		if (!bdev->worker_stop && !list_empty(&bdev->ddestroy_list)) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_nsec += TTM_DEVICE_POLL_NS;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&bdev->worker_cond, &bdev->lru_lock, &ts);
		}
	}
	pthread_mutex_unlock(&bdev->lru_lock);
	return NULL;
}

static unsigned long ttm_device_swap_scan(struct ttm_global_shrinker *shrinker,
					  unsigned long nr_pages, struct ttm_operation_ctx *ctx)
{
	struct ttm_device *bdev = container_of(shrinker, struct ttm_device, swap_shrinker);
	/* Reclaim never waits for the GPU: a busy BO is simply not a candidate. */
	struct ttm_operation_ctx sctx = {
	    .interruptible = ctx ? ctx->interruptible : false,
	    .no_wait_gpu = true,
	};

	return ttm_device_swapout(bdev, &sctx, nr_pages);
}

int ttm_device_init(struct ttm_device *bdev, const struct ttm_device_funcs *funcs, bool use_dma32)
{
	pthread_condattr_t cattr;
	int ret;

	if (!bdev || !funcs || !funcs->evict_flags)
		return -EINVAL;

	bdev->funcs = funcs;
	ret = ttm_sys_manager_init(&bdev->sysman);
	if (ret)
		return ret;
	for (unsigned i = 0; i < TTM_NUM_MEM_TYPES; i++)
		bdev->man_drv[i] = NULL;
	bdev->man_drv[TTM_PL_SYSTEM] = &bdev->sysman;

	ret = ttm_pool_init(&bdev->pool, use_dma32);
	if (ret)
		goto err_sys;
	ret = -pthread_mutex_init(&bdev->lru_lock, NULL);
	if (ret)
		goto err_pool;
	ret = -pthread_condattr_init(&cattr);
	if (ret)
		goto err_lock;
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	ret = -pthread_cond_init(&bdev->worker_cond, &cattr);
	pthread_condattr_destroy(&cattr);
	if (ret)
		goto err_lock;

	INIT_LIST_HEAD(&bdev->pinned);
	INIT_LIST_HEAD(&bdev->ddestroy_list);
	bdev->worker_stop = false;
	bdev->unmap_virtual = NULL;
	atomic_init(&bdev->stats.bo_count, 0);
	atomic_init(&bdev->stats.ghost_count, 0);
	atomic_init(&bdev->stats.pinned, 0);
	atomic_init(&bdev->stats.swapped, 0);
	atomic_init(&bdev->stats.ddestroy, 0);
	atomic_init(&bdev->stats.evictions, 0);
	atomic_init(&bdev->stats.bytes_moved, 0);
	atomic_init(&bdev->stats.swapouts, 0);
	atomic_init(&bdev->stats.swapins, 0);

	ret = -pthread_create(&bdev->worker, NULL, ttm_device_worker, bdev);
	if (ret)
		goto err_cond;

	bdev->swap_shrinker.scan = ttm_device_swap_scan;
	bdev->swap_shrinker.swaps = true;
	ttm_global_register_shrinker(&bdev->swap_shrinker);
	return 0;

err_cond:
	pthread_cond_destroy(&bdev->worker_cond);
err_lock:
	pthread_mutex_destroy(&bdev->lru_lock);
err_pool:
	ttm_pool_fini(&bdev->pool);
err_sys:
	ttm_sys_manager_fini(&bdev->sysman);
	return ret;
}

int ttm_device_fini(struct ttm_device *bdev)
{
	ttm_device_flush_delayed(bdev, true);
	if (atomic_load(&bdev->stats.bo_count))
		return -EBUSY;

	pthread_mutex_lock(&bdev->lru_lock);
	bdev->worker_stop = true;
	pthread_cond_signal(&bdev->worker_cond);
	pthread_mutex_unlock(&bdev->lru_lock);
	pthread_join(bdev->worker, NULL);

	ttm_global_unregister_shrinker(&bdev->swap_shrinker);
	ttm_pool_fini(&bdev->pool);
	ttm_sys_manager_fini(&bdev->sysman);
	bdev->man_drv[TTM_PL_SYSTEM] = NULL;
	pthread_cond_destroy(&bdev->worker_cond);
	pthread_mutex_destroy(&bdev->lru_lock);
	return 0;
}

int ttm_set_driver_manager(struct ttm_device *bdev, unsigned type, struct ttm_resource_manager *man)
{
	int ret = 0;

	if (type == TTM_PL_SYSTEM || type >= TTM_NUM_MEM_TYPES)
		return -EINVAL;
	pthread_mutex_lock(&bdev->lru_lock);
	if (man && bdev->man_drv[type])
		ret = -EINVAL;
	else
		bdev->man_drv[type] = man;
	pthread_mutex_unlock(&bdev->lru_lock);
	return ret;
}

/*
 * Find the least recently used BO of @man's @prio list that can be locked
 * and referenced right now. LRU lock held; the BO is returned reserved.
 */
static struct ttm_buffer_object *ttm_device_lru_grab(struct ttm_resource_manager *man,
						     unsigned prio)
{
	struct ttm_resource *res;

	list_for_each_entry (res, &man->lru[prio], struct ttm_resource, lru) {
		struct ttm_buffer_object *bo = res->bo;

		if (!bo || bo->deleted || bo->is_ghost)
			continue;
		if (!dma_resv_trylock(bo->resv))
			continue;
		if (!ttm_bo_get_unless_zero(bo)) {
			dma_resv_unlock(bo->resv);
			continue;
		}
		return bo;
	}
	return NULL;
}

unsigned long ttm_device_swapout(struct ttm_device *bdev, struct ttm_operation_ctx *ctx,
				 unsigned long nr_pages)
{
	unsigned long freed = 0;

	/* SYSTEM first: those BOs need no move before their pages can go. */
	for (unsigned t = 0; t < TTM_NUM_MEM_TYPES && freed < nr_pages; t++) {
		struct ttm_resource_manager *man = ttm_manager_type(bdev, t);

		if (!man || !man->use_tt)
			continue;
		for (unsigned p = 0; p < TTM_MAX_BO_PRIORITY && freed < nr_pages; p++) {
			unsigned long budget;

			pthread_mutex_lock(&bdev->lru_lock);
			budget = ttm_resource_manager_lru_count(man, p);
			pthread_mutex_unlock(&bdev->lru_lock);

			/*
			 * Every BO looked at goes to the LRU tail on unreserve,
			 * so restarting from the head visits each about once.
			 */
			while (budget-- && freed < nr_pages) {
				struct ttm_buffer_object *bo;
				long ret;

				pthread_mutex_lock(&bdev->lru_lock);
				bo = ttm_device_lru_grab(man, p);
				pthread_mutex_unlock(&bdev->lru_lock);
				if (!bo)
					break;
				ret = ttm_bo_swapout(bo, ctx);
				if (ret > 0)
					freed += (unsigned long)ret;
				ttm_bo_unreserve(bo);
				ttm_bo_put(bo);
			}
		}
	}
	return freed;
}

static unsigned long ttm_device_flush_pass(struct ttm_device *bdev, bool wait)
{
	struct list_head local;
	unsigned long left = 0;
	struct list_head *pos;

	/*
	 * Entries move to @local while they are looked at, so each is tried
	 * once per call even when it stays busy; they go back in front of
	 * the entries queued meanwhile, keeping the list in deletion order.
	 */
	INIT_LIST_HEAD(&local);
	pthread_mutex_lock(&bdev->lru_lock);
	while (!list_empty(&bdev->ddestroy_list)) {
		struct ttm_buffer_object *bo =
		    list_first_entry(&bdev->ddestroy_list, struct ttm_buffer_object, ddestroy);

		list_move_tail(&bo->ddestroy, &local);
		/* The list's reference keeps it alive; this one survives cleanup. */
		ttm_bo_get(bo);
		pthread_mutex_unlock(&bdev->lru_lock);

		if (wait) {
			dma_resv_lock(bo->resv, NULL);
			ttm_bo_cleanup_refs(bo, false, false, true);
		} else if (dma_resv_test_signaled(bo->resv, DMA_RESV_USAGE_BOOKKEEP) &&
			   dma_resv_trylock(bo->resv)) {
			ttm_bo_cleanup_refs(bo, false, true, true);
		}
		ttm_bo_put(bo);
		pthread_mutex_lock(&bdev->lru_lock);
	}
	list_splice_tail_init(&local, &bdev->ddestroy_list);
	for (pos = bdev->ddestroy_list.next; pos != &bdev->ddestroy_list; pos = pos->next)
		left++;
	pthread_mutex_unlock(&bdev->lru_lock);
	return left;
}

unsigned long ttm_device_flush_delayed(struct ttm_device *bdev, bool wait)
{
	unsigned long left = ttm_device_flush_pass(bdev, wait);

	/*
	 * Another flusher (the worker, an evictor in cleanup_refs) may hold an
	 * entry off the list, or its last reference, for a moment, so a
	 * waiting flush goes by the counter, which only drops once a deleted
	 * BO is freed. The caller must therefore hold no reference to a
	 * deleted BO itself.
	 */
	while (wait && atomic_load(&bdev->stats.ddestroy)) {
		sched_yield();
		left = ttm_device_flush_pass(bdev, wait);
	}
	return left;
}

static void ttm_device_print_type(FILE *f, unsigned type)
{
	static const char *const names[] = {
	    [TTM_PL_SYSTEM] = "system",
	    [TTM_PL_TT] = "tt",
	    [TTM_PL_VRAM] = "vram",
	};

	if (type < TTM_PL_PRIV)
		fprintf(f, "manager %u (%s):\n", type, names[type]);
	else
		fprintf(f, "manager %u (priv%u):\n", type, type - TTM_PL_PRIV);
}

/* Unsignalled fences of the BOs behind @head's resources. LRU lock held. */
static unsigned long ttm_device_count_pending(struct list_head *head)
{
	struct ttm_resource *res;
	unsigned long n = 0;

	list_for_each_entry (res, head, struct ttm_resource, lru)
		if (res->bo)
			n += dma_resv_count_pending(res->bo->resv);
	return n;
}

void ttm_device_print(struct ttm_device *bdev, FILE *f)
{
	struct ttm_device_stats *s = &bdev->stats;
	unsigned long pending = 0;

	pthread_mutex_lock(&bdev->lru_lock);
	fprintf(f, "ttm_device:\n");
	for (unsigned t = 0; t < TTM_NUM_MEM_TYPES; t++) {
		struct ttm_resource_manager *man = bdev->man_drv[t];

		if (!man)
			continue;
		ttm_device_print_type(f, t);
		ttm_resource_manager_debug(man, f);
		for (unsigned p = 0; p < TTM_MAX_BO_PRIORITY; p++)
			pending += ttm_device_count_pending(&man->lru[p]);
	}
	pending += ttm_device_count_pending(&bdev->pinned);
	pthread_mutex_unlock(&bdev->lru_lock);

	fprintf(f, "bos: %llu\n", (unsigned long long)atomic_load(&s->bo_count));
	fprintf(f, "ghosts: %llu\n", (unsigned long long)atomic_load(&s->ghost_count));
	fprintf(f, "pinned: %llu\n", (unsigned long long)atomic_load(&s->pinned));
	fprintf(f, "swapped: %llu\n", (unsigned long long)atomic_load(&s->swapped));
	fprintf(f, "delayed_destroy: %llu\n", (unsigned long long)atomic_load(&s->ddestroy));
	fprintf(f, "evictions: %llu\n", (unsigned long long)atomic_load(&s->evictions));
	fprintf(f, "bytes_moved: %llu\n", (unsigned long long)atomic_load(&s->bytes_moved));
	fprintf(f, "swapouts: %llu\n", (unsigned long long)atomic_load(&s->swapouts));
	fprintf(f, "swapins: %llu\n", (unsigned long long)atomic_load(&s->swapins));
	fprintf(f, "pending_fences: %lu\n", pending);
	fprintf(f, "pool:\n");
	ttm_pool_print(&bdev->pool, f);
	fprintf(f, "page_cap:\n");
	ttm_global_print(f);
}
