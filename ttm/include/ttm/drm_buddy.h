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

/*
 * Largest block order with 4 KiB chunks: a block of 2^63 bytes, the largest
 * power of two a 64-bit size holds (the kernel's DRM_BUDDY_MAX_ORDER).
 */
#define DRM_BUDDY_MAX_ORDER (63 - 12)

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
/* Prefer blocks freed as cleared (DRM_BUDDY_CLEARED); dirty ones when none fit. */
#define DRM_BUDDY_CLEAR_ALLOCATION (1u << 3)
/* drm_buddy_free_list(): the blocks were zeroed by their owner. */
#define DRM_BUDDY_CLEARED (1u << 4)

/*
 * Free blocks are kept apart by clear state, as the kernel's two free trees:
 * a cleared block is neither merged with a dirty buddy (unless an
 * allocation needs the larger block) nor handed out for a dirty request
 * while a dirty one fits.
 */
enum drm_buddy_free_tree {
	DRM_BUDDY_CLEAR_TREE = 0,
	DRM_BUDDY_DIRTY_TREE = 1,
};

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
 * @max_free: per free tree (enum drm_buddy_free_tree), the largest order
 *	of a free block of that clear state in this block's subtree (its order
 *	when free), -1 when none: top-down and range-restricted searches skip
 *	subtrees that cannot serve.
 * @clear: the block's memory is known to be zero (freed with
 *	DRM_BUDDY_CLEARED, or split from such a block); allocated blocks keep
 *	it so their owner can skip clearing them (drm_buddy_block_is_clear()).
 * @link: free-list link while free; the caller's list link while allocated
 *	(the caller may move it between its own lists but must hand it back
 *	through drm_buddy_free_list()/drm_buddy_free_block()).
 */
struct drm_buddy_block {
	uint64_t offset;
	unsigned int order;
	enum drm_buddy_state state;
	struct drm_buddy_block *parent, *left, *right;
	int max_free[2];
	bool clear;
	struct list_head link;
};

/**
 * struct drm_buddy - the allocator; caller-embedded, drm_buddy_init()/_fini().
 * @free_trees: per clear state (enum drm_buddy_free_tree) and order, the
 *	free blocks (lists; both arrays of max_order + 1 in one allocation).
 * @roots: the top blocks covering [0, @size), in address order.
 * @n_roots: number of @roots.
 * @max_order: order of the largest root.
 * @chunk_size: the minimum block size (a power of two, at least 4 KiB).
 * @size: managed bytes (a multiple of @chunk_size).
 * @avail: free bytes.
 * @clear_avail: free bytes known to be zero.
 * @spare: block structs freed by merges, kept for the next split (chained
 *	through their @parent), released by drm_buddy_fini().
 */
struct drm_buddy {
	struct list_head *free_trees[2];
	struct drm_buddy_block **roots;
	unsigned int n_roots;
	unsigned int max_order;
	uint64_t chunk_size;
	uint64_t size;
	uint64_t avail;
	uint64_t clear_avail;
	struct drm_buddy_block *spare;
};

/**
 * drm_buddy_init() - manage [0, @size), rounded down to @chunk_size.
 * @mm: the allocator to set up (its memory is the caller's).
 * @size: bytes managed.
 * @chunk_size: the smallest block in bytes.
 *
 * The allocator has no lock of its own: its owner serializes every call
 * on one @mm, as the kernel's drm_buddy users do.
 *
 * Return: 0; -EINVAL when @chunk_size is not a power of two of at least
 * 4096 or @size < @chunk_size; -ENOMEM.
 */
int drm_buddy_init(struct drm_buddy *mm, uint64_t size, uint64_t chunk_size);

/**
 * drm_buddy_fini() - release the allocator. Every block must be free;
 * leftovers are reported on stderr and their memory is leaked rather than
 * freed under their owner.
 * @mm: the allocator.
 */
void drm_buddy_fini(struct drm_buddy *mm);

/**
 * drm_buddy_alloc_blocks() - allocate @size bytes as blocks appended to @blocks.
 * @mm: the allocator.
 * @start: with DRM_BUDDY_RANGE_ALLOCATION, the first byte a block may use.
 * @end: with DRM_BUDDY_RANGE_ALLOCATION, the byte past the last one.
 * @size: bytes to hand out, a multiple of the chunk size.
 * With DRM_BUDDY_RANGE_ALLOCATION every block lies in [@start, @end)
 * (chunk-aligned); otherwise both are ignored.
 * @min_block_size: blocks are searched in multiples of this (power of two
 *	>= chunk_size); a @size that is no multiple of it is rounded up for the
 *	search and the last block trimmed back, as in the kernel, so exactly
 *	@size (a multiple of chunk_size) is handed out.
 * @blocks: the list the blocks are appended to (left as it was on failure).
 * @flags: DRM_BUDDY_*_ALLOCATION.
 * Return: 0; -EINVAL for bad sizes, alignment or range; -ENOSPC when the
 * space is not there (nothing is taken); -ENOMEM.
 */
int drm_buddy_alloc_blocks(struct drm_buddy *mm, uint64_t start, uint64_t end, uint64_t size,
			   uint64_t min_block_size, struct list_head *blocks, unsigned long flags);

/**
 * drm_buddy_free_block() - free one allocated block (merging with free
 * buddies of the same clear state); it stays cleared if it was.
 * @mm: the allocator.
 * @block: an allocated block, off any caller list it was on.
 */
void drm_buddy_free_block(struct drm_buddy *mm, struct drm_buddy_block *block);

/**
 * drm_buddy_free_list() - free every block on @blocks; @blocks ends empty.
 * @mm: the allocator.
 * @blocks: the blocks.
 * @flags: DRM_BUDDY_CLEARED when the owner zeroed them (they count in
 *	@mm->clear_avail and serve DRM_BUDDY_CLEAR_ALLOCATION first), else 0:
 *	dirty, whatever they were when allocated.
 */
void drm_buddy_free_list(struct drm_buddy *mm, struct list_head *blocks, unsigned long flags);

/**
 * drm_buddy_reset_clear() - mark every free block cleared (@is_clear) or
 * dirty, and merge the buddies that were kept apart by their states (the
 * kernel's drm_buddy_reset_clear(), e.g. after the device's memory was
 * lost or wiped).
 * @mm: the allocator.
 * @is_clear: the new state.
 */
void drm_buddy_reset_clear(struct drm_buddy *mm, bool is_clear);

/** drm_buddy_block_is_clear() - is @block's memory known to be zero? */
static inline bool drm_buddy_block_is_clear(const struct drm_buddy_block *block)
{
	return block->clear;
}

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

/**
 * drm_buddy_largest_free() - the size of the largest free block.
 * @mm: the allocator.
 *
 * Return: bytes; 0 when nothing is free.
 */
uint64_t drm_buddy_largest_free(const struct drm_buddy *mm);

/**
 * drm_buddy_free_count() - count the free blocks of one order.
 * @mm: the allocator.
 * @order: the order (block size chunk_size << @order).
 *
 * Return: the number of free blocks of @order; 0 above the largest order.
 */
unsigned long drm_buddy_free_count(const struct drm_buddy *mm, unsigned int order);

/**
 * drm_buddy_print() - write sizes, availability and per-order free counts.
 * @mm: the allocator.
 * @f: the stream written to.
 */
void drm_buddy_print(const struct drm_buddy *mm, FILE *f);

#endif /* TTM_DRM_BUDDY_H */
