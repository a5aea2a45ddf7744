/* SPDX-License-Identifier: MIT */
/*
 * gem_priv: the GEM uAPI's own state, shared between the files of
 * i915/gem/; not installed.
 *
 * A GEM object (struct gem_obj) wraps one i915_gem_object (a TTM BO) with
 * what the uAPI adds: its flink name, tiling, caching, madvise state, the
 * regions it may live in and its mmap offsets. Handles, flink names and
 * CPU mappings each hold a reference of the gem_obj; the gem_obj holds one
 * reference of the BO.
 *
 * Lock order: a file's @lock, then the device's @lock; neither is held
 * across a BO reservation, a fence wait or a call into execbuffer
 * (references are taken under them and used after).
 */
#ifndef I915_GEM_PRIV_H
#define I915_GEM_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ttm/list.h>
#include <ttm/ttm_drm_device.h>

#include <drm.h>
#include <i915_drm.h>

/*
 * The driver core spells a few uAPI names itself, with the same values;
 * its definitions win so both headers can be used together.
 */
#undef EXEC_OBJECT_WRITE
#undef EXEC_OBJECT_PINNED
#undef EXEC_OBJECT_SUPPORTS_48B_ADDRESS
#undef I915_EXEC_RENDER
#undef I915_EXEC_BLT
#undef I915_EXEC_RING_MASK
#undef I915_EXEC_NO_RELOC
#undef I915_EXEC_HANDLE_LUT
#undef I915_EXEC_BATCH_FIRST
#undef I915_GEM_DOMAIN_RENDER
#undef I915_GEM_DOMAIN_INSTRUCTION
#undef I915_GEM_DOMAIN_GTT

#include <i915/i915_gem.h>
#include <i915/i915_gem_uapi.h>

#include <drmcore/dma_buf.h>
#include <drmcore/drm_file.h>
#include <drmcore/drm_prime.h>
#include <drmcore/drm_syncobj.h>
#include <drmcore/sync_file.h>

/* Newer than some libdrm headers; the values are the kernel's uAPI. */
#ifndef I915_PARAM_OA_TIMESTAMP_FREQUENCY
#define I915_PARAM_OA_TIMESTAMP_FREQUENCY 57
#endif
#ifndef I915_PARAM_PXP_STATUS
#define I915_PARAM_PXP_STATUS 58
#endif
#ifndef I915_PARAM_HAS_CONTEXT_FREQ_HINT
#define I915_PARAM_HAS_CONTEXT_FREQ_HINT 59
#endif
#ifndef I915_GEM_CREATE_EXT_SET_PAT
#define I915_GEM_CREATE_EXT_SET_PAT 2
#endif
#ifndef DRM_I915_QUERY_GUC_SUBMISSION_VERSION
#define DRM_I915_QUERY_GUC_SUBMISSION_VERSION 7
#endif

/*
 * What the scheduler offers (I915_PARAM_HAS_SCHEDULER): as the kernel's execlists
 * scheduler it has contexts with priorities; the simulated engines cannot preempt a
 * running batch, wait on semaphores or count busy time, so those caps (which the
 * kernel grants only when every engine has the feature) are not offered.
 */
#define GEM_SCHEDULER_CAPS (I915_SCHEDULER_CAP_ENABLED | I915_SCHEDULER_CAP_PRIORITY)

/**
 * struct gem_profile_info - a profile's capabilities beyond its PCI view.
 * @pub: what i915_gem_device_profile() returns.
 * @graphics_ver_full: GRAPHICS_VER_FULL (1200 for 12.0, 1255 for 12.55).
 * @has_llc: the CPU's last-level cache is shared with the GPU.
 * @has_aperture: a mappable GGTT aperture (GTT mmaps, MMAP_GTT).
 * @has_relocs: execbuffer accepts relocations (below 12.50).
 * @eu_total: EUs.
 * @subslice_total: subslices (dual-subslices on gen12).
 * @lmem_size: device-local memory, 0 for none.
 * @lmem_visible_size: CPU-visible part of it.
 */
struct gem_profile_info {
	struct i915_gem_profile pub;
	unsigned int graphics_ver_full;
	bool has_llc;
	bool has_aperture;
	bool has_relocs;
	unsigned int eu_total;
	unsigned int subslice_total;
	uint64_t lmem_size;
	uint64_t lmem_visible_size;
	uint32_t engine_mask;
};

/* The kernel's enum i915_mmap_type: one fake offset per object and type. */
enum gem_mmap_type {
	GEM_MMAP_GTT,
	GEM_MMAP_WC,
	GEM_MMAP_WB,
	GEM_MMAP_UC,
	GEM_MMAP_FIXED,
	GEM_MMAP_NTYPES,
};

#define GEM_MAX_FILES_GRANT 64
#define GEM_THROTTLE_SLOTS 32
#define GEM_THROTTLE_NS 20000000ll

struct gem_obj;

/**
 * struct gem_mmo - one mmap offset of an object (the kernel's
 * i915_mmap_offset): a range of the device's fake offset space, and the
 * files that were told it (drm_vma_node_allow()).
 * @obj: the object (no reference: the object owns its mmos).
 * @type: the mmap type.
 * @offset: the fake offset, page aligned.
 * @hlink: in the device's offset hash.
 * @grants: ids of the files allowed to map it; @ngrants used.
 */
struct gem_mmo {
	struct gem_obj *obj;
	enum gem_mmap_type type;
	uint64_t offset;
	struct list_head hlink;
	uint32_t *grants;
	uint32_t ngrants;
};

/**
 * struct gem_obj - a GEM object.
 * @refcount: references (handles, names, mappings, calls in flight).
 * @bo: the driver's object, one reference.
 * @dev: the device.
 * @size: bytes.
 * @regions: the placements from GEM_CREATE_EXT (I915_MEMORY_CLASS_* <<
 *	16 | instance), @nregions of them; SMEM only when not given.
 *
 * Protected by the device's @lock:
 * @name: flink name, 0 when none.
 * @handle_count: handles naming it in all files.
 * @mmo: its mmap offsets, NULL for types not created yet.
 * @tiling_mode, @stride: SET_TILING state.
 * @caching: I915_CACHING_*.
 * @madv: I915_MADV_WILLNEED, I915_MADV_DONTNEED or __I915_MADV_PURGED.
 * @read_domains, @write_domain: SET_DOMAIN state.
 * @pat_index: from I915_GEM_CREATE_EXT_SET_PAT, -1 when not set.
 * @pending: the fence of the last batch using it that was queued behind
 *	fences (a reference), NULL when none; @pending_class its engine
 *	class, @pending_write whether it writes the object.
 */
struct gem_obj {
	atomic_int refcount;
	struct i915_gem_object *bo;
	struct i915_gem_dev *dev;
	uint64_t size;
	uint32_t regions[4];
	uint32_t nregions;

	uint32_t name;
	uint32_t handle_count;
	struct gem_mmo *mmo[GEM_MMAP_NTYPES];
	uint32_t tiling_mode;
	uint32_t stride;
	uint32_t caching;
	uint32_t madv;
	uint32_t read_domains;
	uint32_t write_domain;
	int pat_index;
	struct dma_fence *pending;
	uint16_t pending_class;
	bool pending_write;
};

/**
 * struct gem_ctx - a GEM context of a file.
 * @hw: the driver's context (one reference).
 * @priority, @bannable, @recoverable, @persistent: CONTEXT_SETPARAM state.
 * @nengines: 0 for the legacy ring map, else entries in @engines: each a
 *	mask of physical engines (1 << enum i915_engine_id): one bit for a
 *	physical slot, the siblings of a load-balanced one, 0 for an invalid
 *	slot; @engine_last the sibling a balanced slot used last.
 * @pending: the fence of its last batch queued behind fences (a
 *	reference, protected by the file's @lock), NULL when none.
 */
struct gem_ctx {
	struct i915_context *hw;
	int64_t priority;
	bool bannable;
	bool recoverable;
	bool persistent;
	uint32_t nengines;
	uint16_t engines[64];
	uint8_t engine_last[64];
	struct dma_fence *pending;
};

/**
 * struct i915_gem_file - a drm_file.
 * @drm: the core's part: syncobj handles and the PRIME table.
 * @dev: the device.
 * @id: a device-unique id (mmap grants name files by it).
 * @render: opened through the render node.
 * @link: in the device's @files.
 * @lock: protects the tables below.
 * @handles: handle -> struct gem_obj (a reference each); ids from 1.
 * @contexts: id -> struct gem_ctx; 0 is the default context.
 * @vms: id -> struct i915_address_space (a reference each); ids from 1.
 * @authenticated: a master accepted its magic (AUTH_MAGIC).
 * @was_master: it has been the master: SET_MASTER needs no root then.
 * @recent, @recent_ns, @recent_next: its last batches' fences and
 *	submission times, for THROTTLE.
 * @bsd_engine: the video engine (uAPI instance) its I915_EXEC_BSD batches
 *	use, chosen at the first one; -1 before (gen8_dispatch_bsd_engine()).
 * @past_runtime: per uAPI engine class, the run time of its destroyed
 *	contexts (fdinfo drm-engine-<class>); protected by @lock.
 */
struct i915_gem_file {
	struct drm_file drm;
	struct i915_gem_dev *dev;
	uint32_t id;
	bool render;
	struct list_head link;
	pthread_mutex_t lock;
	struct ttm_drm_idr handles;
	struct ttm_drm_idr contexts;
	struct ttm_drm_idr vms;
	bool authenticated;
	bool was_master;
	/* Protected by @lock: the last execbuffers, for THROTTLE. */
	struct dma_fence *recent[GEM_THROTTLE_SLOTS];
	int64_t recent_ns[GEM_THROTTLE_SLOTS];
	unsigned int recent_next;
	uint64_t past_runtime[I915_ENGINE_CLASS_COMPUTE + 1];
	int bsd_engine;
};

/**
 * struct gem_uabi_engine - an engine of the device in uAPI terms.
 * @class: I915_ENGINE_CLASS_*.
 * @instance: its uAPI instance (present engines of the class, densely).
 * @id: the physical engine.
 */
struct gem_uabi_engine {
	uint16_t class;
	uint16_t instance;
	enum i915_engine_id id;
};

#define GEM_MMO_HASH 256

/**
 * struct i915_gem_dev - the uAPI side of a device.
 * @i915: the device.
 * @info: its profile.
 * @prime_lock: serialises looking up and creating an object's dma-buf.
 * @lock: protects everything below.
 * @files: open files.
 * @next_file_id: file id allocator.
 * @names: flink name -> struct gem_obj (a reference each); ids from 1.
 * @mmo_hash: the mmap offsets, hashed by offset.
 * @next_offset: fake offset allocator (bump, never reused).
 * @wedged: the GPU was declared wedged through debugfs.
 * @param_reset, @param_hangcheck, @param_lmem_mib: module options.
 * @lmem_size, @lmem_visible_size: the local memory probed (the profile's,
 *	or less with lmem_size=).
 * @proxy_context: the timeline of the fences of queued batches.
 * @proxy_seqno: their seqno allocator; atomic.
 * @async_jobs: batches queued behind fences, not submitted yet;
 *	@async_cond wakes a destroy waiting for them to reach 0.
 * @engines: the present engines in uAPI order (class, then instance),
 *	@num_engines of them; fixed after probe.
 * @next_bsd: which video engine the next file's I915_EXEC_BSD goes to.
 * @debugfs: the names of i915_gem_debugfs_files().
 */
struct i915_gem_dev {
	struct i915_device *i915;
	const struct gem_profile_info *info;
	pthread_mutex_t lock;
	pthread_mutex_t prime_lock;
	struct list_head files;
	uint32_t next_file_id;
	struct ttm_drm_idr names;
	struct list_head mmo_hash[GEM_MMO_HASH];
	uint64_t next_offset;
	uint32_t master_id;
	bool wedged;
	uint64_t reset_count;
	int param_reset;
	bool param_hangcheck;
	uint64_t param_lmem_mib;
	uint64_t lmem_size;
	uint64_t lmem_visible_size;
	uint64_t proxy_context;
	atomic_ullong proxy_seqno;
	unsigned int async_jobs;
	pthread_cond_t async_cond;
	struct gem_uabi_engine engines[I915_NUM_ENGINES];
	unsigned int num_engines;
	atomic_uint next_bsd;
};

/* --- fault points (gem_faults.c): the fault sweep fails every hit --- */

#include <fault_inject.h>

/* "gem_obj_alloc": the uAPI's part of a new object; the create says -ENOMEM, no handle. */
extern struct fault_attr gem_fault_obj_alloc;
/* "gem_ctx_alloc": a GEM context; CONTEXT_CREATE (or the open) says -ENOMEM, no id used. */
extern struct fault_attr gem_fault_ctx_alloc;
/* "gem_mmo_alloc": an mmap offset or its grant; MMAP_OFFSET says -ENOMEM. */
extern struct fault_attr gem_fault_mmo_alloc;
/* "gem_file_alloc": a file; i915_gem_file_open() says -ENOMEM. */
extern struct fault_attr gem_fault_file_alloc;
/* "gem_eb_alloc": EXECBUFFER2's lists, fences and queue; -ENOMEM, nothing runs. */
extern struct fault_attr gem_fault_eb_alloc;
/*
 * "gem_buf_alloc": a bounce buffer, an ioctl's argument copy, a CPU mapping's record or
 * the device itself; the call says -ENOMEM (a debugfs file reads short).
 */
extern struct fault_attr gem_fault_buf_alloc;

/* --- user memory (gem_uaccess.c) --- */

/**
 * gem_copy_from_user() - copy @len bytes at user address @src into @dst.
 * Return: 0; -EFAULT when any byte of the source is not readable.
 */
int gem_copy_from_user(void *dst, uint64_t src, size_t len);

/**
 * gem_copy_to_user() - copy @len bytes of @src to user address @dst.
 * Return: 0; -EFAULT when any byte of the destination is not writable.
 */
int gem_copy_to_user(uint64_t dst, const void *src, size_t len);
/**
 * gem_caller_is_root() - whether the process whose call this thread serves
 * has effective uid 0 (i915_gem_set_caller_euid(), else this process), as
 * the kernel checks the calling task's credentials.
 */
bool gem_caller_is_root(void);

/* The kernel's check_user_mbz(): -EFAULT unreadable, -EINVAL non-zero. */
int gem_check_user_mbz64(uint64_t uptr);
int gem_check_user_mbz32(uint64_t uptr);

/**
 * gem_user_extensions() - walk a chain of struct i915_user_extension as
 * i915_user_extensions() does: at most 512 links (-E2BIG), flags and rsvd
 * must be zero, @tbl[name] handles each (unknown names -EINVAL).
 */
typedef int (*gem_ext_fn)(uint64_t ext, void *data);
int gem_user_extensions(uint64_t ext, const gem_ext_fn *tbl, unsigned int count, void *data);

/* --- objects (gem_object.c) --- */

/**
 * gem_file_collect_objects() - append @file's objects, a reference each, to
 * the growing array *@v of *@n entries and *@cap slots.
 * @file: the file whose handles are walked (its lock is taken).
 * @v: the array, reallocated as it grows; NULL with *@cap 0 to start one.
 * @n: entries in use.
 * @cap: slots allocated.
 *
 * Return: 0; -ENOMEM when the array could not grow (what fit is kept).
 */
int gem_file_collect_objects(struct i915_gem_file *file, struct gem_obj ***v, size_t *n,
			     size_t *cap);
struct gem_obj *gem_obj_get(struct gem_obj *obj);
void gem_obj_put(struct gem_obj *obj);

/**
 * gem_obj_create() - a new object of @size bytes (already page rounded)
 * preferring region @region. Return: 0 with one reference; errors of
 * i915_gem_object_create().
 */
int gem_obj_create(struct i915_gem_dev *dev, uint64_t size, enum i915_gem_region region,
		   struct gem_obj **out);

/** gem_handle_create() - a new handle of @file for @obj (lowest free). */
int gem_handle_create(struct i915_gem_file *file, struct gem_obj *obj, uint32_t *handle);

/** gem_lookup() - @handle's object with a reference, NULL when none. */
struct gem_obj *gem_lookup(struct i915_gem_file *file, uint32_t handle);

/** gem_obj_busy() - the object has unsignalled fences of @usage or below. */
bool gem_obj_busy(struct gem_obj *obj, enum dma_resv_usage usage);

/* Internal calls between the files. */
int gem_handle_delete(struct i915_gem_file *file, uint32_t handle);
int gem_mmo_attach(struct i915_gem_file *file, struct gem_obj *obj, enum gem_mmap_type type,
		   __u64 *offset);
void gem_mmo_free_all(struct gem_obj *obj);
int gem_map_object(struct i915_gem_dev *dev, struct gem_obj *obj, uint64_t delta, size_t len,
		   void *hint, int flags, void **addr);
bool gem_obj_try_purge(struct gem_obj *obj);
bool gem_obj_has_pages(struct gem_obj *obj);
/* Queued batches: remember one on an object / context, get it while unsignalled. */
void gem_obj_set_pending(struct gem_obj *obj, struct dma_fence *fence, uint16_t engine_class,
			 bool write);
struct dma_fence *gem_obj_pending_get(struct gem_obj *obj);
void gem_context_set_pending(struct i915_gem_file *file, uint32_t id, struct dma_fence *fence);
struct dma_fence *gem_context_pending_get(struct i915_gem_file *file, uint32_t id);
/* Wait up to @timeout_ms for every queued batch to be submitted: 0 or -ETIMEDOUT. */
int gem_async_wait(struct i915_gem_dev *dev, uint32_t timeout_ms);

/* --- ioctl handlers --- */

typedef int (*gem_ioctl_fn)(struct i915_gem_file *file, void *data);

int gem_create_ioctl(struct i915_gem_file *file, void *data);
int gem_create_ext_ioctl(struct i915_gem_file *file, void *data);
int gem_close_ioctl(struct i915_gem_file *file, void *data);
int gem_flink_ioctl(struct i915_gem_file *file, void *data);
int gem_open_ioctl(struct i915_gem_file *file, void *data);
int gem_mmap_offset_ioctl(struct i915_gem_file *file, void *data);
int gem_mmap_ioctl(struct i915_gem_file *file, void *data);
int gem_pread_ioctl(struct i915_gem_file *file, void *data);
int gem_pwrite_ioctl(struct i915_gem_file *file, void *data);
int gem_set_domain_ioctl(struct i915_gem_file *file, void *data);
int gem_sw_finish_ioctl(struct i915_gem_file *file, void *data);
int gem_busy_ioctl(struct i915_gem_file *file, void *data);
int gem_wait_ioctl(struct i915_gem_file *file, void *data);
int gem_madvise_ioctl(struct i915_gem_file *file, void *data);
int gem_set_tiling_ioctl(struct i915_gem_file *file, void *data);
int gem_get_tiling_ioctl(struct i915_gem_file *file, void *data);
int gem_set_caching_ioctl(struct i915_gem_file *file, void *data);
int gem_get_caching_ioctl(struct i915_gem_file *file, void *data);
int gem_get_aperture_ioctl(struct i915_gem_file *file, void *data);
int gem_throttle_ioctl(struct i915_gem_file *file, void *data);
int gem_userptr_ioctl(struct i915_gem_file *file, void *data);
int gem_prime_handle_to_fd_ioctl(struct i915_gem_file *file, void *data);
int gem_prime_fd_to_handle_ioctl(struct i915_gem_file *file, void *data);

int gem_getparam_ioctl(struct i915_gem_file *file, void *data);
int gem_query_ioctl(struct i915_gem_file *file, void *data);
int gem_reg_read_ioctl(struct i915_gem_file *file, void *data);

int gem_context_create_ioctl(struct i915_gem_file *file, void *data);
int gem_context_destroy_ioctl(struct i915_gem_file *file, void *data);
int gem_context_getparam_ioctl(struct i915_gem_file *file, void *data);
int gem_context_setparam_ioctl(struct i915_gem_file *file, void *data);
int gem_get_reset_stats_ioctl(struct i915_gem_file *file, void *data);
int gem_vm_create_ioctl(struct i915_gem_file *file, void *data);
int gem_vm_destroy_ioctl(struct i915_gem_file *file, void *data);

int gem_execbuffer2_ioctl(struct i915_gem_file *file, void *data);

/* --- contexts (gem_context.c) --- */

/** gem_context_default() - create the file's context 0. */
int gem_context_open(struct i915_gem_file *file);
/** gem_context_close_all() - drop every context and VM of @file. */
void gem_context_close_all(struct i915_gem_file *file);
/** gem_context_lookup() - context @id of @file with a hw reference, or NULL. */
struct i915_context *gem_context_lookup(struct i915_gem_file *file, uint32_t id,
					struct gem_ctx *snapshot);

/* The engine @class:@instance of the device, or NULL (intel_engine_lookup_user()). */
const struct gem_uabi_engine *gem_engine_lookup(const struct i915_gem_dev *dev, uint16_t class,
						uint16_t instance);
/* Present engines of @class. */
uint32_t gem_engines_of_class(const struct i915_gem_dev *dev, uint16_t class);
/*
 * The engine of slot @idx of context @ctx_id of @file: a physical one, or
 * for a load-balanced slot the sibling its last batch went to while that
 * one is busy (a slot is one timeline), else the least loaded sibling.
 * Return: 0 with *@id; -EINVAL for an empty slot, -ENOENT without context.
 */
int gem_context_slot_engine(struct i915_gem_file *file, uint32_t ctx_id, uint32_t idx,
			    enum i915_engine_id *id);

#endif /* I915_GEM_PRIV_H */
