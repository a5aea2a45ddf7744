// SPDX-License-Identifier: MIT
/*
 * drm_cache.c - streaming copies (see <ttm/drm_cache.h>).
 */
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <ttm/drm_cache.h>

#if defined(__SSE2__)

/* 64 bytes (one cache line) per step: four loads, then four streamed stores. */
#define STREAM_STEP 64u

void drm_memcpy_stream(void *dst, const void *src, size_t len)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	size_t head = (16u - ((uintptr_t)d & 15u)) & 15u;

	if (len < STREAM_STEP + head) {
		memcpy(d, s, len);
		return;
	}
	/* Align the destination: movntdq needs 16 bytes; the loads need not. */
	if (head) {
		memcpy(d, s, head);
		d += head;
		s += head;
		len -= head;
	}
	for (; len >= STREAM_STEP; d += STREAM_STEP, s += STREAM_STEP, len -= STREAM_STEP) {
		const __m128i *in = (const __m128i *)(const void *)s;
		__m128i *out = (__m128i *)(void *)d;
		__m128i a = _mm_loadu_si128(in), b = _mm_loadu_si128(in + 1);
		__m128i c = _mm_loadu_si128(in + 2), e = _mm_loadu_si128(in + 3);

		_mm_stream_si128(out, a);
		_mm_stream_si128(out + 1, b);
		_mm_stream_si128(out + 2, c);
		_mm_stream_si128(out + 3, e);
	}
	if (len)
		memcpy(d, s, len);
}

void drm_memcpy_stream_fence(void)
{
	_mm_sfence();
}

bool drm_memcpy_stream_native(void)
{
	return true;
}

#else

void drm_memcpy_stream(void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
}

void drm_memcpy_stream_fence(void)
{
}

bool drm_memcpy_stream_native(void)
{
	return false;
}

#endif
