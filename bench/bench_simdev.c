// SPDX-License-Identifier: MIT
/* bench_simdev: see bench_simdev.h. */
#include "bench_simdev.h"

#include <pthread.h>
#include <stddef.h>

int bench_simdev_open(struct bench_run *run, unsigned nworkers, uint64_t aperture, uint64_t lmem,
		      struct i915_device **out)
{
	struct i915_device_config cfg;
	cpu_set_t cpus, saved;
	bool restore = false;
	int ret = bench_device_cpus(run, nworkers, &cpus);

	if (ret)
		return ret;
	i915_device_config_init(&cfg, I915_BACKEND_SIM);
	cfg.ggtt_size = BENCH_SIMDEV_GGTT;
	if (aperture)
		cfg.aperture_size = aperture;
	cfg.lmem_size = lmem;
	/* No CPU window: lmem moves are blits, never the CPU fallback. */
	cfg.lmem_visible_size = 0;
	/* The device's threads are created below and inherit this mask. */
	if (!pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved))
		restore = !pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	ret = i915_device_create(&cfg, out);
	if (!ret) {
		ret = i915_gem_init(*out);
		if (ret) {
			i915_device_destroy(*out);
			*out = NULL;
		}
	}
	if (restore)
		pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	return ret;
}

int bench_simdev_close(struct i915_device *i915)
{
	int ret = i915_gem_fini(i915);

	/* Objects still alive: destroying the device would free under them. */
	return ret ? ret : i915_device_destroy(i915);
}
