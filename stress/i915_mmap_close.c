// SPDX-License-Identifier: MIT
/*
 * i915_mmap_close - a GEM object's CPU mapping outlives the handle and the
 * descriptor it came from, as in the kernel, where the vma holds a
 * reference on the object until munmap.
 *
 * Each round creates an object on the GEM uAPI (simulated tgl), maps it
 * through MMAP_OFFSET + i915_gem_mmap(), writes a pattern, then drops the
 * handle (GEM_CLOSE) or the whole descriptor (i915_gem_file_close), and
 * only then reads the pattern back and writes and reads a second one
 * through the mapping. Proven: no fault, the content intact, the object
 * alive while mapped, and gone (the device's BO count back at its start)
 * after i915_gem_munmap().
 *
 * Subtests: "close-handle", "close-fd" (one thread), "close-fd-threads"
 * (TTM_MMAP_THREADS threads, default 4, 1..16, each with its own
 * descriptor, rounds bounded by --duration; a TSan subtest).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <drm.h>
#include <i915_drm.h>
#include <i915/i915_drv.h>
#include <i915/i915_gem_uapi.h>

#include "igt.h"
#include "stress_util.h"

#define MC_SIZE (64 * 1024)
#define MC_MAX_THREADS 16

static uint64_t mc_word(uint64_t seed, uint64_t i)
{
	return prng_mix64(seed * PRNG_GOLDEN + i);
}

static void mc_fill(volatile uint64_t *p, uint64_t seed)
{
	for (uint64_t i = 0; i < MC_SIZE / 8; i++)
		p[i] = mc_word(seed, i);
}

static void mc_check(const volatile uint64_t *p, uint64_t seed)
{
	for (uint64_t i = 0; i < MC_SIZE / 8; i++)
		igt_assert_f(p[i] == mc_word(seed, i), "word %llu lost after the close\n",
			     (unsigned long long)i);
}

static long mc_bos(struct i915_device *i915)
{
	ttm_device_flush_delayed(&i915->drm.bdev, true);
	return (long)atomic_load(&i915->drm.bdev.stats.bo_count);
}

/*
 * One round: map, close (@fd: the descriptor, else the handle), use, unmap;
 * @alone: no other thread maps meanwhile.
 */
static void mc_round(struct i915_device *i915, bool fd, uint64_t seed, bool alone)
{
	struct drm_i915_gem_create create = {.size = MC_SIZE};
	struct drm_i915_gem_mmap_offset mo = {.flags = I915_MMAP_OFFSET_WB};
	struct i915_gem_file *file;
	void *ptr = NULL;

	igt_assert_eq(i915_gem_file_open(i915, true, &file), 0);
	igt_assert_eq(i915_gem_ioctl(file, DRM_IOCTL_I915_GEM_CREATE, &create), 0);
	mo.handle = create.handle;
	igt_assert_eq(i915_gem_ioctl(file, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo), 0);
	igt_assert_eq(i915_gem_mmap(file, NULL, MC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
				    (off_t)mo.offset, &ptr),
		      0);
	mc_fill(ptr, seed);
	if (fd) {
		i915_gem_file_close(file);
	} else {
		struct drm_gem_close cl = {.handle = create.handle};

		igt_assert_eq(i915_gem_ioctl(file, DRM_IOCTL_GEM_CLOSE, &cl), 0);
		igt_assert_eq(i915_gem_ioctl(file, DRM_IOCTL_GEM_CLOSE, &cl), -EINVAL);
	}
	mc_check(ptr, seed);
	mc_fill(ptr, seed + 1);
	mc_check(ptr, seed + 1);
	igt_assert_eq(i915_gem_munmap(i915, ptr, MC_SIZE), 0);
	/* With other threads mapping, the address may already be theirs again. */
	if (alone)
		igt_assert_eq(i915_gem_munmap(i915, ptr, MC_SIZE), -ENOENT);
	if (!fd)
		i915_gem_file_close(file);
}

static void mc_single(bool fd)
{
	struct i915_device *i915;
	long base;

	igt_assert_eq(i915_gem_device_create("tgl", &i915), 0);
	base = mc_bos(i915);
	for (uint64_t r = 0; r < 8; r++) {
		mc_round(i915, fd, igt_seed() + r, true);
		igt_assert_eq(mc_bos(i915), base);
	}
	i915_gem_device_destroy(i915);
	igt_report_checks(8, 8 * 3 * MC_SIZE, 0);
}

struct mc_thread {
	struct i915_device *i915;
	struct stress_budget *budget;
	pthread_t thread;
	uint64_t seed, rounds;
};

static void *mc_thread_fn(void *arg)
{
	struct mc_thread *t = arg;

	while (!stress_budget_done(t->budget, t->rounds)) {
		mc_round(t->i915, true, t->seed + t->rounds, false);
		t->rounds++;
	}
	return NULL;
}

static unsigned int mc_threads_from_env(void)
{
	const char *s = getenv("TTM_MMAP_THREADS");
	char *end;
	unsigned long n;

	/* --threads N first, then the variable. */
	if (igt_opt_count(IGT_THREADS, 0, MC_MAX_THREADS))
		return igt_opt_count(IGT_THREADS, 0, MC_MAX_THREADS);
	if (!s || !*s)
		return 4;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || *s == '-' || n < 1 || n > MC_MAX_THREADS) {
		fprintf(stderr, "TTM_MMAP_THREADS=%s: not a whole number of threads in 1..%d\n", s,
			MC_MAX_THREADS);
		exit(IGT_EXIT_INVALID);
	}
	return (unsigned int)n;
}

static unsigned int mc_nthreads;

static void mc_threads(void)
{
	struct mc_thread t[MC_MAX_THREADS];
	struct stress_budget budget;
	struct i915_device *i915;
	uint64_t rounds = 0;
	long base;

	igt_assert_eq(i915_gem_device_create("tgl", &i915), 0);
	base = mc_bos(i915);
	stress_budget_init(&budget,
			   igt_stress_budget_s() > 2 && !igt_soak() ? 2 : igt_stress_budget_s(),
			   igt_soak() ? UINT64_MAX : 400);
	for (unsigned int i = 0; i < mc_nthreads; i++) {
		t[i] = (struct mc_thread){
		    .i915 = i915, .budget = &budget, .seed = igt_seed() + ((uint64_t)i << 32)};
		igt_assert_eq(pthread_create(&t[i].thread, NULL, mc_thread_fn, &t[i]), 0);
	}
	for (unsigned int i = 0; i < mc_nthreads; i++) {
		pthread_join(t[i].thread, NULL);
		rounds += t[i].rounds;
	}
	igt_assert_eq(mc_bos(i915), base);
	i915_gem_device_destroy(i915);
	igt_info("%u threads: %llu map-close-use-unmap rounds\n", mc_nthreads,
		 (unsigned long long)rounds);
	igt_report_checks(rounds, rounds * 3 * MC_SIZE, 0);
}

igt_main_description("A GEM object's CPU mapping outlives its handle and its descriptor until "
		     "munmap: content intact, object freed at the munmap.")
{
	igt_fixture mc_nthreads = mc_threads_from_env();
	igt_subtest("close-handle") mc_single(false);
	igt_subtest("close-fd") mc_single(true);
	igt_subtest("close-fd-threads") mc_threads();
}
