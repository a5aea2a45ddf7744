/* SPDX-License-Identifier: MIT */
/*
 * bench_mockdev - the smallest driver that lets the benchmarks drive the TTM
 * core on its own ("core" back end): SYSTEM, an optional GTT-like TT
 * aperture (range manager, pages stay in the ttm_tt, so SYSTEM <-> TT is a
 * bind/unbind without copying) and an optional device-local VRAM (range
 * manager over host memory, so every move in or out is a memcpy).
 *
 * Eviction targets: VRAM -> TT when the device has a TT aperture, else
 * SYSTEM; TT -> SYSTEM. Moves go through ttm_bo_move_memcpy() (the CPU path;
 * a driver with a blitter would pipeline them behind a fence instead).
 *
 * Used by benchmark-validate and benchmark-evict until they run over the i915
 * driver; results made with it say backend "core" in their parameters.
 * Single device per struct, any number of devices per process. Errors are
 * negative errno values.
 */
#ifndef BENCH_MOCKDEV_H
#define BENCH_MOCKDEV_H

#include <stdint.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_device.h>
#include <ttm/ttm_range_manager.h>

/**
 * struct bench_mockdev - the mock device (caller-embedded).
 * @bdev: the TTM device.
 * @tt_pages: TT aperture size in 4 KiB pages, 0 for none.
 * @vram_pages: VRAM size in pages, 0 for none.
 * @tt: the TT range manager (valid when @tt_pages).
 * @vram: the VRAM range manager (valid when @vram_pages).
 * @vram_mem: host memory standing in for VRAM, @vram_pages pages.
 */
struct bench_mockdev {
	struct ttm_device bdev;
	uint64_t tt_pages;
	uint64_t vram_pages;
	struct ttm_range_manager tt;
	struct ttm_range_manager vram;
	void *vram_mem;
};

/**
 * bench_mockdev_init() - set up @md with the given aperture sizes (pages).
 * Return: 0, -ENOMEM, or an error of ttm_device_init().
 */
int bench_mockdev_init(struct bench_mockdev *md, uint64_t tt_pages, uint64_t vram_pages);

/**
 * bench_mockdev_fini() - tear @md down. Every BO must have been put; BOs
 * still waiting for the delayed-destroy worker are flushed first.
 * Return: 0, -EBUSY when BOs remain (nothing freed then).
 */
int bench_mockdev_fini(struct bench_mockdev *md);

/**
 * bench_mockdev_bo_create() - allocate a BO of @size bytes placed by
 * @placement, unreserved, one reference (drop it with ttm_bo_put()).
 * Return: the BO, or NULL (out of memory or nothing fits).
 */
struct ttm_buffer_object *bench_mockdev_bo_create(struct bench_mockdev *md, uint64_t size,
						  const struct ttm_placement *placement);

/**
 * bench_mockdev_place() - a one-place placement of memory type @mem_type in
 * caller storage @place. Return: @placement, filled.
 */
struct ttm_placement *bench_mockdev_place(struct ttm_placement *placement,
					  struct ttm_place *place, uint32_t mem_type);

#endif /* BENCH_MOCKDEV_H */
