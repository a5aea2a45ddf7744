// SPDX-License-Identifier: MIT
/* ttm_resource: usage accounting, LRU and bulk moves, the move fence. */
#include <errno.h>
#include <stdlib.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_faults.h>
#include <ttm/ttm_resource.h>

/* @man's move fence; writers hold move_lock (see struct ttm_resource_manager). */
static inline struct dma_fence *ttm_resource_move_peek(struct ttm_resource_manager *man)
{
	return atomic_load_explicit(&man->move, memory_order_relaxed);
}

static inline void ttm_resource_move_set(struct ttm_resource_manager *man, struct dma_fence *f)
{
	atomic_store_explicit(&man->move, f, memory_order_release);
}

/* What a manager initialised without callbacks gets: none of them. */
static const struct ttm_resource_manager_func ttm_resource_manager_no_func;

int ttm_resource_manager_init(struct ttm_resource_manager *man,
			      const struct ttm_resource_manager_func *func, uint64_t size)
{
	man->func = func ? func : &ttm_resource_manager_no_func;
	man->use_type = false;
	man->use_tt = false;
	man->size = size;
	atomic_init(&man->usage, 0);
	for (unsigned i = 0; i < TTM_MAX_BO_PRIORITY; i++)
		INIT_LIST_HEAD(&man->lru[i]);
	ttm_lock_init(&man->move_lock);
	atomic_init(&man->move, NULL);
	return 0;
}

int ttm_resource_manager_fini(struct ttm_resource_manager *man)
{
	int ret;

	if (atomic_load(&man->usage))
		return -EBUSY;
	/* A move still in flight would land in memory about to vanish. */
	ret = ttm_resource_manager_cleanup_move(man, false);
	if (ret) {
		ttm_lock(&man->move_lock);
		dma_fence_put(ttm_resource_move_peek(man));
		ttm_resource_move_set(man, NULL);
		ttm_unlock(&man->move_lock);
	}
	man->use_type = false;
	return 0;
}

uint64_t ttm_resource_manager_usage(struct ttm_resource_manager *man)
{
	return atomic_load(&man->usage);
}

unsigned long ttm_resource_manager_lru_count(const struct ttm_resource_manager *man,
					     unsigned priority)
{
	const struct list_head *pos;
	unsigned long n = 0;

	if (priority >= TTM_MAX_BO_PRIORITY)
		return 0;
	for (pos = man->lru[priority].next; pos != &man->lru[priority]; pos = pos->next)
		n++;
	return n;
}

void ttm_resource_manager_debug(struct ttm_resource_manager *man, FILE *f)
{
	fprintf(f, "  use_type: %d\n", man->use_type);
	fprintf(f, "  use_tt: %d\n", man->use_tt);
	fprintf(f, "  size: %llu pages\n", (unsigned long long)man->size);
	fprintf(f, "  usage: %llu bytes\n", (unsigned long long)ttm_resource_manager_usage(man));
	for (unsigned i = 0; i < TTM_MAX_BO_PRIORITY; i++)
		fprintf(f, "  lru[%u]: %lu\n", i, ttm_resource_manager_lru_count(man, i));
	if (man->func->debug)
		man->func->debug(man, f);
}

int ttm_resource_manager_set_move(struct ttm_resource_manager *man, struct dma_fence *fence)
{
	struct dma_fence *old = NULL, *cur;
	int ret = 0;

	if (!fence)
		return 0;
	ttm_lock(&man->move_lock);
	cur = ttm_resource_move_peek(man);
	if (!cur) {
		ttm_resource_move_set(man, dma_fence_get(fence));
	} else if (cur->context == fence->context) {
		/* On one timeline the later fence signals last. */
		if (dma_fence_is_later(fence, cur)) {
			old = cur;
			ttm_resource_move_set(man, dma_fence_get(fence));
		}
	} else if (dma_fence_test_signaled_flag(cur)) {
		/* The flag only: signalling here could run callbacks under the lock. */
		old = cur;
		ttm_resource_move_set(man, dma_fence_get(fence));
	} else {
		ret = -EBUSY;
	}
	ttm_unlock(&man->move_lock);
	dma_fence_put(old);
	return ret;
}

struct dma_fence *ttm_resource_manager_get_move(struct ttm_resource_manager *man)
{
	struct dma_fence *f;

	/*
	 * No fence, no lock: whoever freed the memory an allocation got set
	 * the fence before that free, which the allocator's lock ordered
	 * before our look, so a NULL seen here is the current value.
	 */
	if (!atomic_load_explicit(&man->move, memory_order_acquire))
		return NULL;
	ttm_lock(&man->move_lock);
	f = ttm_resource_move_peek(man);
	f = f ? dma_fence_get(f) : NULL;
	ttm_unlock(&man->move_lock);
	return f;
}

void ttm_resource_manager_drop_move(struct ttm_resource_manager *man, struct dma_fence *fence)
{
	struct dma_fence *old = NULL;

	ttm_lock(&man->move_lock);
	if (ttm_resource_move_peek(man) == fence) {
		old = fence;
		ttm_resource_move_set(man, NULL);
	}
	ttm_unlock(&man->move_lock);
	dma_fence_put(old);
}

int ttm_resource_manager_cleanup_move(struct ttm_resource_manager *man, bool intr)
{
	struct dma_fence *f = ttm_resource_manager_get_move(man);
	int ret;

	if (!f)
		return 0;
	/* Wait without the lock so set_move() from other threads is not blocked. */
	ret = dma_fence_wait(f, intr);
	if (!ret)
		ret = dma_fence_get_status(f) < 0 ? dma_fence_get_status(f) : 0;
	if (dma_fence_is_signaled(f)) {
		ttm_lock(&man->move_lock);
		if (ttm_resource_move_peek(man) == f) {
			dma_fence_put(f);
			ttm_resource_move_set(man, NULL);
		}
		ttm_unlock(&man->move_lock);
	}
	dma_fence_put(f);
	return ret;
}

void ttm_resource_init(struct ttm_resource_manager *man, struct ttm_buffer_object *bo,
		       const struct ttm_place *place, uint64_t size, struct ttm_resource *res)
{
	res->start = 0;
	res->size = size;
	res->mem_type = place->mem_type;
	res->placement = place->flags;
	res->bus.addr = NULL;
	res->bus.offset = 0;
	res->bus.is_iomem = false;
	res->bo = bo;
	res->priority = 0;
	INIT_LIST_HEAD(&res->lru);
	res->bulk_move = NULL;
	atomic_fetch_add(&man->usage, size);
	if (!bo)
		return;
	/*
	 * As in the kernel, a BO's resource is on an LRU from birth. Walkers
	 * find it there before it becomes bo->resource, but the allocating
	 * caller holds the BO's reservation and they check bo->resource.
	 */
	ttm_lock(&bo->bdev->lru_lock);
	res->priority = bo->priority;
	if (bo->pin_count)
		list_add_tail(&res->lru, &bo->bdev->pinned);
	else
		ttm_resource_lru_add(man, res);
	ttm_unlock(&bo->bdev->lru_lock);
}

void ttm_resource_fini(struct ttm_resource_manager *man, struct ttm_resource *res)
{
	/*
	 * ttm_resource_free() unlinks under the caller's LRU lock before the
	 * manager's free gets here; only a resource finished without it (its
	 * owner's reservation held, so no LRU write can unlink it meanwhile)
	 * is still linked and taken off here.
	 */
	if (!list_empty(&res->lru)) {
		if (res->bo) {
			ttm_lock(&res->bo->bdev->lru_lock);
			ttm_resource_lru_del(man, res);
			ttm_unlock(&res->bo->bdev->lru_lock);
		} else {
			ttm_resource_lru_del(man, res);
		}
	}
	atomic_fetch_sub(&man->usage, res->size);
}

int ttm_resource_alloc(struct ttm_resource_manager *man, struct ttm_buffer_object *bo,
		       const struct ttm_place *place, uint64_t size, uint64_t page_alignment,
		       struct ttm_resource **res)
{
	int ret;

	*res = NULL;
	if (!size)
		return -EINVAL;
	if (size > UINT64_MAX - (TTM_PAGE_SIZE - 1))
		return -ENOSPC;
	size = (size + TTM_PAGE_SIZE - 1) & ~(TTM_PAGE_SIZE - 1);
	if (fault_should_fail(&ttm_fault_resource_alloc, size))
		return -ENOMEM;
	if (!man->func->alloc)
		return -EINVAL;
	ret = man->func->alloc(man, bo, place, size, page_alignment, res);
	if (ret)
		*res = NULL;
	return ret;
}

void ttm_resource_free(struct ttm_resource_manager *man, struct ttm_resource **res)
{
	if (!*res)
		return;
	ttm_resource_lru_del(man, *res);
	if (man->func->free)
		man->func->free(man, *res);
	else
		ttm_resource_fini(man, *res);
	*res = NULL;
}

bool ttm_resource_compatible(struct ttm_resource_manager *man, struct ttm_resource *res,
			     const struct ttm_placement *placement, bool evicting)
{
	uint32_t skip = evicting ? TTM_PL_FLAG_DESIRED : TTM_PL_FLAG_FALLBACK;

	for (unsigned i = 0; i < placement->num_placement; i++) {
		const struct ttm_place *place = &placement->placement[i];

		if (place->mem_type == res->mem_type && !(place->flags & skip) &&
		    ttm_resource_place_compatible(man, res, place))
			return true;
	}
	return false;
}

uint64_t ttm_resource_io_segment(struct ttm_resource_manager *man, struct ttm_resource *res,
				 uint64_t offset, uint64_t *len)
{
	if (offset >= res->size) {
		*len = 0;
		return 0;
	}
	if (man && man->func->io_segment)
		return man->func->io_segment(man, res, offset, len);
	*len = res->size - offset;
	return offset;
}

bool ttm_resource_is_linear(struct ttm_resource_manager *man, struct ttm_resource *res)
{
	uint64_t len;

	/* Pieces that happen to follow each other are one run too. */
	for (uint64_t off = 0; off < res->size; off += len) {
		if (ttm_resource_io_segment(man, res, off, &len) != off || !len)
			return false;
	}
	return true;
}

bool ttm_resource_intersects(struct ttm_resource_manager *man, struct ttm_resource *res,
			     const struct ttm_place *place, uint64_t size)
{
	if (place->mem_type != res->mem_type)
		return false;
	if (!man->func->intersects)
		return true;
	return man->func->intersects(man, res, place, size);
}

static unsigned ttm_resource_prio(const struct ttm_resource *res)
{
	return res->priority < TTM_MAX_BO_PRIORITY ? res->priority : TTM_MAX_BO_PRIORITY - 1;
}

static struct ttm_lru_bulk_move_pos *ttm_lru_bulk_pos(struct ttm_lru_bulk_move *bulk,
						      const struct ttm_resource *res)
{
	return &bulk->pos[res->mem_type % TTM_NUM_MEM_TYPES][ttm_resource_prio(res)];
}

void ttm_resource_lru_add(struct ttm_resource_manager *man, struct ttm_resource *res)
{
	if (!list_empty(&res->lru))
		list_del_init(&res->lru);
	list_add_tail(&res->lru, &man->lru[ttm_resource_prio(res)]);
}

/* Insert @e right after @prev. */
static void ttm_list_move_after(struct list_head *e, struct list_head *prev)
{
	list_del_init(e);
	list_add(e, prev);
}

void ttm_resource_lru_move_tail(struct ttm_resource_manager *man, struct ttm_resource *res)
{
	struct ttm_lru_bulk_move_pos *pos;

	if (!res->bulk_move) {
		ttm_resource_lru_add(man, res);
		return;
	}
	pos = ttm_lru_bulk_pos(res->bulk_move, res);
	if (pos->last == res)
		return;
	if (pos->first == res)
		pos->first = list_entry(res->lru.next, struct ttm_resource, lru);
	ttm_list_move_after(&res->lru, &pos->last->lru);
	pos->last = res;
}

void ttm_resource_lru_del(struct ttm_resource_manager *man, struct ttm_resource *res)
{
	(void)man;
	ttm_lru_bulk_move_del(res);
	if (!list_empty(&res->lru))
		list_del_init(&res->lru);
}

void ttm_lru_bulk_move_init(struct ttm_lru_bulk_move *bulk)
{
	for (unsigned t = 0; t < TTM_NUM_MEM_TYPES; t++)
		for (unsigned p = 0; p < TTM_MAX_BO_PRIORITY; p++)
			bulk->pos[t][p].first = bulk->pos[t][p].last = NULL;
}

int ttm_lru_bulk_move_add(struct ttm_lru_bulk_move *bulk, struct ttm_resource_manager *man,
			  struct ttm_resource *res)
{
	struct ttm_lru_bulk_move_pos *pos;

	(void)man;
	if (res->bulk_move)
		return -EBUSY;
	if (list_empty(&res->lru))
		return -EINVAL;
	pos = ttm_lru_bulk_pos(bulk, res);
	if (!pos->first) {
		pos->first = pos->last = res;
	} else {
		ttm_list_move_after(&res->lru, &pos->last->lru);
		pos->last = res;
	}
	res->bulk_move = bulk;
	return 0;
}

void ttm_lru_bulk_move_del(struct ttm_resource *res)
{
	struct ttm_lru_bulk_move_pos *pos;

	if (!res->bulk_move)
		return;
	pos = ttm_lru_bulk_pos(res->bulk_move, res);
	if (pos->first == res && pos->last == res) {
		pos->first = pos->last = NULL;
	} else if (pos->first == res) {
		pos->first = list_entry(res->lru.next, struct ttm_resource, lru);
	} else if (pos->last == res) {
		pos->last = list_entry(res->lru.prev, struct ttm_resource, lru);
	} else {
		/* Keep the range adjacent: a middle entry leaves it for just before. */
		ttm_list_move_after(&res->lru, pos->first->lru.prev);
	}
	res->bulk_move = NULL;
}

void ttm_lru_bulk_move_tail(struct ttm_lru_bulk_move *bulk,
			    struct ttm_resource_manager *const *mans)
{
	for (unsigned t = 0; t < TTM_NUM_MEM_TYPES; t++) {
		for (unsigned p = 0; p < TTM_MAX_BO_PRIORITY; p++) {
			struct ttm_lru_bulk_move_pos *pos = &bulk->pos[t][p];
			struct list_head *head, *first, *last;

			if (!pos->first || !mans[t])
				continue;
			head = &mans[t]->lru[p];
			first = &pos->first->lru;
			last = &pos->last->lru;
			if (head->prev == last)
				continue;
			/* Cut [first, last] out and splice it before @head. */
			first->prev->next = last->next;
			list_set_prev_(last->next, first->prev);
			list_set_prev_(first, head->prev);
			head->prev->next = first;
			last->next = head;
			list_set_prev_(head, last);
		}
	}
}
