// SPDX-License-Identifier: MIT
/*
 * i915_vm: per-process GTTs and the vmas of objects bound into them (see
 * i915_vm.h for the model and the locking).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <i915/i915_drv_types.h>
#include <i915/i915_vm.h>
#include <ttm/ttm_bo.h>
#include <ttm/ttm_buddy_manager.h>
#include <ttm/ttm_tt.h>

#include "i915_backend.h"

/* A VM (i915_vm_create()) or a binding record (i915_vm_bind()) cannot be allocated. */
DEFINE_FAULT_POINT(i915_fault_vm_alloc, "vm_alloc")

/* PTEs written per back-end call, so a bind needs no allocation. */
#define VM_PTE_BATCH 512u

static struct list_head *vma_bucket(struct i915_device *i915, const struct ttm_buffer_object *bo)
{
	uintptr_t h = (uintptr_t)bo;

	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ull;
	return &i915->vmas.buckets[(h >> 32) % I915_VMA_BUCKETS];
}

void i915_vm_registry_init(struct i915_device *i915)
{
	for (unsigned int i = 0; i < I915_VMA_BUCKETS; i++)
		INIT_LIST_HEAD(&i915->vmas.buckets[i]);
	atomic_init(&i915->vmas.count, 0);
	pthread_mutex_init(&i915->vm_lock, NULL);
}

void i915_vm_registry_fini(struct i915_device *i915)
{
	pthread_mutex_destroy(&i915->vm_lock);
}

int i915_vm_create(struct i915_device *i915, struct i915_address_space **out)
{
	struct i915_address_space *vm;
	struct i915_backend *be;
	int ret;

	if (!i915 || !out || !i915->gem_ready)
		return -EINVAL;
	be = i915->be;
	if (!be->ops->vm_create)
		return -EOPNOTSUPP;
	vm = fault_should_fail(&i915_fault_vm_alloc, sizeof(*vm)) ? NULL : calloc(1, sizeof(*vm));
	if (!vm)
		return -ENOMEM;
	ret = be->ops->vm_create(be, &vm->handle);
	if (ret) {
		free(vm);
		return ret;
	}
	vm->i915 = i915;
	vm->total = I915_VM_TOTAL;
	vm->id = atomic_fetch_add(&i915->next_vm_id, 1) + 1;
	atomic_init(&vm->refcount, 1);
	drm_mm_init(&vm->mm, 0, vm->total);
	INIT_LIST_HEAD(&vm->vmas);
	atomic_fetch_add(&i915->vm_count, 1);
	*out = vm;
	return 0;
}

struct i915_address_space *i915_vm_get(struct i915_address_space *vm)
{
	if (vm)
		atomic_fetch_add_explicit(&vm->refcount, 1, memory_order_relaxed);
	return vm;
}

/* Forget @vma entirely: its range, its registry entry. vm_lock held; returns its fence. */
static struct dma_fence *vma_destroy_locked(struct i915_vma *vma)
{
	struct dma_fence *f = vma->active;
	struct i915_device *i915 = vma->vm->i915;

	list_del_init(&vma->vm_link);
	list_del_init(&vma->bo_link);
	if (drm_mm_node_allocated(&vma->node))
		drm_mm_remove_node(&vma->vm->mm, &vma->node);
	atomic_fetch_sub(&i915->vmas.count, 1);
	free(vma);
	return f;
}

static void vma_unbind_locked(struct i915_vma *vma)
{
	struct i915_backend *be = vma->vm->i915->be;

	if (!vma->bound)
		return;
	be->ops->vm_clear(be, vma->vm->handle, vma->node.start >> TTM_PAGE_SHIFT,
			  vma->node.size >> TTM_PAGE_SHIFT);
	vma->bound = false;
}

void i915_vm_put(struct i915_address_space *vm)
{
	struct i915_device *i915;
	struct i915_vma *vma;

	if (!vm || atomic_fetch_sub_explicit(&vm->refcount, 1, memory_order_acq_rel) != 1)
		return;
	i915 = vm->i915;
	/*
	 * No request runs in the VM any more (they hold references), so the
	 * page table goes at once; fences are dropped outside the lock.
	 */
	for (;;) {
		struct dma_fence *f = NULL;

		pthread_mutex_lock(&i915->vm_lock);
		vma = list_empty(&vm->vmas) ? NULL
					    : list_first_entry(&vm->vmas, struct i915_vma, vm_link);
		if (vma)
			f = vma_destroy_locked(vma);
		pthread_mutex_unlock(&i915->vm_lock);
		if (!vma)
			break;
		dma_fence_put(f);
	}
	drm_mm_takedown(&vm->mm);
	i915->be->ops->vm_destroy(i915->be, vm->handle);
	atomic_fetch_sub(&i915->vm_count, 1);
	free(vm);
}

int i915_context_set_vm(struct i915_context *ctx, struct i915_address_space *vm)
{
	struct i915_address_space *old;
	struct i915_device *i915;

	if (!ctx || (vm && vm->i915 != ctx->i915) || !ctx->i915->gem_ready)
		return -EINVAL;
	i915 = ctx->i915;
	pthread_mutex_lock(&i915->vm_lock);
	old = ctx->vm;
	__atomic_store_n(&ctx->vm, i915_vm_get(vm), __ATOMIC_RELAXED);
	pthread_mutex_unlock(&i915->vm_lock);
	i915_vm_put(old);
	return 0;
}

struct i915_address_space *i915_context_get_vm(struct i915_context *ctx)
{
	struct i915_address_space *vm;

	/* Unlocked look first: requests of contexts without a VM skip the lock. */
	if (!ctx || !__atomic_load_n(&ctx->vm, __ATOMIC_RELAXED))
		return NULL;
	pthread_mutex_lock(&ctx->i915->vm_lock);
	vm = i915_vm_get(ctx->vm);
	pthread_mutex_unlock(&ctx->i915->vm_lock);
	return vm;
}

static struct i915_vma *vma_find_locked(struct i915_address_space *vm,
					const struct ttm_buffer_object *bo)
{
	struct i915_vma *vma;

	list_for_each_entry (vma, vma_bucket(vm->i915, bo), struct i915_vma, bo_link)
		if (vma->bo == bo && vma->vm == vm)
			return vma;
	return NULL;
}

/* Write @count PTEs of @kind from VM page @first: host pages or a linear run at @offset. */
static int vm_write_ptes(struct i915_address_space *vm, uint64_t first, uint64_t count,
			 enum i915_pte_kind kind, void *const *pages, uint64_t offset)
{
	struct i915_backend *be = vm->i915->be;
	uint64_t ptes[VM_PTE_BATCH];

	for (uint64_t done = 0; done < count;) {
		uint64_t n = count - done < VM_PTE_BATCH ? count - done : VM_PTE_BATCH;
		int ret;

		for (uint64_t i = 0; i < n; i++) {
			uint64_t addr = pages ? (uintptr_t)pages[done + i]
					      : offset + ((done + i) << TTM_PAGE_SHIFT);

			ptes[i] = be->ops->pte_encode(be, kind, addr);
		}
		ret = be->ops->vm_insert(be, vm->handle, first + done, ptes, n);
		if (ret)
			return ret;
		done += n;
	}
	return 0;
}

/* Point @vma's range at the pages of its object's current resource. */
static int vma_bind_locked(struct i915_vma *vma)
{
	struct i915_address_space *vm = vma->vm;
	struct ttm_buffer_object *bo = vma->bo;
	struct ttm_resource *res = bo->resource;
	uint64_t first = vma->node.start >> TTM_PAGE_SHIFT, pages = bo->size >> TTM_PAGE_SHIFT;
	struct i915_device *i915 = vm->i915;
	int ret;

	if (!res)
		return -EINVAL;
	switch (res->mem_type) {
	case TTM_PL_SYSTEM:
	case TTM_PL_TT:
		if (!bo->ttm || !ttm_tt_is_populated(bo->ttm) || bo->ttm->num_pages < pages)
			return -EINVAL;
		ret = vm_write_ptes(vm, first, pages, I915_PTE_HOST, bo->ttm->pages, 0);
		break;
	case TTM_PL_VRAM: {
		struct ttm_buddy_resource *bres = to_ttm_buddy_resource(res);
		struct drm_buddy_block *block;
		uint64_t at = 0;

		if (!i915->has_lmem)
			return -EINVAL;
		ret = 0;
		list_for_each_entry (block, &bres->blocks, struct drm_buddy_block, link) {
			uint64_t n = drm_buddy_block_size(&i915->lmem.mm, block) >> TTM_PAGE_SHIFT;

			if (n > pages - at)
				n = pages - at;
			ret = vm_write_ptes(vm, first + at, n, I915_PTE_LMEM, NULL,
					    drm_buddy_block_offset(block));
			if (ret)
				break;
			at += n;
			if (at == pages)
				break;
		}
		if (!ret && at != pages)
			ret = -EINVAL;
		break;
	}
	case I915_PL_STOLEN:
		ret = vm_write_ptes(vm, first, pages, I915_PTE_STOLEN, NULL,
				    res->start << TTM_PAGE_SHIFT);
		break;
	default:
		return -EINVAL;
	}
	if (ret) {
		/* Leave no partial mapping behind. */
		i915->be->ops->vm_clear(i915->be, vm->handle, first, pages);
		return ret;
	}
	vma->bound = true;
	return 0;
}

static bool ranges_overlap(uint64_t a, uint64_t as, uint64_t b, uint64_t bs)
{
	return a < b + bs && b < a + as;
}

/*
 * Free [@start, @start + @size) of @vm of every vma but @keep: -ENOSPC when
 * a pinned one is in the way (with @skip_pinned: pinned ones stay, the rest
 * go); 1 with *@wait (a reference) when one is still in use (the caller
 * drops the lock, waits and retries); 0 when done.
 */
static int vm_evict_range_locked(struct i915_address_space *vm, uint64_t start, uint64_t size,
				 struct i915_vma *keep, bool skip_pinned, struct dma_fence **wait,
				 struct dma_fence **drop, unsigned int *ndrop)
{
	struct i915_vma *vma, *tmp;

	list_for_each_entry (vma, &vm->vmas, struct i915_vma, vm_link) {
		if (vma == keep || !drm_mm_node_allocated(&vma->node) ||
		    !ranges_overlap(vma->node.start, vma->node.size, start, size))
			continue;
		if (vma->pin_count && skip_pinned)
			continue;
		if (vma->pin_count)
			return -ENOSPC;
		if (vma->active && !dma_fence_is_signaled(vma->active)) {
			*wait = dma_fence_get(vma->active);
			return 1;
		}
	}
	list_for_each_entry_safe (vma, tmp, &vm->vmas, struct i915_vma, vm_link) {
		if (vma == keep || !drm_mm_node_allocated(&vma->node) ||
		    !ranges_overlap(vma->node.start, vma->node.size, start, size) || vma->pin_count)
			continue;
		vma_unbind_locked(vma);
		drm_mm_remove_node(&vm->mm, &vma->node);
		if (vma->active && *ndrop < 8) {
			drop[(*ndrop)++] = vma->active;
			vma->active = NULL;
		}
	}
	return 0;
}

/* Retries, 1 ms apart, of a softpin whose range another execbuffer holds pinned. */
#define I915_VM_PIN_WAIT_TRIES 1000

int i915_vm_bind(struct i915_address_space *vm, struct ttm_buffer_object *bo, uint64_t *offset,
		 bool fixed, bool zone_4g, bool interruptible, struct i915_vma **out)
{
	struct i915_device *i915;
	struct i915_vma *vma;
	uint64_t size, start = 0, end;
	int ret;

	if (!vm || !bo || !offset || !out || !bo->size || (bo->size & (TTM_PAGE_SIZE - 1)))
		return -EINVAL;
	i915 = vm->i915;
	size = bo->size;
	end = zone_4g ? I915_VM_4G : vm->total;
	if (fixed) {
		/* The kernel's check: page aligned and in canonical form. */
		if (*offset != i915_vm_canonical(*offset & ~(uint64_t)(TTM_PAGE_SIZE - 1)))
			return -EINVAL;
		start = i915_vm_noncanonical(*offset);
		if (size > end || start > end - size)
			return -EINVAL;
	}

	for (unsigned int busy_tries = 0;; busy_tries++) {
		struct dma_fence *wait = NULL, *drop[8];
		unsigned int ndrop = 0;
		bool pinned_elsewhere = false;

		pthread_mutex_lock(&i915->vm_lock);
		vma = vma_find_locked(vm, bo);
		if (!vma) {
			vma = fault_should_fail(&i915_fault_vm_alloc, sizeof(*vma))
				  ? NULL
				  : calloc(1, sizeof(*vma));
			if (!vma) {
				pthread_mutex_unlock(&i915->vm_lock);
				return -ENOMEM;
			}
			vma->vm = vm;
			vma->bo = bo;
			list_add_tail(&vma->vm_link, &vm->vmas);
			list_add(&vma->bo_link, vma_bucket(i915, bo));
			atomic_fetch_add(&i915->vmas.count, 1);
		}
		ret = 0;
		if (drm_mm_node_allocated(&vma->node) &&
		    ((fixed && vma->node.start != start) ||
		     vma->node.start + vma->node.size > end || vma->node.size != size)) {
			/* Misplaced: move it, once the GPU is done with the old range. */
			if (vma->pin_count) {
				ret = -ENOSPC;
				pinned_elsewhere = true;
			} else if (vma->active && !dma_fence_is_signaled(vma->active)) {
				wait = dma_fence_get(vma->active);
				ret = 1;
			} else {
				vma_unbind_locked(vma);
				drm_mm_remove_node(&vm->mm, &vma->node);
			}
		}
		if (!ret && !drm_mm_node_allocated(&vma->node)) {
			if (fixed) {
				memset(&vma->node, 0, sizeof(vma->node));
				vma->node.start = start;
				vma->node.size = size;
				ret = drm_mm_reserve_node(&vm->mm, &vma->node);
				if (ret == -ENOSPC) {
					/* Occupied: evict what is in the way (a walk of the VM). */
					ret = vm_evict_range_locked(vm, start, size, vma, false,
								    &wait, drop, &ndrop);
					pinned_elsewhere = ret == -ENOSPC;
					if (!ret)
						ret = drm_mm_reserve_node(&vm->mm, &vma->node);
				}
			} else {
				uint64_t hint = i915_vm_noncanonical(*offset);

				/*
				 * The caller's presumed address first, page 0
				 * included, without evicting (the kernel's PIN_NOEVICT
				 * hint in eb_pin_vma()), so its relocations stay valid
				 * and a VM shared by two contexts gives an object the
				 * address it had in the other; then anywhere but page 0.
				 */
				ret = -ENOSPC;
				if (!(hint & (TTM_PAGE_SIZE - 1)) &&
				    *offset == i915_vm_canonical(hint) && size <= end &&
				    hint <= end - size) {
					memset(&vma->node, 0, sizeof(vma->node));
					vma->node.start = hint;
					vma->node.size = size;
					ret = drm_mm_reserve_node(&vm->mm, &vma->node);
				}
				if (ret)
					ret = drm_mm_insert_node_in_range(
					    &vm->mm, &vma->node, size, TTM_PAGE_SIZE, 0,
					    TTM_PAGE_SIZE, end, DRM_MM_INSERT_LOW);
				if (ret == -ENOSPC) {
					/*
					 * The zone is full: evict every vma in it that
					 * no execbuffer holds (i915_gem_evict_vm()),
					 * then try once more.
					 */
					ret = vm_evict_range_locked(vm, TTM_PAGE_SIZE,
								    end - TTM_PAGE_SIZE, vma, true,
								    &wait, drop, &ndrop);
					if (!ret)
						ret = drm_mm_insert_node_in_range(
						    &vm->mm, &vma->node, size, TTM_PAGE_SIZE, 0,
						    TTM_PAGE_SIZE, end, DRM_MM_INSERT_LOW);
				}
			}
		}
		if (!ret && !vma->bound)
			ret = vma_bind_locked(vma);
		if (!ret) {
			vma->pin_count++;
			*offset = vma->node.start;
			*out = vma;
		} else if (!vma->pin_count && !drm_mm_node_allocated(&vma->node) && !vma->active) {
			/* Nothing worth keeping: a new vma that found no room. */
			vma_destroy_locked(vma);
		}
		pthread_mutex_unlock(&i915->vm_lock);
		for (unsigned int i = 0; i < ndrop; i++)
			dma_fence_put(drop[i]);
		if (ret == -ENOSPC && pinned_elsewhere && busy_tries < I915_VM_PIN_WAIT_TRIES) {
			/*
			 * The range is pinned by an execbuffer of another
			 * thread in flight (the same call's own softpins do
			 * not overlap, its caller checked): its pins go once it
			 * has submitted, as the kernel's do within its
			 * reservation passes. Wait for that, bounded, instead
			 * of failing a softpin that a moment later fits.
			 */
			struct timespec ts = {0, 1000000};

			nanosleep(&ts, NULL);
			continue;
		}
		if (ret != 1)
			return ret;
		ret = dma_fence_wait(wait, interruptible);
		dma_fence_put(wait);
		if (ret)
			return -EINTR;
	}
}

void i915_vma_unpin(struct i915_vma *vma, struct dma_fence *fence)
{
	struct i915_device *i915;
	struct dma_fence *old = NULL;

	if (!vma)
		return;
	i915 = vma->vm->i915;
	pthread_mutex_lock(&i915->vm_lock);
	if (vma->pin_count)
		vma->pin_count--;
	if (fence) {
		old = vma->active;
		vma->active = dma_fence_get(fence);
	}
	pthread_mutex_unlock(&i915->vm_lock);
	dma_fence_put(old);
}

int i915_vm_unbind_bo(struct i915_device *i915, struct ttm_buffer_object *bo, bool destroy,
		      bool no_wait)
{
	struct i915_vma *vma, *tmp;

	if (!i915 || !bo || !atomic_load(&i915->vmas.count))
		return 0;
	for (;;) {
		struct dma_fence *wait = NULL;
		struct list_head *bucket = vma_bucket(i915, bo);

		pthread_mutex_lock(&i915->vm_lock);
		list_for_each_entry (vma, bucket, struct i915_vma, bo_link) {
			if (vma->bo == bo && vma->active && !dma_fence_is_signaled(vma->active)) {
				wait = dma_fence_get(vma->active);
				break;
			}
		}
		if (!wait) {
			struct dma_fence *drop[16];
			unsigned int ndrop = 0;
			bool more = false;

			list_for_each_entry_safe (vma, tmp, bucket, struct i915_vma, bo_link) {
				if (vma->bo != bo)
					continue;
				vma_unbind_locked(vma);
				if (!destroy)
					continue;
				if (ndrop == 16) {
					more = true;
					break;
				}
				drop[ndrop++] = vma_destroy_locked(vma);
			}
			pthread_mutex_unlock(&i915->vm_lock);
			for (unsigned int i = 0; i < ndrop; i++)
				dma_fence_put(drop[i]);
			if (!more)
				return 0;
			continue;
		}
		pthread_mutex_unlock(&i915->vm_lock);
		if (no_wait) {
			dma_fence_put(wait);
			return -EBUSY;
		}
		dma_fence_wait(wait, false);
		dma_fence_put(wait);
	}
}

int i915_vm_lookup(struct i915_address_space *vm, struct ttm_buffer_object *bo, uint64_t *offset,
		   bool *bound)
{
	struct i915_vma *vma;
	int ret = -ENOENT;

	if (!vm || !bo)
		return -EINVAL;
	pthread_mutex_lock(&vm->i915->vm_lock);
	vma = vma_find_locked(vm, bo);
	if (vma && drm_mm_node_allocated(&vma->node)) {
		if (offset)
			*offset = vma->node.start;
		if (bound)
			*bound = vma->bound;
		ret = 0;
	}
	pthread_mutex_unlock(&vm->i915->vm_lock);
	return ret;
}

uint64_t i915_vm_read_pte(struct i915_address_space *vm, uint64_t index)
{
	struct i915_backend *be;

	if (!vm)
		return 0;
	be = vm->i915->be;
	return be->ops->vm_read_pte(be, vm->handle, index);
}
