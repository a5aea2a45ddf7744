/* SPDX-License-Identifier: MIT */
/*
 * ttm_mock.h - the stress programs' settings of testlib's mock TTM device
 * (testlib/mock_device.h), until (and besides) the i915 driver: a TT
 * aperture and a VRAM heap, both range managers, VRAM evicted to TT with
 * SYSTEM as a fallback, and buffer objects carrying a self-describing
 * pattern so content can be proven intact wherever the memory manager puts
 * them.
 *
 * VRAM is a host allocation the CPU reaches through io_mem_reserve (the
 * whole heap is "mappable"), so every move can be checked by reading the
 * destination. TT and SYSTEM share the BO's tt pages: a move between them
 * only rebinds (ttm_bo_move_null()); the others are memcpy moves.
 *
 * Pattern: 64-bit words, word i of a BO with seed s holds mix(s, i) where
 * mix is a fixed bijective hash; any lost page, shifted copy, stale page or
 * swap of two BOs changes at least one word. Verification reports the first
 * bad offset.
 *
 * Verification after every move: when @verify_moves is set, the move
 * callback reads the new resource directly (VRAM view or tt pages) right
 * after the copy and counts a mismatch in @stats.move_mismatches; the
 * program asserts that counter stays zero.
 *
 * Locking: the device's own; the mock adds only atomics.
 */
#ifndef TTM_MOCK_H
#define TTM_MOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_device.h>
#include <ttm/ttm_range_manager.h>

#include <testlib/mock_device.h>

/**
 * struct ttm_mock_stats - what the mock observed (atomics).
 * @moves: successful moves through the mock's move callback.
 * @moves_verified: of which checked against the pattern at the destination.
 * @move_mismatches: destination content differing from the pattern.
 * @bytes_verified: bytes compared, by move checks and ttm_mock_bo_verify().
 * @bo_live: mock BOs created and not yet destroyed.
 */
struct ttm_mock_stats {
	_Atomic uint64_t moves;
	_Atomic uint64_t moves_verified;
	_Atomic uint64_t move_mismatches;
	_Atomic uint64_t bytes_verified;
	_Atomic long bo_live;
};

/**
 * struct ttm_mock_device - caller-embedded mock GPU.
 * @base: testlib's mock device: base.bdev is the TTM device, base.tt and
 *	base.vram its managers, base.vram_mem the host memory behind VRAM.
 * @verify_moves: check every destination after a move.
 * @stats: counters.
 */
struct ttm_mock_device {
	struct testlib_mock_device base;
	bool verify_moves;
	struct ttm_mock_stats stats;
};

/**
 * struct ttm_mock_bo - a BO with a known pattern.
 * @base: the BO.
 * @mdev: the device.
 * @seed: the pattern's seed.
 * @filled: the pattern has been written (before that the content is
 *	undefined and moves are not checked). Protected by the reservation.
 */
struct ttm_mock_bo {
	struct ttm_buffer_object base;
	struct ttm_mock_device *mdev;
	uint64_t seed;
	bool filled;
};

static inline struct ttm_mock_bo *to_ttm_mock_bo(struct ttm_buffer_object *bo)
{
	return container_of(bo, struct ttm_mock_bo, base);
}

/**
 * ttm_mock_device_init() - a device with @tt_pages of TT and @vram_pages of
 * VRAM (either may be 0: that type is then not registered).
 * Return: 0; -ENOMEM; errors of ttm_device_init(). Nothing is left behind
 * on failure.
 */
int ttm_mock_device_init(struct ttm_mock_device *mdev, uint64_t tt_pages, uint64_t vram_pages);

/**
 * ttm_mock_device_fini() - evict and tear down. Every BO must have been put.
 * Return: 0; -EBUSY when BOs are still alive (nothing torn down).
 */
int ttm_mock_device_fini(struct ttm_mock_device *mdev);

/**
 * ttm_mock_bo_create() - create, place per @placement, and fill with the
 * pattern of @seed. Returns the BO unreserved with one reference in @out.
 * Return: 0; errors of ttm_bo_init_reserved() or of the fill (then the BO
 * is already put).
 */
int ttm_mock_bo_create(struct ttm_mock_device *mdev, uint64_t size, uint64_t seed,
		       const struct ttm_placement *placement, struct ttm_operation_ctx *ctx,
		       struct ttm_mock_bo **out);

/**
 * ttm_mock_bo_fill() - (re)write the pattern of @seed into @mbo. Reserved.
 * Return: 0 or the error of ttm_bo_access(); on error @filled is false.
 */
int ttm_mock_bo_fill(struct ttm_mock_bo *mbo, uint64_t seed, struct ttm_operation_ctx *ctx);

/**
 * ttm_mock_bo_verify() - read all of @mbo through ttm_bo_access() and
 * compare with its pattern. Reserved.
 * @bad_offset: out, the first differing byte offset (may be NULL).
 * Return: 0 when intact; -EILSEQ on a mismatch; errors of ttm_bo_access().
 */
int ttm_mock_bo_verify(struct ttm_mock_bo *mbo, struct ttm_operation_ctx *ctx,
		       uint64_t *bad_offset);

/** ttm_mock_pattern() - the pattern word @i of @seed. */
uint64_t ttm_mock_pattern(uint64_t seed, uint64_t i);

/** ttm_mock_place() - a one-entry place list helper: fills @place. */
static inline void ttm_mock_place(struct ttm_place *place, uint32_t mem_type, uint32_t flags)
{
	place->fpfn = 0;
	place->lpfn = 0;
	place->mem_type = mem_type;
	place->flags = flags;
}

#endif /* TTM_MOCK_H */
