// SPDX-License-Identifier: MIT
/*
 * Tests of BO CPU mappings over the mock driver device: content across
 * eviction, swap-out and migration, writes made just before a move, one
 * migration and one copy per page for a large BO, touch orders, GPU-write
 * waits and DONT_BLOCK, faults after a pipelined move (they wait for its
 * copy; an error-signalled move fence is SIGBUS), map counts and 2007
 * lifetime, SIGBUS on a failing fault, a fault racing moves, and the info line; each in both fault
 * mechanisms (userfaultfd skipped where the kernel refuses it).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <ttm/ttm_bo_vm.h>
#include <ttm/ttm_faults.h>
#include <ttm/ttm_global.h>

#include <testlib/checksum.h>

#include "ktest.h"
#include "ttm_test_helpers.h"

#define PG 4096ul

#if defined(__SANITIZE_THREAD__)
#define VM_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define VM_TEST_TSAN 1
#endif
#endif

static struct testlib_mock_device tdev;

static void setup(enum ttm_vm_fault_mode mode, uint64_t tt_pages, uint64_t vram_pages)
{
	struct testlib_mock_cfg cfg = {.tt_pages = tt_pages, .vram_pages = vram_pages};
	int ret;

	fault_reset_all();
	ret = ttm_bo_vm_set_mode(mode);
	if (mode == TTM_VM_FAULT_UFFD && (ret == -EPERM || ret == -ENOSYS))
		KTEST_SKIP("userfaultfd refused by this kernel");
	ASSERT_EQ(ret, 0);
	ASSERT_EQ(ttm_bo_vm_mode(), mode);
	ASSERT_EQ(testlib_mock_device_init(&tdev, &cfg), 0);
	ttm_bo_vm_init_device(&tdev.bdev);
}

static void teardown(void)
{
	ttm_device_flush_delayed(&tdev.bdev, true);
	EXPECT_EQ(atomic_load(&tdev.bdev.stats.bo_count), 0);
	EXPECT_EQ(testlib_mock_device_fini(&tdev), 0);
}

/* FNV-1a over the mapping, the same sum ttm_test_bo_checksum() gives. */
static uint64_t map_checksum(const uint8_t *p, uint64_t size)
{
	return testlib_checksum(p, size);
}

static uint64_t bo_checksum(struct ttm_buffer_object *bo)
{
	uint64_t sum = 0;

	EXPECT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	EXPECT_EQ(ttm_test_bo_checksum(bo, &sum), 0);
	ttm_bo_unreserve(bo);
	return sum;
}

static struct ttm_buffer_object *bo_create_filled(uint64_t size, uint32_t mem_type, uint64_t seed)
{
	struct ttm_buffer_object *bo = NULL;

	ASSERT_EQ(ttm_test_bo_create_in(&tdev.bdev, size, mem_type, &bo), 0);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ASSERT_EQ(ttm_test_bo_fill(bo, seed), 0);
	ttm_bo_unreserve(bo);
	return bo;
}

static void bo_unmap_put(struct ttm_buffer_object *bo)
{
	EXPECT_EQ(ttm_bo_munmap(bo), 0);
	ttm_bo_vm_release(bo);
	ttm_bo_put(bo);
}

static struct ttm_bo_vm_stats vm_stats(struct ttm_buffer_object *bo)
{
	struct ttm_bo_vm_stats st;

	memset(&st, 0, sizeof(st));
	EXPECT_EQ(ttm_bo_vm_get_stats(bo, &st), 0);
	return st;
}

static int evict(unsigned mem_type)
{
	struct ttm_operation_ctx ctx = {0};

	return ttm_bo_evict_mem_type(&tdev.bdev, mem_type, &ctx);
}

#define BOTH_MODES(name)                                                                           \
	KTEST(name##_sigsegv)                                                                      \
	{                                                                                          \
		name(TTM_VM_FAULT_SIGSEGV);                                                        \
	}                                                                                          \
	KTEST(name##_uffd)                                                                         \
	{                                                                                          \
		name(TTM_VM_FAULT_UFFD);                                                           \
	}

/* Content identical after the BO is evicted (VRAM -> TT -> SYSTEM) while mapped. */
static void ttm_bo_mmap_evict_content(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;
	uint64_t size = 64 * PG, sum;
	uint8_t *p;

	setup(mode, 256, 256);
	bo = bo_create_filled(size, TTM_PL_VRAM, 11);
	sum = bo_checksum(bo);
	ASSERT_EQ(ttm_bo_mmap(bo, NULL, &ctx, (void **)&p), 0);
	EXPECT_UEQ(map_checksum(p, size), sum);
	/* Visible VRAM is used where it is: no migration, io memory is write-combined. */
	EXPECT_EQ(vm_stats(bo).migrations, 0);
	EXPECT_EQ(bo->resource->mem_type, TTM_PL_VRAM);
	EXPECT_EQ(ttm_bo_vm_caching(bo), ttm_write_combined);

	ASSERT_EQ(evict(TTM_PL_VRAM), 0);
	EXPECT_EQ(bo->resource->mem_type, TTM_PL_TT);
	EXPECT_GE(vm_stats(bo).invalidations, 1);
	EXPECT_UEQ(map_checksum(p, size), sum);
	EXPECT_EQ(ttm_bo_vm_caching(bo), bo->ttm->caching);

	ASSERT_EQ(evict(TTM_PL_TT), 0);
	EXPECT_EQ(bo->resource->mem_type, TTM_PL_SYSTEM);
	EXPECT_UEQ(map_checksum(p, size), sum);
	EXPECT_UEQ(bo_checksum(bo), sum);
	bo_unmap_put(bo);
	teardown();
}
BOTH_MODES(ttm_bo_mmap_evict_content)

/* A CPU write right before eviction or swap-out is in the BO afterwards. */
static void ttm_bo_mmap_write_before_evict(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;
	uint64_t size = 32 * PG;
	uint8_t *p, buf[4];
	long ret;

	setup(mode, 256, 256);
	bo = bo_create_filled(size, TTM_PL_VRAM, 12);
	ASSERT_EQ(ttm_bo_mmap(bo, NULL, &ctx, (void **)&p), 0);
	p[0] = 0x11;
	p[17 * PG + 3] = 0x22;
	ASSERT_EQ(evict(TTM_PL_VRAM), 0);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	EXPECT_EQ(ttm_bo_access(bo, 0, buf, 1, false, &ctx), 0);
	EXPECT_EQ(buf[0], 0x11);
	EXPECT_EQ(ttm_bo_access(bo, 17 * PG + 3, buf, 1, false, &ctx), 0);
	EXPECT_EQ(buf[0], 0x22);
	ttm_bo_unreserve(bo);

	/* Written in TT, evicted to SYSTEM, then swapped out. */
	p[31 * PG + 4095] = 0x33;
	ASSERT_EQ(evict(TTM_PL_TT), 0);
	p[5 * PG] = 0x44;
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ret = ttm_bo_swapout(bo, &ctx);
	EXPECT_GT(ret, 0);
	EXPECT_TRUE(ttm_tt_is_swapped(bo->ttm));
	ttm_bo_unreserve(bo);
	/* The access swaps it back in. */
	EXPECT_EQ(p[31 * PG + 4095], 0x33);
	EXPECT_EQ(p[5 * PG], 0x44);
	EXPECT_EQ(p[0], 0x11);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	EXPECT_FALSE(ttm_tt_is_swapped(bo->ttm));
	ttm_bo_unreserve(bo);
	EXPECT_GE(vm_stats(bo).pages_written_back, 3);
	bo_unmap_put(bo);
	teardown();
}
BOTH_MODES(ttm_bo_mmap_write_before_evict)

/*
 * A BO outside the CPU placement migrates once, at the first fault, which
 * maps all of it (the pool's pages, zero-copy); one page of a large BO is
 * installed into the mapping at most once and no later access faults.
 */
static void ttm_bo_mmap_migrate_once(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_test_placement tp;
	struct ttm_buffer_object *bo;
	uint64_t size = 1024 * PG, sum, i;
	struct ttm_bo_vm_stats st;
	uint8_t *p;

	setup(mode, 0, 1024);
	bo = bo_create_filled(size, TTM_PL_VRAM, 13);
	sum = bo_checksum(bo);
	ASSERT_EQ(ttm_bo_mmap(bo, ttm_test_placement(&tp, TTM_PL_SYSTEM, 0), &ctx, (void **)&p), 0);
	(void)*(volatile uint8_t *)(p + 500 * PG + 1);
	st = vm_stats(bo);
	EXPECT_EQ(bo->resource->mem_type, TTM_PL_SYSTEM);
	EXPECT_EQ(st.migrations, 1);
	EXPECT_UEQ(st.bytes_migrated, size);
	EXPECT_EQ(st.faults, 1);
	/* SYSTEM pages come from the pool's memfd arena: mapped, not copied. */
	EXPECT_EQ(st.pages_mapped, size / PG);
	EXPECT_EQ(st.pages_copied, 0);

	/* Touch everything twice: no second migration, each page installed once. */
	for (i = 0; i < 2; i++)
		EXPECT_UEQ(map_checksum(p, size), sum);
	st = vm_stats(bo);
	EXPECT_EQ(st.migrations, 1);
	EXPECT_EQ(st.pages_mapped, size / PG);
	EXPECT_EQ(st.pages_copied, 0);
	EXPECT_EQ(st.faults, 1);
	EXPECT_EQ(st.invalidations, 0);
	bo_unmap_put(bo);
	teardown();
}
BOTH_MODES(ttm_bo_mmap_migrate_once)

static void bo_validate_to(struct ttm_buffer_object *bo, uint32_t mem_type)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_test_placement tp;

	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	EXPECT_EQ(ttm_bo_validate(bo, ttm_test_placement(&tp, mem_type, 0), &ctx), 0);
	ttm_bo_unreserve(bo);
	ASSERT_EQ(bo->resource->mem_type, mem_type);
}

/*
 * A migrated BO mapped whole by one fault is still torn down by every move:
 * after a move back to VRAM the next access faults, migrates again and sees
 * the CPU's earlier writes; after a swap-out (no migration) the fault is an
 * ordinary one and installs one window.
 */
static void ttm_bo_mmap_migrate_whole_then_move(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_test_placement tp;
	struct ttm_buffer_object *bo;
	uint64_t n = 256, i, sum;
	struct ttm_bo_vm_stats st;
	uint8_t *p;

	setup(mode, 0, 1024);
	bo = bo_create_filled(n * PG, TTM_PL_VRAM, 23);
	ASSERT_EQ(ttm_bo_mmap(bo, ttm_test_placement(&tp, TTM_PL_SYSTEM, 0), &ctx, (void **)&p), 0);
	for (i = 0; i < n; i += 17)
		p[i * PG + 9] = (uint8_t)(0x80 + i);
	st = vm_stats(bo);
	EXPECT_EQ(st.faults, 1);
	EXPECT_EQ(st.migrations, 1);
	EXPECT_EQ(st.pages_mapped, n);
	sum = bo_checksum(bo);
	EXPECT_UEQ(map_checksum(p, n * PG), sum);

	/* Back to VRAM: the view goes first, the writes went with the BO. */
	bo_validate_to(bo, TTM_PL_VRAM);
	st = vm_stats(bo);
	EXPECT_EQ(st.invalidations, 1);
	EXPECT_UEQ(bo_checksum(bo), sum);
	EXPECT_EQ(p[17 * PG + 9], 0x80 + 17);
	st = vm_stats(bo);
	EXPECT_EQ(st.faults, 2);
	EXPECT_EQ(st.migrations, 2);
	EXPECT_EQ(st.pages_mapped, 2 * n);
	EXPECT_EQ(bo->resource->mem_type, TTM_PL_SYSTEM);
	EXPECT_UEQ(map_checksum(p, n * PG), sum);

	/* Written again, then swapped out: the swap-in fault maps one window. */
	p[(n - 1) * PG] = 0x3c;
	sum = bo_checksum(bo);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	EXPECT_GT(ttm_bo_swapout(bo, &ctx), 0);
	ttm_bo_unreserve(bo);
	EXPECT_EQ(vm_stats(bo).invalidations, 2);
	EXPECT_EQ(p[(n - 1) * PG], 0x3c);
	st = vm_stats(bo);
	EXPECT_EQ(st.faults, 3);
	EXPECT_EQ(st.migrations, 2);
	EXPECT_EQ(st.pages_mapped, 2 * n + TTM_VM_FAULT_PREFAULT);
	EXPECT_UEQ(map_checksum(p, n * PG), sum);
	bo_unmap_put(bo);
	teardown();
}
BOTH_MODES(ttm_bo_mmap_migrate_whole_then_move)

/*
 * With the CPU cache modelled the migrated pages are installed by copy:
 * the first fault then keeps its window instead of copying the whole BO a
 * second time, and the content is the same.
 */
static void ttm_bo_mmap_migrate_copy_keeps_window(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_test_placement tp;
	struct ttm_buffer_object *bo;
	uint64_t n = 128, sum;
	struct ttm_bo_vm_stats st;
	uint8_t *p;

	setup(mode, 0, 512);
	ASSERT_EQ(ttm_bo_vm_set_cpu_cache(&tdev.bdev, true), 0);
	bo = bo_create_filled(n * PG, TTM_PL_VRAM, 24);
	sum = bo_checksum(bo);
	ASSERT_EQ(ttm_bo_mmap(bo, ttm_test_placement(&tp, TTM_PL_SYSTEM, 0), &ctx, (void **)&p), 0);
	(void)*(volatile uint8_t *)(p + 70 * PG);
	st = vm_stats(bo);
	EXPECT_EQ(st.migrations, 1);
	EXPECT_EQ(st.pages_copied, TTM_VM_FAULT_PREFAULT);
	EXPECT_EQ(st.pages_mapped, 0);
	EXPECT_UEQ(map_checksum(p, n * PG), sum);
	st = vm_stats(bo);
	EXPECT_EQ(st.pages_copied, n);
	EXPECT_EQ(st.faults, n / TTM_VM_FAULT_PREFAULT);
	bo_unmap_put(bo);
	EXPECT_EQ(ttm_bo_vm_set_cpu_cache(&tdev.bdev, false), 0);
	teardown();
}
BOTH_MODES(ttm_bo_mmap_migrate_copy_keeps_window)

/* Sequential, random and strided first touches of BOs from 1 page to 16 MiB. */
static void ttm_bo_mmap_touch_orders(enum ttm_vm_fault_mode mode)
{
	static const uint64_t sizes[] = {1, 17, 256, 4096};
	struct ttm_operation_ctx ctx = {0};

	setup(mode, 0, 0);
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (unsigned order = 0; order < 3; order++) {
			uint64_t n = sizes[s], sum, i, k;
			struct ttm_buffer_object *bo;
			struct ttm_bo_vm_stats st;
			uint8_t *p, *seen;

			bo = bo_create_filled(n * PG, TTM_PL_SYSTEM, 100 + s * 3 + order);
			sum = bo_checksum(bo);
			ASSERT_EQ(ttm_bo_mmap(bo, NULL, &ctx, (void **)&p), 0);
			seen = calloc(n, 1);
			ASSERT_NOT_NULL(seen);
			for (i = 0; i < n; i++) {
				if (order == 0)
					k = i;
				else if (order == 1)
					k = ktest_rand() % n;
				else
					k = (i * 37) % n;
				seen[k] |= (uint8_t)(p[k * PG + (i % PG)] | 1);
			}
			free(seen);
			EXPECT_UEQ(map_checksum(p, n * PG), sum);
			st = vm_stats(bo);
			EXPECT_EQ(st.pages_mapped, n);
			EXPECT_EQ(st.pages_copied, 0);
			EXPECT_EQ(st.migrations, 0);
			bo_unmap_put(bo);
		}
	}
	teardown();
}
BOTH_MODES(ttm_bo_mmap_touch_orders)

static uint64_t global_pages(void)
{
	struct ttm_global_stats gs;

	ttm_global_get_stats(&gs);
	return gs.pages;
}

/*
 * SYSTEM pages are mapped zero-copy: a CPU store through the mapping is in
 * the tt page at once (no flush, no write-back), the mapping charges no page
 * of its own against the cap, and a move still removes the view first (the
 * write survives the swap-out and the next access sees it).
 */
static void ttm_bo_mmap_zero_copy_system(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;
	uint64_t n = 48, before, i;
	struct ttm_bo_vm_stats st;
	uint8_t *p, *tp;

	setup(mode, 0, 0);
	bo = bo_create_filled(n * PG, TTM_PL_SYSTEM, 77);
	before = global_pages();
	ASSERT_EQ(ttm_bo_mmap(bo, NULL, &ctx, (void **)&p), 0);
	for (i = 0; i < n; i++)
		p[i * PG + (i % PG)] = (uint8_t)(0xc0 + i);
	EXPECT_EQ(global_pages(), before);

	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	for (i = 0; i < n; i++) {
		tp = ttm_tt_page_ptr(bo->ttm, i);
		ASSERT_NOT_NULL(tp);
		EXPECT_EQ(tp[i % PG], (uint8_t)(0xc0 + i));
	}
	/* And the other way: the tt's store is what the mapping reads. */
	tp = ttm_tt_page_ptr(bo->ttm, 3);
	tp[100] = 0x5e;
	ttm_bo_unreserve(bo);
	EXPECT_EQ(p[3 * PG + 100], 0x5e);
	st = vm_stats(bo);
	EXPECT_EQ(st.pages_mapped, n);
	EXPECT_EQ(st.pages_copied, 0);
	EXPECT_EQ(st.invalidations, 0);

	/* Swap-out removes the view; nothing to write back, content kept. */
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	EXPECT_GT(ttm_bo_swapout(bo, &ctx), 0);
	EXPECT_TRUE(ttm_tt_is_swapped(bo->ttm));
	ttm_bo_unreserve(bo);
	st = vm_stats(bo);
	EXPECT_EQ(st.invalidations, 1);
	EXPECT_EQ(st.pages_written_back, 0);
	EXPECT_EQ(p[7 * PG + 7], 0xc7);
	EXPECT_EQ(p[3 * PG + 100], 0x5e);
	EXPECT_EQ(global_pages(), before);
	bo_unmap_put(bo);
	teardown();
}
BOTH_MODES(ttm_bo_mmap_zero_copy_system)

/*
 * Every install is counted in system calls: a one-page BO takes one, each
 * 16-page window at least one and never more than its pages, a second pass
 * over installed pages none, and a refault after a swap-out installs again.
 */
static void ttm_bo_mmap_remaps_counted(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *one, *bo;
	uint64_t n = 3 * TTM_VM_FAULT_PREFAULT, i, sum;
	struct ttm_bo_vm_stats st;
	uint8_t *p, *q;

	setup(mode, 0, 0);
	one = bo_create_filled(PG, TTM_PL_SYSTEM, 81);
	ASSERT_EQ(ttm_bo_mmap(one, NULL, &ctx, (void **)&q), 0);
	st = vm_stats(one);
	EXPECT_EQ(st.remaps, 0);
	(void)*(volatile uint8_t *)q;
	st = vm_stats(one);
	EXPECT_EQ(st.faults, 1);
	EXPECT_EQ(st.remaps, 1);

	bo = bo_create_filled(n * PG, TTM_PL_SYSTEM, 82);
	sum = bo_checksum(bo);
	ASSERT_EQ(ttm_bo_mmap(bo, NULL, &ctx, (void **)&p), 0);
	for (i = 0; i < n; i++)
		(void)*(volatile uint8_t *)(p + i * PG);
	st = vm_stats(bo);
	EXPECT_EQ(st.faults, 3);
	EXPECT_EQ(st.pages_mapped, n);
	EXPECT_GE(st.remaps, 3);
	EXPECT_LE(st.remaps, n);
	EXPECT_UEQ(map_checksum(p, n * PG), sum);
	EXPECT_EQ(vm_stats(bo).remaps, st.remaps);

	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	EXPECT_GT(ttm_bo_swapout(bo, &ctx), 0);
	ttm_bo_unreserve(bo);
	EXPECT_UEQ(map_checksum(p, n * PG), sum);
	EXPECT_GE(vm_stats(bo).remaps, st.remaps + 3);
	EXPECT_LE(vm_stats(bo).remaps, 2 * n);
	/* The other BO's count is its own. */
	EXPECT_EQ(vm_stats(one).remaps, 1);
	bo_unmap_put(bo);
	bo_unmap_put(one);
	teardown();
}
BOTH_MODES(ttm_bo_mmap_remaps_counted)

struct signal_later {
	struct dma_fence *fence;
	_Atomic bool signalled;
};

static void *signal_later_fn(void *arg)
{
	struct signal_later *s = arg;
	struct timespec ts = {0, 20 * 1000 * 1000};

	nanosleep(&ts, NULL);
	atomic_store(&s->signalled, true);
	dma_fence_signal(s->fence);
	return NULL;
}

/* DONT_BLOCK maps fail -EBUSY on a pending GPU write; a fault waits for it. */
static void ttm_bo_mmap_gpu_write_wait(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx nowait = {.no_wait_gpu = true};
	struct ttm_buffer_object *bo;
	struct signal_later s;
	pthread_t t;
	uint8_t *p;

	setup(mode, 256, 256);
	bo = bo_create_filled(8 * PG, TTM_PL_TT, 14);
	s.fence = ttm_test_fence_create();
	ASSERT_NOT_NULL(s.fence);
	atomic_store(&s.signalled, false);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ASSERT_EQ(ttm_test_bo_add_fence(bo, s.fence, DMA_RESV_USAGE_WRITE), 0);
	ttm_bo_unreserve(bo);
	EXPECT_EQ(ttm_bo_mmap(bo, NULL, &nowait, (void **)&p), -EBUSY);
	EXPECT_EQ(ttm_bo_vm_get_stats(bo, &(struct ttm_bo_vm_stats){0}), -ENOENT);

	/* Map while idle, then a GPU write is queued: the next fault waits for it. */
	dma_fence_signal(s.fence);
	dma_fence_put(s.fence);
	ASSERT_EQ(ttm_bo_mmap(bo, NULL, &nowait, (void **)&p), 0);
	s.fence = ttm_test_fence_create();
	ASSERT_NOT_NULL(s.fence);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ASSERT_EQ(ttm_test_bo_add_fence(bo, s.fence, DMA_RESV_USAGE_WRITE), 0);
	ttm_bo_unreserve(bo);
	ASSERT_EQ(pthread_create(&t, NULL, signal_later_fn, &s), 0);
	(void)*(volatile uint8_t *)p;
	EXPECT_TRUE(atomic_load(&s.signalled));
	pthread_join(t, NULL);
	dma_fence_put(s.fence);
	bo_unmap_put(bo);
	teardown();
}
BOTH_MODES(ttm_bo_mmap_gpu_write_wait)

/*
 * Map counts and 2007 lifetime: maps share one address (two clients see
 * the same bytes), the address outlives a zero map count, and a BO
 * released with live maps goes with the last unmap.
 */
static void ttm_bo_munmap_lifetime(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;
	uint8_t *a, *b, *c;

	setup(mode, 256, 256);
	bo = bo_create_filled(4 * PG, TTM_PL_VRAM, 15);
	EXPECT_EQ(ttm_bo_munmap(bo), -EINVAL);
	ASSERT_EQ(ttm_bo_mmap(bo, NULL, &ctx, (void **)&a), 0);
	ASSERT_EQ(ttm_bo_mmap(bo, NULL, &ctx, (void **)&b), 0);
	EXPECT_TRUE(a == b);
	EXPECT_EQ(vm_stats(bo).map_count, 2);
	/* Client A writes, the BO moves, client B reads. */
	a[PG + 9] = 0x5a;
	ASSERT_EQ(evict(TTM_PL_VRAM), 0);
	EXPECT_EQ(b[PG + 9], 0x5a);

	EXPECT_EQ(ttm_bo_munmap(bo), 0);
	EXPECT_EQ(ttm_bo_munmap(bo), 0);
	EXPECT_EQ(ttm_bo_munmap(bo), -EINVAL);
	/* Map count zero: the range lives on and the next map gets it back. */
	EXPECT_EQ(a[PG + 9], 0x5a);
	ASSERT_EQ(ttm_bo_mmap(bo, NULL, &ctx, (void **)&c), 0);
	EXPECT_TRUE(c == a);

	/* Released with a live map: still usable, gone with the last unmap. */
	ttm_bo_vm_release(bo);
	ttm_bo_put(bo);
	EXPECT_EQ(atomic_load(&tdev.bdev.stats.bo_count), 1);
	c[2 * PG] = 0x77;
	EXPECT_EQ(c[PG + 9], 0x5a);
	EXPECT_EQ(ttm_bo_munmap(bo), 0);
	teardown();
}
BOTH_MODES(ttm_bo_munmap_lifetime)

static sigjmp_buf sigbus_env;
static volatile sig_atomic_t sigbus_seen;

static void sigbus_handler(int sig)
{
	sigbus_seen = 1;
	siglongjmp(sigbus_env, 1);
}

/* A failing fault (remap fault point, failing migration) is SIGBUS; content intact. */
static void ttm_bo_mmap_fault_sigbus(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_test_placement tp;
	struct ttm_buffer_object *bo;
	struct sigaction sa, old;
	volatile uint8_t v = 0;
	uint64_t sum;
	uint8_t *p;

#ifdef VM_TEST_TSAN
	KTEST_SKIP("SIGBUS delivery is deferred under TSan");
#endif
	setup(mode, 0, 256);
	bo = bo_create_filled(32 * PG, TTM_PL_VRAM, 16);
	sum = bo_checksum(bo);
	ASSERT_EQ(ttm_bo_mmap(bo, ttm_test_placement(&tp, TTM_PL_SYSTEM, 0), &ctx, (void **)&p), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sigbus_handler;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGBUS, &sa, &old), 0);

	/* Migration fails (no pages for the tt): SIGBUS, the BO stays in VRAM intact. */
	ASSERT_EQ(fault_configure("pool_alloc:probability=100,times=-1", NULL, 0), 0);
	sigbus_seen = 0;
	if (!sigsetjmp(sigbus_env, 1))
		v = p[3];
	EXPECT_EQ(sigbus_seen, 1);
	fault_reset_all();
	EXPECT_EQ(bo->resource->mem_type, TTM_PL_VRAM);
	EXPECT_UEQ(bo_checksum(bo), sum);

	/* Installing fails once: SIGBUS, then the retry works. */
	ASSERT_EQ(fault_configure("mmap_remap:probability=100,times=1", NULL, 0), 0);
	sigbus_seen = 0;
	if (!sigsetjmp(sigbus_env, 1))
		v = p[3];
	EXPECT_EQ(sigbus_seen, 1);
	sigbus_seen = 0;
	if (!sigsetjmp(sigbus_env, 1))
		EXPECT_UEQ(map_checksum(p, 32 * PG), sum);
	EXPECT_EQ(sigbus_seen, 0);
	EXPECT_EQ(vm_stats(bo).sigbus, 2);
	(void)v;
	fault_reset_all();
	sigaction(SIGBUS, &old, NULL);
	bo_unmap_put(bo);
	teardown();
}
BOTH_MODES(ttm_bo_mmap_fault_sigbus)

/*
 * A pipelined move as a blitter driver does it: leaving VRAM, the move
 * queues the copy behind a fence (ttm_bo_move_accel_cleanup()) and
 * returns; the copier thread performs the copy and signals the fence. The
 * copier holds the copy back until the faulting thread waits on the fence,
 * or until that thread's access finished without waiting (the bug: it read
 * the new home before the copy), so the order of events is fixed by thread
 * sync alone.
 */
struct pipe_move {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* Protected by @lock. */
	struct dma_fence *fence;
	const uint8_t *src;
	struct ttm_tt *dst;
	unsigned long pages;

	int error;
	_Atomic bool copied;
	_Atomic bool touched;
};

static struct pipe_move pmove = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

static int pipe_move_fn(struct ttm_buffer_object *bo, bool evict, struct ttm_operation_ctx *ctx,
			struct ttm_resource *new_mem, struct ttm_place *hop)
{
	struct ttm_resource *old = bo->resource;
	struct dma_fence *fence;
	int ret;

	(void)hop;
	if (!old || old->mem_type != TTM_PL_VRAM || new_mem->mem_type != TTM_PL_TT)
		return ttm_bo_move_memcpy(bo, ctx, new_mem);
	fence = ttm_test_fence_create();
	if (!fence)
		return -ENOMEM;
	pthread_mutex_lock(&pmove.lock);
	pmove.fence = dma_fence_get(fence);
	pmove.src = (const uint8_t *)tdev.vram_mem + (old->start << TTM_PAGE_SHIFT);
	pmove.dst = bo->ttm;
	pmove.pages = bo->size / PG;
	pthread_cond_broadcast(&pmove.cond);
	pthread_mutex_unlock(&pmove.lock);
	/* The ghost keeps the old range alive until the fence signals. */
	ret = ttm_bo_move_accel_cleanup(bo, fence, evict, true, new_mem);
	dma_fence_put(fence);
	return ret;
}

static void *pipe_copier(void *arg)
{
	struct dma_fence *fence;
	(void)arg;

	pthread_mutex_lock(&pmove.lock);
	while (!pmove.fence)
		pthread_cond_wait(&pmove.cond, &pmove.lock);
	fence = pmove.fence;
	pthread_mutex_unlock(&pmove.lock);
	while (!(atomic_load(&fence->flags) & DMA_FENCE_FLAG_WAITERS) &&
	       !atomic_load(&pmove.touched))
		sched_yield();
	for (unsigned long i = 0; i < pmove.pages; i++)
		memcpy(ttm_tt_page_ptr(pmove.dst, i), pmove.src + i * PG, PG);
	if (pmove.error)
		dma_fence_set_error(fence, pmove.error);
	atomic_store(&pmove.copied, true);
	dma_fence_signal(fence);
	return NULL;
}

/* Map a filled VRAM BO whose CPU placement is TT only; start the copier. */
static struct ttm_buffer_object *pipe_setup(enum ttm_vm_fault_mode mode, int error, uint8_t **p,
					    uint8_t *want, uint64_t *sum, pthread_t *t)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_test_placement tp;
	struct ttm_buffer_object *bo;

	setup(mode, 256, 256);
	tdev.funcs.move = pipe_move_fn;
	pmove.fence = NULL;
	pmove.error = error;
	atomic_store(&pmove.copied, false);
	atomic_store(&pmove.touched, false);
	bo = bo_create_filled(16 * PG, TTM_PL_VRAM, 21);
	*sum = bo_checksum(bo);
	/* Page 3 as it is in VRAM, to compare with what the first touch reads. */
	memcpy(want,
	       (const uint8_t *)tdev.vram_mem + (bo->resource->start << TTM_PAGE_SHIFT) + 3 * PG,
	       PG);
	ASSERT_EQ(ttm_bo_mmap(bo, ttm_test_placement(&tp, TTM_PL_TT, 0), &ctx, (void **)p), 0);
	ASSERT_EQ(pthread_create(t, NULL, pipe_copier, NULL), 0);
	return bo;
}

/* Where @bo is, read under its reservation (a fault may run on another thread). */
static uint32_t bo_mem_type(struct ttm_buffer_object *bo)
{
	uint32_t type;

	EXPECT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	type = bo->resource->mem_type;
	ttm_bo_unreserve(bo);
	return type;
}

static void pipe_finish(struct ttm_buffer_object *bo, pthread_t t)
{
	pthread_join(t, NULL);
	dma_fence_put(pmove.fence);
	pmove.fence = NULL;
	bo_unmap_put(bo);
	teardown();
}

/* The first touch after a pipelined move blocks until the copy is done, then reads it. */
static void ttm_bo_mmap_pipelined_move_waits(enum ttm_vm_fault_mode mode)
{
	static uint8_t want[PG], got[PG];
	uint64_t sum;
	uint8_t *p;
	pthread_t t;
	struct ttm_buffer_object *bo = pipe_setup(mode, 0, &p, want, &sum, &t);

	/* The first touch is this copy's first load. */
	memcpy(got, p + 3 * PG, PG);
	atomic_store(&pmove.touched, true);
	EXPECT_TRUE(atomic_load(&pmove.copied));
	EXPECT_EQ(memcmp(got, want, PG), 0);
	EXPECT_UEQ(map_checksum(p, 16 * PG), sum);
	EXPECT_EQ(bo_mem_type(bo), TTM_PL_TT);
	EXPECT_EQ(vm_stats(bo).migrations, 1);
	EXPECT_EQ(vm_stats(bo).sigbus, 0);
	pipe_finish(bo, t);
}
BOTH_MODES(ttm_bo_mmap_pipelined_move_waits)

/* A move fence signalled with -EIO: SIGBUS, the content intact at the new home. */
static void ttm_bo_mmap_pipelined_move_error(enum ttm_vm_fault_mode mode)
{
	static uint8_t want[PG];
	struct sigaction sa, old;
	volatile uint8_t v = 0;
	uint8_t *p;
	struct ttm_buffer_object *bo;
	uint64_t sum;
	pthread_t t;

#ifdef VM_TEST_TSAN
	KTEST_SKIP("SIGBUS delivery is deferred under TSan");
#endif
	bo = pipe_setup(mode, -EIO, &p, want, &sum, &t);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sigbus_handler;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGBUS, &sa, &old), 0);
	sigbus_seen = 0;
	if (!sigsetjmp(sigbus_env, 1))
		v = p[3 * PG + 5];
	atomic_store(&pmove.touched, true);
	EXPECT_EQ(sigbus_seen, 1);
	EXPECT_TRUE(atomic_load(&pmove.copied));
	EXPECT_EQ(bo_mem_type(bo), TTM_PL_TT);
	EXPECT_UEQ(bo_checksum(bo), sum);
	EXPECT_EQ(vm_stats(bo).sigbus, 1);
	/* Nothing moves now: the next access does not meet the old error. */
	sigbus_seen = 0;
	if (!sigsetjmp(sigbus_env, 1))
		v = p[3 * PG + 5];
	EXPECT_EQ(sigbus_seen, 0);
	EXPECT_EQ(v, want[5]);
	EXPECT_UEQ(map_checksum(p, 16 * PG), sum);
	sigaction(SIGBUS, &old, NULL);
	pipe_finish(bo, t);
}
BOTH_MODES(ttm_bo_mmap_pipelined_move_error)

/*
 * Faults racing moves: readers check a per-page stamp, a writer updates a
 * per-page word, a mover bounces the BO between VRAM, TT and SYSTEM and
 * swaps it out. Every read sees the stamp; at the end the BO holds every
 * page's last written value.
 */
struct race {
	struct ttm_buffer_object *bo;
	uint8_t *p;
	uint64_t pages;
	unsigned long iters;
	uint64_t seed;
	uint64_t *last;
	_Atomic bool *stop;
	_Atomic unsigned long *moves;
	_Atomic unsigned long bad;
};

static uint64_t race_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void *race_reader(void *arg)
{
	struct race *r = arg;
	uint64_t x = r->seed | 1;

	while (!atomic_load(r->stop)) {
		uint64_t pg = race_next(&x) % r->pages;

		if (((volatile uint64_t *)(r->p + pg * PG))[0] != pg * 7919)
			atomic_fetch_add(&r->bad, 1);
	}
	return NULL;
}

static void *race_writer(void *arg)
{
	struct race *r = arg;
	uint64_t x = r->seed | 1;

	/* Keep writing until the mover has moved the BO a number of times. */
	for (unsigned long it = 1; it <= r->iters || atomic_load(r->moves) < r->iters / 50; it++) {
		uint64_t pg = race_next(&x) % r->pages;

		((volatile uint64_t *)(r->p + pg * PG))[1] = it;
		r->last[pg] = it;
		if (it % 64 == 0)
			sched_yield();
	}
	return NULL;
}

static void *race_mover(void *arg)
{
	static const uint32_t types[] = {TTM_PL_VRAM, TTM_PL_TT, TTM_PL_SYSTEM};
	struct race *r = arg;
	unsigned k = 0;

	while (!atomic_load(r->stop)) {
		struct ttm_operation_ctx ctx = {0};
		struct ttm_test_placement tp;

		if (ttm_bo_reserve(r->bo, false, false, NULL))
			continue;
		if (k % 4 == 3)
			ttm_bo_swapout(r->bo, &ctx);
		else
			ttm_bo_validate(r->bo, ttm_test_placement(&tp, types[k % 3], 0), &ctx);
		ttm_bo_unreserve(r->bo);
		atomic_fetch_add(r->moves, 1);
		k++;
	}
	return NULL;
}

static void ttm_bo_mmap_fault_race(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct race rd, wr, mv;
	pthread_t trd, twr, tmv;
	_Atomic bool stop = false;
	_Atomic unsigned long moves = 0;
	struct ttm_buffer_object *bo;
	uint64_t pages = 48, i, word[2];
	uint8_t *p;

	setup(mode, 256, 256);
	bo = bo_create_filled(pages * PG, TTM_PL_VRAM, 17);
	ASSERT_EQ(ttm_bo_mmap(bo, NULL, &ctx, (void **)&p), 0);
	for (i = 0; i < pages; i++) {
		((uint64_t *)(p + i * PG))[0] = i * 7919;
		((uint64_t *)(p + i * PG))[1] = 0;
	}
	wr = (struct race){.bo = bo,
			   .p = p,
			   .pages = pages,
			   .iters = 3000 * ktest_scale(),
			   .seed = ktest_rand(),
			   .stop = &stop,
			   .moves = &moves};
	wr.last = calloc(pages, sizeof(uint64_t));
	ASSERT_NOT_NULL(wr.last);
	rd = wr;
	rd.seed = ktest_rand();
	mv = wr;
	ASSERT_EQ(pthread_create(&trd, NULL, race_reader, &rd), 0);
	ASSERT_EQ(pthread_create(&tmv, NULL, race_mover, &mv), 0);
	ASSERT_EQ(pthread_create(&twr, NULL, race_writer, &wr), 0);
	pthread_join(twr, NULL);
	atomic_store(&stop, true);
	pthread_join(trd, NULL);
	pthread_join(tmv, NULL);
	EXPECT_EQ(atomic_load(&rd.bad), 0);
	EXPECT_GT(vm_stats(bo).invalidations, 0);

	/* The mapping shows the last writes; after the flush the BO does too. */
	for (i = 0; i < pages; i++)
		EXPECT_UEQ(((uint64_t *)(p + i * PG))[1], wr.last[i]);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ttm_bo_vm_flush(bo);
	ttm_bo_unreserve(bo);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	for (i = 0; i < pages; i++) {
		EXPECT_EQ(ttm_bo_access(bo, i * PG, word, sizeof(word), false, &ctx), 0);
		EXPECT_UEQ(word[0], i * 7919);
		EXPECT_UEQ(word[1], wr.last[i]);
	}
	ttm_bo_unreserve(bo);
	free(wr.last);
	bo_unmap_put(bo);
	teardown();
}
BOTH_MODES(ttm_bo_mmap_fault_race)

/* The info dump names the active mechanism. */
static void ttm_bo_vm_print_mode(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;
	char line[512], want[64];
	uint8_t *p;
	FILE *f;

	setup(mode, 0, 0);
	bo = bo_create_filled(PG, TTM_PL_SYSTEM, 18);
	ASSERT_EQ(ttm_bo_mmap(bo, NULL, &ctx, (void **)&p), 0);
	(void)*(volatile uint8_t *)p;
	f = tmpfile();
	ASSERT_NOT_NULL(f);
	ttm_bo_vm_print(f);
	rewind(f);
	ASSERT_NOT_NULL(fgets(line, sizeof(line), f));
	snprintf(want, sizeof(want), "cpu mappings: fault mode %s, ranges 1",
		 ttm_vm_fault_mode_name(mode));
	EXPECT_TRUE(strstr(line, want) != NULL);
	ASSERT_NOT_NULL(fgets(line, sizeof(line), f));
	EXPECT_TRUE(strstr(line, "faults 1") != NULL || strstr(line, "faults") != NULL);
	fclose(f);
	EXPECT_EQ(ttm_bo_vm_set_mode(TTM_VM_FAULT_SIGSEGV), -EBUSY);
	bo_unmap_put(bo);
	teardown();
}
BOTH_MODES(ttm_bo_vm_print_mode)

KTEST(ttm_bo_mmap_invalid)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_placement empty = {0, NULL};
	struct ttm_buffer_object *bo;
	void *p;

	setup(TTM_VM_FAULT_SIGSEGV, 0, 0);
	bo = bo_create_filled(PG, TTM_PL_SYSTEM, 19);
	EXPECT_EQ(ttm_bo_mmap(NULL, NULL, &ctx, &p), -EINVAL);
	EXPECT_EQ(ttm_bo_mmap(bo, NULL, NULL, &p), -EINVAL);
	EXPECT_EQ(ttm_bo_mmap(bo, &empty, &ctx, &p), -EINVAL);
	EXPECT_EQ(ttm_bo_vm_caching(bo), ttm_cached);
	ttm_bo_vm_release(bo);
	ttm_bo_put(bo);
	teardown();
}

/*
 * A process mapping (the vma) outlives every map count and the owner's
 * handle: reads and writes keep working, evictions and a swap-out while
 * only the mapping holds the BO keep its content, and the BO goes with
 * the munmap.
 */
static void ttm_bo_vma_outlives_owner(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;
	uint64_t size = 64 * PG, sum;
	uint8_t *p, *v;

	setup(mode, 256, 256);
	bo = bo_create_filled(size, TTM_PL_VRAM, 31);
	EXPECT_EQ(ttm_bo_vm_vma_get(bo, (void **)&v), -EINVAL); /* no range yet */
	ASSERT_EQ(ttm_bo_mmap(bo, NULL, &ctx, (void **)&p), 0);
	ASSERT_EQ(ttm_bo_vm_vma_get(bo, (void **)&v), 0);
	EXPECT_TRUE(v == p);
	EXPECT_EQ(vm_stats(bo).vmas, 1);
	/* The client unmaps and closes its handle: only the vma holds the BO. */
	EXPECT_EQ(ttm_bo_munmap(bo), 0);
	ttm_bo_vm_release(bo);
	ttm_bo_put(bo);
	EXPECT_EQ(atomic_load(&tdev.bdev.stats.bo_count), 1);

	v[5] = 0xa5;
	v[size - 1] = 0x5a;
	sum = map_checksum(v, size);
	ASSERT_EQ(evict(TTM_PL_VRAM), 0);
	EXPECT_EQ(bo->resource->mem_type, TTM_PL_TT);
	EXPECT_UEQ(map_checksum(v, size), sum);
	ASSERT_EQ(evict(TTM_PL_TT), 0);
	EXPECT_EQ(bo->resource->mem_type, TTM_PL_SYSTEM);
	EXPECT_UEQ(map_checksum(v, size), sum);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	EXPECT_GT(ttm_bo_swapout(bo, &ctx), 0);
	ttm_bo_unreserve(bo);
	EXPECT_EQ(v[5], 0xa5);
	EXPECT_UEQ(map_checksum(v, size), sum);
	EXPECT_UEQ(bo_checksum(bo), sum);

	/* Only the start of a live range is a mapping to drop, and only once. */
	EXPECT_EQ(ttm_bo_vm_vma_put(v + PG), -EINVAL);
	EXPECT_EQ(ttm_bo_vm_vma_put(&ctx), -EINVAL);
	EXPECT_EQ(ttm_bo_vm_vma_put(v), 0);
	ttm_device_flush_delayed(&tdev.bdev, true);
	EXPECT_EQ(atomic_load(&tdev.bdev.stats.bo_count), 0);
	EXPECT_EQ(ttm_bo_vm_vma_put(v), -EINVAL);
	teardown();
}
BOTH_MODES(ttm_bo_vma_outlives_owner)

/* A vma dropped before the owner lets go: the BO goes with the owner's release. */
static void ttm_bo_vma_before_release(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;
	uint8_t *p, *v;

	setup(mode, 0, 0);
	bo = bo_create_filled(4 * PG, TTM_PL_SYSTEM, 32);
	ASSERT_EQ(ttm_bo_mmap(bo, NULL, &ctx, (void **)&p), 0);
	ASSERT_EQ(ttm_bo_vm_vma_get(bo, (void **)&v), 0);
	ASSERT_EQ(ttm_bo_vm_vma_get(bo, (void **)&v), 0);
	EXPECT_EQ(vm_stats(bo).vmas, 2);
	EXPECT_EQ(ttm_bo_vm_vma_put(v), 0);
	EXPECT_EQ(ttm_bo_vm_vma_put(v), 0);
	EXPECT_EQ(ttm_bo_vm_vma_put(v), -EINVAL);
	EXPECT_EQ(vm_stats(bo).map_count, 1);
	p[0] = 1;
	bo_unmap_put(bo);
	teardown();
}
BOTH_MODES(ttm_bo_vma_before_release)

struct small_stack_arg {
	const uint8_t *p;
	uint64_t size;
	uint64_t sum;
};

static void *small_stack_reader(void *arg)
{
	struct small_stack_arg *a = arg;

	a->sum = map_checksum(a->p, a->size);
	return NULL;
}

/*
 * A thread with the smallest stack the system allows faults a BO in that
 * must migrate first: the fault's work (validate, move, a 12 KiB page
 * batch) never runs on the accessing thread's stack, so it completes.
 */
static void ttm_bo_mmap_small_stack(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_test_placement tp;
	struct small_stack_arg a;
	struct ttm_buffer_object *bo;
	pthread_attr_t attr;
	long min = sysconf(_SC_THREAD_STACK_MIN);
	size_t stack = min > 16384 ? (size_t)min : 16384;
	pthread_t t;
	uint8_t *p;

#if defined(VM_TEST_TSAN) || defined(__SANITIZE_ADDRESS__)
	stack *= 4; /* the sanitizers' own frames */
#endif
	setup(mode, 0, 256);
	bo = bo_create_filled(64 * PG, TTM_PL_VRAM, 33);
	ASSERT_EQ(ttm_bo_mmap(bo, ttm_test_placement(&tp, TTM_PL_SYSTEM, 0), &ctx, (void **)&p), 0);
	a.p = p;
	a.size = 64 * PG;
	a.sum = 0;
	ASSERT_EQ(pthread_attr_init(&attr), 0);
	ASSERT_EQ(pthread_attr_setstacksize(&attr, stack), 0);
	ASSERT_EQ(pthread_create(&t, &attr, small_stack_reader, &a), 0);
	pthread_join(t, NULL);
	pthread_attr_destroy(&attr);
	/* Reserved: under userfaultfd the fault thread moved it, an order TSan cannot see. */
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	EXPECT_EQ(bo->resource->mem_type, TTM_PL_SYSTEM);
	ttm_bo_unreserve(bo);
	EXPECT_UEQ(a.sum, bo_checksum(bo));
	bo_unmap_put(bo);
	teardown();
}
BOTH_MODES(ttm_bo_mmap_small_stack)

/* ---- process mappings: one range per mmap(2), as the kernel's vmas ---- */

static int vma_opens;

static void vma_open(void *priv)
{
	(void)priv;
	vma_opens++;
}

static void vma_close(void *priv)
{
	(void)priv;
	vma_opens--;
}

static int vma_begin(void *priv, struct ttm_buffer_object *bo, struct ttm_placement *pl)
{
	struct ttm_place *places = (struct ttm_place *)pl->placement;

	(void)priv;
	(void)bo;
	/* Wherever the CPU can reach it: VRAM (io, copied pages) or system memory. */
	memset(places, 0, 2 * sizeof(*places));
	places[0].mem_type = TTM_PL_VRAM;
	places[1].mem_type = TTM_PL_SYSTEM;
	pl->num_placement = 2;
	return 0;
}

static void vma_wait(void *priv)
{
	(void)priv;
}

static void vma_end(void *priv)
{
	(void)priv;
}

static const struct ttm_bo_vm_fault_ops vma_ops = {
    .begin = vma_begin,
    .wait = vma_wait,
    .end = vma_end,
    .open = vma_open,
    .close = vma_close,
};

static uint8_t *vma_map(struct ttm_buffer_object *bo, uint64_t pgoff, unsigned long n, void *hint,
			int flags)
{
	struct ttm_operation_ctx ctx = {0};
	void *v = NULL;

	EXPECT_EQ(ttm_bo_vm_mmap_vma(bo, &vma_ops, NULL, pgoff, n, hint, flags, &ctx, &v), 0);
	return v;
}

/* The reference view of @bo's storage: its shared ttm_bo_mmap() range. */
static uint8_t *bo_view(struct ttm_buffer_object *bo)
{
	struct ttm_operation_ctx ctx = {0};
	void *p = NULL;

	EXPECT_EQ(ttm_bo_mmap_hooked(bo, &vma_ops, NULL, &ctx, &p), 0);
	return p;
}

/*
 * Two mappings of one BO show the same bytes, whatever installs the pages:
 * VRAM (io, copied pages), a modelled CPU cache (copied) or system memory
 * (zero-copy); writes through either survive evictions; each mapping holds
 * the BO past the owner's release until its munmap.
 */
static void ttm_bo_vma_two_mappings(enum ttm_vm_fault_mode mode, bool cpu_cache)
{
	struct ttm_buffer_object *bo;
	uint64_t size = 32 * PG, sum;
	uint8_t *a, *b;

	setup(mode, 256, 256);
	if (cpu_cache)
		ASSERT_EQ(ttm_bo_vm_set_cpu_cache(&tdev.bdev, true), 0);
	vma_opens = 0;
	bo = bo_create_filled(size, TTM_PL_VRAM, 41);
	sum = bo_checksum(bo);
	a = vma_map(bo, 0, 32, NULL, 0);
	b = vma_map(bo, 0, 32, NULL, 0);
	ASSERT_TRUE(a && b && a != b);
	EXPECT_EQ(vma_opens, 2);
	EXPECT_EQ(vm_stats(bo).mappings, 2);
	EXPECT_UEQ(map_checksum(a, size), sum);
	EXPECT_UEQ(map_checksum(b, size), sum);
	/* A write through one is what the other reads, page after page. */
	for (unsigned long i = 0; i < 32; i++) {
		a[i * PG + 7] = (uint8_t)(i + 1);
		EXPECT_EQ(b[i * PG + 7], (uint8_t)(i + 1));
		b[i * PG + 9] = (uint8_t)(i + 2);
		EXPECT_EQ(a[i * PG + 9], (uint8_t)(i + 2));
	}
	sum = map_checksum(a, size);
	EXPECT_UEQ(map_checksum(b, size), sum);
	/* The owner lets go: the mappings hold the BO. */
	ttm_bo_vm_release(bo);
	ttm_bo_put(bo);
	EXPECT_EQ(atomic_load(&tdev.bdev.stats.bo_count), 1);
	ASSERT_EQ(evict(TTM_PL_VRAM), 0);
	EXPECT_UEQ(map_checksum(b, size), sum);
	EXPECT_UEQ(map_checksum(a, size), sum);
	EXPECT_EQ(ttm_bo_vm_munmap_vma(a, size), 0);
	EXPECT_EQ(vma_opens, 1);
	EXPECT_UEQ(map_checksum(b, size), sum);
	EXPECT_EQ(ttm_bo_vm_munmap_vma(a, size), -ENOENT);
	EXPECT_EQ(ttm_bo_vm_munmap_vma(b, size), 0);
	EXPECT_EQ(vma_opens, 0);
	ttm_device_flush_delayed(&tdev.bdev, true);
	EXPECT_EQ(atomic_load(&tdev.bdev.stats.bo_count), 0);
	if (cpu_cache)
		EXPECT_EQ(ttm_bo_vm_set_cpu_cache(&tdev.bdev, false), 0);
	teardown();
}

static void ttm_bo_vma_two_mappings_io(enum ttm_vm_fault_mode mode)
{
	ttm_bo_vma_two_mappings(mode, false);
}
BOTH_MODES(ttm_bo_vma_two_mappings_io)

static void ttm_bo_vma_two_mappings_cpu_cache(enum ttm_vm_fault_mode mode)
{
	ttm_bo_vma_two_mappings(mode, true);
}
BOTH_MODES(ttm_bo_vma_two_mappings_cpu_cache)

/*
 * munmap of the middle of a mapping leaves two mappings that keep their
 * page offsets; of a head or tail trims; a mapping at a page offset shows
 * those BO pages; writes to unmapped parts stay in the BO; the BO goes
 * with the last part.
 */
static void ttm_bo_vma_partial_munmap(enum ttm_vm_fault_mode mode, uint32_t mem_type)
{
	struct ttm_buffer_object *bo;
	uint64_t size = 16 * PG;
	uint8_t *p, *v, *w;

	setup(mode, 256, 256);
	vma_opens = 0;
	bo = bo_create_filled(size, mem_type, 42);
	p = bo_view(bo);
	v = vma_map(bo, 0, 16, NULL, 0);
	w = vma_map(bo, 5, 3, NULL, 0);
	ASSERT_TRUE(p && v && w);
	EXPECT_EQ(memcmp(w, p + 5 * PG, 3 * PG), 0);
	v[2 * PG] = 0x11;  /* in the part unmapped below */
	v[10 * PG] = 0x22; /* in the tail part */
	EXPECT_EQ(ttm_bo_vm_munmap_vma(v + 2 * PG, 4 * PG), 0);
	EXPECT_EQ(vm_stats(bo).mappings, 3);
	EXPECT_EQ(vma_opens, 3);
	EXPECT_EQ(p[2 * PG], 0x11);
	/* The parts keep their offsets. */
	EXPECT_EQ(memcmp(v, p, 2 * PG), 0);
	EXPECT_EQ(memcmp(v + 6 * PG, p + 6 * PG, 10 * PG), 0);
	EXPECT_EQ(v[10 * PG], 0x22);
	/*
	 * The hole is no mapping of ours any more. (Whether the address space is
	 * free is not ours to say: under ASan its allocator maps into it at once.)
	 */
	EXPECT_EQ(ttm_bo_vm_munmap_vma(v + 2 * PG, 4 * PG), -ENOENT);
	/* Trim the tail part at both ends, then write what is left. */
	EXPECT_EQ(ttm_bo_vm_munmap_vma(v + 6 * PG, PG), 0);
	EXPECT_EQ(ttm_bo_vm_munmap_vma(v + 15 * PG, PG), 0);
	EXPECT_EQ(vm_stats(bo).mappings, 3);
	memset(v + 7 * PG, 0x33, 8 * PG);
	w[0] = 0x44; /* BO page 5 */
	ASSERT_EQ(evict(mem_type), 0);
	EXPECT_EQ(p[7 * PG], 0x33);
	EXPECT_EQ(p[15 * PG - 1], 0x33);
	EXPECT_EQ(p[5 * PG], 0x44);
	EXPECT_EQ(v[7 * PG], 0x33);
	/* Errors as munmap(2): unaligned, empty; nothing of ours there. */
	EXPECT_EQ(ttm_bo_vm_munmap_vma(v + 1, PG), -EINVAL);
	EXPECT_EQ(ttm_bo_vm_munmap_vma(v, 0), -EINVAL);
	EXPECT_EQ(ttm_bo_vm_munmap_vma(v + 2 * PG, PG), -ENOENT);
	/* One munmap over several mappings and holes. */
	EXPECT_EQ(ttm_bo_vm_munmap_vma(v, 16 * PG), 0);
	EXPECT_EQ(ttm_bo_vm_munmap_vma(w, 3 * PG), 0);
	EXPECT_EQ(vma_opens, 0);
	EXPECT_EQ(vm_stats(bo).mappings, 0);
	bo_unmap_put(bo);
	teardown();
}

static void ttm_bo_vma_partial_munmap_tt(enum ttm_vm_fault_mode mode)
{
	ttm_bo_vma_partial_munmap(mode, TTM_PL_TT);
}
BOTH_MODES(ttm_bo_vma_partial_munmap_tt)

static void ttm_bo_vma_partial_munmap_vram(enum ttm_vm_fault_mode mode)
{
	ttm_bo_vma_partial_munmap(mode, TTM_PL_VRAM);
}
BOTH_MODES(ttm_bo_vma_partial_munmap_vram)

/* MAP_FIXED, MAP_FIXED_NOREPLACE and mremap moves of process mappings. */
static void ttm_bo_vma_fixed_and_move(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;
	uint8_t *p, *v, *w, *hint;
	void *out = NULL;

	setup(mode, 256, 256);
	vma_opens = 0;
	bo = bo_create_filled(8 * PG, TTM_PL_VRAM, 43);
	p = bo_view(bo);
	/*
	 * Address space to place mappings in, kept reserved: freed, another
	 * thread (ASan's allocator, a fault worker) may map into it first.
	 */
	hint = mmap(NULL, 32 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(hint != MAP_FAILED);
	v = vma_map(bo, 0, 8, hint, MAP_FIXED);
	EXPECT_TRUE(v == hint);
	EXPECT_EQ(ttm_bo_vm_mmap_vma(bo, &vma_ops, NULL, 0, 8, hint + 4 * PG, MAP_FIXED_NOREPLACE,
				     &ctx, &out),
		  -EEXIST);
	/* MAP_FIXED over the second half replaces it: two mappings, the new one at offset 2. */
	w = vma_map(bo, 2, 4, hint + 4 * PG, MAP_FIXED);
	EXPECT_TRUE(w == hint + 4 * PG);
	EXPECT_EQ(vm_stats(bo).mappings, 2);
	EXPECT_EQ(memcmp(w, p + 2 * PG, 4 * PG), 0);
	EXPECT_EQ(memcmp(v, p, 4 * PG), 0);
	/* Bad arguments. */
	EXPECT_EQ(ttm_bo_vm_mmap_vma(bo, &vma_ops, NULL, 6, 3, NULL, 0, &ctx, &out), -EINVAL);
	EXPECT_EQ(ttm_bo_vm_mmap_vma(bo, &vma_ops, NULL, 0, 0, NULL, 0, &ctx, &out), -EINVAL);
	EXPECT_EQ(ttm_bo_vm_mmap_vma(bo, &vma_ops, NULL, 0, 1, hint + 1, MAP_FIXED, &ctx, &out),
		  -EINVAL);
	/* Move the last page of the first mapping away (mremap): content and offset kept. */
	v[3 * PG + 1] = 0x5c;
	EXPECT_EQ(ttm_bo_vm_move_vma(v + 3 * PG, PG, hint + 20 * PG, &out), 0);
	EXPECT_TRUE(out == hint + 20 * PG);
	EXPECT_EQ(((uint8_t *)out)[1], 0x5c);
	EXPECT_EQ(memcmp(out, p + 3 * PG, PG), 0);
	EXPECT_EQ(vm_stats(bo).mappings, 3);
	EXPECT_EQ(vma_opens, 3);
	EXPECT_EQ(ttm_bo_vm_munmap_vma(v + 3 * PG, PG), -ENOENT);
	/* Not inside one mapping; overlapping; not ours. */
	EXPECT_EQ(ttm_bo_vm_move_vma(v, 8 * PG, hint + 24 * PG, &out), -EFAULT);
	EXPECT_EQ(ttm_bo_vm_move_vma(w, 2 * PG, w + PG, &out), -EINVAL);
	EXPECT_EQ(ttm_bo_vm_move_vma(hint + 12 * PG, PG, hint + 24 * PG, &out), -ENOENT);
	EXPECT_EQ(ttm_bo_vm_munmap_vma(hint, 32 * PG), 0);
	EXPECT_EQ(vma_opens, 0);
	munmap(hint, 32 * PG); /* what is left of the reservation */
	bo_unmap_put(bo);
	teardown();
}
BOTH_MODES(ttm_bo_vma_fixed_and_move)

/* A fault waiting for the reservation while its page went to a split-off part retries. */
static void ttm_bo_vma_split_under_fault(enum ttm_vm_fault_mode mode)
{
	struct ttm_buffer_object *bo;
	uint8_t *p, *v;

	setup(mode, 256, 256);
	vma_opens = 0;
	bo = bo_create_filled(8 * PG, TTM_PL_SYSTEM, 44);
	p = bo_view(bo);
	v = vma_map(bo, 0, 8, NULL, 0);
	EXPECT_EQ(ttm_bo_vm_munmap_vma(v + PG, PG), 0);
	/* Pages of the tail were absent at the split: they fault into the tail part. */
	EXPECT_EQ(memcmp(v + 2 * PG, p + 2 * PG, 6 * PG), 0);
	EXPECT_EQ(memcmp(v, p, PG), 0);
	EXPECT_EQ(ttm_bo_vm_munmap_vma(v, 8 * PG), 0);
	bo_unmap_put(bo);
	teardown();
}
BOTH_MODES(ttm_bo_vma_split_under_fault)

/*
 * ttm_bo_vm_flush_range() writes back and drops only the copied pages of
 * the span, in every mapping.
 */
static void ttm_bo_vma_flush_range(enum ttm_vm_fault_mode mode)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_buffer_object *bo;
	struct ttm_bo_vm_stats st;
	uint8_t *v, *w, byte;

	setup(mode, 256, 256);
	ASSERT_EQ(ttm_bo_vm_set_cpu_cache(&tdev.bdev, true), 0);
	bo = bo_create_filled(32 * PG, TTM_PL_SYSTEM, 45);
	v = vma_map(bo, 0, 32, NULL, 0);
	w = vma_map(bo, 16, 16, NULL, 0);
	v[2 * PG] = 0x71;
	v[20 * PG] = 0x72;
	st = vm_stats(bo);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ttm_bo_vm_flush_range(bo, 2 * PG + 5, 1);
	EXPECT_EQ(ttm_bo_access(bo, 2 * PG, &byte, 1, false, &ctx), 0);
	EXPECT_EQ(byte, 0x71);
	/* Page 20 is still only in the copy. */
	EXPECT_EQ(ttm_bo_access(bo, 20 * PG, &byte, 1, false, &ctx), 0);
	EXPECT_NE(byte, 0x72);
	ttm_bo_vm_flush_range(bo, 20 * PG, PG);
	EXPECT_EQ(ttm_bo_access(bo, 20 * PG, &byte, 1, false, &ctx), 0);
	EXPECT_EQ(byte, 0x72);
	ttm_bo_vm_flush_range(bo, 64 * PG, PG); /* past the end: nothing */
	ttm_bo_unreserve(bo);
	EXPECT_EQ(vm_stats(bo).invalidations, st.invalidations);
	EXPECT_EQ(w[4 * PG], 0x72);
	EXPECT_EQ(v[2 * PG], 0x71);
	EXPECT_EQ(ttm_bo_vm_munmap_vma(v, 32 * PG), 0);
	EXPECT_EQ(ttm_bo_vm_munmap_vma(w, 16 * PG), 0);
	ttm_bo_vm_release(bo);
	ttm_bo_put(bo);
	EXPECT_EQ(ttm_bo_vm_set_cpu_cache(&tdev.bdev, false), 0);
	teardown();
}
BOTH_MODES(ttm_bo_vma_flush_range)

static const void *hook_bo;
static uint64_t hook_seq;
static int hook_calls;

static void unmap_hook(const void *bo, uint64_t seq)
{
	hook_bo = bo;
	hook_seq = seq;
	hook_calls++;
}

/*
 * ttm_bo_vm_fault_backing() faults the page in and names the memfd pages
 * behind it; the unmap hook runs at the next invalidation (a move), not at
 * a flush, and only once per hand-out.
 */
static void ttm_bo_vma_fault_backing(enum ttm_vm_fault_mode mode)
{
	struct ttm_bo_vm_backing b;
	struct ttm_buffer_object *bo;
	uint8_t *v, page[PG];

	setup(mode, 256, 256);
	hook_calls = 0;
	ttm_bo_vm_set_unmap_hook(unmap_hook);
	bo = bo_create_filled(8 * PG, TTM_PL_SYSTEM, 46);
	v = vma_map(bo, 0, 8, NULL, 0);
	EXPECT_EQ(ttm_bo_vm_fault_backing(v + 3 * PG, &b), 0);
	EXPECT_TRUE(b.bo == bo);
	EXPECT_GE(b.pages, 1);
	EXPECT_LE(b.pages, 5);
	EXPECT_EQ(pread(b.fd, page, PG, (off_t)b.offset), (ssize_t)PG);
	EXPECT_EQ(memcmp(page, v + 3 * PG, PG), 0);
	EXPECT_EQ(ttm_bo_vm_fault_backing(&b, &b), -EFAULT);
	EXPECT_EQ(ttm_bo_vm_fault_backing(v, NULL), -EINVAL);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ttm_bo_vm_flush(bo);
	ttm_bo_unreserve(bo);
	EXPECT_EQ(hook_calls, 0);
	ASSERT_EQ(ttm_bo_reserve(bo, false, false, NULL), 0);
	ttm_bo_vm_unmap_virtual(bo);
	ttm_bo_vm_unmap_virtual(bo);
	ttm_bo_unreserve(bo);
	EXPECT_EQ(hook_calls, 1);
	EXPECT_TRUE(hook_bo == bo);
	EXPECT_GT(hook_seq, b.seq);
	ttm_bo_vm_set_unmap_hook(NULL);
	EXPECT_EQ(ttm_bo_vm_munmap_vma(v, 8 * PG), 0);
	ttm_bo_vm_release(bo);
	ttm_bo_put(bo);
	teardown();
}
BOTH_MODES(ttm_bo_vma_fault_backing)
