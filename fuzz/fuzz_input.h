/* SPDX-License-Identifier: MIT */
/*
 * fuzz_input.h - read a libFuzzer input as a stream of small integers.
 *
 * Every target turns its input into a sequence of operations. Reading past
 * the end yields zeros instead of failing, so a truncated input is still a
 * valid (shorter) program and the fuzzer never wastes runs on a parse error
 * of its own making.
 */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/**
 * struct fuzz_input - a cursor over the fuzzer's bytes.
 * @data: the input (owned by libFuzzer, read-only).
 * @len: its length.
 * @pos: bytes consumed so far.
 */
struct fuzz_input {
	const uint8_t *data;
	size_t len;
	size_t pos;
};

static inline void fuzz_input_init(struct fuzz_input *in, const uint8_t *data, size_t len)
{
	in->data = data;
	in->len = len;
	in->pos = 0;
}

static inline bool fuzz_input_done(const struct fuzz_input *in)
{
	return in->pos >= in->len;
}

static inline uint8_t fuzz_u8(struct fuzz_input *in)
{
	return in->pos < in->len ? in->data[in->pos++] : 0;
}

static inline uint16_t fuzz_u16(struct fuzz_input *in)
{
	uint16_t lo = fuzz_u8(in);

	return (uint16_t)(lo | (uint16_t)fuzz_u8(in) << 8);
}

static inline uint64_t fuzz_u64(struct fuzz_input *in)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)fuzz_u8(in) << (8 * i);
	return v;
}

/*
 * fuzz_check - a property of the code under test does not hold. Unlike
 * assert() it stays on in release builds; abort() is how a libFuzzer target
 * reports a finding (the input is saved as a crash- file).
 */
#define fuzz_check(expr)                                                                           \
	do {                                                                                       \
		if (!(expr)) {                                                                     \
			fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__,      \
				#expr);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif /* FUZZ_INPUT_H */
