/* SPDX-License-Identifier: MIT */
/*
 * ttm_tt: the system-memory backing of a buffer object, in 4 KiB pages.
 *
 * Life cycle: ttm_tt_init() (the page array, as in the kernel) ->
 * ttm_tt_populate() (pages from a ttm_pool, charged to ttm_global) -> use through
 * ttm_tt_page_ptr() and the copy helpers -> ttm_tt_swapout() (content to a
 * memfd, pages given back) -> ttm_tt_swapin() or ttm_tt_populate() (pages
 * again, content read back) -> ttm_tt_unpopulate() -> ttm_tt_fini().
 *
 * Pages are anonymous memory: the pages of a tt cannot yet be mapped at a
 * second virtual address without a copy (no memfd arena behind the pool).
 *
 * Swap storage: one memfd per swapped tt, @num_pages * 4 KiB long, taken at
 * swapout (ttm_pool_swap_file_get(): a spare of the pool or a new file) and
 * given back when the content is back or at fini (emptied, kept as a spare
 * or closed). One file per tt keeps swapin independent of every other tt (no
 * shared allocator of file ranges) and lets the kernel drop the whole copy
 * with one truncate.
 *
 * Locking: a tt has no lock; the owner (the BO, under its reservation)
 * serialises every call on one tt. Different tts may be used concurrently.
 */
#ifndef TTM_TT_H
#define TTM_TT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ttm/ttm_caching.h>

struct ttm_pool;
struct ttm_operation_ctx;

#define TTM_PAGE_SHIFT 12
#define TTM_PAGE_SIZE (1ull << TTM_PAGE_SHIFT)

/*
 * Page flags:
 * ZERO_ALLOC: pages are zeroed when populated. Without it a page recycled by
 *	the pool keeps old content (as the kernel's pool does without
 *	__GFP_ZERO), except the first 16 bytes of each block, where the pool
 *	kept its free-list link; pages fresh from the OS are zero anyway.
 * SWAPPED: the content lives in @swap_storage, no pages are held.
 * EXTERNAL: pages belong to someone else (a user pointer); the owner fills
 *	@pages after ttm_tt_populate() allocated the array; never swapped, never
 *	given to the pool.
 * EXTERNAL_MAPPABLE: an EXTERNAL tt that may still be CPU-mapped.
 * POPULATED: @pages holds every page (set by populate, cleared by
 *	unpopulate and swapout). Read-only to users.
 */
#define TTM_TT_FLAG_ZERO_ALLOC (1u << 0)
#define TTM_TT_FLAG_SWAPPED (1u << 1)
#define TTM_TT_FLAG_EXTERNAL (1u << 2)
#define TTM_TT_FLAG_EXTERNAL_MAPPABLE (1u << 3)
#define TTM_TT_FLAG_POPULATED (1u << 4)

/**
 * struct ttm_tt - the pages of a buffer in system memory.
 * @pages: @num_pages pointers to 4 KiB host pages (each NULL while not
 *	populated); the array lives from ttm_tt_init() to ttm_tt_fini().
 *	Consecutive pointers of one higher-order block are contiguous.
 * @orders: private to the pool: at the index of each block's first page, the
 *	block's order (so that each block goes back whole to its own bucket).
 * @dma_address: for a tt set up with ttm_sg_tt_init(), the DMA address of
 *	each page (0 while not populated), set by the pool (see
 *	ttm_pool_alloc()); NULL for a tt from ttm_tt_init(). Lives as long as
 *	@pages.
 * @num_pages: pages in the tt (size rounded up plus @extra_pages).
 * @page_flags: TTM_TT_FLAG_*.
 * @caching: caching mode of the pages.
 * @swap_storage: memfd holding the content while SWAPPED, -1 otherwise.
 * @dma32: set by the pool when the pages were charged to the DMA32 cap.
 */
struct ttm_tt {
	void **pages;
	uint8_t *orders;
	uint64_t *dma_address;
	uint32_t num_pages;
	uint32_t page_flags;
	enum ttm_caching caching;
	int swap_storage;
	bool dma32;
};

/**
 * ttm_tt_init() - set up @tt for @size bytes (rounded up to whole pages) plus
 * @extra_pages pages, with its page array (all NULL; fault point
 * "tt_alloc"), as the kernel's does; no pages yet.
 * @tt: the tt to set up.
 * @size: bytes, rounded up to whole pages.
 * @page_flags: TTM_TT_FLAG_ZERO_ALLOC, EXTERNAL, EXTERNAL_MAPPABLE.
 * @caching: caching mode of the pages.
 * @extra_pages: pages past @size (the kernel's driver extra pages).
 *
 * Return: 0, -ENOMEM (then nothing is held and ttm_tt_fini() is not
 * needed), or -EINVAL when the size is 0, too large for 32-bit page counts,
 * @caching is invalid or @page_flags has SWAPPED/POPULATED or unknown bits.
 */
int ttm_tt_init(struct ttm_tt *tt, size_t size, uint32_t page_flags, enum ttm_caching caching,
		unsigned long extra_pages);

/**
 * ttm_sg_tt_init() - ttm_tt_init() of @size bytes without extra pages, with
 * a DMA address array besides the page array (one allocation, fault point
 * "tt_alloc"), as the kernel's ttm_sg_tt_init() for devices that program
 * DMA addresses.
 * @tt: the tt to set up.
 * @size: bytes, rounded up to whole pages.
 * @page_flags: TTM_TT_FLAG_ZERO_ALLOC, EXTERNAL, EXTERNAL_MAPPABLE.
 * @caching: caching mode of the pages.
 * Return: 0, -ENOMEM (nothing held), or -EINVAL as ttm_tt_init().
 */
int ttm_sg_tt_init(struct ttm_tt *tt, size_t size, uint32_t page_flags, enum ttm_caching caching);

/**
 * ttm_tt_fini() - release everything @tt still holds: pages (back to @pool),
 * the page array (also of a tt never populated) and swap storage (back to
 * @pool's spares, or closed when @pool is NULL).
 * @pool: the pool the pages came from; NULL only when @tt is not populated
 *	with pool pages.
 * @tt: the tt.
 */
void ttm_tt_fini(struct ttm_pool *pool, struct ttm_tt *tt);

static inline bool ttm_tt_is_populated(const struct ttm_tt *tt)
{
	return tt->page_flags & TTM_TT_FLAG_POPULATED;
}

static inline bool ttm_tt_is_swapped(const struct ttm_tt *tt)
{
	return tt->page_flags & TTM_TT_FLAG_SWAPPED;
}

/**
 * ttm_tt_populate() - give @tt its pages.
 * @pool: the pool the pages come from.
 * @tt: the tt.
 * @ctx: the operation context of the allocation (reclaim may wait).
 *
 * Idempotent: a populated tt is left alone (returns 0). A swapped tt is
 * swapped in (see ttm_tt_swapin()). Otherwise takes the pages from @pool in
 * @tt's caching mode (fault point "pool_alloc", charged to ttm_global, may
 * reclaim). An EXTERNAL tt is only marked populated: its owner fills the
 * (zeroed) array.
 * Return: 0, -EINVAL for a NULL (or finished) @tt, -ENOMEM (no pages held
 * afterwards), or a swapin error.
 */
int ttm_tt_populate(struct ttm_pool *pool, struct ttm_tt *tt, struct ttm_operation_ctx *ctx);

/**
 * ttm_tt_unpopulate() - pages back to @pool, array entries cleared; no-op if
 * not populated.
 * @pool: the pool the pages came from.
 * @tt: the tt.
 */
void ttm_tt_unpopulate(struct ttm_pool *pool, struct ttm_tt *tt);

/**
 * ttm_tt_swapout() - write the content of populated @tt to a new memfd (in
 * the kernel, from the pool's arena: ttm_pool_copy_file(); through the pages
 * where that cannot be), then give its pages back to the OS through @pool (so
 * the ttm_global count drops at once: swapping out exists to free memory,
 * caching the pages in the pool would defeat it) and mark the tt SWAPPED.
 * The one exception is the swap-out a reservation of the same pool runs to
 * make room: its blocks go straight to that allocation, still charged (the
 * count does not drop, it is handed over; ttm_pool_free()). Fault point
 * "swapout_write": on any failure nothing is lost, the tt stays populated
 * with its content.
 * @pool: the pool the pages came from.
 * @tt: the tt.
 *
 * Return: the number of pages freed (> 0), -EINVAL when @tt is not populated
 * or EXTERNAL, -ENOMEM/-EIO on failure.
 */
long ttm_tt_swapout(struct ttm_pool *pool, struct ttm_tt *tt);

/**
 * ttm_tt_swapin() - populate swapped @tt from @pool and read its content back
 * (fault point "swapin_read"). On success the swap memfd is closed and the
 * tt is populated with identical content. On failure the pages taken are
 * given back, the swap copy is kept and the tt stays SWAPPED.
 * @pool: the pool the pages come from.
 * @tt: the tt.
 * @ctx: the operation context of the allocation.
 *
 * Return: 0; -ENOMEM or -EIO on failure; -EINVAL when @tt is not swapped.
 */
int ttm_tt_swapin(struct ttm_pool *pool, struct ttm_tt *tt, struct ttm_operation_ctx *ctx);

/**
 * ttm_tt_page_ptr() - the CPU pointer to one page of a populated tt.
 * @tt: the tt.
 * @i: the page's index.
 *
 * Return: the pointer; NULL when out of range or unpopulated.
 */
void *ttm_tt_page_ptr(const struct ttm_tt *tt, unsigned long i);

/**
 * ttm_tt_copy_to() - copy @len bytes from a linear buffer to byte @offset of
 * populated @tt, across page boundaries.
 * @tt: the tt.
 * @offset: the first byte in @tt.
 * @src: the buffer.
 * @len: bytes.
 *
 * Return: 0, or -EINVAL when unpopulated or the range leaves the tt.
 */
int ttm_tt_copy_to(struct ttm_tt *tt, size_t offset, const void *src, size_t len);

/**
 * ttm_tt_copy_from() - copy @len bytes from byte @offset of populated @tt to
 * a linear buffer, across page boundaries.
 * @tt: the tt.
 * @offset: the first byte in @tt.
 * @dst: the buffer.
 * @len: bytes.
 *
 * Return: 0, or -EINVAL when unpopulated or the range leaves the tt.
 */
int ttm_tt_copy_from(const struct ttm_tt *tt, size_t offset, void *dst, size_t len);

#endif /* TTM_TT_H */
