// SPDX-License-Identifier: MIT
/*
 * bench_refs.c - reference figures measured in the same run as the
 * benchmark, so a result reads as "N syscalls" or "M% of memcpy" and stays
 * meaningful on a loaded or throttled machine.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ttm/drm_cache.h>

#include "bench.h"

#define REF_REPS 5
#define REF_REPS_QUICK 3

static int ref_reps(const struct bench_run *r)
{
	return r->opts.quick ? REF_REPS_QUICK : REF_REPS;
}

/* ----------------------------------------------------------- memcpy */

/*
 * The machine's copy bandwidth: per repetition the faster of memcpy() and a
 * streaming copy (drm_memcpy_stream(), the stores the core's large moves
 * and the simulated blitter use) of the same buffer. memcpy() alone would
 * make the reference a property of the C library: glibc streams only above
 * a threshold derived from the cache sizes (240 MiB on a 32 MiB-L3 EPYC),
 * so one machine's 128 MiB reference was a cached-store copy at half the
 * bandwidth another machine's was, and a copy figure's ratio meant
 * something different on each.
 */
static int measure_memcpy(struct bench_run *r, double *v, int reps)
{
	size_t size = r->opts.quick ? 16u << 20 : 64u << 20;
	char *src, *dst;
	int i;

	/* Four times the LLC so the copy runs from memory, not cache. */
	if (!r->opts.quick && r->machine.l3_bytes * 4 > size)
		size = (size_t)r->machine.l3_bytes * 4;
	src = malloc(size);
	dst = malloc(size);
	if (!src || !dst) {
		free(src);
		free(dst);
		return -ENOMEM;
	}
	/* Fault both in first: page faults are not memory bandwidth. */
	memset(src, 0x5a, size);
	memset(dst, 0, size);
	for (i = 0; i < reps; i++) {
		uint64_t t0 = testlib_now_raw_ns(), t1, t2;
		double lib, stream;

		memcpy(dst, src, size);
		t1 = testlib_now_raw_ns();
		drm_memcpy_stream(dst, src, size);
		drm_memcpy_stream_fence();
		t2 = testlib_now_raw_ns();
		lib = (double)size / (double)(t1 > t0 ? t1 - t0 : 1);
		stream = (double)size / (double)(t2 > t1 ? t2 - t1 : 1);
		v[i] = lib > stream ? lib : stream;
		/* Keep the copy observable so it is not optimised away. */
		src[i] = dst[size - 1 - (size_t)i];
	}
	free(src);
	free(dst);
	return 0;
}

/* ------------------------------------------------------------ futex */

struct futex_pp {
	uint32_t word; /* odd: ping's turn done, the pong side answers */
	unsigned rounds;
	struct bench_run *run;
};

static long futex(uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/* Wait until *w != @old, sleeping in the kernel (the point of the reference). */
static void futex_wait_change(uint32_t *w, uint32_t old)
{
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) == old)
		futex(w, FUTEX_WAIT_PRIVATE, old);
}

static void futex_set_wake(uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_RELEASE);
	futex(w, FUTEX_WAKE_PRIVATE, 1);
}

static void *futex_pong(void *arg)
{
	struct futex_pp *pp = arg;
	unsigned i;

	/* Another core than the ping side: the cross-core wakeup benchmarks pay. */
	bench_pin_thread(pp->run, 1);
	for (i = 0; i < pp->rounds; i++) {
		futex_wait_change(&pp->word, 2 * i);
		futex_set_wake(&pp->word, 2 * i + 2);
	}
	return NULL;
}

static int measure_futex(struct bench_run *r, double *v, int reps)
{
	unsigned rounds = r->opts.quick ? 300 : 2000, i;
	struct futex_pp pp;
	pthread_t t;
	int k, rc;

	for (k = 0; k < reps; k++) {
		uint64_t t0, dt;

		pp.word = 0;
		pp.rounds = rounds;
		pp.run = r;
		rc = pthread_create(&t, NULL, futex_pong, &pp);
		if (rc)
			return -rc;
		t0 = testlib_now_raw_ns();
		for (i = 0; i < rounds; i++) {
			futex_set_wake(&pp.word, 2 * i + 1);
			futex_wait_change(&pp.word, 2 * i + 1);
		}
		dt = testlib_now_raw_ns() - t0;
		pthread_join(t, NULL);
		v[k] = (double)dt / rounds;
	}
	return 0;
}

/* ------------------------------------------------------------ mutex */

static int measure_mutex(struct bench_run *r, double *v, int reps)
{
	unsigned n = r->opts.quick ? 200000 : 1000000, i;
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	int k;

	for (k = 0; k < reps; k++) {
		uint64_t t0 = testlib_now_raw_ns();

		for (i = 0; i < n; i++) {
			pthread_mutex_lock(&mu);
			pthread_mutex_unlock(&mu);
		}
		v[k] = (double)(testlib_now_raw_ns() - t0) / n;
	}
	pthread_mutex_destroy(&mu);
	return 0;
}

/* ---------------------------------------------------------- syscall */

static int measure_syscall(struct bench_run *r, double *v, int reps)
{
	unsigned n = r->opts.quick ? 20000 : 100000, i;
	int k;

	for (k = 0; k < reps; k++) {
		uint64_t t0 = testlib_now_raw_ns();

		/* syscall() directly: glibc may cache some ids, never this path. */
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		v[k] = (double)(testlib_now_raw_ns() - t0) / n;
	}
	return 0;
}

/* ------------------------------------------------------------ clock */

static int measure_clock(struct bench_run *r, double *v, int reps)
{
	unsigned n = r->opts.quick ? 200000 : 1000000, i;
	int64_t sink = 0;
	int k;

	for (k = 0; k < reps; k++) {
		uint64_t t0 = testlib_now_raw_ns();

		/* The clock dma_fence_signal() reads, not the harness's RAW one. */
		for (i = 0; i < n; i++) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			sink += ts.tv_nsec;
		}
		v[k] = (double)(testlib_now_raw_ns() - t0) / n;
	}
	return sink < 0 ? -EIO : 0;
}

/* ------------------------------------------------------------ memfd */

static int measure_memfd(struct bench_run *r, double *v, int reps)
{
	size_t block = 1u << 20, total = r->opts.quick ? 16u << 20 : 64u << 20, off;
	char *buf = malloc(block);
	int fd, k, rc = 0;

	if (!buf)
		return -ENOMEM;
	memset(buf, 0xa5, block);
	fd = memfd_create("bench-ref", MFD_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		free(buf);
		return rc;
	}
	for (k = 0; k < reps && !rc; k++) {
		uint64_t t0, dt;

		/*
		 * Fresh pages each time, like a swap-out into a new shmem
		 * object. The one 1 MiB source is cache-hot, yet no faster
		 * than 64 MiB of distinct data would be (measured on the PVM
		 * guest: 158-212 vs 127-157 us per MiB), so it flatters no one.
		 */
		if (ftruncate(fd, 0)) {
			rc = -errno;
			break;
		}
		t0 = testlib_now_raw_ns();
		for (off = 0; off < total; off += block) {
			ssize_t w = pwrite(fd, buf, block, (off_t)off);

			if (w != (ssize_t)block) {
				rc = w < 0 ? -errno : -EIO;
				break;
			}
		}
		dt = testlib_now_raw_ns() - t0;
		v[k] = (double)total / (double)(dt ? dt : 1);
	}
	close(fd);
	free(buf);
	return rc;
}

typedef int (*ref_fn)(struct bench_run *r, double *v, int reps);

static const ref_fn ref_fns[BENCH_REF_COUNT] = {
    [BENCH_REF_MEMCPY_BW] = measure_memcpy,	[BENCH_REF_FUTEX_RTT] = measure_futex,
    [BENCH_REF_MUTEX] = measure_mutex,		[BENCH_REF_SYSCALL] = measure_syscall,
    [BENCH_REF_MEMFD_WRITE_BW] = measure_memfd, [BENCH_REF_CLOCK] = measure_clock,
};

int bench_references_measure(struct bench_run *r)
{
	double v[REF_REPS];
	cpu_set_t saved;
	bool restore;
	int i, rc, first = 0, reps = ref_reps(r);

	/* Pin for the measurement only; the caller's affinity comes back after. */
	restore = !pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved);
	bench_pin_thread(r, 0);
	for (i = 0; i < BENCH_REF_COUNT; i++) {
		struct bench_reference *ref = &r->refs[i];

		ref->measured = false;
		rc = ref_fns[i](r, v, reps);
		if (!rc)
			rc = bench_stats_compute(v, (size_t)reps, r->opts.seed + (uint64_t)i,
						 &ref->stats);
		if (rc) {
			if (!first)
				first = rc;
			continue;
		}
		ref->measured = true;
	}
	if (restore)
		pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	return first;
}
