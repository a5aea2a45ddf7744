/* SPDX-License-Identifier: MIT */
/*
 * The fd-object table behind drmcore/drm_fd.h, for the object files of
 * this directory (sync_file.c, drm_syncobj.c, dma_buf.c).
 *
 * An object embeds struct drm_fd_obj. Its reference count counts: one for
 * "descriptors of its file exist" (@fd_ref), plus one per holder (a
 * lookup, an importer). The last put removes it from the table, closes
 * @keep_fd (our descriptor of the file) and calls @release, which frees
 * the embedding object.
 */
#ifndef DRM_FD_PRIV_H
#define DRM_FD_PRIV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <drmcore/drm_fd.h>

struct drm_fd_obj {
	enum drm_fd_kind kind;
	bool is_pipe;
	dev_t dev;
	ino_t ino;
	int keep_fd;
	atomic_long refcount;
	/* Protected by the table lock. */
	bool fd_ref;
	bool in_table;
	struct drm_fd_obj *next;
	void (*release)(struct drm_fd_obj *obj);
};

/**
 * drm_fd_obj_install_pipe() - give @obj a new pipe; @fd gets the read end
 * (O_CLOEXEC when @flags has it), we keep the write end. On success @obj
 * is in the table with one reference (the descriptors'). Return: 0;
 * -EMFILE/-ENFILE/-ENOMEM. On failure nothing is registered.
 */
int drm_fd_obj_install_pipe(struct drm_fd_obj *obj, enum drm_fd_kind kind, int flags, int *fd,
			    void (*release)(struct drm_fd_obj *obj));

/**
 * drm_fd_obj_install_memfd() - as above with a memfd of @size bytes; @fd
 * is opened with O_RDWR or O_RDONLY per @flags (and O_CLOEXEC).
 */
int drm_fd_obj_install_memfd(struct drm_fd_obj *obj, enum drm_fd_kind kind, uint64_t size,
			     int flags, int *fd, void (*release)(struct drm_fd_obj *obj));

/**
 * drm_fd_obj_new_fd() - one more descriptor of @obj's file (memfd objects
 * only), re-taking the descriptors' reference if it had been dropped.
 * Return: 0; -EINVAL; errors of open(2).
 */
int drm_fd_obj_new_fd(struct drm_fd_obj *obj, int flags, int *fd);

/**
 * drm_fd_obj_lookup() - the object @fd refers to, with a reference.
 * Return: the object, or NULL with *@err = -EBADF (not a descriptor) or
 * -EINVAL (not an object of @kind).
 */
struct drm_fd_obj *drm_fd_obj_lookup(int fd, enum drm_fd_kind kind, int *err);

void drm_fd_obj_get(struct drm_fd_obj *obj);
/* A reference unless the last one is already gone (lookups without one). */
bool drm_fd_obj_get_unless_zero(struct drm_fd_obj *obj);
void drm_fd_obj_put(struct drm_fd_obj *obj);

/* Sweep lazily: every 64th call wakes the reaper thread; callers call it
 * when they create an object. */
void drm_fd_gc_maybe(void);

#endif /* DRM_FD_PRIV_H */
