/* SPDX-License-Identifier: MIT */
/*
 * bench_coredev - the device of the core micro-benchmarks (validate-hit,
 * evict-copy): SYSTEM plus a VRAM range manager over host memory that
 * io_mem_reserve exposes as a CPU-visible aperture, so the core's default
 * memcpy move carries every byte in or out of VRAM. VRAM evicts to SYSTEM.
 *
 * Smaller than bench_mockdev on purpose (no TT aperture, no move callback):
 * these benchmarks time the core's own paths, with nothing of a driver in
 * them. One device per struct; errors are negative errno values.
 */
#ifndef BENCH_COREDEV_H
#define BENCH_COREDEV_H

#include <stdint.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_device.h>
#include <ttm/ttm_range_manager.h>

/**
 * struct bench_coredev - the device (caller-embedded).
 * @bdev: the TTM device.
 * @vram: the VRAM range manager, @vram_pages pages.
 * @vram_mem: host memory standing in for VRAM; NULL when not initialised.
 * @vram_pages: VRAM size in pages.
 */
struct bench_coredev {
	struct ttm_device bdev;
	struct ttm_range_manager vram;
	void *vram_mem;
	uint64_t vram_pages;
};

/**
 * bench_coredev_init() - set up @d with @vram_pages pages of VRAM.
 * Return: 0; -ENOMEM; errors of ttm_device_init() and the range manager.
 * On failure nothing is left behind and @d->vram_mem is NULL.
 */
int bench_coredev_init(struct bench_coredev *d, uint64_t vram_pages);

/**
 * bench_coredev_fini() - tear @d down after every BO was put (BOs waiting
 * for delayed destruction are flushed first).
 */
void bench_coredev_fini(struct bench_coredev *d);

/**
 * bench_coredev_bo_create() - a BO of @size bytes placed by @placement,
 * returned reserved in *@bo with one reference (ttm_bo_unreserve(), then
 * ttm_bo_put()). *@bo is NULL on failure.
 * Return: 0; -ENOMEM; errors of ttm_bo_init_reserved() (-ENOSPC ...).
 */
int bench_coredev_bo_create(struct bench_coredev *d, uint64_t size,
			    const struct ttm_placement *placement, struct ttm_buffer_object **bo);

#endif /* BENCH_COREDEV_H */
