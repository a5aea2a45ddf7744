// SPDX-License-Identifier: MIT
/*
 * benchmark-fence: the core fence paths against references measured in the
 * same run.
 *
 *  create+signal+put   M fences/s, single thread; reference: an uncontended
 *                      pthread mutex lock+unlock (ns), ratio = fence ns / mutex ns
 *  wait on signalled   ns per dma_fence_wait_timeout() on a signalled fence;
 *                      ratio to the same mutex reference
 *  signal-to-wake      ns from dma_fence_signal() on one thread to the waiter
 *                      returning on another, per round trip of two fences;
 *                      reference: a bare futex ping-pong round trip between two
 *                      threads, ratio = fence / futex
 *
 * Every figure is the median over --reps repetitions (default 7) after one
 * warm-up, with min and max printed as the spread. The two round trips are
 * measured in alternating repetitions.
 */
#include <ttm/dma_fence.h>

#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct fig {
	double med, min, max;
};

static struct fig summarize(double *v, unsigned n)
{
	struct fig f;

	qsort(v, n, sizeof(*v), cmp_double);
	f.min = v[0];
	f.max = v[n - 1];
	f.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return f;
}

static const char *bname(struct dma_fence *f)
{
	(void)f;
	return "bench";
}

static const struct dma_fence_ops bops = { .get_driver_name = bname, .get_timeline_name = bname };

/* --- the measured operations, each returning ns per operation --- */

static double rep_mutex(unsigned long iters)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	uint64_t t0 = now_ns();

	for (unsigned long i = 0; i < iters; i++) {
		pthread_mutex_lock(&m);
		__asm__ __volatile__("" ::: "memory");
		pthread_mutex_unlock(&m);
	}
	return (double)(now_ns() - t0) / (double)iters;
}

static double rep_create_signal_put(unsigned long iters)
{
	uint64_t ctx = dma_fence_context_alloc(1);
	uint64_t t0 = now_ns();

	for (unsigned long i = 0; i < iters; i++) {
		struct dma_fence *f = dma_fence_alloc(sizeof(*f));

		if (!f)
			return -1;
		dma_fence_init(f, &bops, ctx, i + 1);
		dma_fence_signal_timestamp(f, 0);
		dma_fence_put(f);
	}
	return (double)(now_ns() - t0) / (double)iters;
}

static double rep_wait_signaled(unsigned long iters)
{
	struct dma_fence *f = dma_fence_allocate_private_stub(0);
	int64_t sum = 0;
	uint64_t t0;

	if (!f)
		return -1;
	t0 = now_ns();
	for (unsigned long i = 0; i < iters; i++)
		sum += dma_fence_wait_timeout(f, false, 1000);
	t0 = now_ns() - t0;
	dma_fence_put(f);
	return sum > 0 ? (double)t0 / (double)iters : -1;
}

/* Futex ping-pong: the bare kernel round trip the fence wake is built on. */
struct pingpong {
	atomic_uint word;
	unsigned long iters;
};

static void futex_wait(atomic_uint *w, unsigned v)
{
	syscall(SYS_futex, (unsigned *)w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void futex_wake(atomic_uint *w)
{
	syscall(SYS_futex, (unsigned *)w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *pong_thread(void *p)
{
	struct pingpong *pp = p;

	for (unsigned long i = 0; i < pp->iters; i++) {
		unsigned want = 2 * (unsigned)i + 1;

		while (atomic_load(&pp->word) != want)
			futex_wait(&pp->word, want - 1);
		atomic_store(&pp->word, want + 1);
		futex_wake(&pp->word);
	}
	return NULL;
}

static double rep_futex_rtt(unsigned long iters)
{
	struct pingpong pp = { .word = 0, .iters = iters };
	pthread_t t;
	uint64_t t0;

	pthread_create(&t, NULL, pong_thread, &pp);
	t0 = now_ns();
	for (unsigned long i = 0; i < iters; i++) {
		unsigned v = 2 * (unsigned)i;

		atomic_store(&pp.word, v + 1);
		futex_wake(&pp.word);
		while (atomic_load(&pp.word) != v + 2)
			futex_wait(&pp.word, v + 1);
	}
	t0 = now_ns() - t0;
	pthread_join(t, NULL);
	return (double)t0 / (double)iters;
}

/* Fence ping-pong: signal a fence the other thread waits on, and back. */
struct fence_pp {
	struct dma_fence **ping, **pong;
	unsigned long iters;
};

static void *fence_pong(void *p)
{
	struct fence_pp *pp = p;

	for (unsigned long i = 0; i < pp->iters; i++) {
		dma_fence_wait_timeout(pp->ping[i], false, MAX_SCHEDULE_TIMEOUT);
		dma_fence_signal(pp->pong[i]);
	}
	return NULL;
}

static double rep_fence_rtt(unsigned long iters)
{
	struct fence_pp pp = { .iters = iters };
	uint64_t ctx = dma_fence_context_alloc(2);
	pthread_t t;
	uint64_t t0;

	pp.ping = calloc(iters, sizeof(*pp.ping));
	pp.pong = calloc(iters, sizeof(*pp.pong));
	for (unsigned long i = 0; i < iters; i++) {
		pp.ping[i] = dma_fence_alloc(sizeof(struct dma_fence));
		pp.pong[i] = dma_fence_alloc(sizeof(struct dma_fence));
		dma_fence_init(pp.ping[i], &bops, ctx, i + 1);
		dma_fence_init(pp.pong[i], &bops, ctx + 1, i + 1);
	}
	pthread_create(&t, NULL, fence_pong, &pp);
	t0 = now_ns();
	for (unsigned long i = 0; i < iters; i++) {
		dma_fence_signal(pp.ping[i]);
		dma_fence_wait_timeout(pp.pong[i], false, MAX_SCHEDULE_TIMEOUT);
	}
	t0 = now_ns() - t0;
	pthread_join(t, NULL);
	for (unsigned long i = 0; i < iters; i++) {
		dma_fence_put(pp.ping[i]);
		dma_fence_put(pp.pong[i]);
	}
	free(pp.ping);
	free(pp.pong);
	return (double)t0 / (double)iters;
}

static struct fig measure(double (*fn)(unsigned long), unsigned long iters, unsigned reps)
{
	double v[64];

	fn(iters / 4 + 1); /* warm-up */
	for (unsigned r = 0; r < reps; r++)
		v[r] = fn(iters);
	return summarize(v, reps);
}

/*
 * One summary line. @f is in ns per operation; a rate (@rate) is shown as
 * M/s with its spread converted too. The ratio is always ns / reference ns.
 */
static void row(const char *metric, bool rate, struct fig f, const char *ref, struct fig rf,
		const char *target, int pass)
{
	double v = rate ? 1000.0 / f.med : f.med;
	double lo = rate ? 1000.0 / f.max : f.min, hi = rate ? 1000.0 / f.min : f.max;

	printf("%-20s %9.2f %-4s [%.2f..%.2f]  ref %-17s %8.2f ns  ratio %5.2fx  target %-8s %s\n",
	       metric, v, rate ? "M/s" : "ns", lo, hi, ref, rf.med, f.med / rf.med, target,
	       pass ? "pass" : "MISS");
}

/*
 * Measure @fn and its reference @ref in alternating repetitions so that
 * whatever else the machine is doing weighs on both alike.
 */
static void measure_pair(double (*fn)(unsigned long), double (*ref)(unsigned long),
			 unsigned long iters, unsigned reps, struct fig *f, struct fig *rf)
{
	double v[64], r[64];

	fn(iters / 4 + 1);
	ref(iters / 4 + 1);
	for (unsigned i = 0; i < reps; i++) {
		r[i] = ref(iters);
		v[i] = fn(iters);
	}
	*f = summarize(v, reps);
	*rf = summarize(r, reps);
}

int main(int argc, char **argv)
{
	unsigned reps = 7;
	unsigned long scale = 1;
	struct fig mutex, csp, wait, futex_rtt, fence_rtt;

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--reps=", 7)) {
			reps = (unsigned)strtoul(argv[i] + 7, NULL, 10);
		} else if (!strcmp(argv[i], "--quick")) {
			scale = 10;
			reps = 3;
		} else {
			fprintf(stderr, "benchmark-fence: unknown option '%s' (use --reps=N, --quick)\n",
				argv[i]);
			return 2;
		}
	}
	if (reps < 1 || reps > 64) {
		fprintf(stderr, "benchmark-fence: --reps must be 1..64\n");
		return 2;
	}
	mutex = measure(rep_mutex, 4000000 / scale, reps);
	csp = measure(rep_create_signal_put, 4000000 / scale, reps);
	wait = measure(rep_wait_signaled, 10000000 / scale, reps);
	measure_pair(rep_fence_rtt, rep_futex_rtt, 50000 / scale, reps, &fence_rtt, &futex_rtt);

	printf("benchmark-fence: median of %u reps (after a warm-up), spread as [min max]\n", reps);
	row("create+signal+put", true, csp, "mutex lock+unlock", mutex, ">=20M/s",
	    1000.0 / csp.med >= 20.0);
	row("wait(signalled)", false, wait, "mutex lock+unlock", mutex, "<=20ns", wait.med <= 20.0);
	/* Each fence round trip is two signal-to-wake hops, as is a futex one. */
	row("signal-to-wake rtt", false, fence_rtt, "futex round trip", futex_rtt, "<=1.5x",
	    fence_rtt.med / futex_rtt.med <= 1.5);
	return 0;
}
