/* SPDX-License-Identifier: MIT */
/*
 * i915_vm_types: the ppGTT's data types (struct i915_address_space, struct
 * i915_vma, the device's vma registry) and address helpers, apart from the
 * functions of i915_vm.h, so that struct i915_device (i915_drv_types.h) can
 * embed the registry without taking in the VM's interface (the kernel's
 * *_types.h split). The model and locking are described in i915_vm.h.
 */
#ifndef I915_VM_TYPES_H
#define I915_VM_TYPES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ttm/dma_fence.h>
#include <ttm/drm_mm.h>
#include <ttm/list.h>

struct i915_device;
struct ttm_buffer_object;

/* Bits of the ppGTT: 48, four levels of 512 entries over 4 KiB pages. */
#define I915_VM_BITS 48
#define I915_VM_TOTAL (1ull << I915_VM_BITS)
/* Where objects without EXEC_OBJECT_SUPPORTS_48B_ADDRESS must end (the kernel's PIN_ZONE_4G). */
#define I915_VM_4G ((1ull << 32) - 4096)

/**
 * i915_vm_canonical() - @addr in the canonical form of a 48-bit address
 * (bit 47 sign-extended), what the kernel reports in exec_object2.offset
 * and writes in relocations.
 */
static inline uint64_t i915_vm_canonical(uint64_t addr)
{
	return (uint64_t)((int64_t)(addr << (64 - I915_VM_BITS)) >> (64 - I915_VM_BITS));
}

/** i915_vm_noncanonical() - the low 48 bits of a canonical address. */
static inline uint64_t i915_vm_noncanonical(uint64_t addr)
{
	return addr & (I915_VM_TOTAL - 1);
}

/**
 * struct i915_address_space - one ppGTT.
 * @i915: the device.
 * @refcount: references (contexts, requests, execbuffers in flight, the
 *	uAPI's VM id table).
 * @total: bytes of address space (I915_VM_TOTAL).
 * @handle: the back end's id of the page table (what RING_PDP0 is loaded
 *	with; non-zero).
 * @id: a small number for dumps, unique per device.
 *
 * Protected by i915_device.vm_lock:
 * @mm: the ranges in use, in bytes.
 * @vmas: every vma of this VM (struct i915_vma.vm_link).
 */
struct i915_address_space {
	struct i915_device *i915;
	atomic_int refcount;
	uint64_t total;
	uint64_t handle;
	uint32_t id;

	/* Protected by i915->vm_lock. */
	struct drm_mm mm;
	struct list_head vmas;
};

/**
 * struct i915_vma - an object's range in one VM.
 * @vm: the VM (not a reference: the VM frees its vmas when it dies).
 * @bo: the object (not a reference: the object's death unbinds and frees
 *	its vmas through the driver's delete_mem_notify hook).
 *
 * Protected by i915_device.vm_lock:
 * @node: the range, allocated while the vma exists.
 * @vm_link: in @vm->vmas.
 * @bo_link: in the device's registry bucket of @bo.
 * @pin_count: execbuffers in flight that use this range: a pinned vma is
 *	neither evicted by another softpin nor moved.
 * @bound: the PTEs of @node point at the object's current pages.
 * @active: the last request that used the vma (a reference), or NULL.
 */
struct i915_vma {
	struct i915_address_space *vm;
	struct ttm_buffer_object *bo;

	/* Protected by vm->i915->vm_lock. */
	struct drm_mm_node node;
	struct list_head vm_link;
	struct list_head bo_link;
	unsigned int pin_count;
	bool bound;
	struct dma_fence *active;
};

#define I915_VMA_BUCKETS 256

/**
 * struct i915_vma_registry - the device's map from object to its vmas, so
 * TTM's per-object hooks find the bindings of objects the driver keeps no
 * state in (uAPI BOs). Embedded in struct i915_device.
 * @buckets: lists of vmas (bo_link), hashed by object address.
 * @count: vmas registered; atomic, read without the lock so objects never
 *	bound into a VM skip it.
 */
struct i915_vma_registry {
	struct list_head buckets[I915_VMA_BUCKETS];
	atomic_ulong count;
};

#endif /* I915_VM_TYPES_H */
