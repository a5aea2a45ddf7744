// SPDX-License-Identifier: MIT
/*
 * The hw back end of the i915 driver: struct i915_backend_ops over a real
 * i915 kernel (libi915_hw), the request level only. The kernel owns the
 * rings, the GGTT and the page tables, so every ring-level slot is NULL and
 * the driver's ring paths answer -EOPNOTSUPP; what the driver can do here:
 *  - a VM (i915_vm_create()) is a kernel VM with a context on it
 *    (VM_CREATE + CONTEXT_CREATE_EXT); its handle is our struct hw_context;
 *  - raw memory (i915_mem_create()) is a system-memory GEM object, CPU
 *    mapped (WB where the GPU snoops the CPU cache, WC otherwise, the
 *    placement's own caching on discrete parts);
 *  - a request (i915_request_submit_objects()) is one execbuffer2 on the
 *    render or blitter engine with every object softpinned at the address
 *    the caller chose and an out-fence turned into a dma_fence. The driver
 *    holds a request until the fences it awaits signalled; any still in
 *    @args are waited for on the CPU (a fence of this project is no
 *    sync_file the kernel could await).
 */
#include <errno.h>
#include <stdlib.h>

#include <i915/i915_drv.h>

#include "hw_faults.h"
#include "hw_gpu.h"
#include "i915_backend.h"

/* I915_PARAM_* of <drm/i915_drm.h> this file asks (not included here). */
#define HW_PARAM_HAS_LLC 17
#define HW_PARAM_CS_TIMESTAMP_FREQUENCY 51

/* Most objects of one request kept on the stack. */
#define HW_BE_STACK_OBJS 16

struct i915_backend_hw {
	struct i915_backend base;
	struct hw_gpu *gpu;
	enum hw_mmap_mode map_mode;
};

struct hw_mem {
	struct i915_mem base;
	struct hw_bo bo;
};

static struct i915_backend_hw *to_hw(struct i915_backend *be)
{
	return container_of(be, struct i915_backend_hw, base);
}

static void hw_be_destroy(struct i915_backend *be)
{
	struct i915_backend_hw *h = to_hw(be);

	/* Fences still pending signal with -ENODEV as the waiter stops. */
	hw_gpu_close(h->gpu);
	free(h);
}

static int hw_be_mem_create(struct i915_backend *be, uint64_t size, struct i915_mem **out)
{
	struct i915_backend_hw *h = to_hw(be);
	const struct hw_region_id sys = {.mclass = HW_MEMORY_CLASS_SYSTEM};
	struct hw_mem *m;
	int ret;

	m = fault_should_fail(&hw_fault_alloc, sizeof(*m)) ? NULL : calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	/* A region list only where there is a choice to make. */
	ret = hw_bo_init(h->gpu, &m->bo, size, hw_gpu_info(h->gpu)->discrete ? &sys : NULL,
			 hw_gpu_info(h->gpu)->discrete ? 1 : 0, 0);
	if (!ret)
		ret = hw_bo_mmap(h->gpu, &m->bo, h->map_mode);
	if (ret) {
		hw_bo_fini(h->gpu, &m->bo);
		free(m);
		return ret;
	}
	m->base.size = m->bo.size;
	m->base.cpu = m->bo.map;
	*out = &m->base;
	return 0;
}

static void hw_be_mem_destroy(struct i915_backend *be, struct i915_mem *mem)
{
	struct i915_backend_hw *h = to_hw(be);
	struct hw_mem *m = container_of(mem, struct hw_mem, base);

	/*
	 * GEM_CLOSE of a busy object is safe in the kernel, but the caller's
	 * contract is that no request uses it any more when this returns.
	 */
	hw_bo_wait(h->gpu, &m->bo, -1);
	hw_bo_fini(h->gpu, &m->bo);
	free(m);
}

static int hw_be_request_submit(struct i915_backend *be, enum i915_engine_id engine,
				const struct i915_request_args *args, struct dma_fence **out)
{
	struct i915_backend_hw *h = to_hw(be);
	struct hw_exec_obj stack[HW_BE_STACK_OBJS], *objs = stack;
	struct i915_address_space *vm;
	struct hw_exec eb = {0};
	unsigned int n = args->nobjects, last = n - 1;
	int ret;

	if (engine == I915_ENGINE_RCS)
		eb.engine = HW_ENGINE_RENDER;
	else if (engine == I915_ENGINE_BCS)
		eb.engine = HW_ENGINE_BLT;
	else
		return -EOPNOTSUPP; /* the legacy ring flags reach render and blitter only */
	vm = i915_context_get_vm(args->ctx);
	if (!vm)
		return -EINVAL;
	if (n > HW_BE_STACK_OBJS) {
		objs = fault_should_fail(&hw_fault_alloc, n * sizeof(*objs))
			   ? NULL
			   : calloc(n, sizeof(*objs));
		if (!objs) {
			i915_vm_put(vm);
			return -ENOMEM;
		}
	}
	/* execbuffer2 runs the last object: the one holding the batch goes there. */
	for (unsigned int i = 0, j = 0; i < n; i++) {
		const struct i915_request_object *o = &args->objects[i];
		struct hw_exec_obj *e;

		if (args->batch >= o->gpu_addr && args->batch - o->gpu_addr < o->mem->size) {
			e = &objs[last];
			eb.batch_start = (uint32_t)(args->batch - o->gpu_addr);
		} else {
			e = &objs[j++];
		}
		e->bo = &container_of(o->mem, struct hw_mem, base)->bo;
		e->offset = o->gpu_addr;
		e->flags = o->flags & I915_REQUEST_OBJECT_WRITE ? HW_EXEC_OBJ_WRITE : 0;
	}
	eb.ctx = (const struct hw_context *)(uintptr_t)vm->handle;
	eb.objs = objs;
	eb.count = n;
	for (unsigned int i = 0; i < args->nawait; i++)
		dma_fence_wait(args->await[i], false);
	ret = hw_exec_submit(h->gpu, &eb, out);
	i915_vm_put(vm);
	if (objs != stack)
		free(objs);
	return ret;
}

static void hw_be_describe(struct i915_backend *be,
			   void (*emit)(void *data, const char *key, const char *value), void *data)
{
	hw_gpu_describe(hw_gpu_info(to_hw(be)->gpu), emit, data);
}

static bool hw_be_is_synchronous(struct i915_backend *be)
{
	(void)be;
	return false;
}

static void hw_be_error_state_dump(struct i915_backend *be, FILE *out)
{
	struct i915_backend_hw *h = to_hw(be);

	fprintf(out,
		"hw: %s%s; the kernel keeps the GPU's error state (debugfs i915_error_state)\n",
		hw_gpu_info(h->gpu)->path, hw_gpu_is_wedged(h->gpu) ? ", wedged" : "");
}

/* Device-local memory is not managed by the driver on this back end (lmem_size 0). */
static void *hw_be_lmem_cpu_ptr(struct i915_backend *be, uint64_t offset)
{
	(void)be;
	(void)offset;
	return NULL;
}

static int hw_be_vm_create(struct i915_backend *be, uint64_t *handle)
{
	struct i915_backend_hw *h = to_hw(be);
	struct hw_context *ctx;
	int ret;

	ctx = fault_should_fail(&hw_fault_alloc, sizeof(*ctx)) ? NULL : calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ret = hw_context_init(h->gpu, ctx);
	if (ret) {
		free(ctx);
		return ret;
	}
	*handle = (uint64_t)(uintptr_t)ctx;
	return 0;
}

static void hw_be_vm_destroy(struct i915_backend *be, uint64_t handle)
{
	struct hw_context *ctx = (struct hw_context *)(uintptr_t)handle;

	hw_context_fini(to_hw(be)->gpu, ctx);
	free(ctx);
}

/*
 * The kernel encodes its own entries; no entry the driver encodes reaches it
 * (@vm_insert refuses), so every one is "not present".
 */
static uint64_t hw_be_pte_encode(struct i915_backend *be, enum i915_pte_kind kind, uint64_t addr)
{
	(void)be;
	(void)kind;
	(void)addr;
	return 0;
}

/*
 * The kernel writes the page tables: an object is bound where a request
 * softpins it. The driver's own GEM objects (TTM BOs with host pages) cannot
 * be bound here.
 */
static int hw_be_vm_insert(struct i915_backend *be, uint64_t handle, uint64_t first,
			   const uint64_t *ptes, uint64_t count)
{
	(void)be;
	(void)handle;
	(void)first;
	(void)ptes;
	(void)count;
	return -EOPNOTSUPP;
}

static int hw_be_vm_clear(struct i915_backend *be, uint64_t handle, uint64_t first, uint64_t count)
{
	(void)be;
	(void)handle;
	(void)first;
	(void)count;
	return -EOPNOTSUPP;
}

static uint64_t hw_be_vm_read_pte(struct i915_backend *be, uint64_t handle, uint64_t index)
{
	(void)be;
	(void)handle;
	(void)index;
	return 0; /* the kernel's page tables are not readable from userspace */
}

static const struct i915_backend_ops i915_backend_hw_ops = {
    .name = "hw",
    .destroy = hw_be_destroy,
    .request_submit = hw_be_request_submit,
    .mem_create = hw_be_mem_create,
    .mem_destroy = hw_be_mem_destroy,
    .describe = hw_be_describe,
    .pte_encode = hw_be_pte_encode,
    .is_synchronous = hw_be_is_synchronous,
    .error_state_dump = hw_be_error_state_dump,
    .lmem_cpu_ptr = hw_be_lmem_cpu_ptr,
    .vm_create = hw_be_vm_create,
    .vm_destroy = hw_be_vm_destroy,
    .vm_insert = hw_be_vm_insert,
    .vm_clear = hw_be_vm_clear,
    .vm_read_pte = hw_be_vm_read_pte,
};

/* i915_backend_create_fn of hw: @cfg_arg is a struct hw_open_args. */
static int i915_backend_hw_create(const void *cfg_arg, const struct i915_backend_callbacks *cb,
				  void *data, struct i915_backend **out)
{
	const struct hw_open_args *args = cfg_arg;
	const struct hw_gpu_info *info;
	struct i915_backend_hw *h;
	int llc = 0, freq = 0, ret;

	/* The kernel raises no interrupt here and resets on its own. */
	(void)cb;
	(void)data;
	h = fault_should_fail(&hw_fault_alloc, sizeof(*h)) ? NULL : calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	ret = hw_gpu_open(args, &h->gpu);
	if (ret) {
		free(h);
		return ret;
	}
	info = hw_gpu_info(h->gpu);
	/* Parameters an older kernel does not know read as "no" and "unknown". */
	if (hw_gpu_getparam(h->gpu, HW_PARAM_HAS_LLC, &llc))
		llc = 0;
	if (hw_gpu_getparam(h->gpu, HW_PARAM_CS_TIMESTAMP_FREQUENCY, &freq) || freq < 0)
		freq = 0;
	h->base.ops = &i915_backend_hw_ops;
	/*
	 * The driver's GGTT manager accounts the kernel's aperture; nothing is
	 * ever bound through it here (no ggtt_insert).
	 */
	h->base.ggtt_size = info->aperture_size ? info->aperture_size : 1ull << 32;
	h->base.aperture_size = h->base.ggtt_size;
	h->base.engine_mask = (1u << I915_ENGINE_RCS) | (1u << I915_ENGINE_BCS);
	/* The kernel's heartbeat decides what a hang is. */
	h->base.hangcheck_ms = UINT32_MAX;
	h->base.cs_timestamp_hz = (uint32_t)freq;
	h->base.gpu_snoops = llc != 0;
	h->map_mode = info->discrete ? HW_MMAP_FIXED : llc ? HW_MMAP_WB : HW_MMAP_WC;
	*out = &h->base;
	return 0;
}

int i915_device_create_hw(const struct hw_open_args *args, struct i915_device **out)
{
	struct hw_open_args a = args ? *args : (struct hw_open_args){0};

	/* Every request gets its fence from an out-fence. */
	a.need |= HW_NEED_EXEC_FENCE;
	return i915_device_probe(i915_backend_hw_create, &a, out);
}
