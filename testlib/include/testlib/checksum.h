/* SPDX-License-Identifier: MIT */
/*
 * checksum.h - the one content checksum of the tests, benchmarks and stress
 * programs: 64-bit FNV-1a over bytes. Chained: the checksum of a buffer read
 * in pieces equals the checksum of the whole, so a BO read through a bounce
 * buffer page by page compares with one filled in one go.
 */
#ifndef TESTLIB_CHECKSUM_H
#define TESTLIB_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* The FNV-1a 64-bit offset basis: the checksum of zero bytes. */
#define TESTLIB_CHECKSUM_INIT 0xcbf29ce484222325ull

/**
 * testlib_checksum_update() - fold @len bytes at @p into the running checksum @h.
 * @h: TESTLIB_CHECKSUM_INIT, or the result of the previous piece.
 * @p: the bytes (may be NULL when @len is 0).
 * @len: how many.
 *
 * Return: the checksum of everything folded so far.
 */
static inline uint64_t testlib_checksum_update(uint64_t h, const void *p, size_t len)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

/**
 * testlib_checksum() - the checksum of @len bytes at @p.
 * @p: the bytes (may be NULL when @len is 0).
 * @len: how many.
 *
 * Return: their FNV-1a 64-bit hash.
 */
static inline uint64_t testlib_checksum(const void *p, size_t len)
{
	return testlib_checksum_update(TESTLIB_CHECKSUM_INIT, p, len);
}

#endif /* TESTLIB_CHECKSUM_H */
