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

static void rb_rotate_left(struct rb_root *tree, struct rb_node *x)
{
	struct rb_node *y = x->right;

	x->right = y->left;
	if (!rb_is_nil(tree, y->left))
		y->left->parent = x;
	y->parent = x->parent;
	rb_set_child(tree, x->parent, x, y);
	y->left = x;
	x->parent = y;
	rb_refresh(tree, x);
	rb_refresh(tree, y);
}

static void rb_rotate_right(struct rb_root *tree, struct rb_node *x)
{
	struct rb_node *y = x->left;

	x->left = y->right;
	if (!rb_is_nil(tree, y->right))
		y->right->parent = x;
	y->parent = x->parent;
	rb_set_child(tree, x->parent, x, y);
	y->right = x;
	x->parent = y;
	rb_refresh(tree, x);
	rb_refresh(tree, y);
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

		if (z->parent == g->left) {
			struct rb_node *u = g->right;

			if (u->red) {
				z->parent->red = false;
				u->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == z->parent->right) {
				z = z->parent;
				rb_rotate_left(tree, z);
			}
			z->parent->red = false;
			g->red = true;
			rb_rotate_right(tree, g);
		} else {
			struct rb_node *u = g->left;

			if (u->red) {
				z->parent->red = false;
				u->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == z->parent->left) {
				z = z->parent;
				rb_rotate_right(tree, z);
			}
			z->parent->red = false;
			g->red = true;
			rb_rotate_left(tree, g);
		}
	}
	tree->root->red = false;
}

static void rb_transplant(struct rb_root *tree, struct rb_node *u, struct rb_node *v)
{
	rb_set_child(tree, u->parent, u, v);
	/* Deliberately also for the sentinel: the fix-up starts from v->parent. */
	v->parent = u->parent;
}

static struct rb_node *rb_min(const struct rb_root *tree, struct rb_node *n)
{
	while (!rb_is_nil(tree, n->left))
		n = n->left;
	return n;
}

static struct rb_node *rb_max(const struct rb_root *tree, struct rb_node *n)
{
	while (!rb_is_nil(tree, n->right))
		n = n->right;
	return n;
}

static void rb_erase_fixup(struct rb_root *tree, struct rb_node *x)
{
	while (x != tree->root && !x->red) {
		struct rb_node *p = x->parent;

		if (x == p->left) {
			struct rb_node *w = p->right;

			if (w->red) {
				w->red = false;
				p->red = true;
				rb_rotate_left(tree, p);
				w = p->right;
			}
			if (!w->left->red && !w->right->red) {
				w->red = true;
				x = p;
				continue;
			}
			if (!w->right->red) {
				w->left->red = false;
				w->red = true;
				rb_rotate_right(tree, w);
				w = p->right;
			}
			w->red = p->red;
			p->red = false;
			w->right->red = false;
			rb_rotate_left(tree, p);
			x = tree->root;
		} else {
			struct rb_node *w = p->left;

			if (w->red) {
				w->red = false;
				p->red = true;
				rb_rotate_right(tree, p);
				w = p->left;
			}
			if (!w->right->red && !w->left->red) {
				w->red = true;
				x = p;
				continue;
			}
			if (!w->left->red) {
				w->right->red = false;
				w->red = true;
				rb_rotate_left(tree, w);
				w = p->left;
			}
			w->red = p->red;
			p->red = false;
			w->left->red = false;
			rb_rotate_right(tree, p);
			x = tree->root;
		}
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

struct rb_node *rb_next(const struct rb_root *tree, const struct rb_node *n)
{
	struct rb_node *p;

	if (!rb_is_nil(tree, n->right))
		return rb_min(tree, n->right);
	for (p = n->parent; !rb_is_nil(tree, p) && n == p->right; p = p->parent)
		n = p;
	return rb_is_nil(tree, p) ? NULL : p;
}

struct rb_node *rb_prev(const struct rb_root *tree, const struct rb_node *n)
{
	struct rb_node *p;

	if (!rb_is_nil(tree, n->left))
		return rb_max(tree, n->left);
	for (p = n->parent; !rb_is_nil(tree, p) && n == p->left; p = p->parent)
		n = p;
	return rb_is_nil(tree, p) ? NULL : p;
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
