// SPDX-License-Identifier: MIT
/*
 * ttm_fuzz_threads - syzkaller-style concurrent fuzzing of the uAPI with
 * fault injection.
 *
 * Several client threads (TTM_FUZZ_THREADS, default 4, 1..16), each with
 * its own descriptor on one ttm_drm_device, issue random sequences of
 * valid uAPI calls: create buffers (private or shareable), map them
 * (BO_MAP + ttm_drm_mmap), write a new pattern into private ones, read
 * any mapped one back, move buffers between LOCAL and TT (a TT too small
 * for all, so moves evict each other), reference the buffers other
 * threads published, unmap, unreference, query, and now and then close
 * the descriptor and open a new one. Meanwhile every fault point fires at
 * random ("all:probability=P", the seed printed), so allocations,
 * swap-ins, remaps and fence allocations fail under the calls in flight.
 *
 * Proven:
 *  - every call returns 0 or an errno the kernel may give a valid request
 *    when memory runs short (-ENOMEM, -ENOSPC, -EBUSY, -EIO, -EAGAIN,
 *    -EINTR); a mapped access may end with SIGBUS, caught as a clean
 *    failure; nothing crashes;
 *  - content: a shareable buffer's pattern never changes after it is
 *    published, and every read of it (by any thread, wherever moves put
 *    it) matches; a private buffer reads back the last pattern its owner
 *    wrote in full;
 *  - no leak: once faults are disarmed, every buffer is verified in full,
 *    unmapped and unreferenced, every descriptor closed; the device then
 *    has no buffer left and tears down, and the live fence count and the
 *    global page count are back where they started (LeakSanitizer checks
 *    the heap at exit in the ASan build).
 * Under TSan a SIGBUS raised from the fault path is delivered late (TSan
 * defers signals it did not see raised synchronously), so mapped accesses
 * run only while no point is armed there; the calls themselves still run
 * with faults.
 *
 * Subtests: "basic" (no faults), "faults" (probability 2%), both bounded
 * by --duration (default 2 s for CI; the long run is --duration N by hand,
 * or --soak).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <fault_inject.h>
#include <ttm/dma_fence.h>
#include <ttm/ttm_drm_device.h>
#include <ttm/ttm_global.h>
#include <ttm_drm.h>

#include "igt.h"
#include "stress_util.h"
#include "ttm_mock.h"
#include "ttm_uapi_helpers.h"
#include "ttm_uapi_mock.h"

#if defined(__SANITIZE_THREAD__)
#define FZ_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FZ_TSAN 1
#endif
#endif

#define FZ_MAX_THREADS 16
#define FZ_SLOTS 12
#define FZ_SHARED 32
#define FZ_TT_PAGES 24
#define FZ_RW (DRM_BO_FLAG_READ | DRM_BO_FLAG_WRITE)
#define FZ_MEM_MASK (DRM_BO_FLAG_MEM_LOCAL | DRM_BO_FLAG_MEM_TT)

/* A published shareable buffer: its content never changes while listed. */
struct fz_shared {
	bool live;
	uint32_t handle;
	uint64_t size, seed;
};

/* One buffer a thread's client holds a reference on. */
struct fz_bo {
	bool used;
	bool own;	/* created by this client (else referenced from the table) */
	bool published; /* own and listed in the shared table (read-only since) */
	bool mapped;	/* holds a BO_MAP, @ptr valid */
	bool filled;	/* @seed's pattern is the whole content */
	uint32_t handle;
	uint64_t map_handle, size, seed;
	uint64_t *ptr;
};

struct fz_thread {
	struct fz_ctx *c;
	pthread_t thread;
	unsigned int id;
	int fd;
	uint64_t rng;
	struct fz_bo bo[FZ_SLOTS];
	uint64_t ops, refused, sigbus, verified;
};

struct fz_ctx {
	struct ttm_drm_device ddev;
	pthread_mutex_t lock; /* protects @shared */
	struct fz_shared shared[FZ_SHARED];
	_Atomic uint64_t next_seed;
	_Atomic bool armed;
	struct stress_budget budget;
	unsigned int nthreads;
	struct fz_thread t[FZ_MAX_THREADS];
};

static const struct ttm_drm_driver fz_driver = {
    .num_fence_classes = 1,
    .fence_types = 0x2,
    .fence_emit = ttm_uapi_mock_fence_emit,
};

static __thread sigjmp_buf fz_sigbus_jmp;
static __thread volatile sig_atomic_t fz_sigbus_armed;

static void fz_sigbus_handler(int sig)
{
	if (fz_sigbus_armed) {
		fz_sigbus_armed = 0;
		siglongjmp(fz_sigbus_jmp, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Write or check @seed's pattern. Return: 0; -EFAULT on SIGBUS; -EILSEQ on a mismatch. */
static __attribute__((noinline)) int fz_access(volatile uint64_t *p, uint64_t size, uint64_t seed,
					       bool write)
{
	if (sigsetjmp(fz_sigbus_jmp, 1))
		return -EFAULT;
	fz_sigbus_armed = 1;
	for (uint64_t w = 0; w < size / 8; w++) {
		if (write) {
			p[w] = ttm_mock_pattern(seed, w);
		} else if (p[w] != ttm_mock_pattern(seed, w)) {
			fz_sigbus_armed = 0;
			return -EILSEQ;
		}
	}
	fz_sigbus_armed = 0;
	return 0;
}

/* A call's result: success, or a failure the kernel may give a valid request. */
static bool fz_check(struct fz_thread *t, int ret, const char *what)
{
	t->ops++;
	if (!ret)
		return true;
	igt_assert_f(ret == -ENOMEM || ret == -ENOSPC || ret == -EBUSY || ret == -EIO ||
			 ret == -EAGAIN || ret == -EINTR,
		     "thread %u: %s: unexpected %d\n", t->id, what, ret);
	igt_assert_f(ret == -EBUSY || atomic_load(&t->c->armed),
		     "thread %u: %s failed with %d and no fault armed\n", t->id, what, ret);
	t->refused++;
	return false;
}

static bool fz_may_touch(struct fz_thread *t)
{
#ifdef FZ_TSAN
	return !atomic_load(&t->c->armed);
#else
	(void)t;
	return true;
#endif
}

static struct fz_bo *fz_free_slot(struct fz_thread *t)
{
	for (unsigned int i = 0; i < FZ_SLOTS; i++)
		if (!t->bo[i].used)
			return &t->bo[i];
	return NULL;
}

static struct fz_bo *fz_pick(struct fz_thread *t)
{
	unsigned int start = (unsigned int)stress_rand_below(&t->rng, FZ_SLOTS);

	for (unsigned int i = 0; i < FZ_SLOTS; i++) {
		struct fz_bo *b = &t->bo[(start + i) % FZ_SLOTS];

		if (b->used)
			return b;
	}
	return NULL;
}

/* Read @b back through its mapping; a mismatch fails the run. */
static void fz_verify(struct fz_thread *t, struct fz_bo *b, bool final)
{
	int ret;

	if (!b->mapped || !b->filled || (!final && !fz_may_touch(t)))
		return;
	ret = fz_access(b->ptr, b->size, b->seed, false);
	if (ret == -EFAULT && !final) {
		t->sigbus++;
		return;
	}
	igt_assert_f(!ret, "thread %u: buffer %u (%s): %s\n", t->id, b->handle,
		     b->own ? "own" : "shared", ret == -EILSEQ ? "content lost" : "unreadable");
	t->verified += b->size;
}

static void fz_map(struct fz_thread *t, struct fz_bo *b)
{
	int err = 0;

	if (b->mapped || !fz_check(t, uapi_bo_map_ioctl(t->fd, b->handle, NULL), "BO_MAP"))
		return;
	b->ptr = ttm_drm_mmap(t->fd, b->map_handle, b->size, &err);
	igt_assert_f(b->ptr, "thread %u: ttm_drm_mmap of a mapped buffer: %d\n", t->id, err);
	b->mapped = true;
}

/* Calls that release must not fail for good: one refused by a fault is retried. */
static void fz_must(struct fz_thread *t, int (*call)(int, uint32_t), uint32_t handle,
		    const char *what)
{
	while (!fz_check(t, call(t->fd, handle), what))
		;
}

static void fz_unmap(struct fz_thread *t, struct fz_bo *b)
{
	if (b->mapped)
		fz_must(t, uapi_bo_unmap, b->handle, "BO_UNMAP");
	b->mapped = false;
	b->ptr = NULL;
}

static void fz_unpublish(struct fz_ctx *c, struct fz_bo *b)
{
	if (!b->published)
		return;
	pthread_mutex_lock(&c->lock);
	for (unsigned int i = 0; i < FZ_SHARED; i++)
		if (c->shared[i].live && c->shared[i].handle == b->handle)
			c->shared[i].live = false;
	pthread_mutex_unlock(&c->lock);
	b->published = false;
}

/* Drops every hold of @b (BO_UNMAP, the reference); never fails. */
static void fz_release(struct fz_thread *t, struct fz_bo *b)
{
	fz_unpublish(t->c, b);
	fz_unmap(t, b);
	fz_must(t, uapi_bo_unref, b->handle, "BO_UNREFERENCE");
	memset(b, 0, sizeof(*b));
}

static void fz_create(struct fz_thread *t)
{
	struct fz_bo *b = fz_free_slot(t);
	bool shareable = stress_rand_below(&t->rng, 2);
	uint64_t pages = 1 + stress_rand_below(&t->rng, 4);
	struct drm_bo_info_rep rep = {0};

	if (!b || !fz_check(t,
			    uapi_create_bo(t->fd,
					   DRM_BO_FLAG_MEM_LOCAL | FZ_RW |
					       (shareable ? DRM_BO_FLAG_SHAREABLE : 0),
					   pages * TTM_PAGE_SIZE, &rep),
			    "BO_CREATE"))
		return;
	igt_assert_eq_u64(rep.size, pages * TTM_PAGE_SIZE);
	*b = (struct fz_bo){.used = true,
			    .own = true,
			    .handle = rep.handle,
			    .map_handle = rep.arg_handle,
			    .size = rep.size};
	if (!shareable)
		return;
	/* A shareable one is filled once, then published read-only. */
	fz_map(t, b);
	if (!b->mapped || !fz_may_touch(t))
		return;
	b->seed = atomic_fetch_add(&t->c->next_seed, 1);
	if (fz_access(b->ptr, b->size, b->seed, true)) {
		t->sigbus++;
		return;
	}
	b->filled = true;
	pthread_mutex_lock(&t->c->lock);
	for (unsigned int i = 0; i < FZ_SHARED; i++) {
		if (!t->c->shared[i].live) {
			t->c->shared[i] = (struct fz_shared){true, b->handle, b->size, b->seed};
			b->published = true;
			break;
		}
	}
	pthread_mutex_unlock(&t->c->lock);
}

/* Reference a buffer another client published; the table lock keeps it alive meanwhile. */
static void fz_reference(struct fz_thread *t)
{
	struct fz_bo *b = fz_free_slot(t);
	unsigned int i = (unsigned int)stress_rand_below(&t->rng, FZ_SHARED);
	struct drm_bo_info_rep rep = {0};
	struct fz_shared s;
	int ret;

	if (!b)
		return;
	pthread_mutex_lock(&t->c->lock);
	s = t->c->shared[i];
	/* One slot per buffer and client: map counts are per client. */
	for (unsigned int j = 0; s.live && j < FZ_SLOTS; j++)
		if (t->bo[j].used && t->bo[j].handle == s.handle)
			s.live = false;
	ret = s.live ? uapi_bo_ref(t->fd, s.handle, &rep) : -ENOENT;
	pthread_mutex_unlock(&t->c->lock);
	if (ret == -ENOENT || !fz_check(t, ret, "BO_REFERENCE"))
		return;
	igt_assert_eq_u64(rep.size, s.size);
	*b = (struct fz_bo){.used = true,
			    .handle = s.handle,
			    .map_handle = rep.arg_handle,
			    .size = s.size,
			    .seed = s.seed,
			    .filled = true};
}

static void fz_write(struct fz_thread *t, struct fz_bo *b)
{
	int ret;

	if (!b->own || b->published || !b->mapped || !fz_may_touch(t))
		return;
	b->seed = atomic_fetch_add(&t->c->next_seed, 1);
	ret = fz_access(b->ptr, b->size, b->seed, true);
	t->ops++;
	/* Cut short by SIGBUS: the content is part old, part new. */
	b->filled = !ret;
	if (ret)
		t->sigbus++;
}

static void fz_move(struct fz_thread *t, struct fz_bo *b)
{
	uint64_t mem = stress_rand_below(&t->rng, 2) ? DRM_BO_FLAG_MEM_TT : DRM_BO_FLAG_MEM_LOCAL;

	fz_check(t, uapi_bo_setstatus(t->fd, b->handle, mem | FZ_RW, FZ_MEM_MASK | FZ_RW, 0, NULL),
		 "BO_SETSTATUS");
	fz_verify(t, b, false);
}

static void fz_reopen(struct fz_thread *t)
{
	for (unsigned int i = 0; i < FZ_SLOTS; i++)
		if (t->bo[i].used)
			fz_unpublish(t->c, &t->bo[i]);
	igt_assert_eq(ttm_drm_close(t->fd), 0);
	memset(t->bo, 0, sizeof(t->bo));
	do
		t->fd = ttm_drm_open(&t->c->ddev);
	while (t->fd < 0 && fz_check(t, t->fd, "open") == false);
}

static void fz_step(struct fz_thread *t)
{
	struct fz_bo *b = fz_pick(t);
	struct drm_bo_info_rep info = {0};
	unsigned int op = (unsigned int)stress_rand_below(&t->rng, 100);

	if (!b || op < 15) {
		fz_create(t);
	} else if (op < 25) {
		fz_reference(t);
	} else if (op < 40) {
		fz_map(t, b);
	} else if (op < 52) {
		fz_write(t, b);
	} else if (op < 67) {
		fz_verify(t, b, false);
	} else if (op < 80) {
		fz_move(t, b);
	} else if (op < 86) {
		fz_verify(t, b, false);
		fz_unmap(t, b);
		igt_assert_eq(uapi_bo_unmap(t->fd, b->handle), -EINVAL);
	} else if (op < 93) {
		fz_release(t, b);
	} else if (op < 99) {
		if (fz_check(t, uapi_bo_info(t->fd, b->handle, &info), "BO_INFO"))
			igt_assert_eq_u64(info.size, b->size);
	} else {
		fz_reopen(t);
	}
}

static void *fz_thread_fn(void *arg)
{
	struct fz_thread *t = arg;
	uint64_t steps = 0;

	while (!stress_budget_done(&t->c->budget, steps)) {
		fz_step(t);
		steps++;
	}
	return NULL;
}

static unsigned int fz_threads_from_env(void)
{
	const char *s = getenv("TTM_FUZZ_THREADS");
	char *end;
	unsigned long n;

	/* --threads N first, then the variable. */
	if (igt_opt_count(IGT_THREADS, 0, FZ_MAX_THREADS))
		return igt_opt_count(IGT_THREADS, 0, FZ_MAX_THREADS);
	if (!s || !*s)
		return 4;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || *s == '-' || n < 1 || n > FZ_MAX_THREADS) {
		fprintf(stderr, "TTM_FUZZ_THREADS=%s: not a whole number of threads in 1..%d\n", s,
			FZ_MAX_THREADS);
		exit(IGT_EXIT_INVALID);
	}
	return (unsigned int)n;
}

static unsigned int fz_nthreads;

static void fz_run(unsigned int probability)
{
	struct ttm_global_config cfg = {.limit_pages = 8192};
	struct sigaction sa = {.sa_handler = fz_sigbus_handler};
	struct ttm_global_stats gs;
	uint64_t pages, ops = 0, refused = 0, sigbus = 0, verified = 0;
	unsigned long fired = 0;
	struct fz_ctx *c;
	long fences;
	char spec[96];

	c = calloc(1, sizeof(*c));
	igt_assert(c);
	c->nthreads = fz_nthreads;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NODEFER;
	igt_assert_eq(sigaction(SIGBUS, &sa, NULL), 0);
	igt_assert_eq(ttm_global_config(&cfg), 0);
	ttm_uapi_mock_timelines_init();
	fences = dma_fence_live_count();
	ttm_global_get_stats(&gs);
	pages = gs.pages;
	pthread_mutex_init(&c->lock, NULL);
	c->next_seed = igt_seed() << 20;
	igt_assert_eq(
	    ttm_drm_device_init(&c->ddev, &ttm_uapi_mock_funcs, &fz_driver, "fuzz-threads", false),
	    0);
	for (unsigned int i = 0; i < c->nthreads; i++) {
		struct fz_thread *t = &c->t[i];

		t->c = c;
		t->id = i;
		t->rng = igt_seed() * PRNG_GOLDEN + i + 1;
		t->fd = ttm_drm_open(&c->ddev);
		igt_assert(t->fd >= 0);
	}
	/* A TT smaller than what the buffers need: moves into it evict each other. */
	igt_assert_eq(uapi_mm_init(c->t[0].fd, DRM_BO_MEM_TT, 0, FZ_TT_PAGES), 0);

	if (probability) {
		snprintf(spec, sizeof(spec), "all:probability=%u,times=-1;seed=%llu", probability,
			 (unsigned long long)igt_seed());
		igt_assert_eq(fault_configure(spec, NULL, 0), 0);
		atomic_store(&c->armed, true);
		igt_info("faults: %s\n", spec);
	}
	stress_budget_init(&c->budget,
			   igt_stress_budget_s() > 2 && !igt_soak() ? 2 : igt_stress_budget_s(),
			   igt_soak() ? UINT64_MAX : 200000);
	for (unsigned int i = 0; i < c->nthreads; i++)
		igt_assert_eq(pthread_create(&c->t[i].thread, NULL, fz_thread_fn, &c->t[i]), 0);
	for (unsigned int i = 0; i < c->nthreads; i++)
		pthread_join(c->t[i].thread, NULL);
	fired = fault_total_fired();
	fault_reset_all();
	atomic_store(&c->armed, false);

	/* Disarmed: everything is readable and intact, then everything goes. */
	for (unsigned int i = 0; i < c->nthreads; i++) {
		struct fz_thread *t = &c->t[i];

		for (unsigned int j = 0; j < FZ_SLOTS; j++) {
			struct fz_bo *b = &t->bo[j];

			if (!b->used)
				continue;
			fz_map(t, b);
			fz_verify(t, b, true);
			fz_release(t, b);
		}
		igt_assert_eq(ttm_drm_close(t->fd), 0);
		ops += t->ops;
		refused += t->refused;
		sigbus += t->sigbus;
		verified += t->verified;
	}
	ttm_device_flush_delayed(&c->ddev.bdev, true);
	igt_assert_eq_u64(atomic_load(&c->ddev.bdev.stats.bo_count), 0);
	igt_assert_eq(ttm_drm_device_fini(&c->ddev), 0);
	igt_assert_eq_s64(dma_fence_live_count(), fences);
	ttm_global_get_stats(&gs);
	igt_assert_eq_u64(gs.pages, pages);
	igt_info("%u threads: %llu calls, %llu refused by injected faults, %llu accesses cut by "
		 "SIGBUS, %lu faults injected, %llu bytes verified\n",
		 c->nthreads, (unsigned long long)ops, (unsigned long long)refused,
		 (unsigned long long)sigbus, fired, (unsigned long long)verified);
	if (probability)
		igt_assert_f(fired > 0, "no fault fired in %llu calls\n", (unsigned long long)ops);
	igt_report_checks(ops, verified, fired);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

igt_main_description("Client threads issue random uAPI calls on private and shared buffers "
		     "(create, map, write, read, move, reference, unmap, unreference, reopen) "
		     "while fault points fire at random; no crash, no leak, content intact.")
{
	/* A bad thread count is refused before any subtest runs. */
	igt_fixture fz_nthreads = fz_threads_from_env();
	igt_subtest("basic") fz_run(0);
	igt_subtest("faults") fz_run(2);
}
