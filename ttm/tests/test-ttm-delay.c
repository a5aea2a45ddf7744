// SPDX-License-Identifier: MIT
/*
 * ttm_delay: the regression knobs' busy-wait. Its timing is measured by
 * benchmark-delay (bench/), never here; these cases check the contract a
 * call site relies on: a site computes its step count once and keeps it,
 * longer delays never get fewer steps, every thread's first use of a site
 * agrees, and the calibration's figures are usable.
 */
#include <pthread.h>
#include <stdint.h>

#include <ttm/ttm_delay.h>

#include "ktest.h"

KTEST(ttm_delay_site_starts_uncalibrated_and_keeps_its_steps)
{
	struct ttm_delay_site site = TTM_DELAY_SITE_INIT;
	int64_t n;

	EXPECT_LT(atomic_load(&site.steps), 0);
	n = ttm_delay_site_steps(&site, 1000);
	EXPECT_GT(n, 0);
	EXPECT_EQ(atomic_load(&site.steps), n);
	/* A use after the first runs the stored count: nothing recomputes it. */
	ttm_delay_on(&site, 1000, 0, 0);
	EXPECT_EQ(atomic_load(&site.steps), n);
}

KTEST(ttm_delay_on_yields_the_object_whatever_the_steps)
{
	int obj;

	for (int64_t n = 0; n < 40; n++)
		EXPECT_EQ(ttm_delay_chain(n, (uintptr_t)&obj, (uintptr_t)n * 7919u),
			  (uintptr_t)&obj);
	for (unsigned ns = 0; ns < 64; ns++) {
		struct ttm_delay_site site = TTM_DELAY_SITE_INIT;

		EXPECT_EQ(ttm_delay_on(&site, ns, (uintptr_t)&obj, ns), (uintptr_t)&obj);
	}
	EXPECT_TRUE(ttm_delay_after(5, &obj, obj = 3) == &obj);
}

KTEST(ttm_delay_half_steps_alternate)
{
	double fixed_ns, step_ns;

	ttm_delay_calibration(&fixed_ns, &step_ns);
	/* A time of 40k + 0.5 steps past the fixed cost: 40k whole and a half. */
	for (unsigned k = 1; k < 8; k++) {
		struct ttm_delay_site site = TTM_DELAY_SITE_INIT;
		double ns = fixed_ns + ((double)k * 40 + 0.5) * step_ns;

		EXPECT_EQ(ttm_delay_site_steps(&site, ns), (int64_t)k * 40);
		EXPECT_EQ(atomic_load(&site.frac), UINT32_C(0x80000000));
		/* A quarter step off rounds to the nearest half. */
		EXPECT_EQ(ttm_delay_site_steps(&site, ns + 0.2 * step_ns), (int64_t)k * 40);
		EXPECT_EQ(atomic_load(&site.frac), UINT32_C(0x80000000));
		EXPECT_EQ(ttm_delay_site_steps(&site, ns + 0.3 * step_ns), (int64_t)k * 40 + 1);
		EXPECT_EQ(atomic_load(&site.frac), 0u);
	}
	{
		struct ttm_delay_site site = {.steps = 3, .frac = UINT32_C(0x80000000), .acc = 0};

		/* Two uses carry exactly once: the mean is 3.5 steps. */
		ttm_delay_on(&site, 0, 0, 0);
		EXPECT_EQ(atomic_load(&site.acc), UINT32_C(0x80000000));
		ttm_delay_on(&site, 0, 0, 0);
		EXPECT_EQ(atomic_load(&site.acc), 0u);
		EXPECT_EQ(atomic_load(&site.steps), 3);
	}
}

KTEST(ttm_delay_steps_grow_with_the_asked_time)
{
	static const uint64_t asked[] = {0,   1,   2,	 3,    5,     10,    30,
					 100, 300, 1000, 3000, 10000, 100000};
	int64_t prev = -1;

	for (unsigned i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
		struct ttm_delay_site site = TTM_DELAY_SITE_INIT;
		int64_t n = ttm_delay_site_steps(&site, asked[i]);

		EXPECT_GE(n, 0);
		EXPECT_GE(n, prev);
		prev = n;
	}
	/* Far past the calibration grid the count still grows. */
	{
		struct ttm_delay_site a = TTM_DELAY_SITE_INIT, b = TTM_DELAY_SITE_INIT;

		EXPECT_GT(ttm_delay_site_steps(&b, 1000000), ttm_delay_site_steps(&a, 100000));
	}
}

KTEST(ttm_delay_calibration_figures_are_usable)
{
	double fixed_ns = -1, step_ns = -1;

	ttm_delay_calibration(&fixed_ns, &step_ns);
	/* Doubles: the integer comparisons of ktest would truncate them. */
	EXPECT_TRUE(fixed_ns >= 0.0);
	EXPECT_TRUE(step_ns > 0.0 && step_ns < 100.0);
}

static struct ttm_delay_site shared_site = TTM_DELAY_SITE_INIT;

static void *first_use(void *arg)
{
	(void)arg;
	(void)ttm_delay_after(0, arg, 0); /* a zero use expands and returns */
	ttm_delay_on(&shared_site, 500, 0, 0);
	return NULL;
}

KTEST(ttm_delay_threads_racing_on_a_first_use_agree)
{
	pthread_t t[4];
	struct ttm_delay_site ref = TTM_DELAY_SITE_INIT;

	for (unsigned i = 0; i < 4; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, first_use, NULL), 0);
	for (unsigned i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	EXPECT_EQ(atomic_load(&shared_site.steps), ttm_delay_site_steps(&ref, 500));
}
