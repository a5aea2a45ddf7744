/* SPDX-License-Identifier: MIT */
/*
 * ttm_pool: a cache of free system pages, per caching mode and page order.
 *
 * A device embeds one pool. Pages are taken from the OS in blocks of
 * 2^order 4 KiB pages (order 0..TTM_POOL_MAX_ORDER); a tt of n pages gets the
 * highest orders that fit (as the kernel's pool does, to keep large buffers
 * physically contiguous), falling back to lower orders when a block cannot
 * be had. Each block is split into 4 KiB page pointers for the tt and goes
 * back whole, on free, to the bucket of its own caching mode and order: a page
 * freed write-combined only comes back for a write-combined allocation.
 *
 * Global pools (as the kernel's on x86): a pool without DMA allocation
 * keeps only its cached blocks; write-combined and uncached blocks go back to
 * process-wide pools shared by every such pool (one set for DMA32 pools, one
 * for the others), so a WC page one device freed serves the next WC request
 * of any device. They live from the first such pool's init to the last
 * one's fini and have their own arena and stage-1 shrinker. A pool with DMA
 * allocation (@use_dma_alloc) keeps every caching mode in its own buckets and
 * gives each page a DMA address (see ttm_pool_init_dma()). Cached blocks
 * stay per pool in both kinds (the kernel pools them per NUMA node only and
 * frees them otherwise; here the pool stands for one node).
 *
 * Accounting: the pool charges ttm_global for each block before mapping it
 * and uncharges it when the block goes back to the OS (shrink, fini, or a
 * free with @reclaim that no waiting allocation of the pool takes over). Pages on the free lists
 * stay charged; the pool registers a stage-1 ttm_global shrinker so a full cap trims them first.
 *
 * Backing: blocks are carved from a per-pool memfd arena (the file grown
 * with ftruncate, each block mapped MAP_SHARED), so any page the pool hands
 * out can be mapped a second time, for example into a BO's CPU mapping,
 * without a copy (ttm_pool_page_backing()). A block given back to the OS has
 * its range punched out of the memfd (fallocate PUNCH_HOLE), which is what
 * actually frees the memory. Without memfd_create() the pool falls back to
 * anonymous blocks and ttm_pool_page_backing() answers -ENOENT.
 * Locking: @lock protects the buckets and their counters; it is never held
 * across ttm_global_reserve() or the OS calls, so a reservation from this pool
 * may run this pool's own shrinker. @arena_lock protects the arena's size
 * and block table only (held across ftruncate, never across a reservation);
 * it nests inside nothing and takes nothing.
 */
#ifndef TTM_POOL_H
#define TTM_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ttm/list.h>
#include <ttm/rbtree.h>
#include <ttm/ttm_caching.h>
#include <ttm/ttm_global.h>
#include <ttm/ttm_lock.h>

struct ttm_tt;
struct ttm_operation_ctx;

/*
 * Largest block: 2^10 pages = 4 MiB, the kernel's MAX_PAGE_ORDER on x86 (its
 * pool has a bucket for every page order, 0..MAX_PAGE_ORDER).
 */
#define TTM_POOL_MAX_ORDER 10
/* Empty pipes a pool keeps for copies to and from swap files. */
#define TTM_POOL_SPARE_PIPES 4
/* Empty swap memfds a pool keeps, so a swap-out does not create a file each time. */
#define TTM_POOL_SPARE_FILES 16

/**
 * struct ttm_pool_type - one bucket: free blocks of one caching mode and order.
 * @free: free blocks (the link lives in the free block's first bytes).
 * @nr_free: blocks on @free.
 * @allocs: blocks handed out from @free (reuse) since init.
 * @os_allocs: blocks freshly mapped from the OS for this bucket since init.
 * All protected by the pool's @lock.
 */
struct ttm_pool_type {
	struct list_head free;
	unsigned long nr_free;
	unsigned long allocs;
	unsigned long os_allocs;
};

/**
 * struct ttm_pool - a device's page pool.
 * @use_dma_alloc: every caching mode is pooled here and each page gets a DMA
 *	address: its byte offset in @arena_fd (the kernel's dma_alloc_attrs()
 *	pools); fixed at init.
 * @use_dma32: pages are charged against the DMA32 cap too (a device that can
 *	only address 32 bits); a DMA-allocating pool also keeps its DMA
 *	addresses below 4 GiB.
 * @shared: the global pool this pool's write-combined and uncached blocks
 *	come from and go back to; NULL for a DMA-allocating pool (and for the
 *	global pools themselves).
 * @lock: protects @types and @nr_free_pages.
 * @types: buckets indexed by [caching][order].
 * @nr_free_pages: 4 KiB pages on all free lists.
 * @shrinker: the stage-1 shrinker registered with ttm_global.
 * @arena_fd: the memfd every block is carved from, -1 when there is none.
 * @arena_lock: protects @arena_size and @blocks.
 * @arena_size: bytes of @arena_fd handed out so far (offsets only grow;
 *	freed blocks are holes).
 * @blocks: blocks mapped from the arena, by address, for
 *	ttm_pool_page_backing().
 * @pipes: empty pipes kept for ttm_pool_copy_file(), @nr_pipes of them;
 *	both protected by @arena_lock.
 * @swap_files: empty memfds kept for swap storage, @nr_swap_files of them;
 *	both protected by @arena_lock.
 * @claims: allocations of this pool inside ttm_global_reserve_claim() right
 *	now (atomic, no lock). While it is not 0, a reclaiming free parks its
 *	blocks on the free lists for them instead of giving them to the OS.
 */
struct ttm_pool {
	bool use_dma_alloc;
	bool use_dma32;
	struct ttm_pool *shared;
	struct ttm_lock lock;
	struct ttm_pool_type types[TTM_NUM_CACHING_TYPES][TTM_POOL_MAX_ORDER + 1];
	unsigned long nr_free_pages;
	struct ttm_global_shrinker shrinker;
	int arena_fd;
	pthread_mutex_t arena_lock;
	uint64_t arena_size;
	struct rb_root blocks;
	int pipes[TTM_POOL_SPARE_PIPES][2];
	unsigned int nr_pipes;
	int swap_files[TTM_POOL_SPARE_FILES];
	unsigned int nr_swap_files;
	atomic_uint claims;
};

/**
 * ttm_pool_init() - ttm_pool_init_dma(@pool, false, @use_dma32): a pool
 * without DMA allocation.
 * @pool: the pool to set up.
 * @use_dma32: charge the DMA32 cap.
 *
 * Return: as ttm_pool_init_dma().
 */
int ttm_pool_init(struct ttm_pool *pool, bool use_dma32);

/**
 * ttm_pool_init_dma() - set up @pool and register its shrinker, as the
 * kernel's ttm_pool_init() with @use_dma_alloc and @use_dma32. Without
 * DMA allocation the pool takes a reference on the global pool of its kind
 * (DMA32 or not), set up by the first such pool. With DMA allocation the
 * pool needs its arena (the DMA addresses are offsets in it). Not to be
 * called from a ttm_global shrinker scan.
 * @pool: the pool to set up.
 * @use_dma_alloc: pool every caching mode here and give pages DMA addresses.
 * @use_dma32: charge the DMA32 cap (and keep DMA addresses below 4 GiB).
 * Return: 0; -ENOMEM (a mutex or, with @use_dma_alloc, the arena could not
 * be had).
 */
int ttm_pool_init_dma(struct ttm_pool *pool, bool use_dma_alloc, bool use_dma32);

/**
 * ttm_pool_fini() - unregister and give every free page of @pool's own
 * buckets back to the OS; the last pool using a global pool gives that's
 * back too.
 * @pool: the pool.
 */
void ttm_pool_fini(struct ttm_pool *pool);

/**
 * ttm_pool_alloc() - fill tt->pages (array already allocated, tt->orders too)
 * in tt->caching, zeroing recycled pages when TTM_TT_FLAG_ZERO_ALLOC is set.
 * Fault point "pool_alloc" is asked once per block. When @tt has DMA
 * addresses (ttm_sg_tt_init()) they are filled too: a DMA-allocating pool's
 * page offsets in its arena, else the pages' CPU addresses (no IOMMU between
 * this process and its pages).
 * @pool: the pool.
 * @tt: the tt, with its arrays allocated.
 * @ctx: the operation context of the reservation (reclaim may wait).
 *
 * Return: 0, or -ENOMEM with every page taken given back (to the free lists).
 */
int ttm_pool_alloc(struct ttm_pool *pool, struct ttm_tt *tt, struct ttm_operation_ctx *ctx);

/**
 * ttm_pool_free() - give tt->pages back: to their buckets, or to the OS (and
 * uncharged) when @reclaim. A @reclaim free while an allocation of this pool
 * waits for room under the cap (a swap-out run by its reservation) parks the
 * blocks in their buckets instead, still charged, for that allocation to
 * take (see ttm_global_reserve_claim()); what it cannot use the stage-1
 * shrinkers give back before anything more is swapped. Clears the page
 * pointers (and DMA addresses). Write-combined and uncached blocks of a pool
 * without DMA allocation go to the global pool (@shared).
 * @pool: the pool the pages came from.
 * @tt: the tt.
 * @reclaim: give the pages to the OS and uncharge them.
 */
void ttm_pool_free(struct ttm_pool *pool, struct ttm_tt *tt, bool reclaim);

/**
 * ttm_pool_shrink() - give at least @nr_pages free pages back to the OS if the
 * pool has them in its own buckets (highest orders first, whole blocks; a
 * global pool is shrunk through its own stage-1 shrinker, ttm_global_shrink()).
 * @pool: the pool.
 * @nr_pages: how many pages to free, at least.
 *
 * Return: the pages freed.
 */
unsigned long ttm_pool_shrink(struct ttm_pool *pool, unsigned long nr_pages);

/**
 * ttm_pool_page_backing() - where page @page (a page pointer this pool
 * handed out and that is still allocated) lives in the arena: *@fd, the
 * arena memfd (owned by the pool, or by its global pool for a WC or UC page:
 * do not close; valid until ttm_pool_fini() of @pool) and *@offset,
 * page-aligned. Mapping that range
 * MAP_SHARED gives a second view of the same memory. Takes @arena_lock.
 * @pool: the pool.
 * @page: the page pointer.
 * @fd: out: the arena memfd.
 * @offset: out: the page's offset in it.
 *
 * Return: 0; -ENOENT (the pool has no arena or @page is not one of its
 * pages); -EINVAL (@page not page aligned).
 */
int ttm_pool_page_backing(struct ttm_pool *pool, const void *page, int *fd, uint64_t *offset);

/**
 * ttm_pool_swap_file_get() - an empty memfd to swap a tt out to: one of the
 * spares @pool keeps, or a new one. The caller owns it until it gives it back
 * with ttm_pool_swap_file_put() (or closes it). Takes @arena_lock.
 * @pool: the pool.
 *
 * Return: the file descriptor, or -ENOMEM.
 */
int ttm_pool_swap_file_get(struct ttm_pool *pool);

/**
 * ttm_pool_swap_file_put() - give back swap memfd @fd (ignored when < 0): it
 * is truncated to nothing, which frees its pages as a close would, and kept
 * as a spare while @pool has room (TTM_POOL_SPARE_FILES), else closed. The
 * spares are closed by ttm_pool_fini(). Takes @arena_lock.
 * @pool: the pool.
 * @fd: the memfd from ttm_pool_swap_file_get().
 */
void ttm_pool_swap_file_put(struct ttm_pool *pool, int fd);

/**
 * ttm_pool_copy_file() - copy the whole content of @tt, populated from
 * @pool, to (@to_file) or from @fd, page i at byte i * 4 KiB of the file,
 * spliced between the arena memfd and @fd through a pipe (the source pages
 * go into the pipe by reference, the one copy is the kernel's write into
 * the destination's page cache, through kernel mappings): nothing is read
 * or written through the pages' user mappings. That matters on a
 * shadow-paging hypervisor, where the kernel reading user pages the process
 * has just written is dear (measured on the PVM guest of 2026-12-03: a
 * pwrite() of 1 MiB from such pages 5-8x slower than from a buffer only the
 * kernel had read since; copy_file_range() 1.1-1.5x and this splice 0.9-1.05x
 * the cost of that pwrite), and a read back leaves freshly mapped blocks
 * unfaulted instead of faulting each page in the kernel. Blocks are found
 * through @tt->orders, so @tt's pages must be the ones this pool handed out.
 * What is read into a block is visible at once through every mapping of it.
 * Pipes come from a few spares the pool keeps (@arena_lock), else are made.
 * @pool: the pool @tt's pages came from.
 * @tt: the tt.
 * @fd: the file.
 * @to_file: copy @tt to @fd (else @fd to @tt).
 *
 * Return: 0; -EOPNOTSUPP when the pool has no arena or pipe, or the kernel
 * cannot splice the two files (use pwrite()/pread() instead, nothing was
 * lost: the source is untouched and a retry rewrites every byte); -EINVAL
 * when a page is not an arena page; -EIO on a failed or short copy.
 */
int ttm_pool_copy_file(struct ttm_pool *pool, struct ttm_tt *tt, int fd, bool to_file);

/**
 * ttm_pool_os_pages() - 4 KiB pages @pool has taken fresh from the OS since
 * init (blocks no free list could serve), over every bucket it takes from
 * (for WC and UC blocks of a pool without DMA allocation, the global pool's,
 * which counts the fresh blocks of every pool sharing it). A caller that
 * times an allocation reads it before and after to tell recycled pages,
 * already faulted in, from new ones the kernel still has to allocate and
 * zero. Takes @lock.
 * @pool: the pool.
 *
 * Return: the page count.
 */
unsigned long ttm_pool_os_pages(struct ttm_pool *pool);

/**
 * ttm_pool_nr_free() - free blocks in the bucket @pool takes
 * [@caching][@order] blocks from (the global pool's for WC and UC blocks of
 * a pool without DMA allocation: shared with every such pool).
 * @pool: the pool.
 * @caching: the caching mode.
 * @order: the block order.
 *
 * Return: the count; 0 for invalid arguments.
 */
unsigned long ttm_pool_nr_free(struct ttm_pool *pool, enum ttm_caching caching, unsigned int order);

/**
 * ttm_pool_free_pages() - 4 KiB pages on the free lists @pool takes from:
 * its own and, for a pool without DMA allocation, the global pool's (shared
 * with every pool of its kind). Takes @lock and then the global pool's lock,
 * one at a time.
 * @pool: the pool.
 * Return: the number of free pages.
 */
unsigned long ttm_pool_free_pages(struct ttm_pool *pool);

/**
 * ttm_pool_can_serve() - could ttm_pool_alloc() start @tt from @pool's free
 * lists? It asks its largest fitting order first and only goes lower when
 * the OS has no such block, so free small blocks do not stop a fresh large
 * one: true when the bucket of that first order holds enough blocks for
 * the whole tt. Takes @lock.
 * @pool: the pool.
 * @tt: the tt to be populated.
 *
 * Return: true when the first order's bucket can serve all of @tt.
 */
bool ttm_pool_can_serve(struct ttm_pool *pool, const struct ttm_tt *tt);

/**
 * ttm_pool_print() - the debugfs-like table: one line per non-empty bucket,
 * then totals.
 * @pool: the pool.
 * @out: the stream written to.
 */
void ttm_pool_print(struct ttm_pool *pool, FILE *out);

#endif /* TTM_POOL_H */
