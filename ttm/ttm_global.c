// SPDX-License-Identifier: MIT
/* Process-wide page accounting with a CAS-reserved cap; see ttm/ttm_global.h. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include <ttm/ttm_global.h>

/* Retries per stage: bounds the loop when other threads keep taking what we freed. */
#define TTM_GLOBAL_MAX_RETRIES 64

/*
 * The one instance. Counters and limits are atomics read on every
 * reservation; @lock guards only the shrinker list.
 */
static struct {
	pthread_once_t once;
	atomic_uint_fast64_t pages;
	atomic_uint_fast64_t dma32_pages;
	atomic_uint_fast64_t high_water;
	atomic_uint_fast64_t dma32_high_water;
	atomic_uint_fast64_t limit;
	atomic_uint_fast64_t dma32_limit;
	atomic_uint_fast64_t shrink_calls;
	atomic_uint_fast64_t failures;
	atomic_bool swap_disabled;
	pthread_rwlock_t lock;
	struct list_head shrinkers;
} glob = {
    .once = PTHREAD_ONCE_INIT,
    .lock = PTHREAD_RWLOCK_INITIALIZER,
    .shrinkers = LIST_HEAD_INIT(glob.shrinkers),
};

static uint64_t default_limit(void)
{
	long phys = sysconf(_SC_PHYS_PAGES);
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t pages;

	if (phys <= 0 || psz <= 0)
		return 1ull << 20; /* 4 GiB when the OS will not say */
	pages = (uint64_t)phys * (uint64_t)psz / 4096u;
	return pages / 2 ? pages / 2 : 1;
}

static uint64_t default_dma32_limit(uint64_t limit)
{
	/* Pages below 4 GiB, but never more than the main cap. */
	const uint64_t below_4g = (4ull << 30) / 4096u;

	return limit < below_4g ? limit : below_4g;
}

static void ttm_global_once(void)
{
	uint64_t limit = default_limit();

	atomic_store(&glob.limit, limit);
	atomic_store(&glob.dma32_limit, default_dma32_limit(limit));
}

static void ttm_global_ensure(void)
{
	pthread_once(&glob.once, ttm_global_once);
}

int ttm_global_config(const struct ttm_global_config *cfg)
{
	uint64_t limit;

	if (!cfg)
		return -EINVAL;
	ttm_global_ensure();
	limit = cfg->limit_pages ? cfg->limit_pages : default_limit();
	atomic_store(&glob.limit, limit);
	atomic_store(&glob.dma32_limit,
		     cfg->dma32_limit_pages ? cfg->dma32_limit_pages : default_dma32_limit(limit));
	atomic_store(&glob.swap_disabled, cfg->swap_disabled);
	return 0;
}

void ttm_global_get_stats(struct ttm_global_stats *stats)
{
	ttm_global_ensure();
	stats->pages = atomic_load(&glob.pages);
	stats->dma32_pages = atomic_load(&glob.dma32_pages);
	stats->high_water = atomic_load(&glob.high_water);
	stats->dma32_high_water = atomic_load(&glob.dma32_high_water);
	stats->limit_pages = atomic_load(&glob.limit);
	stats->dma32_limit_pages = atomic_load(&glob.dma32_limit);
	stats->shrink_calls = atomic_load(&glob.shrink_calls);
	stats->failures = atomic_load(&glob.failures);
}

void ttm_global_reset_high_water(void)
{
	atomic_store(&glob.high_water, atomic_load(&glob.pages));
	atomic_store(&glob.dma32_high_water, atomic_load(&glob.dma32_pages));
}

static void update_max(atomic_uint_fast64_t *hw, uint64_t v)
{
	uint64_t cur = atomic_load(hw);

	while (cur < v && !atomic_compare_exchange_weak(hw, &cur, v))
		;
}

/*
 * Add @n to @counter only if the result stays within @limit. The limit is
 * re-read on every attempt so a concurrent ttm_global_config() takes effect.
 */
static bool try_charge(atomic_uint_fast64_t *counter, atomic_uint_fast64_t *hw,
		       atomic_uint_fast64_t *limit, uint64_t n)
{
	uint64_t cur = atomic_load(counter);

	do {
		if (cur + n > atomic_load(limit) || cur + n < cur)
			return false;
	} while (!atomic_compare_exchange_weak(counter, &cur, cur + n));
	update_max(hw, cur + n);
	return true;
}

static bool try_reserve(uint64_t n, bool dma32)
{
	if (dma32 && !try_charge(&glob.dma32_pages, &glob.dma32_high_water, &glob.dma32_limit, n))
		return false;
	if (!try_charge(&glob.pages, &glob.high_water, &glob.limit, n)) {
		/* Giving back what we charged keeps the DMA32 count within its cap too. */
		if (dma32)
			atomic_fetch_sub(&glob.dma32_pages, n);
		return false;
	}
	return true;
}

/* Caller holds glob.lock for reading. */
static unsigned long run_stage(bool swaps, unsigned long nr_pages, struct ttm_operation_ctx *ctx)
{
	struct ttm_global_shrinker *s;
	unsigned long freed = 0;

	list_for_each_entry (s, &glob.shrinkers, struct ttm_global_shrinker, link) {
		if (s->swaps != swaps)
			continue;
		atomic_fetch_add(&glob.shrink_calls, 1);
		freed += s->scan(s, nr_pages - freed, ctx);
		if (freed >= nr_pages)
			break;
	}
	return freed;
}

int ttm_global_reserve_claim(unsigned long pages, bool dma32, struct ttm_operation_ctx *ctx,
			     const struct ttm_global_claim *claim)
{
	int stage;

	if (!pages)
		return 0;
	ttm_global_ensure();
	if (try_reserve(pages, dma32))
		return 0;
	if (pages > atomic_load(&glob.limit) || (dma32 && pages > atomic_load(&glob.dma32_limit)))
		goto fail;

	pthread_rwlock_rdlock(&glob.lock);
	for (stage = 0; stage < 2; stage++) {
		int retries;

		if (stage == 1 && atomic_load(&glob.swap_disabled))
			break;
		for (retries = 0; retries < TTM_GLOBAL_MAX_RETRIES; retries++) {
			if (!run_stage(stage == 1, pages, ctx))
				break;
			if (stage == 1 && claim && claim->take(claim->arg)) {
				pthread_rwlock_unlock(&glob.lock);
				return 1;
			}
			if (try_reserve(pages, dma32))
				goto charged;
			/*
			 * What the swap-out parked on free lists and nobody took
			 * (another pool's, another caching or order) is still
			 * charged: give it back before swapping anything more.
			 */
			if (stage == 1 && run_stage(false, pages, ctx) && try_reserve(pages, dma32))
				goto charged;
		}
	}
	pthread_rwlock_unlock(&glob.lock);
	/* Another thread may have given pages back while the shrinkers ran dry. */
	if (try_reserve(pages, dma32))
		return 0;
fail:
	atomic_fetch_add(&glob.failures, 1);
	return -ENOMEM;
charged:
	pthread_rwlock_unlock(&glob.lock);
	return 0;
}

int ttm_global_reserve(unsigned long pages, bool dma32, struct ttm_operation_ctx *ctx)
{
	return ttm_global_reserve_claim(pages, dma32, ctx, NULL);
}

void ttm_global_unreserve(unsigned long pages, bool dma32)
{
	if (!pages)
		return;
	if (dma32)
		atomic_fetch_sub(&glob.dma32_pages, pages);
	atomic_fetch_sub(&glob.pages, pages);
}

void ttm_global_register_shrinker(struct ttm_global_shrinker *shrinker)
{
	pthread_rwlock_wrlock(&glob.lock);
	list_add_tail(&shrinker->link, &glob.shrinkers);
	pthread_rwlock_unlock(&glob.lock);
}

void ttm_global_unregister_shrinker(struct ttm_global_shrinker *shrinker)
{
	/* The write lock waits for every running scan, so none of it runs after we return. */
	pthread_rwlock_wrlock(&glob.lock);
	list_del_init(&shrinker->link);
	pthread_rwlock_unlock(&glob.lock);
}

unsigned long ttm_global_shrink(unsigned long nr_pages)
{
	unsigned long freed;

	pthread_rwlock_rdlock(&glob.lock);
	freed = run_stage(false, nr_pages, NULL);
	pthread_rwlock_unlock(&glob.lock);
	return freed;
}

void ttm_global_print(FILE *out)
{
	struct ttm_global_stats s;

	ttm_global_get_stats(&s);
	fprintf(out, "pages: %llu / %llu (high water %llu)\n", (unsigned long long)s.pages,
		(unsigned long long)s.limit_pages, (unsigned long long)s.high_water);
	fprintf(out, "dma32 pages: %llu / %llu (high water %llu)\n",
		(unsigned long long)s.dma32_pages, (unsigned long long)s.dma32_limit_pages,
		(unsigned long long)s.dma32_high_water);
	fprintf(out, "shrinker scans: %llu\nfailed reservations: %llu\nswap: %s\n",
		(unsigned long long)s.shrink_calls, (unsigned long long)s.failures,
		atomic_load(&glob.swap_disabled) ? "disabled" : "enabled");
}
