// SPDX-License-Identifier: MIT
/* The page pool: free blocks per caching mode and order; see ttm/ttm_pool.h. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>

#include <ttm/ttm_faults.h>
#include <ttm/ttm_global.h>
#include <ttm/ttm_pool.h>
#include <ttm/ttm_tt.h>

const char *ttm_caching_name(enum ttm_caching c)
{
	switch (c) {
	case ttm_cached:
		return "cached";
	case ttm_write_combined:
		return "wc";
	case ttm_uncached:
		return "uncached";
	}
	return "?";
}

static size_t block_bytes(unsigned int order)
{
	return TTM_PAGE_SIZE << order;
}

/* Highest order whose block fits in @n pages, capped at TTM_POOL_MAX_ORDER. */
static unsigned int order_for(unsigned long n)
{
	unsigned int order = 0;

	while (order < TTM_POOL_MAX_ORDER && (2ul << order) <= n)
		order++;
	return order;
}

static void block_unmap(void *p, unsigned int order)
{
	munmap(p, block_bytes(order));
}

/* Pop a free block of [@c][@order], NULL when the bucket is empty. */
static void *bucket_take(struct ttm_pool *pool, enum ttm_caching c, unsigned int order)
{
	struct ttm_pool_type *pt = &pool->types[c][order];
	struct list_head *l = NULL;

	pthread_mutex_lock(&pool->lock);
	if (!list_empty(&pt->free)) {
		l = pt->free.next;
		list_del_init(l);
		pt->nr_free--;
		pt->allocs++;
		pool->nr_free_pages -= 1ul << order;
	}
	pthread_mutex_unlock(&pool->lock);
	return l;
}

static void bucket_give(struct ttm_pool *pool, enum ttm_caching c, unsigned int order, void *p)
{
	struct ttm_pool_type *pt = &pool->types[c][order];
	struct list_head *l = p;

	pthread_mutex_lock(&pool->lock);
	list_add(l, &pt->free);
	pt->nr_free++;
	pool->nr_free_pages += 1ul << order;
	pthread_mutex_unlock(&pool->lock);
}

/*
 * One block of 2^@order pages in caching @c: recycled from its bucket, or
 * charged to ttm_global and mapped from the OS. Zeroes recycled blocks when
 * @zero; fresh anonymous mappings are zero already.
 */
static int block_alloc(struct ttm_pool *pool, enum ttm_caching c, unsigned int order, bool zero,
		       struct ttm_operation_ctx *ctx, void **out)
{
	void *p;
	int r;

	if (fault_should_fail(&ttm_fault_pool_alloc, block_bytes(order)))
		return -ENOMEM;
	p = bucket_take(pool, c, order);
	if (p) {
		if (zero)
			memset(p, 0, block_bytes(order));
		else
			memset(p, 0, sizeof(struct list_head)); /* no free-list pointers leak out */
		*out = p;
		return 0;
	}
	r = ttm_global_reserve(1ul << order, pool->use_dma32, ctx);
	if (r)
		return r;
	p = mmap(NULL, block_bytes(order), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0);
	if (p == MAP_FAILED) {
		ttm_global_unreserve(1ul << order, pool->use_dma32);
		return -ENOMEM;
	}
	pthread_mutex_lock(&pool->lock);
	pool->types[c][order].os_allocs++;
	pthread_mutex_unlock(&pool->lock);
	*out = p;
	return 0;
}

static void tt_blocks_free(struct ttm_pool *pool, struct ttm_tt *tt, unsigned long end,
			   bool reclaim)
{
	unsigned long i = 0;

	while (i < end) {
		unsigned int order = tt->orders[i];
		unsigned long j;

		if (reclaim) {
			block_unmap(tt->pages[i], order);
			ttm_global_unreserve(1ul << order, tt->dma32);
		} else {
			bucket_give(pool, tt->caching, order, tt->pages[i]);
		}
		for (j = 0; j < (1ul << order); j++)
			tt->pages[i + j] = NULL;
		i += 1ul << order;
	}
}

int ttm_pool_alloc(struct ttm_pool *pool, struct ttm_tt *tt, struct ttm_operation_ctx *ctx)
{
	bool zero = tt->page_flags & TTM_TT_FLAG_ZERO_ALLOC;
	unsigned int order = TTM_POOL_MAX_ORDER;
	unsigned long i = 0;

	if ((unsigned int)tt->caching >= TTM_NUM_CACHING_TYPES)
		return -EINVAL;
	tt->dma32 = pool->use_dma32;
	while (i < tt->num_pages) {
		unsigned int fit = order_for(tt->num_pages - i);
		unsigned long j;
		void *p;
		int r;

		if (order > fit)
			order = fit;
		r = block_alloc(pool, tt->caching, order, zero, ctx, &p);
		if (r) {
			/* As the kernel does: small blocks may exist where big ones do not. */
			if (order > 0) {
				order--;
				continue;
			}
			tt_blocks_free(pool, tt, i, false);
			return r;
		}
		tt->orders[i] = (uint8_t)order;
		for (j = 0; j < (1ul << order); j++)
			tt->pages[i + j] = (char *)p + j * TTM_PAGE_SIZE;
		i += 1ul << order;
	}
	return 0;
}

void ttm_pool_free(struct ttm_pool *pool, struct ttm_tt *tt, bool reclaim)
{
	tt_blocks_free(pool, tt, tt->num_pages, reclaim);
}

unsigned long ttm_pool_shrink(struct ttm_pool *pool, unsigned long nr_pages)
{
	unsigned long freed = 0;

	while (freed < nr_pages) {
		struct list_head *l = NULL;
		unsigned int order = TTM_POOL_MAX_ORDER + 1;
		int c;

		/* Largest blocks first: fewest unmaps for the pages wanted. */
		pthread_mutex_lock(&pool->lock);
		while (!l && order-- > 0) {
			for (c = 0; c < TTM_NUM_CACHING_TYPES; c++) {
				struct ttm_pool_type *pt = &pool->types[c][order];

				if (!list_empty(&pt->free)) {
					l = pt->free.next;
					list_del_init(l);
					pt->nr_free--;
					pool->nr_free_pages -= 1ul << order;
					break;
				}
			}
		}
		pthread_mutex_unlock(&pool->lock);
		if (!l)
			break;
		block_unmap(l, order);
		ttm_global_unreserve(1ul << order, pool->use_dma32);
		freed += 1ul << order;
	}
	return freed;
}

static unsigned long ttm_pool_scan(struct ttm_global_shrinker *shrinker, unsigned long nr_pages,
				   struct ttm_operation_ctx *ctx)
{
	return ttm_pool_shrink(container_of(shrinker, struct ttm_pool, shrinker), nr_pages);
}

int ttm_pool_init(struct ttm_pool *pool, bool use_dma32)
{
	int c;
	unsigned int o;

	memset(pool, 0, sizeof(*pool));
	if (pthread_mutex_init(&pool->lock, NULL))
		return -ENOMEM;
	pool->use_dma32 = use_dma32;
	for (c = 0; c < TTM_NUM_CACHING_TYPES; c++)
		for (o = 0; o <= TTM_POOL_MAX_ORDER; o++)
			INIT_LIST_HEAD(&pool->types[c][o].free);
	pool->shrinker.scan = ttm_pool_scan;
	pool->shrinker.swaps = false;
	ttm_global_register_shrinker(&pool->shrinker);
	return 0;
}

void ttm_pool_fini(struct ttm_pool *pool)
{
	ttm_global_unregister_shrinker(&pool->shrinker);
	ttm_pool_shrink(pool, ULONG_MAX);
	pthread_mutex_destroy(&pool->lock);
}

unsigned long ttm_pool_nr_free(struct ttm_pool *pool, enum ttm_caching caching, unsigned int order)
{
	unsigned long n;

	if ((unsigned int)caching >= TTM_NUM_CACHING_TYPES || order > TTM_POOL_MAX_ORDER)
		return 0;
	pthread_mutex_lock(&pool->lock);
	n = pool->types[caching][order].nr_free;
	pthread_mutex_unlock(&pool->lock);
	return n;
}

void ttm_pool_print(struct ttm_pool *pool, FILE *out)
{
	int c;
	unsigned int o;

	pthread_mutex_lock(&pool->lock);
	fprintf(out, "%-9s %5s %8s %10s %10s\n", "caching", "order", "free", "reused", "os_allocs");
	for (c = 0; c < TTM_NUM_CACHING_TYPES; c++) {
		for (o = 0; o <= TTM_POOL_MAX_ORDER; o++) {
			struct ttm_pool_type *pt = &pool->types[c][o];

			if (!pt->nr_free && !pt->allocs && !pt->os_allocs)
				continue;
			fprintf(out, "%-9s %5u %8lu %10lu %10lu\n",
				ttm_caching_name((enum ttm_caching)c), o, pt->nr_free, pt->allocs,
				pt->os_allocs);
		}
	}
	fprintf(out, "free pages: %lu%s\n", pool->nr_free_pages, pool->use_dma32 ? " (dma32)" : "");
	pthread_mutex_unlock(&pool->lock);
}
