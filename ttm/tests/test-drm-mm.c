// SPDX-License-Identifier: MIT
/* drm_mm: placement modes, alignment, ranges, reserve, errors, random churn, eviction scan. */
#include <errno.h>
#include <stdlib.h>

#include <ttm/drm_mm.h>

#include "ktest.h"

#define MM_SIZE (1ull << 20)

KTEST(drm_mm_init_errors)
{
	struct drm_mm mm;

	EXPECT_EQ(drm_mm_init(&mm, 0, 0), -EINVAL);
	EXPECT_EQ(drm_mm_init(&mm, UINT64_MAX - 10, 11), -EINVAL);
	ASSERT_EQ(drm_mm_init(&mm, 4096, MM_SIZE), 0);
	EXPECT_TRUE(drm_mm_clean(&mm));
	EXPECT_EQ(drm_mm_check(&mm), 0);
	drm_mm_takedown(&mm);
}

KTEST(drm_mm_insert_errors)
{
	struct drm_mm mm;
	struct drm_mm_node n = {0}, big = {0};

	ASSERT_EQ(drm_mm_init(&mm, 0, MM_SIZE), 0);
	EXPECT_EQ(drm_mm_insert_node(&mm, &n, 0, 0, 0, DRM_MM_INSERT_BEST), -EINVAL);
	EXPECT_EQ(drm_mm_insert_node(&mm, &n, 16, 3, 0, DRM_MM_INSERT_BEST), -EINVAL);
	EXPECT_EQ(drm_mm_insert_node_in_range(&mm, &n, 16, 0, 0, 100, 50, DRM_MM_INSERT_LOW),
		  -EINVAL);
	EXPECT_EQ(drm_mm_insert_node_in_range(&mm, &n, 16, 0, 0, 0, MM_SIZE + 1, DRM_MM_INSERT_LOW),
		  -EINVAL);
	EXPECT_EQ(drm_mm_insert_node(&mm, &n, MM_SIZE + 1, 0, 0, DRM_MM_INSERT_LOW), -ENOSPC);
	ASSERT_EQ(drm_mm_insert_node(&mm, &big, MM_SIZE, 0, 0, DRM_MM_INSERT_HIGH), 0);
	EXPECT_EQ(drm_mm_insert_node(&mm, &n, 1, 0, 0, DRM_MM_INSERT_BEST), -ENOSPC);
	EXPECT_EQ(drm_mm_insert_node(&mm, &big, 1, 0, 0, DRM_MM_INSERT_BEST), -EINVAL);
	EXPECT_FALSE(drm_mm_node_allocated(&n));
	EXPECT_EQ(drm_mm_check(&mm), 0);
	{
		struct drm_mm_scan scan;

		EXPECT_EQ(
		    drm_mm_scan_init_with_range(&scan, &mm, 0, 0, 0, 0, MM_SIZE, DRM_MM_INSERT_LOW),
		    -EINVAL);
		EXPECT_EQ(drm_mm_scan_init_with_range(&scan, &mm, 16, 6, 0, 0, MM_SIZE,
						      DRM_MM_INSERT_LOW),
			  -EINVAL);
		EXPECT_EQ(drm_mm_scan_init_with_range(&scan, &mm, 16, 0, 0, 0, MM_SIZE * 2,
						      DRM_MM_INSERT_LOW),
			  -EINVAL);
	}
	drm_mm_remove_node(&mm, &big);
	EXPECT_TRUE(drm_mm_clean(&mm));
	EXPECT_EQ(drm_mm_check(&mm), 0);
	drm_mm_takedown(&mm);
}

/* Nodes at 0..9 x 4 KiB with gaps of 1, 3, 2 pages: the modes pick different holes. */
KTEST(drm_mm_insert_modes_pick_their_hole)
{
	struct drm_mm mm;
	struct drm_mm_node fixed[3] = {{.start = 4096, .size = 4096},
				       {.start = 4 * 4096, .size = 4096},
				       {.start = 7 * 4096, .size = 4096}};
	struct drm_mm_node n = {0};
	int i;

	ASSERT_EQ(drm_mm_init(&mm, 0, 10 * 4096), 0);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(drm_mm_reserve_node(&mm, &fixed[i]), 0);
	/* Holes: [0,1) [2,4) [5,7) [8,10) pages. */
	ASSERT_EQ(drm_mm_insert_node(&mm, &n, 4096, 0, 0, DRM_MM_INSERT_LOW), 0);
	EXPECT_UEQ(n.start, 0);
	drm_mm_remove_node(&mm, &n);
	ASSERT_EQ(drm_mm_insert_node(&mm, &n, 4096, 0, 0, DRM_MM_INSERT_HIGH), 0);
	EXPECT_UEQ(n.start, 9 * 4096);
	drm_mm_remove_node(&mm, &n);
	ASSERT_EQ(drm_mm_insert_node(&mm, &n, 2 * 4096, 0, 0, DRM_MM_INSERT_LOW), 0);
	EXPECT_UEQ(n.start, 2 * 4096);
	drm_mm_remove_node(&mm, &n);
	/* BEST: the one-page hole for one page. */
	ASSERT_EQ(
	    drm_mm_insert_node_in_range(&mm, &n, 4096, 0, 0, 4096, 10 * 4096, DRM_MM_INSERT_BEST),
	    0);
	EXPECT_EQ(drm_mm_check(&mm), 0);
	EXPECT_UEQ(n.start % 4096, 0);
	EXPECT_TRUE(n.start >= 2 * 4096);
	drm_mm_remove_node(&mm, &n);
	/* Alignment 8 KiB with HIGH: highest aligned start is 8 pages. */
	ASSERT_EQ(drm_mm_insert_node(&mm, &n, 4096, 8192, 0, DRM_MM_INSERT_HIGH), 0);
	EXPECT_UEQ(n.start, 8 * 4096);
	drm_mm_remove_node(&mm, &n);
	/* Alignment 4 pages, LOW, range from page 1: page 8. */
	ASSERT_EQ(drm_mm_insert_node_in_range(&mm, &n, 4096, 4 * 4096, 0, 4096, 10 * 4096,
					      DRM_MM_INSERT_LOW),
		  0);
	EXPECT_UEQ(n.start, 8 * 4096);
	drm_mm_remove_node(&mm, &n);
	/* Range restricted to pages [5, 7): two pages fit exactly, three do not. */
	ASSERT_EQ(drm_mm_insert_node_in_range(&mm, &n, 2 * 4096, 0, 0, 5 * 4096, 7 * 4096,
					      DRM_MM_INSERT_HIGH),
		  0);
	EXPECT_UEQ(n.start, 5 * 4096);
	drm_mm_remove_node(&mm, &n);
	EXPECT_EQ(drm_mm_insert_node_in_range(&mm, &n, 3 * 4096, 0, 0, 4 * 4096, 8 * 4096,
					      DRM_MM_INSERT_BEST),
		  -ENOSPC);
	for (i = 0; i < 3; i++)
		drm_mm_remove_node(&mm, &fixed[i]);
	EXPECT_EQ(drm_mm_check(&mm), 0);
	drm_mm_takedown(&mm);
}

KTEST(drm_mm_insert_best_takes_smallest_hole)
{
	struct drm_mm mm;
	struct drm_mm_node fixed[3] = {
	    {.start = 10, .size = 10}, {.start = 25, .size = 10}, {.start = 38, .size = 10}};
	struct drm_mm_node n = {0};
	int i;

	/* Holes: [0,10) [20,25) [35,38) [48,100). */
	ASSERT_EQ(drm_mm_init(&mm, 0, 100), 0);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(drm_mm_reserve_node(&mm, &fixed[i]), 0);
	ASSERT_EQ(drm_mm_insert_node(&mm, &n, 3, 0, 0, DRM_MM_INSERT_BEST), 0);
	EXPECT_UEQ(n.start, 35);
	drm_mm_remove_node(&mm, &n);
	ASSERT_EQ(drm_mm_insert_node(&mm, &n, 4, 0, 0, DRM_MM_INSERT_BEST), 0);
	EXPECT_UEQ(n.start, 20);
	drm_mm_remove_node(&mm, &n);
	ASSERT_EQ(drm_mm_insert_node(&mm, &n, 11, 0, 0, DRM_MM_INSERT_BEST), 0);
	EXPECT_UEQ(n.start, 48);
	drm_mm_remove_node(&mm, &n);
	for (i = 0; i < 3; i++)
		drm_mm_remove_node(&mm, &fixed[i]);
	drm_mm_takedown(&mm);
}

KTEST(drm_mm_reserve_node_occupied_and_outside)
{
	struct drm_mm mm;
	struct drm_mm_node a = {.start = 100, .size = 50}, b = {0};
	struct drm_mm_node *pos;
	int count = 0;

	ASSERT_EQ(drm_mm_init(&mm, 64, 1000), 0);
	ASSERT_EQ(drm_mm_reserve_node(&mm, &a), 0);
	b = (struct drm_mm_node){.start = 149, .size = 10};
	EXPECT_EQ(drm_mm_reserve_node(&mm, &b), -ENOSPC);
	b = (struct drm_mm_node){.start = 90, .size = 11};
	EXPECT_EQ(drm_mm_reserve_node(&mm, &b), -ENOSPC);
	b = (struct drm_mm_node){.start = 0, .size = 10};
	EXPECT_EQ(drm_mm_reserve_node(&mm, &b), -EINVAL);
	b = (struct drm_mm_node){.start = 1000, .size = 65};
	EXPECT_EQ(drm_mm_reserve_node(&mm, &b), -EINVAL);
	b = (struct drm_mm_node){.start = 200, .size = 0};
	EXPECT_EQ(drm_mm_reserve_node(&mm, &b), -EINVAL);
	b = (struct drm_mm_node){.start = 150, .size = 914};
	EXPECT_EQ(drm_mm_reserve_node(&mm, &b), 0);
	EXPECT_EQ(drm_mm_check(&mm), 0);
	/* The checker notices a hole recorded with the wrong size. */
	a.hole_size++;
	EXPECT_EQ(drm_mm_check(&mm), -EINVAL);
	a.hole_size--;
	EXPECT_EQ(drm_mm_check(&mm), 0);
	drm_mm_for_each_node (pos, &mm)
		count++;
	EXPECT_EQ(count, 2);
	EXPECT_EQ(drm_mm_first_node(&mm), &a);
	drm_mm_remove_node(&mm, &a);
	drm_mm_remove_node(&mm, &b);
	EXPECT_TRUE(drm_mm_clean(&mm));
	drm_mm_takedown(&mm);
}

static bool overlaps(const struct drm_mm_node *n, const struct drm_mm_node *nodes, int count)
{
	for (int i = 0; i < count; i++)
		if (&nodes[i] != n && nodes[i].allocated && nodes[i].start < n->start + n->size &&
		    n->start < nodes[i].start + nodes[i].size)
			return true;
	return false;
}

/*
 * Brute force over the node list: the start each mode must pick, and for BEST
 * the size of the hole it must pick from. Return false when nothing fits.
 */
static bool reference_fit(struct drm_mm *mm, uint64_t lo, uint64_t hi, uint64_t size,
			  uint64_t align, uint64_t rs, uint64_t re, enum drm_mm_insert_mode mode,
			  uint64_t *start, uint64_t *best_hole)
{
	struct drm_mm_node *n = drm_mm_first_node(mm);
	uint64_t hs = lo;
	bool found = false;

	if (align < 1)
		align = 1;
	for (;;) {
		uint64_t he = n ? n->start : hi;
		uint64_t as = hs > rs ? hs : rs, ae = he < re ? he : re, s;

		if (ae > as && ae - as >= size) {
			bool fits;

			if (mode == DRM_MM_INSERT_HIGH) {
				s = (ae - size) / align * align;
				fits = s >= as;
			} else {
				s = (as + align - 1) / align * align;
				fits = s + size <= ae;
			}
			if (fits) {
				if (!found || (mode == DRM_MM_INSERT_LOW && s < *start) ||
				    (mode == DRM_MM_INSERT_HIGH && s > *start) ||
				    (mode == DRM_MM_INSERT_BEST && he - hs < *best_hole)) {
					*start = s;
					*best_hole = he - hs;
				}
				found = true;
			}
		}
		if (!n)
			break;
		hs = n->start + n->size;
		n = drm_mm_next_node(mm, n);
	}
	return found;
}

/* Size of the hole that @n was carved from (its free neighbours plus itself). */
static uint64_t hole_around(struct drm_mm *mm, struct drm_mm_node *n, uint64_t lo, uint64_t hi)
{
	struct drm_mm_node *pos, *prev = NULL, *next;
	uint64_t hs = lo, he;

	drm_mm_for_each_node (pos, mm) {
		if (pos == n)
			break;
		prev = pos;
	}
	if (prev)
		hs = prev->start + prev->size;
	next = drm_mm_next_node(mm, n);
	he = next ? next->start : hi;
	return he - hs;
}

/* Random churn with every mode, checked after each step against a slow reference. */
KTEST(drm_mm_insert_remove_random)
{
	enum { N = 200 };
	static struct drm_mm_node nodes[N];
	struct drm_mm mm;
	unsigned iters = 20000 * ktest_scale(), placed = 0, refused = 0;

	memset(nodes, 0, sizeof(nodes));
	ASSERT_EQ(drm_mm_init(&mm, 1ull << 32, MM_SIZE), 0);
	for (unsigned it = 0; it < iters; it++) {
		struct drm_mm_node *n = &nodes[ktest_rand() % N];

		if (n->allocated) {
			drm_mm_remove_node(&mm, n);
		} else {
			uint64_t size = 1 + ktest_rand() % 8192;
			uint64_t align = (ktest_rand() % 3) ? 1ull << (ktest_rand() % 14) : 0;
			uint64_t rs = (1ull << 32) + ktest_rand() % (MM_SIZE / 2);
			uint64_t re = rs + 1 + ktest_rand() % (MM_SIZE / 2);
			enum drm_mm_insert_mode mode = (enum drm_mm_insert_mode)(ktest_rand() % 3);
			int ret;

			if (ktest_rand() % 4 == 0) {
				n->start = rs;
				n->size = size;
				ret = drm_mm_reserve_node(&mm, n);
				if (!ret)
					EXPECT_UEQ(n->start, rs);
			} else {
				uint64_t want = 0, want_hole = 0;
				bool fits =
				    reference_fit(&mm, 1ull << 32, (1ull << 32) + MM_SIZE, size,
						  align, rs, re, mode, &want, &want_hole);

				ret = drm_mm_insert_node_in_range(&mm, n, size, align, it, rs, re,
								  mode);
				EXPECT_EQ(ret, fits ? 0 : -ENOSPC);
				if (!ret && mode != DRM_MM_INSERT_BEST)
					EXPECT_UEQ(n->start, want);
				if (!ret && mode == DRM_MM_INSERT_BEST)
					EXPECT_UEQ(
					    hole_around(&mm, n, 1ull << 32, (1ull << 32) + MM_SIZE),
					    want_hole);
				if (!ret) {
					EXPECT_TRUE(n->start >= rs && n->start + size <= re);
					if (align)
						EXPECT_UEQ(n->start % align, 0);
					EXPECT_UEQ(n->color, it);
				}
			}
			EXPECT_TRUE(ret == 0 || ret == -ENOSPC);
			if (!ret)
				EXPECT_FALSE(overlaps(n, nodes, N));
			if (ret)
				refused++;
			else
				placed++;
		}
		ASSERT_EQ(drm_mm_check(&mm), 0);
	}
	/* Both outcomes must have been exercised for the churn to mean anything. */
	EXPECT_GT(placed, iters / 10);
	EXPECT_GT(refused, 0);
	for (int i = 0; i < N; i++)
		if (nodes[i].allocated)
			drm_mm_remove_node(&mm, &nodes[i]);
	EXPECT_TRUE(drm_mm_clean(&mm));
	ASSERT_EQ(drm_mm_check(&mm), 0);
	drm_mm_takedown(&mm);
}

/*
 * Page-multiple sizes make many holes of equal size, so holes join and leave
 * size classes all the time (a class head leaving hands the class over):
 * BEST must still pick a hole of the smallest fitting size, and the trees must
 * stay consistent after every step.
 */
KTEST(drm_mm_insert_best_equal_size_holes)
{
	enum { N = 300 };
	static struct drm_mm_node nodes[N];
	struct drm_mm mm;
	unsigned iters = 20000 * ktest_scale(), best_checked = 0;

	memset(nodes, 0, sizeof(nodes));
	ASSERT_EQ(drm_mm_init(&mm, 0, (uint64_t)N * 3 * 4096), 0);
	for (unsigned it = 0; it < iters; it++) {
		struct drm_mm_node *n = &nodes[ktest_rand() % N];

		if (n->allocated) {
			drm_mm_remove_node(&mm, n);
		} else {
			uint64_t size = (1 + ktest_rand() % 3) * 4096, want = 0, want_hole = 0;
			bool fits = reference_fit(&mm, 0, (uint64_t)N * 3 * 4096, size, 1, 0,
						  (uint64_t)N * 3 * 4096, DRM_MM_INSERT_BEST, &want,
						  &want_hole);
			int ret = drm_mm_insert_node(&mm, n, size, 0, 0, DRM_MM_INSERT_BEST);

			EXPECT_EQ(ret, fits ? 0 : -ENOSPC);
			if (!ret) {
				EXPECT_UEQ(hole_around(&mm, n, 0, (uint64_t)N * 3 * 4096),
					   want_hole);
				best_checked++;
			}
		}
		ASSERT_EQ(drm_mm_check(&mm), 0);
	}
	EXPECT_GT(best_checked, iters / 10);
	for (int i = 0; i < N; i++)
		if (nodes[i].allocated)
			drm_mm_remove_node(&mm, &nodes[i]);
	EXPECT_TRUE(drm_mm_clean(&mm));
	ASSERT_EQ(drm_mm_check(&mm), 0);
	drm_mm_takedown(&mm);
}

#define MM_SCAN (40 * 1024)

/* Fill with random-sized nodes, scan in LRU order for a large block, evict the flagged, insert. */
KTEST(drm_mm_scan_evicts_then_insert_fits)
{
	enum { N = 64 };
	static struct drm_mm_node nodes[N];
	struct drm_mm_node *added[N], *evict[N];
	struct drm_mm mm;
	unsigned rounds = 50 * ktest_scale();

	ASSERT_EQ(drm_mm_init(&mm, 0, MM_SCAN), 0);
	for (unsigned r = 0; r < rounds; r++) {
		struct drm_mm_scan scan;
		struct drm_mm_node big = {0};
		enum drm_mm_insert_mode mode = (enum drm_mm_insert_mode)(r % 3);
		uint64_t size = 4096 + ktest_rand() % 16384, align = 1ull << (ktest_rand() % 13);
		int count = 0, nevict = 0, i, first = (int)(ktest_rand() % N);
		bool found = false;

		memset(nodes, 0, sizeof(nodes));
		for (i = 0; i < N; i++)
			if (drm_mm_insert_node(&mm, &nodes[i], 256 + ktest_rand() % 1024, 0, 0,
					       DRM_MM_INSERT_LOW))
				break;
		ASSERT_EQ(drm_mm_scan_init_with_range(&scan, &mm, size, align, 0, 0, MM_SCAN, mode),
			  0);
		/* LRU order: a random rotation of the array. */
		for (int k = 0; k < N && !found; k++) {
			struct drm_mm_node *n = &nodes[(first + k) % N];

			if (!n->allocated)
				continue;
			added[count++] = n;
			found = drm_mm_scan_add_block(&scan, n);
		}
		ASSERT_TRUE(found);
		EXPECT_EQ(drm_mm_insert_node(&mm, &big, 1, 0, 0, mode), -EBUSY);
		while (count--)
			if (drm_mm_scan_remove_block(&scan, added[count]))
				evict[nevict++] = added[count];
		ASSERT_EQ(drm_mm_check(&mm), 0);
		for (i = 0; i < nevict; i++)
			drm_mm_remove_node(&mm, evict[i]);
		ASSERT_EQ(drm_mm_check(&mm), 0);
		/* The hole the scan chose is free now. */
		big.start = scan.hit_start;
		big.size = size;
		EXPECT_EQ(drm_mm_reserve_node(&mm, &big), 0);
		if (big.allocated)
			drm_mm_remove_node(&mm, &big);
		EXPECT_EQ(drm_mm_insert_node_in_range(&mm, &big, size, align, 0, 0, MM_SCAN, mode),
			  0);
		if (big.allocated)
			drm_mm_remove_node(&mm, &big);
		for (i = 0; i < N; i++)
			if (nodes[i].allocated)
				drm_mm_remove_node(&mm, &nodes[i]);
	}
	EXPECT_TRUE(drm_mm_clean(&mm));
	drm_mm_takedown(&mm);
}
