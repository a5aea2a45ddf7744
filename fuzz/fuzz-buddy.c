// SPDX-License-Identifier: MIT
/*
 * fuzz-buddy - libFuzzer target for the drm_buddy VRAM allocator.
 *
 * The input picks a chunk size and a managed size (often not a power of
 * two, so several roots exist), then runs allocations with every flag
 * combination, minimum block size and range, and frees. A chunk bitmap
 * shadows who owns what. Properties checked after every operation:
 * returned blocks are aligned to their own size, at least the minimum
 * block size, inside [0, size) (and inside the range when asked), disjoint
 * from everything else allocated, add up to the request (a contiguous
 * request forms one run); a failed call takes nothing; a plain request of
 * chunk-granular size never fails while that many bytes are free; @avail
 * tracks the shadow; with everything freed only whole roots remain free.
 */
#include <errno.h>
#include <string.h>

#include <ttm/drm_buddy.h>
#include <ttm/list.h>

#include "fuzz_input.h"

#define NSLOTS 24
#define MAX_CHUNKS 1024

struct buddy_fuzz {
	struct drm_buddy mm;
	struct list_head slot[NSLOTS];
	uint64_t slot_bytes[NSLOTS];
	uint8_t owner[MAX_CHUNKS]; /* 0 free, else slot + 1 */
	uint64_t allocated;
};

static unsigned int chunk_index(const struct buddy_fuzz *f, uint64_t offset)
{
	return (unsigned int)(offset / f->mm.chunk_size);
}

static void op_alloc(struct buddy_fuzz *f, struct fuzz_input *in)
{
	uint64_t chunk = f->mm.chunk_size, nchunks = f->mm.size / chunk;
	int s = fuzz_u8(in) % NSLOTS;
	uint64_t min_block = chunk << (fuzz_u8(in) % 4);
	uint64_t size = chunk * (fuzz_u16(in) % (nchunks + 2) + 1);
	unsigned long flags = fuzz_u8(in) % 8;
	uint64_t start = 0, end = f->mm.size, sum = 0, lo = UINT64_MAX, hi = 0;
	uint64_t avail_before = drm_buddy_avail(&f->mm);
	struct drm_buddy_block *b;
	struct list_head blocks = LIST_HEAD_INIT(blocks);
	int ret;

	if (!list_empty(&f->slot[s]))
		return;
	if (flags & DRM_BUDDY_RANGE_ALLOCATION) {
		start = chunk * (fuzz_u16(in) % (nchunks + 1));
		end = chunk * (fuzz_u16(in) % (nchunks + 1) + 1);
		if (fuzz_u8(in) == 0xff) /* unaligned range: must be refused */
			end -= 1;
	}
	ret = drm_buddy_alloc_blocks(&f->mm, start, end, size, min_block, &blocks, flags);
	if (ret) {
		fuzz_check(ret == -EINVAL || ret == -ENOSPC || ret == -ENOMEM);
		fuzz_check(list_empty(&blocks));
		fuzz_check(drm_buddy_avail(&f->mm) == avail_before);
		/* Chunk-granular, anywhere, not contiguous: free bytes suffice. */
		if (min_block == chunk &&
		    !(flags & (DRM_BUDDY_RANGE_ALLOCATION | DRM_BUDDY_CONTIGUOUS_ALLOCATION)))
			fuzz_check(ret != -ENOSPC || size > avail_before);
		return;
	}
	/*
	 * As the kernel: a size that is no multiple of min_block is searched
	 * rounded up and the last block trimmed back, and a contiguous run
	 * found across adjacent free blocks may hold smaller ones.
	 */
	list_for_each_entry (b, &blocks, struct drm_buddy_block, link) {
		uint64_t bsz = drm_buddy_block_size(&f->mm, b), off = drm_buddy_block_offset(b);

		fuzz_check(b->state == DRM_BUDDY_ALLOCATED);
		fuzz_check(bsz >= min_block || size % min_block ||
			   (flags & DRM_BUDDY_CONTIGUOUS_ALLOCATION));
		fuzz_check(off % bsz == 0);
		fuzz_check(off < f->mm.size && bsz <= f->mm.size - off);
		if (flags & DRM_BUDDY_RANGE_ALLOCATION)
			fuzz_check(off >= start && off + bsz <= end);
		for (uint64_t c = chunk_index(f, off); c < chunk_index(f, off + bsz); c++) {
			fuzz_check(f->owner[c] == 0);
			f->owner[c] = (uint8_t)(s + 1);
		}
		sum += bsz;
		if (off < lo)
			lo = off;
		if (off + bsz > hi)
			hi = off + bsz;
	}
	fuzz_check(sum == size);
	if (flags & DRM_BUDDY_CONTIGUOUS_ALLOCATION)
		fuzz_check(hi - lo == size); /* disjoint + same total = one run */
	fuzz_check(drm_buddy_avail(&f->mm) == avail_before - size);
	list_splice_tail_init(&blocks, &f->slot[s]);
	f->slot_bytes[s] = size;
	f->allocated += size;
}

static void slot_free(struct buddy_fuzz *f, int s, bool one_by_one)
{
	struct drm_buddy_block *b, *tmp;
	uint64_t avail_before = drm_buddy_avail(&f->mm);

	list_for_each_entry (b, &f->slot[s], struct drm_buddy_block, link) {
		uint64_t off = drm_buddy_block_offset(b);
		uint64_t bsz = drm_buddy_block_size(&f->mm, b);

		for (uint64_t c = chunk_index(f, off); c < chunk_index(f, off + bsz); c++) {
			fuzz_check(f->owner[c] == s + 1);
			f->owner[c] = 0;
		}
	}
	if (one_by_one) {
		list_for_each_entry_safe (b, tmp, &f->slot[s], struct drm_buddy_block, link) {
			list_del_init(&b->link);
			drm_buddy_free_block(&f->mm, b);
		}
	} else {
		drm_buddy_free_list(&f->mm, &f->slot[s], 0);
	}
	fuzz_check(list_empty(&f->slot[s]));
	fuzz_check(drm_buddy_avail(&f->mm) == avail_before + f->slot_bytes[s]);
	f->allocated -= f->slot_bytes[s];
	f->slot_bytes[s] = 0;
}

static void op_free(struct buddy_fuzz *f, struct fuzz_input *in)
{
	uint8_t b = fuzz_u8(in);
	int s = b % NSLOTS;

	if (!list_empty(&f->slot[s]))
		slot_free(f, s, b & 0x80);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
FUZZ_DEFINE_INITIALIZE()

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct buddy_fuzz f;
	struct fuzz_input in;
	uint64_t chunk, size, free_bytes = 0;
	unsigned int ops = 0;
	uint8_t hdr;

	fuzz_input_init(&in, data, len);
	memset(&f, 0, sizeof(f));
	hdr = fuzz_u8(&in);
	chunk = 4096ull << (hdr % 3);
	size = chunk * (fuzz_u16(&in) % MAX_CHUNKS + 1);
	if (hdr & 0x40) /* a ragged tail is rounded down, never managed */
		size += chunk / 2;
	if (hdr & 0x80) {
		fuzz_check(drm_buddy_init(&f.mm, size, chunk + 1) == -EINVAL);
		fuzz_check(drm_buddy_init(&f.mm, chunk - 1, chunk) == -EINVAL);
	}
	if (drm_buddy_init(&f.mm, size, chunk) == -ENOMEM)
		return 0;
	fuzz_check(f.mm.size == size / chunk * chunk);
	fuzz_check(drm_buddy_avail(&f.mm) == f.mm.size);
	for (int i = 0; i < NSLOTS; i++)
		INIT_LIST_HEAD(&f.slot[i]);

	while (!fuzz_input_done(&in) && ops++ < 256) {
		if (fuzz_u8(&in) % 3)
			op_alloc(&f, &in);
		else
			op_free(&f, &in);
		fuzz_check(drm_buddy_avail(&f.mm) == f.mm.size - f.allocated);
	}

	for (int i = 0; i < NSLOTS; i++)
		if (!list_empty(&f.slot[i]))
			slot_free(&f, i, i & 1);
	fuzz_check(drm_buddy_avail(&f.mm) == f.mm.size);
	/* Fully merged: the free lists hold exactly the roots. */
	for (unsigned int o = 0; o <= f.mm.max_order; o++)
		free_bytes += (uint64_t)drm_buddy_free_count(&f.mm, o) * (chunk << o);
	fuzz_check(free_bytes == f.mm.size);
	{
		unsigned long free_blocks = 0;

		for (unsigned int o = 0; o <= f.mm.max_order; o++)
			free_blocks += drm_buddy_free_count(&f.mm, o);
		fuzz_check(free_blocks == f.mm.n_roots);
	}
	drm_buddy_fini(&f.mm);
	return 0;
}
