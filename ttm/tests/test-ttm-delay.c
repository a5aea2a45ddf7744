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
	ttm_delay_at(&site, 1000);
	EXPECT_EQ(atomic_load(&site.steps), n);
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
	/* Past the calibrated grid the count extrapolates rather than saturating. */
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
	ttm_delay_ns(0); /* a zero use expands and returns */
	ttm_delay_at(&shared_site, 500);
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
