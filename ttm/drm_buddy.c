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
#include <ttm/ttm_faults.h>

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

/*
 * A block struct: a spare one when there is (freed blocks are kept for
 * reuse, as the kernel's slab keeps them, so a split or merge costs no trip
 * to malloc), else a new one.
 */
static struct drm_buddy_block *block_new(struct drm_buddy *mm, struct drm_buddy_block *parent,
					 uint64_t offset, unsigned int order)
{
	struct drm_buddy_block *b = mm->spare;

	/* The kernel's slab allocation can fail whether or not it had a free object. */
	if (fault_should_fail(&ttm_fault_resource_alloc, sizeof(*b)))
		return NULL;
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (!b)
			return NULL;
	} else {
		mm->spare = b->parent;
		b->left = b->right = NULL;
		b->state = DRM_BUDDY_FREE;
	}
	b->offset = offset;
	b->order = order;
	b->parent = parent;
	b->max_free[DRM_BUDDY_CLEAR_TREE] = b->max_free[DRM_BUDDY_DIRTY_TREE] = -1;
	b->clear = false;
	INIT_LIST_HEAD(&b->link);
	return b;
}

/* Keep @b for reuse; NULL (a split's missing half) is a no-op. */
static void block_put(struct drm_buddy *mm, struct drm_buddy_block *b)
{
	if (!b)
		return;
	b->parent = mm->spare;
	mm->spare = b;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static unsigned int tree_of(const struct drm_buddy_block *b)
{
	return b->clear ? DRM_BUDDY_CLEAR_TREE : DRM_BUDDY_DIRTY_TREE;
}

/* Largest free order below @b in either tree. */
static int max_free_any(const struct drm_buddy_block *b)
{
	return max_int(b->max_free[DRM_BUDDY_CLEAR_TREE], b->max_free[DRM_BUDDY_DIRTY_TREE]);
}

/*
 * @b's max_free changed: bring its ancestors' summaries up to date, stopping
 * at the first that does not change (its own ancestors are then right too).
 */
static void propagate_max_free(struct drm_buddy_block *b)
{
	struct drm_buddy_block *p;

	for (p = b->parent; p && p->state == DRM_BUDDY_SPLIT; p = p->parent) {
		int c = max_int(p->left->max_free[0], p->right->max_free[0]);
		int d = max_int(p->left->max_free[1], p->right->max_free[1]);

		if (c == p->max_free[0] && d == p->max_free[1])
			break;
		p->max_free[0] = c;
		p->max_free[1] = d;
	}
}

/* Put @b on the free list of its clear state and order; summaries above it are the caller's. */
static void link_free(struct drm_buddy *mm, struct drm_buddy_block *b)
{
	unsigned int t = tree_of(b);

	b->state = DRM_BUDDY_FREE;
	b->max_free[t] = (int)b->order;
	b->max_free[!t] = -1;
	list_add(&b->link, &mm->free_trees[t][b->order]);
}

/* Put @b on the free list of its clear state and order. */
static void mark_free(struct drm_buddy *mm, struct drm_buddy_block *b)
{
	link_free(mm, b);
	propagate_max_free(b);
}

/* Take a free block off its list for a caller. */
static void mark_allocated(struct drm_buddy_block *b)
{
	list_del_init(&b->link);
	b->state = DRM_BUDDY_ALLOCATED;
	b->max_free[0] = b->max_free[1] = -1;
	propagate_max_free(b);
}

/* Split @b (free or just taken) into two free halves. */
static int split_block(struct drm_buddy *mm, struct drm_buddy_block *b)
{
	uint64_t half = block_size(mm, b) / 2;

	b->left = block_new(mm, b, b->offset, b->order - 1);
	b->right = block_new(mm, b, b->offset + half, b->order - 1);
	if (!b->left || !b->right) {
		block_put(mm, b->left);
		block_put(mm, b->right);
		b->left = b->right = NULL;
		return -ENOMEM;
	}
	list_del_init(&b->link);
	b->state = DRM_BUDDY_SPLIT;
	/* The halves of a cleared block are cleared; a split block is neither. */
	b->left->clear = b->right->clear = b->clear;
	b->clear = false;
	/* Both halves first, then one walk up: @b's summary is its halves' order. */
	link_free(mm, b->left);
	link_free(mm, b->right);
	b->max_free[0] = b->left->max_free[0];
	b->max_free[1] = b->left->max_free[1];
	propagate_max_free(b);
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
	if (fault_should_fail(&ttm_fault_resource_alloc, sizeof(*mm->roots) * mm->n_roots))
		goto err;
	mm->free_trees[0] = calloc(2 * (size_t)(mm->max_order + 1), sizeof(*mm->free_trees[0]));
	mm->roots = calloc(mm->n_roots, sizeof(*mm->roots));
	if (!mm->free_trees[0] || !mm->roots)
		goto err;
	mm->free_trees[1] = mm->free_trees[0] + mm->max_order + 1;
	for (i = 0; i < 2 * (mm->max_order + 1); i++)
		INIT_LIST_HEAD(&mm->free_trees[0][i]);
	/* Largest roots first, so root i covers addresses below root i + 1. */
	for (i = 0; i < mm->n_roots; i++) {
		unsigned int order = ilog2_u64(chunks);

		mm->roots[i] = block_new(mm, NULL, offset, order);
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
	free(mm->free_trees[0]);
	return -ENOMEM;
}

static void coalesce(struct drm_buddy *mm, struct drm_buddy_block *b, bool force);

void drm_buddy_fini(struct drm_buddy *mm)
{
	unsigned int i;

	/* Free buddies of different clear states stay split: merge them now. */
	for (i = 0; i < mm->n_roots; i++)
		coalesce(mm, mm->roots[i], true);
	if (mm->avail != mm->size)
		fprintf(stderr, "drm_buddy_fini: %" PRIu64 " bytes still allocated\n",
			mm->size - mm->avail);
	for (i = 0; i < mm->n_roots; i++)
		if (mm->roots[i]->state == DRM_BUDDY_FREE)
			free(mm->roots[i]);
	while (mm->spare) {
		struct drm_buddy_block *b = mm->spare;

		mm->spare = b->parent;
		free(b);
	}
	free(mm->roots);
	free(mm->free_trees[0]);
	*mm = (struct drm_buddy){0};
}

/*
 * Merge free @l and @r, the halves of @p, into free @p: cleared when both
 * were (a forced merge of a cleared and a dirty half gives a dirty block,
 * and the cleared half's bytes leave @mm->clear_avail). Neither is on a
 * list any more.
 */
static void merge_accounting(struct drm_buddy *mm, const struct drm_buddy_block *a,
			     const struct drm_buddy_block *b)
{
	if (a->clear != b->clear)
		mm->clear_avail -= block_size(mm, a->clear ? a : b);
}

static void merge_halves(struct drm_buddy *mm, struct drm_buddy_block *p)
{
	struct drm_buddy_block *l = p->left, *r = p->right;

	merge_accounting(mm, l, r);
	p->clear = l->clear && r->clear;
	block_put(mm, l);
	block_put(mm, r);
	p->left = p->right = NULL;
	mark_free(mm, p);
}

/*
 * Give @b back and merge upwards while the buddy is free too and, unless
 * @force, in the same clear state (as the kernel, a cleared block is not
 * merged into a dirty one: its clearing would be lost). Return the order
 * of the free block @b ended in.
 */
static unsigned int release_block(struct drm_buddy *mm, struct drm_buddy_block *b, bool force)
{
	struct drm_buddy_block *p;

	while ((p = b->parent)) {
		struct drm_buddy_block *buddy = p->left == b ? p->right : p->left;

		if (buddy->state != DRM_BUDDY_FREE || (!force && buddy->clear != b->clear))
			break;
		list_del_init(&buddy->link);
		merge_accounting(mm, b, buddy);
		p->clear = b->clear && buddy->clear;
		block_put(mm, buddy);
		block_put(mm, b);
		p->left = p->right = NULL;
		b = p;
	}
	mark_free(mm, b);
	return b->order;
}

void drm_buddy_free_block(struct drm_buddy *mm, struct drm_buddy_block *block)
{
	mm->avail += block_size(mm, block);
	if (block->clear)
		mm->clear_avail += block_size(mm, block);
	list_del_init(&block->link);
	release_block(mm, block, false);
}

void drm_buddy_free_list(struct drm_buddy *mm, struct list_head *blocks, unsigned long flags)
{
	while (!list_empty(blocks)) {
		struct drm_buddy_block *b = list_first_entry(blocks, struct drm_buddy_block, link);

		b->clear = flags & DRM_BUDDY_CLEARED;
		drm_buddy_free_block(mm, b);
	}
}

/*
 * Undo splits whose halves are both free again (after a failed range walk):
 * halves in the same clear state, or any with @force.
 */
static void coalesce(struct drm_buddy *mm, struct drm_buddy_block *b, bool force)
{
	/* A split block always has both children; the check keeps analyzers sure of it. */
	if (b->state != DRM_BUDDY_SPLIT || !b->left || !b->right)
		return;
	coalesce(mm, b->left, force);
	coalesce(mm, b->right, force);
	if (b->left->state == DRM_BUDDY_FREE && b->right->state == DRM_BUDDY_FREE &&
	    (force || b->left->clear == b->right->clear)) {
		list_del_init(&b->left->link);
		list_del_init(&b->right->link);
		merge_halves(mm, b);
	}
}

/*
 * The free block of order >= @order with the highest offset in free tree
 * @t (the kernel's get_maxblock()): from the highest root down, into the
 * right half whenever it holds such a block. One step per level, whatever
 * the number of free blocks.
 */
static struct drm_buddy_block *highest_free(struct drm_buddy *mm, unsigned int order,
					    unsigned int t)
{
	struct drm_buddy_block *b = NULL;
	unsigned int i;

	for (i = mm->n_roots; i--;) {
		if (mm->roots[i]->max_free[t] >= (int)order) {
			b = mm->roots[i];
			break;
		}
	}
	while (b && b->state == DRM_BUDDY_SPLIT)
		b = b->right->max_free[t] >= (int)order ? b->right : b->left;
	return b;
}

/* The first free block of the lowest order >= @order in free tree @t. */
static struct drm_buddy_block *lowest_order_free(struct drm_buddy *mm, unsigned int order,
						 unsigned int t)
{
	for (unsigned int o = order; o <= mm->max_order; o++)
		if (!list_empty(&mm->free_trees[t][o]))
			return list_first_entry(&mm->free_trees[t][o], struct drm_buddy_block,
						link);
	return NULL;
}

/*
 * One block of @order from the free lists of the clear state @flags asks
 * for (DRM_BUDDY_CLEAR_ALLOCATION: cleared, else dirty), else from the other
 * state's, as the kernel's alloc_from_freetree(): the lowest list first, the
 * highest offset if top-down.
 */
static int alloc_from_lists(struct drm_buddy *mm, unsigned int order, unsigned long flags,
			    struct drm_buddy_block **out)
{
	bool topdown = flags & DRM_BUDDY_TOPDOWN_ALLOCATION;
	unsigned int t =
	    flags & DRM_BUDDY_CLEAR_ALLOCATION ? DRM_BUDDY_CLEAR_TREE : DRM_BUDDY_DIRTY_TREE;
	struct drm_buddy_block *b, *top;
	int ret;

	b = topdown ? highest_free(mm, order, t) : lowest_order_free(mm, order, t);
	if (!b)
		b = topdown ? highest_free(mm, order, !t) : lowest_order_free(mm, order, !t);
	if (!b)
		return -ENOSPC;
	for (top = b; b->order > order;) {
		ret = split_block(mm, b);
		if (ret) {
			coalesce(mm, top, false);
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
			  bool topdown, int tree, struct drm_buddy_block **out)
{
	/* Each level pushes at most two blocks: roots + 2 per order bounds the depth. */
	struct drm_buddy_block *stack[64 + 2 * 64 + 2];
	struct list_head splits = LIST_HEAD_INIT(splits);
	unsigned int sp = 0, i;
	int ret = -ENOSPC;

	for (i = 0; i < mm->n_roots; i++)
		stack[sp++] = mm->roots[topdown ? i : mm->n_roots - 1 - i];
	while (sp) {
		struct drm_buddy_block *b = stack[--sp];
		uint64_t bs = b->offset, be = bs + block_size(mm, b);

		/* Nothing free of @order below @b (allocated blocks included). */
		if (be <= start || bs >= end ||
		    (tree < 0 ? max_free_any(b) : b->max_free[tree]) < (int)order)
			continue;
		/*
		 * Across an end of the range: only an aligned @order block inside
		 * the overlap can serve, as the kernel's __alloc_range_bias().
		 */
		if (bs < start || be > end) {
			uint64_t req = mm->chunk_size << order;
			uint64_t lo = bs > start ? bs : start, hi = be < end ? be : end;

			if ((hi & ~(req - 1)) <= ((lo + req - 1) & ~(req - 1)))
				continue;
		}
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
			/* A split block is on no list: its link chains this walk's splits. */
			list_add(&b->link, &splits);
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
	 * no split block is left with two free halves). Only this walk's
	 * splits can have two free halves; a block was split before its
	 * children, so they come first on @splits and merges cascade upwards.
	 * Linear in this walk's splits, not in the tree.
	 */
	while (!list_empty(&splits)) {
		struct drm_buddy_block *b = list_first_entry(&splits, struct drm_buddy_block, link);

		list_del_init(&b->link);
		if (b->left->state == DRM_BUDDY_FREE && b->right->state == DRM_BUDDY_FREE &&
		    b->left->clear == b->right->clear) {
			list_del_init(&b->left->link);
			list_del_init(&b->right->link);
			merge_halves(mm, b);
		}
	}
	return ret;
}

/*
 * One block of @order: from the free lists, or inside [@start, @end) when
 * @ranged, first among blocks in the clear state asked for, then any (the
 * kernel's two passes of __alloc_range_bias(); one when every free block is
 * dirty).
 */
static int alloc_one(struct drm_buddy *mm, unsigned int order, uint64_t start, uint64_t end,
		     bool ranged, unsigned long flags, struct drm_buddy_block **out)
{
	bool topdown = flags & DRM_BUDDY_TOPDOWN_ALLOCATION;
	int t = flags & DRM_BUDDY_CLEAR_ALLOCATION ? DRM_BUDDY_CLEAR_TREE : DRM_BUDDY_DIRTY_TREE;
	int ret;

	if (!ranged)
		return alloc_from_lists(mm, order, flags, out);
	if (!mm->clear_avail)
		return alloc_in_range(mm, order, start, end, topdown, -1, out);
	ret = alloc_in_range(mm, order, start, end, topdown, t, out);
	if (ret == -ENOSPC)
		ret = alloc_in_range(mm, order, start, end, topdown, -1, out);
	return ret;
}

/*
 * Merge free buddies of different clear states inside [@start, @end) until
 * a free block of @min_order exists (the kernel's __force_merge(), tried
 * when an allocation finds only smaller blocks but some are cleared).
 * Return 0 when one was made, else -ENOSPC.
 */
static int force_merge(struct drm_buddy *mm, uint64_t start, uint64_t end, unsigned int min_order)
{
	if (!min_order || min_order > mm->max_order)
		return -ENOSPC;
	for (unsigned int t = 0; t < 2; t++) {
		for (unsigned int o = min_order; o--;) {
			struct drm_buddy_block *b, *n;

		again:
			list_for_each_entry_safe (b, n, &mm->free_trees[t][o],
						  struct drm_buddy_block, link) {
				struct drm_buddy_block *buddy;

				if (!b->parent || b->offset < start ||
				    b->offset + block_size(mm, b) > end)
					continue;
				buddy = b->parent->left == b ? b->parent->right : b->parent->left;
				if (buddy->state != DRM_BUDDY_FREE)
					continue;
				list_del_init(&b->link);
				if (release_block(mm, b, true) >= min_order)
					return 0;
				/* The merge took blocks off this list, @n among them maybe. */
				goto again;
			}
		}
	}
	return -ENOSPC;
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

/* Give back blocks taken but not yet charged to avail. */
static void release_uncharged(struct drm_buddy *mm, struct list_head *list)
{
	while (!list_empty(list)) {
		struct drm_buddy_block *pos = list_first_entry(list, struct drm_buddy_block, link);

		list_del_init(&pos->link);
		release_block(mm, pos, false);
	}
}

/*
 * Take every chunk of [@start, @start + @size) or nothing (the kernel's
 * __alloc_range()): a depth-first walk from the lowest address that takes
 * the free blocks inside the range, splits the free ones across its ends and
 * stops at the first allocated one. The blocks go to @list; on -ENOSPC
 * *@filled (if not NULL) says how many bytes from @start were free, and
 * nothing is kept. Not charged to @mm->avail.
 */
static int alloc_exact_range(struct drm_buddy *mm, uint64_t start, uint64_t size, uint64_t *filled,
			     struct list_head *list)
{
	struct drm_buddy_block *stack[64 + 2 * 64 + 2], *split[2 * 64 + 2];
	struct list_head taken = LIST_HEAD_INIT(taken);
	uint64_t end = start + size, total = 0;
	unsigned int sp = 0, nsplit = 0, i;
	int ret = 0;

	for (i = mm->n_roots; i--;)
		stack[sp++] = mm->roots[i];
	while (sp) {
		struct drm_buddy_block *b = stack[--sp];
		uint64_t bs = b->offset, be = bs + block_size(mm, b);

		if (be <= start || bs >= end)
			continue;
		if (b->state == DRM_BUDDY_ALLOCATED) {
			ret = -ENOSPC;
			break;
		}
		if (start <= bs && be <= end && b->state == DRM_BUDDY_FREE) {
			mark_allocated(b);
			list_add_tail(&b->link, &taken);
			total += be - bs;
			continue;
		}
		if (b->state == DRM_BUDDY_FREE) {
			/* Only blocks across an end of the range: two per order at most. */
			ret = split_block(mm, b);
			if (ret)
				break;
			split[nsplit++] = b;
		}
		stack[sp++] = b->right;
		stack[sp++] = b->left;
	}
	if (!ret && total < size)
		ret = -ENOSPC;
	if (ret) {
		if (filled)
			*filled = total;
		/*
		 * Merge back what this walk split, deepest first (before the
		 * releases below, which may free split blocks by merging them):
		 * no split is left with two free halves.
		 */
		while (nsplit)
			coalesce(mm, split[--nsplit], false);
		release_uncharged(mm, &taken);
		return ret;
	}
	list_splice_tail_init(&taken, list);
	return 0;
}

static int cmp_offset_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * A contiguous run of @size that no single power-of-two block holds: as the
 * kernel's __alloc_contig_try_harder(), every free block of the largest
 * order not above @size, highest address first, is tried as the start of
 * the run (rounded down to @min_block_size) and, when the space after it is
 * taken, as its end, the run reaching to the left over what was free.
 */
static int alloc_contig_try_harder(struct drm_buddy *mm, uint64_t size, uint64_t min_block_size,
				   struct list_head *list)
{
	unsigned int order = ilog2_u64(size / mm->chunk_size);
	struct list_head got = LIST_HEAD_INIT(got);
	struct drm_buddy_block *pos;
	uint64_t *offs;
	size_t n = 0, k;
	int ret = -ENOSPC;

	if (order == 0 || order > mm->max_order)
		return -ENOSPC;
	for (unsigned int t = 0; t < 2; t++)
		list_for_each_entry (pos, &mm->free_trees[t][order], struct drm_buddy_block, link)
			n++;
	if (!n)
		return -ENOSPC;
	/* Offsets, not blocks: a failed try may merge the blocks it released. */
	if (fault_should_fail(&ttm_fault_resource_alloc, n * sizeof(*offs)))
		return -ENOMEM;
	offs = malloc(n * sizeof(*offs));
	if (!offs)
		return -ENOMEM;
	k = 0;
	for (unsigned int t = 0; t < 2; t++)
		list_for_each_entry (pos, &mm->free_trees[t][order], struct drm_buddy_block, link)
			offs[k++] = pos->offset;
	qsort(offs, n, sizeof(*offs), cmp_offset_desc);
	for (k = 0; k < n; k++) {
		uint64_t rhs = offs[k], filled = 0, at;

		ret = alloc_exact_range(mm, rhs, size, &filled, &got);
		if (!ret && !(rhs % min_block_size))
			break;
		if (ret && ret != -ENOSPC)
			break;
		if (!ret) {
			/* Found, but misaligned: the same run from the aligned address below. */
			release_uncharged(mm, &got);
			at = rhs - rhs % min_block_size;
		} else {
			if (size - filled > rhs)
				continue;
			at = rhs - (size - filled);
			at -= at % min_block_size;
		}
		ret = alloc_exact_range(mm, at, size, NULL, &got);
		if (ret != -ENOSPC)
			break;
	}
	free(offs);
	list_splice_tail_init(&got, list);
	return ret;
}

int drm_buddy_alloc_blocks(struct drm_buddy *mm, uint64_t start, uint64_t end, uint64_t size,
			   uint64_t min_block_size, struct list_head *blocks, unsigned long flags)
{
	bool ranged = flags & DRM_BUDDY_RANGE_ALLOCATION;
	struct list_head taken = LIST_HEAD_INIT(taken);
	struct drm_buddy_block *b, *pos;
	unsigned int order, min_order;
	uint64_t remaining, original = size;
	int ret = 0;

	if (!size || size % mm->chunk_size || min_block_size < mm->chunk_size ||
	    !is_pow2(min_block_size))
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
		if (min_block_size > mm->chunk_size << order)
			return -ENOSPC;
		ret = order > mm->max_order ? -ENOSPC
					    : alloc_one(mm, order, start, end, ranged, flags, &b);
		/* No power-of-two block: adjacent free blocks may still hold the run. */
		if (ret == -ENOSPC && !(flags & DRM_BUDDY_RANGE_ALLOCATION)) {
			ret = alloc_contig_try_harder(mm, size, min_block_size, &taken);
			if (ret)
				return ret;
			goto done;
		}
		if (ret)
			return ret;
		ret = trim_block(mm, b, size, &taken);
		if (ret)
			goto err;
		goto done;
	}

	/* As the kernel: searched in whole min blocks, the last one trimmed back after. */
	if (size % min_block_size)
		size += min_block_size - size % min_block_size;
	min_order = ilog2_u64(min_block_size / mm->chunk_size);
	/* Rounded up, it may no longer fit; nor may a min block larger than every root. */
	if (size > mm->avail || min_order > mm->max_order)
		return -ENOSPC;
	for (remaining = size; remaining;) {
		order = ilog2_u64(remaining / mm->chunk_size);
		if (order > mm->max_order)
			order = mm->max_order;
		if (order < min_order) {
			ret = -ENOSPC;
			goto err;
		}
		for (;;) {
			ret = alloc_one(mm, order, start, end, ranged, flags, &b);
			if (ret != -ENOSPC || order == min_order)
				break;
			order--;
		}
		/* Only smaller blocks, some cleared: merge across clear states and retry. */
		if (ret == -ENOSPC && mm->clear_avail && !force_merge(mm, start, end, min_order))
			ret = alloc_one(mm, order, start, end, ranged, flags, &b);
		if (ret)
			goto err;
		list_add_tail(&b->link, &taken);
		remaining -= block_size(mm, b);
	}
	if (size != original) {
		b = list_entry(taken.prev, struct drm_buddy_block, link);
		list_del_init(&b->link);
		ret = trim_block(mm, b, block_size(mm, b) - (size - original), &taken);
		if (ret)
			goto err;
	}
done:
	list_for_each_entry (pos, &taken, struct drm_buddy_block, link) {
		mm->avail -= block_size(mm, pos);
		if (pos->clear)
			mm->clear_avail -= block_size(mm, pos);
	}
	list_splice_tail_init(&taken, blocks);
	return 0;
err:
	/* Nothing was charged to avail yet: release without crediting. */
	release_uncharged(mm, &taken);
	return ret;
}

void drm_buddy_reset_clear(struct drm_buddy *mm, bool is_clear)
{
	for (unsigned int t = 0; t < 2; t++) {
		for (unsigned int o = 0; o <= mm->max_order; o++) {
			while (!list_empty(&mm->free_trees[t][o])) {
				struct drm_buddy_block *b = list_first_entry(
				    &mm->free_trees[t][o], struct drm_buddy_block, link);

				if (b->clear == is_clear)
					break;
				/* To the other state's list: every block of this one goes. */
				list_del_init(&b->link);
				b->clear = is_clear;
				mark_free(mm, b);
			}
		}
	}
	mm->clear_avail = is_clear ? mm->avail : 0;
	/* Buddies kept apart by their clear states merge now. */
	for (unsigned int i = 0; i < mm->n_roots; i++)
		coalesce(mm, mm->roots[i], false);
}

uint64_t drm_buddy_largest_free(const struct drm_buddy *mm)
{
	unsigned int o = mm->max_order + 1;

	while (o--)
		if (!list_empty(&mm->free_trees[0][o]) || !list_empty(&mm->free_trees[1][o]))
			return mm->chunk_size << o;
	return 0;
}

unsigned long drm_buddy_free_count(const struct drm_buddy *mm, unsigned int order)
{
	const struct drm_buddy_block *pos;
	unsigned long n = 0;

	if (order > mm->max_order)
		return 0;
	for (unsigned int t = 0; t < 2; t++)
		list_for_each_entry (pos, &mm->free_trees[t][order], struct drm_buddy_block, link)
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
