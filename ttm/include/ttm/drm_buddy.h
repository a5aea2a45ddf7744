/* SPDX-License-Identifier: MIT */
/*
 * drm_buddy - a binary buddy allocator for device memory (VRAM), in the
 * shape of the kernel's drm_buddy: the space [0, size) is covered by one or
 * more power-of-two root blocks; a request is served by splitting blocks
 * down to the needed orders and handed back as a list of blocks (the memory
 * need not be contiguous unless asked). Freeing a block merges it with its
 * buddy while the buddy is free, so with everything freed only the root
 * blocks remain on the free lists.
 *
 * Blocks are allocated with malloc() as the tree splits (the kernel uses a
 * slab); a split that cannot get memory fails the request with -ENOMEM.
 *
 * Locking: none; the owner serialises every call (the VRAM manager's lock).
 */
#ifndef TTM_DRM_BUDDY_H
#define TTM_DRM_BUDDY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ttm/list.h>

/* Allocate within [start, end) instead of anywhere. */
#define DRM_BUDDY_RANGE_ALLOCATION (1u << 0)
/* Prefer the highest addresses (blocks the CPU rarely maps). */
#define DRM_BUDDY_TOPDOWN_ALLOCATION (1u << 1)
/*
 * One physically contiguous run of exactly @size (possibly several blocks):
 * a block of @size rounded up to a power of two is taken and its tail freed
 * again; when no such block is free (and the request is not range
 * restricted), the run is looked for across adjacent free blocks, starting
 * on a @min_block_size boundary, as the kernel's try-harder path does.
 */
#define DRM_BUDDY_CONTIGUOUS_ALLOCATION (1u << 2)

/**
 * enum drm_buddy_state - what a block is doing.
 * @DRM_BUDDY_FREE: on its order's free list.
 * @DRM_BUDDY_ALLOCATED: owned by a caller, on the caller's list via @link.
 * @DRM_BUDDY_SPLIT: has two children; neither free-listed nor owned.
 */
enum drm_buddy_state {
	DRM_BUDDY_FREE = 0,
	DRM_BUDDY_ALLOCATED,
	DRM_BUDDY_SPLIT,
};

/**
 * struct drm_buddy_block - one power-of-two block.
 * @offset: first byte, a multiple of the block's size.
 * @order: size is chunk_size << @order.
 * @state: see enum drm_buddy_state.
 * @parent: the block this one was split from, NULL for a root.
 * @left, @right: children while split.
 * @max_free: the largest order of a free block in this block's subtree (its
 *	order when free), -1 when none: top-down and range-restricted
 *	searches skip subtrees that cannot serve.
 * @link: free-list link while free; the caller's list link while allocated
 *	(the caller may move it between its own lists but must hand it back
 *	through drm_buddy_free_list()/drm_buddy_free_block()).
 */
struct drm_buddy_block {
	uint64_t offset;
	unsigned int order;
	enum drm_buddy_state state;
	struct drm_buddy_block *parent, *left, *right;
	int max_free;
	struct list_head link;
};

/**
 * struct drm_buddy - the allocator; caller-embedded, drm_buddy_init()/_fini().
 * @free_list: per order, the free blocks of that order (max_order + 1 lists).
 * @roots: the top blocks covering [0, @size), in address order.
 * @n_roots: number of @roots.
 * @max_order: order of the largest root.
 * @chunk_size: the minimum block size (a power of two, at least 4 KiB).
 * @size: managed bytes (a multiple of @chunk_size).
 * @avail: free bytes.
 * @spare: block structs freed by merges, kept for the next split (chained
 *	through their @parent), released by drm_buddy_fini().
 */
struct drm_buddy {
	struct list_head *free_list;
	struct drm_buddy_block **roots;
	unsigned int n_roots;
	unsigned int max_order;
	uint64_t chunk_size;
	uint64_t size;
	uint64_t avail;
	struct drm_buddy_block *spare;
};

/**
 * drm_buddy_init() - manage [0, @size), rounded down to @chunk_size.
 * Return: 0; -EINVAL when @chunk_size is not a power of two of at least
 * 4096 or @size < @chunk_size; -ENOMEM.
 */
int drm_buddy_init(struct drm_buddy *mm, uint64_t size, uint64_t chunk_size);

/**
 * drm_buddy_fini() - release the allocator. Every block must be free;
 * leftovers are reported on stderr and their memory is leaked rather than
 * freed under their owner.
 */
void drm_buddy_fini(struct drm_buddy *mm);

/**
 * drm_buddy_alloc_blocks() - allocate @size bytes as blocks appended to @blocks.
 * @start, @end: with DRM_BUDDY_RANGE_ALLOCATION, every block lies in
 *	[@start, @end) (chunk-aligned); otherwise ignored.
 * @min_block_size: blocks are searched in multiples of this (power of two
 *	>= chunk_size); a @size that is no multiple of it is rounded up for the
 *	search and the last block trimmed back, as in the kernel, so exactly
 *	@size (a multiple of chunk_size) is handed out.
 * @flags: DRM_BUDDY_*_ALLOCATION.
 * Return: 0; -EINVAL for bad sizes, alignment or range; -ENOSPC when the
 * space is not there (nothing is taken); -ENOMEM.
 */
int drm_buddy_alloc_blocks(struct drm_buddy *mm, uint64_t start, uint64_t end, uint64_t size,
			   uint64_t min_block_size, struct list_head *blocks, unsigned long flags);

/** drm_buddy_free_block() - free one allocated block (merging with free buddies). */
void drm_buddy_free_block(struct drm_buddy *mm, struct drm_buddy_block *block);

/** drm_buddy_free_list() - free every block on @blocks; @blocks ends empty. */
void drm_buddy_free_list(struct drm_buddy *mm, struct list_head *blocks);

static inline uint64_t drm_buddy_block_offset(const struct drm_buddy_block *block)
{
	return block->offset;
}

static inline unsigned int drm_buddy_block_order(const struct drm_buddy_block *block)
{
	return block->order;
}

static inline uint64_t drm_buddy_block_size(const struct drm_buddy *mm,
					    const struct drm_buddy_block *block)
{
	return mm->chunk_size << block->order;
}

/** drm_buddy_avail() - free bytes. */
static inline uint64_t drm_buddy_avail(const struct drm_buddy *mm)
{
	return mm->avail;
}

/** drm_buddy_largest_free() - size of the largest free block, 0 when full. */
uint64_t drm_buddy_largest_free(const struct drm_buddy *mm);

/** drm_buddy_free_count() - number of free blocks of @order. */
unsigned long drm_buddy_free_count(const struct drm_buddy *mm, unsigned int order);

/** drm_buddy_print() - sizes, availability and per-order free counts to @f. */
void drm_buddy_print(const struct drm_buddy *mm, FILE *f);

#endif /* TTM_DRM_BUDDY_H */
