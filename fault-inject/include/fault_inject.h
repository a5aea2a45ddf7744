/* SPDX-License-Identifier: MIT */
/*
 * Named fault points with the semantics of the kernel's struct fault_attr.
 *
 * A fault point is a global struct fault_attr defined once with
 * DEFINE_FAULT_POINT() and registered automatically at program start. Call
 * sites ask fault_should_fail(&point, size) on the path that can fail in the
 * kernel (an allocation, an I/O) and take their real error path when it
 * returns true.
 *
 * Decision order (cheapest first, as lib/fault-inject.c does):
 *   1. the per-thread fail-nth countdown, if armed on this thread;
 *   2. the point's own "nth" one-shot countdown;
 *   3. times == 0 -> never (times < 0 means unlimited);
 *   4. space: a byte budget consumed before any failure is allowed;
 *   5. interval: only every interval-th call that got this far is a
 *      candidate (the kernel's attr->count: calls stopped by steps 3 and 4
 *      do not advance it);
 *   6. probability (percent) against the seeded PRNG.
 *
 * Cost of a point nobody armed: a call that stops at step 3 reads the
 * point's configuration (lines nobody writes while it is disarmed) and
 * bumps this thread's own hit counter for the point; it writes no line
 * another thread uses and takes no lock. The first call of each thread takes
 * a slow path that reads the environment (once per process) and lists the
 * thread under the registry lock. No path allocates. The CPU-mapping fault
 * engine's points fire on the thread that serves the fault (a service worker
 * in SIGSEGV mode, the userfaultfd thread), not on the accessing thread: a
 * per-thread fail-nth armed there does not count the fault's work.
 *
 * Configuration comes from the environment variable TTM_FAULTS (read once, on
 * the first fault_should_fail() or fault_init_from_env() call), or from
 * fault_configure() with the same syntax:
 *
 *   TTM_FAULTS="pool_alloc:probability=10,times=5;bo_alloc:nth=3;seed=42"
 *
 * A point name of "all" applies the settings to every registered point.
 * TTM_FAULTS_SEED overrides the seed. Bad strings are rejected with a message
 * naming the token.
 *
 * With the meson option fault_inject=false (FAULT_INJECT_ENABLED == 0) every
 * hook is a static inline returning false, so call sites need no #ifdef and
 * the compiler removes them.
 *
 * Thread safety: fault_should_fail() may be called from any thread. The
 * configuration calls must not race with each other (configure before the
 * workload starts, or from a single controlling thread). fault_hits(),
 * fault_print() and fault_reset() take the registry lock to read every
 * thread's hit counters; fault_should_fail() takes it only on a thread's
 * first call.
 */
#ifndef FAULT_INJECT_H
#define FAULT_INJECT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef FAULT_INJECT_ENABLED
#define FAULT_INJECT_ENABLED 1
#endif

/**
 * struct fault_attr - one named fault point.
 * @name: stable name used in TTM_FAULTS and by the listing tool.
 * @probability: percent chance (0..100) that a candidate call fails.
 * @interval: only every @interval-th call is a candidate (0 or 1: every call).
 * @times: failures left to inject; -1 for unlimited, 0 disables the point.
 * @space: bytes that must be consumed (by @size of calls) before failing.
 * @verbose: 0 silent, 1 one line per injected failure, 2 with a backtrace.
 * @nth: one-shot: the nth hit (1-based) from now fails; 0 when unarmed.
 * @fired: failures injected since the last reset.
 * @count: candidates seen by the interval check (step 5) since the last
 *	reset; advanced only when @interval > 1 and a call got that far.
 * @slot: index + 1 of this point's hit counter in every thread's counter
 *	array, given by fault_register(); 0 for a point never registered.
 * @hits_shared: hits counted on one shared counter: those of a point never
 *	registered or registered beyond the per-thread counters' capacity
 *	(64 points), and those of a thread that could not be listed.
 * @hits_gone: hits of threads that have exited. Protected by the registry
 *	lock.
 * @hits_base: the point's total at its last reset, subtracted by
 *	fault_hits(). Protected by the registry lock.
 * @next: registry link, owned by the registry.
 *
 * The configuration fields are atomics because hot paths read them without a
 * lock. Hits are not a field: read them with fault_hits().
 */
struct fault_attr {
	const char *name;
	atomic_ulong probability;
	atomic_ulong interval;
	atomic_long times;
	atomic_long space;
	atomic_ulong verbose;
	atomic_ulong nth;
	atomic_ulong fired;
	atomic_ulong count;
	atomic_uint slot;
	atomic_ulong hits_shared;
	unsigned long hits_gone;
	unsigned long hits_base;
	struct fault_attr *next;
};

#define FAULT_ATTR_INITIALIZER(str)                                                                \
	{                                                                                          \
		.name = (str), .probability = 0, .interval = 1, .times = 0, .space = 0,            \
		.verbose = 0, .nth = 0, .fired = 0, .count = 0, .slot = 0, .hits_shared = 0,       \
		.hits_gone = 0, .hits_base = 0, .next = NULL                                       \
	}

/**
 * fault_register() - add a point to the registry (DEFINE_FAULT_POINT()
 * calls it from a constructor; not for direct use).
 * @attr: the point; lives as long as the process.
 */
void fault_register(struct fault_attr *attr);

/*
 * DEFINE_FAULT_POINT - define and register a fault point. Use once, in a .c
 * file, at file scope; declare it elsewhere with extern struct fault_attr.
 */
#define DEFINE_FAULT_POINT(var, str)                                                               \
	struct fault_attr var = FAULT_ATTR_INITIALIZER(str);                                       \
	static void __attribute__((constructor)) fault_register_##var(void)                        \
	{                                                                                          \
		fault_register(&var);                                                              \
	}

#if FAULT_INJECT_ENABLED
/* Points a thread counts on its own (the whole tree defines fewer than 20). */
#define FAULT_THREAD_SLOTS 64

/**
 * struct fault_thread - one thread's hit counters (fault_inject.c's; here
 * for fault_should_fail()'s inline part only).
 * @nslots: FAULT_THREAD_SLOTS while the thread is listed, 0 before: the one
 *	test the hot path makes.
 * @next: thread list link.
 * @counts: the point with slot s counts at [s - 1]; written by the owning
 *	thread only, with relaxed atomics.
 *
 * @nslots changes only under the registry lock and only by the owner, so the
 * owner reads it without the lock; @next is protected by the registry lock.
 * Only a thread whose key is set is listed, so that its exit (or a fork, for
 * the threads it leaves behind) folds and unlists it.
 */
struct fault_thread {
	unsigned nslots;
	struct fault_thread *next;
	atomic_ulong counts[FAULT_THREAD_SLOTS];
};

/*
 * Initial-exec TLS, as in fault_inject.c: no library using this header is
 * opened with dlopen().
 */
extern _Thread_local
    __attribute__((tls_model("initial-exec"))) struct fault_thread fault_thread_self_;
extern _Thread_local __attribute__((tls_model("initial-exec"))) unsigned long fault_thread_nth_;

/**
 * fault_should_fail_slow_() - everything fault_should_fail() does not answer
 * inline. Not an API: call fault_should_fail().
 * @attr: the point.
 * @size: as for fault_should_fail().
 *
 * Return: as fault_should_fail().
 */
bool fault_should_fail_slow_(struct fault_attr *attr, size_t size);

/**
 * fault_should_fail() - should this call at @attr fail?
 * @attr: the point.
 * @size: bytes this call would allocate or transfer (for @space), 0 if n/a.
 *
 * A point nobody armed (no countdown on this thread or the point, no times
 * budget) on a listed thread is answered inline: its hit is counted on the
 * thread's own counter and the call returns false, with no call and no
 * shared write. Everything else goes to fault_should_fail_slow_().
 *
 * Return: true when the caller must take its failure path. Never blocks.
 */
static inline __attribute__((always_inline)) bool fault_should_fail(struct fault_attr *attr,
								    size_t size)
{
	unsigned slot = atomic_load_explicit(&attr->slot, memory_order_relaxed);

	/* Slot 0 (never registered) wraps to the largest value. */
	if (__builtin_expect(
		slot - 1u < fault_thread_self_.nslots && !fault_thread_nth_ &&
		    !(atomic_load_explicit(&attr->nth, memory_order_relaxed) |
		      (unsigned long)atomic_load_explicit(&attr->times, memory_order_relaxed)),
		1)) {
		atomic_ulong *c = &fault_thread_self_.counts[slot - 1];

		atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
				      memory_order_relaxed);
		return false;
	}
	return fault_should_fail_slow_(attr, size);
}
#else
static inline bool fault_should_fail(struct fault_attr *attr, size_t size)
{
	(void)attr;
	(void)size;
	return false;
}
#endif

/**
 * fault_configure() - apply a TTM_FAULTS-syntax string.
 * @spec: the string.
 * @err: buffer for a message naming the bad token, may be NULL.
 * @errlen: size of @err.
 *
 * Return: 0 on success, -EINVAL on a syntax error or unknown point/key (no
 * setting of @spec is applied then), -ENOTSUP when fault points are compiled
 * out and @spec is not empty.
 */
int fault_configure(const char *spec, char *err, size_t errlen);

/**
 * fault_init_from_env() - read TTM_FAULTS / TTM_FAULTS_SEED once.
 *
 * Return: 0 or the fault_configure() error; on error the message is printed
 * to stderr.
 */
int fault_init_from_env(void);

/** fault_reset_all() - clear every point's configuration and counters (not the seed). */
void fault_reset_all(void);

/**
 * fault_reset() - clear one point's configuration and counters.
 * @attr: the point.
 */
void fault_reset(struct fault_attr *attr);

/**
 * fault_set_seed() - seed the PRNG deciding probabilistic failures.
 * @seed: the seed (printed on first use, so a run can be repeated).
 */
void fault_set_seed(uint64_t seed);

/**
 * fault_get_seed() - the seed of the probabilistic failures.
 *
 * Return: the seed in use.
 */
uint64_t fault_get_seed(void);

/**
 * fault_hits() - calls that reached @attr since its last reset.
 * @attr: the point.
 *
 * Sums the counters of exited threads and of every live thread under the
 * registry lock, so the count is exact for calls that returned before this
 * one started; calls running meanwhile may or may not be in it.
 *
 * Return: the count; 0 when fault points are compiled out.
 */
unsigned long fault_hits(struct fault_attr *attr);

/**
 * fault_lookup() - look a point up by name.
 * @name: the point's name.
 *
 * Return: the point; NULL when there is none.
 */
struct fault_attr *fault_lookup(const char *name);

/**
 * fault_for_each() - call @fn for every registered point, in name order.
 * @fn: the callback.
 * @data: passed to @fn.
 */
void fault_for_each(void (*fn)(struct fault_attr *attr, void *data), void *data);

/**
 * fault_count() - the number of registered points.
 *
 * Return: the count.
 */
size_t fault_count(void);

/**
 * fault_set_nth() - arm the point's one-shot nth countdown.
 * @attr: the point.
 * @nth: the @nth next hit fails; 0 disarms.
 */
void fault_set_nth(struct fault_attr *attr, unsigned long nth);

/**
 * fault_thread_fail_nth() - per-thread fail-nth (the kernel's
 * /proc/self/fail-nth): the @nth next hit of any point on the calling
 * thread fails.
 * @only: when not NULL, only hits of that point count.
 * @nth: the countdown; 0 disarms.
 */
void fault_thread_fail_nth(struct fault_attr *only, unsigned long nth);

/**
 * fault_thread_nth_pending() - the calling thread's remaining countdown.
 *
 * Return: the hits left before the failure; 0 once it fired or when unarmed.
 */
unsigned long fault_thread_nth_pending(void);

/**
 * fault_print() - every point with its configuration and counters, one per line.
 * @out: the stream written to.
 */
void fault_print(FILE *out);

/**
 * fault_total_fired() - failures injected across all points since the last reset.
 *
 * Return: the total.
 */
unsigned long fault_total_fired(void);

/**
 * fault_for_each_site() - visit every call site a failure was injected at.
 * @fn: called once per site with its point, the return address of the
 *	site's fault_should_fail() call and the failures injected there.
 * @data: passed to @fn.
 *
 * Sites are recorded for the life of the process (fault_reset() and
 * fault_reset_all() keep them); a forked child starts with none. Two threads
 * firing a new site at once may record it twice: sum entries by address.
 */
void fault_for_each_site(void (*fn)(const struct fault_attr *attr, const void *pc,
				    unsigned long fired, void *data),
			 void *data);
/**
 * fault_sites_lost_count() - injections whose site was not recorded.
 *
 * Return: the injections not recorded because more distinct sites fired than
 * the table holds.
 */
unsigned long fault_sites_lost_count(void);

/**
 * fault_print_sites() - one line per site for scripts/check-fault-points-sweep.sh:
 * "fault-site: POINT OBJECT 0xOFFSET FIRED", OFFSET being the call's address
 * in OBJECT (the executable or shared object, as dladdr() names it) for
 * addr2line. With TTM_FAULTS_SITES=PATH in the environment, a process that
 * fired any site appends these lines to PATH when it exits (exit(), not _exit()).
 * @out: the stream written to.
 */
void fault_print_sites(FILE *out);

#endif /* FAULT_INJECT_H */
