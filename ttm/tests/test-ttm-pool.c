// SPDX-License-Identifier: MIT
/*
 * Tests of the page pool: orders, reuse per caching mode, trim, accounting,
 * faults, and the memfd arena (a second shared view of a page, holes punched
 * when memory goes back to the OS).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <ttm/ttm_faults.h>
#include <ttm/ttm_global.h>
#include <ttm/ttm_pool.h>
#include <ttm/ttm_tt.h>

#include "ktest.h"

/* A bare tt, built by hand so these tests need nothing but the pool. */
static void fake_tt(struct ttm_tt *tt, unsigned long pages, enum ttm_caching c, uint32_t flags)
{
	memset(tt, 0, sizeof(*tt));
	tt->num_pages = (uint32_t)pages;
	tt->caching = c;
	tt->page_flags = flags;
	tt->swap_storage = -1;
	tt->pages = calloc(pages, sizeof(*tt->pages));
	tt->orders = calloc(pages, 1);
	ASSERT_NOT_NULL(tt->pages);
	ASSERT_NOT_NULL(tt->orders);
}

static void fake_tt_fini(struct ttm_tt *tt)
{
	free(tt->pages);
	free(tt->orders);
}

static uint64_t global_pages(void)
{
	struct ttm_global_stats s;

	ttm_global_get_stats(&s);
	return s.pages;
}

static void default_cap(void)
{
	struct ttm_global_config cfg = {0};

	ASSERT_EQ(ttm_global_config(&cfg), 0);
}

/*
 * The kernel's ttm_pool_alloc_basic, "Above the allocation limit": a tt of
 * 2^MAX_PAGE_ORDER + 1 pages (x86: order 10) gets one block of the largest
 * order and one page.
 */
KTEST(ttm_pool_alloc_basic_above_allocation_limit)
{
	struct ttm_pool pool;
	struct ttm_tt tt;

	default_cap();
	ASSERT_EQ(ttm_pool_init(&pool, false), 0);
	fake_tt(&tt, 1024 + 1, ttm_cached, 0);
	ASSERT_EQ(ttm_pool_alloc(&pool, &tt, NULL), 0);
	EXPECT_EQ(tt.orders[0], 10);
	EXPECT_EQ(tt.orders[1024], 0);
	for (unsigned long i = 1; i < 1024; i++)
		EXPECT_TRUE((char *)tt.pages[i] == (char *)tt.pages[i - 1] + TTM_PAGE_SIZE);
	ttm_pool_free(&pool, &tt, false);
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_cached, 10), 1);
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_cached, 0), 1);
	ttm_pool_fini(&pool);
	fake_tt_fini(&tt);
}

KTEST(ttm_pool_alloc_prefers_high_orders)
{
	struct ttm_pool pool;
	struct ttm_tt tt;
	unsigned long i;

	default_cap();
	ASSERT_EQ(ttm_pool_init(&pool, false), 0);
	fake_tt(&tt, 512 + 2 + 1, ttm_cached, 0);
	ASSERT_EQ(ttm_pool_alloc(&pool, &tt, NULL), 0);
	EXPECT_EQ(global_pages(), 515);
	EXPECT_EQ(tt.orders[0], 9);
	EXPECT_EQ(tt.orders[512], 1);
	EXPECT_EQ(tt.orders[514], 0);
	/* Pages of one block are contiguous and every page is writable. */
	for (i = 1; i < 512; i++)
		EXPECT_TRUE((char *)tt.pages[i] == (char *)tt.pages[i - 1] + TTM_PAGE_SIZE);
	for (i = 0; i < tt.num_pages; i++)
		memset(tt.pages[i], (int)i, TTM_PAGE_SIZE);
	ttm_pool_free(&pool, &tt, false);
	EXPECT_NULL(tt.pages[0]);
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_cached, 9), 1);
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_cached, 1), 1);
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_cached, 0), 1);
	/* Free pages stay charged: they are memory the process holds. */
	EXPECT_EQ(global_pages(), 515);
	fake_tt_fini(&tt);
	ttm_pool_fini(&pool);
	EXPECT_EQ(global_pages(), 0);
}

KTEST(ttm_pool_reuse_by_caching_and_order)
{
	struct ttm_pool pool;
	struct ttm_tt wc, cached, wc2;
	void *wc_page;

	default_cap();
	ASSERT_EQ(ttm_pool_init(&pool, false), 0);
	fake_tt(&wc, 1, ttm_write_combined, 0);
	ASSERT_EQ(ttm_pool_alloc(&pool, &wc, NULL), 0);
	wc_page = wc.pages[0];
	ttm_pool_free(&pool, &wc, false);
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_write_combined, 0), 1);

	/* A cached request must not take the WC page. */
	fake_tt(&cached, 1, ttm_cached, 0);
	ASSERT_EQ(ttm_pool_alloc(&pool, &cached, NULL), 0);
	EXPECT_TRUE(cached.pages[0] != wc_page);
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_write_combined, 0), 1);

	/* A two-page WC request wants an order-1 block, not the order-0 page. */
	fake_tt(&wc2, 2, ttm_write_combined, 0);
	ASSERT_EQ(ttm_pool_alloc(&pool, &wc2, NULL), 0);
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_write_combined, 0), 1);
	ttm_pool_free(&pool, &wc2, false);

	/* A one-page WC request gets the very page freed in WC. */
	ASSERT_EQ(ttm_pool_alloc(&pool, &wc, NULL), 0);
	EXPECT_TRUE(wc.pages[0] == wc_page);
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_write_combined, 0), 0);

	ttm_pool_free(&pool, &wc, false);
	ttm_pool_free(&pool, &cached, false);
	fake_tt_fini(&wc);
	fake_tt_fini(&wc2);
	fake_tt_fini(&cached);
	ttm_pool_fini(&pool);
	EXPECT_EQ(global_pages(), 0);
}

KTEST(ttm_pool_zero_alloc_clears_recycled_pages)
{
	struct ttm_pool pool;
	struct ttm_tt tt;
	unsigned long i;
	bool all_zero = true;

	default_cap();
	ASSERT_EQ(ttm_pool_init(&pool, false), 0);
	fake_tt(&tt, 4, ttm_cached, TTM_TT_FLAG_ZERO_ALLOC);
	ASSERT_EQ(ttm_pool_alloc(&pool, &tt, NULL), 0);
	for (i = 0; i < 4; i++)
		memset(tt.pages[i], 0xa5, TTM_PAGE_SIZE);
	ttm_pool_free(&pool, &tt, false);
	ASSERT_EQ(ttm_pool_alloc(&pool, &tt, NULL), 0);
	for (i = 0; i < 4 * TTM_PAGE_SIZE; i++)
		all_zero &= ((unsigned char *)tt.pages[0])[i] == 0;
	EXPECT_TRUE(all_zero);
	ttm_pool_free(&pool, &tt, false);
	fake_tt_fini(&tt);
	ttm_pool_fini(&pool);
}

KTEST(ttm_pool_shrink_frees_to_os)
{
	struct ttm_pool pool;
	struct ttm_tt a, b;

	default_cap();
	ASSERT_EQ(ttm_pool_init(&pool, false), 0);
	fake_tt(&a, 8, ttm_cached, 0);
	fake_tt(&b, 1, ttm_uncached, 0);
	ASSERT_EQ(ttm_pool_alloc(&pool, &a, NULL), 0);
	ASSERT_EQ(ttm_pool_alloc(&pool, &b, NULL), 0);
	ttm_pool_free(&pool, &a, false);
	ttm_pool_free(&pool, &b, false);
	/* The cached block stays in the pool, the uncached page goes to the global pool. */
	EXPECT_EQ(pool.nr_free_pages, 8);
	EXPECT_EQ(ttm_pool_free_pages(&pool), 9);
	/* Largest block first, whole blocks only, from the pool's own buckets. */
	EXPECT_EQ(ttm_pool_shrink(&pool, 1), 8);
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_cached, 3), 0);
	EXPECT_EQ(global_pages(), 1);
	EXPECT_EQ(ttm_pool_shrink(&pool, 100), 0);
	/* The global stage-1 shrink reaches the global pool... */
	EXPECT_GE(ttm_global_shrink(1), 1);
	EXPECT_EQ(global_pages(), 0);
	EXPECT_EQ(ttm_pool_free_pages(&pool), 0);
	/* ... and the pool's own buckets. */
	ASSERT_EQ(ttm_pool_alloc(&pool, &a, NULL), 0);
	ttm_pool_free(&pool, &a, false);
	EXPECT_GE(ttm_global_shrink(1), 1);
	EXPECT_EQ(pool.nr_free_pages, 0);
	fake_tt_fini(&a);
	fake_tt_fini(&b);
	ttm_pool_fini(&pool);
}

/* Fresh OS pages are counted once: recycling adds none, a shrink makes the next ones fresh. */
KTEST(ttm_pool_os_pages_counts_fresh_blocks)
{
	struct ttm_pool pool;
	struct ttm_tt tt;

	default_cap();
	ASSERT_EQ(ttm_pool_init(&pool, false), 0);
	EXPECT_EQ(ttm_pool_os_pages(&pool), 0);
	fake_tt(&tt, 512 + 3, ttm_cached, 0);
	ASSERT_EQ(ttm_pool_alloc(&pool, &tt, NULL), 0);
	EXPECT_EQ(ttm_pool_os_pages(&pool), 515);
	ttm_pool_free(&pool, &tt, false);
	ASSERT_EQ(ttm_pool_alloc(&pool, &tt, NULL), 0);
	EXPECT_EQ(ttm_pool_os_pages(&pool), 515);
	ttm_pool_free(&pool, &tt, false);
	EXPECT_EQ(ttm_pool_shrink(&pool, ULONG_MAX), 515);
	ASSERT_EQ(ttm_pool_alloc(&pool, &tt, NULL), 0);
	EXPECT_EQ(ttm_pool_os_pages(&pool), 2 * 515);
	ttm_pool_free(&pool, &tt, false);
	fake_tt_fini(&tt);
	ttm_pool_fini(&pool);
	EXPECT_EQ(global_pages(), 0);
}

KTEST(ttm_pool_cap_trims_free_pages_first)
{
	struct ttm_global_config cfg = {.limit_pages = 64};
	struct ttm_pool pool;
	struct ttm_tt cached, wc;

	ASSERT_EQ(ttm_global_config(&cfg), 0);
	ASSERT_EQ(ttm_pool_init(&pool, false), 0);
	fake_tt(&cached, 64, ttm_cached, 0);
	fake_tt(&wc, 64, ttm_write_combined, 0);
	ASSERT_EQ(ttm_pool_alloc(&pool, &cached, NULL), 0);
	/* The cap is full with in-use pages: nothing to trim, -ENOMEM, nothing kept. */
	EXPECT_EQ(ttm_pool_alloc(&pool, &wc, NULL), -ENOMEM);
	EXPECT_EQ(global_pages(), 64);
	EXPECT_EQ(pool.nr_free_pages, 0);
	/* Once freed to the cached bucket, a WC request trims them to make room. */
	ttm_pool_free(&pool, &cached, false);
	ASSERT_EQ(ttm_pool_alloc(&pool, &wc, NULL), 0);
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_cached, 6), 0);
	EXPECT_EQ(global_pages(), 64);
	ttm_pool_free(&pool, &wc, true);
	EXPECT_EQ(global_pages(), 0);
	fake_tt_fini(&cached);
	fake_tt_fini(&wc);
	ttm_pool_fini(&pool);
	default_cap();
}

KTEST(ttm_pool_dma32_pool_charges_dma32_cap)
{
	struct ttm_global_config cfg = {.limit_pages = 1000, .dma32_limit_pages = 16};
	struct ttm_global_stats s;
	struct ttm_pool pool;
	struct ttm_tt tt;

	ASSERT_EQ(ttm_global_config(&cfg), 0);
	ASSERT_EQ(ttm_pool_init(&pool, true), 0);
	fake_tt(&tt, 17, ttm_cached, 0);
	EXPECT_EQ(ttm_pool_alloc(&pool, &tt, NULL), -ENOMEM);
	tt.num_pages = 16;
	ASSERT_EQ(ttm_pool_alloc(&pool, &tt, NULL), 0);
	ttm_global_get_stats(&s);
	EXPECT_EQ(s.dma32_pages, 16);
	ttm_pool_free(&pool, &tt, true);
	ttm_global_get_stats(&s);
	EXPECT_EQ(s.dma32_pages, 0);
	EXPECT_EQ(s.pages, 0);
	fake_tt_fini(&tt);
	ttm_pool_fini(&pool);
	default_cap();
}

KTEST(ttm_pool_alloc_fault_gives_back_everything)
{
	struct ttm_pool pool;
	struct ttm_tt tt;
	unsigned long i;

	/* Before the pool exists: a skipped case must leave no shrinker registered. */
	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	default_cap();
	ASSERT_EQ(ttm_pool_init(&pool, false), 0);
	fake_tt(&tt, 7, ttm_cached, 0); /* blocks of order 2, 1, 0 */
	/* The first block (16 KiB) passes on the space budget, every later ask fails. */
	fault_reset(&ttm_fault_pool_alloc);
	ASSERT_EQ(fault_configure("pool_alloc:probability=100,times=-1,space=16385", NULL, 0), 0);
	EXPECT_EQ(ttm_pool_alloc(&pool, &tt, NULL), -ENOMEM);
	fault_reset(&ttm_fault_pool_alloc);
	for (i = 0; i < 7; i++)
		EXPECT_NULL(tt.pages[i]);
	/* The block it had was given back to its bucket, still charged. */
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_cached, 2), 1);
	EXPECT_EQ(global_pages(), 4);
	ASSERT_EQ(ttm_pool_alloc(&pool, &tt, NULL), 0);
	ttm_pool_free(&pool, &tt, false);
	fake_tt_fini(&tt);
	ttm_pool_fini(&pool);
	EXPECT_EQ(global_pages(), 0);
}

KTEST(ttm_pool_print_lists_buckets)
{
	struct ttm_pool pool;
	struct ttm_tt tt;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	default_cap();
	ASSERT_EQ(ttm_pool_init(&pool, false), 0);
	fake_tt(&tt, 2, ttm_write_combined, 0);
	ASSERT_EQ(ttm_pool_alloc(&pool, &tt, NULL), 0);
	ttm_pool_free(&pool, &tt, false);
	f = open_memstream(&text, &len);
	ASSERT_NOT_NULL(f);
	ttm_pool_print(&pool, f);
	ttm_global_print(f);
	fclose(f);
	EXPECT_TRUE(strstr(text, "wc            1        1") != NULL);
	EXPECT_TRUE(strstr(text, "free pages: 2") != NULL);
	EXPECT_TRUE(strstr(text, "pages: 2 /") != NULL);
	free(text);
	fake_tt_fini(&tt);
	ttm_pool_fini(&pool);
}

/* Bytes the arena memfd really holds (the holes of freed blocks excluded). */
static uint64_t arena_bytes(struct ttm_pool *pool)
{
	struct stat st;

	if (fstat(pool->arena_fd, &st))
		return UINT64_MAX;
	return (uint64_t)st.st_blocks * 512;
}

/* A page mapped again from its (memfd, offset) is the same memory, both ways. */
KTEST(ttm_pool_page_backing_is_shared)
{
	struct ttm_pool pool;
	struct ttm_tt tt;
	uint64_t off = 0;
	uint8_t *view, local[64];
	int fd = -1;

	default_cap();
	ASSERT_EQ(ttm_pool_init(&pool, false), 0);
	if (pool.arena_fd < 0) {
		ttm_pool_fini(&pool);
		KTEST_SKIP("no memfd_create here: the pool runs without an arena");
	}
	fake_tt(&tt, 20, ttm_cached, 0);
	ASSERT_EQ(ttm_pool_alloc(&pool, &tt, NULL), 0);
	/* Page 17 sits in the second block (orders 4 then 2): offsets differ per block. */
	ASSERT_EQ(ttm_pool_page_backing(&pool, tt.pages[17], &fd, &off), 0);
	EXPECT_EQ(fd, pool.arena_fd);
	EXPECT_EQ(off % TTM_PAGE_SIZE, 0);
	view = mmap(NULL, TTM_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	ASSERT_TRUE(view != MAP_FAILED);
	view[5] = 0xa5;
	EXPECT_EQ(((uint8_t *)tt.pages[17])[5], 0xa5);
	((uint8_t *)tt.pages[17])[4095] = 0x5a;
	EXPECT_EQ(view[4095], 0x5a);
	munmap(view, TTM_PAGE_SIZE);
	/* Pages of one block are consecutive in the file. */
	{
		uint64_t off0 = 0, off1 = 0;

		ASSERT_EQ(ttm_pool_page_backing(&pool, tt.pages[0], &fd, &off0), 0);
		ASSERT_EQ(ttm_pool_page_backing(&pool, tt.pages[15], &fd, &off1), 0);
		EXPECT_UEQ(off1 - off0, 15 * TTM_PAGE_SIZE);
	}
	EXPECT_EQ(ttm_pool_page_backing(&pool, local, &fd, &off), -EINVAL);
	EXPECT_EQ(ttm_pool_page_backing(&pool, (uint8_t *)tt.pages[0] + 1, &fd, &off), -EINVAL);
	{
		void *other =
		    mmap(NULL, TTM_PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ASSERT_TRUE(other != MAP_FAILED);
		EXPECT_EQ(ttm_pool_page_backing(&pool, other, &fd, &off), -ENOENT);
		munmap(other, TTM_PAGE_SIZE);
	}
	ttm_pool_free(&pool, &tt, false);
	fake_tt_fini(&tt);
	ttm_pool_fini(&pool);
}

/*
 * The page cap counts what the OS holds: free-listed blocks stay charged and
 * in the memfd; blocks given back are uncharged and punched out of it.
 */
KTEST(ttm_pool_arena_release_punches_hole)
{
	struct ttm_pool pool;
	struct ttm_tt tt;
	int fd;
	uint64_t off;

	default_cap();
	ASSERT_EQ(ttm_pool_init(&pool, false), 0);
	if (pool.arena_fd < 0) {
		ttm_pool_fini(&pool);
		KTEST_SKIP("no memfd_create here: the pool runs without an arena");
	}
	fake_tt(&tt, 512 + 8, ttm_cached, 0);
	ASSERT_EQ(ttm_pool_alloc(&pool, &tt, NULL), 0);
	EXPECT_EQ(global_pages(), 520);
	for (unsigned long i = 0; i < tt.num_pages; i++)
		memset(tt.pages[i], (int)i, TTM_PAGE_SIZE);
	EXPECT_GE(arena_bytes(&pool), 520 * TTM_PAGE_SIZE);

	/* Kept on the free lists: still charged, still in the file. */
	ttm_pool_free(&pool, &tt, false);
	EXPECT_EQ(global_pages(), 520);
	EXPECT_GE(arena_bytes(&pool), 520 * TTM_PAGE_SIZE);
	/* Reused, then given back to the OS with reclaim: nothing left anywhere. */
	ASSERT_EQ(ttm_pool_alloc(&pool, &tt, NULL), 0);
	EXPECT_EQ(global_pages(), 520);
	ASSERT_EQ(ttm_pool_page_backing(&pool, tt.pages[0], &fd, &off), 0);
	ttm_pool_free(&pool, &tt, true);
	EXPECT_EQ(global_pages(), 0);
	EXPECT_UEQ(arena_bytes(&pool), 0);
	/* A released page is no longer the pool's. */
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_cached, 9), 0);

	/* The shrinker path punches too. */
	ASSERT_EQ(ttm_pool_alloc(&pool, &tt, NULL), 0);
	memset(tt.pages[519], 1, TTM_PAGE_SIZE);
	ttm_pool_free(&pool, &tt, false);
	EXPECT_GT(arena_bytes(&pool), 0);
	EXPECT_EQ(ttm_pool_shrink(&pool, ULONG_MAX), 520);
	EXPECT_EQ(global_pages(), 0);
	EXPECT_UEQ(arena_bytes(&pool), 0);
	fake_tt_fini(&tt);
	ttm_pool_fini(&pool);
}

/*
 * The kernel's ttm_pool_free_no_dma_alloc, checked where the block goes: a
 * pool without DMA allocation gives uncached and write-combined blocks back
 * to the global pool of its kind, where any other such pool takes them
 * without an OS allocation of its own; cached blocks stay in their pool; a
 * DMA32 pool has a global pool of its own; the pages (and their arena) stay
 * valid when the pool that freed them is gone.
 */
KTEST(ttm_pool_free_no_dma_alloc)
{
	struct ttm_pool a, b, d32;
	struct ttm_tt t1, t2, t3;
	unsigned long os;
	uint64_t off = 0;
	void *first;
	int fd = -1;

	default_cap();
	ASSERT_EQ(ttm_pool_init(&a, false), 0);
	ASSERT_EQ(ttm_pool_init(&b, false), 0);
	ASSERT_EQ(ttm_pool_init(&d32, true), 0);
	fake_tt(&t1, 4, ttm_cached, 0);
	fake_tt(&t2, 4, ttm_uncached, 0);
	fake_tt(&t3, 4, ttm_uncached, 0);

	/* Cached: back to its own pool only. */
	ASSERT_EQ(ttm_pool_alloc(&a, &t1, NULL), 0);
	ttm_pool_free(&a, &t1, false);
	EXPECT_EQ(ttm_pool_nr_free(&a, ttm_cached, 2), 1);
	EXPECT_EQ(ttm_pool_nr_free(&b, ttm_cached, 2), 0);

	/* Uncached: to the global pool, shared by a and b, not by the DMA32 pool. */
	ASSERT_EQ(ttm_pool_alloc(&a, &t1, NULL), 0); /* the cached block again */
	t2.caching = ttm_uncached;
	ASSERT_EQ(ttm_pool_alloc(&a, &t2, NULL), 0);
	first = t2.pages[0];
	ttm_pool_free(&a, &t2, false);
	EXPECT_EQ(a.nr_free_pages, 0);
	EXPECT_EQ(ttm_pool_nr_free(&a, ttm_uncached, 2), 1);
	EXPECT_EQ(ttm_pool_nr_free(&b, ttm_uncached, 2), 1);
	EXPECT_EQ(ttm_pool_nr_free(&d32, ttm_uncached, 2), 0);
	ASSERT_EQ(ttm_pool_alloc(&d32, &t3, NULL), 0);
	EXPECT_TRUE(t3.pages[0] != first);
	EXPECT_EQ(ttm_pool_nr_free(&b, ttm_uncached, 2), 1);

	os = ttm_pool_os_pages(&b);
	ASSERT_EQ(ttm_pool_alloc(&b, &t2, NULL), 0);
	EXPECT_TRUE(t2.pages[0] == first);
	EXPECT_EQ(ttm_pool_os_pages(&b), os);
	EXPECT_EQ(ttm_pool_nr_free(&a, ttm_uncached, 2), 0);

	/* a's fini takes its cached block back to the OS, not b's pages. */
	ttm_pool_free(&a, &t1, false);
	ttm_pool_fini(&a);
	memset(t2.pages[3], 0x3c, TTM_PAGE_SIZE);
	if (!ttm_pool_page_backing(&b, t2.pages[3], &fd, &off)) {
		uint8_t *view = mmap(NULL, TTM_PAGE_SIZE, PROT_READ, MAP_SHARED, fd, (off_t)off);

		ASSERT_TRUE(view != MAP_FAILED);
		EXPECT_EQ(view[100], 0x3c);
		munmap(view, TTM_PAGE_SIZE);
	}
	ttm_pool_free(&b, &t2, false);
	ttm_pool_free(&d32, &t3, false);
	EXPECT_EQ(global_pages(), 8);
	ttm_pool_fini(&b);
	ttm_pool_fini(&d32);
	/* The last users gone, the global pools gave their blocks to the OS. */
	EXPECT_EQ(global_pages(), 0);
	fake_tt_fini(&t1);
	fake_tt_fini(&t2);
	fake_tt_fini(&t3);
}

/*
 * The kernel's ttm_pool_free_dma_alloc: a pool with DMA allocation keeps
 * every caching mode in its own buckets, out of reach of other pools.
 */
KTEST(ttm_pool_free_dma_alloc)
{
	struct ttm_pool dma, other;
	struct ttm_tt tt;

	default_cap();
	ASSERT_EQ(ttm_pool_init_dma(&dma, true, false), 0);
	ASSERT_EQ(ttm_pool_init(&other, false), 0);
	EXPECT_TRUE(dma.use_dma_alloc);
	fake_tt(&tt, 4, ttm_uncached, 0);
	ASSERT_EQ(ttm_pool_alloc(&dma, &tt, NULL), 0);
	EXPECT_EQ(ttm_pool_nr_free(&dma, ttm_uncached, 2), 0);
	ttm_pool_free(&dma, &tt, false);
	EXPECT_EQ(ttm_pool_nr_free(&dma, ttm_uncached, 2), 1);
	EXPECT_EQ(dma.nr_free_pages, 4);
	EXPECT_EQ(ttm_pool_nr_free(&other, ttm_uncached, 2), 0);
	ttm_pool_fini(&dma);
	EXPECT_EQ(global_pages(), 0);
	ttm_pool_fini(&other);
	fake_tt_fini(&tt);
}

static const unsigned int dma_addr_orders[] = {0, 2, TTM_POOL_MAX_ORDER, TTM_POOL_MAX_ORDER + 1};

static void dma_addr_desc(const unsigned int *order, char *desc)
{
	snprintf(desc, KTEST_PARAM_DESC_SIZE, "order %u", *order);
}

KTEST_ARRAY_PARAM(dma_addr, dma_addr_orders, dma_addr_desc);

/*
 * The kernel's ttm_pool_alloc_basic_dma_addr: a tt with DMA addresses
 * (ttm_sg_tt_init()) populated from a DMA-allocating pool has one for every
 * page, never 0, page aligned, consecutive within a block, and each is the
 * page's place in the pool's arena (the memory the device addresses); the
 * free clears them. A DMA32 pool's addresses are below 4 GiB; a pool without
 * DMA allocation gives the pages' CPU addresses.
 */
KTEST_PARAM(ttm_pool_alloc_basic_dma_addr, dma_addr_gen_params)
{
	const unsigned int order = *(const unsigned int *)ktest_param();
	unsigned long n = 1ul << (order > TTM_POOL_MAX_ORDER ? TTM_POOL_MAX_ORDER : order);
	struct ttm_pool dma, dma32, plain;
	struct ttm_tt tt;

	if (order > TTM_POOL_MAX_ORDER)
		n += 1; /* one block of the largest order and one page */
	default_cap();
	ASSERT_EQ(ttm_pool_init_dma(&dma, true, false), 0);
	ASSERT_EQ(ttm_pool_init_dma(&dma32, true, true), 0);
	ASSERT_EQ(ttm_pool_init(&plain, false), 0);
	ASSERT_EQ(ttm_sg_tt_init(&tt, n * TTM_PAGE_SIZE, 0, ttm_uncached), 0);
	ASSERT_NOT_NULL(tt.dma_address);
	ASSERT_EQ(tt.num_pages, n);

	ASSERT_EQ(ttm_pool_alloc(&dma, &tt, NULL), 0);
	for (unsigned long i = 0; i < n; i++) {
		uint64_t off = 0;
		int fd = -1;

		ASSERT_NE(tt.dma_address[i], 0);
		ASSERT_EQ(tt.dma_address[i] % TTM_PAGE_SIZE, 0);
		ASSERT_EQ(ttm_pool_page_backing(&dma, tt.pages[i], &fd, &off), 0);
		ASSERT_UEQ(tt.dma_address[i], off);
		if (i && (char *)tt.pages[i] == (char *)tt.pages[i - 1] + TTM_PAGE_SIZE)
			ASSERT_UEQ(tt.dma_address[i], tt.dma_address[i - 1] + TTM_PAGE_SIZE);
	}
	EXPECT_EQ(tt.orders[0], order > TTM_POOL_MAX_ORDER ? TTM_POOL_MAX_ORDER : order);
	ttm_pool_free(&dma, &tt, false);
	EXPECT_EQ(tt.dma_address[0], 0);
	EXPECT_EQ(tt.dma_address[n - 1], 0);

	ASSERT_EQ(ttm_pool_alloc(&dma32, &tt, NULL), 0);
	EXPECT_TRUE(tt.dma32);
	for (unsigned long i = 0; i < n; i++)
		ASSERT_LT(tt.dma_address[i] + TTM_PAGE_SIZE, (1ull << 32) + 1);
	ttm_pool_free(&dma32, &tt, false);

	ASSERT_EQ(ttm_pool_alloc(&plain, &tt, NULL), 0);
	for (unsigned long i = 0; i < n; i++)
		ASSERT_UEQ(tt.dma_address[i], (uint64_t)(uintptr_t)tt.pages[i]);
	ttm_pool_free(&plain, &tt, false);

	ttm_tt_fini(NULL, &tt);
	ttm_pool_fini(&dma);
	ttm_pool_fini(&dma32);
	ttm_pool_fini(&plain);
	EXPECT_EQ(global_pages(), 0);
}
