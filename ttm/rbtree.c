// SPDX-License-Identifier: MIT
/*
 * Red-black tree, our own implementation (sentinel form, after the textbook
 * algorithm; see rbtree.h for why). Augmented summaries are kept exact by two
 * rules: a rotation changes only the two rotated subtrees, so it refreshes
 * those two (lower first); an insertion or an unlink changes the node set of
 * every subtree on one path, so that path is refreshed before the colour
 * fix-up runs. The path walk stops at the first node whose summary comes out
 * unchanged: its parent's inputs are then exactly what they were, and so on up.
 */
#include <ttm/rbtree.h>

void rb_init(struct rb_root *tree, bool (*augment)(struct rb_root *, struct rb_node *))
{
	tree->nil.parent = tree->nil.left = tree->nil.right = &tree->nil;
	tree->nil.red = false;
	tree->root = &tree->nil;
	tree->augment = augment;
}

static void rb_refresh(struct rb_root *tree, struct rb_node *n)
{
	if (tree->augment && !rb_is_nil(tree, n))
		tree->augment(tree, n);
}

/* Refresh @n and its ancestors until one's summary is unchanged. */
static void rb_refresh_path(struct rb_root *tree, struct rb_node *n)
{
	if (!tree->augment)
		return;
	for (; !rb_is_nil(tree, n); n = n->parent)
		if (!tree->augment(tree, n))
			break;
}

/*
 * As rb_refresh_path(), but an unchanged summary below @must does not end the
 * walk there: @must itself (an ancestor of @n, or @n) got new children and
 * has to be recomputed whatever happened below it.
 */
static void rb_refresh_path_through(struct rb_root *tree, struct rb_node *n, struct rb_node *must)
{
	if (!tree->augment)
		return;
	for (; n != must; n = n->parent)
		if (!tree->augment(tree, n))
			break;
	tree->augment(tree, must);
	rb_refresh_path(tree, must->parent);
}

void rb_propagate(struct rb_root *tree, struct rb_node *node)
{
	rb_refresh_path(tree, node);
}

static void rb_set_child(struct rb_root *tree, struct rb_node *parent, struct rb_node *old,
			 struct rb_node *new)
{
	if (rb_is_nil(tree, parent))
		tree->root = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
}

/*
 * Every rebalancing step has a mirror image; each is written once, for a
 * side given as a constant (RB_LEFT or RB_RIGHT) at every call site, and
 * forced inline so that the compiler emits the two mirrors as if they had
 * been written out: no run-time test of the side on these hot paths.
 */
#define RB_LEFT false
#define RB_RIGHT true
#define rb_always_inline inline __attribute__((always_inline))

static rb_always_inline struct rb_node *rb_child(const struct rb_node *n, bool side)
{
	return side == RB_RIGHT ? n->right : n->left;
}

/* The link to @n's @side child, to store a new one. */
static rb_always_inline struct rb_node **rb_link(struct rb_node *n, bool side)
{
	return side == RB_RIGHT ? &n->right : &n->left;
}

/* Rotate @x down to @side: its child on the other side takes its place. */
static rb_always_inline void rb_rotate(struct rb_root *tree, struct rb_node *x, bool side)
{
	struct rb_node *y = rb_child(x, !side);
	struct rb_node *inner = rb_child(y, side);

	*rb_link(x, !side) = inner;
	if (!rb_is_nil(tree, inner))
		inner->parent = x;
	y->parent = x->parent;
	rb_set_child(tree, x->parent, x, y);
	*rb_link(y, side) = x;
	x->parent = y;
	rb_refresh(tree, x);
	rb_refresh(tree, y);
}

/* One out-of-line copy per direction, as the callers are many. */
static void rb_rotate_left(struct rb_root *tree, struct rb_node *x)
{
	rb_rotate(tree, x, RB_LEFT);
}

static void rb_rotate_right(struct rb_root *tree, struct rb_node *x)
{
	rb_rotate(tree, x, RB_RIGHT);
}

/* A call of the copy for @side, a constant: no test is left after inlining. */
static rb_always_inline void rb_rotate_to(struct rb_root *tree, struct rb_node *x, bool side)
{
	if (side == RB_RIGHT)
		rb_rotate_right(tree, x);
	else
		rb_rotate_left(tree, x);
}

/*
 * One insertion fix-up step for red @z under a red parent that is the
 * @side child of @g. Returns the node the loop goes on with.
 */
static rb_always_inline struct rb_node *rb_insert_step(struct rb_root *tree, struct rb_node *z,
						       struct rb_node *g, bool side)
{
	struct rb_node *u = rb_child(g, !side);

	if (u->red) {
		z->parent->red = false;
		u->red = false;
		g->red = true;
		return g;
	}
	if (z == rb_child(z->parent, !side)) {
		z = z->parent;
		rb_rotate_to(tree, z, side);
	}
	z->parent->red = false;
	g->red = true;
	rb_rotate_to(tree, g, !side);
	return z;
}

void rb_insert(struct rb_root *tree, struct rb_node *z, struct rb_node *parent, bool left)
{
	z->parent = parent;
	z->left = z->right = &tree->nil;
	z->red = true;
	if (rb_is_nil(tree, parent))
		tree->root = z;
	else if (left)
		parent->left = z;
	else
		parent->right = z;
	/* z is new: its stored summary means nothing, so it is always computed. */
	rb_refresh_path_through(tree, z, z);

	while (z->parent->red) {
		struct rb_node *g = z->parent->parent;

		if (z->parent == g->left)
			z = rb_insert_step(tree, z, g, RB_LEFT);
		else
			z = rb_insert_step(tree, z, g, RB_RIGHT);
	}
	tree->root->red = false;
}

static void rb_transplant(struct rb_root *tree, struct rb_node *u, struct rb_node *v)
{
	rb_set_child(tree, u->parent, u, v);
	/* Deliberately also for the sentinel: the fix-up starts from v->parent. */
	v->parent = u->parent;
}

/* The last node down @n's subtree on @side: its minimum (RB_LEFT) or maximum. */
static rb_always_inline struct rb_node *rb_extreme(const struct rb_root *tree, struct rb_node *n,
						   bool side)
{
	while (!rb_is_nil(tree, rb_child(n, side)))
		n = rb_child(n, side);
	return n;
}

static struct rb_node *rb_min(const struct rb_root *tree, struct rb_node *n)
{
	return rb_extreme(tree, n, RB_LEFT);
}

static struct rb_node *rb_max(const struct rb_root *tree, struct rb_node *n)
{
	return rb_extreme(tree, n, RB_RIGHT);
}

/*
 * One erase fix-up step for the doubly black child of @p on @side.
 * Returns the node the loop goes on with (the root when it is done).
 */
static rb_always_inline struct rb_node *rb_erase_step(struct rb_root *tree, struct rb_node *p,
						      bool side)
{
	struct rb_node *w = rb_child(p, !side);

	if (w->red) {
		w->red = false;
		p->red = true;
		rb_rotate_to(tree, p, side);
		w = rb_child(p, !side);
	}
	if (!w->left->red && !w->right->red) {
		w->red = true;
		return p;
	}
	if (!rb_child(w, !side)->red) {
		rb_child(w, side)->red = false;
		w->red = true;
		rb_rotate_to(tree, w, !side);
		w = rb_child(p, !side);
	}
	w->red = p->red;
	p->red = false;
	rb_child(w, !side)->red = false;
	rb_rotate_to(tree, p, side);
	return tree->root;
}

static void rb_erase_fixup(struct rb_root *tree, struct rb_node *x)
{
	while (x != tree->root && !x->red) {
		struct rb_node *p = x->parent;

		if (x == p->left)
			x = rb_erase_step(tree, p, RB_LEFT);
		else
			x = rb_erase_step(tree, p, RB_RIGHT);
	}
	x->red = false;
}

void rb_erase(struct rb_root *tree, struct rb_node *z)
{
	struct rb_node *y = z, *x;
	bool y_was_red = y->red;

	if (rb_is_nil(tree, z->left)) {
		x = z->right;
		rb_transplant(tree, z, x);
	} else if (rb_is_nil(tree, z->right)) {
		x = z->left;
		rb_transplant(tree, z, x);
	} else {
		y = rb_min(tree, z->right);
		y_was_red = y->red;
		x = y->right;
		if (y->parent == z) {
			x->parent = y;
		} else {
			rb_transplant(tree, y, x);
			y->right = z->right;
			y->right->parent = y;
		}
		rb_transplant(tree, z, y);
		y->left = z->left;
		y->left->parent = y;
		y->red = z->red;
	}
	/*
	 * x->parent lies on the only path whose subtrees lost a member. When y
	 * took z's place it carries the summary of its old, smaller subtree, so
	 * it is recomputed even if the walk below it found nothing changed.
	 */
	if (y != z)
		rb_refresh_path_through(tree, x->parent, y);
	else
		rb_refresh_path(tree, x->parent);
	if (!y_was_red)
		rb_erase_fixup(tree, x);
	/* Leave the sentinel as rb_init() made it. */
	tree->nil.parent = tree->nil.left = tree->nil.right = &tree->nil;
	tree->nil.red = false;
}

void rb_replace(struct rb_root *tree, struct rb_node *old, struct rb_node *new)
{
	*new = *old;
	rb_set_child(tree, old->parent, old, new);
	if (!rb_is_nil(tree, new->left))
		new->left->parent = new;
	if (!rb_is_nil(tree, new->right))
		new->right->parent = new;
}

struct rb_node *rb_first(const struct rb_root *tree)
{
	return rb_empty(tree) ? NULL : rb_min(tree, tree->root);
}

struct rb_node *rb_last(const struct rb_root *tree)
{
	return rb_empty(tree) ? NULL : rb_max(tree, tree->root);
}

/* The in-order neighbour of @n towards @side (RB_RIGHT: the successor). */
static rb_always_inline struct rb_node *rb_step(const struct rb_root *tree, const struct rb_node *n,
						bool side)
{
	struct rb_node *p, *c = rb_child(n, side);

	if (!rb_is_nil(tree, c))
		return rb_extreme(tree, c, !side);
	for (p = n->parent; !rb_is_nil(tree, p) && n == rb_child(p, side); p = p->parent)
		n = p;
	return rb_is_nil(tree, p) ? NULL : p;
}

struct rb_node *rb_next(const struct rb_root *tree, const struct rb_node *n)
{
	return rb_step(tree, n, RB_RIGHT);
}

struct rb_node *rb_prev(const struct rb_root *tree, const struct rb_node *n)
{
	return rb_step(tree, n, RB_LEFT);
}

/* Black height of @n's subtree, -1 on a violation; counts nodes into @count. */
static long rb_check_subtree(const struct rb_root *tree, const struct rb_node *n, long *count)
{
	long lh, rh;

	if (rb_is_nil(tree, n))
		return 1;
	++*count;
	if (!rb_is_nil(tree, n->left) && n->left->parent != n)
		return -1;
	if (!rb_is_nil(tree, n->right) && n->right->parent != n)
		return -1;
	if (n->red && (n->left->red || n->right->red))
		return -1;
	lh = rb_check_subtree(tree, n->left, count);
	rh = rb_check_subtree(tree, n->right, count);
	if (lh < 0 || rh < 0 || lh != rh)
		return -1;
	return lh + (n->red ? 0 : 1);
}

long rb_validate(const struct rb_root *tree)
{
	long count = 0;

	if (tree->nil.red || tree->root->red)
		return -1;
	if (!rb_empty(tree) && !rb_is_nil(tree, tree->root->parent))
		return -1;
	if (rb_check_subtree(tree, tree->root, &count) < 0)
		return -1;
	return count;
}
