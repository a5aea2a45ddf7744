// SPDX-License-Identifier: MIT
/*
 * CPU moves and access for VRAM made of scattered buddy blocks, and the
 * driver's eviction_valuable veto, on the shared mock device with a
 * buddy-managed VRAM of VRAM_PAGES pages, no TT (evictions go to SYSTEM)
 * and this file's eviction_valuable: it refuses the BOs the test marked
 * and tells a waiting thread each time it did (the cases where another
 * thread holds a victim order their steps by it).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_buddy_manager.h>

#include "../ttm_bo_internal.h"
#include "ktest.h"
#include "ttm_test_helpers.h"

#define PAGE TTM_PAGE_SIZE
#define VRAM_PAGES 16

/**
 * struct evict_dev - the device of a case and what its veto saw.
 * @tdev: the shared mock device.
 * @lock: protects @refusals; @refused is signalled with each refusal.
 * @refusals: eviction_valuable calls that said no.
 */
struct evict_dev {
	struct testlib_mock_device tdev;
	pthread_mutex_t lock;
	pthread_cond_t refused;
	unsigned long refusals;
};

static struct evict_dev edev;

/* drv_priv of a BO eviction_valuable refuses. */
static char refuse_tag;

static bool edev_eviction_valuable(struct ttm_buffer_object *bo, const struct ttm_place *place)
{
	(void)place;
	if (bo->drv_priv == &refuse_tag) {
		pthread_mutex_lock(&edev.lock);
		edev.refusals++;
		pthread_cond_broadcast(&edev.refused);
		pthread_mutex_unlock(&edev.lock);
		return false;
	}
	return true;
}

static unsigned long edev_refusals(void)
{
	unsigned long n;

	pthread_mutex_lock(&edev.lock);
	n = edev.refusals;
	pthread_mutex_unlock(&edev.lock);
	return n;
}

static void edev_init(void)
{
	struct testlib_mock_cfg cfg = {
	    .vram_pages = VRAM_PAGES,
	    .vram_buddy = true,
	    .eviction_valuable = edev_eviction_valuable,
	};

	memset(&edev, 0, sizeof(edev));
	pthread_mutex_init(&edev.lock, NULL);
	pthread_cond_init(&edev.refused, NULL);
	if (testlib_mock_device_init(&edev.tdev, &cfg))
		ktest_abort_case();
}

static void edev_fini(void)
{
	EXPECT_EQ(testlib_mock_device_fini(&edev.tdev), 0);
	pthread_cond_destroy(&edev.refused);
	pthread_mutex_destroy(&edev.lock);
}

static struct ttm_resource_manager *vram_man(void)
{
	return &edev.tdev.vram_buddy.manager;
}

/* An unreserved device BO of @pages in @type with drv_priv @priv (ASSERT-checked). */
static struct ttm_buffer_object *bo_new(unsigned pages, unsigned type, void *priv)
{
	struct ttm_buffer_object *bo = NULL;

	ASSERT_EQ(ttm_test_bo_create_in(&edev.tdev.bdev, (uint64_t)pages * PAGE, type, &bo), 0);
	bo->drv_priv = priv;
	return bo;
}

/*
 * Leave VRAM with holes: eight 2-page BOs fill it, the odd ones go, so
 * only 2-page holes at pages 2, 6, 10 and 14 are free. The even ones are
 * returned in @keep[4].
 */
static void vram_fragment(struct ttm_buffer_object **keep)
{
	struct ttm_buffer_object *bos[8];

	for (unsigned i = 0; i < 8; i++)
		bos[i] = bo_new(2, TTM_PL_VRAM, NULL);
	for (unsigned i = 0; i < 8; i++) {
		if (i & 1)
			ttm_bo_put(bos[i]);
		else
			keep[i / 2] = bos[i];
	}
}

/*
 * Does @bo's VRAM content, read straight from the host buffer piece by
 * piece, equal @expect? Proves the copies used the blocks themselves and
 * not a linear window running past the first one.
 */
static bool vram_raw_equals(struct ttm_buffer_object *bo, const char *expect)
{
	struct ttm_resource *res = bo->resource;
	const char *base = (const char *)edev.tdev.vram_mem + (res->start << TTM_PAGE_SHIFT);

	for (uint64_t off = 0; off < bo->size;) {
		uint64_t len;
		uint64_t at = ttm_resource_io_segment(vram_man(), res, off, &len);

		if (!len)
			return false;
		if (len > bo->size - off)
			len = bo->size - off;
		if (memcmp(base + at, expect + off, len))
			return false;
		off += len;
	}
	return true;
}

KTEST(ttm_resource_io_segment_buddy_blocks)
{
	struct ttm_buffer_object *keep[4], *bo;
	struct ttm_resource *res;
	uint64_t len, off;

	edev_init();
	vram_fragment(keep);
	bo = bo_new(8, TTM_PL_VRAM, NULL);
	res = bo->resource;
	ASSERT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	EXPECT_FALSE(ttm_resource_is_linear(vram_man(), res));

	/*
	 * Four 2-page pieces at pages 2, 6, 10, 14 in the buddy's order
	 * (start is the lowest, page 2).
	 */
	EXPECT_UEQ(res->start, 2);
	off = ttm_resource_io_segment(vram_man(), res, 0, &len);
	EXPECT_UEQ(off % (4 * PAGE), 0);
	EXPECT_UEQ(len, 2 * PAGE);
	off = ttm_resource_io_segment(vram_man(), res, 2 * PAGE + 5, &len);
	EXPECT_UEQ(off % PAGE, 5);
	EXPECT_UEQ(len, 2 * PAGE - 5);
	off = ttm_resource_io_segment(vram_man(), res, res->size, &len);
	EXPECT_UEQ(len, 0);

	/* Every piece is distinct and together they are the whole resource. */
	{
		uint64_t seen = 0, total = 0;

		for (uint64_t o = 0; o < res->size; o += len) {
			uint64_t at = ttm_resource_io_segment(vram_man(), res, o, &len);
			unsigned first = (unsigned)(at / PAGE);

			ASSERT_GE(len, PAGE);
			for (unsigned p = first; p < first + len / PAGE; p++) {
				EXPECT_FALSE(seen & (1ull << p));
				seen |= 1ull << p;
			}
			total += len;
		}
		EXPECT_UEQ(total, res->size);
	}

	ttm_bo_put(bo);
	for (unsigned i = 0; i < 4; i++)
		ttm_bo_put(keep[i]);
	edev_fini();
}

KTEST(ttm_bo_move_memcpy_buddy_scattered)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *keep[4], *bo;
	char *pattern;

	edev_init();
	for (unsigned i = 0; i < 4; i++)
		keep[i] = NULL;
	vram_fragment(keep);
	for (unsigned i = 0; i < 4; i++)
		ASSERT_EQ(ttm_test_bo_reserve_fill(keep[i], 100 + i), 0);

	/* SYSTEM -> scattered VRAM: the content lands block by block. */
	bo = bo_new(8, TTM_PL_SYSTEM, NULL);
	ASSERT_EQ(ttm_test_bo_reserve_fill(bo, 7), 0);
	ASSERT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	ASSERT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	EXPECT_FALSE(ttm_resource_is_linear(vram_man(), bo->resource));
	EXPECT_UEQ(ctx.bytes_moved, 8 * PAGE);

	pattern = malloc(8 * PAGE);
	ASSERT_NOT_NULL(pattern);
	ttm_bo_reserve(bo, false, false, NULL);
	EXPECT_EQ(ttm_test_bo_verify(bo, 7), 0);
	/* Read the reference back from SYSTEM after the round trip below. */
	ttm_bo_unreserve(bo);

	/* Scattered VRAM -> SYSTEM and back: identical, neighbours untouched. */
	ASSERT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_SYSTEM, 0, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 7), 0);
	ttm_bo_reserve(bo, false, false, NULL);
	EXPECT_EQ(ttm_bo_access(bo, 0, pattern, 8 * PAGE, false, &ctx), 0);
	ttm_bo_unreserve(bo);
	ASSERT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	EXPECT_FALSE(ttm_resource_is_linear(vram_man(), bo->resource));
	EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 7), 0);
	EXPECT_TRUE(vram_raw_equals(bo, pattern));
	for (unsigned i = 0; i < 4; i++)
		EXPECT_EQ(ttm_test_bo_reserve_verify(keep[i], 100 + i), 0);

	free(pattern);
	ttm_bo_put(bo);
	for (unsigned i = 0; i < 4; i++)
		ttm_bo_put(keep[i]);
	edev_fini();
}

KTEST(ttm_bo_access_buddy_across_blocks)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *keep[4], *bo;
	char in[3 * PAGE], out[3 * PAGE];

	edev_init();
	vram_fragment(keep);
	bo = bo_new(8, TTM_PL_VRAM, NULL);
	ASSERT_FALSE(ttm_resource_is_linear(vram_man(), bo->resource));
	for (unsigned i = 0; i < sizeof(in); i++)
		in[i] = (char)(i * 7 + 3);

	/* Unaligned, spanning the piece boundaries at 2 and 4 pages. */
	ttm_bo_reserve(bo, false, false, NULL);
	EXPECT_EQ(ttm_bo_access(bo, PAGE + 123, in, sizeof(in), true, &ctx), 0);
	memset(out, 0, sizeof(out));
	EXPECT_EQ(ttm_bo_access(bo, PAGE + 123, out, sizeof(out), false, &ctx), 0);
	EXPECT_MEMEQ(in, out, sizeof(in));
	EXPECT_EQ(ttm_bo_access(bo, 8 * PAGE - 1, out, 2, false, &ctx), -EINVAL);
	ttm_bo_unreserve(bo);

	/* The bytes survive a move out, as written. */
	ASSERT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_SYSTEM, 0, &ctx), 0);
	ttm_bo_reserve(bo, false, false, NULL);
	memset(out, 0, sizeof(out));
	EXPECT_EQ(ttm_bo_access(bo, PAGE + 123, out, sizeof(out), false, &ctx), 0);
	EXPECT_MEMEQ(in, out, sizeof(in));
	ttm_bo_unreserve(bo);

	ttm_bo_put(bo);
	for (unsigned i = 0; i < 4; i++)
		ttm_bo_put(keep[i]);
	edev_fini();
}

KTEST(ttm_bo_validate_eviction_valuable_refuses)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bos[4], *bo;

	edev_init();
	/* The two least recently used are vetoed by the driver. */
	for (unsigned i = 0; i < 4; i++) {
		bos[i] = bo_new(4, TTM_PL_VRAM, i < 2 ? &refuse_tag : NULL);
		ASSERT_EQ(ttm_test_bo_reserve_fill(bos[i], 20 + i), 0);
	}

	bo = bo_new(4, TTM_PL_SYSTEM, NULL);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	EXPECT_UEQ(ctx.evictions, 1);
	EXPECT_GE(edev_refusals(), 2);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[0]), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[1]), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[2]), TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_mem_type(bos[3]), TTM_PL_VRAM);

	/* Only vetoed BOs (and the new one, which is in use) left to take. */
	ttm_bo_put(bo);
	bo = NULL;
	bos[3]->drv_priv = &refuse_tag;
	{
		struct ttm_buffer_object *big = bo_new(8, TTM_PL_SYSTEM, NULL);
		uint64_t evictions = ctx.evictions;

		EXPECT_EQ(ttm_test_bo_validate_to(big, TTM_PL_VRAM, 0, &ctx), -ENOMEM);
		EXPECT_EQ(ttm_test_bo_mem_type(big), TTM_PL_SYSTEM);
		EXPECT_UEQ(ctx.evictions, evictions);
		ttm_bo_put(big);
	}
	for (unsigned i = 0; i < 4; i++) {
		EXPECT_EQ(ttm_test_bo_reserve_verify(bos[i], 20 + i), 0);
		ttm_bo_put(bos[i]);
	}
	edev_fini();
}

KTEST(ttm_buddy_manager_fini_refused_while_bo_remains)
{
	struct ttm_buffer_object *bo;

	edev_init();
	bo = bo_new(4, TTM_PL_VRAM, NULL);
	EXPECT_EQ(ttm_buddy_manager_fini(&edev.tdev.vram_buddy), -EBUSY);
	/* Still fully working: the BO can be used and moved. */
	EXPECT_EQ(ttm_test_bo_reserve_fill(bo, 5), 0);
	EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 5), 0);
	ttm_bo_put(bo);
	edev_fini();
}

/*
 * Random validates between SYSTEM and a small scattered VRAM: evictions
 * and fragmentation move every BO through many different block layouts,
 * and no byte of any BO may change.
 */
KTEST(ttm_bo_validate_buddy_random_content_preserved)
{
	enum { NBO = 6 };
	struct ttm_buffer_object *bos[NBO];
	unsigned steps = 200 * ktest_scale();
	unsigned failures = 0, scattered = 0;

	edev_init();
	for (unsigned i = 0; i < NBO; i++) {
		/* 3 or 5 pages: never one buddy block. */
		bos[i] = bo_new(ktest_rand() % 2 ? 3 : 5, TTM_PL_SYSTEM, NULL);
		ASSERT_EQ(ttm_test_bo_reserve_fill(bos[i], 500 + i), 0);
	}
	for (unsigned s = 0; s < steps; s++) {
		struct ttm_operation_ctx ctx = {0};
		unsigned i = (unsigned)(ktest_rand() % NBO);
		unsigned type = ktest_rand() % 3 ? TTM_PL_VRAM : TTM_PL_SYSTEM;
		int ret = ttm_test_bo_validate_to(bos[i], type, 0, &ctx);

		/* Nothing is pinned or busy: every validate must find room. */
		EXPECT_EQ(ret, 0);
		if (!ret)
			EXPECT_EQ(ttm_test_bo_mem_type(bos[i]), type);
		if (!ret && type == TTM_PL_VRAM &&
		    !ttm_resource_is_linear(vram_man(), bos[i]->resource))
			scattered++;
		for (unsigned j = 0; j < NBO; j++)
			if (ttm_test_bo_reserve_verify(bos[j], 500 + j))
				failures++;
		if (failures)
			break;
	}
	EXPECT_EQ(failures, 0);
	/* The point of the exercise: the pieces were really scattered. */
	EXPECT_GT(scattered, 0);
	for (unsigned i = 0; i < NBO; i++)
		ttm_bo_put(bos[i]);
	EXPECT_UEQ(ttm_resource_manager_usage(vram_man()), 0);
	edev_fini();
}

/**
 * struct holder - a thread holding a victim's reservation while the test
 * validates, like another validate or the delayed-destroy worker would.
 * @thread: the thread.
 * @bo: the victim; with @fence set a deleted BO the holder releases.
 * @fence: @bo's last fence (deleted case), signalled by the holder.
 * @held: the reservation is taken (set by the holder).
 * @armed: the test allows the release after the next refusal past
 *	@armed_at, which eviction can only reach after finding @bo held.
 * @armed_at: edev.refusals when the test armed the release.
 * @ret: what the release (ttm_bo_cleanup_refs()) returned.
 *
 * @held, @armed and @armed_at are protected by edev.lock.
 */
struct holder {
	pthread_t thread;
	struct ttm_buffer_object *bo;
	struct dma_fence *fence;
	bool held;
	bool armed;
	unsigned long armed_at;
	int ret;
};

static void *holder_fn(void *arg)
{
	struct holder *h = arg;

	dma_resv_lock(h->bo->resv, NULL);
	pthread_mutex_lock(&edev.lock);
	h->held = true;
	pthread_cond_broadcast(&edev.refused);
	while (!h->armed || edev.refusals <= h->armed_at)
		pthread_cond_wait(&edev.refused, &edev.lock);
	pthread_mutex_unlock(&edev.lock);

	if (!h->fence) {
		ttm_bo_unreserve(h->bo);
		return NULL;
	}
	/* What the worker does once the fence signalled: release, unlock. */
	dma_fence_signal(h->fence);
	h->ret = ttm_bo_cleanup_refs(h->bo, false, false, true);
	ttm_bo_put(h->bo);
	return NULL;
}

static void holder_start(struct holder *h)
{
	if (pthread_create(&h->thread, NULL, holder_fn, h))
		ktest_abort_case();
	pthread_mutex_lock(&edev.lock);
	while (!h->held)
		pthread_cond_wait(&edev.refused, &edev.lock);
	pthread_mutex_unlock(&edev.lock);
}

static void holder_arm(struct holder *h)
{
	pthread_mutex_lock(&edev.lock);
	h->armed_at = edev.refusals;
	h->armed = true;
	pthread_mutex_unlock(&edev.lock);
}

/*
 * Fill the second half of VRAM, behind the victim in the first half (less
 * recently used), with a BO the driver vetoes: eviction can only make room
 * with the victim, which the holder has reserved. The veto's refusal,
 * reached after the scan passed the victim, is the holder's cue.
 */
static struct ttm_buffer_object *vram_fill_vetoed(void)
{
	struct ttm_buffer_object *vetoed = bo_new(VRAM_PAGES / 2, TTM_PL_VRAM, &refuse_tag);

	ASSERT_EQ(ttm_test_bo_reserve_fill(vetoed, 41), 0);
	EXPECT_UEQ(ttm_resource_manager_usage(vram_man()), (uint64_t)VRAM_PAGES * PAGE);
	return vetoed;
}

KTEST(ttm_bo_validate_victim_held_by_other_thread_waited_for)
{
	struct ttm_operation_ctx nw = {.no_wait_gpu = true};
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *victim, *vetoed, *bo;
	struct holder h = {0};

	edev_init();
	victim = bo_new(VRAM_PAGES / 2, TTM_PL_VRAM, NULL);
	ASSERT_EQ(ttm_test_bo_reserve_fill(victim, 40), 0);
	vetoed = vram_fill_vetoed();
	bo = bo_new(VRAM_PAGES / 2, TTM_PL_SYSTEM, NULL);
	ASSERT_EQ(ttm_test_bo_reserve_fill(bo, 42), 0);

	h.bo = victim;
	holder_start(&h);
	/* Not allowed to wait: a held victim is a busy one. */
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &nw), -EBUSY);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_SYSTEM);
	EXPECT_UEQ(nw.evictions, 0);

	/* Allowed to wait: the victim is taken once its holder lets go. */
	holder_arm(&h);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	pthread_join(h.thread, NULL);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(victim), TTM_PL_SYSTEM);
	EXPECT_EQ(ttm_test_bo_mem_type(vetoed), TTM_PL_VRAM);
	EXPECT_UEQ(ctx.evictions, 1);
	EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 42), 0);
	EXPECT_EQ(ttm_test_bo_reserve_verify(victim, 40), 0);
	EXPECT_EQ(ttm_test_bo_reserve_verify(vetoed, 41), 0);

	ttm_bo_put(bo);
	ttm_bo_put(victim);
	ttm_bo_put(vetoed);
	edev_fini();
}

KTEST(ttm_bo_validate_deleted_victim_held_by_releaser_waited_for)
{
	struct ttm_operation_ctx nw = {.no_wait_gpu = true};
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *dead, *vetoed, *bo;
	struct holder h = {0};
	struct dma_fence *f;

	edev_init();
	dead = bo_new(VRAM_PAGES / 2, TTM_PL_VRAM, NULL);
	vetoed = vram_fill_vetoed();
	f = ttm_test_bo_busy(dead, DMA_RESV_USAGE_KERNEL);
	ASSERT_NOT_NULL(f);
	/* Busy at its last put: deleted, kept alive by the delayed list. */
	ttm_bo_put(dead);
	EXPECT_UEQ(atomic_load(&edev.tdev.bdev.stats.ddestroy), 1);
	/* The holder's own reference: the fence keeps the list's one there. */
	ASSERT_NOT_NULL(ttm_bo_get_unless_zero(dead));
	bo = bo_new(VRAM_PAGES / 2, TTM_PL_SYSTEM, NULL);
	ASSERT_EQ(ttm_test_bo_reserve_fill(bo, 43), 0);

	h.bo = dead;
	h.fence = f;
	holder_start(&h);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &nw), -EBUSY);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_SYSTEM);

	/* The releaser frees it while validate sleeps on its reservation. */
	holder_arm(&h);
	EXPECT_EQ(ttm_test_bo_validate_to(bo, TTM_PL_VRAM, 0, &ctx), 0);
	pthread_join(h.thread, NULL);
	EXPECT_EQ(h.ret, 0);
	EXPECT_EQ(ttm_test_bo_mem_type(bo), TTM_PL_VRAM);
	EXPECT_EQ(ttm_test_bo_mem_type(vetoed), TTM_PL_VRAM);
	/* Released, never moved. */
	EXPECT_UEQ(ctx.evictions, 0);
	EXPECT_UEQ(ttm_resource_manager_usage(vram_man()), (uint64_t)VRAM_PAGES * PAGE);
	EXPECT_EQ(ttm_test_bo_reserve_verify(bo, 43), 0);
	EXPECT_EQ(ttm_test_bo_reserve_verify(vetoed, 41), 0);

	dma_fence_put(f);
	ttm_bo_put(bo);
	ttm_bo_put(vetoed);
	edev_fini();
}
