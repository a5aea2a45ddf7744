/* SPDX-License-Identifier: MIT */
/*
 * ttm_caching: the CPU caching mode of a buffer's system pages.
 *
 * In userspace the modes cannot change the real page attributes; they are
 * tracked so that the pool keeps pages of each mode apart (a page handed out
 * write-combined only comes back for a write-combined request, as the kernel
 * avoids the cost of changing a page's attributes) and so that accounting and
 * statistics can be reported per mode.
 */
#ifndef TTM_CACHING_H
#define TTM_CACHING_H

/**
 * enum ttm_caching - CPU caching mode of system pages.
 * @ttm_cached: ordinary write-back cached pages.
 * @ttm_write_combined: write-combined pages (uncached, writes buffered).
 * @ttm_uncached: fully uncached pages.
 */
enum ttm_caching {
	ttm_cached,
	ttm_write_combined,
	ttm_uncached,
};

/* Number of caching modes, for arrays indexed by enum ttm_caching. */
#define TTM_NUM_CACHING_TYPES 3

/**
 * ttm_caching_name() - the name of a caching mode, for statistics.
 * @c: the mode.
 *
 * Return: "cached", "wc" or "uncached"; "?" for a value outside the enum.
 */
const char *ttm_caching_name(enum ttm_caching c);

#endif /* TTM_CACHING_H */
