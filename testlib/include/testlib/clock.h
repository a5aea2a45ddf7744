/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the one clock of the tests, benchmarks and stress programs:
 * CLOCK_MONOTONIC in nanoseconds (never steps back, not slewed by settime;
 * the clock futex and pthread timed waits use). Benchmarks that want the
 * unslewed hardware rate ask for testlib_now_raw_ns().
 */
#ifndef TESTLIB_CLOCK_H
#define TESTLIB_CLOCK_H

#include <stdint.h>
#include <time.h>

#define TESTLIB_NSEC_PER_SEC 1000000000ull

/**
 * testlib_now_ns() - CLOCK_MONOTONIC now.
 *
 * Return: nanoseconds since an arbitrary fixed point (boot).
 */
static inline uint64_t testlib_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * TESTLIB_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/**
 * testlib_now_raw_ns() - CLOCK_MONOTONIC_RAW now (not slewed by NTP).
 *
 * Falls back to CLOCK_MONOTONIC where the raw clock is refused.
 *
 * Return: nanoseconds since an arbitrary fixed point (boot).
 */
static inline uint64_t testlib_now_raw_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts))
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * TESTLIB_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/**
 * testlib_thread_cpu_ns() - CPU time the calling thread has used.
 *
 * For measurements on a loaded machine, where the wall clock mostly counts
 * the time other processes ran.
 *
 * Return: nanoseconds of CPU time of this thread.
 */
static inline uint64_t testlib_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * TESTLIB_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/**
 * testlib_now_s() - CLOCK_MONOTONIC now, in seconds.
 *
 * Return: seconds since an arbitrary fixed point (boot).
 */
static inline double testlib_now_s(void)
{
	return (double)testlib_now_ns() * 1e-9;
}

#endif /* TESTLIB_CLOCK_H */
