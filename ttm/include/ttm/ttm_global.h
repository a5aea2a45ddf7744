/* SPDX-License-Identifier: MIT */
/*
 * ttm_global: the process-wide page accounting shared by every device.
 *
 * What is counted: every 4 KiB page the page pools hold from the operating
 * system, whether it backs a ttm_tt or waits on a pool free list. A pool
 * charges pages here (ttm_global_reserve()) before it maps them and
 * uncharges them (ttm_global_unreserve()) when it gives them back to the OS.
 * Counting free-list pages too is what makes "shrink the pools first" a real
 * way to make room under the cap: those pages are the cheapest to reclaim.
 *
 * The cap: the count never exceeds @limit_pages (default: half of physical
 * memory, sysconf(_SC_PHYS_PAGES) / 2, as modern TTM does), and the pages of
 * DMA32 pools never exceed @dma32_limit_pages (default: the pages below 4 GiB,
 * or the main limit if smaller). A reservation is a compare-and-swap on the
 * counter, never add-then-check-then-subtract, so the accounted count is never
 * above the cap even transiently; the high-water mark records the largest
 * count ever reached so tests can prove it.
 *
 * When a reservation would exceed the cap, ttm_global_reserve() asks the
 * registered shrinkers for pages, in two stages:
 *   1. shrinkers without @swaps (the page pools' free lists);
 *   2. shrinkers with @swaps (devices swapping LRU buffers out to shmem),
 *      skipped when swap is disabled by ttm_global_config();
 * and retries after each scan that freed something. When nothing more can be
 * freed it returns -ENOMEM.
 *
 * Hand-over: a pool that reserves for a block it is about to map may pass a
 * claim (ttm_global_reserve_claim()). While the claim is open the pool's
 * swap-outs park the freed blocks on its free lists, still charged and still
 * mapped, instead of giving them to the OS; after each swap scan the claim
 * tries to take one, which serves the allocation with no charge and none of
 * the OS round trip (unmap and hole punch at swap-out, fresh zeroed pages
 * faulted in again by the next user: on a shadow-paging hypervisor the
 * dearest part of a swap). Parked blocks the claim could not use are given
 * back by the stage-1 shrinkers before the next swap scan, so the count is
 * as true as without a claim.
 *
 * Locking: the counters are atomics. The shrinker list is protected by an
 * internal rwlock, held for reading while scans run: a scan may reserve and
 * unreserve (swapping out frees pages) but must not register or unregister a
 * shrinker. No lock is held across calls into a shrinker other than that read
 * lock, so a scan may take its own device/pool locks; callers of
 * ttm_global_reserve() must not hold locks that their own scan takes.
 */
#ifndef TTM_GLOBAL_H
#define TTM_GLOBAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ttm/list.h>

/* Defined by the BO code (ttm_bo.h); passed through to shrinkers untouched. */
struct ttm_operation_ctx;

/**
 * struct ttm_global_config - the limits of the page accounting.
 * @limit_pages: cap on all accounted pages; 0 selects the default (half of RAM).
 * @dma32_limit_pages: cap on pages of DMA32 pools; 0 selects the default.
 * @swap_disabled: when true, reservations never call @swaps shrinkers, so a
 *	full cap fails with -ENOMEM after trimming the pools (page-limit runs).
 */
struct ttm_global_config {
	uint64_t limit_pages;
	uint64_t dma32_limit_pages;
	bool swap_disabled;
};

/**
 * struct ttm_global_stats - a snapshot of the accounting.
 * @pages: pages accounted now.
 * @dma32_pages: of which in DMA32 pools.
 * @high_water: the largest @pages ever reached (since the last reset).
 * @dma32_high_water: the largest @dma32_pages ever reached.
 * @limit_pages: the cap in force.
 * @dma32_limit_pages: the DMA32 cap in force.
 * @shrink_calls: shrinker scans run because a reservation hit a cap.
 * @failures: reservations that returned -ENOMEM.
 */
struct ttm_global_stats {
	uint64_t pages;
	uint64_t dma32_pages;
	uint64_t high_water;
	uint64_t dma32_high_water;
	uint64_t limit_pages;
	uint64_t dma32_limit_pages;
	uint64_t shrink_calls;
	uint64_t failures;
};

/**
 * struct ttm_global_shrinker - something that can give accounted pages back.
 * @scan: asked to free about @nr_pages accounted pages (it may free more or
 *	fewer). @ctx is the reserving caller's, NULL when there is none. Returns
 *	the number of pages it uncharged or parked for an open claim (0 when it
 *	had nothing to free). Called
 *	from whichever thread reserves, possibly from several at once; it must not
 *	register or unregister shrinkers.
 * @swaps: true when @scan swaps buffers out (stage 2, skipped when swap is
 *	disabled); false for caches that are simply dropped (stage 1).
 * @link: list link, owned by ttm_global.
 */
struct ttm_global_shrinker {
	unsigned long (*scan)(struct ttm_global_shrinker *shrinker, unsigned long nr_pages,
			      struct ttm_operation_ctx *ctx);
	bool swaps;
	struct list_head link;
};

/**
 * ttm_global_config() - set the limits.
 * @cfg: the limits; fields at 0 select the defaults.
 *
 * May be called at any time; a lower cap than the current count does not
 * free pages, it only makes the next reservations reclaim first.
 *
 * Return: 0, or -EINVAL when @cfg is NULL.
 */
int ttm_global_config(const struct ttm_global_config *cfg);

/**
 * ttm_global_get_stats() - a snapshot of the counters and limits.
 * @stats: filled in; the call never fails.
 */
void ttm_global_get_stats(struct ttm_global_stats *stats);

/**
 * ttm_global_reset_high_water() - restart the high-water marks from the
 * current counts (for tests that measure one phase).
 */
void ttm_global_reset_high_water(void);

/**
 * ttm_global_reserve() - charge @pages pages against the cap.
 * @pages: pages to charge (0 succeeds at once).
 * @dma32: also charge them against the DMA32 cap.
 * @ctx: passed to the shrinkers.
 *
 * Reclaims through the shrinkers when the cap is reached (see above).
 *
 * Context: may sleep in the shrinkers; call it holding no reservation a
 * shrinker would need.
 * Return: 0 when charged, -ENOMEM when the pages cannot fit (at once when
 * @pages is larger than the cap itself).
 */
int ttm_global_reserve(unsigned long pages, bool dma32, struct ttm_operation_ctx *ctx);

/**
 * struct ttm_global_claim - a reservation that a swap-out may satisfy in kind.
 * @take: called, with @arg, after each stage-2 scan that freed something and
 *	before the cap is tried again; returns true when it obtained the pages
 *	it reserves for from pages already charged (a free list the scan just
 *	refilled), false otherwise. Must not reserve, unreserve or run shrinkers.
 * @arg: passed to @take.
 */
struct ttm_global_claim {
	bool (*take)(void *arg);
	void *arg;
};

/**
 * ttm_global_reserve_claim() - ttm_global_reserve() that @claim can end early.
 * @pages: pages to charge.
 * @dma32: also charge them against the DMA32 cap.
 * @ctx: passed to the shrinkers.
 * @claim: tried after each stage-2 scan that freed something; may be NULL.
 *
 * Return: 0 when @pages were charged, 1 when @claim->take() succeeded
 * (nothing charged: the caller uses what it took), -ENOMEM as
 * ttm_global_reserve().
 */
int ttm_global_reserve_claim(unsigned long pages, bool dma32, struct ttm_operation_ctx *ctx,
			     const struct ttm_global_claim *claim);

/**
 * ttm_global_unreserve() - uncharge pages charged by ttm_global_reserve().
 * @pages: how many.
 * @dma32: as they were charged.
 */
void ttm_global_unreserve(unsigned long pages, bool dma32);

/**
 * ttm_global_register_shrinker() - add a shrinker.
 * @shrinker: with @scan and @swaps set.
 *
 * Context: not from a scan.
 */
void ttm_global_register_shrinker(struct ttm_global_shrinker *shrinker);

/**
 * ttm_global_unregister_shrinker() - remove a shrinker; returns once no scan
 * of it runs any more.
 * @shrinker: a registered shrinker.
 *
 * Context: not from a scan.
 */
void ttm_global_unregister_shrinker(struct ttm_global_shrinker *shrinker);

/**
 * ttm_global_shrink() - run the stage-1 shrinkers (the pools) without
 * reserving anything.
 * @nr_pages: how many pages to free.
 *
 * Return: the pages freed.
 */
unsigned long ttm_global_shrink(unsigned long nr_pages);

/**
 * ttm_global_print() - one line per counter, for the info dump.
 * @out: the stream written to.
 */
void ttm_global_print(FILE *out);

#endif /* TTM_GLOBAL_H */
