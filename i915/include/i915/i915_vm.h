/* SPDX-License-Identifier: MIT */
/*
 * i915_vm: per-process GPU address spaces (full ppGTT), the gen8+ model the
 * kernel's i915_address_space / i915_vma implement.
 *
 * A VM is a 48-bit GPU virtual address space with its own 4-level page
 * table in the device (the back end's vm_* ops), a drm_mm of the ranges in
 * use, and a list of vmas. A vma maps one buffer object (an i915 object or
 * a uAPI BO: any ttm_buffer_object of the device) at one range of one VM;
 * an object has at most one vma per VM (the kernel's normal view).
 *
 * Contexts run in a VM: i915_context_set_vm() attaches one (a VM may be
 * shared by several contexts, as CONTEXT_SETPARAM I915_CONTEXT_PARAM_VM
 * allows), and every request of such a context loads the VM into the
 * engine (RING_PDP0) and starts its batch in ppGTT space. i915_gem_execbuffer()
 * binds each object of the call into the context's VM (see i915_gem.h).
 *
 * Binding: a vma's PTEs point at the pages of the object's current
 * resource (populated tt pages for SYSTEM/TT, offsets for lmem and stolen).
 * When TTM moves, evicts, swaps out or frees the object, the driver's move
 * and notify hooks wait for the GPU work that used the vma and unbind it
 * from every VM first, so no PTE ever points at memory the object no longer
 * owns; the next execbuffer binds it again, at the same address when that
 * is still free (the vma keeps its range until the object or VM goes, or a
 * softpin elsewhere evicts it).
 *
 * Locking: one device-wide mutex, i915_device.vm_lock, protects every VM's
 * drm_mm and vma list, every vma's state and the device's object-to-vma
 * registry. It nests inside BO reservations and is never held while a
 * fence is waited for or a request submitted (the retire path drops VM
 * references, which may take it).
 */
#ifndef I915_VM_H
#define I915_VM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <fault_inject.h>
#include <i915/i915_vm_types.h>
#include <ttm/dma_fence.h>
#include <ttm/drm_mm.h>
#include <ttm/list.h>

struct i915_device;
struct i915_context;
struct ttm_buffer_object;

/**
 * i915_vm_create() - a new empty 48-bit VM with one reference.
 * @i915: the device.
 * @out: the VM.
 *
 * Return: 0; -EINVAL (NULL argument); -ENOMEM; -EOPNOTSUPP (the back end
 * has no ppGTT).
 */
int i915_vm_create(struct i915_device *i915, struct i915_address_space **out);

/**
 * i915_vm_get() - take a reference.
 * @vm: the VM.
 *
 * Return: @vm.
 */
struct i915_address_space *i915_vm_get(struct i915_address_space *vm);

/**
 * i915_vm_put() - drop a reference; NULL is a no-op. The last one unbinds
 * every vma (their objects live on unbound) and frees the page table. No
 * request may still run in the VM: requests hold references.
 * @vm: the VM, or NULL.
 */
void i915_vm_put(struct i915_address_space *vm);

/**
 * i915_context_set_vm() - run @ctx's future requests in @vm (a reference is
 * taken), or in the GGTT when @vm is NULL; the previous VM's reference is
 * dropped (requests already queued keep theirs).
 * @ctx: the context.
 * @vm: the VM, or NULL for the GGTT.
 *
 * Return: 0; -EINVAL (NULL context, VM of another device).
 */
int i915_context_set_vm(struct i915_context *ctx, struct i915_address_space *vm);

/**
 * i915_context_get_vm() - the VM a context's requests run in.
 * @ctx: the context.
 *
 * Return: @ctx's VM with a new reference; NULL when it runs in the GGTT.
 */
struct i915_address_space *i915_context_get_vm(struct i915_context *ctx);

/**
 * i915_vm_bind() - bind @bo (reserved by the caller, resource populated and
 * placed where the GPU reaches it: SYSTEM or TT with tt pages, VRAM,
 * stolen) into @vm and pin the vma for the caller.
 * @vm: the VM.
 * @bo: the object.
 * @offset: in: with @fixed, the address wanted (page aligned, in canonical
 *	form as the kernel requires); out: the address bound (non-canonical).
 * @fixed: softpin: exactly at *@offset. An unpinned vma of another object
 *	overlapping the range is evicted (waiting for its last use); a vma of
 *	the same object elsewhere is moved.
 * @zone_4g: without @fixed, place the range below I915_VM_4G (objects
 *	without EXEC_OBJECT_SUPPORTS_48B_ADDRESS); with it, fail when it ends
 *	above.
 * @interruptible: waits for eviction may be interrupted.
 * @out: the pinned vma.
 *
 * Without @fixed an existing vma keeps its range unless it violates
 * @zone_4g; a new one goes to *@offset when that range is free (the
 * caller's presumed offset, 0 included, tried without eviction as the kernel does),
 * else to the lowest free range above page 0.
 * A softpin whose range (or whose own vma elsewhere) another thread's
 * execbuffer holds pinned waits for that pin to go, up to about a second.
 * Return: 0 with the vma pinned in *@out (i915_vma_unpin() it);
 * -EINVAL (misaligned, non-canonical or outside the VM, softpin above 4 GiB
 * with @zone_4g, bad resource); -ENOSPC (the range stayed held by a pinned
 * vma, or no free range); -ENOMEM; -EINTR.
 */
int i915_vm_bind(struct i915_address_space *vm, struct ttm_buffer_object *bo, uint64_t *offset,
		 bool fixed, bool zone_4g, bool interruptible, struct i915_vma **out);

/**
 * i915_vma_unpin() - end the caller's use of @vma; with @fence (may be
 * NULL) recorded as its last use, which unbinding and eviction wait for.
 * @vma: a vma the caller pinned.
 * @fence: the last use, or NULL.
 */
void i915_vma_unpin(struct i915_vma *vma, struct dma_fence *fence);

/**
 * i915_vm_unbind_bo() - unbind @bo from every VM (its vmas keep their
 * ranges, marked unbound) after waiting for their last use; @destroy frees
 * the vmas too. Caller holds @bo's reservation or is its last user.
 * @i915: the device.
 * @bo: the object.
 * @destroy: free the vmas as well.
 * @no_wait: return -EBUSY instead of waiting.
 * Return: 0; -EBUSY (@no_wait and still in use); -ENOSPC never.
 * A pinned vma (an execbuffer in flight under the reservation holder's own
 * ticket) is unbound all the same: only its owner can move the object.
 */
int i915_vm_unbind_bo(struct i915_device *i915, struct ttm_buffer_object *bo, bool destroy,
		      bool no_wait);

/**
 * i915_vm_lookup() - where @bo is bound in @vm.
 * @vm: the VM.
 * @bo: the object.
 * @offset: out: the non-canonical address.
 * @bound: out: whether the PTEs are written.
 *
 * Return: 0 with *@offset and *@bound set; -ENOENT (no vma).
 */
int i915_vm_lookup(struct i915_address_space *vm, struct ttm_buffer_object *bo, uint64_t *offset,
		   bool *bound);

/**
 * i915_vm_read_pte() - the entry for page @index (address >> 12) of @vm's
 * page table; for tests and dumps.
 * @vm: the VM.
 * @index: the page number.
 *
 * Return: the PTE; 0 when not present.
 */
uint64_t i915_vm_read_pte(struct i915_address_space *vm, uint64_t index);

/* "vm_alloc": i915_vm_create(), or i915_vm_bind() recording a new binding, fails with -ENOMEM. */
extern struct fault_attr i915_fault_vm_alloc;

/**
 * i915_vm_registry_init() - driver-internal: set up the VM registry and
 * vm_lock of @i915 (from i915_gem_init()).
 * @i915: the device.
 */
void i915_vm_registry_init(struct i915_device *i915);

/**
 * i915_vm_registry_fini() - driver-internal: tear the registry down (from
 * i915_gem_fini(), with no VM alive).
 * @i915: the device.
 */
void i915_vm_registry_fini(struct i915_device *i915);

#endif /* I915_VM_H */
