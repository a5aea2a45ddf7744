/* SPDX-License-Identifier: MIT */
/*
 * fuzz_gem.h: what the GEM uAPI fuzz targets (fuzz-gem-uapi, fuzz-gem-threads)
 * check at the end of every input, after closing all they opened.
 */
#ifndef FUZZ_GEM_H
#define FUZZ_GEM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <ttm/ttm_device.h>

#include "../i915/gem/gem_priv.h"
#include "fuzz_input.h"

/*
 * fuzz_gem_check_quiet() - let the queued batches and the GPU finish and
 * the deleted BOs go, then check that nothing of the session is left: no BO
 * of the device is alive (a leak of any object, handle or mapping holds one).
 */
static inline void fuzz_gem_check_quiet(struct i915_device *i915)
{
	pthread_mutex_lock(&i915->gem_uapi->lock);
	while (i915->gem_uapi->async_jobs)
		pthread_cond_wait(&i915->gem_uapi->async_cond, &i915->gem_uapi->lock);
	pthread_mutex_unlock(&i915->gem_uapi->lock);
	for (unsigned int id = 0; id < I915_NUM_ENGINES; id++)
		i915_engine_wait_idle(&i915->engine[id], UINT32_MAX / 2);
	ttm_device_flush_delayed(&i915->drm.bdev, true);
	fuzz_check(atomic_load(&i915->drm.bdev.stats.bo_count) == 0);
}

#endif /* FUZZ_GEM_H */
