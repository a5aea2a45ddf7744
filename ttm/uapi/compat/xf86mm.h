/* SPDX-License-Identifier: MIT */
/*
 * xf86mm.h (compatibility): the 2008 libdrm TTM API (buffer objects,
 * fences, memory managers) with its 2008 types and prototypes, implemented
 * by ttm/ttm_drm_compat.c over ttm_drm_ioctl(). Every call returns 0 or a
 * negative errno.
 */
#ifndef TTM_COMPAT_XF86MM_H
#define TTM_COMPAT_XF86MM_H

#include <stddef.h>
#include <stdint.h>

#include <drm.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The doubly linked list 2008 clients used to keep their buffers. */
typedef struct _drmMMListHead {
	struct _drmMMListHead *prev;
	struct _drmMMListHead *next;
} drmMMListHead;

#define DRMINITLISTHEAD(__item)                                                                    \
	do {                                                                                       \
		(__item)->prev = (__item);                                                         \
		(__item)->next = (__item);                                                         \
	} while (0)

#define DRMLISTADD(__item, __list)                                                                 \
	do {                                                                                       \
		(__item)->prev = (__list);                                                         \
		(__item)->next = (__list)->next;                                                   \
		(__list)->next->prev = (__item);                                                   \
		(__list)->next = (__item);                                                         \
	} while (0)

#define DRMLISTADDTAIL(__item, __list)                                                             \
	do {                                                                                       \
		(__item)->next = (__list);                                                         \
		(__item)->prev = (__list)->prev;                                                   \
		(__list)->prev->next = (__item);                                                   \
		(__list)->prev = (__item);                                                         \
	} while (0)

#define DRMLISTDEL(__item)                                                                         \
	do {                                                                                       \
		(__item)->prev->next = (__item)->next;                                             \
		(__item)->next->prev = (__item)->prev;                                             \
	} while (0)

#define DRMLISTDELINIT(__item)                                                                     \
	do {                                                                                       \
		(__item)->prev->next = (__item)->next;                                             \
		(__item)->next->prev = (__item)->prev;                                             \
		(__item)->next = (__item);                                                         \
		(__item)->prev = (__item);                                                         \
	} while (0)

#define DRMLISTENTRY(__type, __item, __field)                                                      \
	((__type *)(((char *)(__item)) - offsetof(__type, __field)))

/**
 * drmFence - a client's copy of a fence object's state, refreshed by every
 * fence call.
 */
typedef struct _drmFence {
	unsigned handle;
	int fence_class;
	unsigned type;
	unsigned flags;
	unsigned signaled;
	uint32_t sequence;
	unsigned pad[4]; /* future expansion */
} drmFence;

/**
 * drmBO - a client's copy of a buffer object's state. @virtual is the CPU
 * address while mapped (@mapCount maps); @mapHandle is what the device's
 * mmap takes.
 */
typedef struct _drmBO {
	unsigned handle;
	uint64_t mapHandle;
	uint64_t flags;
	uint64_t proposedFlags;
	unsigned mapFlags;
	unsigned long size;
	unsigned long offset;
	unsigned long start;
	unsigned replyFlags;
	unsigned fenceFlags;
	unsigned pageAlignment;
	unsigned tileInfo;
	unsigned hwTileStride;
	unsigned desiredTileStride;
	void *virtual;
	void *mapVirtual;
	int mapCount;
	unsigned pad[8]; /* future expansion */
} drmBO;

/* Fences. */
extern int drmFenceCreate(int fd, unsigned flags, int fence_class, unsigned type, drmFence *fence);
extern int drmFenceReference(int fd, unsigned handle, drmFence *fence);
extern int drmFenceUnreference(int fd, const drmFence *fence);
extern int drmFenceFlush(int fd, drmFence *fence, unsigned flush_type);
extern int drmFenceSignaled(int fd, drmFence *fence, unsigned fenceType, int *signaled);
extern int drmFenceWait(int fd, unsigned flags, drmFence *fence, unsigned flush_type);
extern int drmFenceEmit(int fd, unsigned flags, drmFence *fence, unsigned emit_type);
extern int drmFenceBuffers(int fd, unsigned flags, uint32_t fence_class, drmFence *fence);

/* Buffer objects. */
extern int drmBOCreate(int fd, unsigned long size, unsigned pageAlignment, void *user_buffer,
		       uint64_t flags, unsigned hint, drmBO *buf);
extern int drmBOReference(int fd, unsigned handle, drmBO *buf);
extern int drmBOUnreference(int fd, drmBO *buf);
extern int drmBOMap(int fd, drmBO *buf, unsigned mapFlags, unsigned mapHint, void **address);
extern int drmBOUnmap(int fd, drmBO *buf);
extern int drmBOInfo(int fd, drmBO *buf);
extern int drmBOBusy(int fd, drmBO *buf, int *busy);
extern int drmBOWaitIdle(int fd, drmBO *buf, unsigned hint);
extern int drmBOSetStatus(int fd, drmBO *buf, uint64_t flags, uint64_t mask, unsigned int hint,
			  unsigned int desired_tile_stride, unsigned int tile_info);
extern int drmBOVersion(int fd, unsigned int *major, unsigned int *minor, unsigned int *patchlevel);

/* Memory managers. */
extern int drmMMInit(int fd, unsigned long pOffset, unsigned long pSize, unsigned memType);
extern int drmMMTakedown(int fd, unsigned memType);
extern int drmMMLock(int fd, unsigned memType, int lockBM, int ignoreNoEvict);
extern int drmMMUnlock(int fd, unsigned memType, int unlockBM);
extern int drmMMInfo(int fd, unsigned memType, uint64_t *size);

#ifdef __cplusplus
}
#endif

#endif /* TTM_COMPAT_XF86MM_H */
