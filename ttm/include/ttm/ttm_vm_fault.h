/* SPDX-License-Identifier: MIT */
/*
 * ttm_vm_fault: fault-driven population of a reserved virtual address range,
 * the userspace stand-in for the kernel's vm_operations_struct.fault.
 *
 * A range is a stable span of virtual memory (reserved once with mmap, never
 * moved) whose pages start absent. The first access to an absent page
 * faults; the engine finds the range and calls its owner's @populate
 * callback on a service thread (SIGSEGV mode, the accessing thread waits) or
 * on the engine's handler thread (userfaultfd mode). The owner takes its own lock (for a BO, the
 * reservation), makes sure the content is reachable and installs one or
 * more pages with ttm_vm_range_install(). The owner's @invalidate, called
 * under the same owner lock, hands every CPU-written page back through
 * @writeback and makes the whole range absent again, so the next access
 * faults. Because install and invalidate both run under the owner's lock, a
 * page can never be installed from storage that has already moved.
 *
 * Two mechanisms, chosen at run time (ttm_vm_fault_engine_init()):
 *  - userfaultfd (TTM_VM_FAULT_UFFD): the range is readable/writable
 *    anonymous memory registered in MISSING mode; a handler thread reads
 *    fault events, copies pages in atomically with UFFDIO_COPY (or maps a
 *    memfd over them with MAP_FIXED) and wakes the faulting thread. Needs
 *    the kernel to allow it (vm.unprivileged_userfaultfd, CAP_SYS_PTRACE,
 *    UFFD_USER_MODE_ONLY, or /dev/userfaultfd).
 *  - SIGSEGV (TTM_VM_FAULT_SIGSEGV): absent pages are PROT_NONE; a process
 *    SIGSEGV handler catches the access. The handler itself does only
 *    async-signal-safe work: it posts the address in a preallocated slot,
 *    wakes the service workers (futex) and sleeps until one of them has run
 *    @populate; a worker keeps another one idle, so a @populate that blocks
 *    never holds up faults on other ranges. Pages are prepared in a scratch
 *    mapping and moved in with mremap(MREMAP_FIXED) (or a memfd is mapped
 *    with MAP_FIXED), so other threads never see half a page. @populate
 *    never runs in signal context, so a mapping may be touched from inside
 *    libc while it holds a lock (stdio on a mapped buffer) and from a
 *    thread with a small stack.
 * The environment variable TTM_VM_FAULT=uffd|sigsegv forces one (AUTO).
 *
 * Backing: a page is installed either by copy from a host pointer (the
 * range then holds a private copy, written back on invalidation) or
 * zero-copy by mapping a page of a memfd shared (no write-back needed).
 * A memfd run is mapped with its page tables filled in the same call
 * (MAP_POPULATE): the pages are resident already, and without it every
 * page of the run would take one more kernel fault at its first access
 * (a write fault on a shared mapping maps one page at a time).
 *
 * Errors: when @populate fails, or returns without installing the faulting
 * page, the accessing thread gets SIGBUS, as the kernel's VM_FAULT_SIGBUS.
 *
 * Process-wide state: the table of live ranges is global, because a signal
 * handler can only find its range through it; it is guarded by one mutex.
 * Every other piece of state lives in the engine and the ranges.
 *
 * Lock order: owner lock (BO reservation) -> range->lock -> the range
 * table lock. @populate is always called with no engine lock held. Code
 * that holds the owner lock must not touch the range's memory itself (it
 * would fault into @populate and wait for that same lock).
 */
#ifndef TTM_VM_FAULT_H
#define TTM_VM_FAULT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ttm/list.h>
#include <ttm/ttm_caching.h>

/* Pages a fault handler should populate around the faulting page, as the
 * kernel's TTM_BO_VM_NUM_PREFAULT, so the cost of a fault is shared. */
#define TTM_VM_FAULT_PREFAULT 16

/**
 * enum ttm_vm_fault_mode - the fault mechanism.
 * @TTM_VM_FAULT_AUTO: TTM_VM_FAULT from the environment, else userfaultfd
 *	when the kernel allows it, else SIGSEGV.
 * @TTM_VM_FAULT_UFFD: userfaultfd handler thread.
 * @TTM_VM_FAULT_SIGSEGV: SIGSEGV handler + mprotect/MAP_FIXED.
 */
enum ttm_vm_fault_mode {
	TTM_VM_FAULT_AUTO,
	TTM_VM_FAULT_UFFD,
	TTM_VM_FAULT_SIGSEGV,
};

/**
 * ttm_vm_fault_mode_name() - the name of a fault mode.
 * @mode: the mode.
 *
 * Return: "uffd", "sigsegv" or "auto".
 */
const char *ttm_vm_fault_mode_name(enum ttm_vm_fault_mode mode);

/**
 * struct ttm_vm_fault_stats - counters of an engine or a range (atomics).
 * @faults: populate calls made for faulting accesses.
 * @pages_copied: pages installed by copy.
 * @pages_mapped: pages installed zero-copy from a memfd.
 * @remaps: system calls that put installed pages in place (a MAP_FIXED
 *	mmap of a memfd run, a UFFDIO_COPY, an mremap of copied pages).
 * @invalidations: invalidate calls that removed at least one page.
 * @pages_written_back: pages handed to @writeback.
 * @sigbus: accesses answered with SIGBUS.
 */
struct ttm_vm_fault_stats {
	_Atomic uint64_t faults;
	_Atomic uint64_t pages_copied;
	_Atomic uint64_t pages_mapped;
	_Atomic uint64_t remaps;
	_Atomic uint64_t invalidations;
	_Atomic uint64_t pages_written_back;
	_Atomic uint64_t sigbus;
};

/**
 * struct ttm_vm_fault_engine - one fault mechanism instance, caller-embedded.
 * @mode: the mechanism in use (never AUTO after init).
 * @uffd: the userfaultfd, -1 in SIGSEGV mode.
 * @stop_fd: eventfd that stops the handler thread, -1 in SIGSEGV mode.
 * @thread: the userfaultfd handler thread.
 * @has_thread_id: the kernel reports the faulting thread (SIGBUS target).
 * @nr_ranges: live ranges; fini requires 0.
 * @stats: counters over every range of the engine.
 */
struct ttm_vm_fault_engine {
	enum ttm_vm_fault_mode mode;
	int uffd;
	int stop_fd;
	pthread_t thread;
	bool has_thread_id;
	_Atomic long nr_ranges;
	struct ttm_vm_fault_stats stats;
};

struct ttm_vm_range;

/**
 * struct ttm_vm_page - what backs one page being installed.
 * @src: host memory to copy 4 KiB from, or NULL for a memfd page.
 * @fd: with @src NULL: the memfd to map shared (MAP_FIXED).
 * @offset: with @src NULL: page-aligned offset in @fd.
 */
struct ttm_vm_page {
	const void *src;
	int fd;
	uint64_t offset;
};

/**
 * struct ttm_vm_range_ops - what the owner of a range provides.
 */
struct ttm_vm_range_ops {
	/**
	 * @populate: required. Page @page of @range was accessed while absent.
	 * Take the owner lock, make the content reachable and install at
	 * least @page with ttm_vm_range_install() (a window around it is
	 * welcome), drop the lock. Runs on a service worker (SIGSEGV) or
	 * the engine's thread (userfaultfd), with no engine lock held; may
	 * sleep. Return: 0; -EAGAIN when @page is no longer in @range (the
	 * owner split or trimmed it, ttm_vm_range_split(), while the fault
	 * waited): the access is retried and finds the range holding it now;
	 * another negative errno makes the access SIGBUS.
	 * Returning 0 with @page still absent is treated as -EFAULT.
	 */
	int (*populate)(struct ttm_vm_range *range, unsigned long page);
	/**
	 * @writeback: optional. During ttm_vm_range_invalidate(), page @page
	 * was installed by copy and may have been written by the CPU: store
	 * @data (4 KiB, readable until return) to the owner's storage. Called
	 * with the owner lock held (the invalidate caller's) and @range->lock.
	 */
	void (*writeback)(struct ttm_vm_range *range, unsigned long page, const void *data);
};

/* Page states in ttm_vm_range.state. */
#define TTM_VM_PAGE_ABSENT 0
#define TTM_VM_PAGE_COPY 1
#define TTM_VM_PAGE_MAPPED 2

/**
 * struct ttm_vm_range - a stable virtual range, caller-embedded.
 * @engine: the engine that serves its faults.
 * @ops: owner callbacks.
 * @priv: free for the owner.
 * @addr: first byte; fixed from init to fini.
 * @num_pages: size in 4 KiB pages.
 * @stats: counters of this range.
 * @link: entry in the process-wide range table.
 * @users: fault handlers running for this range (table lock).
 * @dead: being torn down: faults get SIGBUS (table lock).
 * @generation: bumped by every invalidation that removed pages, so a fault
 *	handler can tell "populate installed nothing" from "installed, then
 *	invalidated again" (the access is retried then).
 *
 * Protected by @lock:
 * @state: TTM_VM_PAGE_* per page.
 * @nr_present: pages not ABSENT.
 * @nr_mapped: pages in state MAPPED.
 * @caching: caching mode of the backing last installed.
 */
struct ttm_vm_range {
	struct ttm_vm_fault_engine *engine;
	const struct ttm_vm_range_ops *ops;
	void *priv;
	uint8_t *addr;
	unsigned long num_pages;
	struct ttm_vm_fault_stats stats;
	struct list_head link;
	long users;
	bool dead;
	_Atomic uint64_t generation;

	pthread_mutex_t lock;
	/* Protected by @lock. */
	uint8_t *state;
	unsigned long nr_present;
	unsigned long nr_mapped;
	enum ttm_caching caching;
};

/**
 * ttm_vm_fault_engine_init() - set up @eng with @mode. AUTO honours
 * TTM_VM_FAULT=uffd|sigsegv, else tries userfaultfd and falls back to
 * SIGSEGV. The SIGSEGV handler is installed once per process (chaining to
 * the previous handler for addresses outside every range).
 * @eng: the engine (its memory is the caller's).
 * @mode: UFFD, SIGSEGV or AUTO.
 *
 * Return: 0; -EINVAL (bad mode or bad TTM_VM_FAULT value); for an explicit
 * UFFD (or TTM_VM_FAULT=uffd): -EPERM/-ENOSYS when the kernel refuses
 * userfaultfd; -ENOMEM/-EAGAIN. Nothing is left behind on failure.
 */
int ttm_vm_fault_engine_init(struct ttm_vm_fault_engine *eng, enum ttm_vm_fault_mode mode);

/**
 * ttm_vm_fault_engine_fini() - stop the handler thread, close the fds.
 * @eng: the engine.
 *
 * Return: 0; -EBUSY while ranges of @eng are alive (nothing done).
 */
int ttm_vm_fault_engine_fini(struct ttm_vm_fault_engine *eng);

/**
 * ttm_vm_fault_uffd_available() - whether userfaultfd can be opened here.
 *
 * Return: true when this process may open a userfaultfd.
 */
bool ttm_vm_fault_uffd_available(void);

/**
 * ttm_vm_range_init() - reserve @num_pages pages of address space for
 * @range, every page absent, served by @eng.
 * @eng: the fault engine.
 * @range: the range (its memory is the owner's).
 * @num_pages: its size in pages, not 0.
 * @ops: the owner's callbacks (populate at least).
 * @priv: the owner's data, handed to @ops.
 *
 * Return: 0; -EINVAL (0 pages, NULL ops/populate); -ENOMEM; errors of
 * UFFDIO_REGISTER. Nothing is left behind on failure.
 */
int ttm_vm_range_init(struct ttm_vm_fault_engine *eng, struct ttm_vm_range *range,
		      unsigned long num_pages, const struct ttm_vm_range_ops *ops, void *priv);

/**
 * ttm_vm_range_init_at() - ttm_vm_range_init() at a chosen address, as
 * mmap(2) places a mapping.
 * @eng: the fault engine.
 * @range: the range (its memory is the owner's).
 * @num_pages: its size in pages, not 0.
 * @ops: the owner's callbacks (populate at least).
 * @priv: the owner's data, handed to @ops.
 * @hint: where the range should start.
 * @flags: 0 (@hint is only a hint; NULL: anywhere), MAP_FIXED (the range
 *	replaces whatever is mapped at @hint; the caller has torn down its
 *	own ranges there first) or MAP_FIXED_NOREPLACE (-EEXIST when
 *	anything is mapped there).
 * Return: 0; -EINVAL (as ttm_vm_range_init(), other @flags, an unaligned
 * fixed @hint); -EEXIST; -EPERM (below mmap_min_addr); -ENOMEM.
 */
int ttm_vm_range_init_at(struct ttm_vm_fault_engine *eng, struct ttm_vm_range *range,
			 unsigned long num_pages, const struct ttm_vm_range_ops *ops, void *priv,
			 void *hint, int flags);

/**
 * ttm_vm_range_split() - cut @range in two at page @page: @range keeps
 * pages [0, @page) and its address, @tail (caller-embedded, with owner
 * data @tail_priv) takes the rest with their page states, installed pages
 * staying in place. Nothing is remapped. Called with the owner lock held,
 * so no @populate installs meanwhile; a fault already waiting for the
 * owner lock on a page now in @tail gets -EAGAIN from its owner and is
 * retried. Each half is torn down with its own ttm_vm_range_fini().
 * @range: the range cut; keeps the head.
 * @page: the first page of the tail.
 * @tail: the range taking the tail (its memory is the owner's).
 * @tail_priv: the owner's data for @tail.
 *
 * Return: 0; -EINVAL (@page 0 or past the end); -ENOMEM.
 */
int ttm_vm_range_split(struct ttm_vm_range *range, unsigned long page, struct ttm_vm_range *tail,
		       void *tail_priv);

/**
 * ttm_vm_range_fini() - remove @range from the fault table, wait for fault
 * handlers still running on it (accesses from now on SIGBUS), unmap the
 * address space. Pages are dropped without write-back: invalidate first to
 * keep CPU writes. Must not be called with the owner lock held (a running
 * @populate may be waiting for it).
 * @range: the range.
 */
void ttm_vm_range_fini(struct ttm_vm_range *range);

/**
 * ttm_vm_range_install() - make pages [@first, @first + @count) present
 * with the backing in @pages[0 .. @count - 1]; pages already present are
 * left alone (a CPU write to them is never overwritten). Called from
 * @populate with the owner lock held. @caching is recorded as the range's
 * mode. Memfd pages are mapped with their page tables populated (see
 * "Backing"); copied pages are present once installed in both mechanisms.
 * Fault point "mmap_remap" fails it with -ENOMEM (nothing installed
 * by the failing step).
 * @range: the range.
 * @first: the first page.
 * @count: how many pages.
 * @pages: their backing, one entry per page.
 * @caching: the caching mode the range is mapped with.
 *
 * Return: pages newly installed (>= 0); -EINVAL (range outside @range, bad
 * fd offset); -ENOMEM; errors of the kernel calls.
 */
long ttm_vm_range_install(struct ttm_vm_range *range, unsigned long first, unsigned long count,
			  const struct ttm_vm_page *pages, enum ttm_caching caching);

/**
 * ttm_vm_range_invalidate() - the owner's storage is about to move: revoke
 * CPU write access to the copied pages (mprotect), hand each to @writeback,
 * then make the whole range absent. Owner lock held. A CPU write that
 * completed before the call is therefore never lost; a write racing with it
 * faults (SIGSEGV, in both modes: the engine installs the handler for
 * userfaultfd engines too) and waits for the owner lock. Memfd-mapped pages
 * in userfaultfd mode are dropped by remapping the range PROT_NONE,
 * registering it and only then making it accessible, so a racing access
 * faults too (stores to a memfd page before that land in the BO's own
 * storage, which has not moved yet).
 * @range: the range.
 */
void ttm_vm_range_invalidate(struct ttm_vm_range *range);

/**
 * ttm_vm_range_drop_copies() - make the pages installed by copy among
 * [@first, @first + @count) absent, handing each to @writeback first
 * (write access revoked before, as ttm_vm_range_invalidate()); zero-copy
 * pages stay. Owner lock held. An owner whose storage is mapped by
 * several ranges calls it on the others before installing a copy of the
 * same storage page, so no two private copies of one page ever diverge.
 * @range: the range.
 * @first: the first page.
 * @count: how many pages.
 */
void ttm_vm_range_drop_copies(struct ttm_vm_range *range, unsigned long first, unsigned long count);

/**
 * ttm_vm_range_get() - the live range holding @addr, pinned: it is not torn
 * down (ttm_vm_range_fini() waits) until ttm_vm_range_put(). Must not be
 * held across a call that may tear the range down. Any context but a
 * signal handler.
 * @addr: any address.
 *
 * Return: the range, or NULL when no range holds @addr.
 */
struct ttm_vm_range *ttm_vm_range_get(const void *addr);

/**
 * ttm_vm_range_put() - drop a pin of ttm_vm_range_get().
 * @range: the pinned range.
 */
void ttm_vm_range_put(struct ttm_vm_range *range);

/**
 * ttm_vm_range_page_present() - whether a page is installed now.
 * @range: the range.
 * @page: the page's index in @range.
 *
 * Return: true when the page is present (a snapshot).
 */
bool ttm_vm_range_page_present(struct ttm_vm_range *range, unsigned long page);

/**
 * ttm_vm_fault_engine_print() - one line: mode, ranges and counters.
 * @eng: the engine.
 * @f: the stream written to.
 */
void ttm_vm_fault_engine_print(struct ttm_vm_fault_engine *eng, FILE *f);

#endif /* TTM_VM_FAULT_H */
