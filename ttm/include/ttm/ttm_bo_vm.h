/* SPDX-License-Identifier: MIT */
/*
 * ttm_bo_vm: CPU mappings of buffer objects, the userspace counterpart of
 * the kernel's ttm_bo_vm.c on top of the fault engine of ttm_vm_fault.h.
 *
 * A mapped BO has one stable virtual range covering all of it, created at
 * the first ttm_bo_mmap() and shared by every later map of the BO in the
 * process (every client of one process sees the same address, so two
 * clients of one BO always see the same bytes). Pages start absent; the
 * first touch of a page faults, and the handler:
 *   1. reserves the BO (blocking: a thread must not touch a mapping of a BO
 *      it holds reserved) and, for a ttm_bo_mmap_hooked() mapping, asks the
 *      owner for the CPU placement of this fault,
 *   2. waits for pending GPU writes (KERNEL and WRITE usage fences),
 *   3. migrates the BO when its resource is not one the CPU can reach
 *      (the driver's io_mem_reserve refuses it or gives no address) or does
 *      not satisfy the CPU placement (given at the first map, or the
 *      owner's answer of step 1; for example
 *      a visible-VRAM range, a mappable aperture part) - the whole BO moves
 *      once; later faults find it in place. A driver's move may be
 *      pipelined (ttm_bo_move_accel_cleanup(): the copy queued behind a
 *      KERNEL-usage fence), so after a migration the fault waits for the
 *      BO's KERNEL fences before installing anything: the CPU never reads
 *      the new home before the copy wrote it. A move fence that signalled
 *      with an error fails the fault (SIGBUS). A fault that moved nothing
 *      does not wait,
 *   4. installs a window of TTM_VM_FAULT_PREFAULT pages around the fault;
 *      a fault that has just migrated the BO installs all of it when its
 *      pages are mapped zero-copy (they are all resident now, and one
 *      populated remap costs far less than a fault per window: for a
 *      64 MiB BO, 1024 faults and as many remaps); pages installed by copy
 *      keep the window, so one touch never copies the whole BO twice,
 *   5. unreserves.
 * A failure in any step (allocation during migration, an error-signalled
 * move fence, the "mmap_remap" fault point) gives the accessing thread
 * SIGBUS; the BO keeps its content.
 *
 * Backing: pages of a tt-backed resource that come from the device's pool
 * live in the pool's memfd arena (ttm_pool_page_backing()) and are
 * installed zero-copy, by mapping the same memfd range MAP_SHARED: the CPU
 * view is the tt page itself, so CPU writes need no write-back. Pages the
 * pool cannot place (a driver's own tt) and io memory (VRAM windows) are
 * installed by copy (UFFDIO_COPY, or a scratch page moved in with mremap in
 * SIGSEGV mode) and written back into the BO's current storage when the
 * mapping is invalidated.
 *
 * Invalidation: the core calls ttm_bo_unmap_virtual() (through
 * ttm_device.unmap_virtual, which the first map installs) with the BO
 * reserved before every move, eviction, swap-out and gutting. The mapping
 * revokes CPU write access, writes every copied page back to where the BO
 * still is, and drops all pages, so the next access faults and finds the BO
 * at its new home with identical content; a CPU write completed before the
 * move started is never lost.
 *
 * Coherency: zero-copy system pages are coherent with the tt at once; with
 * copied pages, the BO's storage sees CPU writes when the mapping is
 * invalidated: before every move, or by ttm_bo_vm_flush() (the domain
 * transition a driver does before the GPU reads the BO).
 *
 * CPU cache model: a device whose GPU does not snoop the CPU cache (the
 * simulated i915 GPU) registers with ttm_bo_vm_set_cpu_cache(). A cached
 * (ttm_cached) tt of such a device is then always installed by copy, never
 * zero-copy: the copy plays the CPU cache's dirty lines, and the BO's
 * storage, which is what the GPU reads, keeps the old bytes until the
 * driver's flush (execbuffer calls ttm_bo_vm_flush() on every object of the
 * list before submitting) or a move writes the copy back. Write-combined
 * and uncached tts stay zero-copy: their CPU writes go to memory at once,
 * so they need no flush, as on hardware. Io memory is installed by copy
 * whatever the model. The model costs a copy per faulted page for cached
 * BOs of registered devices only; other devices keep the zero-copy path.
 *
 * Caching: the caching mode of the backing installed last (the tt's mode,
 * write-combined for io memory) is recorded per mapping and reported by
 * ttm_bo_vm_caching(); a move that changes it invalidates, and the next
 * fault installs and records the new mode.
 *
 * Lifetime (2007 libdrm): ttm_bo_mmap() raises the BO's map count and
 * ttm_bo_munmap() lowers it; the virtual range outlives a map count of zero
 * (the address stays valid and the next map returns it). The range holds a
 * reference on the BO. When the BO's owner gives it up it calls
 * ttm_bo_vm_release() before its own ttm_bo_put(): with a map count of zero
 * the range goes at once; with maps still live it stays until the last
 * ttm_bo_munmap(), and its reference is then the BO's last one.
 *
 * Process mappings (the kernel's vma): ttm_bo_vm_vma_get() is the mmap(2)
 * of a mapped BO, ttm_bo_vm_vma_put() of its address its munmap(2). Like a
 * vma holding its object, a process mapping keeps the range, and through
 * it the BO, alive and faulting whatever happens to map counts and to the
 * owner's handles and descriptors: reads and writes work, evictions and
 * moves invalidate and write back as usual, and the BO goes with the last
 * of release, map count and process mappings.
 *
 * Several mappings (mmap(2) of a GEM object, the kernel's vmas):
 * ttm_bo_vm_mmap_vma() gives every call a range of its own, at a page
 * offset into the BO and at a chosen address (MAP_FIXED,
 * MAP_FIXED_NOREPLACE); ttm_bo_vm_munmap_vma() trims, splits or removes
 * them as munmap(2) does and ttm_bo_vm_move_vma() moves a part (mremap).
 * All of a BO's ranges fault from its one storage and are invalidated
 * together before every move; a page installed by copy lives in one range
 * at a time (the others write theirs back and drop it first), so every
 * view shows the same bytes. Each mapping holds the BO until unmapped.
 *
 * Process-wide state: one fault engine serves every mapping of the process
 * (a SIGSEGV handler is per process anyway); it is created by the first
 * map and lives until ttm_bo_vm_set_mode() replaces it. The mode comes from
 * TTM_VM_FAULT=uffd|sigsegv, else userfaultfd when allowed, else SIGSEGV.
 *
 * Placement at fault time: a mapping made by ttm_bo_mmap_hooked() asks its
 * owner at every fault where the BO may be for the CPU (the uAPI builds it
 * from the memory types that exist and are not locked, under its mm_lock),
 * so a type locked or taken down after the first map is never a fault's
 * target and never goes away under a fault.
 *
 * Locking: the mapping state of a BO (map count, release flag, placement)
 * is protected by the BO's reservation. Lock order: BO reservation -> the
 * range's lock -> the process-wide tables (engine, range table).
 */
#ifndef TTM_BO_VM_H
#define TTM_BO_VM_H

#include <stdint.h>
#include <stdio.h>

#include <ttm/ttm_bo.h>
#include <ttm/ttm_vm_fault.h>

/**
 * struct ttm_bo_vm_stats - what happened to one BO's mapping.
 * @faults: faults handled (each installs up to a window of pages; one that
 *	migrated a zero-copy BO installs all of it).
 * @pages_copied: pages installed by copy.
 * @pages_mapped: pages installed zero-copy.
 * @remaps: system calls that installed those pages (a zero-copy run of
 *	one memfd takes one mmap).
 * @migrations: faults that had to move the BO first.
 * @bytes_migrated: bytes those moves copied.
 * @invalidations: invalidations that removed pages.
 * @pages_written_back: CPU copies written back to the BO.
 * @sigbus: faults answered with SIGBUS.
 * @map_count: current map count.
 * @vmas: process mappings (ttm_bo_vm_vma_get()) not yet unmapped.
 * @mappings: process mappings of ttm_bo_vm_mmap_vma() (each part left by
 *	a partial munmap counts).
 * Counters are summed over every range of the BO.
 */
struct ttm_bo_vm_stats {
	uint64_t faults;
	uint64_t pages_copied;
	uint64_t pages_mapped;
	uint64_t remaps;
	uint64_t migrations;
	uint64_t bytes_migrated;
	uint64_t invalidations;
	uint64_t pages_written_back;
	uint64_t sigbus;
	unsigned map_count;
	unsigned vmas;
	unsigned mappings;
};

/**
 * ttm_bo_mmap() - map @bo for the CPU (the BO_MAP ioctl); not reserved by
 * the caller.
 * @bo: the BO.
 * @cpu_placement: where a fault migrates the BO when its resource is not
 *	CPU-reachable or not in this placement; NULL: any CPU-reachable
 *	resource is fine and SYSTEM is the target. Copied; only the first
 *	map of a BO sets it.
 * @ctx: @no_wait_gpu: fail with -EBUSY instead of waiting for pending GPU
 *	writes (the 2008 DRM_BO_HINT_DONT_BLOCK); @interruptible: the waits
 *	may end with -EINTR.
 * @addr: out: the first byte of the mapping, the same for every map of
 *	the BO while its range lives.
 * Return: 0; -EINVAL (NULL arguments, kernel BO, size not page aligned,
 * empty placement); -EBUSY; -EINTR; -ENOMEM; errors of the fault engine
 * (-EPERM when TTM_VM_FAULT=uffd and the kernel refuses).
 */
int ttm_bo_mmap(struct ttm_buffer_object *bo, const struct ttm_placement *cpu_placement,
		struct ttm_operation_ctx *ctx, void **addr);

/**
 * struct ttm_bo_vm_fault_ops - an owner's say at fault time (the 2008
 * driver's fault_reserve_notify): where a fault may move the BO is asked
 * at every fault instead of fixed at the first map, under the owner's lock
 * that keeps the memory types stable while the fault uses them.
 */
struct ttm_bo_vm_fault_ops {
	/**
	 * @begin: called with @bo reserved at the start of every fault.
	 * Fill @placement (its @placement array has room for
	 * TTM_NUM_MEM_TYPES places; set @num_placement, 0 or more) with
	 * where the CPU may use the BO now, in preference order, and take
	 * whatever keeps those types alive until @end. It must not block on
	 * a lock that a holder of a BO reservation may wait for: return
	 * -EAGAIN instead, and the fault unreserves, calls @wait and starts
	 * again. Return: 0 (then @end follows); -EAGAIN; any other negative
	 * errno fails the fault (SIGBUS), as does an empty placement.
	 */
	int (*begin)(void *priv, struct ttm_buffer_object *bo, struct ttm_placement *placement);
	/**
	 * @wait: called unreserved after @begin returned -EAGAIN: block
	 * until @begin may succeed. No lock of ttm_bo_vm is held.
	 */
	void (*wait)(void *priv);
	/** @end: the fault that @begin succeeded for is over (unreserved). */
	void (*end)(void *priv);
	/**
	 * @open: optional, for ttm_bo_vm_mmap_vma(): a process mapping with
	 * this @priv was created (by the mmap itself, or by a partial
	 * munmap splitting one in two), as the kernel's vm_ops->open. Called
	 * with the BO reserved; must not block. Each is paired with a @close.
	 */
	void (*open)(void *priv);
	/**
	 * @close: optional: a process mapping with this @priv is gone
	 * (unreserved, no lock of ttm_bo_vm held; may drop the last
	 * reference of @priv).
	 */
	void (*close)(void *priv);
	/**
	 * @no_gpu_wait: faults do not wait for the GPU's pending writes (as
	 * the kernel's i915 and TTM fault handlers, which wait only for a
	 * move's copy): a program touching a busy object sees memory as it
	 * is and orders itself with the domain ioctls.
	 */
	bool no_gpu_wait;
};

/**
 * ttm_bo_mmap_hooked() - ttm_bo_mmap() whose faults ask @fops, with
 * @priv, where the BO may be for the CPU (see struct ttm_bo_vm_fault_ops)
 * instead of using a placement fixed at the first map. Only the first map
 * of a BO chooses: a later map of either kind shares the range as it is.
 * @bo: the BO.
 * @fops: the owner's fault hooks.
 * @priv: handed to @fops.
 * @ctx: as for ttm_bo_mmap().
 * @addr: as for ttm_bo_mmap().
 *
 * Return: as ttm_bo_mmap(); -EINVAL also for a NULL @fops or hook.
 */
int ttm_bo_mmap_hooked(struct ttm_buffer_object *bo, const struct ttm_bo_vm_fault_ops *fops,
		       void *priv, struct ttm_operation_ctx *ctx, void **addr);

/**
 * ttm_bo_munmap() - drop one map count (BO_UNMAP). The range stays while
 * the BO is not released. Not reserved by the caller; must not hold the
 * reservation.
 * @bo: the BO.
 *
 * Return: 0; -EINVAL when the map count is already zero.
 */
int ttm_bo_munmap(struct ttm_buffer_object *bo);

/**
 * ttm_bo_vm_release() - the owner is done with @bo (call before its
 * ttm_bo_put()): the range, with its BO reference, goes now when the map
 * count is zero, else at the last ttm_bo_munmap(). CPU writes are written
 * back first. No-op for a BO that was never mapped. Not reserved.
 * @bo: the BO.
 */
void ttm_bo_vm_release(struct ttm_buffer_object *bo);

/**
 * ttm_bo_vm_vma_get() - a process mapping of @bo's range, as mmap(2) of the
 * object creates a vma: it holds the range and the BO until
 * ttm_bo_vm_vma_put() of its address, past ttm_bo_munmap() of every map
 * and ttm_bo_vm_release() (the handle or descriptor closed). @bo must have
 * a range (ttm_bo_mmap() first). Not reserved by the caller.
 * @bo: the BO.
 * @addr: out: the first byte of the range.
 * Return: 0; -EINVAL (NULL argument, @bo not mapped); -EINTR.
 */
int ttm_bo_vm_vma_get(struct ttm_buffer_object *bo, void **addr);

/**
 * ttm_bo_vm_vma_put() - munmap(2) of a process mapping: drop the one at
 * @addr (the first byte of a BO's range); the range and its BO reference
 * go when it was the last thing holding them. Not reserved; must not be
 * called with any BO reservation held (it may reserve @addr's BO).
 * @addr: the first byte of the mapping.
 *
 * Return: 0; -EINVAL (no BO range starts at @addr, or it has no process
 * mapping left).
 */
int ttm_bo_vm_vma_put(void *addr);

/**
 * ttm_bo_vm_mmap_vma() - mmap(2) of BO pages [@pgoff, @pgoff + @num_pages):
 * a process mapping with its own address range, as the kernel's vma.
 * Every mapping of a BO faults from the same storage and is invalidated
 * before every move; zero-copy pages are shared, and a page installed by
 * copy in one mapping is written back and dropped from the others before
 * another mapping installs it, so every mapping shows the same bytes. A
 * mapping holds the BO (through its mapping state) until the last of its
 * parts is unmapped (ttm_bo_vm_munmap_vma()), past ttm_bo_vm_release().
 * @bo: the BO.
 * @fops: the owner's fault hooks (only the BO's first map, of any kind,
 *	sets the fault hooks) and its @open / @close hooks for this mapping
 *	(may be NULL: no hooks, faults migrate to SYSTEM as needed).
 * @priv: handed to @fops.
 * @pgoff: the first BO page mapped.
 * @num_pages: how many pages.
 * @hint: where the mapping should start, as mmap(2)'s address.
 * @flags: 0 (@hint a hint), MAP_FIXED (whatever was mapped there goes;
 *	process mappings of BOs are unmapped first, as by
 *	ttm_bo_vm_munmap_vma()) or MAP_FIXED_NOREPLACE.
 * @ctx: @interruptible: the reservation may end with -EINTR.
 * @addr: out: the first byte.
 * Not reserved by the caller.
 * Return: 0; -EINVAL (NULL arguments, kernel BO, empty or out-of-object
 * range, bad @flags or fixed @hint, incomplete @fops); -EEXIST
 * (MAP_FIXED_NOREPLACE over a mapping); -EPERM (a fixed @hint below
 * mmap_min_addr); -ENOMEM; -EINTR.
 */
int ttm_bo_vm_mmap_vma(struct ttm_buffer_object *bo, const struct ttm_bo_vm_fault_ops *fops,
		       void *priv, uint64_t pgoff, unsigned long num_pages, void *hint, int flags,
		       struct ttm_operation_ctx *ctx, void **addr);

/**
 * ttm_bo_vm_munmap_vma() - munmap(2) of [@addr, @addr + @len) (@len
 * rounded up to pages) for process mappings of ttm_bo_vm_mmap_vma(): each
 * one inside is removed, one that crosses an end is trimmed, one holding
 * the whole span is split in two (the parts keep their page offsets). CPU
 * writes to removed pages stay in the BO. A BO whose last mapping went and
 * whose owner released it goes. Not reserved; no BO reservation held.
 * @addr: the first byte of the span, page aligned.
 * @len: its length in bytes.
 *
 * Return: 0 when some process mapping was there; -ENOENT when none was
 * (the caller unmaps the span itself); -EINVAL (unaligned @addr, @len 0
 * or wrapping); -ENOMEM (a split failed; parts done so far are unmapped).
 */
int ttm_bo_vm_munmap_vma(void *addr, size_t len);

/**
 * ttm_bo_vm_munmap_device() - unmap every process mapping of a BO of
 * @bdev (a device going away with mappings its program never unmapped).
 * Not reserved; no BO reservation held.
 * @bdev: the device.
 */
void ttm_bo_vm_munmap_device(struct ttm_device *bdev);

/**
 * ttm_bo_vm_move_vma() - mremap(2) with MREMAP_MAYMOVE | MREMAP_FIXED of
 * [@old, @old + @len), which lies inside one process mapping, to
 * @new_addr: the part becomes a mapping of its own there, with the same
 * BO pages (CPU writes written back first; the new mapping faults them
 * in). What was mapped at @new_addr goes first, as for MAP_FIXED.
 * Not reserved; no BO reservation held.
 * @old: the first byte of the part moved.
 * @len: its length in bytes.
 * @new_addr: where it goes.
 * @out: out: @new_addr.
 * Return: 0; -ENOENT (no process mapping at @old); -EFAULT (the range
 * is not inside one mapping); -EINVAL (unaligned, empty, overlapping
 * ranges); -EPERM; -ENOMEM.
 */
int ttm_bo_vm_move_vma(void *old, size_t len, void *new_addr, void **out);

/**
 * struct ttm_bo_vm_backing - where a mapped page lives, for a process that
 * maps the same memory itself (a device server's client).
 * @fd: the pool arena memfd holding the page.
 * @offset: the page's offset in @fd.
 * @pages: pages from the one asked for that follow it in @fd, in order,
 *	inside the same map (at most 512).
 * @seq: the BO's unmap sequence when the answer was made (see
 *	ttm_bo_vm_set_unmap_hook()).
 * @bo: an opaque cookie for the BO, the one the unmap hook is given.
 */
struct ttm_bo_vm_backing {
	int fd;
	uint64_t offset;
	unsigned long pages;
	uint64_t seq;
	const void *bo;
};

/**
 * ttm_bo_vm_fault_backing() - run the fault path of the page at @addr (a
 * page of a map of this process: ttm_bo_mmap*() or ttm_bo_vm_mmap_vma())
 * as a CPU access would (fault hooks, GPU-write wait, migration, install in
 * the local view), then, with the BO reserved, fill @out and mark the BO
 * shared, so its next ttm_bo_vm_unmap_virtual() calls the unmap hook. Not
 * reserved; no BO reservation held.
 * @addr: the page's address.
 * @out: out: where the page lives.
 *
 * Return: 0; -EINVAL (NULL @out); -EFAULT (no BO map at @addr);
 * -EOPNOTSUPP (the page is not in a memfd: io memory, a CPU-cache copy);
 * errors of the fault (what a CPU access gets as SIGBUS).
 */
int ttm_bo_vm_fault_backing(const void *addr, struct ttm_bo_vm_backing *out);

/**
 * typedef ttm_bo_vm_unmap_hook_t - called by ttm_bo_vm_unmap_virtual() with
 * the BO reserved, after the local invalidation, when ttm_bo_vm_fault_backing()
 * handed out pages of @bo (the cookie) since the last call; @seq is the
 * BO's new unmap sequence. Must make every other process drop those pages
 * before it returns (the pages move after it).
 */
typedef void (*ttm_bo_vm_unmap_hook_t)(const void *bo, uint64_t seq);

/**
 * ttm_bo_vm_set_unmap_hook() - set the process-wide unmap hook (NULL:
 * none). ttm_bo_vm_flush() and ttm_bo_vm_flush_range() never call it:
 * memfd pages need no flush.
 * @hook: the hook, or NULL.
 */
void ttm_bo_vm_set_unmap_hook(ttm_bo_vm_unmap_hook_t hook);

/**
 * ttm_bo_vm_unmap_virtual() - the ttm_device.unmap_virtual hook: write
 * CPU copies back and remove every CPU view of @bo. Reserved.
 * @bo: the BO.
 */
void ttm_bo_vm_unmap_virtual(struct ttm_buffer_object *bo);

/**
 * ttm_bo_vm_flush() - the CPU -> GPU domain transition: CPU writes still in
 * the mapping's page copies reach the BO's storage (and the copies are
 * dropped, so the next CPU access faults in the current content). A driver
 * calls it before the GPU reads a mapped BO (execbuffer), and anything that
 * reads the BO's storage directly (ttm_bo_access()) sees mapped writes only
 * after it or after a move. Reserved. No-op for an unmapped BO.
 * @bo: the BO.
 */
void ttm_bo_vm_flush(struct ttm_buffer_object *bo);

/**
 * ttm_bo_vm_flush_range() - ttm_bo_vm_flush() for bytes [@offset, @offset +
 * @size) of @bo only: in every map of @bo, the pages installed by copy that
 * cover the span are written back and made absent; zero-copy pages and
 * the rest of the maps stay. What a driver calls before it reads or writes
 * part of a mapped BO's storage directly (PREAD / PWRITE). Reserved.
 * No-op for an unmapped BO or an empty span.
 * @bo: the BO.
 * @offset: the first byte of the span.
 * @size: its length in bytes.
 */
void ttm_bo_vm_flush_range(struct ttm_buffer_object *bo, uint64_t offset, uint64_t size);

/**
 * ttm_bo_vm_set_cpu_cache() - model (@model true) or stop modelling the CPU
 * cache for @bdev's cached BOs (see "CPU cache model" above). Takes effect
 * for pages faulted afterwards; call it before mapping BOs of @bdev, and
 * with false before @bdev goes away. Any context, no locks needed.
 * @bdev: the device.
 * @model: model the cache (true) or stop (false).
 *
 * Return: 0; -EINVAL (NULL @bdev); -ENOSPC (16 devices already modelled).
 */
int ttm_bo_vm_set_cpu_cache(struct ttm_device *bdev, bool model);

/**
 * ttm_bo_vm_init_device() - install the invalidation hook in @bdev now.
 * ttm_bo_mmap() does it too, but a device whose BOs move on other threads
 * while the first map happens should call this first (the core reads the
 * hook without a lock).
 * @bdev: the device.
 */
void ttm_bo_vm_init_device(struct ttm_device *bdev);

/**
 * ttm_bo_vm_get_stats() - counters of @bo's mapping into @st.
 * @bo: the BO.
 * @st: out: the counters.
 *
 * Return: 0; -ENOENT when @bo has no range.
 */
int ttm_bo_vm_get_stats(struct ttm_buffer_object *bo, struct ttm_bo_vm_stats *st);

/**
 * ttm_bo_vm_caching() - the caching mode recorded for a BO's mapping.
 * @bo: the BO.
 *
 * Return: the mode of the backing installed last; ttm_cached when not mapped.
 */
enum ttm_caching ttm_bo_vm_caching(struct ttm_buffer_object *bo);

/**
 * ttm_bo_vm_set_mode() - choose the fault mechanism for the next engine
 * (TTM_VM_FAULT_AUTO: environment, then userfaultfd, then SIGSEGV) and
 * replace the current engine.
 * @mode: UFFD, SIGSEGV or AUTO.
 *
 * Return: 0; -EBUSY while any BO has a range; errors of
 * ttm_vm_fault_engine_init() (the previous mode is set up again by the
 * next map).
 */
int ttm_bo_vm_set_mode(enum ttm_vm_fault_mode mode);

/**
 * ttm_bo_vm_mode() - the mechanism of the current engine, creating it
 * if none exists. Return: UFFD or SIGSEGV; AUTO when no engine can be set up.
 */
enum ttm_vm_fault_mode ttm_bo_vm_mode(void);

/**
 * ttm_bo_vm_print() - the info dump of CPU mappings: a line "cpu mappings:
 * fault mode <uffd|sigsegv|none>" with live ranges and totals, then the
 * engine's counters.
 * @f: the stream written to.
 */
void ttm_bo_vm_print(FILE *f);

#endif /* TTM_BO_VM_H */
