// SPDX-License-Identifier: MIT
/*
 * drm_buddy: binary buddy allocator (see drm_buddy.h for the contract).
 * Whole-space requests come off the per-order free lists; range-restricted
 * ones walk the block tree depth first, splitting only blocks that overlap
 * the range, and coalesce what they split when they fail.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include <ttm/drm_buddy.h>

static unsigned int ilog2_u64(uint64_t x)
{
	return 63u - (unsigned int)__builtin_clzll(x);
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static uint64_t block_size(const struct drm_buddy *mm, const struct drm_buddy_block *b)
{
	return mm->chunk_size << b->order;
}

static struct drm_buddy_block *block_new(struct drm_buddy_block *parent, uint64_t offset,
					 unsigned int order)
{
	struct drm_buddy_block *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->offset = offset;
	b->order = order;
	b->parent = parent;
	INIT_LIST_HEAD(&b->link);
	return b;
}

static void mark_free(struct drm_buddy *mm, struct drm_buddy_block *b)
{
	b->state = DRM_BUDDY_FREE;
	list_add(&b->link, &mm->free_list[b->order]);
}

/* Take a free block off its list for a caller. */
static void mark_allocated(struct drm_buddy_block *b)
{
	list_del_init(&b->link);
	b->state = DRM_BUDDY_ALLOCATED;
}

/* Split @b (free or just taken) into two free halves. */
static int split_block(struct drm_buddy *mm, struct drm_buddy_block *b)
{
	uint64_t half = block_size(mm, b) / 2;

	b->left = block_new(b, b->offset, b->order - 1);
	b->right = block_new(b, b->offset + half, b->order - 1);
	if (!b->left || !b->right) {
		free(b->left);
		free(b->right);
		b->left = b->right = NULL;
		return -ENOMEM;
	}
	list_del_init(&b->link);
	b->state = DRM_BUDDY_SPLIT;
	mark_free(mm, b->left);
	mark_free(mm, b->right);
	return 0;
}

int drm_buddy_init(struct drm_buddy *mm, uint64_t size, uint64_t chunk_size)
{
	uint64_t offset = 0, chunks;
	unsigned int i;

	if (chunk_size < 4096 || !is_pow2(chunk_size) || size < chunk_size)
		return -EINVAL;
	*mm = (struct drm_buddy){0};
	mm->chunk_size = chunk_size;
	mm->size = size - size % chunk_size;
	mm->avail = mm->size;
	chunks = mm->size / chunk_size;
	mm->max_order = ilog2_u64(chunks);
	mm->n_roots = (unsigned int)__builtin_popcountll(chunks);
	mm->free_list = calloc(mm->max_order + 1, sizeof(*mm->free_list));
	mm->roots = calloc(mm->n_roots, sizeof(*mm->roots));
	if (!mm->free_list || !mm->roots)
		goto err;
	for (i = 0; i <= mm->max_order; i++)
		INIT_LIST_HEAD(&mm->free_list[i]);
	/* Largest roots first, so root i covers addresses below root i + 1. */
	for (i = 0; i < mm->n_roots; i++) {
		unsigned int order = ilog2_u64(chunks);

		mm->roots[i] = block_new(NULL, offset, order);
		if (!mm->roots[i])
			goto err;
		mark_free(mm, mm->roots[i]);
		offset += chunk_size << order;
		chunks -= 1ull << order;
	}
	return 0;
err:
	if (mm->roots)
		for (i = 0; i < mm->n_roots; i++)
			free(mm->roots[i]);
	free(mm->roots);
	free(mm->free_list);
	return -ENOMEM;
}

void drm_buddy_fini(struct drm_buddy *mm)
{
	unsigned int i;

	if (mm->avail != mm->size)
		fprintf(stderr, "drm_buddy_fini: %" PRIu64 " bytes still allocated\n",
			mm->size - mm->avail);
	for (i = 0; i < mm->n_roots; i++)
		if (mm->roots[i]->state == DRM_BUDDY_FREE)
			free(mm->roots[i]);
	free(mm->roots);
	free(mm->free_list);
	*mm = (struct drm_buddy){0};
}

/* Give @b back and merge upwards while the buddy is free too. */
static void release_block(struct drm_buddy *mm, struct drm_buddy_block *b)
{
	struct drm_buddy_block *p;

	while ((p = b->parent)) {
		struct drm_buddy_block *buddy = p->left == b ? p->right : p->left;

		if (buddy->state != DRM_BUDDY_FREE)
			break;
		list_del_init(&buddy->link);
		free(buddy);
		free(b);
		p->left = p->right = NULL;
		b = p;
	}
	mark_free(mm, b);
}

void drm_buddy_free_block(struct drm_buddy *mm, struct drm_buddy_block *block)
{
	mm->avail += block_size(mm, block);
	list_del_init(&block->link);
	release_block(mm, block);
}

void drm_buddy_free_list(struct drm_buddy *mm, struct list_head *blocks)
{
	while (!list_empty(blocks))
		drm_buddy_free_block(mm, list_first_entry(blocks, struct drm_buddy_block, link));
}

/* Undo splits whose halves are both free again (after a failed range walk). */
static void coalesce(struct drm_buddy *mm, struct drm_buddy_block *b)
{
	/* A split block always has both children; the check keeps analyzers sure of it. */
	if (b->state != DRM_BUDDY_SPLIT || !b->left || !b->right)
		return;
	coalesce(mm, b->left);
	coalesce(mm, b->right);
	if (b->left->state == DRM_BUDDY_FREE && b->right->state == DRM_BUDDY_FREE) {
		list_del_init(&b->left->link);
		list_del_init(&b->right->link);
		free(b->left);
		free(b->right);
		b->left = b->right = NULL;
		mark_free(mm, b);
	}
}

/* One block of @order from the free lists; lowest list first, highest offset if @topdown. */
static int alloc_from_lists(struct drm_buddy *mm, unsigned int order, bool topdown,
			    struct drm_buddy_block **out)
{
	struct drm_buddy_block *b = NULL, *pos, *top;
	unsigned int o;
	int ret;

	for (o = order; o <= mm->max_order; o++) {
		if (list_empty(&mm->free_list[o]))
			continue;
		if (!topdown) {
			b = list_first_entry(&mm->free_list[o], struct drm_buddy_block, link);
			break;
		}
		list_for_each_entry (pos, &mm->free_list[o], struct drm_buddy_block, link)
			if (!b || pos->offset > b->offset)
				b = pos;
	}
	if (!b)
		return -ENOSPC;
	for (top = b; b->order > order;) {
		ret = split_block(mm, b);
		if (ret) {
			coalesce(mm, top);
			return ret;
		}
		b = topdown ? b->right : b->left;
	}
	mark_allocated(b);
	*out = b;
	return 0;
}

/* One block of @order inside [@start, @end), by depth-first walk from the roots. */
static int alloc_in_range(struct drm_buddy *mm, unsigned int order, uint64_t start, uint64_t end,
			  bool topdown, struct drm_buddy_block **out)
{
	/* Each level pushes at most two blocks: roots + 2 per order bounds the depth. */
	struct drm_buddy_block *stack[64 + 2 * 64 + 2];
	unsigned int sp = 0, i;
	int ret = -ENOSPC;

	for (i = 0; i < mm->n_roots; i++)
		stack[sp++] = mm->roots[topdown ? i : mm->n_roots - 1 - i];
	while (sp) {
		struct drm_buddy_block *b = stack[--sp];
		uint64_t bs = b->offset, be = bs + block_size(mm, b);

		if (be <= start || bs >= end || b->order < order || b->state == DRM_BUDDY_ALLOCATED)
			continue;
		if (b->state == DRM_BUDDY_FREE) {
			if (b->order == order) {
				if (start <= bs && be <= end) {
					mark_allocated(b);
					*out = b;
					ret = 0;
					break;
				}
				continue;
			}
			ret = split_block(mm, b);
			if (ret)
				break;
			ret = -ENOSPC;
		}
		if (topdown) {
			stack[sp++] = b->left;
			stack[sp++] = b->right;
		} else {
			stack[sp++] = b->right;
			stack[sp++] = b->left;
		}
	}
	/*
	 * Merge back what the walk split without using (also on success, so
	 * no split block is left with two free halves). Linear in the split
	 * blocks: the price of range allocations.
	 */
	for (i = 0; i < mm->n_roots; i++)
		coalesce(mm, mm->roots[i]);
	return ret;
}

static int alloc_one(struct drm_buddy *mm, unsigned int order, uint64_t start, uint64_t end,
		     bool ranged, bool topdown, struct drm_buddy_block **out)
{
	if (ranged)
		return alloc_in_range(mm, order, start, end, topdown, out);
	return alloc_from_lists(mm, order, topdown, out);
}

/* Keep the first @size bytes of allocated @b on @list, free the rest. */
static int trim_block(struct drm_buddy *mm, struct drm_buddy_block *b, uint64_t size,
		      struct list_head *list)
{
	uint64_t half;
	int ret;

	while (size < block_size(mm, b)) {
		half = block_size(mm, b) / 2;
		ret = split_block(mm, b);
		if (ret) {
			/* Keep the whole block so the caller can free it back. */
			b->state = DRM_BUDDY_ALLOCATED;
			break;
		}
		if (size > half) {
			mark_allocated(b->left);
			list_add_tail(&b->left->link, list);
			size -= half;
			b = b->right;
		} else {
			b = b->left;
		}
		mark_allocated(b);
	}
	list_add_tail(&b->link, list);
	return size < block_size(mm, b) ? -ENOMEM : 0;
}

int drm_buddy_alloc_blocks(struct drm_buddy *mm, uint64_t start, uint64_t end, uint64_t size,
			   uint64_t min_block_size, struct list_head *blocks, unsigned long flags)
{
	bool topdown = flags & DRM_BUDDY_TOPDOWN_ALLOCATION;
	bool ranged = flags & DRM_BUDDY_RANGE_ALLOCATION;
	struct list_head taken = LIST_HEAD_INIT(taken);
	struct drm_buddy_block *b, *pos;
	unsigned int order, min_order;
	uint64_t remaining;
	int ret = 0;

	if (!size || size % mm->chunk_size || min_block_size < mm->chunk_size ||
	    !is_pow2(min_block_size) || size % min_block_size)
		return -EINVAL;
	if (ranged) {
		if (start % mm->chunk_size || end % mm->chunk_size || start >= end ||
		    end > mm->size || size > end - start)
			return -EINVAL;
		ranged = start != 0 || end != mm->size;
	} else {
		start = 0;
		end = mm->size;
	}
	if (size > mm->avail)
		return -ENOSPC;

	if (flags & DRM_BUDDY_CONTIGUOUS_ALLOCATION) {
		uint64_t chunks = size / mm->chunk_size;

		order = is_pow2(chunks) ? ilog2_u64(chunks) : ilog2_u64(chunks) + 1;
		if (order > mm->max_order || min_block_size > mm->chunk_size << order)
			return -ENOSPC;
		ret = alloc_one(mm, order, start, end, ranged, topdown, &b);
		if (ret)
			return ret;
		ret = trim_block(mm, b, size, &taken);
		if (ret)
			goto err;
		goto done;
	}

	min_order = ilog2_u64(min_block_size / mm->chunk_size);
	for (remaining = size; remaining;) {
		order = ilog2_u64(remaining / mm->chunk_size);
		if (order > mm->max_order)
			order = mm->max_order;
		for (;;) {
			ret = alloc_one(mm, order, start, end, ranged, topdown, &b);
			if (ret != -ENOSPC || order == min_order)
				break;
			order--;
		}
		if (ret)
			goto err;
		list_add_tail(&b->link, &taken);
		remaining -= block_size(mm, b);
	}
done:
	list_for_each_entry (pos, &taken, struct drm_buddy_block, link)
		mm->avail -= block_size(mm, pos);
	list_splice_tail_init(&taken, blocks);
	return 0;
err:
	/* Nothing was charged to avail yet: release without crediting. */
	while (!list_empty(&taken)) {
		pos = list_first_entry(&taken, struct drm_buddy_block, link);
		list_del_init(&pos->link);
		release_block(mm, pos);
	}
	return ret;
}

uint64_t drm_buddy_largest_free(const struct drm_buddy *mm)
{
	unsigned int o = mm->max_order + 1;

	while (o--)
		if (!list_empty(&mm->free_list[o]))
			return mm->chunk_size << o;
	return 0;
}

unsigned long drm_buddy_free_count(const struct drm_buddy *mm, unsigned int order)
{
	const struct drm_buddy_block *pos;
	unsigned long n = 0;

	if (order > mm->max_order)
		return 0;
	list_for_each_entry (pos, &mm->free_list[order], struct drm_buddy_block, link)
		n++;
	return n;
}

void drm_buddy_print(const struct drm_buddy *mm, FILE *f)
{
	unsigned int o;

	fprintf(f,
		"chunk_size: %" PRIu64 " KiB, total: %" PRIu64 " MiB, free: %" PRIu64
		" MiB, largest free block: %" PRIu64 " KiB\n",
		mm->chunk_size >> 10, mm->size >> 20, mm->avail >> 20,
		drm_buddy_largest_free(mm) >> 10);
	for (o = mm->max_order + 1; o--;) {
		unsigned long n = drm_buddy_free_count(mm, o);

		if (n)
			fprintf(f, "order-%2u: %lu free block(s) of %" PRIu64 " KiB\n", o, n,
				(mm->chunk_size << o) >> 10);
	}
}
