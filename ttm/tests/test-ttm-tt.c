// SPDX-License-Identifier: MIT
/* Tests of ttm_tt: sizes, populate, zeroing, copies, swap to memfd and its faults. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ttm/ttm_faults.h>
#include <ttm/ttm_global.h>
#include <ttm/ttm_pool.h>
#include <ttm/ttm_tt.h>

#include "ktest.h"

static struct ttm_pool pool;

static void setup(void)
{
	struct ttm_global_config cfg = {0};

	fault_reset_all();
	ASSERT_EQ(ttm_global_config(&cfg), 0);
	ASSERT_EQ(ttm_pool_init(&pool, false), 0);
}

static void teardown(void)
{
	struct ttm_global_stats s;

	ttm_pool_fini(&pool);
	ttm_global_get_stats(&s);
	EXPECT_EQ(s.pages, 0);
}

static uint64_t global_pages(void)
{
	struct ttm_global_stats s;

	ttm_global_get_stats(&s);
	return s.pages;
}

static void fill_random(unsigned char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)ktest_rand();
}

KTEST(ttm_tt_init_rounding)
{
	struct ttm_tt tt;

	ASSERT_EQ(ttm_tt_init(&tt, 1, 0, ttm_cached, 0), 0);
	EXPECT_EQ(tt.num_pages, 1);
	ttm_tt_fini(NULL, &tt);
	ASSERT_EQ(ttm_tt_init(&tt, 4096, 0, ttm_cached, 0), 0);
	EXPECT_EQ(tt.num_pages, 1);
	ttm_tt_fini(NULL, &tt);
	ASSERT_EQ(ttm_tt_init(&tt, 4097, 0, ttm_write_combined, 0), 0);
	EXPECT_EQ(tt.num_pages, 2);
	ttm_tt_fini(NULL, &tt);
	ASSERT_EQ(ttm_tt_init(&tt, 3 * 4096, 0, ttm_uncached, 2), 0);
	EXPECT_EQ(tt.num_pages, 5);
	EXPECT_EQ(tt.swap_storage, -1);
	EXPECT_FALSE(ttm_tt_is_populated(&tt));
	EXPECT_NULL(ttm_tt_page_ptr(&tt, 0));
	ttm_tt_fini(NULL, &tt);
	EXPECT_EQ(ttm_tt_init(&tt, 0, 0, ttm_cached, 0), -EINVAL);
	EXPECT_EQ(ttm_tt_init(&tt, 1, TTM_TT_FLAG_POPULATED, ttm_cached, 0), -EINVAL);
	EXPECT_EQ(ttm_tt_init(&tt, 1, TTM_TT_FLAG_SWAPPED, ttm_cached, 0), -EINVAL);
	EXPECT_EQ(ttm_tt_init(&tt, 1, 0, (enum ttm_caching)7, 0), -EINVAL);
	EXPECT_EQ(ttm_tt_init(&tt, 1, 0, ttm_cached, 0xffffffffu), -EINVAL);
}

/* As the kernel's ttm_tt_init_basic: the page array exists from init on. */
KTEST(ttm_tt_init_basic)
{
	struct ttm_tt tt;

	ASSERT_EQ(ttm_tt_init(&tt, 3 * 4096, TTM_TT_FLAG_ZERO_ALLOC, ttm_cached, 1), 0);
	EXPECT_EQ(tt.num_pages, 4);
	EXPECT_EQ(tt.page_flags, TTM_TT_FLAG_ZERO_ALLOC);
	EXPECT_EQ(tt.caching, ttm_cached);
	ASSERT_NOT_NULL(tt.pages);
	for (unsigned i = 0; i < tt.num_pages; i++)
		EXPECT_NULL(tt.pages[i]);
	EXPECT_FALSE(ttm_tt_is_populated(&tt));
	ttm_tt_fini(NULL, &tt);
	EXPECT_NULL(tt.pages);
}

/* The array's allocation can fail (fault point tt_alloc): -ENOMEM, nothing held. */
KTEST(ttm_tt_init_alloc_fault)
{
	struct ttm_tt tt;

	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	fault_set_nth(&ttm_fault_tt_alloc, 1);
	EXPECT_EQ(ttm_tt_init(&tt, 4096, 0, ttm_cached, 0), -ENOMEM);
	fault_reset(&ttm_fault_tt_alloc);
	EXPECT_NULL(tt.pages);
}

/* As the kernel's ttm_tt_fini_basic: fini gives back the pages and the array. */
KTEST(ttm_tt_fini_basic)
{
	struct ttm_tt tt;

	setup();
	ASSERT_EQ(ttm_tt_init(&tt, 8 * 4096, 0, ttm_cached, 0), 0);
	ASSERT_EQ(ttm_tt_populate(&pool, &tt, NULL), 0);
	EXPECT_EQ(global_pages(), 8);
	ttm_tt_fini(&pool, &tt);
	EXPECT_NULL(tt.pages);
	EXPECT_FALSE(ttm_tt_is_populated(&tt));
	/* Unpopulated, the array stays until fini. */
	ASSERT_EQ(ttm_tt_init(&tt, 8 * 4096, 0, ttm_cached, 0), 0);
	ASSERT_EQ(ttm_tt_populate(&pool, &tt, NULL), 0);
	ttm_tt_unpopulate(&pool, &tt);
	EXPECT_TRUE(tt.pages != NULL);
	EXPECT_NULL(tt.pages[0]);
	ttm_tt_fini(&pool, &tt);
	EXPECT_NULL(tt.pages);
	teardown();
}

KTEST(ttm_tt_populate_null_ttm)
{
	struct ttm_operation_ctx *ctx = NULL;

	setup();
	EXPECT_EQ(ttm_tt_populate(&pool, NULL, ctx), -EINVAL);
	teardown();
}

/*
 * As the kernel's ttm_tt_swapin_basic, and then every way around again:
 * swapped in directly or by populate, unpopulated and populated, swapped
 * out a second time, and finished while swapped.
 */
KTEST(ttm_tt_swapin_basic)
{
	unsigned char in[3 * 4096], out[3 * 4096];
	struct ttm_tt tt;

	setup();
	fill_random(in, sizeof(in));
	ASSERT_EQ(ttm_tt_init(&tt, sizeof(in), 0, ttm_cached, 0), 0);
	ASSERT_EQ(ttm_tt_populate(&pool, &tt, NULL), 0);
	ASSERT_EQ(ttm_tt_copy_to(&tt, 0, in, sizeof(in)), 0);
	for (int round = 0; round < 4; round++) {
		EXPECT_EQ(ttm_tt_swapout(&pool, &tt), (long)tt.num_pages);
		EXPECT_TRUE(ttm_tt_is_swapped(&tt));
		EXPECT_TRUE(tt.pages != NULL);
		if (round & 1)
			ASSERT_EQ(ttm_tt_populate(&pool, &tt, NULL), 0);
		else
			ASSERT_EQ(ttm_tt_swapin(&pool, &tt, NULL), 0);
		EXPECT_FALSE(ttm_tt_is_swapped(&tt));
		EXPECT_TRUE(ttm_tt_is_populated(&tt));
		memset(out, 0, sizeof(out));
		ASSERT_EQ(ttm_tt_copy_from(&tt, 0, out, sizeof(out)), 0);
		EXPECT_MEMEQ(in, out, sizeof(out));
		if (round == 2) {
			/* Unpopulated and populated again: fresh pages, same array. */
			ttm_tt_unpopulate(&pool, &tt);
			ASSERT_EQ(ttm_tt_populate(&pool, &tt, NULL), 0);
			ASSERT_EQ(ttm_tt_copy_to(&tt, 0, in, sizeof(in)), 0);
		}
	}
	EXPECT_EQ(ttm_tt_swapout(&pool, &tt), (long)tt.num_pages);
	ttm_tt_fini(&pool, &tt);
	EXPECT_NULL(tt.pages);
	EXPECT_EQ(tt.swap_storage, -1);
	teardown();
}

KTEST(ttm_tt_populate_idempotent)
{
	struct ttm_tt tt;
	void *first;

	setup();
	ASSERT_EQ(ttm_tt_init(&tt, 10 * 4096, 0, ttm_cached, 0), 0);
	ASSERT_EQ(ttm_tt_populate(&pool, &tt, NULL), 0);
	EXPECT_TRUE(ttm_tt_is_populated(&tt));
	first = ttm_tt_page_ptr(&tt, 9);
	ASSERT_NOT_NULL(first);
	EXPECT_NULL(ttm_tt_page_ptr(&tt, 10));
	EXPECT_EQ(global_pages(), 10);
	ASSERT_EQ(ttm_tt_populate(&pool, &tt, NULL), 0);
	EXPECT_TRUE(ttm_tt_page_ptr(&tt, 9) == first);
	EXPECT_EQ(global_pages(), 10);
	ttm_tt_unpopulate(&pool, &tt);
	EXPECT_FALSE(ttm_tt_is_populated(&tt));
	ttm_tt_unpopulate(&pool, &tt); /* no-op */
	EXPECT_EQ(pool.nr_free_pages, 10);
	ttm_tt_fini(&pool, &tt);
	teardown();
}

KTEST(ttm_tt_zero_alloc_on_recycled_pages)
{
	struct ttm_tt dirty, clean;
	unsigned char buf[3 * 4096], zero[3 * 4096];

	setup();
	memset(buf, 0x5a, sizeof(buf));
	memset(zero, 0, sizeof(zero));
	ASSERT_EQ(ttm_tt_init(&dirty, sizeof(buf), 0, ttm_cached, 0), 0);
	ASSERT_EQ(ttm_tt_populate(&pool, &dirty, NULL), 0);
	ASSERT_EQ(ttm_tt_copy_to(&dirty, 0, buf, sizeof(buf)), 0);
	ttm_tt_unpopulate(&pool, &dirty);

	/* Same size and caching: it gets the dirty blocks back, and must see zeros. */
	ASSERT_EQ(ttm_tt_init(&clean, sizeof(buf), TTM_TT_FLAG_ZERO_ALLOC, ttm_cached, 0), 0);
	ASSERT_EQ(ttm_tt_populate(&pool, &clean, NULL), 0);
	EXPECT_EQ(pool.nr_free_pages, 0);
	ASSERT_EQ(ttm_tt_copy_from(&clean, 0, buf, sizeof(buf)), 0);
	EXPECT_MEMEQ(buf, zero, sizeof(buf));
	ttm_tt_fini(&pool, &clean);
	ttm_tt_fini(&pool, &dirty);
	teardown();
}

KTEST(ttm_tt_copy_across_pages)
{
	struct ttm_tt tt;
	unsigned char in[9000], out[9000];

	setup();
	fill_random(in, sizeof(in));
	ASSERT_EQ(ttm_tt_init(&tt, 5 * 4096, 0, ttm_cached, 0), 0);
	EXPECT_EQ(ttm_tt_copy_to(&tt, 0, in, 1), -EINVAL); /* not populated */
	ASSERT_EQ(ttm_tt_populate(&pool, &tt, NULL), 0);
	ASSERT_EQ(ttm_tt_copy_to(&tt, 4000, in, sizeof(in)), 0);
	ASSERT_EQ(ttm_tt_copy_from(&tt, 4000, out, sizeof(out)), 0);
	EXPECT_MEMEQ(in, out, sizeof(in));
	EXPECT_EQ(memcmp((char *)ttm_tt_page_ptr(&tt, 1), in + 96, 4096), 0);
	EXPECT_EQ(ttm_tt_copy_to(&tt, 5 * 4096 - 10, in, 11), -EINVAL);
	EXPECT_EQ(ttm_tt_copy_from(&tt, 5 * 4096 + 1, out, 0), -EINVAL);
	EXPECT_EQ(ttm_tt_copy_from(&tt, 5 * 4096, out, 0), 0);
	ttm_tt_fini(&pool, &tt);
	teardown();
}

KTEST(ttm_tt_swapout_swapin_content_identity)
{
	static const size_t sizes[] = {
	    1, 4096, 4097, 3 * 4096 + 17, 513 * 4096 + 5, (1u << 20) + 3};
	size_t k;

	setup();
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t len = sizes[k];
		unsigned char *in = malloc(len), *out = malloc(len);
		struct ttm_tt tt;
		uint64_t before;

		ASSERT_NOT_NULL(in);
		ASSERT_NOT_NULL(out);
		fill_random(in, len);
		ASSERT_EQ(ttm_tt_init(&tt, len, 0, k & 1 ? ttm_write_combined : ttm_cached, 0), 0);
		ASSERT_EQ(ttm_tt_populate(&pool, &tt, NULL), 0);
		ASSERT_EQ(ttm_tt_copy_to(&tt, 0, in, len), 0);
		before = global_pages();
		EXPECT_EQ(ttm_tt_swapout(&pool, &tt), (long)tt.num_pages);
		EXPECT_TRUE(ttm_tt_is_swapped(&tt));
		EXPECT_FALSE(ttm_tt_is_populated(&tt));
		EXPECT_GE(tt.swap_storage, 0);
		EXPECT_NULL(ttm_tt_page_ptr(&tt, 0));
		/* The pages went back to the OS, not to a free list. */
		EXPECT_EQ(global_pages(), before - tt.num_pages);
		EXPECT_EQ(ttm_tt_swapout(&pool, &tt), -EINVAL);
		/* Alternate the two ways back in. */
		if (k & 1)
			ASSERT_EQ(ttm_tt_swapin(&pool, &tt, NULL), 0);
		else
			ASSERT_EQ(ttm_tt_populate(&pool, &tt, NULL), 0);
		EXPECT_FALSE(ttm_tt_is_swapped(&tt));
		EXPECT_EQ(tt.swap_storage, -1);
		EXPECT_EQ(ttm_tt_swapin(&pool, &tt, NULL), -EINVAL);
		memset(out, 0, len);
		ASSERT_EQ(ttm_tt_copy_from(&tt, 0, out, len), 0);
		EXPECT_MEMEQ(in, out, len);
		ttm_tt_fini(&pool, &tt);
		free(in);
		free(out);
	}
	teardown();
}

KTEST(ttm_tt_swapout_fault_keeps_tt_populated)
{
	unsigned char in[5 * 4096], out[5 * 4096];
	struct ttm_tt tt;
	uint64_t before;

	/* Before setup(): a skipped case must leave no pool registered. */
	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	setup();
	fill_random(in, sizeof(in));
	ASSERT_EQ(ttm_tt_init(&tt, sizeof(in), 0, ttm_cached, 0), 0);
	ASSERT_EQ(ttm_tt_populate(&pool, &tt, NULL), 0);
	ASSERT_EQ(ttm_tt_copy_to(&tt, 0, in, sizeof(in)), 0);
	before = global_pages();
	fault_set_nth(&ttm_fault_swapout_write, 1);
	EXPECT_EQ(ttm_tt_swapout(&pool, &tt), -ENOMEM);
	EXPECT_TRUE(ttm_tt_is_populated(&tt));
	EXPECT_FALSE(ttm_tt_is_swapped(&tt));
	EXPECT_EQ(tt.swap_storage, -1);
	EXPECT_EQ(global_pages(), before);
	ASSERT_EQ(ttm_tt_copy_from(&tt, 0, out, sizeof(out)), 0);
	EXPECT_MEMEQ(in, out, sizeof(in));
	/* Without the fault it goes through and the content survives the round trip. */
	EXPECT_EQ(ttm_tt_swapout(&pool, &tt), 5);
	ASSERT_EQ(ttm_tt_swapin(&pool, &tt, NULL), 0);
	ASSERT_EQ(ttm_tt_copy_from(&tt, 0, out, sizeof(out)), 0);
	EXPECT_MEMEQ(in, out, sizeof(in));
	ttm_tt_fini(&pool, &tt);
	teardown();
}

KTEST(ttm_tt_swapin_fault_keeps_swap_copy)
{
	unsigned char in[7 * 4096], out[7 * 4096];
	struct ttm_tt tt;
	int fd;

	/* Before setup(): a skipped case must leave no pool registered. */
	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	setup();
	fill_random(in, sizeof(in));
	ASSERT_EQ(ttm_tt_init(&tt, sizeof(in), 0, ttm_uncached, 0), 0);
	ASSERT_EQ(ttm_tt_populate(&pool, &tt, NULL), 0);
	ASSERT_EQ(ttm_tt_copy_to(&tt, 0, in, sizeof(in)), 0);
	ASSERT_EQ(ttm_tt_swapout(&pool, &tt), 7);
	fd = tt.swap_storage;

	fault_set_nth(&ttm_fault_swapin_read, 1);
	EXPECT_EQ(ttm_tt_swapin(&pool, &tt, NULL), -EIO);
	EXPECT_TRUE(ttm_tt_is_swapped(&tt));
	EXPECT_FALSE(ttm_tt_is_populated(&tt));
	EXPECT_EQ(tt.swap_storage, fd);
	/* The pages it took are back in the pool (still charged, reclaimable). */
	EXPECT_EQ(global_pages(), ttm_pool_free_pages(&pool));

	/* A page-allocation failure during swapin leaves it swapped as well. */
	ttm_pool_shrink(&pool, ~0ul);
	fault_configure("pool_alloc:probability=100,times=-1", NULL, 0);
	EXPECT_EQ(ttm_tt_populate(&pool, &tt, NULL), -ENOMEM);
	fault_reset(&ttm_fault_pool_alloc);
	EXPECT_TRUE(ttm_tt_is_swapped(&tt));

	/* The page array lives from init to fini (as in the kernel): swapin allocates none. */
	EXPECT_TRUE(tt.pages != NULL);
	EXPECT_TRUE(ttm_tt_is_swapped(&tt));
	fault_set_nth(&ttm_fault_tt_alloc, 1);
	ASSERT_EQ(ttm_tt_swapin(&pool, &tt, NULL), 0);
	fault_reset(&ttm_fault_tt_alloc);
	ASSERT_EQ(ttm_tt_copy_from(&tt, 0, out, sizeof(out)), 0);
	EXPECT_MEMEQ(in, out, sizeof(in));
	ttm_tt_fini(&pool, &tt);
	teardown();
}

KTEST(ttm_tt_populate_fault_leaves_nothing)
{
	struct ttm_tt tt;

	/* Before setup(): a skipped case must leave no pool registered. */
	if (!FAULT_INJECT_ENABLED)
		KTEST_SKIP("fault points compiled out");
	setup();
	/* The page array is taken at init, as in the kernel: its failure is init's. */
	fault_set_nth(&ttm_fault_tt_alloc, 1);
	EXPECT_EQ(ttm_tt_init(&tt, 3 * 4096, 0, ttm_cached, 0), -ENOMEM);
	EXPECT_FALSE(ttm_tt_is_populated(&tt));
	EXPECT_NULL(tt.pages);
	ASSERT_EQ(ttm_tt_init(&tt, 3 * 4096, 0, ttm_cached, 0), 0);
	fault_configure("pool_alloc:probability=100,times=-1", NULL, 0);
	EXPECT_EQ(ttm_tt_populate(&pool, &tt, NULL), -ENOMEM);
	fault_reset(&ttm_fault_pool_alloc);
	EXPECT_FALSE(ttm_tt_is_populated(&tt));
	for (unsigned i = 0; i < tt.num_pages; i++)
		EXPECT_NULL(tt.pages[i]);
	EXPECT_EQ(global_pages(), 0);
	ttm_tt_fini(&pool, &tt);
	teardown();
}

KTEST(ttm_tt_external_gets_only_the_array)
{
	struct ttm_tt tt;
	static char user[2][4096];

	setup();
	ASSERT_EQ(ttm_tt_init(&tt, sizeof(user), TTM_TT_FLAG_EXTERNAL, ttm_cached, 0), 0);
	ASSERT_EQ(ttm_tt_populate(&pool, &tt, NULL), 0);
	EXPECT_EQ(global_pages(), 0);
	tt.pages[0] = user[0];
	tt.pages[1] = user[1];
	ASSERT_EQ(ttm_tt_copy_to(&tt, 4090, "hello world", 12), 0);
	EXPECT_STREQ(user[1], "world");
	EXPECT_EQ(ttm_tt_swapout(&pool, &tt), -EINVAL);
	ttm_tt_fini(&pool, &tt);
	teardown();
}

/* A device-like shrinker: swaps its one tt out when the cap is hit. */
struct swapper {
	struct ttm_global_shrinker base;
	struct ttm_tt *victim;
	unsigned long scans;
};

static unsigned long swapper_scan(struct ttm_global_shrinker *s, unsigned long nr,
				  struct ttm_operation_ctx *ctx)
{
	struct swapper *w = container_of(s, struct swapper, base);
	long r;

	w->scans++;
	if (!ttm_tt_is_populated(w->victim))
		return 0;
	r = ttm_tt_swapout(&pool, w->victim);
	return r > 0 ? (unsigned long)r : 0;
}

/* A page cap, and two tts of one size: a, filled, is the swapper's victim. */
struct cap_fixture {
	struct ttm_tt a, b;
	struct swapper w;
};

/*
 * Cap the global count at @limit pages, register the swapper, make a (of
 * @a_caching) and b (cached) of @len bytes each, and populate a with
 * random bytes, written to @in too. Return: 0, or the failing call's error.
 */
static int cap_begin(struct cap_fixture *f, unsigned long limit, unsigned char *in, size_t len,
		     enum ttm_caching a_caching)
{
	struct ttm_global_config cfg = {.limit_pages = limit};
	int ret;

	setup();
	f->w = (struct swapper){.base = {.scan = swapper_scan, .swaps = true}, .victim = &f->a};
	ret = ttm_global_config(&cfg);
	if (ret)
		return ret;
	ttm_global_reset_high_water();
	ttm_global_register_shrinker(&f->w.base);
	fill_random(in, len);
	ret = ttm_tt_init(&f->a, len, 0, a_caching, 0);
	ret = ret ? ret : ttm_tt_init(&f->b, len, 0, ttm_cached, 0);
	ret = ret ? ret : ttm_tt_populate(&pool, &f->a, NULL);
	return ret ? ret : ttm_tt_copy_to(&f->a, 0, in, len);
}

/* Unregister, free both tts, check the pool is clean and lift the cap. */
static void cap_end(struct cap_fixture *f)
{
	struct ttm_global_config cfg = {0};

	ttm_global_unregister_shrinker(&f->w.base);
	ttm_tt_fini(&pool, &f->a);
	ttm_tt_fini(&pool, &f->b);
	teardown();
	ttm_global_config(&cfg);
}

KTEST(ttm_tt_cap_swaps_out_through_shrinker)
{
	unsigned char in[48 * 4096], out[48 * 4096];
	struct cap_fixture f;

	ASSERT_EQ(cap_begin(&f, 64, in, sizeof(in), ttm_cached), 0);

	/* b does not fit next to a: a is swapped out to make room. */
	ASSERT_EQ(ttm_tt_populate(&pool, &f.b, NULL), 0);
	EXPECT_TRUE(ttm_tt_is_swapped(&f.a));
	EXPECT_GE(f.w.scans, 1);
	EXPECT_LE(global_pages(), 64);

	/* Nothing left to swap: a cannot come back while b holds the pages. */
	EXPECT_EQ(ttm_tt_populate(&pool, &f.a, NULL), -ENOMEM);
	EXPECT_TRUE(ttm_tt_is_swapped(&f.a));

	ttm_tt_unpopulate(&pool, &f.b);
	ASSERT_EQ(ttm_tt_populate(&pool, &f.a, NULL), 0);
	ASSERT_EQ(ttm_tt_copy_from(&f.a, 0, out, sizeof(out)), 0);
	EXPECT_MEMEQ(in, out, sizeof(in));
	cap_end(&f);
}

/*
 * The swap-out a reservation runs hands the victim's block to the waiting
 * allocation: no fresh block from the OS, the count never drops and never
 * passes the cap, and the victim's content comes back intact.
 */
KTEST(ttm_tt_cap_swapout_hands_blocks_to_the_allocation)
{
	static unsigned char in[256 * 4096], out[256 * 4096];
	struct cap_fixture f;
	struct ttm_global_stats st;
	unsigned long os;
	void *block;

	ASSERT_EQ(cap_begin(&f, 256, in, sizeof(in), ttm_cached), 0);
	block = ttm_tt_page_ptr(&f.a, 0);
	os = ttm_pool_os_pages(&pool);

	ASSERT_EQ(ttm_tt_populate(&pool, &f.b, NULL), 0);
	EXPECT_TRUE(ttm_tt_is_swapped(&f.a));
	EXPECT_EQ(f.w.scans, 1);
	EXPECT_TRUE(ttm_tt_page_ptr(&f.b, 0) == block);
	EXPECT_EQ(ttm_pool_os_pages(&pool), os);
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_cached, 8), 0);
	ttm_global_get_stats(&st);
	EXPECT_EQ(st.pages, 256);
	EXPECT_LE(st.high_water, 256);

	/* Back in through the free list b leaves, content intact. */
	memset(ttm_tt_page_ptr(&f.b, 0), 0x5a, 4096);
	ttm_tt_unpopulate(&pool, &f.b);
	ASSERT_EQ(ttm_tt_populate(&pool, &f.a, NULL), 0);
	EXPECT_EQ(ttm_pool_os_pages(&pool), os);
	ASSERT_EQ(ttm_tt_copy_from(&f.a, 0, out, sizeof(out)), 0);
	EXPECT_MEMEQ(in, out, sizeof(out));
	cap_end(&f);
}

/*
 * A swapped-out block the waiting allocation cannot use (another caching)
 * is not left charged on a free list: it goes back to the OS before the
 * allocation maps a fresh one, and the cap holds throughout.
 */
KTEST(ttm_tt_cap_swapout_unusable_blocks_go_back)
{
	static unsigned char in[256 * 4096], out[256 * 4096];
	struct cap_fixture f;
	struct ttm_global_stats st;
	unsigned long os;

	ASSERT_EQ(cap_begin(&f, 256, in, sizeof(in), ttm_write_combined), 0);
	os = ttm_pool_os_pages(&pool);

	ASSERT_EQ(ttm_tt_populate(&pool, &f.b, NULL), 0);
	EXPECT_TRUE(ttm_tt_is_swapped(&f.a));
	EXPECT_EQ(ttm_pool_nr_free(&pool, ttm_write_combined, 8), 0);
	EXPECT_EQ(ttm_pool_os_pages(&pool), os + 256);
	ttm_global_get_stats(&st);
	EXPECT_EQ(st.pages, 256);
	EXPECT_LE(st.high_water, 256);

	ttm_tt_unpopulate(&pool, &f.b);
	ASSERT_EQ(ttm_tt_populate(&pool, &f.a, NULL), 0);
	ASSERT_EQ(ttm_tt_copy_from(&f.a, 0, out, sizeof(out)), 0);
	EXPECT_MEMEQ(in, out, sizeof(out));
	cap_end(&f);
}

/* Swap files are given back empty and taken again by the next swap-out. */
KTEST(ttm_tt_swap_file_spares_are_empty_and_reused)
{
	unsigned char in[3 * 4096], out[3 * 4096];
	struct ttm_tt tt;
	struct stat sb;
	int fd, again;

	setup();
	fill_random(in, sizeof(in));
	ASSERT_EQ(ttm_tt_init(&tt, sizeof(in), 0, ttm_cached, 0), 0);
	ASSERT_EQ(ttm_tt_populate(&pool, &tt, NULL), 0);
	ASSERT_EQ(ttm_tt_copy_to(&tt, 0, in, sizeof(in)), 0);
	ASSERT_EQ(ttm_tt_swapout(&pool, &tt), 3);
	fd = tt.swap_storage;
	ASSERT_EQ(fstat(fd, &sb), 0);
	EXPECT_EQ(sb.st_size, (off_t)sizeof(in));
	ASSERT_EQ(ttm_tt_swapin(&pool, &tt, NULL), 0);
	EXPECT_EQ(tt.swap_storage, -1);

	again = ttm_pool_swap_file_get(&pool);
	EXPECT_EQ(again, fd);
	ASSERT_EQ(fstat(again, &sb), 0);
	EXPECT_EQ(sb.st_size, 0);
	ttm_pool_swap_file_put(&pool, again);

	ASSERT_EQ(ttm_tt_swapout(&pool, &tt), 3);
	EXPECT_EQ(tt.swap_storage, fd);
	ASSERT_EQ(ttm_tt_swapin(&pool, &tt, NULL), 0);
	ASSERT_EQ(ttm_tt_copy_from(&tt, 0, out, sizeof(out)), 0);
	EXPECT_MEMEQ(in, out, sizeof(out));
	ttm_tt_fini(&pool, &tt);
	teardown();
}

struct churn {
	unsigned long iters;
	uint64_t seed;
	unsigned long ok;
	unsigned long bad_content;
	unsigned long bad_error;
};

static uint64_t churn_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Populate, stamp, sometimes swap out and in, check, unpopulate: on one shared pool. */
static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	uint64_t x = c->seed | 1;
	unsigned long i;

	for (i = 0; i < c->iters; i++) {
		uint64_t r = churn_rand(&x);
		unsigned long n = 1 + r % 40;
		struct ttm_tt tt;
		unsigned char stamp = (unsigned char)(r >> 8), got = 0;
		int err;

		if (ttm_tt_init(&tt, n * TTM_PAGE_SIZE, 0, (enum ttm_caching)((r >> 16) % 3), 0)) {
			c->bad_error++;
			continue;
		}
		err = ttm_tt_populate(&pool, &tt, NULL);
		if (err) {
			c->bad_error += err != -ENOMEM;
			continue;
		}
		ttm_tt_copy_to(&tt, n * TTM_PAGE_SIZE - 1, &stamp, 1);
		if ((r >> 24) % 4 == 0 && ttm_tt_swapout(&pool, &tt) > 0) {
			err = ttm_tt_swapin(&pool, &tt, NULL);
			if (err) {
				c->bad_error += err != -ENOMEM;
				ttm_tt_fini(&pool, &tt);
				continue;
			}
		}
		ttm_tt_copy_from(&tt, n * TTM_PAGE_SIZE - 1, &got, 1);
		c->bad_content += got != stamp;
		c->ok++;
		ttm_tt_fini(&pool, &tt);
	}
	return NULL;
}

KTEST(ttm_tt_two_threads_share_pool_under_cap)
{
	struct ttm_global_config cfg = {.limit_pages = 128};
	struct ttm_global_stats s;
	struct churn c[2];
	pthread_t t[2];
	int i;

	setup();
	ASSERT_EQ(ttm_global_config(&cfg), 0);
	ttm_global_reset_high_water();
	for (i = 0; i < 2; i++) {
		c[i] = (struct churn){.iters = 3000 * ktest_scale(), .seed = ktest_rand()};
		ASSERT_EQ(pthread_create(&t[i], NULL, churn_thread, &c[i]), 0);
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ttm_global_get_stats(&s);
	EXPECT_LE(s.high_water, 128);
	EXPECT_GT(c[0].ok + c[1].ok, 0);
	EXPECT_EQ(c[0].bad_content + c[1].bad_content, 0);
	EXPECT_EQ(c[0].bad_error + c[1].bad_error, 0);
	/* Everything left is on the free lists. */
	EXPECT_EQ(s.pages, ttm_pool_free_pages(&pool));
	teardown();
	cfg.limit_pages = 0;
	ttm_global_config(&cfg);
}
