// SPDX-License-Identifier: MIT
/*
 * drm_mm: interval allocator with holes indexed by size and by address.
 * See drm_mm.h for the contract. The hole after a node is described by the
 * node itself (hole_size), so a hole needs no allocation of its own; the head
 * node's hole is the space before the first node.
 */
#include <errno.h>
#include <inttypes.h>

#include <ttm/drm_mm.h>

#define size_node(rb) container_of(rb, struct drm_mm_node, rb_size)
#define addr_node(rb) container_of(rb, struct drm_mm_node, rb_addr)

static inline uint64_t node_end(const struct drm_mm_node *n)
{
	return n->start + n->size; /* wraps to the range start for the head */
}

static inline struct drm_mm_node *list_next_node(const struct drm_mm_node *n)
{
	return list_entry(n->node_list.next, struct drm_mm_node, node_list);
}

static inline struct drm_mm_node *list_prev_node(const struct drm_mm_node *n)
{
	return list_entry(n->node_list.prev, struct drm_mm_node, node_list);
}

static inline uint64_t mm_start(const struct drm_mm *mm)
{
	return node_end(&mm->head_node);
}

static inline uint64_t mm_end(const struct drm_mm *mm)
{
	return mm->head_node.start;
}

static inline uint64_t hole_start(const struct drm_mm_node *n)
{
	return node_end(n);
}

static inline uint64_t hole_end(const struct drm_mm_node *n)
{
	return list_next_node(n)->start;
}

static bool addr_augment(struct rb_root *tree, struct rb_node *rb)
{
	struct drm_mm_node *n = addr_node(rb);
	uint64_t max = n->hole_size;

	if (!rb_is_nil(tree, rb->left) && addr_node(rb->left)->subtree_max_hole > max)
		max = addr_node(rb->left)->subtree_max_hole;
	if (!rb_is_nil(tree, rb->right) && addr_node(rb->right)->subtree_max_hole > max)
		max = addr_node(rb->right)->subtree_max_hole;
	if (n->subtree_max_hole == max)
		return false;
	n->subtree_max_hole = max;
	return true;
}

/* Link @n's hole (hole_size set) into its size class, creating the class. */
static void size_tree_insert(struct drm_mm *mm, struct drm_mm_node *n)
{
	struct rb_node *parent = &mm->holes_size.nil, *cur;
	bool left = false;

	for (cur = mm->holes_size.root; !rb_is_nil(&mm->holes_size, cur);) {
		struct drm_mm_node *c = size_node(cur);

		if (n->hole_size == c->hole_size) {
			n->size_head = false;
			list_add_tail(&n->hole_same, &c->hole_same);
			return;
		}
		parent = cur;
		left = n->hole_size < c->hole_size;
		cur = left ? cur->left : cur->right;
	}
	n->size_head = true;
	INIT_LIST_HEAD(&n->hole_same);
	rb_insert(&mm->holes_size, &n->rb_size, parent, left);
}

/* Unlink @n's hole from its size class; a head hands the class to a member. */
static void size_tree_erase(struct drm_mm *mm, struct drm_mm_node *n)
{
	struct drm_mm_node *next;

	if (!n->size_head) {
		list_del_init(&n->hole_same);
		return;
	}
	n->size_head = false;
	if (list_empty(&n->hole_same)) {
		rb_erase(&mm->holes_size, &n->rb_size);
		return;
	}
	next = container_of(n->hole_same.next, struct drm_mm_node, hole_same);
	list_del_init(&next->hole_same);
	list_splice_tail_init(&n->hole_same, &next->hole_same);
	next->size_head = true;
	rb_replace(&mm->holes_size, &n->rb_size, &next->rb_size);
}

/* Record @n's hole (recomputed from its neighbours) in both trees. */
static void add_hole(struct drm_mm *mm, struct drm_mm_node *n)
{
	struct rb_node *parent, *cur;
	bool left = false;

	n->hole_size = hole_end(n) - hole_start(n);
	if (!n->hole_size)
		return;
	size_tree_insert(mm, n);

	parent = &mm->holes_addr.nil;
	for (cur = mm->holes_addr.root; !rb_is_nil(&mm->holes_addr, cur);) {
		parent = cur;
		left = hole_start(n) < hole_start(addr_node(cur));
		cur = left ? cur->left : cur->right;
	}
	n->subtree_max_hole = n->hole_size;
	rb_insert(&mm->holes_addr, &n->rb_addr, parent, left);
}

static void rm_hole(struct drm_mm *mm, struct drm_mm_node *n)
{
	if (!n->hole_size)
		return;
	size_tree_erase(mm, n);
	rb_erase(&mm->holes_addr, &n->rb_addr);
	n->hole_size = 0;
	n->subtree_max_hole = 0;
}

/*
 * @n's hole, already in both trees, now measures @size; its start cannot have
 * moved (a hole always begins at its node's end), so its address-tree slot
 * stays and only the maxima above it and its size-tree rank change.
 */
static void resize_hole(struct drm_mm *mm, struct drm_mm_node *n, uint64_t size)
{
	if (!size) {
		rm_hole(mm, n);
		return;
	}
	if (size == n->hole_size)
		return;
	size_tree_erase(mm, n);
	n->hole_size = size;
	size_tree_insert(mm, n);
	rb_propagate(&mm->holes_addr, &n->rb_addr);
}

/*
 * The hole after @from (in both trees) is gone and a @size hole after @to
 * (in neither) appeared with no other hole between the two starts, so @to
 * can take over @from's address-tree slot instead of an erase plus an insert
 * that would both rebalance.
 */
static void move_hole(struct drm_mm *mm, struct drm_mm_node *from, struct drm_mm_node *to,
		      uint64_t size)
{
	size_tree_erase(mm, from);
	rb_replace(&mm->holes_addr, &from->rb_addr, &to->rb_addr);
	to->subtree_max_hole = from->subtree_max_hole;
	from->hole_size = 0;
	from->subtree_max_hole = 0;
	to->hole_size = size;
	size_tree_insert(mm, to);
	rb_propagate(&mm->holes_addr, &to->rb_addr);
}

int drm_mm_init(struct drm_mm *mm, uint64_t start, uint64_t size)
{
	if (!size || start + size < start)
		return -EINVAL;
	*mm = (struct drm_mm){0};
	rb_init(&mm->holes_size, NULL);
	rb_init(&mm->holes_addr, addr_augment);
	INIT_LIST_HEAD(&mm->head_node.node_list);
	mm->head_node.start = start + size;
	mm->head_node.size = -size; /* so the head's end wraps to @start */
	mm->head_node.allocated = true;
	add_hole(mm, &mm->head_node);
	return 0;
}

void drm_mm_takedown(struct drm_mm *mm)
{
	struct drm_mm_node *n;

	if (drm_mm_clean(mm))
		return;
	fprintf(stderr, "drm_mm_takedown: %lu node(s) still allocated\n", mm->nodes);
	drm_mm_for_each_node (n, mm)
		fprintf(stderr, "  node [0x%" PRIx64 ", 0x%" PRIx64 ")\n", n->start, node_end(n));
}

bool drm_mm_clean(const struct drm_mm *mm)
{
	return list_empty(&mm->head_node.node_list);
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/*
 * Where a @size block aligned to @alignment would go inside the hole after
 * @h clipped to [@rs, @re): lowest for BEST/LOW, highest for HIGH.
 */
static bool hole_fit(const struct drm_mm_node *h, uint64_t size, uint64_t alignment, uint64_t rs,
		     uint64_t re, enum drm_mm_insert_mode mode, uint64_t *out)
{
	uint64_t as = hole_start(h), ae = hole_end(h), start, rem;

	if (as < rs)
		as = rs;
	if (ae > re)
		ae = re;
	if (ae <= as || ae - as < size)
		return false;
	/* Alignments are powers of two (check_request()): a mask, not a division. */
	if (mode == DRM_MM_INSERT_HIGH) {
		start = (ae - size) & ~(alignment - 1);
		if (start < as)
			return false;
	} else {
		rem = as & (alignment - 1);
		if (rem && alignment - rem > ae - as - size)
			return false;
		start = rem ? as + (alignment - rem) : as;
	}
	*out = start;
	return true;
}

/* Lowest hole with hole_size >= @size ending above @lo. */
static struct drm_mm_node *first_hole_above(const struct drm_mm *mm, const struct rb_node *rb,
					    uint64_t lo, uint64_t size)
{
	const struct rb_root *t = &mm->holes_addr;

	while (!rb_is_nil(t, rb) && addr_node(rb)->subtree_max_hole >= size) {
		struct drm_mm_node *n = addr_node(rb);

		if (hole_end(n) > lo) {
			struct drm_mm_node *l = first_hole_above(mm, rb->left, lo, size);

			if (l)
				return l;
			if (n->hole_size >= size)
				return n;
		}
		rb = rb->right;
	}
	return NULL;
}

/* Highest hole with hole_size >= @size starting below @hi. */
static struct drm_mm_node *last_hole_below(const struct drm_mm *mm, const struct rb_node *rb,
					   uint64_t hi, uint64_t size)
{
	const struct rb_root *t = &mm->holes_addr;

	while (!rb_is_nil(t, rb) && addr_node(rb)->subtree_max_hole >= size) {
		struct drm_mm_node *n = addr_node(rb);

		if (hole_start(n) < hi) {
			struct drm_mm_node *r = last_hole_below(mm, rb->right, hi, size);

			if (r)
				return r;
			if (n->hole_size >= size)
				return n;
		}
		rb = rb->left;
	}
	return NULL;
}

/* Whether the subtree under @rb holds a hole of at least @size. */
static bool subtree_fits(const struct rb_root *t, const struct rb_node *rb, uint64_t size)
{
	return !rb_is_nil(t, rb) && addr_node(rb)->subtree_max_hole >= size;
}

/* Lowest (@low) or highest hole of at least @size in the subtree under @rb, which has one. */
static struct drm_mm_node *subtree_end_fit(const struct rb_root *t, const struct rb_node *rb,
					   uint64_t size, bool low)
{
	for (;;) {
		const struct rb_node *near = low ? rb->left : rb->right;

		if (subtree_fits(t, near, size))
			rb = near;
		else if (addr_node(rb)->hole_size >= size)
			return addr_node(rb);
		else
			rb = low ? rb->right : rb->left;
	}
}

/*
 * The next hole of at least @size after @h in address order (@low), or
 * before it: an in-order step through the address tree that skips subtrees
 * without such a hole, so rejecting a hole (its alignment does not fit)
 * costs a few steps from where the search is, not a descent from the root.
 */
static struct drm_mm_node *step_hole(const struct drm_mm *mm, const struct drm_mm_node *h,
				     uint64_t size, bool low)
{
	const struct rb_root *t = &mm->holes_addr;
	const struct rb_node *rb = &h->rb_addr, *far = low ? rb->right : rb->left;

	if (subtree_fits(t, far, size))
		return subtree_end_fit(t, far, size, low);
	for (;;) {
		const struct rb_node *parent = rb->parent;

		if (rb_is_nil(t, parent))
			return NULL;
		/* Coming up from the near side: the parent and its far side are next. */
		if ((low ? parent->left : parent->right) == rb) {
			if (addr_node(parent)->hole_size >= size)
				return addr_node(parent);
			far = low ? parent->right : parent->left;
			if (subtree_fits(t, far, size))
				return subtree_end_fit(t, far, size, low);
		}
		rb = parent;
	}
}

/* The smallest size class of at least @size. */
static struct rb_node *best_hole(const struct drm_mm *mm, uint64_t size)
{
	const struct rb_root *t = &mm->holes_size;
	struct rb_node *rb = t->root, *best = NULL;

	while (!rb_is_nil(t, rb)) {
		if (size_node(rb)->hole_size >= size) {
			best = rb;
			rb = rb->left;
		} else {
			rb = rb->right;
		}
	}
	return best;
}

/* Link @node (start/size set) into the hole after @h. */
static void place_node(struct drm_mm *mm, struct drm_mm_node *h, struct drm_mm_node *node)
{
	uint64_t front = node->start - hole_start(h);
	uint64_t back = hole_end(h) - node_end(node);

	list_insert_(&node->node_list, &h->node_list, h->node_list.next);
	node->allocated = true;
	node->scanned = false;
	node->hole_size = 0;
	node->subtree_max_hole = 0;
	mm->nodes++;
	if (front) {
		resize_hole(mm, h, front);
		if (back)
			add_hole(mm, node);
	} else if (back) {
		/* The usual bottom-up fit: what is left of h's hole is node's. */
		move_hole(mm, h, node, back);
	} else {
		rm_hole(mm, h);
	}
}

static int check_request(const struct drm_mm *mm, uint64_t size, uint64_t alignment,
			 uint64_t range_start, uint64_t range_end, enum drm_mm_insert_mode mode)
{
	if (!size || (alignment > 1 && !is_pow2(alignment)))
		return -EINVAL;
	if (range_start >= range_end || range_start < mm_start(mm) || range_end > mm_end(mm))
		return -EINVAL;
	if (mode != DRM_MM_INSERT_BEST && mode != DRM_MM_INSERT_LOW && mode != DRM_MM_INSERT_HIGH)
		return -EINVAL;
	return 0;
}

int drm_mm_insert_node_in_range(struct drm_mm *mm, struct drm_mm_node *node, uint64_t size,
				uint64_t alignment, unsigned long color, uint64_t range_start,
				uint64_t range_end, enum drm_mm_insert_mode mode)
{
	struct drm_mm_node *h = NULL;
	uint64_t start = 0;
	int ret;

	ret = check_request(mm, size, alignment, range_start, range_end, mode);
	if (ret)
		return ret;
	if (node->allocated)
		return -EINVAL;
	if (mm->scan_active)
		return -EBUSY;
	if (alignment < 1)
		alignment = 1;
	if (size > range_end - range_start)
		return -ENOSPC;

	if (mode == DRM_MM_INSERT_BEST) {
		struct rb_node *rb;

		/* Sizes grow along the walk: the first fit is the tightest. */
		for (rb = best_hole(mm, size); rb; rb = rb_next(&mm->holes_size, rb)) {
			struct drm_mm_node *c = size_node(rb), *m;

			if (hole_fit(c, size, alignment, range_start, range_end, mode, &start)) {
				h = c;
				break;
			}
			list_for_each_entry (m, &c->hole_same, struct drm_mm_node, hole_same) {
				if (hole_fit(m, size, alignment, range_start, range_end, mode,
					     &start)) {
					h = m;
					break;
				}
			}
			if (h)
				break;
		}
	} else if (mode == DRM_MM_INSERT_LOW) {
		for (h = first_hole_above(mm, mm->holes_addr.root, range_start, size); h;
		     h = step_hole(mm, h, size, true)) {
			if (hole_start(h) >= range_end) {
				h = NULL;
				break;
			}
			if (hole_fit(h, size, alignment, range_start, range_end, mode, &start))
				break;
		}
	} else {
		for (h = last_hole_below(mm, mm->holes_addr.root, range_end, size); h;
		     h = step_hole(mm, h, size, false)) {
			if (hole_end(h) <= range_start) {
				h = NULL;
				break;
			}
			if (hole_fit(h, size, alignment, range_start, range_end, mode, &start))
				break;
		}
	}
	if (!h)
		return -ENOSPC;

	node->start = start;
	node->size = size;
	node->color = color;
	place_node(mm, h, node);
	return 0;
}

int drm_mm_insert_node(struct drm_mm *mm, struct drm_mm_node *node, uint64_t size,
		       uint64_t alignment, unsigned long color, enum drm_mm_insert_mode mode)
{
	return drm_mm_insert_node_in_range(mm, node, size, alignment, color, mm_start(mm),
					   mm_end(mm), mode);
}

int drm_mm_reserve_node(struct drm_mm *mm, struct drm_mm_node *node)
{
	const struct rb_root *t = &mm->holes_addr;
	struct rb_node *rb = t->root;
	struct drm_mm_node *h = NULL;
	uint64_t end = node->start + node->size;

	if (!node->size || end < node->start || node->allocated)
		return -EINVAL;
	if (node->start < mm_start(mm) || end > mm_end(mm))
		return -EINVAL;
	if (mm->scan_active)
		return -EBUSY;

	/* The hole starting at or below node->start, nearest to it. */
	while (!rb_is_nil(t, rb)) {
		if (hole_start(addr_node(rb)) <= node->start) {
			h = addr_node(rb);
			rb = rb->right;
		} else {
			rb = rb->left;
		}
	}
	if (!h || hole_end(h) < end)
		return -ENOSPC;
	place_node(mm, h, node);
	return 0;
}

void drm_mm_remove_node(struct drm_mm *mm, struct drm_mm_node *node)
{
	struct drm_mm_node *prev = list_prev_node(node);
	uint64_t merged = hole_end(node) - hole_start(prev);

	if (prev->hole_size) {
		rm_hole(mm, node);
		resize_hole(mm, prev, merged);
	} else if (node->hole_size) {
		/* prev had no hole, so nothing lies between its end and node's hole. */
		move_hole(mm, node, prev, merged);
	}
	list_del_init(&node->node_list);
	/* Neither had a hole: the freed range is a hole of its own. */
	if (!prev->hole_size)
		add_hole(mm, prev);
	node->allocated = false;
	mm->nodes--;
}

struct drm_mm_node *drm_mm_first_node(const struct drm_mm *mm)
{
	if (drm_mm_clean(mm))
		return NULL;
	return list_next_node(&mm->head_node);
}

struct drm_mm_node *drm_mm_next_node(const struct drm_mm *mm, const struct drm_mm_node *node)
{
	struct drm_mm_node *next = list_next_node(node);

	return next == &mm->head_node ? NULL : next;
}

#define MM_BUG(...)                                                                                \
	do {                                                                                       \
		fprintf(stderr, "drm_mm_check: " __VA_ARGS__);                                     \
		fputc('\n', stderr);                                                               \
		return -EINVAL;                                                                    \
	} while (0)

/* Subtree maxima and address ordering of the address tree. */
static int check_addr_subtree(const struct drm_mm *mm, const struct rb_node *rb)
{
	const struct rb_root *t = &mm->holes_addr;
	const struct drm_mm_node *n;
	uint64_t max;

	if (rb_is_nil(t, rb))
		return 0;
	n = addr_node(rb);
	max = n->hole_size;
	if (!rb_is_nil(t, rb->left)) {
		if (hole_start(addr_node(rb->left)) >= hole_start(n))
			MM_BUG("address tree out of order at 0x%" PRIx64, hole_start(n));
		if (addr_node(rb->left)->subtree_max_hole > max)
			max = addr_node(rb->left)->subtree_max_hole;
	}
	if (!rb_is_nil(t, rb->right)) {
		if (hole_start(addr_node(rb->right)) <= hole_start(n))
			MM_BUG("address tree out of order at 0x%" PRIx64, hole_start(n));
		if (addr_node(rb->right)->subtree_max_hole > max)
			max = addr_node(rb->right)->subtree_max_hole;
	}
	if (max != n->subtree_max_hole)
		MM_BUG("subtree max at hole 0x%" PRIx64 " is 0x%" PRIx64 ", should be 0x%" PRIx64,
		       hole_start(n), n->subtree_max_hole, max);
	if (check_addr_subtree(mm, rb->left) || check_addr_subtree(mm, rb->right))
		return -EINVAL;
	return 0;
}

int drm_mm_check(const struct drm_mm *mm)
{
	const struct drm_mm_node *n, *prev = NULL;
	unsigned long count = 0, holes = 0, classed;
	const struct rb_node *rb;
	long sized, addressed;

	if (mm->scan_active)
		MM_BUG("called during an eviction scan");
	for (n = &mm->head_node;; n = list_next_node(n)) {
		uint64_t hs = hole_start(n), he = hole_end(n);

		if (list_next_node(n)->node_list.prev != &n->node_list)
			MM_BUG("broken node list after 0x%" PRIx64, n->start);
		if (n != &mm->head_node) {
			count++;
			if (!n->allocated)
				MM_BUG("listed node 0x%" PRIx64 " not marked allocated", n->start);
			if (!n->size || node_end(n) < n->start)
				MM_BUG("node 0x%" PRIx64 " has bad size 0x%" PRIx64, n->start,
				       n->size);
			if (n->start < mm_start(mm) || node_end(n) > mm_end(mm))
				MM_BUG("node [0x%" PRIx64 ", 0x%" PRIx64 ") outside the range",
				       n->start, node_end(n));
			if (prev && prev != &mm->head_node && n->start < node_end(prev))
				MM_BUG("node 0x%" PRIx64 " overlaps or precedes 0x%" PRIx64,
				       n->start, prev->start);
		}
		if (he < hs)
			MM_BUG("negative hole after 0x%" PRIx64, n->start);
		if (n->hole_size != he - hs)
			MM_BUG("hole after 0x%" PRIx64 " recorded as 0x%" PRIx64 ", is 0x%" PRIx64,
			       n->start, n->hole_size, he - hs);
		if (n->hole_size)
			holes++;
		prev = n;
		if (list_next_node(n) == &mm->head_node)
			break;
	}
	if (count != mm->nodes)
		MM_BUG("%lu nodes listed, %lu counted", count, mm->nodes);

	sized = rb_validate(&mm->holes_size);
	addressed = rb_validate(&mm->holes_addr);
	if (sized < 0 || addressed < 0)
		MM_BUG("red-black shape broken (size tree %ld, address tree %ld)", sized,
		       addressed);
	if ((unsigned long)addressed != holes)
		MM_BUG("%lu holes but the address tree holds %ld", holes, addressed);
	prev = NULL;
	classed = 0;
	for (rb = rb_first(&mm->holes_size); rb; rb = rb_next(&mm->holes_size, rb)) {
		const struct drm_mm_node *m;

		n = size_node(rb);
		if (!n->hole_size || !n->size_head)
			MM_BUG("size class at 0x%" PRIx64 " is empty or not marked as head",
			       hole_start(n));
		if (prev && prev->hole_size >= n->hole_size)
			MM_BUG("size tree out of order at 0x%" PRIx64, hole_start(n));
		classed++;
		list_for_each_entry (m, &n->hole_same, struct drm_mm_node, hole_same) {
			if (m->size_head || m->hole_size != n->hole_size)
				MM_BUG("hole 0x%" PRIx64 " of size 0x%" PRIx64
				       " listed in class 0x%" PRIx64,
				       hole_start(m), m->hole_size, n->hole_size);
			classed++;
		}
		prev = n;
	}
	if (classed != holes || (unsigned long)sized > holes)
		MM_BUG("%lu holes but %lu in %ld size classes", holes, classed, sized);
	return check_addr_subtree(mm, mm->holes_addr.root);
}

void drm_mm_print(const struct drm_mm *mm, FILE *f)
{
	const struct drm_mm_node *n = &mm->head_node;
	uint64_t used = 0, free = 0;

	do {
		if (n != &mm->head_node) {
			fprintf(f,
				"0x%016" PRIx64 "-0x%016" PRIx64 ": %" PRIu64 " used (color %lu)\n",
				n->start, node_end(n), n->size, n->color);
			used += n->size;
		}
		if (n->hole_size) {
			fprintf(f, "0x%016" PRIx64 "-0x%016" PRIx64 ": %" PRIu64 " free\n",
				hole_start(n), hole_end(n), n->hole_size);
			free += n->hole_size;
		}
		n = list_next_node(n);
	} while (n != &mm->head_node);
	fprintf(f, "total: %" PRIu64 ", used %" PRIu64 " free %" PRIu64 "\n", used + free, used,
		free);
}

int drm_mm_scan_init_with_range(struct drm_mm_scan *scan, struct drm_mm *mm, uint64_t size,
				uint64_t alignment, unsigned long color, uint64_t start,
				uint64_t end, enum drm_mm_insert_mode mode)
{
	int ret = check_request(mm, size, alignment, start, end, mode);

	if (ret)
		return ret;
	*scan = (struct drm_mm_scan){
	    .mm = mm,
	    .size = size,
	    .alignment = alignment < 1 ? 1 : alignment,
	    .color = color,
	    .mode = mode,
	    .range_start = start,
	    .range_end = end,
	};
	return 0;
}

bool drm_mm_scan_add_block(struct drm_mm_scan *scan, struct drm_mm_node *node)
{
	struct drm_mm *mm = scan->mm;
	struct drm_mm_node *prev;
	uint64_t start;

	if (!scan->count++)
		mm->scan_active++;
	node->scanned = true;
	/*
	 * Unlink but keep node's own links: blocks come back in reverse order,
	 * so each one's neighbours are exactly as it left them.
	 */
	prev = list_prev_node(node);
	prev->node_list.next = node->node_list.next;
	node->node_list.next->prev = &prev->node_list;

	if (scan->found)
		return true;
	/* prev's "hole" now spans everything freed around node. */
	if (!hole_fit(prev, scan->size, scan->alignment, scan->range_start, scan->range_end,
		      scan->mode == DRM_MM_INSERT_HIGH ? DRM_MM_INSERT_HIGH : DRM_MM_INSERT_LOW,
		      &start))
		return false;
	scan->hit_start = start;
	scan->hit_end = start + scan->size;
	scan->found = true;
	return true;
}

bool drm_mm_scan_remove_block(struct drm_mm_scan *scan, struct drm_mm_node *node)
{
	struct drm_mm_node *prev = list_prev_node(node);

	/* Relink where add_block took it out (valid because of the reverse order). */
	prev->node_list.next = &node->node_list;
	node->node_list.next->prev = &node->node_list;
	node->scanned = false;
	if (!--scan->count)
		scan->mm->scan_active--;
	return scan->found && node->start < scan->hit_end && node_end(node) > scan->hit_start;
}
