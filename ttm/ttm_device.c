// SPDX-License-Identifier: MIT
/*
 * ttm_device.c: device set-up and teardown, the driver's manager table, the
 * delayed-destroy worker, the swap shrinker and the info dump.
 *
 * The worker sleeps on @worker_wake. An enqueue, fini, or the signal of a
 * fence that a queued BO waits for wakes it; nothing else does, so a device
 * whose deleted BOs stay busy costs no CPU. The fence callbacks are armed
 * and owned by the worker itself (see struct ttm_device_wake), which keeps
 * their bookkeeping off the BO and the device: the callback only points at
 * the device, and the worker disarms whatever is left before it exits, i.e.
 * before fini can tear the device down.
 *
 * A callback runs under its fence's lock on the signalling thread, possibly
 * with the LRU lock held by that thread (eviction polls fences under it), so
 * it may only try the LRU lock. Having it, the signal cannot be lost: the
 * worker looks at the fences and goes to sleep under the LRU lock. Without
 * it, the callback retries a little (the holder is most likely the worker on
 * its way into the wait) and then signals unlocked; should that still race
 * with the worker's last look, TTM_DEVICE_SAFETY_NS bounds the delay.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_device.h>
#include <ttm/ttm_faults.h>

#include "ttm_bo_internal.h"

/* Longest sleep with busy BOs queued: only a lost wake-up waits this long. */
#define TTM_DEVICE_SAFETY_NS 1000000000L
/* Sleep when a callback could not be armed (out of memory): poll instead. */
#define TTM_DEVICE_POLL_NS 1000000L
/* LRU lock attempts of a fence callback before it signals unlocked. */
#define TTM_DEVICE_WAKE_TRIES 64

enum {
	TTM_DEVICE_WAKE_ARMED,
	TTM_DEVICE_WAKE_FIRED,
	TTM_DEVICE_WAKE_CANCELLED,
};

/**
 * struct ttm_device_wake - one fence callback armed by the worker.
 * @cb: queued on @fence.
 * @fence: the fence; the reference belongs to whoever moves @state off
 *	ARMED: the callback drops it (never the last one: the signaller holds
 *	its own), or the disarming worker, which then removes @cb.
 * @bdev: whose worker to wake.
 * @state: ARMED until the callback (FIRED) or the worker (CANCELLED) claims
 *	it with a compare-exchange. Once FIRED the callback no longer touches
 *	the struct, so the worker may free it.
 */
struct ttm_device_wake {
	struct dma_fence_cb cb;
	struct dma_fence *fence;
	struct ttm_device *bdev;
	atomic_int state;
};

/**
 * struct ttm_device_wakes - the worker's private set of armed callbacks.
 * @v: the callbacks; @n used, @cap allocated. Only the worker touches it.
 */
struct ttm_device_wakes {
	struct ttm_device_wake **v;
	unsigned n, cap;
};

static void ttm_device_wake_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct ttm_device_wake *w = container_of(cb, struct ttm_device_wake, cb);
	struct ttm_device *bdev = w->bdev;
	int armed = TTM_DEVICE_WAKE_ARMED;
	bool woken = false;

	for (unsigned i = 0; i < TTM_DEVICE_WAKE_TRIES && !woken; i++) {
		if (ttm_trylock(&bdev->lru_lock)) {
			ttm_event_signal(&bdev->worker_wake);
			ttm_unlock(&bdev->lru_lock);
			woken = true;
		} else {
			sched_yield();
		}
	}
	if (!woken)
		ttm_event_signal(&bdev->worker_wake);
	/*
	 * Last: a disarming worker that wins @state waits for us in
	 * dma_fence_remove_callback() (we run under the fence lock), and one
	 * that sees FIRED frees @w, so nothing of @w or @bdev is used after.
	 */
	if (atomic_compare_exchange_strong(&w->state, &armed, TTM_DEVICE_WAKE_FIRED))
		dma_fence_put(fence);
}

/* Free the fired callbacks; with @all, disarm and free the others too. */
static void ttm_device_wakes_gc(struct ttm_device_wakes *ws, bool all)
{
	unsigned keep = 0;

	for (unsigned i = 0; i < ws->n; i++) {
		struct ttm_device_wake *w = ws->v[i];
		int armed = TTM_DEVICE_WAKE_ARMED;

		if (atomic_load(&w->state) == TTM_DEVICE_WAKE_FIRED) {
			free(w);
		} else if (all && atomic_compare_exchange_strong(&w->state, &armed,
								 TTM_DEVICE_WAKE_CANCELLED)) {
			/* Our reference keeps the fence; removal waits out a running callback. */
			dma_fence_remove_callback(w->fence, &w->cb);
			dma_fence_put(w->fence);
			free(w);
		} else {
			ws->v[keep++] = w;
		}
	}
	ws->n = keep;
	if (all) {
		free(ws->v);
		ws->v = NULL;
		ws->cap = 0;
	}
}

/* Is a callback still armed on @fence? Our snapshot reference pins it. */
static bool ttm_device_wakes_has(struct ttm_device_wakes *ws, struct dma_fence *fence)
{
	for (unsigned i = 0; i < ws->n; i++)
		if (ws->v[i]->fence == fence &&
		    atomic_load(&ws->v[i]->state) == TTM_DEVICE_WAKE_ARMED)
			return true;
	return false;
}

/* Arm a callback on @fence unless one is armed already. Return: 0; -ENOMEM. */
static int ttm_device_wakes_arm_one(struct ttm_device *bdev, struct ttm_device_wakes *ws,
				    struct dma_fence *fence)
{
	struct ttm_device_wake *w;

	if (dma_fence_test_signaled_flag(fence) || ttm_device_wakes_has(ws, fence))
		return 0;
	if (ws->n == ws->cap) {
		unsigned cap = ws->cap ? 2 * ws->cap : 16;
		struct ttm_device_wake **v =
		    fault_should_fail(&ttm_fault_worker_alloc, cap * sizeof(*v))
			? NULL
			: realloc(ws->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ws->v = v;
		ws->cap = cap;
	}
	w = fault_should_fail(&ttm_fault_worker_alloc, sizeof(*w)) ? NULL : malloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fence = dma_fence_get(fence);
	w->bdev = bdev;
	atomic_init(&w->state, TTM_DEVICE_WAKE_ARMED);
	if (dma_fence_add_callback(fence, &w->cb, ttm_device_wake_cb)) {
		/* Signalled meanwhile: the next pass sees it idle. */
		dma_fence_put(fence);
		free(w);
		return 0;
	}
	ws->v[ws->n++] = w;
	return 0;
}

/*
 * Arm callbacks on the pending fences of every queued BO. Snapshots are
 * taken under the LRU lock (the list's reference keeps each BO), callbacks
 * added outside it, the fence lock being innermost.
 * Return: 0; -ENOMEM (some fence may then go unwatched).
 */
static int ttm_device_wakes_arm(struct ttm_device *bdev, struct ttm_device_wakes *ws)
{
	struct dma_fence **all = NULL;
	unsigned n = 0, cap = 0;
	struct ttm_buffer_object *bo;
	int ret = 0;

	ttm_lock(&bdev->lru_lock);
	list_for_each_entry (bo, &bdev->ddestroy_list, struct ttm_buffer_object, ddestroy) {
		struct dma_fence **f;
		unsigned k;

		if (dma_resv_get_fences(bo->resv, DMA_RESV_USAGE_BOOKKEEP, &k, &f)) {
			ret = -ENOMEM;
			break;
		}
		if (n + k > cap) {
			unsigned ncap = cap ? 2 * cap : 16;
			struct dma_fence **v;

			while (ncap < n + k)
				ncap *= 2;
			v = fault_should_fail(&ttm_fault_worker_alloc, ncap * sizeof(*v))
				? NULL
				: realloc(all, ncap * sizeof(*v));
			if (!v) {
				dma_resv_put_fences(f, k);
				ret = -ENOMEM;
				break;
			}
			all = v;
			cap = ncap;
		}
		for (unsigned i = 0; i < k; i++)
			all[n++] = f[i];
		/* The references moved to @all; only the array goes. */
		free(f);
	}
	ttm_unlock(&bdev->lru_lock);

	for (unsigned i = 0; i < n && !ret; i++)
		ret = ttm_device_wakes_arm_one(bdev, ws, all[i]);
	dma_resv_put_fences(all, n);
	return ret;
}

/* Could a pass free something now? Fence flags only, no polls. LRU lock held. */
static bool ttm_device_any_idle_locked(struct ttm_device *bdev)
{
	struct ttm_buffer_object *bo;

	list_for_each_entry (bo, &bdev->ddestroy_list, struct ttm_buffer_object, ddestroy)
		if (!dma_resv_count_pending(bo->resv))
			return true;
	return false;
}

static unsigned long ttm_device_flush_pass(struct ttm_device *bdev, bool wait);

static void ttm_device_timedwait(struct ttm_device *bdev, long ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ns / 1000000000L;
	ts.tv_nsec += ns % 1000000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	ttm_event_wait(&bdev->worker_wake, &bdev->lru_lock, &ts);
}

static void *ttm_device_worker(void *arg)
{
	struct ttm_device *bdev = arg;
	struct ttm_device_wakes ws = {0};

	ttm_lock(&bdev->lru_lock);
	while (!bdev->worker_stop) {
		bool poll;

		if (list_empty(&bdev->ddestroy_list)) {
			ttm_event_wait(&bdev->worker_wake, &bdev->lru_lock, NULL);
			continue;
		}
		ttm_unlock(&bdev->lru_lock);
		ttm_device_flush_pass(bdev, false);
		ttm_device_wakes_gc(&ws, false);
		/* A fence we could not watch has to be polled. */
		poll = ttm_device_wakes_arm(bdev, &ws) != 0;
		ttm_lock(&bdev->lru_lock);
		if (bdev->worker_stop || list_empty(&bdev->ddestroy_list))
			continue;
		/*
		 * A fence that signalled after the pass looked at its BO is
		 * caught here, under the lock the callbacks signal under. An
		 * idle BO the pass could not reserve is retried soon, not at
		 * once: its reservation holder needs the time.
		 */
		if (ttm_device_any_idle_locked(bdev))
			poll = true;
		ttm_device_timedwait(bdev, poll ? TTM_DEVICE_POLL_NS : TTM_DEVICE_SAFETY_NS);
	}
	ttm_unlock(&bdev->lru_lock);
	ttm_device_wakes_gc(&ws, true);
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
	ttm_lock_init(&bdev->lru_lock);
	ttm_event_init(&bdev->worker_wake);

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
		goto err_pool;

	bdev->swap_shrinker.scan = ttm_device_swap_scan;
	bdev->swap_shrinker.swaps = true;
	ttm_global_register_shrinker(&bdev->swap_shrinker);
	return 0;

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

	ttm_lock(&bdev->lru_lock);
	bdev->worker_stop = true;
	ttm_event_signal(&bdev->worker_wake);
	ttm_unlock(&bdev->lru_lock);
	pthread_join(bdev->worker, NULL);

	ttm_global_unregister_shrinker(&bdev->swap_shrinker);
	ttm_pool_fini(&bdev->pool);
	ttm_sys_manager_fini(&bdev->sysman);
	bdev->man_drv[TTM_PL_SYSTEM] = NULL;
	return 0;
}

int ttm_set_driver_manager(struct ttm_device *bdev, unsigned type, struct ttm_resource_manager *man)
{
	int ret = 0;

	if (type == TTM_PL_SYSTEM || type >= TTM_NUM_MEM_TYPES)
		return -EINVAL;
	ttm_lock(&bdev->lru_lock);
	if (man && bdev->man_drv[type])
		ret = -EINVAL;
	else
		bdev->man_drv[type] = man;
	ttm_unlock(&bdev->lru_lock);
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

			ttm_lock(&bdev->lru_lock);
			budget = ttm_resource_manager_lru_count(man, p);
			ttm_unlock(&bdev->lru_lock);

			/*
			 * Every BO looked at goes to the LRU tail on unreserve,
			 * so restarting from the head visits each about once.
			 */
			while (budget-- && freed < nr_pages) {
				struct ttm_buffer_object *bo;
				long ret;

				ttm_lock(&bdev->lru_lock);
				bo = ttm_device_lru_grab(man, p);
				ttm_unlock(&bdev->lru_lock);
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
	ttm_lock(&bdev->lru_lock);
	while (!list_empty(&bdev->ddestroy_list)) {
		struct ttm_buffer_object *bo =
		    list_first_entry(&bdev->ddestroy_list, struct ttm_buffer_object, ddestroy);

		list_move_tail(&bo->ddestroy, &local);
		/* The list's reference keeps it alive; this one survives cleanup. */
		ttm_bo_get(bo);
		ttm_unlock(&bdev->lru_lock);

		if (wait) {
			dma_resv_lock(bo->resv, NULL);
			ttm_bo_cleanup_refs(bo, false, false, true);
		} else if (dma_resv_test_signaled(bo->resv, DMA_RESV_USAGE_BOOKKEEP) &&
			   dma_resv_trylock(bo->resv)) {
			ttm_bo_cleanup_refs(bo, false, true, true);
		}
		ttm_bo_put(bo);
		ttm_lock(&bdev->lru_lock);
	}
	list_splice_tail_init(&local, &bdev->ddestroy_list);
	for (pos = bdev->ddestroy_list.next; pos != &bdev->ddestroy_list; pos = pos->next)
		left++;
	ttm_unlock(&bdev->lru_lock);
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

	ttm_lock(&bdev->lru_lock);
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
	ttm_unlock(&bdev->lru_lock);

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
