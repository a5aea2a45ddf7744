/* SPDX-License-Identifier: MIT */
/*
 * ttm_placement: where a buffer may live. A placement is an ordered list of
 * places; validate tries them in order and the first that fits wins.
 */
#ifndef TTM_PLACEMENT_H
#define TTM_PLACEMENT_H

#include <stdint.h>

/* Memory types: index of a device's resource manager. */
#define TTM_PL_SYSTEM 0
#define TTM_PL_TT 1
#define TTM_PL_VRAM 2
#define TTM_PL_PRIV 3 /* driver-private types are TTM_PL_PRIV .. TTM_NUM_MEM_TYPES - 1 */
#define TTM_NUM_MEM_TYPES 8

/* The resource must be one physically contiguous run. */
#define TTM_PL_FLAG_CONTIGUOUS (1u << 0)
/* Allocate from the top of the range (keeps the low, CPU-visible part free). */
#define TTM_PL_FLAG_TOPDOWN (1u << 1)
/* Use this place only on the first pass (not when evicting or falling back). */
#define TTM_PL_FLAG_DESIRED (1u << 2)
/* Use this place only when evicting or when the desired places failed. */
#define TTM_PL_FLAG_FALLBACK (1u << 3)
/* Must be inside the CPU-visible window of the memory type. */
#define TTM_PL_FLAG_MAPPABLE (1u << 4)

/**
 * struct ttm_place - one acceptable location.
 * @fpfn: first page frame allowed.
 * @lpfn: one past the last page frame allowed; 0 means the end of the type.
 * @mem_type: TTM_PL_*.
 * @flags: TTM_PL_FLAG_*.
 */
struct ttm_place {
	uint32_t fpfn;
	uint32_t lpfn;
	uint32_t mem_type;
	uint32_t flags;
};

/**
 * struct ttm_placement - ordered list of places, owned by the caller.
 * @num_placement: entries in @placement.
 * @placement: the places, most preferred first.
 */
struct ttm_placement {
	unsigned num_placement;
	const struct ttm_place *placement;
};

#endif /* TTM_PLACEMENT_H */
