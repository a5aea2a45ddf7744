/* SPDX-License-Identifier: MIT */
/*
 * rbtree - an intrusive red-black tree with an optional augmentation hook.
 *
 * Written for this project (not the kernel's lib/rbtree.c): the classic
 * sentinel formulation, so every node's child and parent pointers are always
 * valid and the rebalancing code needs no NULL checks. The caller embeds a
 * struct rb_node in its object and does the ordered descent itself (as with
 * the kernel's rbtree), then links the new node with rb_insert().
 *
 * Augmentation: when @augment is set, the tree calls it for every node whose
 * subtree changed shape, children before parents, so a per-subtree summary
 * (drm_mm's largest hole below a node) stays exact. The callback must derive
 * the node's summary only from the node itself and its two children, and
 * return whether the summary changed: the upward walk after an insertion or
 * an erase stops at the first node whose summary did not.
 *
 * Locking: none; the owner of the tree serialises all access.
 */
#ifndef TTM_RBTREE_H
#define TTM_RBTREE_H

#include <stdbool.h>
#include <stddef.h>

/**
 * struct rb_node - link embedded in a tree member.
 * @parent: parent, or the tree's sentinel for the root.
 * @left: left child or the sentinel.
 * @right: right child or the sentinel.
 * @red: colour; the sentinel is always black.
 */
struct rb_node {
	struct rb_node *parent, *left, *right;
	bool red;
};

/**
 * struct rb_root - a tree.
 * @nil: sentinel standing for every absent child and the root's parent.
 * @root: the root or &@nil when the tree is empty.
 * @augment: optional; recomputes the caller's summary of one node from its
 *	children (which may be rb_is_nil()) and returns true when it differs from
 *	the value stored before. Called after every structural change.
 */
struct rb_root {
	struct rb_node nil;
	struct rb_node *root;
	bool (*augment)(struct rb_root *tree, struct rb_node *node);
};

/**
 * rb_init() - make @tree empty.
 * @tree: the tree.
 * @augment: the summary callback (see struct rb_root), or NULL.
 */
void rb_init(struct rb_root *tree, bool (*augment)(struct rb_root *, struct rb_node *));

/** rb_is_nil() - true when @n is @tree's sentinel (an absent child). */
static inline bool rb_is_nil(const struct rb_root *tree, const struct rb_node *n)
{
	return n == &tree->nil;
}

static inline bool rb_empty(const struct rb_root *tree)
{
	return rb_is_nil(tree, tree->root);
}

/**
 * rb_insert() - link @node as the @left or right child of @parent and rebalance.
 * @tree: the tree.
 * @node: the node to link (not in any tree).
 * @parent: the leaf position found by the caller's descent, or the sentinel
 *	(rb_is_nil) when the tree is empty.
 * @left: link as @parent's left child (else its right).
 */
void rb_insert(struct rb_root *tree, struct rb_node *node, struct rb_node *parent, bool left);

/**
 * rb_erase() - unlink @node and rebalance.
 * @tree: the tree.
 * @node: a node of @tree.
 */
void rb_erase(struct rb_root *tree, struct rb_node *node);

/**
 * rb_replace() - put @new (not in any tree) exactly where @old is: same
 * parent, children and colour, no rebalancing. The caller guarantees that
 * @new sorts where @old did and copies @old's summary into @new itself (the
 * tree cannot, it does not know the summary); @old is left unlinked.
 * @tree: the tree.
 * @old: a node of @tree.
 * @new: the node taking its place.
 */
void rb_replace(struct rb_root *tree, struct rb_node *old, struct rb_node *new);

/**
 * rb_propagate() - the caller changed @node's own contribution to its summary
 * (not its position in the order): recompute @node and its ancestors, stopping
 * at the first whose summary is unchanged. No-op without @augment.
 * @tree: the tree.
 * @node: the node whose own value changed.
 */
void rb_propagate(struct rb_root *tree, struct rb_node *node);

/**
 * rb_first() - the first node in order.
 * @tree: the tree.
 *
 * Return: the leftmost node; NULL when @tree is empty.
 */
struct rb_node *rb_first(const struct rb_root *tree);

/**
 * rb_last() - the last node in order.
 * @tree: the tree.
 *
 * Return: the rightmost node; NULL when @tree is empty.
 */
struct rb_node *rb_last(const struct rb_root *tree);

/**
 * rb_next() - the in-order successor.
 * @tree: the tree.
 * @n: a node of @tree.
 *
 * Return: the next node; NULL after the last.
 */
struct rb_node *rb_next(const struct rb_root *tree, const struct rb_node *n);

/**
 * rb_prev() - the in-order predecessor.
 * @tree: the tree.
 * @n: a node of @tree.
 *
 * Return: the previous node; NULL before the first.
 */
struct rb_node *rb_prev(const struct rb_root *tree, const struct rb_node *n);

/**
 * rb_validate() - check the red-black shape: parent links, no red node with a
 * red child, equal black height on every path, black root.
 * @tree: the tree.
 *
 * Return: the number of nodes, or -1 on the first violation.
 */
long rb_validate(const struct rb_root *tree);

#endif /* TTM_RBTREE_H */
