// SPDX-License-Identifier: MIT
/*
 * drm_memcpy_stream(): every length and both alignments copy exactly the
 * bytes asked for (the unaligned head, the streamed body and the tail), and
 * nothing around the destination is touched.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <testlib/prng.h>

#include <ttm/drm_cache.h>

#include "ktest.h"

#define GUARD 64u
#define GUARD_BYTE 0xc3

static void fill(uint8_t *p, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)prng_step(&seed);
}

/* Copy @len bytes from @soff to @doff of fresh buffers; check them and the guards. */
static void check_copy(size_t len, size_t soff, size_t doff)
{
	size_t cap = len + 2 * GUARD + 32;
	uint8_t *src = aligned_alloc(64, (cap + 63) & ~(size_t)63);
	uint8_t *dst = aligned_alloc(64, (cap + 63) & ~(size_t)63);
	size_t bad = SIZE_MAX;

	ASSERT_NOT_NULL(src);
	ASSERT_NOT_NULL(dst);
	fill(src, cap, (uint32_t)(len * 31 + soff * 7 + doff));
	memset(dst, GUARD_BYTE, cap);
	drm_memcpy_stream(dst + GUARD + doff, src + GUARD + soff, len);
	drm_memcpy_stream_fence();
	for (size_t i = 0; i < cap && bad == SIZE_MAX; i++) {
		size_t at = GUARD + doff;
		uint8_t want = i >= at && i < at + len ? src[GUARD + soff + (i - at)] : GUARD_BYTE;

		if (dst[i] != want)
			bad = i;
	}
	KTEST_CHECK_(bad == SIZE_MAX, false, "len %zu soff %zu doff %zu: byte %zu differs", len,
		     soff, doff, bad);
	free(src);
	free(dst);
}

KTEST(drm_memcpy_stream_every_short_length_and_alignment)
{
	/* Around the 64-byte step and the 16-byte alignment, from both sides. */
	for (size_t len = 0; len <= 300; len++)
		for (size_t soff = 0; soff < 17; soff += 3)
			for (size_t doff = 0; doff < 17; doff++)
				check_copy(len, soff, doff);
}

KTEST(drm_memcpy_stream_large_unaligned)
{
	check_copy((1u << 20) + 13, 5, 11);
	check_copy(1u << 20, 0, 0);
	check_copy(4096 * 3 + 1, 1, 0);
}

KTEST(drm_memcpy_stream_zero_length_touches_nothing)
{
	uint8_t d[8], s[8] = {1, 2, 3, 4, 5, 6, 7, 8};

	memset(d, GUARD_BYTE, sizeof(d));
	drm_memcpy_stream(d, s, 0);
	drm_memcpy_stream_fence();
	for (unsigned i = 0; i < sizeof(d); i++)
		EXPECT_EQ(d[i], GUARD_BYTE);
}

KTEST(drm_memcpy_stream_native_matches_the_build)
{
#if defined(__SSE2__)
	KTEST_CHECK_(drm_memcpy_stream_native(), false, "an SSE2 build must stream");
#else
	KTEST_CHECK_(!drm_memcpy_stream_native(), false,
		     "a build without SSE2 falls back to memcpy");
#endif
}
