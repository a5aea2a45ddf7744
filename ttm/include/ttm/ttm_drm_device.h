/* SPDX-License-Identifier: MIT */
/*
 * ttm_drm_device: the device a client opens through the 2008 TTM uAPI
 * (<ttm_drm.h>): a ttm_device plus what the DRM layer of 2008 kept around
 * it: the fence classes and the driver's emit/flush hooks, the memory types
 * created by MM_INIT, one table of user objects (buffers and fences) with
 * device-wide handles, and the open files (struct ttm_drm_file, the
 * drm_file of this project) each with its own references to those objects.
 *
 * Handles follow 2008 semantics: a handle names an object device-wide; a
 * client may use a handle it created or referenced; another client's handle
 * is usable only after BO_REFERENCE / FENCE_REFERENCE, which succeeds only
 * for a SHAREABLE object. A handle the client may not see is reported as
 * -EINVAL, exactly like a handle that does not exist, so a client cannot
 * probe another client's objects. An object lives until the last reference
 * of any client goes (the underlying BO or fence may live longer, e.g. a
 * busy BO until its fences signal).
 *
 * Descriptors: ttm_drm_open() returns a small non-negative int that is a
 * real descriptor of /dev/null held for the client, so it cannot collide
 * with the process's other descriptors and a 2008 client's close() on it is
 * harmless. A process-wide table (the one piece of global state of this
 * layer, as the kernel's file table is) maps it to the file.
 *
 * Lock order: @lock of the device is taken before nothing else of the core
 * and is never held across a call into the BO core, a fence wait or a
 * driver hook (references are taken under it and dropped after it). The
 * process-wide descriptor table lock nests outside @lock.
 */
#ifndef TTM_DRM_DEVICE_H
#define TTM_DRM_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <ttm/dma_fence.h>
#include <ttm/list.h>
#include <ttm/ttm_bo.h>
#include <ttm/ttm_device.h>
#include <ttm/ttm_range_manager.h>

#define TTM_DRM_MAX_FENCE_CLASSES 8
#define TTM_DRM_NAME_LEN 32

struct ttm_bo_vm_stats;
struct ttm_drm_device;
struct ttm_drm_file;
struct ttm_drm_object;

/**
 * struct ttm_drm_idr - an integer-id table in the manner of the kernel's
 * idr: ids are handed out lowest-free-first from a range, lookup is O(1)
 * (a flat array indexed by id), an id can also be claimed explicitly (the
 * per-file tables mirror device-wide ids). Not locked: the owner locks.
 * @slots: the pointers, NULL for free ids.
 * @nslots: entries allocated in @slots.
 * @count: ids in use.
 * @hint: no free id below it (speeds up lowest-free search).
 */
struct ttm_drm_idr {
	void **slots;
	uint32_t nslots;
	uint32_t count;
	uint32_t hint;
};

/**
 * ttm_drm_idr_init() - an empty id table.
 * @idr: the table (its memory is the caller's).
 */
void ttm_drm_idr_init(struct ttm_drm_idr *idr);

/**
 * ttm_drm_idr_fini() - free the table (the pointers are the caller's).
 * @idr: the table.
 */
void ttm_drm_idr_fini(struct ttm_drm_idr *idr);

/**
 * ttm_drm_idr_alloc() - store a pointer at the lowest free id of a range.
 * @idr: the table.
 * @ptr: the pointer, not NULL.
 * @start: the lowest id allowed.
 * @end: the id past the highest allowed.
 *
 * The table has no lock of its own: its owner serializes every call.
 *
 * Return: the id; -ENOSPC when the range is full; -ENOMEM; -EINVAL for a
 * NULL @ptr or an empty range.
 */
int64_t ttm_drm_idr_alloc(struct ttm_drm_idr *idr, void *ptr, uint32_t start, uint32_t end);

/**
 * ttm_drm_idr_insert() - store a pointer at a given id.
 * @idr: the table.
 * @id: the id.
 * @ptr: the pointer, not NULL.
 *
 * Return: 0; -EEXIST when @id is used; -ENOMEM; -EINVAL for a NULL @ptr or
 * @id UINT32_MAX.
 */
int ttm_drm_idr_insert(struct ttm_drm_idr *idr, uint32_t id, void *ptr);

/**
 * ttm_drm_idr_find() - look an id up.
 * @idr: the table.
 * @id: the id.
 *
 * Return: the pointer at @id, or NULL when it is free.
 */
void *ttm_drm_idr_find(const struct ttm_drm_idr *idr, uint32_t id);

/**
 * ttm_drm_idr_remove() - free an id.
 * @idr: the table.
 * @id: the id.
 *
 * Return: the pointer it held, or NULL when it was free.
 */
void *ttm_drm_idr_remove(struct ttm_drm_idr *idr, uint32_t id);

/**
 * ttm_drm_idr_next() - the first used id at or above a given one (iteration).
 * @idr: the table.
 * @id: in: where to start; out: the used id found.
 *
 * Return: the pointer at the id found, or NULL when there is none.
 */
void *ttm_drm_idr_next(const struct ttm_drm_idr *idr, uint32_t *id);

/**
 * struct ttm_drm_driver - what the driver adds to its ttm_device for the
 * uAPI. Every hook is called without any lock of this layer held.
 */
struct ttm_drm_driver {
	/**
	 * @num_fence_classes: fence classes (timelines) the driver has,
	 * 1..TTM_DRM_MAX_FENCE_CLASSES. fence_class values at or above it
	 * are -EINVAL.
	 */
	uint32_t num_fence_classes;
	/**
	 * @fence_types: the fence type bits the driver knows (besides
	 * DRM_FENCE_TYPE_EXE, which is always valid). Other bits are -EINVAL.
	 */
	uint32_t fence_types;
	/**
	 * @fence_emit: required. Queue a fence on @fence_class after all the
	 * work submitted so far and return it (one reference for the caller),
	 * with its seqno truncated to 32 bits in *@sequence. @type is the
	 * type mask the fence covers. Return: NULL on failure (taken as
	 * -ENOMEM; nothing was queued).
	 */
	struct dma_fence *(*fence_emit)(struct ttm_drm_device *ddev, uint32_t fence_class,
					uint32_t type, uint32_t *sequence);
	/**
	 * @fence_flush: optional. Make the hardware report completion of
	 * @type on @fence_class soon (2008: flush caches, request an
	 * interrupt). May signal fences on the calling thread.
	 */
	void (*fence_flush)(struct ttm_drm_device *ddev, uint32_t fence_class, uint32_t type);
	/**
	 * @fence_type: optional. The fence types a buffer validated with
	 * @access (DRM_BO_FLAG_READ/WRITE/EXE) needs. Default:
	 * DRM_FENCE_TYPE_EXE.
	 */
	uint32_t (*fence_type)(struct ttm_drm_device *ddev, uint64_t access);
	/**
	 * @command: optional. A driver-private request (drmCommand*()):
	 * @index below DRM_COMMAND_END - DRM_COMMAND_BASE, @data of @size
	 * bytes (NULL when 0), read and written in place. Return: 0 or a
	 * negative errno. Without it, every index is -EINVAL.
	 */
	int (*command)(struct ttm_drm_file *file, unsigned index, void *data, size_t size);
	/**
	 * @cpu_visible_pages: optional. How many pages from the start of
	 * memory type @mem_type (VRAM or a PRIVn type, never TT or LOCAL)
	 * the CPU reaches, i.e. below which the driver's io_mem_reserve
	 * succeeds: 0 for memory only the GPU reaches (stolen), UINT64_MAX
	 * (or anything at or above the type's size) for all of it. With it,
	 * BO_MAP gives the buffer's faults a CPU placement, built at every
	 * fault under @mm_lock (read): the visible part of every such type,
	 * then TT, then LOCAL (types MM_LOCK holds at that fault are left
	 * out; MM_TAKEDOWN waits for the fault), so a buffer the CPU cannot reach
	 * where it is moves once, at its first fault, into the visible
	 * window when there is room, else to TT or LOCAL. Without it, such a
	 * buffer moves to LOCAL.
	 */
	uint64_t (*cpu_visible_pages)(struct ttm_drm_device *ddev, uint32_t mem_type);
	/**
	 * @mem_types: memory types (bit 1 << DRM_BO_MEM_*) whose managers the
	 * driver registered itself in @bdev (stolen memory, device-local
	 * memory): BO_CREATE and SETSTATUS may place buffers there while the
	 * manager exists, with no MM_INIT (which, like MM_TAKEDOWN and
	 * MM_LOCK, refuses them with -EINVAL: the driver owns their
	 * lifetime). LOCAL and types set up by MM_INIT need no bit.
	 */
	uint32_t mem_types;
	/**
	 * @copy_from_user: optional. Copy @n bytes from the caller's address
	 * @from to @to, as the kernel's copy_from_user(): never faulting on a
	 * bad address. Return: the bytes not copied (0 on success). Every
	 * argument struct and every array the layer and the driver read
	 * through a caller's pointer goes through it (ttm_drm_copy_from_user());
	 * a short copy is -EFAULT. NULL: the caller's pointers are trusted
	 * and read with memcpy (in-process tests of a mock driver).
	 */
	size_t (*copy_from_user)(void *to, const void *from, size_t n);
	/**
	 * @copy_to_user: optional. The same towards the caller: copy @n bytes
	 * from @from to the caller's address @to; the bytes not copied.
	 */
	size_t (*copy_to_user)(void *to, const void *from, size_t n);
};

/**
 * ttm_drm_copy_from_user() - read @n bytes at the caller's address @from
 * through @ddev's driver copy (see struct ttm_drm_driver).
 * @ddev: the device whose driver copies.
 * @to: the kernel-side buffer.
 * @from: the caller's address.
 * @n: bytes; 0 copies nothing and succeeds.
 *
 * Return: 0; -EFAULT when any byte was not readable (@to is then partly
 * written).
 */
int ttm_drm_copy_from_user(const struct ttm_drm_device *ddev, void *to, const void *from, size_t n);

/**
 * ttm_drm_copy_to_user() - write @n bytes to the caller's address @to.
 * @ddev: the device whose driver copies.
 * @to: the caller's address.
 * @from: the kernel-side buffer.
 * @n: bytes; 0 copies nothing and succeeds.
 *
 * Return: 0; -EFAULT when any byte was not writable (the bytes before it
 * may have been written).
 */
int ttm_drm_copy_to_user(const struct ttm_drm_device *ddev, void *to, const void *from, size_t n);

/**
 * struct ttm_drm_mem_type - a memory type created by MM_INIT.
 * @rman: its range manager (allocated by MM_INIT), NULL when none.
 * @p_offset: first page of the type (added to reported offsets).
 * @p_size: pages.
 * @locked: MM_LOCK is in force: validates do not place buffers here.
 */
struct ttm_drm_mem_type {
	struct ttm_range_manager *rman;
	uint64_t p_offset;
	uint64_t p_size;
	bool locked;
};

/**
 * struct ttm_drm_device - caller-embedded device for the uAPI.
 * @bdev: the memory manager device (the driver's ttm_device_funcs).
 * @driver: the uAPI hooks.
 * @name: what drmOpen() looks the device up by.
 * @link: in the process-wide device list (registered by init).
 * @mm_lock: read by every request that places buffers (BO_CREATE,
 *	SETSTATUS, MAP) and by CPU faults of mapped buffers, written by
 *	MM_INIT/TAKEDOWN/LOCK/UNLOCK, so a memory type never appears,
 *	disappears or gets locked under a validate. Outermost lock of the
 *	layer (before reservations and @lock); a fault, which holds a
 *	reservation already, only try-locks it and backs off unreserved.
 * @lock: protects @objects, @mem, @files, every file's reference table and
 *	unfenced list.
 * @objects: device-wide handles -> struct ttm_drm_object.
 * @mem: per DRM_BO_MEM_* type, what MM_INIT set up ([0] is LOCAL: fixed).
 * @files: open files.
 * @num_files: entries on @files.
 * @next_map: next map handle (an mmap-offset-like cookie per buffer).
 */
struct ttm_drm_device {
	struct ttm_device bdev;
	const struct ttm_drm_driver *driver;
	char name[TTM_DRM_NAME_LEN];
	struct list_head link;

	pthread_rwlock_t mm_lock;
	pthread_mutex_t lock;
	/* Protected by @lock. */
	struct ttm_drm_idr objects;
	struct ttm_drm_mem_type mem[TTM_NUM_MEM_TYPES];
	struct list_head files;
	unsigned long num_files;
	uint64_t next_map;
};

/** enum ttm_drm_object_type - what a user object is. */
enum ttm_drm_object_type {
	TTM_DRM_OBJECT_BO = 1,
	TTM_DRM_OBJECT_FENCE = 2,
};

/**
 * struct ttm_drm_object_ops - lifetime of a user object's container.
 * @get: take a reference on the container (BO or fence object).
 * @put: drop one; the last frees it. Never called with the device lock.
 * @removed: optional; the object left the device table (no client holds
 *	it any more): undo what only user references justified (a buffer's
 *	NO_EVICT pin), then drop the table's container reference. Default:
 *	@put. Called without the device lock.
 */
struct ttm_drm_object_ops {
	void (*get)(struct ttm_drm_object *obj);
	void (*put)(struct ttm_drm_object *obj);
	void (*removed)(struct ttm_drm_object *obj);
};

/**
 * struct ttm_drm_object - the user-visible part of a buffer or fence,
 * embedded in it. The device table holds one container reference while
 * @refs is above zero.
 * @ops: container lifetime.
 * @type: enum ttm_drm_object_type.
 * @handle: device-wide handle.
 * @shareable: other clients may reference it.
 *
 * Protected by the device's @lock:
 * @owner: the creating file, NULL once it closed.
 * @refs: references held by all files together.
 */
struct ttm_drm_object {
	const struct ttm_drm_object_ops *ops;
	uint32_t type;
	uint32_t handle;
	bool shareable;
	struct ttm_drm_file *owner;
	unsigned long refs;
};

/**
 * struct ttm_drm_ref - one file's hold on one object.
 * @obj: the object.
 * @count: usage references (create/REFERENCE add one, UNREFERENCE drops
 *	one).
 * @maps: outstanding BO_MAPs by this file (undone when the file closes).
 */
struct ttm_drm_ref {
	struct ttm_drm_object *obj;
	unsigned long count;
	unsigned long maps;
};

/**
 * struct ttm_drm_file - an open client (the drm_file of 2008).
 * @ddev: the device.
 * @fd: the descriptor number (a held /dev/null descriptor).
 * @fd_dev, @fd_ino: identity of that descriptor, checked before it is
 *	closed, in case the client closed and the number was reused.
 * @kref: references (the descriptor table's, and each ioctl in flight).
 * @link: on the device's @files.
 * @refs: handle -> struct ttm_drm_ref; protected by the device's @lock.
 * @unfenced: buffers validated without DONT_FENCE and not yet fenced
 *	(struct ttm_drm_bo.unfenced), each with a container reference;
 *	protected by the device's @lock.
 */
struct ttm_drm_file {
	struct ttm_drm_device *ddev;
	int fd;
	dev_t fd_dev;
	ino_t fd_ino;
	_Atomic long kref;
	struct list_head link;
	struct ttm_drm_idr refs;
	struct list_head unfenced;
};

/**
 * struct ttm_drm_bo - a buffer created through the uAPI.
 * @tbo: the buffer object.
 * @base: its user object.
 * @map_handle: the cookie BO_MAP reports in arg_handle.
 *
 * Protected by @tbo's reservation:
 * @flags: current DRM_BO_FLAG_* (one memory type bit).
 * @proposed_flags: the flags asked for by the last validate.
 * @fence_class, @fence_type: class and types of the next fence
 *	(from the last validate's access bits); @fence_class is written with
 *	the device's @lock held too, so the unfenced-list scan may read it
 *	under that lock alone.
 * @fence_flags: types of the last attached fence.
 * @desired_tile_stride, @tile_info: stored tiling state.
 * @mapped: BO_MAPs outstanding over all files. A mapped buffer may move:
 *	its CPU views are invalidated first and fault back in afterwards.
 * @flag_pinned: the buffer holds one pin for NO_EVICT/NO_MOVE.
 *
 * Protected by the device's @lock:
 * @unfenced: link on a file's unfenced list.
 * @unfenced_file: that file, NULL when not on a list.
 */
struct ttm_drm_bo {
	struct ttm_buffer_object tbo;
	struct ttm_drm_object base;
	uint64_t map_handle;

	uint64_t flags;
	uint64_t proposed_flags;
	uint32_t fence_class;
	uint32_t fence_type;
	uint32_t fence_flags;
	uint32_t desired_tile_stride;
	uint32_t tile_info;
	unsigned long mapped;
	bool flag_pinned;
	/* Protected by the device's @lock: the ttm_bo_vm address, NULL before the first map. */
	void *cpu_addr;

	struct list_head unfenced;
	struct ttm_drm_file *unfenced_file;
};

/**
 * struct ttm_drm_fence - a fence object.
 * @base: its user object.
 * @refcount: container references.
 * @lock: protects the fields below.
 * @fence: the emitted dma_fence, NULL until emitted.
 * @fence_class, @type, @flags, @sequence: as emitted.
 */
struct ttm_drm_fence {
	struct ttm_drm_object base;
	_Atomic long refcount;
	pthread_mutex_t lock;
	struct dma_fence *fence;
	uint32_t fence_class;
	uint32_t type;
	uint32_t flags;
	uint32_t sequence;
};

/**
 * ttm_drm_device_init() - ttm_device_init() @ddev->bdev with @funcs, set up
 * the uAPI state and register the device under @name for drmOpen().
 * @ddev: the device (its memory is the driver's).
 * @funcs: the TTM callbacks, passed to ttm_device_init().
 * @driver: the uAPI hooks; must outlive the device.
 * @name: the name drmOpen() finds the device by.
 * @use_dma32: passed to ttm_device_init().
 *
 * Return: 0; -EINVAL (NULL arguments, no fence_emit, bad fence class
 * count, empty or too long @name); -EEXIST (@name taken); errors of
 * ttm_device_init(). Nothing is left behind on failure.
 */
int ttm_drm_device_init(struct ttm_drm_device *ddev, const struct ttm_device_funcs *funcs,
			const struct ttm_drm_driver *driver, const char *name, bool use_dma32);

/**
 * ttm_drm_device_fini() - unregister and tear down: takes down the memory
 * types MM_INIT created, then ttm_device_fini().
 * @ddev: the device.
 *
 * Return: 0; -EBUSY while files are open or buffers alive (nothing torn down).
 */
int ttm_drm_device_fini(struct ttm_drm_device *ddev);

/**
 * ttm_drm_open() - open a client of a device.
 * @ddev: the device.
 *
 * Return: the descriptor, or -errno.
 */
int ttm_drm_open(struct ttm_drm_device *ddev);

/**
 * ttm_drm_open_by_name() - ttm_drm_open() for the device registered under a name.
 * @name: the name given to ttm_drm_device_init().
 *
 * Return: the descriptor; -ENODEV when no device has that name; -errno.
 */
int ttm_drm_open_by_name(const char *name);
/**
 * ttm_drm_close() - close @fd: every map, reference and unfenced entry of
 * the client is dropped (objects only it referenced go away). Calls in
 * flight on other threads finish first.
 * @fd: the descriptor.
 *
 * Return: 0; -EBADF.
 */
int ttm_drm_close(int fd);

/**
 * ttm_drm_ioctl() - the one entry point: @request is a DRM_IOCTL_* number
 * (or a driver command, DRM_COMMAND_BASE..END), @arg its argument struct,
 * copied in (the size and direction the request encodes) before the
 * request runs and copied back after it, as the kernel's drm_ioctl() does.
 * Every field is checked before anything changes.
 * @fd: the client's descriptor.
 * @request: the request number.
 * @arg: the caller's argument struct.
 *
 * Return: 0; -EBADF (not
 * an open descriptor); -EFAULT (@arg, or a pointer inside it, is not
 * readable or writable);
 * -ENOTTY (unknown request or size); -EINVAL (bad field, bad or invisible
 * handle); -ENOMEM/-ENOSPC; -EBUSY (DONT_BLOCK, pinned or locked
 * placements); -EPERM; as documented per request in ttm_drm_ioctl.c.
 */
int ttm_drm_ioctl(int fd, unsigned long request, void *arg);

/**
 * ttm_drm_mmap() - the CPU address of the buffer whose map handle (BO_MAP
 * arg_handle) is @map_handle, for @size bytes, as mmap() on the device
 * would give: the buffer's ttm_bo_vm range, the same for every client of
 * the process. The client must hold a BO_MAP on it; the address stays
 * valid while the buffer lives (accesses after the last unmap fault the
 * content in again).
 * @fd: the client's descriptor.
 * @map_handle: the map handle BO_MAP reported.
 * @size: bytes, at most the buffer's size.
 * @err: out: 0, or the error when NULL is returned.
 *
 * Return: the address, or NULL with *@err set: -EINVAL (unknown handle,
 * zero or too large size, not mapped by this client); -EBADF.
 */
void *ttm_drm_mmap(int fd, uint64_t map_handle, uint64_t size, int *err);

/**
 * ttm_drm_info_print() - the text form of MM_INFO: ttm_device_print() of
 * the device, then the uAPI's own state (memory types, open clients,
 * objects, per-client handle counts).
 * @fd: a client's descriptor.
 * @f: the stream written to.
 *
 * Return: 0; -EBADF.
 */
int ttm_drm_info_print(int fd, FILE *f);

/*
 * Object table, for the ioctl code and drivers' private requests. All take
 * the device lock themselves.
 */

/**
 * ttm_drm_object_add() - give @obj (ops/type/shareable filled, one
 * container reference transferred to the table) a handle and one usage
 * reference of @file.
 * @file: the client.
 * @obj: the object.
 *
 * Return: 0; -ENOMEM/-ENOSPC (the reference is not taken: the caller still
 * owns it).
 */
int ttm_drm_object_add(struct ttm_drm_file *file, struct ttm_drm_object *obj);

/**
 * ttm_drm_object_lookup() - the object @handle of @type that @file may use
 * (created or referenced by it), with a container reference for the
 * caller.
 * @file: the client.
 * @handle: the handle.
 * @type: the object type expected (TTM_DRM_OBJECT_*).
 *
 * Return: the object or NULL (-EINVAL for the caller).
 */
struct ttm_drm_object *ttm_drm_object_lookup(struct ttm_drm_file *file, uint32_t handle,
					     uint32_t type);

/**
 * ttm_drm_object_reference() - add a usage reference of @file to @handle:
 * allowed for the owner, for a file that holds one, and for any file of
 * the device when the object is shareable. Returns with a container
 * reference in *@out.
 * @file: the client.
 * @handle: the handle.
 * @type: the object type expected.
 * @out: out: the object.
 *
 * Return: 0; -EINVAL.
 */
int ttm_drm_object_reference(struct ttm_drm_file *file, uint32_t handle, uint32_t type,
			     struct ttm_drm_object **out);

/**
 * ttm_drm_object_unreference() - drop one usage reference of @file to
 * @handle. The file's entry stays while it still maps the buffer (so it
 * can unmap it); the last entry of all files frees the handle.
 * @file: the client.
 * @handle: the handle.
 * @type: the object type expected.
 *
 * Return: 0; -EINVAL.
 */
int ttm_drm_object_unreference(struct ttm_drm_file *file, uint32_t handle, uint32_t type);

/** ttm_drm_object_removed() - see ttm_drm_object_ops.removed. */
static inline void ttm_drm_object_removed(struct ttm_drm_object *obj)
{
	if (obj->ops->removed)
		obj->ops->removed(obj);
	else
		obj->ops->put(obj);
}

/** ttm_drm_object_put() - drop a container reference from lookup/reference. */
static inline void ttm_drm_object_put(struct ttm_drm_object *obj)
{
	obj->ops->put(obj);
}

/**
 * ttm_drm_fence_alloc() - a fence object not yet emitted nor added, as
 * FENCE_CREATE makes one; a driver that emits fences itself (execbuffer)
 * sets @fence and @sequence before ttm_drm_object_add().
 * @fence_class: the fence class.
 * @type: the fence type mask.
 * @flags: stored as given (the caller strips EMIT/NO_USER if they must not
 * be reported); DRM_FENCE_FLAG_SHAREABLE makes the object shareable.
 * Drop it with ttm_drm_object_put(&f->base), which also puts @fence.
 * Return: the object with one container reference; NULL on -ENOMEM.
 */
struct ttm_drm_fence *ttm_drm_fence_alloc(uint32_t fence_class, uint32_t type, uint32_t flags);

/**
 * ttm_drm_bo_map_stats() - the CPU-mapping counters of buffer @handle as
 * client @fd may use it: faults, pages installed, and the migrations
 * faults did (moves to CPU-reachable memory) with their bytes. For tests
 * and tools; reserves the buffer (blocking), so not from a thread that
 * holds its reservation.
 * @fd: the client's descriptor.
 * @handle: the buffer's handle.
 * @st: out: the counters.
 *
 * Return: 0; -EBADF; -EINVAL (@st NULL, handle not usable by the client);
 * -ENOENT (never mapped).
 */
int ttm_drm_bo_map_stats(int fd, uint32_t handle, struct ttm_bo_vm_stats *st);

/**
 * ttm_drm_file_get_fd() - the client behind a descriptor.
 * @fd: the descriptor.
 *
 * Return: the open file with a reference; NULL when @fd is not one.
 */
struct ttm_drm_file *ttm_drm_file_get_fd(int fd);

/**
 * ttm_drm_file_put() - drop a reference from ttm_drm_file_get_fd().
 * @file: the file.
 */
void ttm_drm_file_put(struct ttm_drm_file *file);

/** to_ttm_drm_bo() - the uAPI buffer of a user object of type BO. */
static inline struct ttm_drm_bo *to_ttm_drm_bo(struct ttm_drm_object *obj)
{
	return container_of(obj, struct ttm_drm_bo, base);
}

/** to_ttm_drm_fence() - the fence object of a user object of type FENCE. */
static inline struct ttm_drm_fence *to_ttm_drm_fence(struct ttm_drm_object *obj)
{
	return container_of(obj, struct ttm_drm_fence, base);
}

/** to_ttm_drm_device() - the uAPI device embedding @bdev. */
static inline struct ttm_drm_device *to_ttm_drm_device(struct ttm_device *bdev)
{
	return container_of(bdev, struct ttm_drm_device, bdev);
}

#endif /* TTM_DRM_DEVICE_H */
