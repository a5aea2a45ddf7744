/* SPDX-License-Identifier: MIT */
/* Shared fixtures of the i915 driver tests: small devices and GGTT scratch. */
#ifndef I915_TEST_COMMON_H
#define I915_TEST_COMMON_H

#include <stdlib.h>
#include <string.h>

#include <fault_inject.h>
/* The tests configure the sim back end and look at its state. */
#include <sim_gpu.h>
#include <i915/i915_cmds.h>
#include <i915/i915_drv.h>
#include <ttm/ttm_resource.h>

#include <testlib/checksum.h>

#include "ktest.h"

/* A small discrete-style part: 256 MiB GGTT, 32 MiB aperture, stolen, lmem. */
static inline void i915_test_config(struct sim_gpu_config *cfg)
{
	sim_gpu_config_init(cfg);
	cfg->ggtt_size = 256ull << 20;
	cfg->aperture_size = 32ull << 20;
	cfg->stolen_size = 4ull << 20;
	cfg->lmem_size = 16ull << 20;
	cfg->lmem_visible_size = 4ull << 20;
	cfg->hangcheck_ms = 100;
}

static inline struct i915_device *i915_test_device(bool synchronous)
{
	struct sim_gpu_config cfg;
	struct i915_device *i915 = NULL;

	i915_test_config(&cfg);
	cfg.synchronous = synchronous;
	if (i915_device_create_sim(&cfg, &i915))
		return NULL;
	return i915;
}

/**
 * struct i915_test_buf - host pages bound at a GGTT range, for batches and
 * targets the tests read back.
 */
struct i915_test_buf {
	struct i915_device *i915;
	struct ttm_resource *res;
	void *mem;
	size_t size;
	uint64_t addr;
};

static inline int i915_test_buf_init(struct i915_test_buf *b, struct i915_device *i915, size_t size,
				     uint32_t flags)
{
	const struct ttm_place place = {.mem_type = TTM_PL_TT, .flags = flags};
	size_t pages = size / TTM_PAGE_SIZE;
	void **ptrs;
	int ret;

	memset(b, 0, sizeof(*b));
	b->i915 = i915;
	b->size = size;
	b->mem = aligned_alloc(TTM_PAGE_SIZE, size);
	ptrs = calloc(pages, sizeof(*ptrs));
	if (!b->mem || !ptrs) {
		free(ptrs);
		free(b->mem);
		return -ENOMEM;
	}
	memset(b->mem, 0, size);
	for (size_t i = 0; i < pages; i++)
		ptrs[i] = (char *)b->mem + i * TTM_PAGE_SIZE;
	ret = ttm_resource_alloc(i915_ggtt_manager(&i915->ggtt), NULL, &place, size, 0, &b->res);
	if (!ret) {
		ret = i915_ggtt_bind_host(&i915->ggtt, b->res->start, ptrs, pages);
		if (ret)
			ttm_resource_free(i915_ggtt_manager(&i915->ggtt), &b->res);
	}
	free(ptrs);
	if (ret) {
		free(b->mem);
		return ret;
	}
	b->addr = i915_ggtt_offset(b->res);
	return 0;
}

static inline void i915_test_buf_fini(struct i915_test_buf *b)
{
	if (!b->res)
		return;
	i915_ggtt_unbind(&b->i915->ggtt, b->res->start, b->size / TTM_PAGE_SIZE);
	ttm_resource_free(i915_ggtt_manager(&b->i915->ggtt), &b->res);
	free(b->mem);
}

static inline uint32_t i915_test_read32(const struct i915_test_buf *b, size_t offset)
{
	return __atomic_load_n((const uint32_t *)((const char *)b->mem + offset), __ATOMIC_ACQUIRE);
}

/* FNV-1a over @len bytes, the content checksum the move tests compare. */
static inline uint64_t i915_test_checksum(const void *p, size_t len)
{
	return testlib_checksum(p, len);
}

/*
 * Fail the next hit of @point on the calling thread (the paths the fault
 * tests drive run on it: the device's threads do not count).
 */
static inline void i915_test_fail_next(struct fault_attr *point)
{
	fault_thread_fail_nth(point, 1);
}

/* Disarm what i915_test_fail_next() armed; true when it fired. */
static inline bool i915_test_fault_fired(void)
{
	bool fired = fault_thread_nth_pending() == 0;

	fault_thread_fail_nth(NULL, 0);
	return fired;
}

#endif /* I915_TEST_COMMON_H */
