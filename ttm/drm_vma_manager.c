// SPDX-License-Identifier: MIT
/*
 * drm_vma_manager: fake mmap offsets and per-file grants (see
 * drm_vma_manager.h for the contract). Ranges come from a drm_mm (best fit,
 * as the kernel's drm_vma_offset_add()); the nodes holding one are also in
 * a tree by start page, so a lookup is one descent.
 */
#include <errno.h>
#include <stdlib.h>

#include <ttm/drm_vma_manager.h>
#include <ttm/ttm_faults.h>

#define vma_node(n) container_of(n, struct drm_vma_offset_node, vm_rb)
#define vma_file(n) container_of(n, struct drm_vma_offset_file, rb)

int drm_vma_offset_manager_init(struct drm_vma_offset_manager *mgr, uint64_t page_offset,
				uint64_t size)
{
	int ret;

	if (!size || page_offset + size < page_offset)
		return -EINVAL;
	ret = drm_mm_init(&mgr->vm_addr_space_mm, page_offset, size);
	if (ret)
		return ret;
	rb_init(&mgr->vm_nodes, NULL);
	pthread_rwlock_init(&mgr->vm_lock, NULL);
	return 0;
}

void drm_vma_offset_manager_destroy(struct drm_vma_offset_manager *mgr)
{
	drm_mm_takedown(&mgr->vm_addr_space_mm);
	pthread_rwlock_destroy(&mgr->vm_lock);
}

void drm_vma_node_init(struct drm_vma_offset_node *node)
{
	pthread_rwlock_init(&node->vm_lock, NULL);
	rb_init(&node->vm_files, NULL);
	node->vm_node.allocated = false;
}

void drm_vma_node_fini(struct drm_vma_offset_node *node)
{
	while (!rb_empty(&node->vm_files)) {
		struct drm_vma_offset_file *f = vma_file(node->vm_files.root);

		rb_erase(&node->vm_files, &f->rb);
		free(f);
	}
	pthread_rwlock_destroy(&node->vm_lock);
}

int drm_vma_offset_add(struct drm_vma_offset_manager *mgr, struct drm_vma_offset_node *node,
		       uint64_t pages)
{
	struct rb_node *parent, *rb;
	bool left = false;
	int ret = 0;

	if (!pages)
		return -EINVAL;
	pthread_rwlock_wrlock(&mgr->vm_lock);
	if (drm_mm_node_allocated(&node->vm_node))
		goto out;
	ret = drm_mm_insert_node(&mgr->vm_addr_space_mm, &node->vm_node, pages, 0, 0,
				 DRM_MM_INSERT_BEST);
	if (ret)
		goto out;
	parent = &mgr->vm_nodes.nil;
	for (rb = mgr->vm_nodes.root; !rb_is_nil(&mgr->vm_nodes, rb);) {
		parent = rb;
		left = node->vm_node.start < vma_node(rb)->vm_node.start;
		rb = left ? rb->left : rb->right;
	}
	rb_insert(&mgr->vm_nodes, &node->vm_rb, parent, left);
out:
	pthread_rwlock_unlock(&mgr->vm_lock);
	return ret;
}

void drm_vma_offset_remove(struct drm_vma_offset_manager *mgr, struct drm_vma_offset_node *node)
{
	pthread_rwlock_wrlock(&mgr->vm_lock);
	if (drm_mm_node_allocated(&node->vm_node)) {
		rb_erase(&mgr->vm_nodes, &node->vm_rb);
		drm_mm_remove_node(&mgr->vm_addr_space_mm, &node->vm_node);
	}
	pthread_rwlock_unlock(&mgr->vm_lock);
}

void drm_vma_offset_lock_lookup(struct drm_vma_offset_manager *mgr)
{
	pthread_rwlock_rdlock(&mgr->vm_lock);
}

void drm_vma_offset_unlock_lookup(struct drm_vma_offset_manager *mgr)
{
	pthread_rwlock_unlock(&mgr->vm_lock);
}

struct drm_vma_offset_node *drm_vma_offset_lookup_locked(struct drm_vma_offset_manager *mgr,
							 uint64_t start, uint64_t pages)
{
	struct drm_vma_offset_node *best = NULL;
	struct rb_node *rb = mgr->vm_nodes.root;

	/* The node with the highest start not above @start. */
	while (!rb_is_nil(&mgr->vm_nodes, rb)) {
		struct drm_vma_offset_node *n = vma_node(rb);

		if (start >= n->vm_node.start) {
			best = n;
			if (start == n->vm_node.start)
				break;
			rb = rb->right;
		} else {
			rb = rb->left;
		}
	}
	/* It must span the whole request (checked without overflowing). */
	if (best && (pages > best->vm_node.size ||
		     start - best->vm_node.start > best->vm_node.size - pages))
		return NULL;
	return best;
}

struct drm_vma_offset_node *drm_vma_offset_exact_lookup_locked(struct drm_vma_offset_manager *mgr,
							       uint64_t start, uint64_t pages)
{
	struct drm_vma_offset_node *node = drm_vma_offset_lookup_locked(mgr, start, pages);

	return node && node->vm_node.start == start ? node : NULL;
}

/* @tag's grant on @node and, when there is none, where it would be linked. */
static struct drm_vma_offset_file *find_grant(struct drm_vma_offset_node *node,
					      struct drm_file *tag, struct rb_node **parent,
					      bool *left)
{
	struct rb_node *rb = node->vm_files.root;

	*parent = &node->vm_files.nil;
	*left = false;
	while (!rb_is_nil(&node->vm_files, rb)) {
		struct drm_vma_offset_file *f = vma_file(rb);

		if (f->vm_tag == tag)
			return f;
		*parent = rb;
		*left = (uintptr_t)tag < (uintptr_t)f->vm_tag;
		rb = *left ? rb->left : rb->right;
	}
	return NULL;
}

static int vma_node_allow(struct drm_vma_offset_node *node, struct drm_file *tag, bool counted)
{
	struct drm_vma_offset_file *f;
	struct rb_node *parent;
	bool left;
	int ret = 0;

	pthread_rwlock_wrlock(&node->vm_lock);
	f = find_grant(node, tag, &parent, &left);
	if (f) {
		if (counted)
			f->vm_count++;
		goto out;
	}
	if (fault_should_fail(&ttm_fault_map_alloc, sizeof(*f))) {
		ret = -ENOMEM;
		goto out;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		ret = -ENOMEM;
		goto out;
	}
	f->vm_tag = tag;
	f->vm_count = 1;
	rb_insert(&node->vm_files, &f->rb, parent, left);
out:
	pthread_rwlock_unlock(&node->vm_lock);
	return ret;
}

int drm_vma_node_allow(struct drm_vma_offset_node *node, struct drm_file *tag)
{
	return vma_node_allow(node, tag, true);
}

int drm_vma_node_allow_once(struct drm_vma_offset_node *node, struct drm_file *tag)
{
	return vma_node_allow(node, tag, false);
}

void drm_vma_node_revoke(struct drm_vma_offset_node *node, struct drm_file *tag)
{
	struct drm_vma_offset_file *f;
	struct rb_node *parent;
	bool left;

	pthread_rwlock_wrlock(&node->vm_lock);
	f = find_grant(node, tag, &parent, &left);
	if (f && !--f->vm_count) {
		rb_erase(&node->vm_files, &f->rb);
		free(f);
	}
	pthread_rwlock_unlock(&node->vm_lock);
}

bool drm_vma_node_is_allowed(struct drm_vma_offset_node *node, struct drm_file *tag)
{
	struct rb_node *parent;
	bool left, found;

	pthread_rwlock_rdlock(&node->vm_lock);
	found = find_grant(node, tag, &parent, &left) != NULL;
	pthread_rwlock_unlock(&node->vm_lock);
	return found;
}
