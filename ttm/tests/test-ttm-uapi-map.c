// SPDX-License-Identifier: MIT
/*
 * CPU mapping patterns through the uAPI (BO_MAP + ttm_drm_mmap, SETSTATUS,
 * MM_LOCK) on the mock driver of test-ttm-uapi-mock.c, under both fault
 * mechanisms: touch orders (sequential, random, strided) on buffers of one
 * page to 64 MiB with content checksums after a move, two clients sharing
 * a buffer across a move, a write followed at once by an eviction, swap-out
 * of a mapped buffer, faults racing evictions from another thread, and a
 * buffer in VRAM above the CPU-visible window read through its mapping
 * (one move at the first fault, to the window or else to TT), a type
 * locked after the first map never being a fault's target, and
 * MM_TAKEDOWN racing faults.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ttm/ttm_bo_vm.h>
#include <ttm/ttm_drm_device.h>
#include <ttm_drm.h>

#include <testlib/checksum.h>
#include <testlib/prng.h>

#include "ktest.h"
#include "test-ttm-uapi-mock.h"

#if defined(__SANITIZE_THREAD__)
#define MAP_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MAP_TEST_TSAN 1
#endif
#endif

#define RW (DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE)
#define PG 4096u

static int bo_move(int fd, uint32_t handle, uint64_t mem, struct drm_bo_info_rep *rep)
{
	return uapi_bo_setstatus(fd, handle, mem, DRM_BO_MASK_MEM, DRM_BO_HINT_DONT_FENCE, rep);
}

/* The word at @word of page @page, distinct per page, word and @seed. */
static uint64_t pattern(uint64_t page, uint64_t word, uint64_t seed)
{
	return prng_mix64((page << 20 ^ word) + seed * PRNG_GOLDEN);
}

static uint64_t checksum_words(const uint64_t *p, size_t words)
{
	return testlib_checksum(p, words * sizeof(*p));
}

static uint64_t expected_checksum(size_t pages, uint64_t seed)
{
	uint64_t h = TESTLIB_CHECKSUM_INIT;

	for (size_t pg = 0; pg < pages; pg++) {
		for (size_t w = 0; w < PG / 8; w++) {
			uint64_t v = pattern(pg, w, seed);

			h = testlib_checksum_update(h, &v, sizeof(v));
		}
	}
	return h;
}

static void fill_page(uint64_t *p, size_t pg, uint64_t seed)
{
	for (size_t w = 0; w < PG / 8; w++)
		p[pg * (PG / 8) + w] = pattern(pg, w, seed);
}

/*
 * Select the fault mechanism; false (and a skip) when this machine cannot
 * run it (userfaultfd refused to unprivileged users).
 */
static bool use_mode(enum ttm_vm_fault_mode mode)
{
	int ret = ttm_bo_vm_set_mode(mode);

	if (ret == 0 && ttm_bo_vm_mode() == mode)
		return true;
	KTEST_SKIP(mode == TTM_VM_FAULT_UFFD ? "userfaultfd not allowed here"
					     : "SIGSEGV engine unavailable");
	return false;
}

enum touch_order { TOUCH_SEQ, TOUCH_RANDOM, TOUCH_STRIDED };

/* Every page index once, in @order. */
static size_t *touch_list(size_t pages, enum touch_order order)
{
	size_t *l = malloc(pages * sizeof(*l));
	size_t n = 0;

	if (!l)
		return NULL;
	switch (order) {
	case TOUCH_SEQ:
		for (size_t i = 0; i < pages; i++)
			l[n++] = i;
		break;
	case TOUCH_RANDOM:
		for (size_t i = 0; i < pages; i++)
			l[i] = i;
		for (size_t i = pages; i > 1; i--) {
			size_t j = (size_t)(ktest_rand() % i), t = l[i - 1];

			l[i - 1] = l[j];
			l[j] = t;
		}
		break;
	case TOUCH_STRIDED: {
		/* A stride beyond the prefault window, so every pass faults. */
		size_t stride = 37;

		for (size_t s = 0; s < stride; s++)
			for (size_t i = s; i < pages; i += stride)
				l[n++] = i;
		break;
	}
	}
	return l;
}

/*
 * One buffer of @pages in system memory: fill it in @order through the
 * mapping, move it to TT and back, and read the checksum through the same
 * address; the pages touched last must not have been lost by the moves.
 */
static void run_pattern(size_t pages, enum touch_order order)
{
	struct ttm_drm_device *dev = mock_uapi_start("uapi-map-pattern");
	uint64_t seed = ktest_rand();
	struct drm_bo_info_rep rep;
	size_t *list;
	uint64_t *p;
	int fd, err;

	ASSERT_NOT_NULL(dev);
	fd = ttm_drm_open(dev);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(uapi_mm_init(fd, DRM_BO_MEM_TT, 0, pages + 16), 0);
	ASSERT_EQ(uapi_create_bo(fd, RW | DRM_BO_FLAG_MEM_LOCAL, pages * PG, &rep), 0);
	p = uapi_bo_map(fd, rep.handle, NULL, &err);
	ASSERT_NOT_NULL(p);
	list = touch_list(pages, order);
	ASSERT_NOT_NULL(list);
	for (size_t i = 0; i < pages; i++)
		fill_page(p, list[i], seed);
	free(list);
	EXPECT_UEQ(checksum_words(p, pages * PG / 8), expected_checksum(pages, seed));
	EXPECT_EQ(bo_move(fd, rep.handle, DRM_BO_FLAG_MEM_TT, NULL), 0);
	EXPECT_UEQ(checksum_words(p, pages * PG / 8), expected_checksum(pages, seed));
	EXPECT_EQ(bo_move(fd, rep.handle, DRM_BO_FLAG_MEM_LOCAL, NULL), 0);
	EXPECT_UEQ(checksum_words(p, pages * PG / 8), expected_checksum(pages, seed));
	EXPECT_EQ(uapi_bo_unmap(fd, rep.handle), 0);
	EXPECT_EQ(ttm_drm_close(fd), 0);
	EXPECT_EQ(mock_uapi_stop(dev), 0);
}

static const size_t pattern_sizes[] = {1, 3, 256, 16384 /* 64 MiB */};

static void run_patterns(enum ttm_vm_fault_mode mode, enum touch_order order)
{
	if (!use_mode(mode))
		return;
	for (size_t i = 0; i < sizeof(pattern_sizes) / sizeof(pattern_sizes[0]); i++)
		run_pattern(pattern_sizes[i], order);
}

KTEST(ttm_uapi_map_sequential_uffd)
{
	run_patterns(TTM_VM_FAULT_UFFD, TOUCH_SEQ);
}

KTEST(ttm_uapi_map_sequential_sigsegv)
{
	run_patterns(TTM_VM_FAULT_SIGSEGV, TOUCH_SEQ);
}

KTEST(ttm_uapi_map_random_uffd)
{
	run_patterns(TTM_VM_FAULT_UFFD, TOUCH_RANDOM);
}

KTEST(ttm_uapi_map_random_sigsegv)
{
	run_patterns(TTM_VM_FAULT_SIGSEGV, TOUCH_RANDOM);
}

KTEST(ttm_uapi_map_strided_uffd)
{
	run_patterns(TTM_VM_FAULT_UFFD, TOUCH_STRIDED);
}

KTEST(ttm_uapi_map_strided_sigsegv)
{
	run_patterns(TTM_VM_FAULT_SIGSEGV, TOUCH_STRIDED);
}

/*
 * Two clients map one shared buffer; one writes, the buffer moves (VRAM ->
 * TT), the other reads the same bytes; then a write right before an
 * eviction (MM_LOCK of VRAM) is read after it, and swap-out of the mapped
 * buffer keeps the content for the next access.
 */
static void run_shared(enum ttm_vm_fault_mode mode)
{
	const size_t pages = 32;
	struct ttm_drm_device *dev;
	struct drm_bo_info_rep bo, info = {0};
	struct ttm_operation_ctx ctx = {0};
	unsigned char *a, *b;
	uint64_t swapouts;
	int fa, fb, err;

	if (!use_mode(mode))
		return;
	dev = mock_uapi_start("uapi-map-shared");
	ASSERT_NOT_NULL(dev);
	fa = ttm_drm_open(dev);
	fb = ttm_drm_open(dev);
	ASSERT_EQ(uapi_mm_init(fa, DRM_BO_MEM_VRAM, 0, 256), 0);
	ASSERT_EQ(uapi_mm_init(fa, DRM_BO_MEM_TT, 0, 256), 0);
	ASSERT_EQ(
	    uapi_create_bo(fa, RW | DRM_BO_FLAG_SHAREABLE | DRM_BO_FLAG_MEM_VRAM, pages * PG, &bo),
	    0);
	ASSERT_EQ(uapi_bo_ref(fb, bo.handle, NULL), 0);
	a = uapi_bo_map(fa, bo.handle, NULL, &err);
	ASSERT_NOT_NULL(a);
	b = uapi_bo_map(fb, bo.handle, NULL, &err);
	ASSERT_NOT_NULL(b);
	for (size_t i = 0; i < pages * PG; i++)
		a[i] = (unsigned char)(i * 13 + 1);
	EXPECT_EQ(bo_move(fb, bo.handle, DRM_BO_FLAG_MEM_TT, &info), 0);
	EXPECT_UEQ(info.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_TT);
	for (size_t i = 0; i < pages * PG; i += 97)
		EXPECT_EQ(b[i], (unsigned char)(i * 13 + 1));

	/* Write, then evict at once: the write must survive the eviction. */
	EXPECT_EQ(bo_move(fa, bo.handle, DRM_BO_FLAG_MEM_VRAM, NULL), 0);
	a[5 * PG + 3] = 0xee;
	ASSERT_EQ(uapi_mm_lock(fa, DRM_BO_MEM_VRAM, true), 0);
	EXPECT_EQ(b[5 * PG + 3], 0xee);
	ASSERT_EQ(uapi_mm_lock(fa, DRM_BO_MEM_VRAM, false), 0);

	/* Swap-out while mapped (it lives in TT or LOCAL after the eviction). */
	b[PG - 1] = 0x77;
	swapouts = atomic_load(&dev->bdev.stats.swapouts);
	EXPECT_GT(ttm_device_swapout(&dev->bdev, &ctx, pages), 0);
	EXPECT_UEQ(atomic_load(&dev->bdev.stats.swapouts), swapouts + 1);
	EXPECT_EQ(a[PG - 1], 0x77);
	EXPECT_EQ(a[5 * PG + 3], 0xee);
	for (size_t i = 6 * PG; i < pages * PG; i += 101)
		EXPECT_EQ(b[i], (unsigned char)(i * 13 + 1));

	EXPECT_EQ(uapi_bo_unmap(fb, bo.handle), 0);
	EXPECT_EQ(uapi_bo_unmap(fa, bo.handle), 0);
	EXPECT_EQ(ttm_drm_close(fb), 0);
	EXPECT_EQ(ttm_drm_close(fa), 0);
	EXPECT_EQ(mock_uapi_stop(dev), 0);
}

KTEST(ttm_uapi_map_shared_move_evict_swap_uffd)
{
	run_shared(TTM_VM_FAULT_UFFD);
}

KTEST(ttm_uapi_map_shared_move_evict_swap_sigsegv)
{
	run_shared(TTM_VM_FAULT_SIGSEGV);
}

/*
 * Faults racing evictions: one thread writes and reads back words of a
 * mapped VRAM buffer (the only writer), another evicts VRAM with MM_LOCK
 * and moves the buffer back, over and over; no write is lost and every
 * read returns the last write.
 */
struct race {
	int fd;
	uint32_t handle;
	_Atomic bool stop;
	_Atomic unsigned evictions;
	_Atomic int last_err;
};

static void *race_evictor(void *data)
{
	struct race *r = data;

	while (!atomic_load(&r->stop)) {
		int ret = uapi_mm_lock(r->fd, DRM_BO_MEM_VRAM, true);

		/*
		 * -EBUSY: a buffer stayed in VRAM because a fault held its
		 * reservation (the eviction only trylocks); documented, retried.
		 */
		if (ret && ret != -EBUSY)
			atomic_store(&r->last_err, ret);
		if (!ret) {
			uapi_mm_lock(r->fd, DRM_BO_MEM_VRAM, false);
			atomic_fetch_add(&r->evictions, 1);
		}
		bo_move(r->fd, r->handle, DRM_BO_FLAG_MEM_VRAM, NULL);
	}
	return NULL;
}

static void run_race(enum ttm_vm_fault_mode mode)
{
	const size_t pages = 16;
	unsigned iters = 2000 * ktest_scale();
	struct ttm_drm_device *dev;
	struct drm_bo_info_rep bo;
	struct race r = {0};
	uint32_t *p, shadow[16];
	unsigned bad = 0;
	pthread_t t;
	int err;

	if (!use_mode(mode))
		return;
	dev = mock_uapi_start("uapi-map-race");
	ASSERT_NOT_NULL(dev);
	r.fd = ttm_drm_open(dev);
	ASSERT_EQ(uapi_mm_init(r.fd, DRM_BO_MEM_VRAM, 0, 64), 0);
	ASSERT_EQ(uapi_mm_init(r.fd, DRM_BO_MEM_TT, 0, 64), 0);
	ASSERT_EQ(uapi_create_bo(r.fd, RW | DRM_BO_FLAG_MEM_VRAM, pages * PG, &bo), 0);
	r.handle = bo.handle;
	p = uapi_bo_map(r.fd, bo.handle, NULL, &err);
	ASSERT_NOT_NULL(p);
	memset(shadow, 0, sizeof(shadow));
	ASSERT_EQ(pthread_create(&t, NULL, race_evictor, &r), 0);
	/* Keep faulting until the evictor got a few rounds in too. */
	for (unsigned i = 0; i < iters || (atomic_load(&r.evictions) < 20 && i < 100 * iters);
	     i++) {
		size_t pg = (size_t)(ktest_rand() % pages);
		uint32_t v = (uint32_t)ktest_rand();

		/*
		 * A short pause every 64 accesses: with the SIGSEGV mechanism
		 * the fault runs on this thread and could otherwise hold the
		 * reservation nearly all the time, starving every eviction.
		 */
		if (!(i & 63))
			nanosleep(&(struct timespec){.tv_nsec = 20000}, NULL);

		p[pg * (PG / 4) + (i & 63)] = v;
		if (p[pg * (PG / 4) + (i & 63)] != v)
			bad++;
		/* Word 1023 of each page carries the page's write count. */
		p[pg * (PG / 4) + PG / 4 - 1] = ++shadow[pg];
		if (p[pg * (PG / 4) + PG / 4 - 1] != shadow[pg])
			bad++;
	}
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(atomic_load(&r.last_err), 0);
	EXPECT_GT(atomic_load(&r.evictions), 0);
	for (size_t pg = 0; pg < pages; pg++)
		EXPECT_UEQ(p[pg * (PG / 4) + PG / 4 - 1], shadow[pg]);
	EXPECT_EQ(uapi_bo_unmap(r.fd, bo.handle), 0);
	EXPECT_EQ(ttm_drm_close(r.fd), 0);
	EXPECT_EQ(mock_uapi_stop(dev), 0);
}

KTEST(ttm_uapi_map_fault_races_eviction_uffd)
{
	run_race(TTM_VM_FAULT_UFFD);
}

KTEST(ttm_uapi_map_fault_races_eviction_sigsegv)
{
	run_race(TTM_VM_FAULT_SIGSEGV);
}

/* Pages of @p whose content is not pattern @seed, read in @order. */
static size_t bad_pages(const uint64_t *p, size_t pages, enum touch_order order, uint64_t seed)
{
	size_t *list = touch_list(pages, order), bad = 0;

	ASSERT_NOT_NULL(list);
	for (size_t i = 0; i < pages; i++) {
		size_t pg = list[i];

		for (size_t w = 0; w < PG / 8; w++) {
			if (p[pg * (PG / 8) + w] != pattern(pg, w, seed)) {
				bad++;
				break;
			}
		}
	}
	free(list);
	return bad;
}

/*
 * The set-up of the cases with a buffer the CPU cannot reach: VRAM of the
 * visible window plus @pages pages, TT of @tt_pages, the window held by a
 * NO_EVICT buffer of a second client (@ffill) so that VRAM buffers land above
 * it, and a LOCAL buffer of @pages pages (@bo_flags added) mapped at @p and
 * filled with @seed's pattern, not moved yet. ASSERTs: the case's own thread.
 */
struct nv_fixture {
	struct ttm_drm_device *dev;
	int fd, ffill;
	struct drm_bo_info_rep filler, bo;
	uint64_t seed;
	uint64_t *p;
};

static void nv_setup(struct nv_fixture *f, const char *name, size_t pages, uint64_t tt_pages,
		     uint64_t bo_flags)
{
	const uint64_t window = (uint64_t)MOCK_VRAM_VISIBLE_PAGES * PG;
	int err;

	f->seed = ktest_rand();
	f->dev = mock_uapi_start(name);
	ASSERT_NOT_NULL(f->dev);
	f->fd = ttm_drm_open(f->dev);
	f->ffill = ttm_drm_open(f->dev);
	ASSERT_GE(f->fd, 0);
	ASSERT_GE(f->ffill, 0);
	ASSERT_EQ(uapi_mm_init(f->fd, DRM_BO_MEM_VRAM, 0, MOCK_VRAM_VISIBLE_PAGES + pages), 0);
	ASSERT_EQ(uapi_mm_init(f->fd, DRM_BO_MEM_TT, 0, tt_pages), 0);
	ASSERT_EQ(uapi_create_bo(f->ffill, RW | DRM_BO_FLAG_MEM_VRAM | DRM_BO_FLAG_NO_EVICT, window,
				 &f->filler),
		  0);
	EXPECT_UEQ(f->filler.offset, 0);
	ASSERT_EQ(uapi_create_bo(f->fd, RW | bo_flags | DRM_BO_FLAG_MEM_LOCAL, pages * PG, &f->bo),
		  0);
	f->p = uapi_bo_map(f->fd, f->bo.handle, NULL, &err);
	ASSERT_NOT_NULL(f->p);
	for (size_t pg = 0; pg < pages; pg++)
		fill_page(f->p, pg, f->seed);
}

/* Undo nv_setup(): unmap, close both clients (@ffill unless a case set it to -1), stop. */
static void nv_teardown(struct nv_fixture *f)
{
	EXPECT_EQ(uapi_bo_unmap(f->fd, f->bo.handle), 0);
	if (f->ffill >= 0)
		EXPECT_EQ(ttm_drm_close(f->ffill), 0);
	EXPECT_EQ(ttm_drm_close(f->fd), 0);
	EXPECT_EQ(mock_uapi_stop(f->dev), 0);
}

/*
 * A shared buffer of @pages filled through a LOCAL mapping, then moved by
 * SETSTATUS into VRAM above the CPU-visible window (a NO_EVICT buffer of a
 * second client fills the window, so the range manager has to go above
 * it). With @room that client leaves before the first read, so the fault
 * can move the buffer into the window; without, the window stays full and
 * the buffer goes to TT. Either way every page read in @order holds the
 * pattern, the buffer moved exactly once however many pages were touched,
 * BO_INFO names the CPU-visible home, and a third client mapping the same
 * buffer sees the same bytes without another move.
 */
static void run_nonvisible(size_t pages, enum touch_order order, bool room)
{
	const uint64_t window = (uint64_t)MOCK_VRAM_VISIBLE_PAGES * PG;
	struct drm_bo_info_rep info;
	struct ttm_bo_vm_stats st;
	struct nv_fixture f;
	int fshare, err;
	uint64_t *q;

	nv_setup(&f, "uapi-map-nonvisible", pages, pages + 16, DRM_BO_FLAG_SHAREABLE);
	ASSERT_EQ(bo_move(f.fd, f.bo.handle, DRM_BO_FLAG_MEM_VRAM, &info), 0);
	EXPECT_UEQ(info.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_VRAM);
	EXPECT_UGE(info.offset, window);
	ASSERT_EQ(ttm_drm_bo_map_stats(f.fd, f.bo.handle, &st), 0);
	EXPECT_UEQ(st.migrations, 0);

	if (room) {
		EXPECT_EQ(ttm_drm_close(f.ffill), 0);
		f.ffill = -1;
	}
	EXPECT_UEQ(bad_pages(f.p, pages, order, f.seed), 0);
	ASSERT_EQ(ttm_drm_bo_map_stats(f.fd, f.bo.handle, &st), 0);
	EXPECT_UEQ(st.migrations, 1);
	EXPECT_UEQ(st.bytes_migrated, pages * PG);
	EXPECT_UEQ(st.sigbus, 0);
	ASSERT_EQ(uapi_bo_info(f.fd, f.bo.handle, &info), 0);
	if (room) {
		EXPECT_UEQ(info.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_VRAM);
		EXPECT_ULE(info.offset + pages * PG, window);
	} else {
		EXPECT_UEQ(info.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_TT);
	}
	/* Every page again, as a whole: no second move. */
	EXPECT_UEQ(checksum_words(f.p, pages * PG / 8), expected_checksum(pages, f.seed));

	fshare = ttm_drm_open(f.dev);
	ASSERT_GE(fshare, 0);
	ASSERT_EQ(uapi_bo_ref(fshare, f.bo.handle, NULL), 0);
	q = uapi_bo_map(fshare, f.bo.handle, NULL, &err);
	ASSERT_NOT_NULL(q);
	EXPECT_UEQ(checksum_words(q, pages * PG / 8), expected_checksum(pages, f.seed));
	ASSERT_EQ(ttm_drm_bo_map_stats(fshare, f.bo.handle, &st), 0);
	EXPECT_UEQ(st.migrations, 1);

	EXPECT_EQ(uapi_bo_unmap(fshare, f.bo.handle), 0);
	EXPECT_EQ(ttm_drm_close(fshare), 0);
	nv_teardown(&f);
}

static const size_t nonvisible_sizes[] = {1, 17, MOCK_VRAM_VISIBLE_PAGES};

static void run_nonvisible_all(enum ttm_vm_fault_mode mode, enum touch_order order)
{
	if (!use_mode(mode))
		return;
	for (size_t i = 0; i < sizeof(nonvisible_sizes) / sizeof(nonvisible_sizes[0]); i++)
		run_nonvisible(nonvisible_sizes[i], order, true);
}

KTEST(ttm_uapi_map_nonvisible_vram_sequential_uffd)
{
	run_nonvisible_all(TTM_VM_FAULT_UFFD, TOUCH_SEQ);
}

KTEST(ttm_uapi_map_nonvisible_vram_sequential_sigsegv)
{
	run_nonvisible_all(TTM_VM_FAULT_SIGSEGV, TOUCH_SEQ);
}

KTEST(ttm_uapi_map_nonvisible_vram_random_uffd)
{
	run_nonvisible_all(TTM_VM_FAULT_UFFD, TOUCH_RANDOM);
}

KTEST(ttm_uapi_map_nonvisible_vram_random_sigsegv)
{
	run_nonvisible_all(TTM_VM_FAULT_SIGSEGV, TOUCH_RANDOM);
}

KTEST(ttm_uapi_map_nonvisible_vram_strided_uffd)
{
	run_nonvisible_all(TTM_VM_FAULT_UFFD, TOUCH_STRIDED);
}

KTEST(ttm_uapi_map_nonvisible_vram_strided_sigsegv)
{
	run_nonvisible_all(TTM_VM_FAULT_SIGSEGV, TOUCH_STRIDED);
}

/* The visible window is held by a NO_EVICT buffer: the fault moves to TT instead. */
static void run_nonvisible_window_full(enum ttm_vm_fault_mode mode)
{
	if (!use_mode(mode))
		return;
	run_nonvisible(1, TOUCH_SEQ, false);
	run_nonvisible(MOCK_VRAM_VISIBLE_PAGES, TOUCH_RANDOM, false);
}

KTEST(ttm_uapi_map_nonvisible_vram_window_full_uffd)
{
	run_nonvisible_window_full(TTM_VM_FAULT_UFFD);
}

KTEST(ttm_uapi_map_nonvisible_vram_window_full_sigsegv)
{
	run_nonvisible_window_full(TTM_VM_FAULT_SIGSEGV);
}

/*
 * A buffer mapped while in LOCAL, then moved by SETSTATUS into VRAM above
 * the CPU-visible window (a NO_EVICT buffer of another client holds the
 * window), and TT locked by MM_LOCK after the map: the first touch moves
 * the buffer to a type that is not locked, LOCAL (the window is full and
 * TT is locked), never into TT. LOCAL is always a fault target, so such a
 * fault has somewhere to go and is not SIGBUS. After MM_UNLOCK the next
 * migrating fault may use TT again.
 */
static void run_lock_after_map(enum ttm_vm_fault_mode mode)
{
	const uint64_t window = (uint64_t)MOCK_VRAM_VISIBLE_PAGES * PG;
	const size_t pages = 8;
	struct drm_bo_info_rep info;
	struct ttm_bo_vm_stats st;
	struct nv_fixture f;

	if (!use_mode(mode))
		return;
	nv_setup(&f, "uapi-map-lock-after-map", pages, pages + 16, 0);
	ASSERT_EQ(bo_move(f.fd, f.bo.handle, DRM_BO_FLAG_MEM_VRAM, &info), 0);
	EXPECT_UGE(info.offset, window);

	ASSERT_EQ(uapi_mm_lock(f.fd, DRM_BO_MEM_TT, true), 0);
	EXPECT_UEQ(bad_pages(f.p, pages, TOUCH_SEQ, f.seed), 0);
	ASSERT_EQ(uapi_bo_info(f.fd, f.bo.handle, &info), 0);
	EXPECT_UEQ(info.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_LOCAL);
	ASSERT_EQ(ttm_drm_bo_map_stats(f.fd, f.bo.handle, &st), 0);
	EXPECT_UEQ(st.migrations, 1);
	EXPECT_UEQ(st.sigbus, 0);

	/* Unlocked again: the next fault out of VRAM takes TT, as before the lock. */
	ASSERT_EQ(uapi_mm_lock(f.fd, DRM_BO_MEM_TT, false), 0);
	ASSERT_EQ(bo_move(f.fd, f.bo.handle, DRM_BO_FLAG_MEM_VRAM, &info), 0);
	EXPECT_UEQ(bad_pages(f.p, pages, TOUCH_RANDOM, f.seed), 0);
	ASSERT_EQ(uapi_bo_info(f.fd, f.bo.handle, &info), 0);
	EXPECT_UEQ(info.flags & DRM_BO_MASK_MEM, DRM_BO_FLAG_MEM_TT);

	nv_teardown(&f);
}

KTEST(ttm_uapi_map_mm_lock_after_map_not_a_target_uffd)
{
	run_lock_after_map(TTM_VM_FAULT_UFFD);
}

KTEST(ttm_uapi_map_mm_lock_after_map_not_a_target_sigsegv)
{
	run_lock_after_map(TTM_VM_FAULT_SIGSEGV);
}

/*
 * MM_TAKEDOWN of TT racing faults: one thread takes TT down and sets it up
 * again over and over; the other moves a mapped buffer above the full visible
 * window and reads it back, so every read faults and moves the buffer to TT
 * when TT is there, else to LOCAL. No read sees wrong bytes, no fault is
 * SIGBUS, and MM_TAKEDOWN fails only with -EBUSY (a buffer it could not
 * evict yet), retried.
 */
struct takedown_race {
	int fd;
	_Atomic bool stop;
	_Atomic unsigned rounds;
	_Atomic int last_err;
};

static void *takedown_thread(void *data)
{
	struct takedown_race *r = data;

	while (!atomic_load(&r->stop)) {
		int ret;

		while ((ret = uapi_mm_takedown(r->fd, DRM_BO_MEM_TT)) == -EBUSY)
			sched_yield();
		if (!ret)
			ret = uapi_mm_init(r->fd, DRM_BO_MEM_TT, 0, 64);
		if (ret) {
			atomic_store(&r->last_err, ret);
			break;
		}
		atomic_fetch_add(&r->rounds, 1);
	}
	return NULL;
}

static void run_takedown_race(enum ttm_vm_fault_mode mode)
{
	const size_t pages = 4;
	unsigned iters = 300 * ktest_scale(), bad = 0;
	struct takedown_race r = {0};
	struct ttm_bo_vm_stats st;
	struct nv_fixture f;
	pthread_t t;

	if (!use_mode(mode))
		return;
	/* TT exists at the first map, so it is among the places faults know. */
	nv_setup(&f, "uapi-map-takedown-race", pages, 64, 0);
	r.fd = f.fd;
	ASSERT_EQ(pthread_create(&t, NULL, takedown_thread, &r), 0);
	for (unsigned i = 0; i < iters || (atomic_load(&r.rounds) < 20 && i < 20 * iters); i++) {
		if (bo_move(f.fd, f.bo.handle, DRM_BO_FLAG_MEM_VRAM, NULL))
			continue;
		bad += bad_pages(f.p, pages, TOUCH_SEQ, f.seed) != 0;
	}
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(atomic_load(&r.last_err), 0);
	EXPECT_GT(atomic_load(&r.rounds), 0);
	ASSERT_EQ(ttm_drm_bo_map_stats(f.fd, f.bo.handle, &st), 0);
	EXPECT_UEQ(st.sigbus, 0);
	EXPECT_UGE(st.migrations, 1);

	nv_teardown(&f);
}

KTEST(ttm_uapi_map_mm_takedown_races_faults_uffd)
{
	run_takedown_race(TTM_VM_FAULT_UFFD);
}

KTEST(ttm_uapi_map_mm_takedown_races_faults_sigsegv)
{
	run_takedown_race(TTM_VM_FAULT_SIGSEGV);
}
