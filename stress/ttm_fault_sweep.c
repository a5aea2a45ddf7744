// SPDX-License-Identifier: MIT
/*
 * ttm_fault_sweep - fail every registered fault point (core and simulated
 * GPU) at every hit of a fixed workload and prove the memory manager
 * recovers: clean negative errno, nothing lost, nothing leaked.
 *
 * For each registered fault point P, each part of the workload and N = 1,
 * 2, 3, ... the part runs with P armed to fail its Nth hit (the point's
 * one-shot countdown, so the device's worker and engine threads count too),
 * until a run of the part completes without hitting it. The parts:
 *  - core: create BOs in SYSTEM, TT and VRAM, fill them with their pattern,
 *    validate them round all three types with VRAM and TT too small for all
 *    of them (evictions), swap everything out, read everything back
 *    (swap-in, VRAM reads), move again, destroy;
 *  - uapi: a client of a ttm_drm_device creates, references, maps (the
 *    pattern written through the CPU mapping, SIGBUS from a mapping that
 *    cannot be installed caught as the clean failure), revalidates, reads
 *    back and unreferences buffers;
 *  - i915: the simulated GPU runs relocated store batches into system and
 *    local-memory objects; a hung batch's fence ends -EIO, its context is
 *    blamed, everything else stays intact; one request carries more inline
 *    dwords than the submit's stack buffer;
 *  - softpin: execbuffers whose objects are all softpinned (a system and,
 *    when the device has it, a local-memory target and the batch), swapped
 *    out and moved to new addresses over an evictable object for the
 *    second pass; a failed call is retried until one succeeds, and the
 *    GGTT must hold exactly what the objects hold after every call.
 * Every call either succeeds or returns one of -ENOMEM, -EIO, -ENOSPC,
 * -EBUSY (a mapped access: -EFAULT from SIGBUS); never -EINVAL, since every
 * argument is valid. A call failed by an allocation point (see
 * point_is_alloc()) must say -ENOMEM where the softpin part checks it.
 *
 * After each run: every BO whose fill succeeded still reads back its exact
 * pattern (read after the fault fired, so a failed swap-in or move that
 * dropped pages shows up), the managers' usage is zero once all BOs are
 * put, the device has no BO or ghost left and tears down, and the live
 * fence count and the global page count are back at their baseline. Under
 * ASan, LeakSanitizer checks the process at exit on top of that.
 *
 * Dynamic subtests: one per point ("each-point"), and "probabilistic" runs
 * every point at a small probability from the printed seed (--seed N, or
 * IGT_SEED, reproduces a run exactly).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <fault_inject.h>
#include <i915/i915_cmds.h>
#include <i915/i915_drv.h>
#include <i915/i915_engine.h>
#include <i915/i915_faults.h>
#include <i915/i915_gem.h>
#include <ttm/dma_fence.h>
#include <ttm/ttm_bo.h>
#include <ttm/ttm_bo_vm.h>
#include <ttm/ttm_drm_device.h>
#include <ttm/ttm_faults.h>
#include <ttm/ttm_global.h>
#include <ttm_drm.h>

#include "igt.h"
#include "stress_fence.h"
#include "stress_util.h"
#include "ttm_mock.h"
#include "ttm_uapi_helpers.h"
#include "ttm_uapi_mock.h"

#define SWEEP_VRAM_PAGES 32
#define SWEEP_TT_PAGES 48
#define SWEEP_BOS 12
#define SWEEP_MAX_NTH 400

/*
 * struct sweep_result - what a part's run reports, and one input: @armed is
 * the point armed for its Nth hit alone (one fault in the whole run, so a
 * retry after it must succeed), NULL when every point may fire at random.
 */
struct sweep_result {
	const struct fault_attr *armed;
	unsigned long fired; /* faults injected by the last workload run */
	uint64_t ops;
	uint64_t failed_ops;
	uint64_t bytes_verified;
	/* The softpin part's execbuffers: refused (-ENOMEM of them), hung, run after a retry. */
	uint64_t sp_refused, sp_enomem, sp_hung, sp_retried;
};

static bool errno_ok(int ret)
{
	return ret == 0 || ret == -ENOMEM || ret == -EIO || ret == -ENOSPC || ret == -EBUSY;
}

/* Does @attr stand for a failed allocation (a call it fails says -ENOMEM)? */
static bool point_is_alloc(const struct fault_attr *attr)
{
	static const struct fault_attr *const alloc[] = {
	    &ttm_fault_bo_alloc,     &ttm_fault_resource_alloc, &ttm_fault_pool_alloc,
	    &ttm_fault_tt_alloc,     &ttm_fault_fence_alloc,	&ttm_fault_resv_reserve,
	    &ttm_fault_handle_alloc, &i915_fault_exec_alloc,	&i915_fault_obj_alloc,
	    &i915_fault_tt_create,   &i915_fault_ctx_alloc,	&i915_fault_request_dw_alloc,
	};

	for (unsigned i = 0; i < sizeof(alloc) / sizeof(alloc[0]); i++)
		if (attr == alloc[i])
			return true;
	return false;
}

#define sweep_check_ret(res, ret, what)                                                            \
	do {                                                                                       \
		int r_ = (ret);                                                                    \
		(res)->ops++;                                                                      \
		if (r_)                                                                            \
			(res)->failed_ops++;                                                       \
		igt_assert_f(errno_ok(r_), "%s returned %d\n", (what), r_);                        \
	} while (0)

static const struct ttm_place place_sys = {.mem_type = TTM_PL_SYSTEM};
static const struct ttm_place place_tt = {.mem_type = TTM_PL_TT};
static const struct ttm_place place_vram = {.mem_type = TTM_PL_VRAM};

static const struct ttm_placement *placement_for(unsigned i)
{
	static const struct ttm_placement p[3] = {
	    {1, &place_sys},
	    {1, &place_tt},
	    {1, &place_vram},
	};

	return &p[i % 3];
}

/*
 * Make @mbo busy with a fresh WRITE fence (fault points fence_alloc and
 * resv_reserve live on this path). Returns the fence for the caller to
 * signal and put, or NULL when an injected failure refused it.
 */
static struct dma_fence *sweep_make_busy(struct ttm_mock_bo *mbo, uint64_t context, uint64_t seqno,
					 struct sweep_result *res)
{
	struct dma_fence *f = stress_fence_create(context, seqno);
	int ret;

	if (!f) {
		sweep_check_ret(res, -ENOMEM, "dma_fence_alloc");
		return NULL;
	}
	igt_assert_eq(ttm_bo_reserve(&mbo->base, false, false, NULL), 0);
	ret = dma_resv_reserve_fences(mbo->base.resv, 1);
	sweep_check_ret(res, ret, "dma_resv_reserve_fences");
	if (!ret)
		igt_assert_eq(dma_resv_add_fence(mbo->base.resv, f, DMA_RESV_USAGE_WRITE), 0);
	ttm_bo_unreserve(&mbo->base);
	return f;
}

/* Read @mbo back; a read refused by an injected fault is retried once. */
static void sweep_verify(struct ttm_mock_bo *mbo, struct sweep_result *res, bool final)
{
	struct ttm_operation_ctx ctx = {0};
	uint64_t bad = 0;
	int ret;

	if (!mbo->filled)
		return;
	ret = ttm_mock_bo_verify(mbo, &ctx, &bad);
	if (ret && ret != -EILSEQ && !final) {
		sweep_check_ret(res, ret, "ttm_bo_access (read)");
		return;
	}
	igt_assert_f(ret == 0, "BO seed %" PRIu64 ": %s at byte %" PRIu64 " (ret %d)\n", mbo->seed,
		     ret == -EILSEQ ? "content lost" : "unreadable", bad, ret);
	res->bytes_verified += mbo->base.size;
}

/* What a part must leave as it found it: live fences, pages TTM holds. */
struct sweep_baseline {
	long fences;
	uint64_t pages;
};

/* A part's start: nothing fired yet, the leak counters as they are now. */
static void sweep_begin(struct sweep_result *res, struct sweep_baseline *base)
{
	struct ttm_global_stats gs;

	res->fired = 0;
	base->fences = dma_fence_live_count();
	ttm_global_get_stats(&gs);
	base->pages = gs.pages;
}

/* Disarm every point; what fired so far counts in @res. */
static void sweep_disarm(struct sweep_result *res)
{
	res->fired += fault_total_fired();
	fault_reset_all();
}

/* A part's end, everything freed: disarmed, and no fence or page leaked. */
static void sweep_end(struct sweep_result *res, const struct sweep_baseline *base)
{
	struct ttm_global_stats gs;

	sweep_disarm(res);
	ttm_global_get_stats(&gs);
	igt_assert_eq_s64(dma_fence_live_count(), base->fences);
	igt_assert_eq_u64(gs.pages, base->pages);
}

static void sigbus_install(void);
static int mapped_access(volatile uint64_t *ptr, uint64_t size, uint64_t seed, bool write);

/*
 * Process mappings of @mbo as mmap(2), munmap(2) and mremap(2) make them
 * (ttm_bo_vm_mmap_vma() and friends; map_alloc: the mapping, its state,
 * a split's tail, a moved part): map it whole, read the pattern through
 * it (a page that cannot be installed raises SIGBUS, the clean failure),
 * punch out the second page (a split), move the first page elsewhere and
 * read it there, then unmap everything; the BO's release must still free
 * it at the end of the part.
 */
static void sweep_vma(struct ttm_mock_bo *mbo, struct sweep_result *res)
{
	const uint64_t pg = TTM_PAGE_SIZE, size = mbo->base.size;
	struct ttm_operation_ctx ctx = {0};
	uint8_t *addr, *moved = NULL;
	void *spare, *out;
	int ret;

	if (!mbo->filled || size < 3 * pg)
		return;
	sigbus_install();
	ret =
	    ttm_bo_vm_mmap_vma(&mbo->base, NULL, NULL, 0, size / pg, NULL, 0, &ctx, (void **)&addr);
	sweep_check_ret(res, ret, "ttm_bo_vm_mmap_vma");
	if (ret)
		return;
	ret = mapped_access((volatile uint64_t *)addr, size, mbo->seed, false);
	igt_assert_f(ret != -EILSEQ, "content lost through a process mapping\n");
	/* SIGBUS (-EFAULT): a page that could not be installed, the clean failure. */
	sweep_check_ret(res, ret == -EFAULT ? -EIO : ret, "read through a process mapping");
	ret = ttm_bo_vm_munmap_vma(addr + pg, pg);
	sweep_check_ret(res, ret, "ttm_bo_vm_munmap_vma (split)");
	/* A page of address space to move the first page to (MAP_FIXED-like). */
	spare = mmap(NULL, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	igt_assert(spare != MAP_FAILED);
	ret = ttm_bo_vm_move_vma(addr, pg, spare, &out);
	sweep_check_ret(res, ret, "ttm_bo_vm_move_vma");
	if (!ret) {
		moved = out;
		ret = mapped_access((volatile uint64_t *)moved, pg, mbo->seed, false);
		igt_assert_f(ret != -EILSEQ, "content lost through a moved mapping\n");
		sweep_check_ret(res, ret == -EFAULT ? -EIO : ret, "read through a moved mapping");
	} else {
		munmap(spare, pg);
	}
	/* The moved page first: it may sit in the hole the split left. */
	if (moved)
		igt_assert_eq(ttm_bo_vm_munmap_vma(moved, pg), 0);
	/* Whatever is left: -ENOENT only when nothing of it was mapped. */
	ret = ttm_bo_vm_munmap_vma(addr, size);
	igt_assert_f(ret == 0 || ret == -ENOENT, "ttm_bo_vm_munmap_vma returned %d\n", ret);
}

/*
 * The 2007 libdrm mapping (ttm_bo_mmap(), BO_MAP) of @mbo with a CPU
 * placement of its own (map_alloc: the mapping state and its placement
 * copy): map, read the pattern, drop the map count. The range stays until
 * the owner's ttm_bo_vm_release() at the end of the part.
 */
static void sweep_bo_map(struct ttm_mock_bo *mbo, struct sweep_result *res)
{
	struct ttm_operation_ctx ctx = {0};
	void *p;
	int ret;

	if (!mbo->filled)
		return;
	sigbus_install();
	ret = ttm_bo_mmap(&mbo->base, placement_for(1), &ctx, &p);
	sweep_check_ret(res, ret, "ttm_bo_mmap");
	if (ret)
		return;
	ret = mapped_access(p, mbo->base.size, mbo->seed, false);
	igt_assert_f(ret != -EILSEQ, "content lost through a BO map\n");
	sweep_check_ret(res, ret == -EFAULT ? -EIO : ret, "read through a BO map");
	igt_assert_eq(ttm_bo_munmap(&mbo->base), 0);
}

/*
 * A bounded wait on any of the pending @busy fences (fence_alloc: the
 * callback array): none signals within 1 us, so it times out (0), or an
 * injected failure refuses it (-ENOMEM).
 */
static void sweep_wait_any(struct dma_fence **busy, struct sweep_result *res)
{
	struct dma_fence *pending[SWEEP_BOS];
	unsigned n = 0;
	int64_t ret;

	for (unsigned i = 0; i < SWEEP_BOS; i++)
		if (busy[i])
			pending[n++] = busy[i];
	if (!n)
		return;
	ret = dma_fence_wait_any_timeout(pending, n, false, 1000, NULL);
	sweep_check_ret(res, ret > 0 ? 0 : (int)ret, "dma_fence_wait_any_timeout");
}

/*
 * One BO released while its fence is pending: it waits on the device's
 * delayed-destroy list and the worker watches its fence (worker_alloc: the
 * fence snapshot and the wake callback's arrays; resv_reserve: the BO's
 * fence snapshot). Waits until the worker has made its three allocations
 * (more when one failed and it retried by polling), at most 2 s, then
 * signals the fence; the final flush must free the BO either way.
 */
static void sweep_release_busy(struct ttm_mock_device *mdev, uint64_t context,
			       struct sweep_result *res)
{
	struct ttm_operation_ctx ctx = {0};
	struct ttm_mock_bo *bo;
	struct dma_fence *f;
	unsigned long before;
	int ret;

	ret = ttm_mock_bo_create(mdev, 4 * TTM_PAGE_SIZE, 3000, placement_for(0), &ctx, &bo);
	sweep_check_ret(res, ret, "ttm_mock_bo_create");
	if (ret)
		return;
	f = sweep_make_busy(bo, context, SWEEP_BOS + 1, res);
	before = fault_hits(&ttm_fault_worker_alloc);
	ttm_bo_put(&bo->base);
	if (!f)
		return;
	for (int ms = 0; ms < 2000 && fault_hits(&ttm_fault_worker_alloc) < before + 3; ms++)
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	dma_fence_signal(f);
	dma_fence_put(f);
}

/*
 * A busy BO validated to no placement at all: its memory goes to a ghost
 * object that keeps the pending fence (pipeline gutting; bo_alloc: the
 * ghost), the BO itself is left without backing. The final flush must
 * free the ghost once the fence has signalled.
 */
static void sweep_gut_busy(struct ttm_mock_device *mdev, uint64_t context, struct sweep_result *res)
{
	static const struct ttm_placement none = {0, NULL};
	struct ttm_operation_ctx ctx = {0};
	struct ttm_mock_bo *bo;
	struct dma_fence *f;
	int ret;

	ret = ttm_mock_bo_create(mdev, 4 * TTM_PAGE_SIZE, 3001, placement_for(1), &ctx, &bo);
	sweep_check_ret(res, ret, "ttm_mock_bo_create");
	if (ret)
		return;
	f = sweep_make_busy(bo, context, SWEEP_BOS + 2, res);
	igt_assert_eq(ttm_bo_reserve(&bo->base, false, false, NULL), 0);
	ret = ttm_bo_validate(&bo->base, &none, &ctx);
	sweep_check_ret(res, ret, "ttm_bo_validate (no placement)");
	ttm_bo_unreserve(&bo->base);
	ttm_bo_put(&bo->base);
	if (f) {
		dma_fence_signal(f);
		dma_fence_put(f);
	}
}

/*
 * The fixed workload. Faults may fire anywhere in it; only the final
 * verification runs with every point disarmed.
 */
static void sweep_core(struct sweep_result *res)
{
	struct ttm_mock_device mdev;
	struct ttm_mock_bo *bo[SWEEP_BOS] = {NULL};
	struct dma_fence *busy[SWEEP_BOS] = {NULL};
	uint64_t context;
	struct ttm_operation_ctx ctx = {0};
	struct sweep_baseline base;
	int ret;

	sweep_begin(res, &base);
	ret = ttm_mock_device_init(&mdev, SWEEP_TT_PAGES, SWEEP_VRAM_PAGES);
	sweep_check_ret(res, ret, "device init");
	if (ret)
		goto out_counters;

	/* Create: 12 BOs of 4..12 pages, 96 pages in all, VRAM holds 32. */
	for (unsigned i = 0; i < SWEEP_BOS; i++) {
		uint64_t size = (4 + (i * 5) % 9) * TTM_PAGE_SIZE;

		ctx = (struct ttm_operation_ctx){0};
		ret = ttm_mock_bo_create(&mdev, size, 1000 + i, placement_for(i), &ctx, &bo[i]);
		sweep_check_ret(res, ret, "ttm_mock_bo_create");
		if (ret)
			bo[i] = NULL;
	}

	/* Every BO busy for the first validate pass (no waiting allowed there). */
	context = dma_fence_context_alloc(1);
	for (unsigned i = 0; i < SWEEP_BOS; i++)
		busy[i] = bo[i] ? sweep_make_busy(bo[i], context, i + 1, res) : NULL;
	sweep_wait_any(busy, res);

	/* Validate round the types twice: VRAM and TT overflow, evictions. */
	for (unsigned pass = 1; pass <= 2; pass++) {
		for (unsigned i = 0; i < SWEEP_BOS; i++) {
			if (!bo[i])
				continue;
			ctx = (struct ttm_operation_ctx){.no_wait_gpu = pass == 1};
			igt_assert_eq(ttm_bo_reserve(&bo[i]->base, false, false, NULL), 0);
			ret = ttm_bo_validate(&bo[i]->base, placement_for(i + pass), &ctx);
			sweep_check_ret(res, ret, "ttm_bo_validate");
			ttm_bo_unreserve(&bo[i]->base);
		}
		for (unsigned i = 0; i < SWEEP_BOS; i++) {
			if (!busy[i])
				continue;
			dma_fence_signal(busy[i]);
			dma_fence_put(busy[i]);
			busy[i] = NULL;
		}
		for (unsigned i = 0; i < SWEEP_BOS; i++) {
			if (!bo[i])
				continue;
			igt_assert_eq(ttm_bo_reserve(&bo[i]->base, false, false, NULL), 0);
			sweep_verify(bo[i], res, false);
			ttm_bo_unreserve(&bo[i]->base);
		}
	}
	for (unsigned i = 0; i < SWEEP_BOS; i++)
		if (bo[i] && i % 4 == 1)
			sweep_vma(bo[i], res);
		else if (bo[i] && i % 4 == 3)
			sweep_bo_map(bo[i], res);

	/* Evict VRAM entirely, then swap out what is in SYSTEM. */
	ctx = (struct ttm_operation_ctx){0};
	ret = ttm_bo_evict_mem_type(&mdev.base.bdev, TTM_PL_VRAM, &ctx);
	sweep_check_ret(res, ret, "ttm_bo_evict_mem_type");
	ctx = (struct ttm_operation_ctx){0};
	ttm_device_swapout(&mdev.base.bdev, &ctx, 1u << 20);
	res->ops++;
	sweep_release_busy(&mdev, context, res);
	sweep_gut_busy(&mdev, context, res);

	/* Rewrite half of them (swap-in for write), read all (swap-in). */
	for (unsigned i = 0; i < SWEEP_BOS; i++) {
		if (!bo[i])
			continue;
		ctx = (struct ttm_operation_ctx){0};
		igt_assert_eq(ttm_bo_reserve(&bo[i]->base, false, false, NULL), 0);
		if (i % 2) {
			ret = ttm_mock_bo_fill(bo[i], 2000 + i, &ctx);
			sweep_check_ret(res, ret, "ttm_mock_bo_fill");
		}
		sweep_verify(bo[i], res, false);
		ttm_bo_unreserve(&bo[i]->base);
	}

	/* Everything disarmed from here: what survived must be intact. */
	sweep_disarm(res);
	for (unsigned i = 0; i < SWEEP_BOS; i++) {
		if (!bo[i])
			continue;
		igt_assert_eq(ttm_bo_reserve(&bo[i]->base, false, false, NULL), 0);
		sweep_verify(bo[i], res, true);
		ttm_bo_unreserve(&bo[i]->base);
		/* The owner lets go of its mapping state (sweep_vma) first. */
		ttm_bo_vm_release(&bo[i]->base);
		ttm_bo_put(&bo[i]->base);
		bo[i] = NULL;
	}
	ttm_device_flush_delayed(&mdev.base.bdev, true);
	/*
	 * Fences are counted after the device's fini (sweep_end()): until the
	 * worker's next pass its wake callbacks may still hold a reference
	 * on a fence of a BO the flush freed (sweep_release_busy()).
	 */
	igt_assert_eq_u64(ttm_resource_manager_usage(&mdev.base.vram.manager), 0);
	igt_assert_eq_u64(ttm_resource_manager_usage(&mdev.base.tt.manager), 0);
	igt_assert_eq_u64(atomic_load(&mdev.base.bdev.stats.bo_count), 0);
	igt_assert_eq_u64(atomic_load(&mdev.base.bdev.stats.ghost_count), 0);
	igt_assert_eq_u64(atomic_load(&mdev.stats.move_mismatches), 0);
	igt_assert_eq(ttm_mock_device_fini(&mdev), 0);
out_counters:
	sweep_end(res, &base);
}

/*
 * The uAPI part: a client of a ttm_drm_device (LOCAL and a small TT made
 * by MM_INIT, fences that signal as they are emitted) creates buffers,
 * takes a second
 * reference, maps them and writes their pattern through the mapping,
 * moves them to a too small TT and back with BO_SETSTATUS (evictions),
 * reads them back through the mapping after each move and unreferences
 * them. handle_alloc fires on the handle table and references, mmap_remap
 * when a CPU access faults a page in.
 */
#define UAPI_BOS 6
#define UAPI_TT_PAGES 5
#define UAPI_RW (DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE)

/* The uAPI mock with a single fence class. */
static const struct ttm_drm_driver uapi_driver = {
    .num_fence_classes = 1,
    .fence_types = 0x2,
    .fence_emit = ttm_uapi_mock_fence_emit,
};

/*
 * A CPU mapping that cannot be installed (mmap_remap) is reported as the
 * kernel does, SIGBUS to the accessing thread; the accessors below catch it
 * and turn it into -EFAULT, the clean failure of a mapped access.
 */
static __thread sigjmp_buf sigbus_jmp;
static __thread volatile sig_atomic_t sigbus_armed;

static void sigbus_handler(int sig)
{
	if (sigbus_armed) {
		sigbus_armed = 0;
		siglongjmp(sigbus_jmp, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void sigbus_install(void)
{
	struct sigaction sa = {.sa_handler = sigbus_handler};

	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NODEFER;
	igt_assert_eq(sigaction(SIGBUS, &sa, NULL), 0);
}

/*
 * Write (@write) or check @seed's pattern through @ptr. Return: 0; -EFAULT
 * on SIGBUS (a page could not be mapped); -EILSEQ on a mismatch.
 */
static __attribute__((noinline)) int mapped_access(volatile uint64_t *ptr, uint64_t size,
						   uint64_t seed, bool write)
{
	if (sigsetjmp(sigbus_jmp, 1))
		return -EFAULT;
	sigbus_armed = 1;
	for (uint64_t w = 0; w < size / 8; w++) {
		if (write) {
			ptr[w] = ttm_mock_pattern(seed, w);
		} else if (ptr[w] != ttm_mock_pattern(seed, w)) {
			sigbus_armed = 0;
			return -EILSEQ;
		}
	}
	sigbus_armed = 0;
	return 0;
}

struct uapi_bo {
	uint32_t handle;
	uint64_t map_handle, size, seed;
	bool created, referenced, mapped, filled;
	uint64_t *ptr;
};

static void uapi_verify(struct uapi_bo *b, struct sweep_result *res, bool final)
{
	int ret;

	if (!b->filled)
		return;
	ret = mapped_access(b->ptr, b->size, b->seed, false);
	if (ret == -EFAULT && !final) {
		res->ops++;
		res->failed_ops++;
		return;
	}
	igt_assert_f(ret == 0, "uAPI buffer %u: %s (ret %d)\n", b->handle,
		     ret == -EILSEQ ? "content lost" : "unreadable", ret);
	res->bytes_verified += b->size;
}

static void sweep_uapi(struct sweep_result *res)
{
	struct ttm_drm_device ddev;
	struct uapi_bo bo[UAPI_BOS];
	bool tt_ok;
	struct sweep_baseline base;
	int fd, ret;

	sweep_begin(res, &base);
	memset(bo, 0, sizeof(bo));
	sigbus_install();
	ttm_uapi_mock_timelines_init();
	ret = ttm_drm_device_init(&ddev, &ttm_uapi_mock_funcs, &uapi_driver, "fault-sweep", false);
	sweep_check_ret(res, ret, "ttm_drm_device_init");
	if (ret)
		goto out;
	fd = ttm_drm_open(&ddev);
	sweep_check_ret(res, fd < 0 ? fd : 0, "ttm_drm_open");
	if (fd < 0)
		goto out_dev;

	for (unsigned i = 0; i < UAPI_BOS; i++) {
		struct uapi_bo *b = &bo[i];
		struct drm_bo_info_rep rep;
		int err = 0;

		ret = uapi_create_bo(fd, DRM_BO_FLAG_MEM_LOCAL | UAPI_RW,
				     (1 + i % 3) * TTM_PAGE_SIZE, &rep);
		sweep_check_ret(res, ret, "BO_CREATE");
		if (ret)
			continue;
		b->created = true;
		b->handle = rep.handle;
		b->map_handle = rep.arg_handle;
		b->size = rep.size;
		b->seed = 3000 + i;
		igt_assert_eq_u64(b->size, (1 + i % 3) * TTM_PAGE_SIZE);

		ret = uapi_bo_ref(fd, b->handle, NULL);
		sweep_check_ret(res, ret, "BO_REFERENCE");
		b->referenced = !ret;

		/* BO_MAP alone first: it may fail by injection, the mmap after it may not. */
		ret = uapi_bo_map_ioctl(fd, b->handle, NULL);
		sweep_check_ret(res, ret, "BO_MAP");
		if (ret)
			continue;
		b->mapped = true;
		b->ptr = ttm_drm_mmap(fd, b->map_handle, b->size, &err);
		igt_assert_f(b->ptr, "ttm_drm_mmap of a mapped buffer: %d\n", err);
		ret = mapped_access(b->ptr, b->size, b->seed, true);
		sweep_check_ret(res, ret == -EFAULT ? -EIO : ret, "mapped write");
		b->filled = !ret;
	}

	/*
	 * A TT of UAPI_TT_PAGES, less than the buffers need: moving every other
	 * buffer there evicts the earlier ones back to LOCAL, and every move
	 * of a mapped buffer makes the next access fault its pages in again.
	 */
	ret = uapi_mm_init(fd, DRM_BO_MEM_TT, 0, UAPI_TT_PAGES);
	sweep_check_ret(res, ret, "MM_INIT");
	tt_ok = !ret;

	/* Validate into TT (every other buffer) and back to LOCAL, reading back after each. */
	for (unsigned pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < UAPI_BOS; i++) {
			bool to_tt = tt_ok && pass == 0 && i % 2 == 0;
			uint64_t mem = to_tt ? DRM_BO_FLAG_MEM_TT : DRM_BO_FLAG_MEM_LOCAL;

			if (!bo[i].created)
				continue;
			ret = uapi_bo_setstatus(
			    fd, bo[i].handle, mem | UAPI_RW,
			    DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_MEM_TT | UAPI_RW, 0, NULL);
			sweep_check_ret(res, ret, "BO_SETSTATUS");
			uapi_verify(&bo[i], res, false);
		}
	}

	sweep_disarm(res);
	for (unsigned i = 0; i < UAPI_BOS; i++) {
		uint32_t h = bo[i].handle;

		if (!bo[i].created)
			continue;
		uapi_verify(&bo[i], res, true);
		if (bo[i].mapped)
			igt_assert_eq(uapi_bo_unmap(fd, h), 0);
		if (bo[i].referenced)
			igt_assert_eq(uapi_bo_unref(fd, h), 0);
		igt_assert_eq(uapi_bo_unref(fd, h), 0);
		/* The handle is gone with its last reference. */
		igt_assert_eq(uapi_bo_unref(fd, h), -EINVAL);
	}
	igt_assert_eq(ttm_drm_close(fd), 0);
out_dev:
	sweep_disarm(res);
	ttm_device_flush_delayed(&ddev.bdev, true);
	igt_assert_eq_u64(atomic_load(&ddev.bdev.stats.bo_count), 0);
	igt_assert_eq(ttm_drm_device_fini(&ddev), 0);
out:
	sweep_end(res, &base);
}

/*
 * The i915 part: the simulated GPU with one context runs a few batches,
 * each storing one distinct dword into a system or local-memory target
 * through a relocation (softpinned objects are the softpin part's).
 * gpu_hang makes the batch it fires on hang: its fence must end -EIO with
 * the context blamed, and every other batch's store and every untouched
 * byte must be intact. Core points fire in the device's and objects'
 * creation, the lmem clears, the binds and the relocation writes.
 */
#define I915_TARGETS 2
#define I915_TARGET_SIZE (16u * 1024u)
#define I915_BATCHES 4

static uint32_t i915_expect(unsigned t, unsigned w)
{
	return 0xc0de0000u ^ (t << 12) ^ w;
}

/* The simulated GPU of the i915 and softpin parts: small, with lmem and stolen memory. */
static void sweep_sim_config(struct i915_device_config *cfg)
{
	i915_device_config_init(cfg, I915_BACKEND_SIM);
	cfg->ggtt_size = 64ull << 20;
	cfg->aperture_size = 1ull << 20;
	cfg->stolen_size = 1ull << 20;
	cfg->lmem_size = 4ull << 20;
	cfg->lmem_visible_size = 1ull << 20;
	/* Long enough that only an injected hang trips it, short enough to sweep. */
	cfg->hangcheck_ms = 100;
}

/*
 * Wait for the out-fence of the execbuffer @eb, which succeeded, and drop
 * it. Return: the fence's status (1; -EIO when its batch hung).
 */
static int sweep_exec_wait(struct i915_execbuffer *eb)
{
	int status;

	igt_assert(eb->out_fence);
	igt_assert_eq(dma_fence_wait(eb->out_fence, false), 0);
	status = dma_fence_get_status(eb->out_fence);
	dma_fence_put(eb->out_fence);
	return status;
}

/*
 * One request of @ctx on the render ring with more inline dwords than the
 * submit's stack buffer holds (request_dw_alloc fires here): noops only, so
 * nothing can hang. It either runs with the seqno the engine was at, or is
 * refused with nothing queued and no seqno used.
 */
#define I915_LONG_REQUEST_DW 64

static void sweep_long_request(struct i915_device *i915, struct i915_context *ctx,
			       struct sweep_result *res)
{
	static const uint32_t noops[I915_LONG_REQUEST_DW] = {MI_NOOP};
	struct i915_engine *rcs = i915_engine_get(i915, I915_ENGINE_RCS);
	unsigned long submitted = atomic_load(&rcs->stats.submitted);
	unsigned long fired = fault_total_fired();
	struct dma_fence *fence = NULL;
	uint32_t seqno;
	int ret;

	pthread_mutex_lock(&rcs->lock);
	seqno = rcs->next_seqno;
	pthread_mutex_unlock(&rcs->lock);
	ret = i915_request_submit(rcs, ctx, noops, I915_LONG_REQUEST_DW, 0, &fence);
	sweep_check_ret(res, ret, "i915_request_submit (long)");
	if (ret) {
		igt_assert_f(!res->armed || fault_total_fired() == fired ||
				 !point_is_alloc(res->armed) || ret == -ENOMEM,
			     "long request: %s failed it with %d, not -ENOMEM\n", res->armed->name,
			     ret);
		igt_assert(!fence);
		igt_assert_eq_u64(atomic_load(&rcs->stats.submitted), submitted);
		pthread_mutex_lock(&rcs->lock);
		igt_assert_eq_u64(rcs->next_seqno, seqno);
		pthread_mutex_unlock(&rcs->lock);
		return;
	}
	igt_assert_eq_u64(fence->seqno, seqno);
	igt_assert_eq(dma_fence_wait(fence, false), 0);
	igt_assert_eq(dma_fence_get_status(fence), 1);
	dma_fence_put(fence);
}

static void sweep_i915(struct sweep_result *res)
{
	struct i915_device_config cfg;
	struct i915_device *i915 = NULL;
	struct i915_context *ctx = NULL;
	struct i915_gem_object *tgt[I915_TARGETS] = {NULL}, *batch = NULL;
	uint32_t want[I915_TARGETS][I915_TARGET_SIZE / 4];
	bool known[I915_TARGETS][I915_TARGET_SIZE / 4];
	struct sweep_baseline base;
	uint64_t hung = 0;
	int ret;

	sweep_begin(res, &base);
	memset(known, 0, sizeof(known));
	sweep_sim_config(&cfg);
	ret = i915_device_create(&cfg, &i915);
	sweep_check_ret(res, ret, "i915_device_create");
	if (ret)
		goto out;
	ret = i915_gem_init(i915);
	sweep_check_ret(res, ret, "i915_gem_init");
	if (ret)
		goto out_dev;
	ret = i915_context_create(i915, &ctx);
	sweep_check_ret(res, ret, "i915_context_create");
	if (ret)
		goto out_gem;
	for (unsigned t = 0; t < I915_TARGETS; t++) {
		ret = i915_gem_object_create(i915, I915_TARGET_SIZE,
					     t ? I915_GEM_REGION_LMEM : I915_GEM_REGION_SMEM,
					     &tgt[t]);
		sweep_check_ret(res, ret, "i915_gem_object_create");
		if (ret) {
			tgt[t] = NULL;
			continue;
		}
		for (unsigned w = 0; w < I915_TARGET_SIZE / 4; w++)
			want[t][w] = i915_expect(t, w);
		ret = i915_gem_object_access(tgt[t], 0, want[t], sizeof(want[t]), true);
		sweep_check_ret(res, ret, "i915_gem_object_access (write)");
		if (!ret)
			memset(known[t], 1, sizeof(known[t]));
	}
	ret = i915_gem_object_create(i915, 4096, I915_GEM_REGION_SMEM, &batch);
	sweep_check_ret(res, ret, "i915_gem_object_create (batch)");
	if (ret)
		batch = NULL;

	for (unsigned n = 0; batch && n < I915_BATCHES; n++) {
		unsigned t = n % I915_TARGETS, w = 64 * n + 1;
		uint32_t cs[8] = {0}, *p = cs, value = 0x5eed0000u + n;
		struct i915_exec_object objs[2];
		struct i915_exec_reloc reloc;
		struct i915_execbuffer eb;
		int status;

		if (!tgt[t])
			continue;
		/* Relocated (never presumed right): the address is written into the batch. */
		reloc = (struct i915_exec_reloc){
		    .target = 0,
		    .delta = w * 4,
		    .offset = (uint64_t)(p - cs + 1) * 4,
		    .presumed_offset = 0,
		    .read_domains = I915_GEM_DOMAIN_RENDER,
		    .write_domain = I915_GEM_DOMAIN_RENDER,
		};
		p = i915_emit_store_dword_imm(p, 0, value);
		i915_emit_bb_end(p);
		ret = i915_gem_object_access(batch, 0, cs, sizeof(cs), true);
		sweep_check_ret(res, ret, "i915_gem_object_access (batch)");
		if (ret)
			continue;
		memset(objs, 0, sizeof(objs));
		objs[0].obj = tgt[t];
		objs[0].flags = EXEC_OBJECT_WRITE;
		objs[1].obj = batch;
		objs[1].relocs = &reloc;
		objs[1].nreloc = 1;
		for (unsigned tries = 0;; tries++) {
			memset(&eb, 0, sizeof(eb));
			eb.objects = objs;
			eb.count = 2;
			eb.ctx = ctx;
			ret = i915_gem_execbuffer(i915, &eb);
			/* -EIO: refused whole while the engine awaits its reset; retry. */
			if (ret != -EIO || tries > 2000)
				break;
			igt_assert(!eb.out_fence);
			nanosleep(&(struct timespec){0, 1000000}, NULL);
		}
		sweep_check_ret(res, ret, "i915_gem_execbuffer");
		if (ret) {
			igt_assert(!eb.out_fence);
			continue;
		}
		status = sweep_exec_wait(&eb);
		if (status == -EIO) {
			/* The hung batch may or may not have stored: that dword is unknown. */
			hung++;
			known[t][w] = false;
			res->ops++;
			res->failed_ops++;
			continue;
		}
		igt_assert_f(status == 1, "batch %u: fence status %d\n", n, status);
		want[t][w] = value;
		res->ops++;
	}
	sweep_long_request(i915, ctx, res);

	sweep_disarm(res);
	/* Blame lands on the context for each hung batch, and only for those. */
	if (ctx)
		igt_assert_eq_u64(atomic_load(&ctx->guilty), hung);
	for (unsigned t = 0; t < I915_TARGETS; t++) {
		static uint32_t got[I915_TARGET_SIZE / 4];

		if (!tgt[t])
			continue;
		if (known[t][0] || known[t][1]) {
			igt_assert_eq(i915_gem_object_access(tgt[t], 0, got, sizeof(got), false),
				      0);
			for (unsigned w = 0; w < I915_TARGET_SIZE / 4; w++)
				igt_assert_f(!known[t][w] || got[w] == want[t][w],
					     "target %u dword %u: %#x, expected %#x\n", t, w,
					     got[w], want[t][w]);
			res->bytes_verified += sizeof(got);
		}
		i915_gem_object_put(tgt[t]);
	}
	if (batch)
		i915_gem_object_put(batch);
	i915_context_put(ctx);
out_gem:
	sweep_disarm(res);
	igt_assert_eq(i915_gem_fini(i915), 0);
out_dev:
	sweep_disarm(res);
	igt_assert_eq(i915_device_destroy(i915), 0);
out:
	sweep_end(res, &base);
}

/*
 * The softpin part: execbuffers in which every object is softpinned
 * (EXEC_OBJECT_PINNED at the caller's address, no relocation): a
 * system-memory target, a local-memory target when the device has lmem,
 * and the batch, which stores one dword into each target. Before the
 * second pass every idle object is swapped out; that pass asks for new
 * addresses, the system target's over an idle, unpinned object (the
 * squatter) that must be evicted to make room. A failed call is retried
 * until one succeeds (with one point armed for its Nth hit, the first retry
 * must), and around every call:
 *  - a failed call returns an errno of the sweep's list (never -EINVAL:
 *    every address is valid and nothing pinned holds it), -ENOMEM when an
 *    allocation point fired in it; nothing was submitted, no fence came
 *    back, nothing is left reserved;
 *  - the GGTT holds exactly what the objects hold (TT ranges, the lmem
 *    target's vma) on top of the device's own ranges: a failed call keeps
 *    no range of its own;
 *  - every object reads back as the model says;
 *  - the successful call ran: the objects sit at their softpin addresses
 *    and the batch's stores are visible. A hung batch (gpu_hang) ends -EIO
 *    and blames the context; its retry stores.
 * Once everything is put, the GGTT is back to the device's own ranges.
 */
#define SOFTPIN_SIZE (16u * 1024u)
#define SOFTPIN_BATCH_SIZE 4096u
#define SOFTPIN_PASSES 2
/* Calls of one pass that may fail (more than one only when faults fire at random). */
#define SOFTPIN_TRIES 16
/* -EIO refusals while the engine awaits its reset after a hang, 1 ms apart. */
#define SOFTPIN_EIO_TRIES 2000

enum softpin_role { SP_SMEM, SP_LMEM, SP_SQUATTER, SP_BATCH, SP_OBJS };

/* Softpin addresses per pass (the squatter is never in a call: 0). */
static const uint64_t softpin_addr[SOFTPIN_PASSES][SP_OBJS] = {
    {8ull << 20, 9ull << 20, 0, 10ull << 20},
    {16ull << 20, 17ull << 20, 0, 18ull << 20},
};
/* Where the squatter sits: across pass 1's system-target range. */
#define SOFTPIN_SQUATTER_ADDR ((16ull << 20) + 2 * TTM_PAGE_SIZE)

/* struct softpin_obj - an object and what each of its dwords must read (if known). */
struct softpin_obj {
	struct i915_gem_object *obj;
	uint32_t want[SOFTPIN_SIZE / 4];
	bool known[SOFTPIN_SIZE / 4];
};

/*
 * struct softpin_state - the softpin part's device and objects.
 * @ggtt_base: GGTT bytes the device holds on its own (guard page, rings).
 * @hung: batches of @ctx whose fence ended -EIO.
 */
struct softpin_state {
	struct i915_device *i915;
	struct i915_context *ctx;
	struct ttm_resource_manager *ggtt;
	uint64_t ggtt_base;
	struct softpin_obj o[SP_OBJS];
	uint64_t hung;
};

/*
 * The GGTT holds the device's own ranges plus, per object, its TT range or
 * its vma, nothing else; every object is unreserved (trylock succeeds).
 */
static void softpin_check_ggtt(struct softpin_state *s, const char *when)
{
	uint64_t held = 0;

	for (unsigned i = 0; i < SP_OBJS; i++) {
		struct i915_gem_object *obj = s->o[i].obj;

		if (!obj)
			continue;
		igt_assert_f(ttm_bo_reserve(&obj->base, false, true, NULL) == 0,
			     "%s: object %u left reserved\n", when, i);
		if (obj->base.resource && obj->base.resource->mem_type == TTM_PL_TT)
			held += obj->base.resource->size;
		if (obj->vma)
			held += obj->vma->size;
		ttm_bo_unreserve(&obj->base);
	}
	igt_assert_f(ttm_resource_manager_usage(s->ggtt) == s->ggtt_base + held,
		     "%s: GGTT holds %" PRIu64 " bytes, device and objects %" PRIu64 "\n", when,
		     ttm_resource_manager_usage(s->ggtt), s->ggtt_base + held);
}

/*
 * Every known dword of every object reads back as the model says. A read
 * refused by an injected fault is a clean failure, except at the @final
 * check (every point disarmed).
 */
static void softpin_check_content(struct softpin_state *s, struct sweep_result *res, bool final)
{
	static uint32_t got[SOFTPIN_SIZE / 4];

	for (unsigned i = 0; i < SP_OBJS; i++) {
		struct softpin_obj *o = &s->o[i];
		size_t len = o->obj ? o->obj->base.size : 0;
		int ret;

		if (!len)
			continue;
		ret = i915_gem_object_access(o->obj, 0, got, len, false);
		if (ret && !final) {
			sweep_check_ret(res, ret, "i915_gem_object_access (softpin read)");
			continue;
		}
		igt_assert_f(ret == 0, "softpin object %u unreadable: %d\n", i, ret);
		for (unsigned w = 0; w < len / 4; w++)
			igt_assert_f(!o->known[w] || got[w] == o->want[w],
				     "softpin object %u dword %u: %#x, expected %#x\n", i, w,
				     got[w], o->want[w]);
		res->bytes_verified += len;
	}
}

/* Write @o's model to the object; until that succeeds its content is unknown. */
static bool softpin_write(struct softpin_obj *o, struct sweep_result *res)
{
	size_t len = o->obj->base.size;

	memset(o->known, 0, sizeof(o->known));
	for (unsigned tries = 0; tries < SOFTPIN_TRIES; tries++) {
		int ret = i915_gem_object_access(o->obj, 0, o->want, len, true);

		sweep_check_ret(res, ret, "i915_gem_object_access (softpin write)");
		if (!ret) {
			memset(o->known, 1, len / 4);
			return true;
		}
	}
	return false;
}

/* After a successful call: each object of it sits at its softpin address. */
static void softpin_check_placed(struct softpin_state *s, unsigned pass)
{
	for (unsigned i = 0; i < SP_OBJS; i++) {
		struct i915_gem_object *obj = s->o[i].obj;
		uint64_t start = softpin_addr[pass][i] >> TTM_PAGE_SHIFT;
		unsigned mem_type;

		if (!obj)
			continue;
		igt_assert_eq(ttm_bo_reserve(&obj->base, false, true, NULL), 0);
		mem_type = obj->base.resource ? obj->base.resource->mem_type : TTM_NUM_MEM_TYPES;
		if (i == SP_SQUATTER) {
			/* Evicted, to system memory, by pass 1's system target. */
			igt_assert(pass == 0 || !s->o[SP_SMEM].obj || mem_type == TTM_PL_SYSTEM);
		} else if (i == SP_LMEM) {
			igt_assert_eq(mem_type, TTM_PL_VRAM);
			igt_assert(obj->vma);
			igt_assert_eq_u64(obj->vma->start, start);
		} else {
			igt_assert_eq(mem_type, TTM_PL_TT);
			igt_assert_eq_u64(obj->base.resource->start, start);
		}
		ttm_bo_unreserve(&obj->base);
	}
}

/* One pass: the batch stores into each target at pass @pass's addresses; retried until it runs. */
static void softpin_pass(struct softpin_state *s, unsigned pass, struct sweep_result *res)
{
	struct i915_engine *rcs = i915_engine_get(s->i915, I915_ENGINE_RCS);
	struct softpin_obj *batch = &s->o[SP_BATCH];
	struct i915_exec_object objs[SP_OBJS];
	unsigned role[SP_OBJS], word[SP_OBJS] = {0}, n = 0, failures = 0, eio = 0;
	uint32_t value[SP_OBJS] = {0}, *p = batch->want;
	char when[64];

	memset(batch->want, 0, sizeof(batch->want));
	for (unsigned t = SP_SMEM; t <= SP_LMEM; t++) {
		if (!s->o[t].obj)
			continue;
		word[t] = 1 + 64 * pass + 8 * t;
		value[t] = 0x50f70000u | pass << 8 | t;
		p = i915_emit_store_dword_imm(p, softpin_addr[pass][t] + 4 * word[t], value[t]);
		role[n] = t;
		objs[n++] = (struct i915_exec_object){
		    .obj = s->o[t].obj, .flags = EXEC_OBJECT_PINNED | EXEC_OBJECT_WRITE};
	}
	i915_emit_bb_end(p);
	if (!softpin_write(batch, res))
		return;
	role[n] = SP_BATCH;
	objs[n++] = (struct i915_exec_object){.obj = batch->obj, .flags = EXEC_OBJECT_PINNED};

	while (failures < SOFTPIN_TRIES) {
		struct i915_execbuffer eb = {.objects = objs, .count = n, .ctx = s->ctx};
		unsigned long submitted = atomic_load(&rcs->stats.submitted);
		unsigned long fired = fault_total_fired();
		bool injected;
		int ret, status;

		for (unsigned i = 0; i < n; i++)
			objs[i].offset = softpin_addr[pass][role[i]];
		ret = i915_gem_execbuffer(s->i915, &eb);
		injected = fault_total_fired() != fired;
		snprintf(when, sizeof(when), "softpin pass %u, call %u", pass, failures + eio + 1);
		if (ret) {
			sweep_check_ret(res, ret, "i915_gem_execbuffer (softpin)");
			igt_assert_f(!eb.out_fence, "%s: fence returned with %d\n", when, ret);
			igt_assert_eq_u64(atomic_load(&rcs->stats.submitted), submitted);
			igt_assert_f(!res->armed || !injected || !point_is_alloc(res->armed) ||
					 ret == -ENOMEM,
				     "%s: %s failed it with %d, not -ENOMEM\n", when,
				     res->armed->name, ret);
			softpin_check_ggtt(s, when);
			softpin_check_content(s, res, false);
			if (ret == -EIO && !injected) {
				/* Refused whole while the engine awaits its reset: wait. */
				igt_assert_f(!res->armed || s->hung, "%s: -EIO with no hang\n",
					     when);
				igt_assert_f(++eio < SOFTPIN_EIO_TRIES, "%s: still -EIO\n", when);
				nanosleep(&(struct timespec){0, 1000000}, NULL);
				continue;
			}
			failures++;
			res->sp_refused++;
			res->sp_enomem += ret == -ENOMEM;
			igt_assert_f(!res->armed || (injected && failures == 1),
				     "%s: failed with %d, %s, with %s armed once\n", when, ret,
				     injected ? "retried after the fault" : "no fault fired in it",
				     res->armed ? res->armed->name : "-");
			continue;
		}
		status = sweep_exec_wait(&eb);
		if (status == -EIO) {
			/* Hung: whether the stores landed is unknown until the retry makes them. */
			s->hung++;
			res->sp_hung++;
			res->ops++;
			res->failed_ops++;
			failures++;
			for (unsigned t = SP_SMEM; t <= SP_LMEM; t++)
				s->o[t].known[word[t]] = false;
			igt_assert_f(!res->armed || failures == 1, "%s: hung again\n", when);
			softpin_check_ggtt(s, when);
			softpin_check_content(s, res, false);
			continue;
		}
		igt_assert_f(status == 1, "%s: fence status %d\n", when, status);
		res->ops++;
		res->sp_retried += failures > 0;
		for (unsigned i = 0; i < n; i++)
			igt_assert_eq_u64(objs[i].offset, softpin_addr[pass][role[i]]);
		softpin_check_placed(s, pass);
		for (unsigned t = SP_SMEM; t <= SP_LMEM; t++) {
			if (!s->o[t].obj)
				continue;
			s->o[t].want[word[t]] = value[t];
			s->o[t].known[word[t]] = true;
		}
		softpin_check_ggtt(s, when);
		softpin_check_content(s, res, false);
		return;
	}
	/* Only faults firing at random may refuse every try. */
	igt_assert_f(!res->armed, "softpin pass %u: %u calls failed\n", pass, failures);
}

static void sweep_softpin(struct sweep_result *res)
{
	static const enum i915_gem_region region[SP_OBJS] = {
	    [SP_SMEM] = I915_GEM_REGION_SMEM,
	    [SP_LMEM] = I915_GEM_REGION_LMEM,
	    [SP_SQUATTER] = I915_GEM_REGION_SMEM,
	    [SP_BATCH] = I915_GEM_REGION_SMEM,
	};
	struct i915_device_config cfg;
	struct softpin_state *s = calloc(1, sizeof(*s));
	struct sweep_baseline base;
	int ret;

	igt_assert(s);
	sweep_begin(res, &base);
	sweep_sim_config(&cfg);
	ret = i915_device_create(&cfg, &s->i915);
	sweep_check_ret(res, ret, "i915_device_create");
	if (ret)
		goto out;
	ret = i915_gem_init(s->i915);
	sweep_check_ret(res, ret, "i915_gem_init");
	if (ret)
		goto out_dev;
	ret = i915_context_create(s->i915, &s->ctx);
	sweep_check_ret(res, ret, "i915_context_create");
	if (ret)
		goto out_gem;
	s->ggtt = i915_ggtt_manager(&s->i915->ggtt);
	s->ggtt_base = ttm_resource_manager_usage(s->ggtt);

	for (unsigned i = 0; i < SP_OBJS; i++) {
		struct softpin_obj *o = &s->o[i];

		if (i == SP_LMEM && !s->i915->has_lmem)
			continue;
		ret = i915_gem_object_create(
		    s->i915, i == SP_BATCH ? SOFTPIN_BATCH_SIZE : SOFTPIN_SIZE, region[i], &o->obj);
		sweep_check_ret(res, ret, "i915_gem_object_create (softpin)");
		if (ret) {
			o->obj = NULL;
			continue;
		}
		if (i == SP_BATCH)
			continue;
		for (unsigned w = 0; w < SOFTPIN_SIZE / 4; w++)
			o->want[w] = 0x5a000000u ^ (i << 16) ^ w;
		softpin_write(o, res);
	}
	if (s->o[SP_SQUATTER].obj) {
		struct ttm_buffer_object *bo = &s->o[SP_SQUATTER].obj->base;
		struct ttm_operation_ctx ctx = {0};
		struct ttm_place place = {
		    .mem_type = TTM_PL_TT,
		    .fpfn = (uint32_t)(SOFTPIN_SQUATTER_ADDR >> TTM_PAGE_SHIFT),
		    .lpfn = (uint32_t)((SOFTPIN_SQUATTER_ADDR + SOFTPIN_SIZE) >> TTM_PAGE_SHIFT),
		};

		/* Bound but not pinned: pass 1 must evict it, not call its range taken. */
		igt_assert_eq(ttm_bo_reserve(bo, false, false, NULL), 0);
		ret = ttm_bo_validate(bo, &(struct ttm_placement){1, &place}, &ctx);
		ttm_bo_unreserve(bo);
		sweep_check_ret(res, ret, "ttm_bo_validate (squatter)");
	}
	softpin_check_ggtt(s, "softpin set-up");

	for (unsigned pass = 0; s->o[SP_BATCH].obj && pass < SOFTPIN_PASSES; pass++) {
		if (pass) {
			struct ttm_operation_ctx ctx = {0};

			/* The next call swaps its objects back in (pages, PTEs). */
			ttm_device_swapout(&s->i915->drm.bdev, &ctx, 1u << 20);
			res->ops++;
		}
		softpin_pass(s, pass, res);
	}

	sweep_disarm(res);
	igt_assert_eq_u64(atomic_load(&s->ctx->guilty), s->hung);
	softpin_check_content(s, res, true);
	for (unsigned i = 0; i < SP_OBJS; i++)
		i915_gem_object_put(s->o[i].obj);
	ttm_device_flush_delayed(&s->i915->drm.bdev, true);
	/* Every object's range and vma went with it. */
	igt_assert_eq_u64(ttm_resource_manager_usage(s->ggtt), s->ggtt_base);
	i915_context_put(s->ctx);
out_gem:
	sweep_disarm(res);
	igt_assert_eq(i915_gem_fini(s->i915), 0);
out_dev:
	sweep_disarm(res);
	igt_assert_eq(i915_device_destroy(s->i915), 0);
out:
	free(s);
	sweep_end(res, &base);
}

/* The softpin part's execbuffer row under a point's (or the probabilistic runs') table row. */
static void softpin_report(const char *name, const struct sweep_result *res)
{
	igt_info("  %-16s softpin execbuffer: %" PRIu64 " refused (%" PRIu64 " -ENOMEM), %" PRIu64
		 " hung, %" PRIu64 " ran on a retry\n",
		 name, res->sp_refused, res->sp_enomem, res->sp_hung, res->sp_retried);
}

/* struct sweep_part - one workload of the sweep, swept separately per point. */
struct sweep_part {
	const char *name;
	void (*run)(struct sweep_result *res);
};

static const struct sweep_part sweep_parts[] = {
    {"core", sweep_core},
    {"uapi", sweep_uapi},
    {"i915", sweep_i915},
    {"softpin", sweep_softpin},
};

#define N_PARTS (sizeof(sweep_parts) / sizeof(sweep_parts[0]))

/*
 * struct sweep_totals - what every point's dynamic subtest adds up. Each
 * dynamic subtest runs in its own forked process, so the totals live in a
 * shared anonymous mapping made by the subtest before forking them.
 */
struct sweep_totals {
	_Atomic uint64_t points, hits, ops, bytes, injected;
};

/*
 * Sweep one point over each part: N = 1.. until a run of the part no longer
 * reaches the Nth hit. Prints one table row per point and part.
 */
static void sweep_point(struct fault_attr *attr, struct sweep_totals *tot)
{
	unsigned long hits_all = 0, injected_all = 0;
	uint64_t ops = 0, bytes = 0, refused = 0;

	for (unsigned p = 0; p < N_PARTS; p++) {
		struct sweep_result res = {.armed = attr};
		unsigned long n, injected = 0;

		for (n = 1; n <= SWEEP_MAX_NTH; n++) {
			fault_reset_all();
			fault_set_nth(attr, n);
			sweep_parts[p].run(&res);
			if (!res.fired)
				break;
			injected += res.fired;
		}
		igt_assert_f(n <= SWEEP_MAX_NTH, "%s/%s: still firing at hit %d\n", attr->name,
			     sweep_parts[p].name, SWEEP_MAX_NTH);
		igt_info("  %-16s %-7s %6lu hits swept %6lu faults injected\n", attr->name,
			 sweep_parts[p].name, n - 1, injected);
		if (sweep_parts[p].run == sweep_softpin)
			softpin_report(attr->name, &res);
		hits_all += n - 1;
		injected_all += injected;
		ops += res.ops;
		bytes += res.bytes_verified;
		refused += res.failed_ops;
	}
	/* Where the failures landed, for scripts/check-fault-points-sweep.sh: this
	 * process (one per dynamic subtest) fired only @attr. */
	fflush(stdout);
	fault_print_sites(stdout);
	fflush(stdout);
	if (hits_all == 0)
		igt_skip("%s: not reached by any part of the workload\n", attr->name);
	atomic_fetch_add(&tot->points, 1);
	atomic_fetch_add(&tot->hits, hits_all);
	atomic_fetch_add(&tot->ops, ops);
	atomic_fetch_add(&tot->bytes, bytes);
	atomic_fetch_add(&tot->injected, injected_all);
	igt_info("%s: swept hits 1..%lu, %lu faults injected, %" PRIu64
		 " calls refused with a clean errno\n",
		 attr->name, hits_all, injected_all, refused);
	igt_report_checks(ops, bytes, injected_all);
}

struct point_list {
	struct fault_attr *attr[64];
	unsigned n;
};

static void collect_point(struct fault_attr *attr, void *data)
{
	struct point_list *l = data;

	if (l->n < 64)
		l->attr[l->n++] = attr;
}

/* Probabilistic: every point at 3 %, 20 workload runs, reproducible from the seed. */
static void subtest_probabilistic(void)
{
	struct sweep_result res = {0};
	unsigned long injected = 0;
	char spec[96], err[128];
	uint64_t seed = igt_seed();

	igt_info("fault seed %" PRIu64 " (rerun with --seed %" PRIu64 ")\n", seed, seed);
	for (unsigned run = 0; run < 20; run++) {
		snprintf(spec, sizeof(spec), "all:probability=3,times=-1;seed=%" PRIu64,
			 seed + run);
		for (unsigned p = 0; p < N_PARTS; p++) {
			igt_assert_f(fault_configure(spec, err, sizeof(err)) == 0, "%s\n", err);
			sweep_parts[p].run(&res);
			injected += res.fired;
		}
	}
	igt_info("%lu faults injected over 20 runs, %" PRIu64 " calls refused with a clean errno\n",
		 injected, res.failed_ops);
	softpin_report("all", &res);
	igt_assert(injected > 0);
	igt_report_checks(res.ops, res.bytes_verified, injected);
}

igt_main_description(
    "For every registered fault point, fail its 1st, 2nd, ... hit during a "
    "fixed workload (create, validate, evict, swap, map, execbuffer with relocations and "
    "with softpin, destroy) and check "
    "clean errors, intact content and no leak; plus seeded probabilistic runs.")
{
	struct point_list points = {.n = 0};

	igt_fixture
	{
		igt_require_f(FAULT_INJECT_ENABLED, "fault points compiled out\n");
		fault_for_each(collect_point, &points);
		igt_require(points.n > 0);
		/* The registry of this binary (core and simulated GPU), for fault-sweep.sh. */
		for (unsigned i = 0; i < points.n; i++)
			igt_info("registered fault point: %s\n", points.attr[i]->name);
	}

	igt_subtest_with_dynamic("each-point")
	{
		struct sweep_totals *tot = mmap(NULL, sizeof(*tot), PROT_READ | PROT_WRITE,
						MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		igt_assert(tot != MAP_FAILED);
		memset(tot, 0, sizeof(*tot));
		for (unsigned i = 0; i < points.n; i++)
			igt_dynamic_f("%s", points.attr[i]->name) sweep_point(points.attr[i], tot);
		igt_info("coverage: %" PRIu64 " of %u points swept, %" PRIu64
			 " hits in all, %" PRIu64 " faults injected\n",
			 (uint64_t)atomic_load(&tot->points), points.n,
			 (uint64_t)atomic_load(&tot->hits), (uint64_t)atomic_load(&tot->injected));
		igt_report_checks(atomic_load(&tot->ops), atomic_load(&tot->bytes),
				  atomic_load(&tot->injected));
		munmap(tot, sizeof(*tot));
	}

	igt_subtest("probabilistic") subtest_probabilistic();
}
