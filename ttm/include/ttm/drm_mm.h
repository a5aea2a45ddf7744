/* SPDX-License-Identifier: MIT */
/*
 * drm_mm - an interval allocator over [start, start + size) in the shape of
 * the kernel's drm_mm: the caller embeds a struct drm_mm_node in its object
 * and asks for a placement; the allocator never allocates memory itself.
 *
 * Holes (the free space after each node) are indexed twice, each in a
 * red-black tree (ttm/rbtree.h): by size, for DRM_MM_INSERT_BEST, and by
 * address with every subtree's largest hole, for DRM_MM_INSERT_LOW/HIGH and
 * range restrictions. Insert, reserve and remove are O(log n) (plus the holes
 * skipped because alignment or the range rules them out).
 *
 * Colour is stored with each node for the caller; this version has no
 * color_adjust hook, so colours never separate neighbours.
 *
 * Locking: none; the owner serialises every call on one drm_mm (TTM's range
 * manager holds its own lock around them).
 */
#ifndef TTM_DRM_MM_H
#define TTM_DRM_MM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ttm/list.h>
#include <ttm/rbtree.h>

/**
 * enum drm_mm_insert_mode - where drm_mm_insert_node_in_range() searches.
 * @DRM_MM_INSERT_BEST: the smallest hole that fits (least fragmentation).
 * @DRM_MM_INSERT_LOW: the lowest address that fits.
 * @DRM_MM_INSERT_HIGH: the highest address that fits (top-down placement).
 */
enum drm_mm_insert_mode {
	DRM_MM_INSERT_BEST = 0,
	DRM_MM_INSERT_LOW,
	DRM_MM_INSERT_HIGH,
};

/**
 * struct drm_mm_node - one allocated interval, embedded by the caller.
 * @start: first address; valid while allocated.
 * @size: length in the allocator's unit.
 * @color: caller's tag, kept as given.
 * @allocated: true between a successful insert/reserve and drm_mm_remove_node();
 *	the caller zero-fills a node before its first use.
 * @node_list: link in the address-ordered list of nodes.
 * @hole_size: free space between this node's end and the next node (private).
 * @subtree_max_hole: largest @hole_size in this node's address-tree subtree (private).
 * @rb_size: link in the hole-by-size tree, when the node's hole heads its size
 *	class (private).
 * @hole_same: the other holes of the same size, when heading a class, or the
 *	link into the head's list otherwise (private).
 * @size_head: the hole is the tree member of its size class (private).
 * @rb_addr: link in the hole-by-address tree, when @hole_size > 0 (private).
 * @scanned: set while the node is part of an eviction scan (private).
 */
struct drm_mm_node {
	uint64_t start;
	uint64_t size;
	unsigned long color;
	bool allocated;
	/* Private to drm_mm: */
	struct list_head node_list;
	uint64_t hole_size;
	uint64_t subtree_max_hole;
	struct rb_node rb_size;
	struct rb_node rb_addr;
	struct list_head hole_same;
	bool scanned;
	bool size_head;
};

/**
 * struct drm_mm - the allocator; caller-embedded, drm_mm_init()/drm_mm_takedown().
 * @head_node: sentinel placed at the end of the managed range whose "hole"
 *	wraps around to its start, so the free space before the first node is
 *	the hole of an ordinary node (the kernel's trick).
 * @holes_size: one tree member per distinct hole size, ordered by size; the
 *	holes of equal size hang off it on a list. Allocation patterns produce
 *	many holes of the same size (sizes are page multiples), so most hole
 *	removals are a list unlink and most insertions end at an existing class,
 *	without rebalancing.
 * @holes_addr: holes ordered by address, augmented with subtree_max_hole.
 * @nodes: number of allocated nodes.
 * @scan_active: eviction scans in progress; insertion is refused meanwhile
 *	because a scan temporarily unlinks nodes from the address list.
 */
struct drm_mm {
	struct drm_mm_node head_node;
	struct rb_root holes_size;
	struct rb_root holes_addr;
	unsigned long nodes;
	unsigned int scan_active;
};

/**
 * drm_mm_init() - manage [@start, @start + @size).
 * @mm: the allocator (its memory is the caller's).
 * @start: the first offset managed.
 * @size: how many offsets.
 *
 * The allocator has no lock of its own: its owner serializes every call.
 *
 * Return: 0, or -EINVAL when @size is 0 or the range overflows 64 bits.
 */
int drm_mm_init(struct drm_mm *mm, uint64_t start, uint64_t size);

/**
 * drm_mm_takedown() - finish with @mm. Every node must have been removed;
 * leftovers are reported on stderr (the kernel WARNs) and left untouched.
 * @mm: the allocator.
 */
void drm_mm_takedown(struct drm_mm *mm);

/**
 * drm_mm_clean() - whether the allocator is empty.
 * @mm: the allocator.
 *
 * Return: true when no node is allocated.
 */
bool drm_mm_clean(const struct drm_mm *mm);

/**
 * drm_mm_insert_node_in_range() - place @node inside [@range_start, @range_end).
 * @mm: the allocator.
 * @node: an unallocated node (its memory is the caller's).
 * @size: the interval's length.
 * @alignment: 0 or 1 for none, otherwise a power of two the start is a multiple of.
 * @color: stored in @node (no colour adjustment is made).
 * @range_start: the first offset the interval may use.
 * @range_end: the offset past the last one it may use.
 * @mode: see enum drm_mm_insert_mode.
 * Return: 0 with @node filled in and allocated; -EINVAL for a zero size, a
 * non-power-of-two alignment, an inverted range or one outside the managed
 * area, an allocated @node or an unknown mode; -EBUSY while a scan is
 * active; -ENOSPC when nothing fits.
 */
int drm_mm_insert_node_in_range(struct drm_mm *mm, struct drm_mm_node *node, uint64_t size,
				uint64_t alignment, unsigned long color, uint64_t range_start,
				uint64_t range_end, enum drm_mm_insert_mode mode);

/**
 * drm_mm_insert_node() - drm_mm_insert_node_in_range() over the whole managed area.
 * @mm: the allocator.
 * @node: an unallocated node.
 * @size: the interval's length.
 * @alignment: 0 or 1 for none, otherwise a power of two.
 * @color: stored in @node.
 * @mode: see enum drm_mm_insert_mode.
 *
 * Return: as drm_mm_insert_node_in_range().
 */
int drm_mm_insert_node(struct drm_mm *mm, struct drm_mm_node *node, uint64_t size,
		       uint64_t alignment, unsigned long color, enum drm_mm_insert_mode mode);

/**
 * drm_mm_reserve_node() - place @node exactly at its preset @start/@size
 * (softpin, firmware-reserved ranges); @color is taken as preset too.
 * @mm: the allocator.
 * @node: an unallocated node with start, size and color set.
 *
 * Return: 0; -EINVAL for zero size, overflow or a range outside the managed
 * area; -ENOSPC when any part of it is occupied; -EBUSY while a scan is active.
 */
int drm_mm_reserve_node(struct drm_mm *mm, struct drm_mm_node *node);

/**
 * drm_mm_remove_node() - free a node's interval.
 * @mm: the allocator.
 * @node: an allocated node of @mm.
 */
void drm_mm_remove_node(struct drm_mm *mm, struct drm_mm_node *node);

/** drm_mm_node_allocated() - true while @node holds an interval. */
static inline bool drm_mm_node_allocated(const struct drm_mm_node *node)
{
	return node->allocated;
}

/**
 * drm_mm_first_node() - the allocated node at the lowest address.
 * @mm: the allocator.
 *
 * Return: the node; NULL when none is allocated.
 */
struct drm_mm_node *drm_mm_first_node(const struct drm_mm *mm);

/**
 * drm_mm_next_node() - the next allocated node in address order.
 * @mm: the allocator.
 * @node: an allocated node of @mm.
 *
 * Return: the node; NULL after the last.
 */
struct drm_mm_node *drm_mm_next_node(const struct drm_mm *mm, const struct drm_mm_node *node);

/**
 * drm_mm_for_each_node() - visit every allocated node in address order.
 * The body must not remove @pos; use drm_mm_for_each_node_safe() for that.
 */
#define drm_mm_for_each_node(pos, mm)                                                              \
	for ((pos) = drm_mm_first_node(mm); (pos); (pos) = drm_mm_next_node((mm), (pos)))
#define drm_mm_for_each_node_safe(pos, next, mm)                                                   \
	for ((pos) = drm_mm_first_node(mm), (next) = (pos) ? drm_mm_next_node((mm), (pos)) : NULL; \
	     (pos); (pos) = (next), (next) = (pos) ? drm_mm_next_node((mm), (pos)) : NULL)

/**
 * drm_mm_check() - verify every invariant: nodes ordered and disjoint inside
 * the range, every hole recorded with its true size in both trees and nothing
 * else there, tree orderings, red-black shape and subtree maxima.
 * @mm: the allocator.
 *
 * Return: 0, or -EINVAL after printing the first inconsistency to stderr.
 */
int drm_mm_check(const struct drm_mm *mm);

/**
 * drm_mm_print() - one line per node and hole.
 * @mm: the allocator.
 * @f: the stream written to.
 */
void drm_mm_print(const struct drm_mm *mm, FILE *f);

/**
 * struct drm_mm_scan - an eviction roster (kernel semantics).
 *
 * Usage: drm_mm_scan_init_with_range(); then drm_mm_scan_add_block() for
 * candidate nodes in eviction-preference (LRU) order until it returns true
 * (a suitable hole would form if every added block went away) or candidates
 * run out; then drm_mm_scan_remove_block() for EVERY added block in the
 * REVERSE order of adding, and evict exactly the ones for which it returned
 * true. While a scan is active, @mm must not be modified (inserts return
 * -EBUSY); the nodes' removal happens after the scan is finished.
 *
 * @mm: the allocator scanned.
 * @size, @alignment, @color, @mode: the request to make room for.
 * @range_start, @range_end: where the new node must lie.
 * @hit_start, @hit_end: the interval chosen when add_block returned true.
 * @found: add_block has returned true.
 * @count: blocks added and not yet removed.
 */
struct drm_mm_scan {
	struct drm_mm *mm;
	uint64_t size;
	uint64_t alignment;
	unsigned long color;
	enum drm_mm_insert_mode mode;
	uint64_t range_start, range_end;
	uint64_t hit_start, hit_end;
	bool found;
	unsigned long count;
};

/**
 * drm_mm_scan_init_with_range() - start a scan for a (@size, @alignment)
 * placement within [@start, @end). Arguments are validated as by
 * drm_mm_insert_node_in_range().
 * @scan: the roster (its memory is the caller's).
 * @mm: the allocator scanned.
 * @size: the length of the interval to make room for.
 * @alignment: 0 or 1 for none, otherwise a power of two.
 * @color: the colour of the node to be placed.
 * @start: the first offset the interval may use.
 * @end: the offset past the last one it may use.
 * @mode: see enum drm_mm_insert_mode.
 *
 * Return: 0 or -EINVAL.
 */
int drm_mm_scan_init_with_range(struct drm_mm_scan *scan, struct drm_mm *mm, uint64_t size,
				uint64_t alignment, unsigned long color, uint64_t start,
				uint64_t end, enum drm_mm_insert_mode mode);

/**
 * drm_mm_scan_add_block() - pretend @node is gone.
 * @scan: the roster.
 * @node: an allocated node of the scanned allocator, not added yet.
 *
 * Return: true once the space freed by the added blocks, merged with the
 * holes around them, fits the request (further adds keep returning true).
 */
bool drm_mm_scan_add_block(struct drm_mm_scan *scan, struct drm_mm_node *node);

/**
 * drm_mm_scan_remove_block() - take @node (the last one added) back.
 * @scan: the roster.
 * @node: the block added last and not yet removed.
 *
 * Return: true when @node overlaps the chosen interval and must be evicted.
 */
bool drm_mm_scan_remove_block(struct drm_mm_scan *scan, struct drm_mm_node *node);

#endif /* TTM_DRM_MM_H */
