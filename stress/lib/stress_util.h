/* SPDX-License-Identifier: MIT */
/*
 * stress_util.h - the little things every stress program needs: a
 * reproducible per-thread PRNG seeded from igt_seed(), a monotonic clock and
 * a budget that ends a loop on time or on an operation cap, whichever first
 * (under --soak: on time only).
 */
#ifndef STRESS_UTIL_H
#define STRESS_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <testlib/clock.h>
#include <testlib/prng.h>

#include "igt.h"

/* A value in [0, n); n > 0. */
static inline uint64_t stress_rand_below(uint64_t *state, uint64_t n)
{
	return prng_step(state) % n;
}

/**
 * struct stress_budget - loop until @deadline or @max_ops.
 * @deadline: monotonic seconds.
 * @max_ops: operation cap (keeps sanitizer builds bounded too).
 */
struct stress_budget {
	double deadline;
	uint64_t max_ops;
};

/**
 * stress_budget_init - a loop of @seconds or @max_ops operations; under
 * --soak (igt_soak()) of the whole igt_stress_budget_s() and no cap, whatever
 * shorter budget the caller chose for a default run.
 */
static inline void stress_budget_init(struct stress_budget *b, double seconds, uint64_t max_ops)
{
	if (igt_soak()) {
		seconds = igt_stress_budget_s();
		max_ops = UINT64_MAX;
	}
	b->deadline = testlib_now_s() + seconds;
	b->max_ops = max_ops;
}

static inline bool stress_budget_done(const struct stress_budget *b, uint64_t ops)
{
	return ops >= b->max_ops || ((ops & 15) == 0 && testlib_now_s() >= b->deadline);
}

/** stress_cap - @cap, or no cap under --soak: for loops bounded by a round count. */
static inline uint64_t stress_cap(uint64_t cap)
{
	return igt_soak() ? UINT64_MAX : cap;
}

#endif /* STRESS_UTIL_H */
