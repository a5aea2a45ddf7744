// SPDX-License-Identifier: MIT
/*
 * fuzz-drm-mm - libFuzzer target for the drm_mm range allocator.
 *
 * The input is a program: a header choosing the managed range (including
 * ranges ending at the top of the 64-bit space, where overflow bugs live),
 * then one opcode byte per operation with its arguments: insert in a range
 * with any mode and alignment, reserve at a fixed offset, remove, a full
 * eviction scan followed by the insert it made room for, and calls with bad
 * arguments. After every operation drm_mm_check() must pass and a shadow
 * copy of the nodes must agree with the allocator: nodes are where they were
 * asked to be, -ENOSPC is returned only when a brute-force search over the
 * holes finds no fit either, and a scan that says "found" really makes room.
 */
#include <errno.h>
#include <string.h>

#include <ttm/drm_mm.h>

#include "fuzz_input.h"

#define NSLOTS 48

struct mm_fuzz {
	struct drm_mm mm;
	uint64_t start, end; /* managed [start, end) */
	struct drm_mm_node node[NSLOTS];
};

static uint64_t pick_align(struct fuzz_input *in)
{
	uint8_t b = fuzz_u8(in);

	if (b < 64)
		return b & 1; /* 0 and 1 both mean "none" */
	return 1ull << (b % 20);
}

static bool request_fits(const struct mm_fuzz *f, uint64_t size, uint64_t align, uint64_t rs,
			 uint64_t re)
{
	/*
	 * Brute force over every gap between allocated nodes, in 128-bit
	 * arithmetic so that the reference itself cannot overflow.
	 */
	unsigned __int128 cursor = f->start;
	bool used[NSLOTS] = {false};

	if (align <= 1)
		align = 1;
	for (;;) {
		unsigned __int128 next_start = (unsigned __int128)f->end + 1, hs, he, a;
		int pick = -1;

		for (int i = 0; i < NSLOTS; i++) {
			if (used[i] || !f->node[i].allocated)
				continue;
			if (f->node[i].start >= cursor && f->node[i].start < next_start) {
				next_start = f->node[i].start;
				pick = i;
			}
		}
		hs = cursor;
		he = pick < 0 ? (unsigned __int128)f->end : next_start;
		if (hs < rs)
			hs = rs;
		if (he > re)
			he = re;
		if (he > hs) {
			a = (hs + align - 1) / align * align;
			if (a + size <= he)
				return true;
		}
		if (pick < 0)
			return false;
		used[pick] = true;
		cursor = (unsigned __int128)f->node[pick].start + f->node[pick].size;
	}
}

static void check_node(const struct mm_fuzz *f, const struct drm_mm_node *n, uint64_t size,
		       uint64_t align, uint64_t rs, uint64_t re)
{
	fuzz_check(n->allocated);
	fuzz_check(n->size == size);
	fuzz_check(n->start >= rs && n->start >= f->start);
	fuzz_check(n->start - rs <= re - rs && n->size <= re - n->start);
	if (align > 1)
		fuzz_check(n->start % align == 0);
}

static int free_slot(struct mm_fuzz *f, uint8_t hint)
{
	for (int i = 0; i < NSLOTS; i++) {
		int s = (hint + i) % NSLOTS;

		if (!f->node[s].allocated)
			return s;
	}
	return -1;
}

static int used_slot(struct mm_fuzz *f, uint8_t hint)
{
	for (int i = 0; i < NSLOTS; i++) {
		int s = (hint + i) % NSLOTS;

		if (f->node[s].allocated)
			return s;
	}
	return -1;
}

/* A size in [1, span]: mostly small, sometimes the whole span or more. */
static uint64_t pick_size(struct fuzz_input *in, uint64_t span)
{
	uint8_t kind = fuzz_u8(in);
	uint64_t v = fuzz_u16(in);

	switch (kind % 8) {
	case 0:
		return span;
	case 1:
		return span + 1 ? span + 1 : span;
	case 2:
		return fuzz_u64(in) | 1;
	default:
		return v % (span < 4096 ? span : 4096) + 1;
	}
}

static void pick_range(struct fuzz_input *in, const struct mm_fuzz *f, uint64_t *rs, uint64_t *re)
{
	uint64_t span = f->end - f->start;
	uint8_t kind = fuzz_u8(in);

	*rs = f->start;
	*re = f->end;
	if (kind % 4 == 0)
		return;
	*rs = f->start + fuzz_u16(in) % span;
	*re = *rs + fuzz_u16(in) % (f->end - *rs) + 1;
	if (kind % 4 == 3) { /* hostile: inverted or outside */
		uint64_t t = *rs;

		*rs = *re;
		*re = t;
	}
}

static void op_insert(struct mm_fuzz *f, struct fuzz_input *in)
{
	int s = free_slot(f, fuzz_u8(in));
	uint64_t size = pick_size(in, f->end - f->start), align = pick_align(in), rs, re;
	enum drm_mm_insert_mode mode = (enum drm_mm_insert_mode)(fuzz_u8(in) % 3);
	struct drm_mm_node *n;
	int ret;

	pick_range(in, f, &rs, &re);
	if (s < 0)
		return;
	n = &f->node[s];
	memset(n, 0, sizeof(*n));
	ret = drm_mm_insert_node_in_range(&f->mm, n, size, align, 0, rs, re, mode);
	if (rs >= re || rs < f->start || re > f->end) {
		fuzz_check(ret == -EINVAL);
		fuzz_check(!n->allocated);
		return;
	}
	if (ret == 0) {
		check_node(f, n, size, align, rs, re);
		return;
	}
	fuzz_check(ret == -ENOSPC);
	fuzz_check(!n->allocated);
	fuzz_check(!request_fits(f, size, align, rs, re));
}

static void op_reserve(struct mm_fuzz *f, struct fuzz_input *in)
{
	int s = free_slot(f, fuzz_u8(in));
	uint64_t span = f->end - f->start;
	uint64_t off = fuzz_u16(in) % span, size = pick_size(in, span);
	struct drm_mm_node *n;
	int ret;

	if (s < 0)
		return;
	n = &f->node[s];
	memset(n, 0, sizeof(*n));
	n->start = f->start + off;
	n->size = size;
	ret = drm_mm_reserve_node(&f->mm, n);
	if (size > f->end - n->start) {
		fuzz_check(ret == -EINVAL);
		fuzz_check(!n->allocated);
		return;
	}
	if (ret == 0) {
		check_node(f, n, size, 1, f->start + off, f->end);
		return;
	}
	fuzz_check(ret == -ENOSPC);
	fuzz_check(!n->allocated);
	/* Occupied means some node overlaps [off, off + size). */
	{
		bool overlap = false;

		for (int i = 0; i < NSLOTS; i++) {
			const struct drm_mm_node *o = &f->node[i];

			if (i != s && o->allocated && o->start < n->start + size &&
			    n->start < o->start + o->size)
				overlap = true;
		}
		fuzz_check(overlap);
	}
}

static void op_remove(struct mm_fuzz *f, struct fuzz_input *in)
{
	int s = used_slot(f, fuzz_u8(in));

	if (s < 0)
		return;
	drm_mm_remove_node(&f->mm, &f->node[s]);
	fuzz_check(!f->node[s].allocated);
}

/*
 * The eviction roster as a driver uses it: add nodes in a fuzzer-chosen
 * order until the scan says a hole would form, take every one back in
 * reverse order, evict those it flags, and the insert must then succeed.
 */
static void op_scan(struct mm_fuzz *f, struct fuzz_input *in)
{
	uint64_t size = fuzz_u16(in) % (f->end - f->start) + 1, align = pick_align(in), rs, re;
	enum drm_mm_insert_mode mode = (enum drm_mm_insert_mode)(fuzz_u8(in) % 3);
	uint8_t rot = fuzz_u8(in);
	int order[NSLOTS], n = 0, s;
	bool evict[NSLOTS] = {false};
	struct drm_mm_scan scan;
	struct drm_mm_node probe;
	bool found = false;
	int ret;

	pick_range(in, f, &rs, &re);
	ret = drm_mm_scan_init_with_range(&scan, &f->mm, size, align, 0, rs, re, mode);
	if (rs >= re || rs < f->start || re > f->end) {
		fuzz_check(ret == -EINVAL);
		return;
	}
	fuzz_check(ret == 0);
	for (int i = 0; i < NSLOTS && !found; i++) {
		s = (rot + i) % NSLOTS;
		if (!f->node[s].allocated)
			continue;
		order[n++] = s;
		found = drm_mm_scan_add_block(&scan, &f->node[s]);
	}
	/* Inserting while the roster is open must be refused. */
	if (n > 0) {
		memset(&probe, 0, sizeof(probe));
		fuzz_check(drm_mm_insert_node(&f->mm, &probe, 1, 0, 0, DRM_MM_INSERT_BEST) ==
			   -EBUSY);
	}
	for (int i = n - 1; i >= 0; i--)
		evict[order[i]] = drm_mm_scan_remove_block(&scan, &f->node[order[i]]);
	if (!found) {
		for (int i = 0; i < NSLOTS; i++)
			fuzz_check(!evict[i]);
		return;
	}
	for (int i = 0; i < NSLOTS; i++)
		if (evict[i])
			drm_mm_remove_node(&f->mm, &f->node[i]);
	fuzz_check(drm_mm_check(&f->mm) == 0);
	s = free_slot(f, rot);
	fuzz_check(s >= 0);
	memset(&f->node[s], 0, sizeof(f->node[s]));
	ret = drm_mm_insert_node_in_range(&f->mm, &f->node[s], size, align, 0, rs, re, mode);
	fuzz_check(ret == 0);
	check_node(f, &f->node[s], size, align, rs, re);
}

static void op_bad_args(struct mm_fuzz *f, struct fuzz_input *in)
{
	struct drm_mm_node n;
	int s = used_slot(f, fuzz_u8(in));

	memset(&n, 0, sizeof(n));
	fuzz_check(drm_mm_insert_node(&f->mm, &n, 0, 0, 0, DRM_MM_INSERT_BEST) == -EINVAL);
	fuzz_check(drm_mm_insert_node(&f->mm, &n, 1, 3 + 2 * (uint64_t)fuzz_u8(in), 0,
				      DRM_MM_INSERT_LOW) == -EINVAL);
	fuzz_check(drm_mm_insert_node(&f->mm, &n, 1, 0, 0, (enum drm_mm_insert_mode)7) == -EINVAL);
	if (s >= 0) /* an allocated node cannot be inserted twice */
		fuzz_check(drm_mm_insert_node(&f->mm, &f->node[s], 1, 0, 0, DRM_MM_INSERT_LOW) ==
			   -EINVAL);
	fuzz_check(!n.allocated);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
FUZZ_DEFINE_INITIALIZE()

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct mm_fuzz f;
	struct fuzz_input in;
	uint64_t size;
	uint8_t where;
	unsigned int ops = 0;

	fuzz_input_init(&in, data, len);
	memset(&f, 0, sizeof(f));
	size = (uint64_t)fuzz_u16(&in) + 1;
	where = fuzz_u8(&in);
	switch (where % 4) {
	case 0:
		f.start = 0;
		break;
	case 1:
		f.start = (uint64_t)fuzz_u16(&in) << 12;
		break;
	case 2: /* ends one below the top of the address space */
		f.start = UINT64_MAX - size;
		break;
	default: /* would wrap: must be refused */
		f.start = UINT64_MAX - size / 2;
		fuzz_check(drm_mm_init(&f.mm, f.start, size) == -EINVAL);
		return 0;
	}
	if (where & 0x80) /* an empty range is invalid too */
		fuzz_check(drm_mm_init(&f.mm, f.start, 0) == -EINVAL);
	fuzz_check(drm_mm_init(&f.mm, f.start, size) == 0);
	f.end = f.start + size;

	while (!fuzz_input_done(&in) && ops++ < 512) {
		switch (fuzz_u8(&in) % 8) {
		case 0:
		case 1:
		case 2:
			op_insert(&f, &in);
			break;
		case 3:
			op_reserve(&f, &in);
			break;
		case 4:
		case 5:
			op_remove(&f, &in);
			break;
		case 6:
			op_scan(&f, &in);
			break;
		default:
			op_bad_args(&f, &in);
			break;
		}
		fuzz_check(drm_mm_check(&f.mm) == 0);
	}

	for (int i = 0; i < NSLOTS; i++)
		if (f.node[i].allocated)
			drm_mm_remove_node(&f.mm, &f.node[i]);
	fuzz_check(drm_mm_clean(&f.mm));
	fuzz_check(drm_mm_check(&f.mm) == 0);
	drm_mm_takedown(&f.mm);
	return 0;
}
