/* SPDX-License-Identifier: MIT */
/*
 * ww_lockdep: a lock-order checker that knows ww_mutex classes, as the
 * kernel's lockdep does for ww classes. Compiled in with the meson option
 * ww_lockdep (TTM_WW_LOCKDEP in ttm_config.h), meant for the test and
 * sanitizer builds; otherwise every hook below is an empty inline and
 * costs nothing.
 *
 * ww_mutex.c calls ww_lockdep_acquired() when a lock has been taken and
 * ww_lockdep_release() when it is about to be released. Each thread keeps
 * the stack of ww_mutexes it holds; the checker keeps, process-wide, the
 * order graph between classes ("a lock of class B was taken while one of
 * class A was held"). It reports, one line on stderr each ("ww_lockdep:
 * ..."):
 *  - an inversion: taking a lock of class B while holding class A when
 *    the graph already leads from B to A (directly or through other
 *    classes): two threads doing both orders can deadlock;
 *  - a ww_mutex taken without an acquire context while the thread holds
 *    another lock of its class (no ticket, so no back-off: two threads
 *    doing this in opposite orders deadlock), and one taken with a context
 *    other than the one its held classmates were taken with.
 * A trylock cannot deadlock: it is recorded as held but neither checked
 * nor added to the graph, as lockdep does. Each pair of classes and each
 * kind is reported once.
 *
 * Like a sanitizer, a process that had a report exits with status
 * WW_LOCKDEP_EXITCODE (at exit), so a test that hits one fails even when
 * its own checks pass; ww_lockdep_reset() forgets the reports and the
 * graph (for the checker's own tests).
 */
#ifndef TTM_WW_LOCKDEP_H
#define TTM_WW_LOCKDEP_H

#include "ttm_config.h"

#include <stdbool.h>

struct ww_mutex;
struct ww_acquire_ctx;

/* Exit status of a process that had a report. */
#define WW_LOCKDEP_EXITCODE 67

#if TTM_WW_LOCKDEP
/**
 * ww_lockdep_acquired() - @lock was just taken by this thread.
 * @lock: the ww_mutex taken.
 * @ctx: the acquire context it was taken with, or NULL.
 * @trylock: taken by a trylock (recorded, not checked).
 */
void ww_lockdep_acquired(struct ww_mutex *lock, struct ww_acquire_ctx *ctx, bool trylock);
/**
 * ww_lockdep_release() - this thread is about to release @lock.
 * @lock: the ww_mutex being released.
 */
void ww_lockdep_release(struct ww_mutex *lock);
/**
 * ww_lockdep_nest_ok() - the next acquisition of @lock by this thread may
 * take it without the context of the classmates it holds: the caller knows
 * no holder of @lock ever waits for another lock of the class (for example
 * a deleted BO's own reservation, held only by releasers waiting for
 * fences). Class-order edges are still recorded. One-shot.
 * @lock: the ww_mutex about to be taken.
 */
void ww_lockdep_nest_ok(struct ww_mutex *lock);
/**
 * ww_lockdep_reports() - how many reports were made.
 *
 * Return: reports made since the start or the last ww_lockdep_reset().
 */
unsigned long ww_lockdep_reports(void);
/** ww_lockdep_reset() - forget the reports and the order graph. */
void ww_lockdep_reset(void);
/**
 * ww_lockdep_held() - how many ww_mutexes this thread holds.
 *
 * Return: the count of ww_mutexes this thread holds now.
 */
unsigned int ww_lockdep_held(void);
#define WW_LOCKDEP_ENABLED 1
#else
static inline void ww_lockdep_acquired(struct ww_mutex *lock, struct ww_acquire_ctx *ctx,
				       bool trylock)
{
}
static inline void ww_lockdep_release(struct ww_mutex *lock)
{
}
static inline void ww_lockdep_nest_ok(struct ww_mutex *lock)
{
}
static inline unsigned long ww_lockdep_reports(void)
{
	return 0;
}
static inline void ww_lockdep_reset(void)
{
}
static inline unsigned int ww_lockdep_held(void)
{
	return 0;
}
#define WW_LOCKDEP_ENABLED 0
#endif

#endif /* TTM_WW_LOCKDEP_H */
