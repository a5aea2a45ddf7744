/* SPDX-License-Identifier: MIT */
/*
 * hw_gpu - a real Intel GPU through the i915 kernel uAPI (libdrm).
 *
 * This is the "hw" back end of the i915 driver: where the simulator models
 * a GGTT, rings and a command streamer, this library hands the same work to
 * the kernel's i915 driver on a render node:
 *  - discovery: the first render node whose DRM driver is "i915", or the one
 *    named by --device / TTM_HW_DEVICE (hw_device_select());
 *  - chip parameters (CHIPSET_ID, HAS_EXEC_SOFTPIN, HAS_EXEC_FENCE), the
 *    GGTT aperture (GET_APERTURE) and the memory regions (QUERY_MEMORY_REGIONS,
 *    device-local memory on discrete parts);
 *  - contexts, each with a ppGTT of its own (VM_CREATE + CONTEXT_CREATE_EXT),
 *    whose address space the caller's range manager owns: every object is
 *    submitted softpinned (EXEC_OBJECT_PINNED) at the address the caller
 *    chose, never relocated, so the placement decisions TTM makes are the
 *    ones the GPU sees;
 *  - GEM objects (GEM_CREATE / GEM_CREATE_EXT with regions), CPU maps
 *    (GEM_MMAP_OFFSET WB/WC/FIXED), GEM_CLOSE, GEM_WAIT;
 *  - execbuffer2 with an out-fence (I915_EXEC_FENCE_OUT): the sync_file it
 *    returns becomes a struct dma_fence that a waiter thread signals (with
 *    the sync_file's error status, if any) when the fd polls readable.
 *
 * Every kernel call goes through one table, struct hw_sys_ops (hw_sys.h):
 * the library's default is libdrm and the real syscalls; unit tests pass a
 * recording fake instead and check the exact ioctl sequence.
 *
 * Errors: every function returns 0 (or a count) or a negative errno, the
 * kernel's own where it came from the kernel. Those that mean "this machine
 * cannot run the hw back end" (hw_err_is_skip()) make programs exit 77:
 * -ENODEV (no Intel render node, not i915), -EOPNOTSUPP (a needed kernel
 * feature is missing: the open reason names it), -EACCES (no permission on
 * the node). -EIO from execbuffer means the GPU is wedged: the device
 * remembers it (hw_gpu_is_wedged()) and later submissions fail fast.
 *
 * Threads: a struct hw_gpu may be used from several threads at once (the
 * kernel serialises what needs serialising); one struct hw_bo or
 * hw_context must not be initialised, mapped or finalised concurrently
 * with other use of the same object. hw_gpu_close() must not race with
 * anything.
 */
#ifndef I915_HW_GPU_H
#define I915_HW_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ttm/dma_fence.h>

#include "hw_sys.h"

struct hw_gpu;

/* Environment variable naming the render node to use (like --device). */
#define HW_DEVICE_ENV "TTM_HW_DEVICE"
/* Memory regions kept from the query (system + a few device-local). */
#define HW_MAX_REGIONS 8

/* Memory classes, the values of enum drm_i915_gem_memory_class. */
#define HW_MEMORY_CLASS_SYSTEM 0u
#define HW_MEMORY_CLASS_DEVICE 1u

/**
 * struct hw_region_id - a memory region as the kernel names it.
 * @mclass: HW_MEMORY_CLASS_*.
 * @instance: instance within the class (0 for system memory).
 */
struct hw_region_id {
	uint16_t mclass;
	uint16_t instance;
};

/**
 * struct hw_region - one memory region from DRM_I915_QUERY_MEMORY_REGIONS.
 * @id: class and instance.
 * @probed_size: total bytes.
 * @unallocated_size: free bytes at query time (the kernel may report
 *	@probed_size to unprivileged clients).
 * @cpu_visible_size: bytes reachable by CPU maps (the small BAR on
 *	discrete parts; @probed_size for system memory or older kernels).
 */
struct hw_region {
	struct hw_region_id id;
	uint64_t probed_size;
	uint64_t unallocated_size;
	uint64_t cpu_visible_size;
};

/**
 * struct hw_gpu_info - what hw_gpu_open() learnt about the device.
 * @path: the render node opened.
 * @driver: the DRM driver name ("i915").
 * @drv_major: driver version, major.
 * @drv_minor: driver version, minor.
 * @drv_patch: driver version, patch level.
 * @chipset_id: I915_PARAM_CHIPSET_ID, the PCI device id (vendor 0x8086).
 * @has_softpin: I915_PARAM_HAS_EXEC_SOFTPIN (required: open fails without).
 * @has_exec_fence: I915_PARAM_HAS_EXEC_FENCE (out-fences possible).
 * @aperture_size: GET_APERTURE aper_size, the CPU-mappable GGTT bytes.
 * @aperture_available: GET_APERTURE aper_available_size at open.
 * @discrete: the device has device-local memory (a DEVICE class region).
 * @num_regions: entries of @regions; at least 1 (system memory), which is
 *	what a kernel without the query reports.
 * @regions: the regions, system memory first as the kernel lists them.
 */
struct hw_gpu_info {
	char path[HW_PATH_MAX];
	char driver[16];
	int drv_major;
	int drv_minor;
	int drv_patch;
	uint32_t chipset_id;
	bool has_softpin;
	bool has_exec_fence;
	uint64_t aperture_size;
	uint64_t aperture_available;
	bool discrete;
	unsigned int num_regions;
	struct hw_region regions[HW_MAX_REGIONS];
};

/* Features a caller can make hw_gpu_open() insist on (softpin always is). */
#define HW_NEED_EXEC_FENCE (1u << 0)

/**
 * struct hw_open_args - how to open a device.
 * @device: render node path, or NULL: then $TTM_HW_DEVICE, and without it
 *	the first i915 render node from drmGetDevices2().
 * @need: HW_NEED_* features beyond softpin that must be present.
 * @sys: the kernel interface; NULL for libdrm and the real syscalls.
 * @sys_data: cookie handed to every @sys call.
 * @why: if not NULL, receives a one-line reason when the open fails (the
 *	line a skipping program prints).
 * @why_len: size of @why.
 */
struct hw_open_args {
	const char *device;
	unsigned int need;
	const struct hw_sys_ops *sys;
	void *sys_data;
	char *why;
	size_t why_len;
};

/**
 * hw_gpu_open - find and open an i915 render node.
 * @args: see struct hw_open_args; NULL for all defaults.
 * @out: the device on success.
 *
 * Returns 0; -ENODEV when no render node is an i915 one (or the given node
 * is not i915, or cannot be found); -EACCES when it cannot be opened for
 * lack of permission; -EOPNOTSUPP when the kernel lacks softpin or a feature
 * in @args->need; -ENOMEM; or the errno of a failing parameter ioctl.
 * Nothing is left open on failure. Starts the fence waiter thread.
 */
int hw_gpu_open(const struct hw_open_args *args, struct hw_gpu **out);

/*
 * hw_gpu_close - stop the fence waiter and close the node. Fences still
 * pending are signalled with -ENODEV (nobody watches their sync_file any
 * more); wait for idle first to avoid that. NULL is a no-op.
 */
void hw_gpu_close(struct hw_gpu *gpu);

const struct hw_gpu_info *hw_gpu_info(const struct hw_gpu *gpu);
/* The DRM fd, for callers that issue their own ioctls. */
int hw_gpu_fd(const struct hw_gpu *gpu);
/* True once an execbuffer returned -EIO (the kernel declared the GPU wedged). */
bool hw_gpu_is_wedged(const struct hw_gpu *gpu);
/*
 * hw_gpu_getparam - I915_GETPARAM @param into *@value: 0, or the kernel's
 * errno (-EINVAL for a parameter it does not know). One trivial ioctl
 * round trip, which benchmarks use as their same-run reference.
 */
int hw_gpu_getparam(struct hw_gpu *gpu, int param, int *value);
/**
 * hw_gpu_describe - the device as "key" -> "value" pairs, in a fixed order:
 * device, pci_id ("8086:xxxx"), driver ("i915 1.6.0"), softpin, exec_fence,
 * aperture_bytes, discrete, lmem_bytes, lmem_visible_bytes (0 on
 * integrated parts). What a results file's machine block records about the
 * GPU (bench_run_backend_param() per pair) and what i915-hw-info prints.
 * @info: from hw_gpu_info().
 * @emit: called once per pair; the strings live only for the call.
 * @data: handed to @emit.
 */
void hw_gpu_describe(const struct hw_gpu_info *info,
		     void (*emit)(void *data, const char *key, const char *value), void *data);
/* First region of class @mclass, or NULL. */
const struct hw_region *hw_gpu_find_region(const struct hw_gpu *gpu, uint16_t mclass);

/**
 * hw_device_select - the device path a program was asked to use.
 * @argc: argument count; @argv: arguments (not modified).
 * @path: set to the value of "--device PATH" / "--device=PATH", else of
 *	$TTM_HW_DEVICE, else NULL (auto-detect).
 *
 * Returns 0, or -EINVAL when --device has no value or the value does not
 * fit HW_PATH_MAX.
 */
int hw_device_select(int argc, char *const *argv, const char **path);

/**
 * hw_device_check - is an explicitly named device usable at all?
 * @path: the path hw_device_select() found, or NULL (auto-detect: always 0).
 * @why: receives a one-line reason on failure (may be NULL).
 * @why_len: size of @why.
 *
 * A path the user named must be a DRM character device node (major 226):
 * a missing path, a directory, a plain file, a FIFO or another device is
 * bad input, not a machine without a GPU (which skips).
 *
 * Return: 0, or -EINVAL with @why filled.
 */
int hw_device_check(const char *path, char *why, size_t why_len);

/**
 * hw_parse_uint - a decimal whole number in [@min, @max], nothing else
 * (no sign, no hex, no trailing characters, no overflow).
 * @s: the text.
 * @min: smallest accepted value.
 * @max: largest accepted value.
 * @out: receives the value.
 *
 * Return: 0, or -EINVAL.
 */
int hw_parse_uint(const char *s, unsigned int min, unsigned int max, unsigned int *out);

/* True for the errors that mean "skip": -ENODEV, -EOPNOTSUPP, -EACCES. */
bool hw_err_is_skip(int err);
/* Exit status for @err: 0 for 0, 77 (igt/meson skip) for skips, 1 otherwise. */
int hw_exit_status(int err);

/**
 * struct hw_context - a GPU context with its own ppGTT, caller-embedded.
 * @ctx_id: the kernel's context id.
 * @vm_id: the kernel's VM id (the ppGTT), owned by the context.
 * @vm_size: bytes of GPU virtual address space (I915_CONTEXT_PARAM_GTT_SIZE):
 *	what the caller's range manager hands out, offsets [0, @vm_size).
 */
struct hw_context {
	uint32_t ctx_id;
	uint32_t vm_id;
	uint64_t vm_size;
};

/*
 * hw_context_init - create a VM and a context using it. Returns 0,
 * -EOPNOTSUPP (no full ppGTT: VM_CREATE refused), or the kernel's errno;
 * on failure nothing is left behind.
 */
int hw_context_init(struct hw_gpu *gpu, struct hw_context *ctx);
/* Destroy the context and its VM. Objects stay; their bindings in it go. */
void hw_context_fini(struct hw_gpu *gpu, struct hw_context *ctx);

/* hw_bo_init flags. */
#define HW_BO_NEEDS_CPU_ACCESS (1u << 0) /* lmem object in the CPU-visible BAR */

/**
 * enum hw_mmap_mode - GEM_MMAP_OFFSET caching of a CPU map.
 * @HW_MMAP_WB: write-back (cached; integrated parts, LLC or snooped).
 * @HW_MMAP_WC: write-combined (integrated parts).
 * @HW_MMAP_FIXED: the caching the object's placement implies; the only
 *	mode discrete parts accept.
 */
enum hw_mmap_mode {
	HW_MMAP_WB,
	HW_MMAP_WC,
	HW_MMAP_FIXED,
};

/**
 * struct hw_bo - a GEM object, caller-embedded.
 * @handle: GEM handle (0: not created).
 * @size: bytes (page multiple).
 * @map: CPU address of the map, or NULL.
 * @map_mode: caching of @map.
 */
struct hw_bo {
	uint32_t handle;
	uint64_t size;
	void *map;
	enum hw_mmap_mode map_mode;
};

/**
 * hw_bo_init - create a GEM object.
 * @gpu: the device.
 * @bo: the caller's object.
 * @size: bytes, rounded up to a page (0 is -EINVAL).
 * @regions: placements in order of preference, or NULL for plain
 *	GEM_CREATE (system memory on integrated, the kernel's choice on
 *	discrete); otherwise GEM_CREATE_EXT with a MEMORY_REGIONS extension.
 * @num_regions: entries of @regions (<= HW_MAX_REGIONS).
 * @flags: HW_BO_*; NEEDS_CPU_ACCESS requires a system region in @regions.
 *
 * Returns 0, -EINVAL, -ENOMEM / -ENOSPC / -E2BIG from the kernel.
 */
int hw_bo_init(struct hw_gpu *gpu, struct hw_bo *bo, uint64_t size,
	       const struct hw_region_id *regions, unsigned int num_regions, unsigned int flags);
/* Unmap if mapped and GEM_CLOSE; @bo is zeroed. Safe on a zeroed bo. */
void hw_bo_fini(struct hw_gpu *gpu, struct hw_bo *bo);

/*
 * hw_bo_mmap - map the whole object. Returns 0 with @bo->map set; -EBUSY
 * when already mapped with another mode; -ENODEV when the kernel refuses
 * the mode (WB/WC on discrete: use FIXED); or the kernel's errno.
 */
int hw_bo_mmap(struct hw_gpu *gpu, struct hw_bo *bo, enum hw_mmap_mode mode);
void hw_bo_munmap(struct hw_gpu *gpu, struct hw_bo *bo);

/*
 * hw_bo_wait - GEM_WAIT until the GPU is done with @bo. @timeout_ns 0
 * polls, negative waits forever. Returns 0 when idle, -ETIME when still
 * busy at the timeout, or the kernel's errno.
 */
int hw_bo_wait(struct hw_gpu *gpu, struct hw_bo *bo, int64_t timeout_ns);

/* Engines execbuffer selects with the legacy ring flags. */
enum hw_engine {
	HW_ENGINE_RENDER,
	HW_ENGINE_BLT,
};

/* hw_exec_obj flags. */
#define HW_EXEC_OBJ_WRITE (1u << 0) /* the batch writes it (implicit sync) */

/**
 * struct hw_exec_obj - one object of a submission.
 * @bo: the object.
 * @offset: its GPU virtual address in the context's ppGTT, chosen by the
 *	caller: page aligned, @offset + size <= vm_size. Submitted pinned
 *	there (in the kernel's canonical form); the kernel never moves it.
 * @flags: HW_EXEC_OBJ_*.
 */
struct hw_exec_obj {
	const struct hw_bo *bo;
	uint64_t offset;
	uint32_t flags;
};

/**
 * struct hw_exec - a submission.
 * @ctx: the context (its ppGTT holds the offsets).
 * @engine: where it runs.
 * @objs: every object the batch touches; the batch itself is the last.
 * @count: entries of @objs (>= 1).
 * @batch_start: byte offset of the first command in the batch object.
 * @batch_len: bytes of commands (qword multiple), 0 for "to the end".
 */
struct hw_exec {
	const struct hw_context *ctx;
	enum hw_engine engine;
	const struct hw_exec_obj *objs;
	unsigned int count;
	uint32_t batch_start;
	uint32_t batch_len;
};

/**
 * hw_exec_submit - execbuffer2, relocation-free, every object softpinned.
 * @gpu: the device.
 * @eb: the submission.
 * @fence: if not NULL, receives a dma_fence (one reference, the caller's)
 *	that signals when the batch completes; its error is the sync_file's
 *	(-EIO for a batch killed by a reset). Needs has_exec_fence.
 *
 * Returns 0; -EINVAL for a bad @eb (misaligned offset, object beyond the
 * VM, empty list, unaligned batch_len); -EOPNOTSUPP when @fence is wanted
 * and the kernel has no exec fences; -EIO when the GPU is wedged; -ENOSPC /
 * -ENOMEM / -EINTR / other errno from the kernel. On failure nothing was
 * submitted and *@fence is NULL.
 */
int hw_exec_submit(struct hw_gpu *gpu, const struct hw_exec *eb, struct dma_fence **fence);

/* The kernel's canonical form of a 48-bit GPU address (bit 47 sign-extended). */
static inline uint64_t hw_canonical_addr(uint64_t addr)
{
	return (uint64_t)(((int64_t)(addr << 16)) >> 16);
}

/* Inverse of hw_canonical_addr(): the plain 48-bit address. */
static inline uint64_t hw_decanonical_addr(uint64_t addr)
{
	return addr & ((1ull << 48) - 1);
}

/*
 * Batch building with the i915_cmds.h encoders. Each returns the number of
 * dwords written (an even count: batches end qword aligned), -EINVAL for
 * bad arguments or -ENOSPC when @max_dw is too small; nothing is written
 * past @max_dw.
 */

/* An empty batch: MI_BATCH_BUFFER_END + MI_NOOP (what gem_exec_nop submits). */
int hw_batch_nop(uint32_t *cs, unsigned int max_dw);

/*
 * hw_batch_copy_dwords - dwords hw_batch_copy() needs for @size bytes
 * (0 when @size is 0 or not a page multiple).
 */
unsigned int hw_batch_copy_dwords(uint64_t size);

/*
 * hw_batch_copy - copy @size bytes (page multiple, > 0) from GPU address
 * @src to @dst with XY_FAST_COPY_BLT (blitter engine), as 4 KiB-pitch
 * rectangles of at most HW_COPY_MAX_ROWS rows each. @src and @dst must be
 * page aligned. Overlapping ranges are -EINVAL (the blitter gives no
 * ordering guarantee inside a blit). XY_FAST_COPY_BLT exists from gen9
 * (Skylake) on: on gen8 the batch is rejected by the GPU, not here (the
 * chipset id alone does not tell the generation reliably).
 */
#define HW_COPY_PITCH 4096u
#define HW_COPY_MAX_ROWS 16384u
int hw_batch_copy(uint32_t *cs, unsigned int max_dw, uint64_t dst, uint64_t src, uint64_t size);

#endif /* I915_HW_GPU_H */
