// SPDX-License-Identifier: MIT
/* drm_buddy: split and merge, range/topdown/contiguous placement, errors. */
#include <errno.h>
#include <stdlib.h>

#include <ttm/drm_buddy.h>

#include "ktest.h"

#define SZ_4K 4096ull
#define SZ_1M (1ull << 20)

static uint64_t list_bytes(const struct drm_buddy *mm, struct list_head *blocks)
{
	struct drm_buddy_block *b;
	uint64_t n = 0;

	list_for_each_entry (b, blocks, struct drm_buddy_block, link)
		n += drm_buddy_block_size(mm, b);
	return n;
}

/* Only the roots are free: one per set bit of size / chunk. */
static bool only_roots_free(const struct drm_buddy *mm)
{
	unsigned long blocks = 0;

	for (unsigned o = 0; o <= mm->max_order; o++)
		blocks += drm_buddy_free_count(mm, o);
	return blocks == mm->n_roots && drm_buddy_avail(mm) == mm->size;
}

KTEST(drm_buddy_init_errors)
{
	struct drm_buddy mm;

	EXPECT_EQ(drm_buddy_init(&mm, SZ_1M, 2048), -EINVAL);
	EXPECT_EQ(drm_buddy_init(&mm, SZ_1M, 3 * SZ_4K), -EINVAL);
	EXPECT_EQ(drm_buddy_init(&mm, 1024, SZ_4K), -EINVAL);
	ASSERT_EQ(drm_buddy_init(&mm, 3 * SZ_1M + 5000, SZ_4K), 0);
	EXPECT_UEQ(mm.size, 3 * SZ_1M + SZ_4K);
	EXPECT_EQ(mm.n_roots, 3);
	EXPECT_UEQ(drm_buddy_largest_free(&mm), 2 * SZ_1M);
	drm_buddy_fini(&mm);
}

KTEST(drm_buddy_alloc_split_merge_to_top)
{
	enum { N = 256 };
	struct drm_buddy mm;
	struct list_head lists[N];
	int i;

	ASSERT_EQ(drm_buddy_init(&mm, N * SZ_4K, SZ_4K), 0);
	for (i = 0; i < N; i++) {
		INIT_LIST_HEAD(&lists[i]);
		ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, SZ_4K, SZ_4K, &lists[i], 0), 0);
	}
	EXPECT_UEQ(drm_buddy_avail(&mm), 0);
	EXPECT_UEQ(drm_buddy_largest_free(&mm), 0);
	{
		struct list_head extra = LIST_HEAD_INIT(extra);

		EXPECT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, SZ_4K, SZ_4K, &extra, 0),
			  -ENOSPC);
	}
	/* Free in a shuffled order; merges must climb back to the single top block. */
	for (i = N - 1; i > 0; i--) {
		int j = (int)(ktest_rand() % (uint64_t)(i + 1));
		if (j != i) {
			struct list_head a = LIST_HEAD_INIT(a), b = LIST_HEAD_INIT(b);

			list_splice_tail_init(&lists[i], &a);
			list_splice_tail_init(&lists[j], &b);
			list_splice_tail_init(&a, &lists[j]);
			list_splice_tail_init(&b, &lists[i]);
		}
	}
	for (i = 0; i < N; i++)
		drm_buddy_free_list(&mm, &lists[i], 0);
	EXPECT_TRUE(only_roots_free(&mm));
	EXPECT_EQ(drm_buddy_free_count(&mm, 8), 1);
	drm_buddy_fini(&mm);
}

KTEST(drm_buddy_alloc_sizes_random)
{
	enum { N = 64 };
	struct drm_buddy mm;
	struct list_head lists[N];
	unsigned iters = 2000 * ktest_scale();

	ASSERT_EQ(drm_buddy_init(&mm, 64 * SZ_1M + 12 * SZ_4K, SZ_4K), 0);
	for (int i = 0; i < N; i++)
		INIT_LIST_HEAD(&lists[i]);
	for (unsigned it = 0; it < iters; it++) {
		struct list_head *l = &lists[ktest_rand() % N];

		if (!list_empty(l)) {
			uint64_t bytes = list_bytes(&mm, l), before = drm_buddy_avail(&mm);

			drm_buddy_free_list(&mm, l, 0);
			EXPECT_UEQ(drm_buddy_avail(&mm), before + bytes);
		} else {
			uint64_t min = SZ_4K << (ktest_rand() % 4);
			uint64_t size = min * (1 + ktest_rand() % 300),
				 before = drm_buddy_avail(&mm);
			unsigned long flags = ktest_rand() % 2 ? DRM_BUDDY_TOPDOWN_ALLOCATION : 0;
			uint64_t start = 0, end = mm.size;
			int ret;

			if (ktest_rand() % 3 == 0) {
				flags |= DRM_BUDDY_RANGE_ALLOCATION;
				start = (ktest_rand() % (mm.size / SZ_4K / 2)) * SZ_4K;
				end = start + size + (ktest_rand() % 64) * SZ_4K;
				if (end > mm.size)
					end = mm.size;
			}
			if (ktest_rand() % 4 == 0)
				flags |= DRM_BUDDY_CONTIGUOUS_ALLOCATION;
			ret = drm_buddy_alloc_blocks(&mm, start, end, size, min, l, flags);
			EXPECT_TRUE(ret == 0 || ret == -ENOSPC ||
				    (ret == -EINVAL && size > end - start));
			if (ret) {
				EXPECT_TRUE(list_empty(l));
				EXPECT_UEQ(drm_buddy_avail(&mm), before);
				continue;
			}
			EXPECT_UEQ(list_bytes(&mm, l), size);
			EXPECT_UEQ(drm_buddy_avail(&mm), before - size);
			struct drm_buddy_block *b;
			uint64_t next = UINT64_MAX;

			list_for_each_entry (b, l, struct drm_buddy_block, link) {
				uint64_t bs = drm_buddy_block_size(&mm, b);

				EXPECT_UEQ(drm_buddy_block_offset(b) % bs, 0);
				if (flags & DRM_BUDDY_RANGE_ALLOCATION)
					EXPECT_TRUE(b->offset >= start && b->offset + bs <= end);
				if (flags & DRM_BUDDY_CONTIGUOUS_ALLOCATION) {
					if (next != UINT64_MAX)
						EXPECT_UEQ(b->offset, next);
					next = b->offset + bs;
				} else {
					EXPECT_UGE(bs, min);
				}
			}
		}
	}
	for (int i = 0; i < N; i++)
		drm_buddy_free_list(&mm, &lists[i], 0);
	EXPECT_TRUE(only_roots_free(&mm));
	drm_buddy_fini(&mm);
}

KTEST(drm_buddy_alloc_topdown_and_range)
{
	struct drm_buddy mm;
	struct list_head l = LIST_HEAD_INIT(l), r = LIST_HEAD_INIT(r);
	struct drm_buddy_block *b;

	ASSERT_EQ(drm_buddy_init(&mm, 16 * SZ_1M, SZ_4K), 0);
	ASSERT_EQ(
	    drm_buddy_alloc_blocks(&mm, 0, mm.size, SZ_4K, SZ_4K, &l, DRM_BUDDY_TOPDOWN_ALLOCATION),
	    0);
	b = list_first_entry(&l, struct drm_buddy_block, link);
	EXPECT_UEQ(b->offset, mm.size - SZ_4K);
	drm_buddy_free_list(&mm, &l, 0);
	ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, SZ_4K, SZ_4K, &l, 0), 0);
	b = list_first_entry(&l, struct drm_buddy_block, link);
	EXPECT_UEQ(b->offset, 0);
	/* A range in the middle, not aligned to the request's natural block. */
	ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 3 * SZ_1M + 8 * SZ_4K, 5 * SZ_1M, SZ_1M, SZ_4K, &r,
					 DRM_BUDDY_RANGE_ALLOCATION),
		  0);
	list_for_each_entry (b, &r, struct drm_buddy_block, link)
		EXPECT_TRUE(b->offset >= 3 * SZ_1M + 8 * SZ_4K &&
			    b->offset + drm_buddy_block_size(&mm, b) <= 5 * SZ_1M);
	EXPECT_UEQ(list_bytes(&mm, &r), SZ_1M);
	drm_buddy_free_list(&mm, &r, 0);
	/* Range + topdown: the last page of the range. */
	ASSERT_EQ(drm_buddy_alloc_blocks(&mm, SZ_1M, 2 * SZ_1M, SZ_4K, SZ_4K, &r,
					 DRM_BUDDY_RANGE_ALLOCATION | DRM_BUDDY_TOPDOWN_ALLOCATION),
		  0);
	b = list_first_entry(&r, struct drm_buddy_block, link);
	EXPECT_UEQ(b->offset, 2 * SZ_1M - SZ_4K);
	drm_buddy_free_list(&mm, &r, 0);
	/* Contiguous 3 pages: one run, the rest of the 4-page block stays free. */
	ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, 3 * SZ_4K, SZ_4K, &r,
					 DRM_BUDDY_CONTIGUOUS_ALLOCATION),
		  0);
	EXPECT_UEQ(list_bytes(&mm, &r), 3 * SZ_4K);
	EXPECT_UEQ(drm_buddy_avail(&mm), mm.size - 4 * SZ_4K);
	drm_buddy_free_list(&mm, &r, 0);
	drm_buddy_free_list(&mm, &l, 0);
	EXPECT_TRUE(only_roots_free(&mm));
	{
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		ASSERT_NOT_NULL(f);
		drm_buddy_print(&mm, f);
		fclose(f);
		EXPECT_TRUE(strstr(text, "order-12: 1 free block(s) of 16384 KiB") != NULL);
		free(text);
	}
	drm_buddy_fini(&mm);
}

KTEST(drm_buddy_alloc_errors)
{
	struct drm_buddy mm;
	struct list_head l = LIST_HEAD_INIT(l), big = LIST_HEAD_INIT(big);

	ASSERT_EQ(drm_buddy_init(&mm, 4 * SZ_1M, SZ_4K), 0);
	EXPECT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, 0, SZ_4K, &l, 0), -EINVAL);
	EXPECT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, 100, SZ_4K, &l, 0), -EINVAL);
	EXPECT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, SZ_4K, 3 * SZ_4K, &l, 0), -EINVAL);
	/* A size that is no multiple of min_block_size is rounded up, not refused (see below). */
	EXPECT_EQ(
	    drm_buddy_alloc_blocks(&mm, SZ_1M, SZ_4K, SZ_4K, SZ_4K, &l, DRM_BUDDY_RANGE_ALLOCATION),
	    -EINVAL);
	EXPECT_EQ(
	    drm_buddy_alloc_blocks(&mm, 0, 8 * SZ_1M, SZ_4K, SZ_4K, &l, DRM_BUDDY_RANGE_ALLOCATION),
	    -EINVAL);
	EXPECT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, 8 * SZ_1M, SZ_4K, &l, 0), -ENOSPC);
	/* Fragment: take every other page, then a contiguous 2-page run cannot exist. */
	ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, mm.size, SZ_4K, &big, 0), 0);
	{
		struct drm_buddy_block *b, *n;
		int k = 0;

		EXPECT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, SZ_4K, SZ_4K, &l, 0), -ENOSPC);
		drm_buddy_free_list(&mm, &big, 0);
		for (uint64_t off = 0; off < mm.size; off += SZ_4K) {
			struct list_head one = LIST_HEAD_INIT(one);

			ASSERT_EQ(drm_buddy_alloc_blocks(&mm, off, off + SZ_4K, SZ_4K, SZ_4K, &one,
							 DRM_BUDDY_RANGE_ALLOCATION),
				  0);
			list_splice_tail_init(&one, &big);
		}
		list_for_each_entry_safe (b, n, &big, struct drm_buddy_block, link)
			if (k++ % 2)
				drm_buddy_free_block(&mm, b);
	}
	EXPECT_UEQ(drm_buddy_avail(&mm), mm.size / 2);
	EXPECT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, 2 * SZ_4K, SZ_4K, &l,
					 DRM_BUDDY_CONTIGUOUS_ALLOCATION),
		  -ENOSPC);
	EXPECT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, 2 * SZ_4K, 2 * SZ_4K, &l, 0), -ENOSPC);
	EXPECT_TRUE(list_empty(&l));
	EXPECT_UEQ(drm_buddy_avail(&mm), mm.size / 2);
	drm_buddy_free_list(&mm, &big, 0);
	EXPECT_TRUE(only_roots_free(&mm));
	drm_buddy_fini(&mm);
}

/*
 * As the kernel: a size that is not a multiple of min_block_size is rounded
 * up to one for the search, and the last block is trimmed back, so exactly
 * the size asked for is handed out.
 */
KTEST(drm_buddy_alloc_size_rounded_up_to_min_block)
{
	struct drm_buddy mm;
	struct list_head l = LIST_HEAD_INIT(l);
	struct drm_buddy_block *b;

	ASSERT_EQ(drm_buddy_init(&mm, SZ_1M, SZ_4K), 0);
	/* 12 KiB in 8 KiB units: one 16 KiB block, trimmed to 8 + 4 KiB. */
	ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, 3 * SZ_4K, 2 * SZ_4K, &l, 0), 0);
	EXPECT_UEQ(list_bytes(&mm, &l), 3 * SZ_4K);
	EXPECT_UEQ(drm_buddy_avail(&mm), mm.size - 3 * SZ_4K);
	/* 40 KiB in 16 KiB units: 32 + 16 KiB found, the 16 KiB block trimmed to 8 KiB. */
	ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, 10 * SZ_4K, 4 * SZ_4K, &l, 0), 0);
	EXPECT_UEQ(list_bytes(&mm, &l), 13 * SZ_4K);
	EXPECT_UEQ(drm_buddy_avail(&mm), mm.size - 13 * SZ_4K);
	list_for_each_entry (b, &l, struct drm_buddy_block, link)
		EXPECT_UEQ(drm_buddy_block_offset(b) % SZ_4K, 0);
	/* Still chunk granular: a size below one chunk is refused. */
	EXPECT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, 100, SZ_4K, &l, 0), -EINVAL);
	drm_buddy_free_list(&mm, &l, 0);
	EXPECT_TRUE(only_roots_free(&mm));
	drm_buddy_fini(&mm);
}

/*
 * A size that fits, rounded up to a minimum block that does not: -ENOSPC at
 * once (the search used to walk its order below zero and never return).
 */
KTEST(drm_buddy_alloc_rounded_size_beyond_mm)
{
	struct drm_buddy mm;
	struct list_head l = LIST_HEAD_INIT(l);

	ASSERT_EQ(drm_buddy_init(&mm, SZ_4K, SZ_4K), 0);
	EXPECT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, SZ_4K, 4 * SZ_4K, &l, 0), -ENOSPC);
	EXPECT_TRUE(list_empty(&l));
	EXPECT_UEQ(drm_buddy_avail(&mm), mm.size);
	drm_buddy_fini(&mm);
	/* 12 KiB (roots of 8 and 4 KiB): no 16 KiB minimum block anywhere. */
	ASSERT_EQ(drm_buddy_init(&mm, 3 * SZ_4K, SZ_4K), 0);
	EXPECT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, SZ_4K, 4 * SZ_4K, &l, 0), -ENOSPC);
	EXPECT_TRUE(list_empty(&l));
	EXPECT_UEQ(drm_buddy_avail(&mm), mm.size);
	drm_buddy_fini(&mm);
}

/* Allocate every page of @mm, one per call, into @lists[page % @n]. */
static void take_pages_round_robin(struct drm_buddy *mm, struct list_head *lists, unsigned n)
{
	for (uint64_t i = 0; i < mm->size / SZ_4K; i++)
		ASSERT_EQ(drm_buddy_alloc_blocks(mm, 0, mm->size, SZ_4K, SZ_4K, &lists[i % n], 0),
			  0);
}

/*
 * The kernel's drm_test_buddy_alloc_contiguous: with the space fragmented
 * so that the free pages are never buddies, a contiguous request is still
 * served from adjacent free blocks (the try-harder path).
 */
KTEST(drm_test_buddy_alloc_contiguous)
{
	const uint64_t ps = SZ_4K, mm_size = 16 * 3 * SZ_4K;
	struct list_head lists[3], allocated = LIST_HEAD_INIT(allocated);
	struct list_head *left = &lists[0], *middle = &lists[1], *right = &lists[2];
	struct drm_buddy mm;
	const unsigned long contig = DRM_BUDDY_CONTIGUOUS_ALLOCATION;

	for (int i = 0; i < 3; i++)
		INIT_LIST_HEAD(&lists[i]);
	ASSERT_EQ(drm_buddy_init(&mm, mm_size, ps), 0);
	take_pages_round_robin(&mm, lists, 3);
	EXPECT_NE(drm_buddy_alloc_blocks(&mm, 0, mm_size, 3 * ps, ps, &allocated, contig), 0);
	drm_buddy_free_list(&mm, middle, 0);
	EXPECT_NE(drm_buddy_alloc_blocks(&mm, 0, mm_size, 3 * ps, ps, &allocated, contig), 0);
	EXPECT_NE(drm_buddy_alloc_blocks(&mm, 0, mm_size, 2 * ps, ps, &allocated, contig), 0);
	drm_buddy_free_list(&mm, right, 0);
	EXPECT_NE(drm_buddy_alloc_blocks(&mm, 0, mm_size, 3 * ps, ps, &allocated, contig), 0);
	/* Two free pages side by side that are not buddies. */
	EXPECT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm_size, 2 * ps, ps, &allocated, contig), 0);
	drm_buddy_free_list(&mm, left, 0);
	EXPECT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm_size, 3 * ps, ps, &allocated, contig), 0);
	EXPECT_UEQ(list_bytes(&mm, &allocated), 2 * ps + 3 * ps);
	drm_buddy_free_list(&mm, &allocated, 0);
	EXPECT_TRUE(only_roots_free(&mm));
	drm_buddy_fini(&mm);
}

/*
 * Three pages with only pages [2, 6) free: no power-of-two block of 4 pages
 * is free, but the run [3, 6) is; the kernel's try-harder path tries the
 * highest free 2-page block first (at page 4), extends it to the left and
 * returns offset 0x3000.
 */
KTEST(drm_buddy_alloc_contiguous_across_free_blocks)
{
	struct list_head pages[8], got = LIST_HEAD_INIT(got);
	struct drm_buddy_block *b;
	struct drm_buddy mm;
	uint64_t lo = UINT64_MAX, hi = 0;

	for (int i = 0; i < 8; i++)
		INIT_LIST_HEAD(&pages[i]);
	ASSERT_EQ(drm_buddy_init(&mm, 8 * SZ_4K, SZ_4K), 0);
	take_pages_round_robin(&mm, pages, 8);
	for (int i = 2; i < 6; i++)
		drm_buddy_free_list(&mm, &pages[i], 0);
	ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm.size, 3 * SZ_4K, SZ_4K, &got,
					 DRM_BUDDY_CONTIGUOUS_ALLOCATION),
		  0);
	list_for_each_entry (b, &got, struct drm_buddy_block, link) {
		if (drm_buddy_block_offset(b) < lo)
			lo = drm_buddy_block_offset(b);
		if (drm_buddy_block_offset(b) + drm_buddy_block_size(&mm, b) > hi)
			hi = drm_buddy_block_offset(b) + drm_buddy_block_size(&mm, b);
	}
	EXPECT_UEQ(lo, 0x3000);
	EXPECT_UEQ(hi, 0x6000);
	EXPECT_UEQ(list_bytes(&mm, &got), 3 * SZ_4K);
	EXPECT_UEQ(drm_buddy_avail(&mm), SZ_4K);
	drm_buddy_free_list(&mm, &got, 0);
	for (int i = 0; i < 8; i++)
		drm_buddy_free_list(&mm, &pages[i], 0);
	EXPECT_TRUE(only_roots_free(&mm));
	drm_buddy_fini(&mm);
}

/*
 * drm_test_buddy_alloc_range_bias, as the kernel's KUnit case: random
 * range-restricted allocations inside random windows, some failing; every
 * block lies in its window, and once all is freed the space is whole again
 * (every split a failed or successful walk left unused was merged back).
 */
KTEST(drm_test_buddy_alloc_range_bias)
{
	const uint64_t size = 64ull << 20, ps = 4096;
	struct list_head held = LIST_HEAD_INIT(held);
	struct drm_buddy mm;
	unsigned ok = 0, refused = 0;

	ASSERT_EQ(drm_buddy_init(&mm, size, ps), 0);
	for (unsigned i = 0; i < 2000 * ktest_scale(); i++) {
		uint64_t start = (ktest_rand() % (size / ps)) * ps;
		uint64_t end = start + ((ktest_rand() % 64) + 1) * ps;
		uint64_t sz = ((ktest_rand() % 16) + 1) * ps;
		struct list_head one = LIST_HEAD_INIT(one);
		struct drm_buddy_block *b;
		int ret;

		if (end > size)
			end = size;
		ret = drm_buddy_alloc_blocks(&mm, start, end, sz, ps, &one,
					     DRM_BUDDY_RANGE_ALLOCATION |
						 (i % 2 ? DRM_BUDDY_TOPDOWN_ALLOCATION : 0));
		if (ret) {
			EXPECT_TRUE(ret == -ENOSPC || ret == -EINVAL);
			EXPECT_TRUE(list_empty(&one));
			refused++;
			continue;
		}
		list_for_each_entry (b, &one, struct drm_buddy_block, link) {
			EXPECT_UGE(drm_buddy_block_offset(b), start);
			EXPECT_ULE(drm_buddy_block_offset(b) + (ps << b->order), end);
		}
		ok++;
		/* Keep about half, so later windows meet a fragmented tree. */
		if (ktest_rand() & 1)
			list_splice_tail_init(&one, &held);
		else
			drm_buddy_free_list(&mm, &one, 0);
	}
	EXPECT_GT(ok, 0u);
	EXPECT_GT(refused, 0u);
	drm_buddy_free_list(&mm, &held, 0);
	EXPECT_UEQ(mm.avail, size);
	EXPECT_UEQ(drm_buddy_largest_free(&mm), size);
	EXPECT_UEQ(drm_buddy_free_count(&mm, mm.max_order), 1);
	drm_buddy_fini(&mm);
}

/* True when the blocks of @blocks follow each other in list order. */
static bool blocks_one_ascending_run(const struct drm_buddy *mm, struct list_head *blocks)
{
	struct drm_buddy_block *b;
	uint64_t expect = UINT64_MAX;

	list_for_each_entry (b, blocks, struct drm_buddy_block, link) {
		if (expect != UINT64_MAX && drm_buddy_block_offset(b) != expect)
			return false;
		expect = drm_buddy_block_offset(b) + drm_buddy_block_size(mm, b);
	}
	return expect != UINT64_MAX;
}

/*
 * A contiguous allocation hands its blocks back in ascending address order,
 * as the kernel's trim and try-harder paths do (a CPU window over the run
 * shows the blocks in list order): random sizes, plain, top-down and
 * range-restricted, on a space fragmented by random plain allocations.
 */
KTEST(drm_buddy_alloc_contiguous_blocks_ascending)
{
	const uint64_t size = 4 * SZ_1M, ps = SZ_4K;
	struct list_head held = LIST_HEAD_INIT(held);
	struct drm_buddy mm;
	unsigned ok = 0;

	ASSERT_EQ(drm_buddy_init(&mm, size, ps), 0);
	for (unsigned i = 0; i < 4000 * ktest_scale(); i++) {
		struct list_head one = LIST_HEAD_INIT(one);
		uint64_t sz = ((ktest_rand() % 24) + 1) * ps, min = ps << (ktest_rand() % 3);
		uint64_t start = (ktest_rand() % (size / ps / 2)) * ps;
		unsigned long flags = 0;
		unsigned kind = ktest_rand() % 4;
		int ret;

		if (kind == 0) {
			ret = drm_buddy_alloc_blocks(&mm, 0, size, sz, ps, &one, 0);
		} else {
			if (kind == 1)
				flags |= DRM_BUDDY_TOPDOWN_ALLOCATION;
			if (kind < 3 && (ktest_rand() & 1))
				flags |= DRM_BUDDY_RANGE_ALLOCATION;
			ret = drm_buddy_alloc_blocks(&mm, start, size, sz, min, &one,
						     flags | DRM_BUDDY_CONTIGUOUS_ALLOCATION);
			if (!ret) {
				ok++;
				EXPECT_TRUE(blocks_one_ascending_run(&mm, &one));
				EXPECT_UEQ(list_bytes(&mm, &one), sz);
				EXPECT_UEQ(drm_buddy_block_offset(list_first_entry(
					       &one, struct drm_buddy_block, link)) %
					       min,
					   0);
			}
		}
		if (ret) {
			EXPECT_TRUE(list_empty(&one));
			/* Full enough: give a random half back. */
			while (!list_empty(&held) && (ktest_rand() % 8)) {
				struct drm_buddy_block *b =
				    list_first_entry(&held, struct drm_buddy_block, link);

				list_del_init(&b->link);
				drm_buddy_free_block(&mm, b);
			}
			continue;
		}
		list_splice_tail_init(&one, &held);
	}
	EXPECT_GT(ok, 100u);
	drm_buddy_free_list(&mm, &held, 0);
	EXPECT_TRUE(only_roots_free(&mm));
	drm_buddy_fini(&mm);
}

/* @b's max_free (per clear state) is what its subtree holds; false on the first mismatch. */
static bool max_free_exact(const struct drm_buddy_block *b)
{
	for (unsigned t = 0; t < 2; t++) {
		int want;

		if (b->state == DRM_BUDDY_FREE)
			want = (b->clear ? DRM_BUDDY_CLEAR_TREE : DRM_BUDDY_DIRTY_TREE) == t
				   ? (int)b->order
				   : -1;
		else if (b->state == DRM_BUDDY_ALLOCATED)
			want = -1;
		else if (!max_free_exact(b->left) || !max_free_exact(b->right))
			return false;
		else
			want = b->left->max_free[t] > b->right->max_free[t] ? b->left->max_free[t]
									    : b->right->max_free[t];
		if (b->max_free[t] != want)
			return false;
	}
	return true;
}

/* Brute force: the free block of order >= @order with the highest offset, or NULL. */
static const struct drm_buddy_block *highest_free_block(const struct drm_buddy *mm, unsigned order)
{
	const struct drm_buddy_block *b, *best = NULL;

	for (unsigned o = order; o <= mm->max_order; o++)
		list_for_each_entry (b, &mm->free_trees[DRM_BUDDY_DIRTY_TREE][o],
				     struct drm_buddy_block, link)
			if (!best || b->offset > best->offset)
				best = b;
	return best;
}

/*
 * Top-down takes its block from the free block of sufficient order with the
 * highest offset (the kernel's get_maxblock()), found through the per-block
 * free-order summary instead of a walk of the free lists; the summary stays
 * exact through allocations of every kind, trims and frees.
 */
KTEST(drm_buddy_alloc_topdown_highest_free_block)
{
	const uint64_t size = 8 * SZ_1M + 3 * SZ_4K, ps = SZ_4K;
	struct list_head held = LIST_HEAD_INIT(held);
	struct drm_buddy mm;
	unsigned checked = 0;

	ASSERT_EQ(drm_buddy_init(&mm, size, ps), 0);
	for (unsigned i = 0; i < 3000 * ktest_scale(); i++) {
		struct list_head one = LIST_HEAD_INIT(one);
		unsigned order = ktest_rand() % 5, kind = ktest_rand() % 4;
		const struct drm_buddy_block *hi = highest_free_block(&mm, order);
		uint64_t sz = ps << order;
		uint64_t start = (ktest_rand() % (size / ps)) * ps;
		int ret;

		if (kind == 0) {
			ret = drm_buddy_alloc_blocks(&mm, 0, size, sz, sz, &one,
						     DRM_BUDDY_TOPDOWN_ALLOCATION);
			if (!hi) {
				EXPECT_EQ(ret, -ENOSPC);
			} else {
				/* Split down on the right: the top @sz of that block. */
				uint64_t top = hi->offset + (ps << hi->order) - sz;

				ASSERT_EQ(ret, 0);
				EXPECT_UEQ(drm_buddy_block_offset(list_first_entry(
					       &one, struct drm_buddy_block, link)),
					   top);
				checked++;
			}
		} else if (kind == 1) {
			ret = drm_buddy_alloc_blocks(
			    &mm, start, start + 64 * ps > size ? size : start + 64 * ps,
			    (1 + ktest_rand() % 8) * ps, ps, &one,
			    DRM_BUDDY_RANGE_ALLOCATION |
				(ktest_rand() & 1 ? DRM_BUDDY_TOPDOWN_ALLOCATION : 0));
		} else if (kind == 2) {
			ret = drm_buddy_alloc_blocks(&mm, 0, size, (1 + ktest_rand() % 24) * ps, ps,
						     &one, DRM_BUDDY_CONTIGUOUS_ALLOCATION);
		} else {
			ret = drm_buddy_alloc_blocks(&mm, 0, size, (1 + ktest_rand() % 24) * ps, ps,
						     &one, 0);
		}
		if (ret || ktest_rand() % 3 == 0)
			drm_buddy_free_list(&mm, &one, 0);
		else
			list_splice_tail_init(&one, &held);
		/* Sometimes give back a few held blocks from the front. */
		for (unsigned k = ktest_rand() % 4; k && !list_empty(&held); k--)
			drm_buddy_free_block(&mm,
					     list_first_entry(&held, struct drm_buddy_block, link));
		for (unsigned r = 0; r < mm.n_roots; r++)
			if (!max_free_exact(mm.roots[r]))
				ASSERT_TRUE(!"max_free summary out of date");
	}
	EXPECT_GT(checked, 100u);
	drm_buddy_free_list(&mm, &held, 0);
	EXPECT_TRUE(only_roots_free(&mm));
	drm_buddy_fini(&mm);
}

/*
 * The kernel's drm_test_buddy_alloc_clear: blocks freed as cleared serve
 * DRM_BUDDY_CLEAR_ALLOCATION and come back marked clear, dirty requests get
 * dirty blocks while any fit; a cleared and a dirty buddy stay apart until
 * an allocation needs the larger block (then merged, dirty); fini merges
 * what the clear states kept apart, over several roots.
 */
KTEST(drm_test_buddy_alloc_clear)
{
	const uint64_t ps = SZ_4K;
	const unsigned max_order = 12;
	uint64_t mm_size = SZ_4K << max_order, size, total;
	struct list_head allocated = LIST_HEAD_INIT(allocated);
	struct list_head dirty = LIST_HEAD_INIT(dirty), clean = LIST_HEAD_INIT(clean);
	struct drm_buddy_block *block;
	struct drm_buddy mm;

	ASSERT_EQ(drm_buddy_init(&mm, mm_size, ps), 0);
	EXPECT_EQ(mm.max_order, max_order);
	ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm_size, 5 * ps, ps, &allocated,
					 DRM_BUDDY_TOPDOWN_ALLOCATION),
		  0);
	drm_buddy_free_list(&mm, &allocated, DRM_BUDDY_CLEARED);
	EXPECT_UEQ(mm.clear_avail, 5 * ps);
	for (unsigned i = 0; i < 10; i++)
		ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm_size, ps, ps, i % 2 ? &clean : &dirty,
						 i % 2 ? DRM_BUDDY_CLEAR_ALLOCATION : 0),
			  0);
	list_for_each_entry (block, &clean, struct drm_buddy_block, link)
		EXPECT_TRUE(drm_buddy_block_is_clear(block));
	list_for_each_entry (block, &dirty, struct drm_buddy_block, link)
		EXPECT_FALSE(drm_buddy_block_is_clear(block));
	EXPECT_UEQ(mm.clear_avail, 0);
	drm_buddy_free_list(&mm, &clean, DRM_BUDDY_CLEARED);
	EXPECT_UEQ(mm.clear_avail, 5 * ps);
	/* Over the cleared bytes: still served, partly dirty. */
	ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm_size, 10 * ps, ps, &clean,
					 DRM_BUDDY_CLEAR_ALLOCATION),
		  0);
	EXPECT_UEQ(list_bytes(&mm, &clean), 10 * ps);
	drm_buddy_free_list(&mm, &clean, DRM_BUDDY_CLEARED);
	drm_buddy_free_list(&mm, &dirty, 0);
	EXPECT_UEQ(drm_buddy_avail(&mm), mm_size);
	drm_buddy_fini(&mm);

	/* Alternate pages cleared and dirty: every buddy pair is kept apart. */
	ASSERT_EQ(drm_buddy_init(&mm, mm_size, ps), 0);
	for (uint64_t i = 0; i < mm_size / ps; i++)
		ASSERT_EQ(
		    drm_buddy_alloc_blocks(&mm, 0, mm_size, ps, ps, i % 2 ? &clean : &dirty, 0), 0);
	drm_buddy_free_list(&mm, &clean, DRM_BUDDY_CLEARED);
	drm_buddy_free_list(&mm, &dirty, 0);
	EXPECT_UEQ(mm.clear_avail, mm_size / 2);
	EXPECT_UEQ(drm_buddy_largest_free(&mm), ps);
	for (unsigned order = 1; order <= max_order; order++) {
		size = SZ_4K << order;
		/* Only forced merges can make a block this large. */
		ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm_size, size, size, &allocated,
						 DRM_BUDDY_CLEAR_ALLOCATION),
			  0);
		total = 0;
		list_for_each_entry (block, &allocated, struct drm_buddy_block, link) {
			if (size != mm_size)
				EXPECT_FALSE(drm_buddy_block_is_clear(block));
			total += drm_buddy_block_size(&mm, block);
		}
		EXPECT_UEQ(total, size);
		drm_buddy_free_list(&mm, &allocated, 0);
		for (unsigned r = 0; r < mm.n_roots; r++)
			ASSERT_TRUE(max_free_exact(mm.roots[r]));
	}
	EXPECT_UEQ(drm_buddy_avail(&mm), mm_size);
	drm_buddy_fini(&mm);

	/* Several roots, freed as cleared: fini merges across them without leaks. */
	mm_size = 12 * SZ_4K;
	size = (1 + ktest_rand() % 12) * ps;
	ASSERT_EQ(drm_buddy_init(&mm, mm_size, ps), 0);
	ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 0, mm_size, size, ps, &allocated,
					 DRM_BUDDY_TOPDOWN_ALLOCATION),
		  0);
	drm_buddy_free_list(&mm, &allocated, DRM_BUDDY_CLEARED);
	EXPECT_UEQ(mm.clear_avail, size);
	drm_buddy_fini(&mm);
}

/*
 * drm_buddy_reset_clear(): every free block takes the new state, the
 * buddies kept apart merge, and clear_avail follows.
 */
KTEST(drm_buddy_reset_clear_merges_and_marks)
{
	struct list_head a = LIST_HEAD_INIT(a), b = LIST_HEAD_INIT(b), c = LIST_HEAD_INIT(c);
	struct drm_buddy mm;

	ASSERT_EQ(drm_buddy_init(&mm, SZ_1M, SZ_4K), 0);
	for (unsigned i = 0; i < 64; i++)
		ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 0, SZ_1M, SZ_4K, SZ_4K, i % 2 ? &a : &b, 0),
			  0);
	drm_buddy_free_list(&mm, &a, DRM_BUDDY_CLEARED);
	drm_buddy_free_list(&mm, &b, 0);
	EXPECT_UEQ(mm.clear_avail, 32 * SZ_4K);
	EXPECT_ULE(drm_buddy_largest_free(&mm), SZ_1M / 2);
	drm_buddy_reset_clear(&mm, true);
	EXPECT_UEQ(mm.clear_avail, SZ_1M);
	EXPECT_UEQ(drm_buddy_largest_free(&mm), SZ_1M);
	ASSERT_EQ(drm_buddy_alloc_blocks(&mm, 0, SZ_1M, SZ_1M, SZ_4K, &c, 0), 0);
	EXPECT_TRUE(drm_buddy_block_is_clear(list_first_entry(&c, struct drm_buddy_block, link)));
	EXPECT_UEQ(mm.clear_avail, 0);
	drm_buddy_free_list(&mm, &c, DRM_BUDDY_CLEARED);
	drm_buddy_reset_clear(&mm, false);
	EXPECT_UEQ(mm.clear_avail, 0);
	EXPECT_TRUE(only_roots_free(&mm));
	drm_buddy_fini(&mm);
}

/* One allocation of exactly one block of 2^@order chunks, anywhere in @mm; moved to @to. */
static int alloc_order(struct drm_buddy *mm, unsigned int order, struct list_head *to)
{
	uint64_t size = mm->chunk_size << order;
	struct list_head tmp;
	int ret;

	INIT_LIST_HEAD(&tmp);
	ret = drm_buddy_alloc_blocks(mm, 0, mm->size, size, size, &tmp, 0);
	if (ret)
		return ret;
	if (list_empty(&tmp) || tmp.next->next != &tmp) {
		drm_buddy_free_list(mm, &tmp, 0);
		return -EPROTO;
	}
	list_splice_tail_init(&tmp, to);
	return 0;
}

/* Free the first block of @blocks (the largest still held, in these cases). */
static void free_first(struct drm_buddy *mm, struct list_head *blocks)
{
	struct drm_buddy_block *b = list_first_entry(blocks, struct drm_buddy_block, link);

	list_del_init(&b->link);
	drm_buddy_free_block(mm, b);
}

/*
 * The kernel's KUnit drm_test_buddy_alloc_limit: the largest possible space
 * (size U64_MAX) has max_order DRM_BUDDY_MAX_ORDER, and its biggest block,
 * 2^63 bytes, is handed out as one block of that order.
 */
KTEST(drm_test_buddy_alloc_limit)
{
	struct drm_buddy mm;
	struct drm_buddy_block *b;
	struct list_head blocks;
	uint64_t size;

	INIT_LIST_HEAD(&blocks);
	ASSERT_EQ(drm_buddy_init(&mm, UINT64_MAX, SZ_4K), 0);
	EXPECT_EQ(mm.max_order, DRM_BUDDY_MAX_ORDER);
	size = mm.chunk_size << mm.max_order;
	EXPECT_EQ(drm_buddy_alloc_blocks(&mm, 0, size, size, mm.chunk_size, &blocks, 0), 0);
	ASSERT_FALSE(list_empty(&blocks));
	b = list_first_entry(&blocks, struct drm_buddy_block, link);
	EXPECT_EQ(drm_buddy_block_order(b), mm.max_order);
	EXPECT_UEQ(drm_buddy_block_size(&mm, b), 1ull << 63);
	EXPECT_TRUE(b->link.next == &blocks);
	drm_buddy_free_list(&mm, &blocks, 0);
	drm_buddy_fini(&mm);
}

/*
 * The kernel's KUnit drm_test_buddy_alloc_optimistic: a space with one free
 * root of every order 0..16 serves one block of every order, then is full.
 */
KTEST(drm_test_buddy_alloc_optimistic)
{
	const unsigned int max_order = 16;
	struct list_head blocks, tmp;
	struct drm_buddy mm;

	INIT_LIST_HEAD(&blocks);
	INIT_LIST_HEAD(&tmp);
	ASSERT_EQ(drm_buddy_init(&mm, SZ_4K * ((1ull << (max_order + 1)) - 1), SZ_4K), 0);
	EXPECT_EQ(mm.max_order, max_order);
	for (unsigned int order = 0; order <= max_order; order++)
		ASSERT_EQ(alloc_order(&mm, order, &blocks), 0);
	EXPECT_NE(drm_buddy_alloc_blocks(&mm, 0, mm.size, SZ_4K, SZ_4K, &tmp, 0), 0);
	EXPECT_TRUE(list_empty(&tmp));
	EXPECT_UEQ(drm_buddy_avail(&mm), 0);
	drm_buddy_free_list(&mm, &blocks, 0);
	EXPECT_TRUE(only_roots_free(&mm));
	drm_buddy_fini(&mm);
}

/*
 * The kernel's KUnit drm_test_buddy_alloc_pessimistic: one block of every
 * order below 16 and one last page fill a 2^16-page space; nothing more fits.
 * Freeing the last page and then the blocks smallest first makes a block of
 * the next order allocatable after each free (the merges happen), and at the
 * end the whole space is one block again.
 */
KTEST(drm_test_buddy_alloc_pessimistic)
{
	const unsigned int max_order = 16;
	struct list_head blocks, tmp;
	struct drm_buddy mm;
	unsigned int order;

	INIT_LIST_HEAD(&blocks);
	INIT_LIST_HEAD(&tmp);
	ASSERT_EQ(drm_buddy_init(&mm, SZ_4K << max_order, SZ_4K), 0);
	EXPECT_EQ(mm.max_order, max_order);
	for (order = 0; order < max_order; order++)
		ASSERT_EQ(alloc_order(&mm, order, &blocks), 0);
	ASSERT_EQ(alloc_order(&mm, 0, &blocks), 0);
	for (order = max_order; order--;)
		EXPECT_NE(alloc_order(&mm, order, &tmp), 0);
	EXPECT_TRUE(list_empty(&tmp));

	/* The last page first, then the blocks in increasing size. */
	{
		struct drm_buddy_block *last =
		    list_entry(blocks.prev, struct drm_buddy_block, link);

		list_del_init(&last->link);
		drm_buddy_free_block(&mm, last);
	}
	order = 1;
	while (!list_empty(&blocks)) {
		free_first(&mm, &blocks);
		ASSERT_EQ(alloc_order(&mm, order, &tmp), 0);
		free_first(&mm, &tmp);
		order++;
	}
	EXPECT_EQ(order, max_order + 1);
	ASSERT_EQ(alloc_order(&mm, max_order, &tmp), 0);
	free_first(&mm, &tmp);
	EXPECT_TRUE(only_roots_free(&mm));
	drm_buddy_fini(&mm);
}

/*
 * The kernel's KUnit drm_test_buddy_alloc_pathological: in a 2^3-page space,
 * allocate one block of every order below the top, then the one page left;
 * the top order no longer fits. Free the largest block and whittle down again
 * to one order less, until the space is fragmented: with the single pages
 * ("holes") freed, no block above one page can be had, although three pages
 * are free.
 */
KTEST(drm_test_buddy_alloc_pathological)
{
	const unsigned int max_order = 3;
	struct list_head blocks, holes, tmp;
	struct drm_buddy mm;
	unsigned int top, order;

	INIT_LIST_HEAD(&blocks);
	INIT_LIST_HEAD(&holes);
	INIT_LIST_HEAD(&tmp);
	ASSERT_EQ(drm_buddy_init(&mm, SZ_4K << max_order, SZ_4K), 0);
	EXPECT_EQ(mm.max_order, max_order);
	for (top = max_order; top; top--) {
		if (!list_empty(&blocks))
			free_first(&mm, &blocks);
		for (order = top; order--;)
			ASSERT_EQ(alloc_order(&mm, order, &blocks), 0);
		ASSERT_EQ(alloc_order(&mm, 0, &holes), 0);
		EXPECT_NE(alloc_order(&mm, top, &tmp), 0);
	}
	drm_buddy_free_list(&mm, &holes, 0);
	/* Free now: the three holes, none next to another. */
	EXPECT_UEQ(drm_buddy_avail(&mm), max_order * SZ_4K);
	for (order = 1; order <= max_order; order++)
		EXPECT_NE(alloc_order(&mm, order, &tmp), 0);
	EXPECT_TRUE(list_empty(&tmp));
	drm_buddy_free_list(&mm, &blocks, 0);
	EXPECT_TRUE(only_roots_free(&mm));
	drm_buddy_fini(&mm);
}
