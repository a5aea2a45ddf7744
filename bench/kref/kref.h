/* SPDX-License-Identifier: MIT */
/*
 * kref.h - the entry points of the kernel reference (kdrv.c over Linux
 * 6.12's TTM, built by build-kref.sh): the only global symbols of kref.o.
 * Included by kdrv.c (kernel headers) and by benchmark-kref.c (ours), so
 * it uses plain C types only.
 *
 * The workloads are whole loops: each kref_*_loop() runs @n iterations of
 * one operation on the kernel side, so the benchmark times the same loop
 * shape on both sides (ours is in benchmark-kref.c). Returns are 0 or a
 * negative errno of the first failing kernel call.
 *
 * Single-threaded: one thread drives the reference at a time.
 */
#ifndef KREF_H
#define KREF_H

/* Page-allocator models of the shim (kref_set_page_model()). */
#define KREF_PAGES_WARM 0    /* a free list per order: freed blocks are reused */
#define KREF_PAGES_ALIGNED 1 /* aligned_alloc() per block, free() on free */

/* Domains of kref_bo_create() and the validate loops. */
#define KREF_SYSTEM 0
#define KREF_TT 1

/* The entry points keep default visibility; kref.o is built with hidden. */
#pragma GCC visibility push(default)

struct kref_dev;
struct kref_bo;
struct kref_resv;
struct kref_chain;

/** kref_set_verbose() - print the kernel's messages (pr_*, WARN) on stderr. */
void kref_set_verbose(int on);
/** kref_warnings() - WARN_ON()s hit so far (a correct run has none). */
unsigned long kref_warnings(void);
/** kref_set_page_model() - KREF_PAGES_WARM (default) or KREF_PAGES_ALIGNED. */
void kref_set_page_model(int model);
/** kref_page_model() - the current model. */
int kref_page_model(void);
/** kref_page_cache_drain() - free the blocks the warm model keeps. */
void kref_page_cache_drain(void);
/** kref_pages_outstanding() - blocks allocated and not freed. */
unsigned long kref_pages_outstanding(void);

/**
 * kref_dev_create() - a TTM device with the mock driver (like the kernel's
 * ttm_kunit_helpers.c: TT a range manager of @tt_pages pages, SYSTEM<->TT
 * moves by ttm_bo_move_null(), evictions to SYSTEM). NULL on failure.
 */
struct kref_dev *kref_dev_create(unsigned long tt_pages);
/** kref_dev_destroy() - tear down; every BO must be put. 0 or -EBUSY. */
int kref_dev_destroy(struct kref_dev *dev);

/**
 * kref_bo_create() - a ttm_bo_type_kernel BO of @size bytes, initialised
 * and validated into @domain (ttm_bo_init_validate()), unreserved. With
 * @populate its pages are allocated (through a validate into TT and back
 * when @domain is SYSTEM). NULL on failure.
 */
struct kref_bo *kref_bo_create(struct kref_dev *dev, unsigned long size, int domain, int populate);
/** kref_bo_put() - drop the reference (ttm_bo_put()). */
void kref_bo_put(struct kref_bo *bo);
/** kref_bo_domain() - KREF_SYSTEM or KREF_TT: where @bo is now. */
int kref_bo_domain(struct kref_bo *bo);

/** kref_validate_loop() - @n x (reserve, validate into @domain, unreserve). */
int kref_validate_loop(struct kref_bo *bo, int domain, unsigned long n);
/** kref_pingpong_loop() - @n x (validate into TT, validate into SYSTEM), each reserved. */
int kref_pingpong_loop(struct kref_bo *bo, unsigned long n);
/**
 * kref_thrash_loop() - @n validates into TT of @bos[i % @nbos], starting at
 * *@next (updated), each reserved: with twice the TT domain in @bos, every
 * validate evicts one BO to SYSTEM.
 */
int kref_thrash_loop(struct kref_bo **bos, unsigned nbos, unsigned *next, unsigned long n);
/** kref_create_loop() - @n x (kzalloc + ttm_bo_init_validate into SYSTEM + ttm_bo_put). */
int kref_create_loop(struct kref_dev *dev, unsigned long size, unsigned long n);
/**
 * kref_pool_loop() - @n x (ttm_pool_alloc + ttm_pool_free) of a write-back
 * ttm_tt of @size bytes on the device's pool.
 */
int kref_pool_loop(struct kref_dev *dev, unsigned long size, unsigned long n);

/**
 * kref_resv_create() - a dma_resv with @nfences fences of distinct contexts
 * (DMA_RESV_USAGE_READ), all signalled but the one at @pending_index
 * (-1: none). NULL on failure.
 */
struct kref_resv *kref_resv_create(unsigned nfences, int pending_index);
/** kref_resv_destroy() - signal and release everything. */
void kref_resv_destroy(struct kref_resv *r);
/** kref_resv_test_loop() - @n x dma_resv_test_signaled(READ); *@signaled gets the last answer. */
int kref_resv_test_loop(struct kref_resv *r, unsigned long n, int *signaled);
/** kref_fence_signaled_loop() - @n x dma_fence_is_signaled() of a signalled fence; *@count gets the
 * trues. */
int kref_fence_signaled_loop(unsigned long n, unsigned long *count);

/**
 * kref_chain_create() - a dma_fence_chain of @links links (seqnos 1..@links),
 * each over an unsignalled fence. NULL on failure.
 */
struct kref_chain *kref_chain_create(unsigned links);
/** kref_chain_destroy() - signal and release the chain. */
void kref_chain_destroy(struct kref_chain *c);
/**
 * kref_chain_find_loop() - @n x dma_fence_chain_find_seqno() from the head
 * for seqno @seqno (1: the walk crosses every link), the result put.
 */
int kref_chain_find_loop(struct kref_chain *c, unsigned long seqno, unsigned long n);

#pragma GCC visibility pop

#endif /* KREF_H */
