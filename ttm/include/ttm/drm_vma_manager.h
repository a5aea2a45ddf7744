/* SPDX-License-Identifier: MIT */
/*
 * drm_vma_manager - fake mmap offsets for buffer objects, in the shape of
 * the kernel's drm_vma_offset_manager: a driver gives each object that user
 * space may map a node of a page range in one offset space (a drm_mm
 * over it); mmap(2) of the device file at that offset finds the node again
 * (drm_vma_offset_lookup_locked()), and a per-node list of open files
 * granted access (drm_vma_node_allow()/_revoke()) decides whether the
 * caller may map it, so an offset learnt by another file does not open the
 * object.
 *
 * Offsets are in pages; drm_vma_node_offset_addr() gives the byte offset
 * user space passes to mmap(2).
 *
 * Locking: the manager's lock serialises add/remove (taken inside) with
 * lookups (the caller brackets drm_vma_offset_lookup_locked() with
 * drm_vma_offset_lock_lookup()/_unlock_lookup() and takes a reference on
 * the object it finds before unlocking). Each node's grants have their own
 * lock, taken inside the grant calls.
 */
#ifndef TTM_DRM_VMA_MANAGER_H
#define TTM_DRM_VMA_MANAGER_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <ttm/drm_mm.h>
#include <ttm/rbtree.h>

struct drm_file;

/* The kernel's offset space on 64-bit: page offsets from 4 GiB, 256 x 4 GiB of them. */
#define DRM_VMA_PAGE_SHIFT 12
#define DRM_FILE_PAGE_OFFSET_START ((0xFFFFFFFFull >> DRM_VMA_PAGE_SHIFT) + 1)
#define DRM_FILE_PAGE_OFFSET_SIZE ((0xFFFFFFFFull >> DRM_VMA_PAGE_SHIFT) * 256)

/**
 * struct drm_vma_offset_file - one file's grant on a node.
 * @rb: link in the node's tree of grants, ordered by @vm_tag.
 * @vm_tag: the file.
 * @vm_count: how many times it was granted (drm_vma_node_allow()).
 */
struct drm_vma_offset_file {
	struct rb_node rb;
	struct drm_file *vm_tag;
	unsigned long vm_count;
};

/**
 * struct drm_vma_offset_node - an object's place in the offset space;
 * embedded in the object, zeroed then drm_vma_node_init() before use.
 * @vm_lock: protects @vm_files.
 * @vm_node: the page range while the node has an offset.
 * @vm_rb: link in the manager's tree of nodes by start (lookups).
 * @vm_files: the files granted access, by tag.
 * @readonly: the object may only be mapped without PROT_WRITE (the driver checks it).
 * @driver_private: for the driver.
 */
struct drm_vma_offset_node {
	pthread_rwlock_t vm_lock;
	struct drm_mm_node vm_node;
	struct rb_node vm_rb;
	struct rb_root vm_files;
	bool readonly;
	void *driver_private;
};

/**
 * struct drm_vma_offset_manager - one offset space.
 * @vm_lock: serialises add/remove and lookups (see the file comment).
 * @vm_addr_space_mm: allocator of page ranges.
 * @vm_nodes: the nodes with an offset, ordered by start page.
 */
struct drm_vma_offset_manager {
	pthread_rwlock_t vm_lock;
	struct drm_mm vm_addr_space_mm;
	struct rb_root vm_nodes;
};

/**
 * drm_vma_offset_manager_init() - an offset space of @size pages from @page_offset.
 * @mgr: the manager.
 * @page_offset: first page offset handed out (drivers: DRM_FILE_PAGE_OFFSET_START).
 * @size: pages in the space (drivers: DRM_FILE_PAGE_OFFSET_SIZE).
 * Return: 0, -EINVAL for an empty or overflowing space.
 */
int drm_vma_offset_manager_init(struct drm_vma_offset_manager *mgr, uint64_t page_offset,
				uint64_t size);

/**
 * drm_vma_offset_manager_destroy() - release @mgr; every node must have
 * been removed (as the kernel, leftovers are reported by the allocator).
 * @mgr: the manager.
 */
void drm_vma_offset_manager_destroy(struct drm_vma_offset_manager *mgr);

/**
 * drm_vma_node_init() - make a zeroed @node usable (no offset, no grants).
 * @node: the node.
 */
void drm_vma_node_init(struct drm_vma_offset_node *node);

/**
 * drm_vma_node_fini() - release @node's grants and lock; it must have no offset.
 * @node: the node.
 */
void drm_vma_node_fini(struct drm_vma_offset_node *node);

/**
 * drm_vma_offset_add() - give @node an offset range of @pages pages, unless
 * it has one already (then nothing changes, whatever @pages).
 * @mgr: the manager.
 * @node: the node.
 * @pages: its size in pages.
 * Return: 0, -EINVAL for 0 pages, -ENOSPC when the space is full.
 */
int drm_vma_offset_add(struct drm_vma_offset_manager *mgr, struct drm_vma_offset_node *node,
		       uint64_t pages);

/**
 * drm_vma_offset_remove() - take @node's offset back (no-op without one);
 * its grants stay.
 * @mgr: the manager.
 * @node: the node.
 */
void drm_vma_offset_remove(struct drm_vma_offset_manager *mgr, struct drm_vma_offset_node *node);

/**
 * drm_vma_offset_lock_lookup() - take @mgr's lock for lookups.
 * @mgr: the manager.
 */
void drm_vma_offset_lock_lookup(struct drm_vma_offset_manager *mgr);

/**
 * drm_vma_offset_unlock_lookup() - drop what drm_vma_offset_lock_lookup() took.
 * @mgr: the manager.
 */
void drm_vma_offset_unlock_lookup(struct drm_vma_offset_manager *mgr);

/**
 * drm_vma_offset_lookup_locked() - the node whose range holds all of pages
 * [@start, @start + @pages), as an mmap(2) of that range asks.
 * @mgr: the manager, locked for lookups.
 * @start: first page offset.
 * @pages: pages mapped.
 * Return: the node, or NULL when no node spans the whole range.
 */
struct drm_vma_offset_node *drm_vma_offset_lookup_locked(struct drm_vma_offset_manager *mgr,
							 uint64_t start, uint64_t pages);

/**
 * drm_vma_offset_exact_lookup_locked() - the node that starts exactly at
 * @start and spans at least @pages.
 * @mgr: the manager, locked for lookups.
 * @start: its first page offset.
 * @pages: pages it must span.
 * Return: the node or NULL.
 */
struct drm_vma_offset_node *drm_vma_offset_exact_lookup_locked(struct drm_vma_offset_manager *mgr,
							       uint64_t start, uint64_t pages);

/**
 * drm_vma_node_allow() - grant @tag access to @node (counted: each grant
 * needs its own revoke).
 * @node: the node.
 * @tag: the file.
 * Return: 0, -ENOMEM.
 */
int drm_vma_node_allow(struct drm_vma_offset_node *node, struct drm_file *tag);

/**
 * drm_vma_node_allow_once() - grant @tag access unless it has it already
 * (the count stays 1).
 * @node: the node.
 * @tag: the file.
 * Return: 0, -ENOMEM.
 */
int drm_vma_node_allow_once(struct drm_vma_offset_node *node, struct drm_file *tag);

/**
 * drm_vma_node_revoke() - undo one grant of @tag; the last one removes its
 * access. No-op for a file without a grant.
 * @node: the node.
 * @tag: the file.
 */
void drm_vma_node_revoke(struct drm_vma_offset_node *node, struct drm_file *tag);

/**
 * drm_vma_node_is_allowed() - may @tag map @node?
 * @node: the node.
 * @tag: the file.
 * Return: true when @tag holds a grant.
 */
bool drm_vma_node_is_allowed(struct drm_vma_offset_node *node, struct drm_file *tag);

/**
 * drm_vma_node_verify_access() - the kernel's check before an mmap: 0 when
 * @tag may map @node, else -EACCES.
 * @node: the node.
 * @tag: the file.
 * Return: 0 or -EACCES.
 */
static inline int drm_vma_node_verify_access(struct drm_vma_offset_node *node, struct drm_file *tag)
{
	return drm_vma_node_is_allowed(node, tag) ? 0 : -EACCES;
}

/**
 * drm_vma_node_has_offset() - does @node hold an offset range?
 * @node: the node.
 * Return: true when it does.
 */
static inline bool drm_vma_node_has_offset(const struct drm_vma_offset_node *node)
{
	return node->vm_node.allocated;
}

/**
 * drm_vma_node_start() - @node's first page offset, 0 without an offset.
 * @node: the node.
 * Return: the page offset.
 */
static inline uint64_t drm_vma_node_start(const struct drm_vma_offset_node *node)
{
	return node->vm_node.allocated ? node->vm_node.start : 0;
}

/**
 * drm_vma_node_size() - @node's size in pages, 0 without an offset.
 * @node: the node.
 * Return: the page count.
 */
static inline uint64_t drm_vma_node_size(const struct drm_vma_offset_node *node)
{
	return node->vm_node.allocated ? node->vm_node.size : 0;
}

/**
 * drm_vma_node_offset_addr() - the byte offset user space passes to mmap(2)
 * for @node (what DRM_IOCTL_*_MMAP_OFFSET returns), 0 without an offset.
 * @node: the node.
 * Return: the byte offset.
 */
static inline uint64_t drm_vma_node_offset_addr(const struct drm_vma_offset_node *node)
{
	return drm_vma_node_start(node) << DRM_VMA_PAGE_SHIFT;
}

#endif /* TTM_DRM_VMA_MANAGER_H */
