/* SPDX-License-Identifier: MIT */
/*
 * bench_mockdev - the benchmarks' settings of testlib's mock TTM device
 * (testlib/mock_device.h), for the "core" back end that drives the TTM core
 * with no GPU. Both are 'bare': no callback counters or notify callbacks,
 * only what a minimal driver runs.
 *
 * - bench_mockdev_init(): SYSTEM, an optional TT aperture (pages stay in the
 *   ttm_tt), an optional host-memory VRAM; evictions go VRAM -> TT (SYSTEM
 *   without TT) -> SYSTEM; every move is ttm_bo_move_memcpy() (the CPU
 *   path; a driver with a blitter would pipeline it behind a fence).
 *   benchmark-validate, benchmark-evict and benchmark-map-fault; results
 *   made with it say backend "core" in their parameters.
 * - bench_coredev_init(): SYSTEM and a host-memory VRAM, evicted to SYSTEM,
 *   with no move callback at all: validate-hit and evict-copy time the
 *   core's own paths, nothing of a driver in them.
 *
 * Errors are negative errno values.
 */
#ifndef BENCH_MOCKDEV_H
#define BENCH_MOCKDEV_H

#include <stdint.h>

#include <testlib/mock_device.h>

/**
 * bench_mockdev_init() - the "core" back end's device in @md.
 * @md: caller-embedded.
 * @tt_pages: TT aperture size in 4 KiB pages, 0 for none.
 * @vram_pages: VRAM size in pages, 0 for none.
 *
 * Return: 0; -ENOMEM; errors of ttm_device_init() and the managers.
 */
static inline int bench_mockdev_init(struct testlib_mock_device *md, uint64_t tt_pages,
				     uint64_t vram_pages)
{
	const struct testlib_mock_cfg cfg = {
	    .tt_pages = tt_pages,
	    .vram_pages = vram_pages,
	    .bare = true,
	    .evict = TESTLIB_MOCK_EVICT_DOWN,
	    .move = TESTLIB_MOCK_MOVE_MEMCPY,
	};

	return testlib_mock_device_init(md, &cfg);
}

/**
 * bench_coredev_init() - the core micro-benchmarks' device in @md: @vram_pages
 * of VRAM evicted to SYSTEM by the core's default move.
 * @md: caller-embedded.
 * @vram_pages: VRAM size in pages.
 *
 * Return: 0; -ENOMEM; errors of ttm_device_init() and the range manager.
 */
static inline int bench_coredev_init(struct testlib_mock_device *md, uint64_t vram_pages)
{
	const struct testlib_mock_cfg cfg = {
	    .vram_pages = vram_pages,
	    .bare = true,
	    .evict = TESTLIB_MOCK_EVICT_SYSTEM,
	    .move = TESTLIB_MOCK_MOVE_CORE,
	};

	return testlib_mock_device_init(md, &cfg);
}

/**
 * bench_mockdev_bo_create() - an unreserved BO of @size bytes placed by
 * @placement, one reference (drop it with ttm_bo_put()).
 * @md: the device.
 * @size: bytes.
 * @placement: where it goes.
 *
 * Return: the BO, or NULL (out of memory or nothing fits).
 */
static inline struct ttm_buffer_object *
bench_mockdev_bo_create(struct testlib_mock_device *md, uint64_t size,
			const struct ttm_placement *placement)
{
	struct ttm_buffer_object *bo;

	return testlib_mock_bo_create(&md->bdev, size, placement, NULL, false, &bo) ? NULL : bo;
}

/**
 * bench_mockdev_place() - a one-place placement of @mem_type in caller storage.
 * @placement: filled.
 * @place: filled.
 * @mem_type: the memory type.
 *
 * Return: @placement.
 */
static inline struct ttm_placement *bench_mockdev_place(struct ttm_placement *placement,
							struct ttm_place *place, uint32_t mem_type)
{
	return testlib_mock_placement(placement, place, mem_type, 0);
}

#endif /* BENCH_MOCKDEV_H */
