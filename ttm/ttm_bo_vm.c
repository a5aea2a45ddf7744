// SPDX-License-Identifier: MIT
/*
 * CPU mappings of buffer objects: one fault-populated range per mapped BO,
 * migration to CPU-reachable memory on fault, write-back and invalidation
 * before every move. See ttm_bo_vm.h for the contract.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <ttm/ttm_bo_vm.h>
#include <ttm/ttm_faults.h>

#define BO_VM_PAGE_SIZE 4096ul

struct ttm_bo_vm;

/**
 * struct ttm_bo_vm_map - one CPU view of a BO: the shared range of
 * ttm_bo_mmap() (the BO's primary map) or a process mapping made by
 * ttm_bo_vm_mmap_vma() (a kernel vma).
 * @range: its addresses and page states; @range.priv points here.
 * @vm: the BO's mapping state.
 * @pgoff: the BO page shown at the first page of @range.
 * @fops, @fpriv: the open/close hooks of a process mapping (NULL: none).
 * @link: entry in the BO's @vm->maps (BO reservation).
 * @all: entry in ttm_bo_vm_vmas, process mappings only (ttm_bo_vm_lock).
 * @is_vma: a process mapping.
 * @seq: when the mapping was made (ttm_bo_vm_lock; a split keeps it): a
 *	munmap leaves mappings made after it started alone.
 * @gone: unlinked, torn down once unreserved; faults SIGBUS (reservation).
 */
struct ttm_bo_vm_map {
	struct ttm_vm_range range;
	struct ttm_bo_vm *vm;
	unsigned long pgoff;
	const struct ttm_bo_vm_fault_ops *fops;
	void *fpriv;
	struct list_head link;
	struct list_head all;
	bool is_vma;
	uint64_t seq;
	bool gone;
};

/**
 * struct ttm_bo_vm - the mapping state of one BO (bo->vm).
 * @bo: the BO; @vm holds a reference on it.
 * @primary: the shared range of ttm_bo_mmap() (when @has_primary).
 * @fops, @fpriv: the owner's fault-time placement hooks (NULL: none) and
 *	their argument; fixed at the first map.
 * @places: copy of the CPU placement given at the first map (NULL: none);
 *	with @fops, room for TTM_NUM_MEM_TYPES places that every fault
 *	refills under the reservation.
 * @placement: points at @places.
 * @migrations, @bytes_migrated: moves done by faults (atomic).
 *
 * Protected by the BO's reservation:
 * @map_count: ttm_bo_mmap() calls not yet matched by ttm_bo_munmap().
 * @vmas: process mappings (ttm_bo_vm_vma_get()) not yet unmapped.
 * @has_primary: @primary was set up (by the first ttm_bo_mmap()).
 * @maps: every map of the BO (@primary and process mappings).
 * @nr_maps: entries of @maps; @nr_vma_maps: process mappings among them.
 * @released: the owner called ttm_bo_vm_release().
 * @dead: detached from the BO; faults SIGBUS until the range is gone.
 * @wb_io: during an invalidation of an io resource, its CPU address.
 * @caching: caching mode of the backing installed last.
 * @unmap_seq: ttm_bo_vm_unmap_virtual() calls so far.
 * @shared: ttm_bo_vm_fault_backing() handed pages out since the last one.
 */
struct ttm_bo_vm {
	struct ttm_buffer_object *bo;
	struct ttm_bo_vm_map primary;
	const struct ttm_bo_vm_fault_ops *fops;
	void *fpriv;
	struct ttm_place *places;
	struct ttm_placement placement;
	_Atomic uint64_t migrations;
	_Atomic uint64_t bytes_migrated;

	unsigned map_count;
	unsigned vmas;
	bool has_primary;
	struct list_head maps;
	unsigned nr_maps;
	unsigned nr_vma_maps;
	bool released;
	bool dead;
	uint8_t *wb_io;
	enum ttm_caching caching;
	uint64_t unmap_seq;
	bool shared;
};

/* The process-wide hook of ttm_bo_vm_set_unmap_hook(). */
static _Atomic(ttm_bo_vm_unmap_hook_t) ttm_bo_vm_unmap_hook;

void ttm_bo_vm_set_unmap_hook(ttm_bo_vm_unmap_hook_t hook)
{
	atomic_store(&ttm_bo_vm_unmap_hook, hook);
}

/*
 * The process-wide engine, created by the first map. Guarded by
 * ttm_bo_vm_lock, which is taken after BO reservations and never around a
 * fault.
 */
static pthread_mutex_t ttm_bo_vm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ttm_vm_fault_engine ttm_bo_vm_engine;
static bool ttm_bo_vm_engine_live;
static enum ttm_vm_fault_mode ttm_bo_vm_want = TTM_VM_FAULT_AUTO;
static unsigned long ttm_bo_vm_ranges;
/* Every process mapping (struct ttm_bo_vm_map.all), for munmap by address. */
static struct list_head ttm_bo_vm_vmas = LIST_HEAD_INIT(ttm_bo_vm_vmas);
static uint64_t ttm_bo_vm_vma_seq;

static int ttm_bo_vm_engine_get(struct ttm_vm_fault_engine **eng)
{
	int ret = 0;

	pthread_mutex_lock(&ttm_bo_vm_lock);
	if (!ttm_bo_vm_engine_live) {
		ret = ttm_vm_fault_engine_init(&ttm_bo_vm_engine, ttm_bo_vm_want);
		ttm_bo_vm_engine_live = !ret;
	}
	if (!ret) {
		ttm_bo_vm_ranges++;
		*eng = &ttm_bo_vm_engine;
	}
	pthread_mutex_unlock(&ttm_bo_vm_lock);
	return ret;
}

static void ttm_bo_vm_engine_put(void)
{
	pthread_mutex_lock(&ttm_bo_vm_lock);
	ttm_bo_vm_ranges--;
	pthread_mutex_unlock(&ttm_bo_vm_lock);
}

int ttm_bo_vm_set_mode(enum ttm_vm_fault_mode mode)
{
	int ret;

	pthread_mutex_lock(&ttm_bo_vm_lock);
	if (ttm_bo_vm_ranges) {
		pthread_mutex_unlock(&ttm_bo_vm_lock);
		return -EBUSY;
	}
	/* The handler thread points at the engine: it is rebuilt in place, never copied. */
	if (ttm_bo_vm_engine_live)
		ttm_vm_fault_engine_fini(&ttm_bo_vm_engine);
	ret = ttm_vm_fault_engine_init(&ttm_bo_vm_engine, mode);
	if (!ret)
		ttm_bo_vm_want = mode;
	/* On failure the next map sets up the previous mode again. */
	ttm_bo_vm_engine_live = !ret;
	pthread_mutex_unlock(&ttm_bo_vm_lock);
	return ret;
}

enum ttm_vm_fault_mode ttm_bo_vm_mode(void)
{
	enum ttm_vm_fault_mode mode = TTM_VM_FAULT_AUTO;

	pthread_mutex_lock(&ttm_bo_vm_lock);
	if (!ttm_bo_vm_engine_live)
		ttm_bo_vm_engine_live =
		    !ttm_vm_fault_engine_init(&ttm_bo_vm_engine, ttm_bo_vm_want);
	if (ttm_bo_vm_engine_live)
		mode = ttm_bo_vm_engine.mode;
	pthread_mutex_unlock(&ttm_bo_vm_lock);
	return mode;
}

/*
 * Devices whose GPU does not snoop the CPU cache (ttm_bo_vm_set_cpu_cache()).
 * A small fixed table: a process drives a handful of devices, and a leaf
 * lock of its own keeps the fault path out of ttm_bo_vm_lock.
 */
#define TTM_BO_VM_MAX_NONSNOOP 16
static pthread_mutex_t ttm_bo_vm_nonsnoop_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct ttm_device *ttm_bo_vm_nonsnoop[TTM_BO_VM_MAX_NONSNOOP];

int ttm_bo_vm_set_cpu_cache(struct ttm_device *bdev, bool model)
{
	int ret = model ? -ENOSPC : 0;
	unsigned int i;

	if (!bdev)
		return -EINVAL;
	pthread_mutex_lock(&ttm_bo_vm_nonsnoop_lock);
	for (i = 0; i < TTM_BO_VM_MAX_NONSNOOP; i++) {
		if (ttm_bo_vm_nonsnoop[i] == bdev) {
			if (!model)
				ttm_bo_vm_nonsnoop[i] = NULL;
			ret = 0;
			break;
		}
	}
	for (i = 0; model && ret && i < TTM_BO_VM_MAX_NONSNOOP; i++) {
		if (!ttm_bo_vm_nonsnoop[i]) {
			ttm_bo_vm_nonsnoop[i] = bdev;
			ret = 0;
		}
	}
	pthread_mutex_unlock(&ttm_bo_vm_nonsnoop_lock);
	return ret;
}

static bool ttm_bo_vm_models_cpu_cache(const struct ttm_device *bdev)
{
	bool found = false;

	pthread_mutex_lock(&ttm_bo_vm_nonsnoop_lock);
	for (unsigned int i = 0; i < TTM_BO_VM_MAX_NONSNOOP && !found; i++)
		found = ttm_bo_vm_nonsnoop[i] == bdev;
	pthread_mutex_unlock(&ttm_bo_vm_nonsnoop_lock);
	return found;
}

static bool ttm_bo_vm_res_uses_tt(struct ttm_buffer_object *bo, struct ttm_resource *res)
{
	struct ttm_resource_manager *man = ttm_manager_type(bo->bdev, res->mem_type);

	return res->mem_type == TTM_PL_SYSTEM || (man && man->use_tt);
}

/* The CPU address of io resource @res, or NULL; pair with ttm_bo_vm_io_free(). */
static uint8_t *ttm_bo_vm_io_reserve(struct ttm_device *bdev, struct ttm_resource *res)
{
	if (!bdev->funcs->io_mem_reserve || bdev->funcs->io_mem_reserve(bdev, res))
		return NULL;
	if (!res->bus.addr) {
		if (bdev->funcs->io_mem_free)
			bdev->funcs->io_mem_free(bdev, res);
		return NULL;
	}
	return res->bus.addr;
}

static void ttm_bo_vm_io_free(struct ttm_device *bdev, struct ttm_resource *res)
{
	if (bdev->funcs->io_mem_free)
		bdev->funcs->io_mem_free(bdev, res);
}

/* A copied page goes back to wherever the BO still is (reserved). */
static void ttm_bo_vm_writeback(struct ttm_vm_range *range, unsigned long page, const void *data)
{
	struct ttm_bo_vm_map *map = range->priv;
	struct ttm_bo_vm *vm = map->vm;
	struct ttm_buffer_object *bo = vm->bo;
	void *dst = NULL;

	page += map->pgoff;
	if (vm->wb_io)
		dst = vm->wb_io + page * BO_VM_PAGE_SIZE;
	else if (bo->ttm && ttm_tt_is_populated(bo->ttm))
		dst = ttm_tt_page_ptr(bo->ttm, page);
	/* No storage: the BO was gutted without a tt, its content is gone anyway. */
	if (dst)
		memcpy(dst, data, BO_VM_PAGE_SIZE);
}

/*
 * Writes the copies of @only (NULL: of every map of @bo) back and makes
 * its pages absent. Reserved.
 */
static void ttm_bo_vm_invalidate(struct ttm_buffer_object *bo, struct ttm_bo_vm_map *only)
{
	struct ttm_bo_vm *vm = bo->vm;
	struct ttm_resource *res = bo->resource;
	struct ttm_bo_vm_map *map;
	bool io = false, present = false;

	list_for_each_entry (map, &vm->maps, struct ttm_bo_vm_map, link)
		present |= (!only || map == only) && map->range.nr_present;
	if (!present)
		return;
	if (res && !ttm_bo_vm_res_uses_tt(bo, res)) {
		vm->wb_io = ttm_bo_vm_io_reserve(bo->bdev, res);
		io = vm->wb_io != NULL;
	}
	list_for_each_entry (map, &vm->maps, struct ttm_bo_vm_map, link)
		if (!only || map == only)
			ttm_vm_range_invalidate(&map->range);
	if (io)
		ttm_bo_vm_io_free(bo->bdev, res);
	vm->wb_io = NULL;
}

void ttm_bo_vm_unmap_virtual(struct ttm_buffer_object *bo)
{
	struct ttm_bo_vm *vm = bo->vm;
	ttm_bo_vm_unmap_hook_t hook;

	if (!vm)
		return;
	ttm_bo_vm_invalidate(bo, NULL);
	vm->unmap_seq++;
	hook = atomic_load(&ttm_bo_vm_unmap_hook);
	if (vm->shared && hook) {
		vm->shared = false;
		hook(bo, vm->unmap_seq);
	}
}

void ttm_bo_vm_flush(struct ttm_buffer_object *bo)
{
	if (bo->vm)
		ttm_bo_vm_invalidate(bo, NULL);
}

void ttm_bo_vm_flush_range(struct ttm_buffer_object *bo, uint64_t offset, uint64_t size)
{
	struct ttm_bo_vm *vm = bo->vm;
	struct ttm_resource *res = bo->resource;
	struct ttm_bo_vm_map *map;
	uint64_t first, end;
	bool io = false;

	if (!vm || !size || offset >= bo->size)
		return;
	first = offset / BO_VM_PAGE_SIZE;
	end = size > bo->size - offset ? bo->size : offset + size;
	end = (end + BO_VM_PAGE_SIZE - 1) / BO_VM_PAGE_SIZE;
	if (res && !ttm_bo_vm_res_uses_tt(bo, res)) {
		vm->wb_io = ttm_bo_vm_io_reserve(bo->bdev, res);
		io = vm->wb_io != NULL;
	}
	list_for_each_entry (map, &vm->maps, struct ttm_bo_vm_map, link) {
		uint64_t s = first > map->pgoff ? first : map->pgoff;
		uint64_t e = end < map->pgoff + map->range.num_pages
				 ? end
				 : map->pgoff + map->range.num_pages;

		if (s < e)
			ttm_vm_range_drop_copies(&map->range, (unsigned long)(s - map->pgoff),
						 (unsigned long)(e - s));
	}
	if (io)
		ttm_bo_vm_io_free(bo->bdev, res);
	vm->wb_io = NULL;
}

void ttm_bo_vm_init_device(struct ttm_device *bdev)
{
	if (bdev->unmap_virtual != ttm_bo_vm_unmap_virtual)
		bdev->unmap_virtual = ttm_bo_vm_unmap_virtual;
}

/*
 * SYSTEM has no size to check page ranges against (ttm_resource_compatible()
 * sees every SYSTEM resource as out of range), so for it the type decides.
 */
static bool ttm_bo_vm_placement_ok(struct ttm_bo_vm *vm, struct ttm_resource *res)
{
	if (res->mem_type == TTM_PL_SYSTEM) {
		for (unsigned i = 0; i < vm->placement.num_placement; i++)
			if (vm->places[i].mem_type == TTM_PL_SYSTEM)
				return true;
		return false;
	}
	return ttm_resource_compatible(ttm_manager_type(vm->bo->bdev, res->mem_type), res,
				       &vm->placement, false);
}

/*
 * Whether the CPU can use @bo where it is: a tt-backed resource, or an io
 * resource the driver gives an address for; and inside the CPU placement
 * when one was given.
 */
static bool ttm_bo_vm_in_place(struct ttm_bo_vm *vm)
{
	struct ttm_buffer_object *bo = vm->bo;
	struct ttm_resource *res = bo->resource;
	uint8_t *io;

	if (!res)
		return false;
	if (vm->places && !ttm_bo_vm_placement_ok(vm, res))
		return false;
	if (ttm_bo_vm_res_uses_tt(bo, res))
		return true;
	io = ttm_bo_vm_io_reserve(bo->bdev, res);
	if (!io)
		return false;
	ttm_bo_vm_io_free(bo->bdev, res);
	return true;
}

static int ttm_bo_vm_migrate(struct ttm_bo_vm *vm, struct ttm_operation_ctx *ctx)
{
	static const struct ttm_place sys_place = {.mem_type = TTM_PL_SYSTEM};
	static const struct ttm_placement sys_placement = {1, &sys_place};
	struct ttm_buffer_object *bo = vm->bo;
	uint64_t moves = ctx->moves, bytes = ctx->bytes_moved;
	int ret;

	ret = ttm_bo_validate(bo, vm->places ? &vm->placement : &sys_placement, ctx);
	if (ret)
		return ret;
	if (ctx->moves != moves) {
		atomic_fetch_add(&vm->migrations, 1);
		atomic_fetch_add(&vm->bytes_migrated, ctx->bytes_moved - bytes);
	}
	return ttm_bo_vm_in_place(vm) ? 0 : -EIO;
}

/*
 * Page descriptors a fault assembles at once: one pool block of the largest
 * order, the longest run of memfd pages one remap can take (blocks are not
 * adjacent in the arena in general). A larger window is installed in
 * several calls; 64-page batches (eight times the remaps) cost a migrating
 * fault of a 64 MiB BO about 2 ms more CPU time (of 16-20). The array
 * (24 KiB at order 10) lives on the stack of the thread serving the fault (the fault
 * engine's, never the accessing thread's signal handler).
 */
#define BO_VM_BATCH (1ul << TTM_POOL_MAX_ORDER)

/*
 * Before @map installs BO pages [@first, @first + @n): the other maps of
 * the BO drop their private copies of those pages (written back first), so
 * every map sees one content, as several mappings of one page do. Zero-copy
 * pages are shared and stay. Reserved; an io resource's address in
 * vm->wb_io.
 */
static void ttm_bo_vm_exclusive(struct ttm_bo_vm_map *map, unsigned long first, unsigned long n)
{
	struct ttm_bo_vm_map *o;

	if (map->vm->nr_maps < 2)
		return;
	list_for_each_entry (o, &map->vm->maps, struct ttm_bo_vm_map, link) {
		unsigned long s = first > o->pgoff ? first : o->pgoff;
		unsigned long e = first + n < o->pgoff + o->range.num_pages
				      ? first + n
				      : o->pgoff + o->range.num_pages;

		if (o != map && s < e)
			ttm_vm_range_drop_copies(&o->range, s - o->pgoff, e - s);
	}
}

/*
 * Installs pages [@first, @first + @n) of @map from the BO's current
 * storage, in batches. Reserved, the tt (if any) populated.
 */
static int ttm_bo_vm_install_span(struct ttm_bo_vm_map *map, unsigned long first, unsigned long n,
				  bool shadow, uint8_t *io)
{
	struct ttm_vm_page pages[BO_VM_BATCH];
	struct ttm_bo_vm *vm = map->vm;
	struct ttm_buffer_object *bo = vm->bo;
	enum ttm_caching caching = io ? ttm_write_combined : bo->ttm->caching;

	while (n) {
		unsigned long k = n < BO_VM_BATCH ? n : BO_VM_BATCH, i;
		long ret;

		for (i = 0; i < k; i++) {
			unsigned long bo_page = map->pgoff + first + i;
			void *src;
			uint64_t off;
			int fd;

			if (io) {
				pages[i] = (struct ttm_vm_page){
				    .src = io + bo_page * BO_VM_PAGE_SIZE, .fd = -1};
				continue;
			}
			src = ttm_tt_page_ptr(bo->ttm, bo_page);
			if (!src)
				return -EFAULT;
			/*
			 * Pool pages are mapped shared, the CPU view then is
			 * the tt page itself; pages the pool cannot place (a
			 * driver's own tt) are copied and written back.
			 */
			if (!shadow && !ttm_pool_page_backing(&bo->bdev->pool, src, &fd, &off))
				pages[i] = (struct ttm_vm_page){.fd = fd, .offset = off};
			else
				pages[i] = (struct ttm_vm_page){.src = src, .fd = -1};
		}
		vm->wb_io = io;
		ttm_bo_vm_exclusive(map, map->pgoff + first, k);
		vm->wb_io = NULL;
		ret = ttm_vm_range_install(&map->range, first, k, pages, caching);
		if (ret < 0)
			return (int)ret;
		/* Recorded per batch: a later batch failing leaves these installed. */
		vm->caching = caching;
		first += k;
		n -= k;
	}
	return 0;
}

/*
 * Installs the prefault window holding @page from the BO's current storage;
 * with @whole (the fault just moved the BO, so all of it is resident) the
 * rest of the BO as well when its pages are mapped zero-copy. Only a failure
 * on the window is an error: the other pages are a prefault, as in the
 * kernel's fault handler, and fault again later if they could not be mapped.
 */
static int ttm_bo_vm_install(struct ttm_bo_vm_map *map, unsigned long page, bool whole,
			     struct ttm_operation_ctx *ctx)
{
	struct ttm_buffer_object *bo = map->vm->bo;
	struct ttm_resource *res = bo->resource;
	unsigned long num = map->range.num_pages;
	unsigned long first = page - page % TTM_VM_FAULT_PREFAULT;
	unsigned long n = TTM_VM_FAULT_PREFAULT;
	bool shadow = false;
	uint8_t *io = NULL;
	int ret;

	if (first + n > num)
		n = num - first;
	if (ttm_bo_vm_res_uses_tt(bo, res)) {
		uint64_t off;
		int fd;

		ret = ttm_bo_populate(bo, ctx);
		if (ret)
			return ret;
		/*
		 * A cached view on a GPU that does not snoop: the copy stands
		 * for the CPU cache, so the GPU sees the tt (memory) without
		 * the CPU's writes until a flush writes the copy back.
		 */
		shadow = bo->ttm->caching == ttm_cached && ttm_bo_vm_models_cpu_cache(bo->bdev);
		/*
		 * Only zero-copy pages are worth installing ahead: a copied
		 * BO would be copied a second time, whole, for one touch.
		 */
		whole =
		    whole && !shadow &&
		    !ttm_pool_page_backing(&bo->bdev->pool,
					   ttm_tt_page_ptr(bo->ttm, map->pgoff + page), &fd, &off);
	} else {
		io = ttm_bo_vm_io_reserve(bo->bdev, res);
		if (!io)
			return -EIO;
		whole = false;
	}
	ret = ttm_bo_vm_install_span(map, first, n, shadow, io);
	if (!ret && whole) {
		ttm_bo_vm_install_span(map, 0, first, false, NULL);
		ttm_bo_vm_install_span(map, first + n, num - first - n, false, NULL);
	}
	if (io)
		ttm_bo_vm_io_free(bo->bdev, res);
	return ret;
}

static bool ttm_bo_vm_fence_in(struct dma_fence *fence, struct dma_fence **set, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (set[i] == fence)
			return true;
	return false;
}

/*
 * After a migration: the move may be pipelined (the driver returned with
 * its copy queued behind a KERNEL-usage fence, ttm_bo_move_accel_cleanup()),
 * so the new home holds the content only once that fence signalled. A
 * move fence signalled with an error left no trustworthy copy for the CPU:
 * the fault fails (SIGBUS). Fences in @before were there before the
 * migration; an error of theirs is an older move's and not this fault's.
 * Reserved.
 */
static int ttm_bo_vm_wait_move(struct ttm_buffer_object *bo, struct dma_fence **before,
			       unsigned n_before)
{
	struct dma_fence *fence;
	int64_t lret;
	unsigned i;

	lret = dma_resv_wait_timeout(bo->resv, DMA_RESV_USAGE_KERNEL, false, INT64_MAX);
	if (lret < 0)
		return (int)lret;
	dma_resv_for_each_fence (bo->resv, DMA_RESV_USAGE_KERNEL, i, fence) {
		if (dma_fence_get_status(fence) < 0 && !ttm_bo_vm_fence_in(fence, before, n_before))
			return -EIO;
	}
	return 0;
}

static int ttm_bo_vm_populate(struct ttm_vm_range *range, unsigned long page)
{
	struct ttm_bo_vm_map *map = range->priv;
	struct ttm_bo_vm *vm = map->vm;
	struct ttm_buffer_object *bo = vm->bo;
	struct ttm_operation_ctx ctx = {0};
	struct dma_fence **before = NULL;
	unsigned n_before = 0;
	bool moved = false, began = false;
	int64_t lret;
	int ret;

	for (;;) {
		ret = ttm_bo_reserve(bo, false, false, NULL);
		if (ret)
			return ret;
		if (vm->dead || map->gone) {
			ret = -ENODEV;
			goto out;
		}
		/* A munmap or mremap split the mapping while the fault waited. */
		if (page >= range->num_pages) {
			ttm_bo_unreserve(bo);
			return -EAGAIN;
		}
		if (!vm->fops)
			break;
		vm->placement.num_placement = 0;
		ret = vm->fops->begin(vm->fpriv, bo, &vm->placement);
		if (ret != -EAGAIN)
			break;
		/* The owner's lock is busy: wait for it unreserved, as a fault retry. */
		ttm_bo_unreserve(bo);
		vm->fops->wait(vm->fpriv);
	}
	if (vm->fops) {
		if (ret)
			goto out;
		began = true;
		if (!vm->placement.num_placement) {
			ret = -ENOSPC;
			goto out;
		}
	}
	/*
	 * The CPU must not see the page before the GPU finished writing it,
	 * unless the owner's faults are asynchronous as the kernel's: those
	 * wait only for a pending move or clear (KERNEL usage).
	 */
	lret = dma_resv_wait_timeout(bo->resv,
				     vm->fops && vm->fops->no_gpu_wait ? DMA_RESV_USAGE_KERNEL
								       : DMA_RESV_USAGE_WRITE,
				     false, INT64_MAX);
	if (lret < 0) {
		ret = (int)lret;
		goto out;
	}
	if (!ttm_bo_vm_in_place(vm)) {
		ret = dma_resv_get_fences(bo->resv, DMA_RESV_USAGE_KERNEL, &n_before, &before);
		if (ret)
			goto out;
		ret = ttm_bo_vm_migrate(vm, &ctx);
		if (ret)
			goto out;
		moved = ctx.moves != 0;
		if (moved) {
			ret = ttm_bo_vm_wait_move(bo, before, n_before);
			if (ret)
				goto out;
		}
	}
	ret = ttm_bo_vm_install(map, page, moved, &ctx);
out:
	/* -EAGAIN would ask the engine to retry the access: only for a split. */
	if (ret == -EAGAIN)
		ret = -EIO;
	ttm_bo_unreserve(bo);
	if (began)
		vm->fops->end(vm->fpriv);
	dma_resv_put_fences(before, n_before);
	return ret;
}

static const struct ttm_vm_range_ops ttm_bo_vm_range_ops = {
    .populate = ttm_bo_vm_populate,
    .writeback = ttm_bo_vm_writeback,
};

/* The mapping state of @bo without any range yet. Reserved. */
static struct ttm_bo_vm *ttm_bo_vm_create(struct ttm_buffer_object *bo,
					  const struct ttm_placement *cpu_placement,
					  const struct ttm_bo_vm_fault_ops *fops, void *fpriv,
					  int *err)
{
	struct ttm_bo_vm *vm;

	vm = fault_should_fail(&ttm_fault_map_alloc, sizeof(*vm)) ? NULL : calloc(1, sizeof(*vm));
	if (!vm) {
		*err = -ENOMEM;
		return NULL;
	}
	vm->bo = bo;
	vm->caching = ttm_cached;
	vm->fops = fops;
	vm->fpriv = fpriv;
	INIT_LIST_HEAD(&vm->maps);
	if (fops) {
		vm->places = fault_should_fail(&ttm_fault_map_alloc, sizeof(*vm->places))
				 ? NULL
				 : calloc(TTM_NUM_MEM_TYPES, sizeof(*vm->places));
		if (!vm->places)
			goto err_free;
		vm->placement.placement = vm->places;
	} else if (cpu_placement) {
		vm->places = fault_should_fail(&ttm_fault_map_alloc, sizeof(*vm->places))
				 ? NULL
				 : calloc(cpu_placement->num_placement, sizeof(*vm->places));
		if (!vm->places)
			goto err_free;
		memcpy(vm->places, cpu_placement->placement,
		       cpu_placement->num_placement * sizeof(*vm->places));
		vm->placement.num_placement = cpu_placement->num_placement;
		vm->placement.placement = vm->places;
	}
	ttm_bo_get(bo);
	ttm_bo_vm_init_device(bo->bdev);
	bo->vm = vm;
	return vm;

err_free:
	free(vm);
	*err = -ENOMEM;
	return NULL;
}

/* Sets up @map's range for BO pages [@pgoff, @pgoff + @num) at @hint. Reserved. */
static int ttm_bo_vm_map_init(struct ttm_bo_vm *vm, struct ttm_bo_vm_map *map, unsigned long pgoff,
			      unsigned long num, void *hint, int flags)
{
	struct ttm_vm_fault_engine *eng;
	int ret;

	map->vm = vm;
	map->pgoff = pgoff;
	INIT_LIST_HEAD(&map->all);
	ret = ttm_bo_vm_engine_get(&eng);
	if (ret)
		return ret;
	ret = ttm_vm_range_init_at(eng, &map->range, num, &ttm_bo_vm_range_ops, map, hint, flags);
	if (ret) {
		ttm_bo_vm_engine_put();
		return ret;
	}
	list_add_tail(&map->link, &vm->maps);
	vm->nr_maps++;
	return 0;
}

/* Unlinks @map from its BO (reserved); ttm_bo_vm_map_fini() follows unreserved. */
static void ttm_bo_vm_map_unlink(struct ttm_bo_vm_map *map)
{
	struct ttm_bo_vm *vm = map->vm;

	map->gone = true;
	list_del_init(&map->link);
	vm->nr_maps--;
	if (map->is_vma) {
		vm->nr_vma_maps--;
		pthread_mutex_lock(&ttm_bo_vm_lock);
		list_del_init(&map->all);
		pthread_mutex_unlock(&ttm_bo_vm_lock);
	}
}

/* Tears an unlinked map's range down; not reserved (a fault may wait for it). */
static void ttm_bo_vm_map_fini(struct ttm_bo_vm_map *map)
{
	ttm_vm_range_fini(&map->range);
	ttm_bo_vm_engine_put();
}

/* Tear a detached mapping state down; not reserved (a fault may be waiting for it). */
static void ttm_bo_vm_destroy(struct ttm_bo_vm *vm)
{
	struct ttm_buffer_object *bo = vm->bo;

	if (vm->has_primary)
		ttm_bo_vm_map_fini(&vm->primary);
	free(vm->places);
	free(vm);
	ttm_bo_put(bo);
}

/* Whether nothing holds @vm any more. Reserved. */
static bool ttm_bo_vm_unused(struct ttm_bo_vm *vm)
{
	return vm->released && !vm->map_count && !vm->vmas && !vm->nr_vma_maps;
}

/* Detach @bo's mapping after writing CPU copies back. Reserved. */
static struct ttm_bo_vm *ttm_bo_vm_detach(struct ttm_buffer_object *bo)
{
	struct ttm_bo_vm *vm = bo->vm;

	ttm_bo_vm_unmap_virtual(bo);
	if (vm->has_primary)
		ttm_bo_vm_map_unlink(&vm->primary);
	vm->dead = true;
	bo->vm = NULL;
	return vm;
}

static int ttm_bo_mmap_common(struct ttm_buffer_object *bo,
			      const struct ttm_placement *cpu_placement,
			      const struct ttm_bo_vm_fault_ops *fops, void *fpriv,
			      struct ttm_operation_ctx *ctx, void **addr)
{
	struct ttm_bo_vm *vm;
	int64_t lret;
	int ret;

	ret = ttm_bo_reserve(bo, ctx->interruptible, false, NULL);
	if (ret)
		return ret;
	if (ctx->no_wait_gpu) {
		if (!dma_resv_test_signaled(bo->resv, DMA_RESV_USAGE_WRITE)) {
			ret = -EBUSY;
			goto out;
		}
	} else {
		lret = dma_resv_wait_timeout(bo->resv, DMA_RESV_USAGE_WRITE, ctx->interruptible,
					     INT64_MAX);
		if (lret < 0) {
			ret = (int)lret;
			goto out;
		}
	}
	vm = bo->vm;
	if (!vm) {
		vm = ttm_bo_vm_create(bo, cpu_placement, fops, fpriv, &ret);
		if (!vm)
			goto out;
	}
	if (!vm->has_primary) {
		ret = ttm_bo_vm_map_init(vm, &vm->primary, 0, bo->size / BO_VM_PAGE_SIZE, NULL, 0);
		if (ret)
			goto out;
		vm->has_primary = true;
	}
	vm->map_count++;
	*addr = vm->primary.range.addr;
out:
	ttm_bo_unreserve(bo);
	return ret;
}

int ttm_bo_mmap(struct ttm_buffer_object *bo, const struct ttm_placement *cpu_placement,
		struct ttm_operation_ctx *ctx, void **addr)
{
	if (!bo || !ctx || !addr || bo->type == ttm_bo_type_kernel || !bo->size ||
	    bo->size % BO_VM_PAGE_SIZE ||
	    (cpu_placement && (!cpu_placement->num_placement || !cpu_placement->placement)))
		return -EINVAL;
	return ttm_bo_mmap_common(bo, cpu_placement, NULL, NULL, ctx, addr);
}

int ttm_bo_mmap_hooked(struct ttm_buffer_object *bo, const struct ttm_bo_vm_fault_ops *fops,
		       void *fpriv, struct ttm_operation_ctx *ctx, void **addr)
{
	if (!bo || !fops || !fops->begin || !fops->wait || !fops->end || !ctx || !addr ||
	    bo->type == ttm_bo_type_kernel || !bo->size || bo->size % BO_VM_PAGE_SIZE)
		return -EINVAL;
	return ttm_bo_mmap_common(bo, NULL, fops, fpriv, ctx, addr);
}

int ttm_bo_munmap(struct ttm_buffer_object *bo)
{
	struct ttm_bo_vm *vm, *gone = NULL;
	int ret;

	if (!bo)
		return -EINVAL;
	ret = ttm_bo_reserve(bo, false, false, NULL);
	if (ret)
		return ret;
	vm = bo->vm;
	if (!vm || !vm->map_count) {
		ttm_bo_unreserve(bo);
		return -EINVAL;
	}
	if (--vm->map_count == 0 && ttm_bo_vm_unused(vm))
		gone = ttm_bo_vm_detach(bo);
	ttm_bo_unreserve(bo);
	if (gone)
		ttm_bo_vm_destroy(gone);
	return 0;
}

void ttm_bo_vm_release(struct ttm_buffer_object *bo)
{
	struct ttm_bo_vm *gone = NULL;

	if (!bo || ttm_bo_reserve(bo, false, false, NULL))
		return;
	if (bo->vm) {
		bo->vm->released = true;
		if (ttm_bo_vm_unused(bo->vm))
			gone = ttm_bo_vm_detach(bo);
	}
	ttm_bo_unreserve(bo);
	if (gone)
		ttm_bo_vm_destroy(gone);
}

int ttm_bo_vm_vma_get(struct ttm_buffer_object *bo, void **addr)
{
	int ret;

	if (!bo || !addr)
		return -EINVAL;
	ret = ttm_bo_reserve(bo, false, false, NULL);
	if (ret)
		return ret;
	if (bo->vm && bo->vm->has_primary) {
		bo->vm->vmas++;
		*addr = bo->vm->primary.range.addr;
	} else {
		ret = -EINVAL;
	}
	ttm_bo_unreserve(bo);
	return ret;
}

int ttm_bo_vm_vma_put(void *addr)
{
	struct ttm_vm_range *range = ttm_vm_range_get(addr);
	struct ttm_bo_vm *vm, *gone = NULL;
	struct ttm_buffer_object *bo;
	struct ttm_bo_vm_map *map;
	int ret = -EINVAL;

	if (!range)
		return -EINVAL;
	map = range->priv;
	if (range->ops != &ttm_bo_vm_range_ops || range->addr != (uint8_t *)addr || map->is_vma) {
		ttm_vm_range_put(range);
		return -EINVAL;
	}
	/*
	 * The pinned range cannot be torn down, so its BO reference is still
	 * there to copy; the pin goes before anything that may tear it down.
	 */
	vm = map->vm;
	bo = vm->bo;
	ttm_bo_get(bo);
	ttm_vm_range_put(range);

	if (!ttm_bo_reserve(bo, false, false, NULL)) {
		if (bo->vm == vm && vm->vmas) {
			ret = 0;
			if (--vm->vmas == 0 && ttm_bo_vm_unused(vm))
				gone = ttm_bo_vm_detach(bo);
		}
		ttm_bo_unreserve(bo);
	}
	if (gone)
		ttm_bo_vm_destroy(gone);
	ttm_bo_put(bo);
	return ret;
}

/* ---- process mappings (one per mmap(2), as the kernel's vmas) ---- */

int ttm_bo_vm_mmap_vma(struct ttm_buffer_object *bo, const struct ttm_bo_vm_fault_ops *fops,
		       void *fpriv, uint64_t pgoff, unsigned long num_pages, void *hint, int flags,
		       struct ttm_operation_ctx *ctx, void **addr)
{
	struct ttm_bo_vm_map *map;
	struct ttm_bo_vm *vm;
	int ret;

	if (!bo || !ctx || !addr || bo->type == ttm_bo_type_kernel || !bo->size ||
	    bo->size % BO_VM_PAGE_SIZE || !num_pages || pgoff > bo->size / BO_VM_PAGE_SIZE ||
	    num_pages > bo->size / BO_VM_PAGE_SIZE - pgoff ||
	    (fops && (!fops->begin || !fops->wait || !fops->end)) ||
	    (flags != 0 && flags != MAP_FIXED && flags != MAP_FIXED_NOREPLACE))
		return -EINVAL;
	/* MAP_FIXED replaces what is there: our own mappings go as by munmap(2). */
	if (flags == MAP_FIXED && !((uintptr_t)hint & (BO_VM_PAGE_SIZE - 1))) {
		ret = ttm_bo_vm_munmap_vma(hint, num_pages * BO_VM_PAGE_SIZE);
		if (ret && ret != -ENOENT)
			return ret;
	}
	map =
	    fault_should_fail(&ttm_fault_map_alloc, sizeof(*map)) ? NULL : calloc(1, sizeof(*map));
	if (!map)
		return -ENOMEM;
	ret = ttm_bo_reserve(bo, ctx->interruptible, false, NULL);
	if (ret) {
		free(map);
		return ret;
	}
	vm = bo->vm;
	if (!vm) {
		vm = ttm_bo_vm_create(bo, NULL, fops, fpriv, &ret);
		if (!vm)
			goto err_unreserve;
	}
	map->is_vma = true;
	map->fops = fops;
	map->fpriv = fpriv;
	ret = ttm_bo_vm_map_init(vm, map, (unsigned long)pgoff, num_pages, hint, flags);
	if (ret)
		goto err_unreserve;
	vm->nr_vma_maps++;
	pthread_mutex_lock(&ttm_bo_vm_lock);
	map->seq = ++ttm_bo_vm_vma_seq;
	list_add_tail(&map->all, &ttm_bo_vm_vmas);
	pthread_mutex_unlock(&ttm_bo_vm_lock);
	if (fops && fops->open)
		fops->open(fpriv);
	*addr = map->range.addr;
	ttm_bo_unreserve(bo);
	return 0;

err_unreserve:
	ttm_bo_unreserve(bo);
	free(map);
	return ret;
}

/*
 * Cuts @map at range page @page: @map keeps the head, a new process
 * mapping (opened) the rest. Reserved. Return: the tail, or NULL (-ENOMEM).
 */
static struct ttm_bo_vm_map *ttm_bo_vm_map_split(struct ttm_bo_vm_map *map, unsigned long page)
{
	struct ttm_bo_vm_map *tail;

	tail = fault_should_fail(&ttm_fault_map_alloc, sizeof(*tail)) ? NULL
								      : calloc(1, sizeof(*tail));
	if (!tail)
		return NULL;
	if (ttm_vm_range_split(&map->range, page, &tail->range, tail)) {
		free(tail);
		return NULL;
	}
	/* The engine counts ranges for ttm_bo_vm_set_mode(): one more. */
	pthread_mutex_lock(&ttm_bo_vm_lock);
	ttm_bo_vm_ranges++;
	pthread_mutex_unlock(&ttm_bo_vm_lock);
	tail->vm = map->vm;
	tail->pgoff = map->pgoff + page;
	tail->fops = map->fops;
	tail->fpriv = map->fpriv;
	tail->is_vma = true;
	tail->seq = map->seq;
	list_add(&tail->link, &map->link);
	map->vm->nr_maps++;
	map->vm->nr_vma_maps++;
	pthread_mutex_lock(&ttm_bo_vm_lock);
	list_add(&tail->all, &map->all);
	pthread_mutex_unlock(&ttm_bo_vm_lock);
	if (tail->fops && tail->fops->open)
		tail->fops->open(tail->fpriv);
	return tail;
}

/*
 * Isolates the part of process mapping @map inside [@a, @b) (which it
 * overlaps) as a mapping of its own, splitting at most twice. Reserved.
 * Return: that mapping, or NULL (-ENOMEM; splits done so far stay).
 */
static struct ttm_bo_vm_map *ttm_bo_vm_map_isolate(struct ttm_bo_vm_map *map, uintptr_t a,
						   uintptr_t b)
{
	uintptr_t s = (uintptr_t)map->range.addr;

	if (a > s) {
		map = ttm_bo_vm_map_split(map, (a - s) / BO_VM_PAGE_SIZE);
		if (!map)
			return NULL;
		s = a;
	}
	if (b < s + map->range.num_pages * BO_VM_PAGE_SIZE &&
	    !ttm_bo_vm_map_split(map, (b - s) / BO_VM_PAGE_SIZE))
		return NULL;
	return map;
}

static bool ttm_bo_vm_map_overlaps(const struct ttm_bo_vm_map *map, uintptr_t a, uintptr_t b)
{
	uintptr_t s = (uintptr_t)map->range.addr;

	return a < s + map->range.num_pages * BO_VM_PAGE_SIZE && s < b;
}

/*
 * A process mapping made no later than @limit overlapping [@a, @b), with a
 * reference on its BO, or NULL.
 */
static struct ttm_buffer_object *ttm_bo_vm_vma_lookup(uintptr_t a, uintptr_t b, uint64_t limit)
{
	struct ttm_buffer_object *bo = NULL;
	struct ttm_bo_vm_map *map;

	pthread_mutex_lock(&ttm_bo_vm_lock);
	list_for_each_entry (map, &ttm_bo_vm_vmas, struct ttm_bo_vm_map, all) {
		if (map->seq <= limit && ttm_bo_vm_map_overlaps(map, a, b)) {
			bo = map->vm->bo;
			ttm_bo_get(bo);
			break;
		}
	}
	pthread_mutex_unlock(&ttm_bo_vm_lock);
	return bo;
}

/* Hands the closed process mappings of @dead to their close hooks and frees them. */
static void ttm_bo_vm_maps_free(struct list_head *dead)
{
	while (!list_empty(dead)) {
		struct ttm_bo_vm_map *map = list_first_entry(dead, struct ttm_bo_vm_map, link);

		list_del_init(&map->link);
		ttm_bo_vm_map_fini(map);
		if (map->fops && map->fops->close)
			map->fops->close(map->fpriv);
		free(map);
	}
}

int ttm_bo_vm_munmap_vma(void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr, b;
	struct ttm_buffer_object *bo;
	bool found = false;
	uint64_t limit;
	int ret = 0;

	if ((a & (BO_VM_PAGE_SIZE - 1)) || !len || len > UINTPTR_MAX - a - BO_VM_PAGE_SIZE)
		return -EINVAL;
	b = (a + len + BO_VM_PAGE_SIZE - 1) & ~(uintptr_t)(BO_VM_PAGE_SIZE - 1);
	/*
	 * Only what was mapped when the munmap started: another thread's
	 * mmap may reuse the freed addresses at once, and is not ours to take.
	 */
	pthread_mutex_lock(&ttm_bo_vm_lock);
	limit = ttm_bo_vm_vma_seq;
	pthread_mutex_unlock(&ttm_bo_vm_lock);
	while (!ret && (bo = ttm_bo_vm_vma_lookup(a, b, limit))) {
		struct ttm_bo_vm *gone = NULL, *vm;
		struct ttm_bo_vm_map *map, *next;
		struct list_head dead = LIST_HEAD_INIT(dead);

		found = true;
		ttm_bo_reserve(bo, false, false, NULL);
		vm = bo->vm;
		if (!vm) {
			/* Unmapped and detached by another thread meanwhile. */
			ttm_bo_unreserve(bo);
			ttm_bo_put(bo);
			continue;
		}
		list_for_each_entry_safe (map, next, &vm->maps, struct ttm_bo_vm_map, link) {
			struct ttm_bo_vm_map *part;

			if (!map->is_vma || map->seq > limit || !ttm_bo_vm_map_overlaps(map, a, b))
				continue;
			part = ttm_bo_vm_map_isolate(map, a, b);
			if (!part) {
				ret = -ENOMEM;
				break;
			}
			/* The CPU's writes stay in the BO, as with munmap of a shared mapping. */
			ttm_bo_vm_invalidate(bo, part);
			ttm_bo_vm_map_unlink(part);
			list_add_tail(&part->link, &dead);
			/* A split tail after @part is outside [@a, @b): the walk may skip it. */
			next = list_entry(vm->maps.next, struct ttm_bo_vm_map, link);
		}
		if (ttm_bo_vm_unused(vm))
			gone = ttm_bo_vm_detach(bo);
		ttm_bo_unreserve(bo);
		ttm_bo_vm_maps_free(&dead);
		if (gone)
			ttm_bo_vm_destroy(gone);
		ttm_bo_put(bo);
	}
	return ret ? ret : found ? 0 : -ENOENT;
}

void ttm_bo_vm_munmap_device(struct ttm_device *bdev)
{
	for (;;) {
		struct ttm_bo_vm_map *map;
		void *addr = NULL;
		size_t len = 0;

		pthread_mutex_lock(&ttm_bo_vm_lock);
		list_for_each_entry (map, &ttm_bo_vm_vmas, struct ttm_bo_vm_map, all) {
			if (map->vm->bo->bdev == bdev) {
				addr = map->range.addr;
				len = map->range.num_pages * BO_VM_PAGE_SIZE;
				break;
			}
		}
		pthread_mutex_unlock(&ttm_bo_vm_lock);
		if (!addr || ttm_bo_vm_munmap_vma(addr, len) == -ENOMEM)
			return;
	}
}

int ttm_bo_vm_move_vma(void *old, size_t len, void *new_addr, void **out)
{
	uintptr_t a = (uintptr_t)old, b, n = (uintptr_t)new_addr;
	struct ttm_bo_vm_map *map, *part = NULL, *moved;
	struct ttm_buffer_object *bo;
	struct ttm_bo_vm *vm;
	struct list_head dead = LIST_HEAD_INIT(dead);
	int ret;

	if ((a & (BO_VM_PAGE_SIZE - 1)) || (n & (BO_VM_PAGE_SIZE - 1)) || !len || !out ||
	    len > UINTPTR_MAX - a - BO_VM_PAGE_SIZE || len > UINTPTR_MAX - n - BO_VM_PAGE_SIZE)
		return -EINVAL;
	b = (a + len + BO_VM_PAGE_SIZE - 1) & ~(uintptr_t)(BO_VM_PAGE_SIZE - 1);
	len = b - a;
	/* The kernel refuses overlapping old and new ranges. */
	if (n < b && a < n + len)
		return -EINVAL;
	bo = ttm_bo_vm_vma_lookup(a, b, UINT64_MAX);
	if (!bo)
		return -ENOENT;
	moved = fault_should_fail(&ttm_fault_map_alloc, sizeof(*moved)) ? NULL
									: calloc(1, sizeof(*moved));
	if (!moved) {
		ttm_bo_put(bo);
		return -ENOMEM;
	}
	/* What was mapped at the destination goes first, as for MAP_FIXED. */
	ret = ttm_bo_vm_munmap_vma(new_addr, len);
	if (ret && ret != -ENOENT)
		goto out_free;
	ttm_bo_reserve(bo, false, false, NULL);
	vm = bo->vm;
	ret = -EFAULT; /* the old range must lie inside one mapping */
	list_for_each_entry (map, vm ? &vm->maps : &dead, struct ttm_bo_vm_map, link) {
		uintptr_t s = (uintptr_t)map->range.addr;

		if (map->is_vma && a >= s && b <= s + map->range.num_pages * BO_VM_PAGE_SIZE) {
			part = ttm_bo_vm_map_isolate(map, a, b);
			ret = part ? 0 : -ENOMEM;
			break;
		}
	}
	if (!ret) {
		moved->is_vma = true;
		moved->fops = part->fops;
		moved->fpriv = part->fpriv;
		ret = ttm_bo_vm_map_init(vm, moved, part->pgoff, part->range.num_pages, new_addr,
					 MAP_FIXED);
	}
	if (!ret) {
		/* @moved takes over @part's open: no hook runs for either. */
		vm->nr_vma_maps++;
		pthread_mutex_lock(&ttm_bo_vm_lock);
		moved->seq = ++ttm_bo_vm_vma_seq;
		list_add_tail(&moved->all, &ttm_bo_vm_vmas);
		pthread_mutex_unlock(&ttm_bo_vm_lock);
		ttm_bo_vm_invalidate(bo, part);
		ttm_bo_vm_map_unlink(part);
		part->fops = NULL;
		list_add_tail(&part->link, &dead);
		*out = moved->range.addr;
		moved = NULL;
	}
	ttm_bo_unreserve(bo);
	ttm_bo_vm_maps_free(&dead);
out_free:
	free(moved);
	ttm_bo_put(bo);
	return ret;
}

int ttm_bo_vm_fault_backing(const void *addr, struct ttm_bo_vm_backing *out)
{
	if (!out)
		return -EINVAL;
	for (;;) {
		struct ttm_vm_range *range = ttm_vm_range_get(addr);
		struct ttm_buffer_object *bo;
		struct ttm_bo_vm_map *map;
		unsigned long page, n;
		uint64_t off;
		void *src;
		int ret, fd;

		if (!range)
			return -EFAULT;
		if (range->ops != &ttm_bo_vm_range_ops) {
			ttm_vm_range_put(range);
			return -EFAULT;
		}
		map = range->priv;
		page = (unsigned long)((const uint8_t *)addr - range->addr) / BO_VM_PAGE_SIZE;
		/* The page's fault path, as a CPU access runs it (the pin keeps the range). */
		ret = ttm_bo_vm_populate(range, page);
		if (ret == -EAGAIN) {
			ttm_vm_range_put(range);
			continue;
		}
		if (ret) {
			ttm_vm_range_put(range);
			return ret;
		}
		bo = map->vm->bo;
		ttm_bo_reserve(bo, false, false, NULL);
		/* Invalidated, split or unmapped since: fault again. */
		if (map->gone || bo->vm != map->vm || page >= range->num_pages ||
		    !ttm_vm_range_page_present(range, page)) {
			ttm_bo_unreserve(bo);
			ttm_vm_range_put(range);
			continue;
		}
		ret = -EOPNOTSUPP;
		if (bo->resource && ttm_bo_vm_res_uses_tt(bo, bo->resource) && bo->ttm &&
		    ttm_tt_is_populated(bo->ttm) &&
		    !(bo->ttm->caching == ttm_cached && ttm_bo_vm_models_cpu_cache(bo->bdev)) &&
		    (src = ttm_tt_page_ptr(bo->ttm, map->pgoff + page)) &&
		    !ttm_pool_page_backing(&bo->bdev->pool, src, &fd, &off)) {
			for (n = 1; n < 512 && page + n < range->num_pages; n++) {
				void *next = ttm_tt_page_ptr(bo->ttm, map->pgoff + page + n);
				uint64_t noff;
				int nfd;

				if (!next ||
				    ttm_pool_page_backing(&bo->bdev->pool, next, &nfd, &noff) ||
				    nfd != fd || noff != off + n * BO_VM_PAGE_SIZE)
					break;
			}
			out->fd = fd;
			out->offset = off;
			out->pages = n;
			out->seq = map->vm->unmap_seq;
			out->bo = bo;
			map->vm->shared = true;
			ret = 0;
		}
		ttm_bo_unreserve(bo);
		ttm_vm_range_put(range);
		return ret;
	}
}

int ttm_bo_vm_get_stats(struct ttm_buffer_object *bo, struct ttm_bo_vm_stats *st)
{
	struct ttm_bo_vm_map *map;
	struct ttm_bo_vm *vm;

	if (ttm_bo_reserve(bo, false, false, NULL))
		return -EINTR;
	vm = bo->vm;
	if (!vm) {
		ttm_bo_unreserve(bo);
		return -ENOENT;
	}
	memset(st, 0, sizeof(*st));
	list_for_each_entry (map, &vm->maps, struct ttm_bo_vm_map, link) {
		st->faults += atomic_load(&map->range.stats.faults);
		st->pages_copied += atomic_load(&map->range.stats.pages_copied);
		st->pages_mapped += atomic_load(&map->range.stats.pages_mapped);
		st->remaps += atomic_load(&map->range.stats.remaps);
		st->invalidations += atomic_load(&map->range.stats.invalidations);
		st->pages_written_back += atomic_load(&map->range.stats.pages_written_back);
		st->sigbus += atomic_load(&map->range.stats.sigbus);
	}
	st->migrations = atomic_load(&vm->migrations);
	st->bytes_migrated = atomic_load(&vm->bytes_migrated);
	st->map_count = vm->map_count;
	st->vmas = vm->vmas;
	st->mappings = vm->nr_vma_maps;
	ttm_bo_unreserve(bo);
	return 0;
}

enum ttm_caching ttm_bo_vm_caching(struct ttm_buffer_object *bo)
{
	enum ttm_caching c = ttm_cached;

	if (ttm_bo_reserve(bo, false, false, NULL))
		return c;
	if (bo->vm)
		c = bo->vm->caching;
	ttm_bo_unreserve(bo);
	return c;
}

void ttm_bo_vm_print(FILE *f)
{
	pthread_mutex_lock(&ttm_bo_vm_lock);
	fprintf(f, "cpu mappings: fault mode %s, ranges %lu\n",
		ttm_bo_vm_engine_live ? ttm_vm_fault_mode_name(ttm_bo_vm_engine.mode) : "none",
		ttm_bo_vm_ranges);
	if (ttm_bo_vm_engine_live)
		ttm_vm_fault_engine_print(&ttm_bo_vm_engine, f);
	pthread_mutex_unlock(&ttm_bo_vm_lock);
}
