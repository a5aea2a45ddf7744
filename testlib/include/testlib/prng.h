/* SPDX-License-Identifier: MIT */
/*
 * prng.h - the one pseudo-random generator of the tests, benchmarks, stress
 * programs and fuzz targets: splitmix64 (Steele, Lea, Flood 2014). Small
 * state, any seed including 0 is good, reproducible from a printed seed, and
 * its output function prng_mix64() is a bijection of 64-bit words, which
 * makes it a content pattern too: prng_mix64(seed + i) differs for every
 * word i and every seed.
 *
 * Not for cryptography. A struct prng is not thread-safe: give each thread
 * its own, seeded from the run's seed and the thread's index.
 */
#ifndef TESTLIB_PRNG_H
#define TESTLIB_PRNG_H

#include <stdint.h>

/* The splitmix64 increment: 2^64 divided by the golden ratio, odd. */
#define PRNG_GOLDEN 0x9e3779b97f4a7c15ull

/**
 * struct prng - a splitmix64 generator.
 * @state: advanced by PRNG_GOLDEN per draw; any value is a valid seed.
 */
struct prng {
	uint64_t state;
};

/**
 * prng_mix64() - the splitmix64 output function of @x + PRNG_GOLDEN.
 * @x: any word.
 *
 * Return: a word that is a bijective function of @x.
 */
static inline uint64_t prng_mix64(uint64_t x)
{
	x += PRNG_GOLDEN;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/**
 * prng_step() - one splitmix64 draw on a bare state word.
 * @state: the generator state, advanced.
 *
 * For code that keeps its state in a uint64_t (per-thread arrays, structs
 * shared with other tools).
 *
 * Return: 64 random bits.
 */
static inline uint64_t prng_step(uint64_t *state)
{
	uint64_t z = *state;

	*state += PRNG_GOLDEN;
	return prng_mix64(z);
}

/**
 * prng_seed() - start @r from @seed.
 * @r: the generator.
 * @seed: any value; the same seed gives the same sequence.
 */
static inline void prng_seed(struct prng *r, uint64_t seed)
{
	r->state = seed;
}

/**
 * prng_next() - the next 64 random bits of @r.
 * @r: the generator.
 *
 * Return: 64 random bits.
 */
static inline uint64_t prng_next(struct prng *r)
{
	return prng_step(&r->state);
}

/**
 * prng_below() - a value in [0, @bound) from @r.
 * @r: the generator.
 * @bound: exclusive upper bound; 0 yields 0.
 *
 * Uses the high half of a 64x64 product (Lemire), so the bias is at most
 * @bound / 2^64 and no division is needed.
 *
 * Return: the value.
 */
static inline uint64_t prng_below(struct prng *r, uint64_t bound)
{
	return (uint64_t)(((unsigned __int128)prng_next(r) * bound) >> 64);
}

#endif /* TESTLIB_PRNG_H */
