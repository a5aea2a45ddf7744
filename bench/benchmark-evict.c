// SPDX-License-Identifier: MIT
/*
 * benchmark-evict: eviction thrash (issue 7, item 2).
 *
 * A working set of BOs from 0.5x to 4x the capacity of device-local memory
 * is accessed in one of three orders, by 1 and by N clients (threads):
 *   cyclic   every BO in turn (LRU-hostile: above capacity each access
 *            evicts exactly the BO needed soonest); with N clients client
 *            c walks BOs c, c + N, c + 2N, ... so that together they still
 *            sweep the set in order
 *   random   uniform
 *   zipf     Zipfian, s = 0.99, hot BOs scattered over the set
 *
 * One access is what a client does to use a buffer: validate it into
 * device-local memory (reserve, ttm_bo_validate(), on sim and hw until the
 * BO is idle, i.e. its move is done), then have the device use every byte
 * of it and wait for that use to finish. Per back end:
 *  sim   (default) the i915 driver on the simulated GPU. The BOs are LMEM
 *        objects in lmem of --capacity-mib (not CPU-visible), so evictions
 *        and moves in are blits through a GGTT hop, pipelined behind
 *        fences. The use is a batch submitted through i915_gem_execbuffer()
 *        on the blitter: one XY_FAST_COPY_BLT of the BO's first half onto
 *        its second half (the GPU reads one half and writes the other, so
 *        every byte is touched once), its addresses patched by relocations
 *        against the BO (re-validated there, a GGTT range mapped over it);
 *        the request's fence is attached to the BO as a write, and the
 *        client waits for it. The batch samples the blitter's
 *        RING_TIMESTAMP before and after the blit (put on the CPU clock
 *        with i915_engine_cs_cycles()), so the benchmark knows when the
 *        device ran it; they are read back only with N > 1 clients, the
 *        one case they are needed. Each client has its own batch object. Before the
 *        first point one access is checked: the second half must hold
 *        what was written to the first, and the timestamps must be in
 *        order.
 *  core  the TTM core over bench_mockdev (host-memory VRAM, memcpy moves).
 *        There is no GPU: the device reading the BO is modelled by a CPU
 *        read of all its bytes where it is placed, under the reservation
 *        taken for the validate.
 *  hw    a real Intel GPU under hw_ttm (bench_hw.h, --device PATH). On a
 *        discrete part the BOs are validated into VRAM of --capacity-mib
 *        (moves are blitter copies, timed until the BO is idle, as on sim).
 *        An integrated part has no VRAM: the same patterns then thrash TT,
 *        a GPU address range of --capacity-mib (tt_size), where an eviction
 *        takes a BO's address away and nothing is copied (bytes_moved only
 *        counts the binds, copy_bw has no samples). Parameter "target"
 *        says which one ran. The access is the validate alone (parameter
 *        "access" says so):
 *        hw_ttm_exec() validates every object into TT, so a GPU use would
 *        move the BO out of VRAM again. Without an i915 render node (or
 *        libdrm) it prints SKIP and exits 77.
 *
 * Per pattern and working-set ratio (metric prefix evict.<pattern>.ws<pct>,
 * <pattern> suffixed _c<N> for N clients):
 *   .throughput                accessed bytes (the BO size per access) per
 *                              second of the whole loop (validate, use,
 *                              wait; all clients), vs memcpy bandwidth
 *   .validate_rate             validates per second spent in validate
 *                              (the clients' times averaged), no target
 *   .evictions_per_validate    evictions per access, device-wide (on sim
 *                              the execbuffer's own validate included)
 *   .bytes_moved_per_validate  bytes moved per access, every hop counted
 *   .copy_bw                   bytes copied (ctx.bytes_copied: blits and CPU
 *                              copies only, binds and unbinds not counted)
 *                              by all clients per second in which at least
 *                              one client was in a validate that copied,
 *                              each timed from its start until the last
 *                              fence of the BO signalled (the fences' own
 *                              timestamps; until validate returned when that
 *                              is later, and always on core), the union of
 *                              those intervals (one client: their sum) less
 *                              the time in it the blitter ran the clients'
 *                              use batches (their timestamps; with one
 *                              client they never overlap: the blitter is
 *                              shared, the render engine cannot blit, and
 *                              another client's use in the union is not
 *                              copy time), vs memcpy: the device's copy
 *                              efficiency. On
 *                              sim an eviction plus a move-in copies 2 BOs
 *                              (lmem to TT, TT to lmem) and moves 4 (with
 *                              the two bind hops): bytes_moved would double
 *                              the figure
 *   .copy_wake                 ns from that last signal until the waiting
 *                              client ran again, per copying access, vs the
 *                              futex round trip: the scheduler's part of an
 *                              idle wait, kept out of .copy_bw (the fence
 *                              benchmark holds its target), no target
 *   .copy_use_share            (N > 1 clients, sim) the share of that union
 *                              the use batches took out, no target
 *   .copy_bw_per_client        (N > 1 clients) the same bytes over the
 *                              clients' summed copying-validate times: the
 *                              rate one client sees while it shares the one
 *                              blitter with the others, no target
 *   .pool_fresh_pages          4 KiB pages the device's page pool took fresh
 *                              from the OS during the repetition
 *                              (ttm_pool_os_pages()), no target
 * each sampled over --reps time-bounded repetitions, after --warmup
 * unmeasured ones of the same pattern and clients (they fill device-local
 * memory in this order and grow the pool to what the pattern keeps in
 * flight). Fresh pool pages are counted because their cost is the
 * platform's, not the copy's: the first touch of a new page (here by the
 * blit that fills it) is a page fault, ~18 us a page on a PVM guest against
 * ~0.3 us for the copy of a page already mapped, so a repetition whose
 * pool had to grow reports a lower copy_bw for that reason alone; the count
 * tells such samples apart. Targets: cyclic above
 * capacity at most one eviction per validate; copy efficiency >= 0.8 of
 * memcpy for BOs of 1 MiB and more; Zipfian at 2x at least 0.25 of its
 * in-capacity (0.5x) throughput.
 */
#include "bench_mockdev.h"
#include "bench_simdev.h"

#include <bench.h>
#include <bench_hw.h>

#include "ttm_config.h"

#if TTM_HAVE_LIBDRM
#include "hw_ttm.h"
#endif

#include <i915/i915_cmds.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIB (1024ull * 1024ull)

enum pattern { P_CYCLIC, P_RANDOM, P_ZIPF, P_COUNT };
static const char *const pattern_names[P_COUNT] = {"cyclic", "random", "zipf"};

/* What the device does with a BO once it is validated (see the header). */
enum ev_use {
	EV_USE_BLIT,	 /* sim: execbuffer of a half-onto-half copy, waited for */
	EV_USE_CPU_READ, /* core: read every byte at its placement */
	EV_USE_NONE,	 /* hw: the validate is the access */
};

struct ev_opts {
	uint64_t capacity_mib;
	uint64_t bo_kib;
	struct bench_hw hw; /* --device, and the GPU of --backend=hw */
};

/*
 * One client's batch on sim: XY_FAST_COPY_BLT chunks from the BO's first
 * half to its second, each chunk's destination and source addresses patched
 * by a relocation against object 0 of the execbuffer (the BO), between two
 * samples of the blitter's RING_TIMESTAMP (both dwords, stored at @ts_off in
 * the batch object, relocated against object 1: the batch). They say when
 * the device ran the use.
 */
struct ev_batch {
	struct i915_gem_object *obj;
	struct i915_exec_reloc *relocs;
	unsigned nreloc;
	uint64_t ts_off;
};

/* The device of a run and how its BOs are validated and used. */
struct ev_dev {
	enum ev_use use;
	struct testlib_mock_device *md; /* core back end, else NULL */
	struct i915_device *i915;	/* sim back end, else NULL */
	struct hw_ttm_device *hwdev;	/* hw back end, else NULL */
	struct ttm_device *bdev;	/* its counters give the moves per access */
	bool wait_idle; /* moves are pipelined: time a validate until the BO is idle */
	uint64_t bo_size;
	struct ttm_placement vram;
	struct ttm_place vram_place;
	struct ev_batch *batches; /* sim: one per client */
	unsigned nbatches;
	unsigned nclients; /* the most clients a point runs */
};

/* The BOs of one working set and the order they are drawn in. */
struct ev_set {
	struct ev_dev *dev;
	struct ttm_buffer_object **bos;
	unsigned n;
	double *zipf_cdf;    /* cumulative probability by rank */
	unsigned *zipf_perm; /* rank -> BO index */
	/*
	 * Per client, how far its cyclic walk got: a repetition goes on where
	 * the last one stopped. Restarting at BO 0 would find the BOs the last
	 * repetition began with still resident whenever it made fewer accesses
	 * than the set holds, and hits are not what the cyclic order is for.
	 */
	unsigned long *cyclic_pos;
};

struct ev_span {
	uint64_t start, end;
};

struct ev_spans {
	struct ev_span *v;
	size_t n, cap;
};

struct ev_worker {
	struct ev_set *set;
	struct bench_run *run;
	enum pattern pat;
	unsigned index, nclients;
	atomic_bool *stop;
	uint64_t rng;
	unsigned long validates, accesses;
	uint64_t bytes_copied, move_ns, validate_ns;
	/* Copying accesses timed until idle: their summed signal-to-return time. */
	uint64_t wake_ns, wakes;
	/* [start, end) of each validate that copied, for the device-wide union. */
	struct ev_spans copies;
	/* sim: when the blitter ran each of this client's use batches. */
	struct ev_spans uses;
	struct i915_cs_cycles cs_ref; /* puts the batches' timestamps on the CPU clock */
	uint64_t sink;		      /* what the CPU reads add up to, so they are not elided */
	int err;
	pthread_t thread;
};

static unsigned next_index(struct ev_worker *w, unsigned long i)
{
	struct ev_set *s = w->set;

	switch (w->pat) {
	case P_CYCLIC: {
		/*
		 * Client c of N walks its own share of the set, BOs c, c + N,
		 * c + 2N, ..., in order; together they sweep every BO in turn.
		 * Clients walking the whole set from different starts drift into
		 * step (a hit is quicker than a miss, so the follower catches up
		 * and then hits what the leader just brought in): a run then
		 * read 0.5 evictions per validate or 1, and half or all of the
		 * throughput, depending on when that happened.
		 */
		unsigned c = w->index % w->nclients;
		unsigned long share;

		/* More clients than BOs: the extra ones walk the whole set. */
		if (c >= s->n)
			return (unsigned)((s->cyclic_pos[w->index] + i) % s->n);
		share = (s->n - c + w->nclients - 1) / w->nclients;
		return (unsigned)(c + (unsigned long)w->nclients *
					  ((s->cyclic_pos[w->index] + i) % share));
	}
	case P_RANDOM:
		return (unsigned)(prng_step(&w->rng) % s->n);
	default: {
		double u = (double)(prng_step(&w->rng) >> 11) * 0x1.0p-53;
		unsigned lo = 0, hi = s->n - 1;

		while (lo < hi) {
			unsigned mid = (lo + hi) / 2;

			if (s->zipf_cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		return s->zipf_perm[lo];
	}
	}
}

/* ------------------------------------------------ the sim back end's use */

/* Row pitch of the access blit: a page, or half of one for odd-page BOs. */
static uint32_t batch_row(uint64_t bo_size)
{
	return (bo_size / 2) % TTM_PAGE_SIZE ? TTM_PAGE_SIZE / 2 : TTM_PAGE_SIZE;
}

static void batch_fini(struct ev_batch *b)
{
	i915_gem_object_put(b->obj);
	free(b->relocs);
	memset(b, 0, sizeof(*b));
}

/* RING_TIMESTAMP of the blitter and its high dword. */
#define EV_BCS_TIMESTAMP (0x22000u + 0x358)
#define EV_BCS_TIMESTAMP_UDW (EV_BCS_TIMESTAMP + 4)
#define EV_SRM_DWORDS 4

/* Store both dwords of the blitter's timestamp at @off of batch object 1. */
static uint32_t *batch_timestamp(struct ev_batch *b, uint32_t *cmds, uint32_t *cs, uint64_t off)
{
	for (unsigned k = 0; k < 2; k++) {
		b->relocs[b->nreloc++] =
		    (struct i915_exec_reloc){.target = 1,
					     .delta = (uint32_t)(off + 4 * k),
					     .offset = (uint64_t)(cs - cmds) * 4 + 8,
					     .read_domains = I915_GEM_DOMAIN_RENDER,
					     .write_domain = I915_GEM_DOMAIN_RENDER};
		cs = i915_emit_store_register_mem(cs, k ? EV_BCS_TIMESTAMP_UDW : EV_BCS_TIMESTAMP,
						  0);
	}
	return cs;
}

/*
 * Build @b for BOs of @bo_size bytes: a timestamp, the copy in chunks of at
 * most I915_BLT_MAX_COORD rows, a flush so the writes land before what
 * follows, a second timestamp, the end; the two timestamps after the
 * commands. Return: 0; -ENOMEM; the errors of creating and writing the
 * batch object.
 */
static int batch_init(struct i915_device *i915, uint64_t bo_size, struct ev_batch *b)
{
	uint64_t half = bo_size / 2, row = batch_row(bo_size), rows = half / row;
	unsigned chunks = (unsigned)((rows + I915_BLT_MAX_COORD - 1) / I915_BLT_MAX_COORD);
	size_t dwords = (size_t)chunks * I915_FAST_COPY_BLT_DWORDS + 4 * EV_SRM_DWORDS +
			I915_FLUSH_DW_DWORDS + 1;
	uint64_t ts_off = (dwords * 4 + 15) / 16 * 16;
	size_t bytes = (ts_off + 16 + TTM_PAGE_SIZE - 1) / TTM_PAGE_SIZE * TTM_PAGE_SIZE;
	uint32_t *cmds = calloc(bytes / 4, sizeof(*cmds)), *cs = cmds;
	int ret;

	memset(b, 0, sizeof(*b));
	b->relocs = calloc(2 * (size_t)chunks + 4, sizeof(*b->relocs));
	if (!cmds || !b->relocs) {
		free(cmds);
		batch_fini(b);
		return -ENOMEM;
	}
	b->ts_off = ts_off;
	cs = batch_timestamp(b, cmds, cs, ts_off);
	for (uint64_t done = 0; done < rows;) {
		uint64_t n = rows - done < I915_BLT_MAX_COORD ? rows - done : I915_BLT_MAX_COORD;
		uint64_t off = done * row, at = (uint64_t)(cs - cmds) * 4;

		/* Destination address at dword 4, source at dword 8 of the blit. */
		b->relocs[b->nreloc++] =
		    (struct i915_exec_reloc){.target = 0,
					     .delta = (uint32_t)(half + off),
					     .offset = at + 16,
					     .read_domains = I915_GEM_DOMAIN_RENDER,
					     .write_domain = I915_GEM_DOMAIN_RENDER};
		b->relocs[b->nreloc++] =
		    (struct i915_exec_reloc){.target = 0,
					     .delta = (uint32_t)off,
					     .offset = at + 32,
					     .read_domains = I915_GEM_DOMAIN_RENDER};
		cs = i915_emit_fast_copy_blt(cs, 0, (uint32_t)row, 0, (uint32_t)row, (uint32_t)row,
					     (uint32_t)n);
		done += n;
	}
	*cs++ = (MI_FLUSH_DW | MI_FLUSH_DW_OP_NONE) + 1;
	*cs++ = 0;
	*cs++ = 0;
	*cs++ = 0;
	cs = batch_timestamp(b, cmds, cs, ts_off + 8);
	cs = i915_emit_bb_end(cs);
	ret = i915_gem_object_create(i915, bytes, I915_GEM_REGION_SMEM, &b->obj);
	if (!ret)
		ret = i915_gem_object_access(b->obj, 0, cmds, bytes, true);
	free(cmds);
	if (ret)
		batch_fini(b);
	return ret;
}

/*
 * The GPU uses @bo: execbuffer of @b on the blitter with @bo written, then
 * wait for the request; *@ts (unless NULL): the batch's two timestamps
 * (engine clock), read back from the batch object. Return: 0; the errors of
 * i915_gem_execbuffer() and of reading the batch object back; -EIO when the
 * request completed with an error.
 */
static int use_blit(struct i915_device *i915, struct ev_batch *b, struct ttm_buffer_object *bo,
		    uint64_t *ts)
{
	struct i915_exec_object eo[2] = {
	    {.obj = container_of(bo, struct i915_gem_object, base), .flags = EXEC_OBJECT_WRITE},
	    {.obj = b->obj, .relocs = b->relocs, .nreloc = b->nreloc},
	};
	struct i915_execbuffer eb = {.objects = eo, .count = 2, .flags = I915_EXEC_BLT};
	int ret = i915_gem_execbuffer(i915, &eb);

	if (ret)
		return ret;
	ret = dma_fence_wait(eb.out_fence, false);
	if (!ret && dma_fence_get_status(eb.out_fence) < 0)
		ret = -EIO;
	dma_fence_put(eb.out_fence);
	if (!ret && ts) {
		uint32_t dw[4];

		ret = i915_gem_object_access(b->obj, b->ts_off, dw, sizeof(dw), false);
		ts[0] = (uint64_t)dw[1] << 32 | dw[0];
		ts[1] = (uint64_t)dw[3] << 32 | dw[2];
	}
	return ret;
}

/* ----------------------------------------------- the core back end's use */

static uint64_t read_words(const void *p, uint64_t len)
{
	const uint64_t *q = p;
	uint64_t a = 0, b = 0, c = 0, d = 0, n = len / 8;

	/* Four independent sums: the loop is bound by loads, not by one add chain. */
	for (uint64_t i = 0; i + 4 <= n; i += 4) {
		a += q[i];
		b += q[i + 1];
		c += q[i + 2];
		d += q[i + 3];
	}
	return a ^ b ^ c ^ d;
}

/*
 * Read all of reserved @bo where it is: the stand-in VRAM of bench_mockdev
 * (range-managed, one run from page @res->start) or its tt pages.
 * Return: 0; -EINVAL when its bytes cannot be reached from here.
 */
static int use_cpu_read(struct ev_dev *d, struct ttm_buffer_object *bo, uint64_t *sink)
{
	struct ttm_resource *res = bo->resource;

	if (res && res->mem_type == TTM_PL_VRAM && d->md->vram_mem) {
		*sink += read_words((const char *)d->md->vram_mem + (res->start << TTM_PAGE_SHIFT),
				    bo->size);
		return 0;
	}
	if (!bo->ttm || !ttm_tt_is_populated(bo->ttm))
		return -EINVAL;
	for (uint32_t k = 0; k < bo->ttm->num_pages; k++)
		*sink += read_words(bo->ttm->pages[k], TTM_PAGE_SIZE);
	return 0;
}

/* ---------------------------------------------------------- the loop */

static int spans_add(struct ev_spans *l, uint64_t start, uint64_t end)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		struct ev_span *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct ev_span){start, end};
	return 0;
}

static int span_cmp(const void *a, const void *b)
{
	const struct ev_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The union of the workers' copying-validate spans (@uses false) or of their
 * use batches (@uses true) as disjoint spans in start order, into *@out (free
 * out->v). Return: 0, or -ENOMEM.
 */
static int spans_merge(const struct ev_worker *w, unsigned n, bool uses, struct ev_spans *out)
{
	size_t total = 0, k = 0, m = 0;

	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < n; i++)
		total += uses ? w[i].uses.n : w[i].copies.n;
	if (!total)
		return 0;
	out->v = malloc(total * sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		const struct ev_spans *l = uses ? &w[i].uses : &w[i].copies;

		for (size_t j = 0; j < l->n; j++)
			out->v[k++] = l->v[j];
	}
	qsort(out->v, total, sizeof(*out->v), span_cmp);
	for (k = 0; k < total; k++) {
		if (m && out->v[k].start <= out->v[m - 1].end) {
			if (out->v[k].end > out->v[m - 1].end)
				out->v[m - 1].end = out->v[k].end;
			continue;
		}
		out->v[m++] = out->v[k];
	}
	out->n = m;
	out->cap = total;
	return 0;
}

static uint64_t spans_sum_ns(const struct ev_spans *l)
{
	uint64_t sum = 0;

	for (size_t k = 0; k < l->n; k++)
		sum += l->v[k].end - l->v[k].start;
	return sum;
}

/* Nanoseconds covered by both of two merged span lists. */
static uint64_t spans_overlap_ns(const struct ev_spans *a, const struct ev_spans *b)
{
	size_t i = 0, j = 0;
	uint64_t sum = 0;

	while (i < a->n && j < b->n) {
		uint64_t lo = a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
		uint64_t hi = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;

		if (hi > lo)
			sum += hi - lo;
		if (a->v[i].end < b->v[j].end)
			i++;
		else
			j++;
	}
	return sum;
}

/*
 * Wait until @bo is idle; *@done: when the last of its fences signalled (the
 * fences' own timestamps, CLOCK_MONOTONIC like @since), no earlier than
 * @since. Reserved.
 */
static int wait_idle_signalled(struct ttm_buffer_object *bo, struct ttm_operation_ctx *ctx,
			       int64_t since, int64_t *done)
{
	struct dma_fence **fences;
	unsigned n;
	int ret;

	/* Snapshot first: a later prune may drop them from the object. */
	ret = dma_resv_get_fences(bo->resv, DMA_RESV_USAGE_BOOKKEEP, &n, &fences);
	if (ret)
		return ret;
	ret = ttm_bo_wait_ctx(bo, ctx);
	*done = since;
	for (unsigned i = 0; !ret && i < n; i++) {
		int64_t ts;

		if (!dma_fence_get_timestamp(fences[i], &ts) && ts > *done)
			*done = ts;
	}
	dma_resv_put_fences(fences, n);
	return ret;
}

static int access_one(struct ev_worker *w, struct ttm_buffer_object *bo)
{
	struct ev_dev *d = w->set->dev;
	struct ttm_operation_ctx ctx = {.interruptible = false};
	int64_t start, validated, done, returned;
	int ret;

	ret = ttm_bo_reserve(bo, false, false, NULL);
	if (ret)
		return ret;
	/* The fences' clock, so that their signal times fall on the same axis. */
	start = dma_fence_now_ns();
	ret = ttm_bo_validate(bo, &d->vram, &ctx);
	validated = done = dma_fence_now_ns();
	/*
	 * The blits are pipelined: the BO is usable once they are done. When
	 * nothing moved, its fences are the last use's, already waited for:
	 * the wait is a check, and the snapshot of their timestamps (an array
	 * allocated and a reference per fence, which once made this in-capacity
	 * path's figure move 2x between runs) would time the benchmark.
	 */
	if (!ret && d->wait_idle)
		ret = ctx.moves ? wait_idle_signalled(bo, &ctx, validated, &done)
				: ttm_bo_wait_ctx(bo, &ctx);
	returned = d->wait_idle ? dma_fence_now_ns() : validated;
	if (!ret && d->use == EV_USE_CPU_READ)
		ret = use_cpu_read(d, bo, &w->sink);
	ttm_bo_unreserve(bo);
	if (ret)
		return ret;
	w->validates++;
	w->validate_ns += (uint64_t)(returned - start);
	if (ctx.bytes_copied) {
		/*
		 * The copy is over when its fence signals; the waiting client
		 * runs again one scheduler wake-up later, which the fence
		 * benchmark measures against a futex round trip. That part is
		 * kept apart (.copy_wake) rather than charged to the copy.
		 */
		ret = spans_add(&w->copies, (uint64_t)start, (uint64_t)done);
		if (ret)
			return ret;
		w->bytes_copied += ctx.bytes_copied;
		w->move_ns += (uint64_t)(done - start);
		if (d->wait_idle) {
			w->wake_ns += (uint64_t)(returned - done);
			w->wakes++;
		}
	}
	if (d->use == EV_USE_BLIT) {
		uint64_t ts[2];
		int64_t from, to;

		/*
		 * The read-back takes the batch's reservation: a few us per
		 * access, worth it only where another client's copy can overlap.
		 */
		bool timed = w->nclients > 1;

		ret = use_blit(d->i915, &d->batches[w->index], bo, timed ? ts : NULL);
		if (ret)
			return ret;
		from = timed ? i915_cs_cycles_to_ns(&w->cs_ref, ts[0]) : 0;
		to = timed ? i915_cs_cycles_to_ns(&w->cs_ref, ts[1]) : 0;
		if (to > from) {
			ret = spans_add(&w->uses, (uint64_t)from, (uint64_t)to);
			if (ret)
				return ret;
		}
	}
	w->accesses++;
	return 0;
}

static void *ev_thread(void *p)
{
	struct ev_worker *w = p;
	unsigned long i;

	bench_pin_thread(w->run, w->index);
	if (w->set->dev->use == EV_USE_BLIT)
		w->err = i915_engine_cs_cycles(i915_engine_get(w->set->dev->i915, I915_ENGINE_BCS),
					       &w->cs_ref);
	for (i = 0; !w->err; i++) {
		/*
		 * Check the shared flag only now and then, and not before a few
		 * accesses: one stall of a loaded machine must not leave a
		 * repetition without a figure.
		 */
		if (i >= 8 && !(i & 7) && atomic_load_explicit(w->stop, memory_order_relaxed))
			break;
		w->err = access_one(w, w->set->bos[next_index(w, i)]);
		/*
		 * With several clients every other BO may be reserved or pinned
		 * by them for a moment: that validate (or the execbuffer's)
		 * found nothing to evict; go on.
		 */
		if (w->nclients > 1 && (w->err == -ENOMEM || w->err == -EBUSY || w->err == -ENOSPC))
			w->err = 0;
	}
	/* Only this worker touches its slot until it is joined. */
	if (w->pat == P_CYCLIC)
		w->set->cyclic_pos[w->index] += i;
	return NULL;
}

struct ev_figures {
	double throughput, validate_rate, evictions, moved, copy_bw, copy_bw_client, fresh_pages;
	double copy_wake, copy_use_share;
	unsigned long validates;
};

static int ev_rep(struct bench_run *run, struct ev_set *s, enum pattern pat, unsigned nclients,
		  double secs, uint64_t seed, struct ev_figures *fig)
{
	struct ttm_device_stats *st = &s->dev->bdev->stats;
	struct ev_worker *w = calloc(nclients, sizeof(*w));
	atomic_bool stop;
	unsigned long validates = 0, accesses = 0;
	uint64_t copied = 0, move_ns = 0, validate_ns = 0, union_ns = 0, use_ns = 0, sink = 0, t0,
		 t1;
	uint64_t wake_ns = 0, wakes = 0;
	uint64_t ev0 = atomic_load(&st->evictions), mv0 = atomic_load(&st->bytes_moved);
	unsigned long os0 = ttm_pool_os_pages(&s->dev->bdev->pool);
	unsigned started;
	int rc = 0;

	if (!w)
		return -ENOMEM;
	atomic_init(&stop, false);
	t0 = testlib_now_raw_ns();
	for (started = 0; started < nclients; started++) {
		w[started] = (struct ev_worker){.set = s,
						.run = run,
						.pat = pat,
						.index = started,
						.nclients = nclients,
						.stop = &stop,
						.rng = seed * PRNG_GOLDEN + started + 1};
		if (pthread_create(&w[started].thread, NULL, ev_thread, &w[started])) {
			rc = -EAGAIN;
			break;
		}
	}
	while (!rc && testlib_now_raw_ns() - t0 < (uint64_t)(secs * 1e9)) {
		struct timespec ts = {0, 2000000};

		nanosleep(&ts, NULL);
	}
	atomic_store(&stop, true);
	for (unsigned i = 0; i < started; i++) {
		pthread_join(w[i].thread, NULL);
		if (w[i].err && !rc)
			rc = w[i].err;
		validates += w[i].validates;
		accesses += w[i].accesses;
		copied += w[i].bytes_copied;
		move_ns += w[i].move_ns;
		validate_ns += w[i].validate_ns;
		wake_ns += w[i].wake_ns;
		wakes += w[i].wakes;
		sink ^= w[i].sink;
	}
	t1 = testlib_now_raw_ns();
	if (!rc) {
		struct ev_spans copies, uses = {0};

		rc = spans_merge(w, started, false, &copies);
		if (!rc)
			rc = spans_merge(w, started, true, &uses);
		if (!rc) {
			union_ns = spans_sum_ns(&copies);
			use_ns = spans_overlap_ns(&copies, &uses);
		}
		free(copies.v);
		free(uses.v);
	}
	for (unsigned i = 0; i < nclients; i++) {
		free(w[i].copies.v);
		free(w[i].uses.v);
	}
	free(w);
	if (rc)
		return rc;
	if (!validates || !accesses || !validate_ns)
		return -EIO;
	/* Bytes per ns are GB/s. */
	fig->validates = validates;
	fig->throughput = (double)accesses * (double)s->dev->bo_size / (double)(t1 - t0);
	fig->validate_rate = (double)validates * 1e9 * nclients / (double)validate_ns;
	fig->evictions = (double)(atomic_load(&st->evictions) - ev0) / (double)validates;
	fig->moved = (double)(atomic_load(&st->bytes_moved) - mv0) / (double)validates;
	/*
	 * The device's copy rate: all clients' copied bytes over the time in
	 * which any of them was in a copying validate and the blitter was not
	 * running a client's use batch (by the batches' own timestamps; with
	 * one client the two never overlap). Per client (their times summed,
	 * nothing taken out) it is the rate one client sees while sharing the
	 * blitter.
	 */
	fig->copy_bw = union_ns > use_ns ? (double)copied / (double)(union_ns - use_ns) : NAN;
	fig->copy_use_share = union_ns ? (double)use_ns / (double)union_ns : NAN;
	fig->copy_bw_client = move_ns ? (double)copied / (double)move_ns : NAN;
	fig->copy_wake = wakes ? (double)wake_ns / (double)wakes : NAN;
	fig->fresh_pages = (double)(ttm_pool_os_pages(&s->dev->bdev->pool) - os0);
	/* Keeps the CPU reads of the core back end observable. */
	__asm__ volatile("" : : "r"(sink));
	return 0;
}

static void set_free(struct ev_set *s)
{
	for (unsigned k = 0; k < s->n; k++)
		if (s->bos[k])
			ttm_bo_put(s->bos[k]);
	free(s->bos);
	free(s->zipf_cdf);
	free(s->zipf_perm);
	free(s->cyclic_pos);
	s->bos = NULL;
	s->zipf_cdf = NULL;
	s->zipf_perm = NULL;
	s->cyclic_pos = NULL;
}

/*
 * One BO of the hw back end, starting in SYSTEM like the others. Without
 * libdrm there is no device to get here with.
 */
static int hw_bo_make(struct hw_ttm_device *dev, uint64_t size, struct ttm_buffer_object **out)
{
#if TTM_HAVE_LIBDRM
	struct hw_ttm_bo *bo = NULL;
	int ret = hw_ttm_bo_create(dev, size, &hw_ttm_placement_system, &bo);

	*out = ret ? NULL : &bo->tbo;
	return ret;
#else
	(void)dev;
	(void)size;
	*out = NULL;
	return -ENODEV;
#endif
}

/*
 * One BO of @d. On sim an LMEM object: created in lmem (evicting older ones
 * when it is full), where execbuffer validates it to. Elsewhere it starts in
 * SYSTEM.
 */
static int bo_make(struct ev_dev *d, struct ttm_buffer_object **out)
{
	struct i915_gem_object *obj = NULL;
	struct ttm_placement sys;
	struct ttm_place psys;
	int ret;

	if (d->i915) {
		ret = i915_gem_object_create(d->i915, d->bo_size, I915_GEM_REGION_LMEM, &obj);
		*out = obj ? &obj->base : NULL;
		return ret;
	}
	if (d->hwdev)
		return hw_bo_make(d->hwdev, d->bo_size, out);
	bench_mockdev_place(&sys, &psys, TTM_PL_SYSTEM);
	*out = bench_mockdev_bo_create(d->md, d->bo_size, &sys);
	return *out ? 0 : -ENOMEM;
}

static int set_make(struct ev_set *s, struct ev_dev *d, unsigned n, uint64_t seed)
{
	double sum = 0, acc = 0;
	uint64_t rng = seed | 1;

	memset(s, 0, sizeof(*s));
	s->dev = d;
	s->n = n;
	s->bos = calloc(n, sizeof(*s->bos));
	s->zipf_cdf = calloc(n, sizeof(*s->zipf_cdf));
	s->zipf_perm = calloc(n, sizeof(*s->zipf_perm));
	s->cyclic_pos = calloc(d->nclients, sizeof(*s->cyclic_pos));
	if (!s->bos || !s->zipf_cdf || !s->zipf_perm || !s->cyclic_pos) {
		set_free(s);
		return -ENOMEM;
	}
	for (unsigned k = 0; k < n; k++) {
		int ret = bo_make(d, &s->bos[k]);

		if (ret || !s->bos[k]) {
			set_free(s);
			return ret ? ret : -ENOMEM;
		}
	}
	for (unsigned k = 0; k < n; k++)
		sum += 1.0 / pow(k + 1, 0.99);
	for (unsigned k = 0; k < n; k++) {
		acc += 1.0 / pow(k + 1, 0.99) / sum;
		s->zipf_cdf[k] = acc;
		s->zipf_perm[k] = k;
	}
	s->zipf_cdf[n - 1] = 1.0;
	/* Fisher-Yates: the hot ranks land anywhere in the set. */
	for (unsigned k = n - 1; k > 0; k--) {
		unsigned j = (unsigned)(prng_step(&rng) % (k + 1)), t = s->zipf_perm[k];

		s->zipf_perm[k] = s->zipf_perm[j];
		s->zipf_perm[j] = t;
	}
	return 0;
}

/*
 * Prove on one BO that an access on sim does what the header says: a
 * pattern written to the first half (by the CPU, with the BO in SYSTEM) is
 * found in the second half once the BO went to lmem and the batch ran.
 * Return: 0; -EIO when it is not; the errors of the steps.
 */
static int use_blit_check(struct ev_dev *d)
{
	uint64_t half = d->bo_size / 2;
	struct ttm_operation_ctx ctx = {.interruptible = false};
	struct ttm_buffer_object *bo = NULL;
	struct i915_gem_object *obj;
	unsigned char *buf = malloc(2 * half);
	int ret;

	if (!buf)
		return -ENOMEM;
	for (uint64_t i = 0; i < half; i++)
		buf[i] = (unsigned char)(i * 31 + 7);
	ret = bo_make(d, &bo);
	obj = bo ? container_of(bo, struct i915_gem_object, base) : NULL;
	if (!ret)
		ret = i915_gem_object_migrate(obj, I915_GEM_REGION_SMEM);
	if (!ret)
		ret = i915_gem_object_access(obj, 0, buf, half, true);
	if (!ret)
		ret = ttm_bo_reserve(bo, false, false, NULL);
	if (!ret) {
		ret = ttm_bo_validate(bo, &d->vram, &ctx);
		ttm_bo_unreserve(bo);
	}
	if (!ret && bo->resource->mem_type != TTM_PL_VRAM)
		ret = -EIO;
	if (!ret) {
		struct i915_cs_cycles before, after;
		uint64_t ts[2];

		ret = i915_engine_cs_cycles(i915_engine_get(d->i915, I915_ENGINE_BCS), &before);
		if (!ret)
			ret = use_blit(d->i915, &d->batches[0], bo, ts);
		if (!ret)
			ret = i915_engine_cs_cycles(i915_engine_get(d->i915, I915_ENGINE_BCS),
						    &after);
		/* The batch's timestamps: in order, and inside the call. */
		if (!ret && !(before.cycles <= ts[0] && ts[0] <= ts[1] && ts[1] <= after.cycles))
			ret = -EIO;
	}
	if (!ret)
		ret = i915_gem_object_migrate(obj, I915_GEM_REGION_SMEM);
	if (!ret)
		ret = i915_gem_object_access(obj, 0, buf + half, half, false);
	if (!ret && memcmp(buf, buf + half, half))
		ret = -EIO;
	if (!ret)
		ret = i915_gem_object_access(obj, half, buf + half, half, false);
	if (!ret && memcmp(buf, buf + half, half))
		ret = -EIO;
	if (bo)
		ttm_bo_put(bo);
	free(buf);
	return ret;
}

/* Bring up the per-client batches of sim and check one access. */
static int dev_sim_init(struct ev_dev *d, unsigned nclients)
{
	int ret;

	d->batches = calloc(nclients, sizeof(*d->batches));
	if (!d->batches)
		return -ENOMEM;
	for (d->nbatches = 0; d->nbatches < nclients; d->nbatches++) {
		ret = batch_init(d->i915, d->bo_size, &d->batches[d->nbatches]);
		if (ret)
			return ret;
	}
	ret = use_blit_check(d);
	if (ret == -EIO)
		fprintf(stderr, "benchmark-evict: the access blit did not copy the first half of "
				"a BO onto its second half, or its timestamps are out of order\n");
	return ret;
}

static void dev_sim_fini(struct ev_dev *d)
{
	for (unsigned k = 0; k < d->nbatches; k++)
		batch_fini(&d->batches[k]);
	free(d->batches);
	d->batches = NULL;
	d->nbatches = 0;
}

static int opt_u64(const char *arg, uint64_t *v, char *err, size_t errlen)
{
	/* At most 2^24: MiB and KiB values become byte counts without overflow. */
	if (bench_parse_u64(arg, 1, 1ull << 24, v)) {
		snprintf(err, errlen, "expected an integer in 1..%llu, got '%s'", 1ull << 24, arg);
		return -EINVAL;
	}
	return 0;
}

static int opt_cap(void *ctx, const char *arg, char *err, size_t errlen)
{
	return opt_u64(arg, &((struct ev_opts *)ctx)->capacity_mib, err, errlen);
}

static int opt_bo(void *ctx, const char *arg, char *err, size_t errlen)
{
	return opt_u64(arg, &((struct ev_opts *)ctx)->bo_kib, err, errlen);
}

static int opt_device(void *ctx, const char *arg, char *err, size_t errlen)
{
	return bench_hw_opt_device(&((struct ev_opts *)ctx)->hw, arg, err, errlen);
}

static const struct bench_opt ev_extra[] = {
    {"capacity-mib", "MIB", "device-local memory (default 64, 16 with --quick)", opt_cap},
    {"bo-kib", "KIB", "BO size, a multiple of 4 (default 1024)", opt_bo},
    {"device", "PATH",
     "render node for --backend=hw (default: $TTM_HW_DEVICE, else the first i915 one)", opt_device},
    {NULL, NULL, NULL, NULL},
};

struct point_metrics {
	struct bench_metric *tp, *vr, *ev, *mv, *cb, *cc, *fp, *cw;
	struct bench_metric *us; /* copy_use_share, N > 1 clients on sim */
};

static const char *use_label(enum ev_use use)
{
	switch (use) {
	case EV_USE_BLIT:
		return "validate into lmem until idle, then an execbuffer on the blitter copying "
		       "the BO's first half onto its second, waited for";
	case EV_USE_CPU_READ:
		return "validate into VRAM, then a CPU read of every byte where the BO is";
	default:
		return "validate only: no GPU use of the BO (hw_ttm_exec would move it to TT)";
	}
}

static int point_add(struct bench_run *run, const char *pat, unsigned pct, unsigned nclients,
		     enum ev_use use, struct point_metrics *pm)
{
	char name[128], lbl[16];

	snprintf(name, sizeof(name), "evict.%s.ws%u.throughput", pat, pct);
	pm->tp = bench_metric_add(run, name, "GB/s", BENCH_HIGHER_IS_BETTER);
	snprintf(name, sizeof(name), "evict.%s.ws%u.validate_rate", pat, pct);
	pm->vr = bench_metric_add(run, name, "validates/s", BENCH_HIGHER_IS_BETTER);
	snprintf(name, sizeof(name), "evict.%s.ws%u.evictions_per_validate", pat, pct);
	pm->ev = bench_metric_add(run, name, "evictions", BENCH_LOWER_IS_BETTER);
	snprintf(name, sizeof(name), "evict.%s.ws%u.bytes_moved_per_validate", pat, pct);
	pm->mv = bench_metric_add(run, name, "bytes", BENCH_LOWER_IS_BETTER);
	snprintf(name, sizeof(name), "evict.%s.ws%u.copy_bw", pat, pct);
	pm->cb = bench_metric_add(run, name, "GB/s", BENCH_HIGHER_IS_BETTER);
	snprintf(name, sizeof(name), "evict.%s.ws%u.copy_wake", pat, pct);
	pm->cw = bench_metric_add(run, name, "ns", BENCH_LOWER_IS_BETTER);
	snprintf(name, sizeof(name), "evict.%s.ws%u.pool_fresh_pages", pat, pct);
	pm->fp = bench_metric_add(run, name, "pages", BENCH_LOWER_IS_BETTER);
	if (!pm->tp || !pm->vr || !pm->ev || !pm->mv || !pm->cb || !pm->cw || !pm->fp)
		return -ENOMEM;
	pm->cc = NULL;
	pm->us = NULL;
	if (nclients > 1 && use == EV_USE_BLIT) {
		snprintf(name, sizeof(name), "evict.%s.ws%u.copy_use_share", pat, pct);
		pm->us = bench_metric_add(run, name, "x", BENCH_LOWER_IS_BETTER);
		if (!pm->us ||
		    bench_metric_label(pm->us, "counted",
				       "share of the copying-validate union in which the blitter "
				       "ran a client's use batch (its RING_TIMESTAMP samples), "
				       "left out of copy_bw"))
			return -ENOMEM;
	}
	if (nclients > 1) {
		snprintf(name, sizeof(name), "evict.%s.ws%u.copy_bw_per_client", pat, pct);
		pm->cc = bench_metric_add(run, name, "GB/s", BENCH_HIGHER_IS_BETTER);
		if (!pm->cc || bench_metric_label(
				   pm->cc, "counted",
				   "bytes copied over the clients' summed copying-validate times"))
			return -ENOMEM;
		bench_metric_reference(pm->cc, BENCH_REF_MEMCPY_BW, BENCH_RATIO_VALUE_OVER_REF);
	}
	snprintf(lbl, sizeof(lbl), "%u", nclients);
	if (bench_metric_label(pm->tp, "clients", lbl) ||
	    bench_metric_label(pm->tp, "counted", "BO bytes per access over the whole loop") ||
	    bench_metric_label(pm->tp, "access", use_label(use)) ||
	    bench_metric_label(pm->vr, "counted",
			       "validates over the clients' mean time inside validate") ||
	    bench_metric_label(pm->ev, "reference", "one eviction per validate") ||
	    bench_metric_label(pm->ev, "counted", "device-wide, per access") ||
	    bench_metric_label(pm->mv, "reference", "the BO size") ||
	    /* The core counts every hop: on sim, the binds into and out of the GGTT hop too. */
	    bench_metric_label(pm->mv, "counted",
			       "per hop of each move, device-wide, per access") ||
	    bench_metric_label(pm->cb, "counted",
			       "bytes copied (blits, CPU copies) over the union of the "
			       "clients' copying validates, each until its last fence "
			       "signalled (or validate returned, if later), less the time "
			       "in it the blitter ran the clients' use batches") ||
	    bench_metric_label(pm->cw, "counted",
			       "mean time from a copying validate's last fence signal to its "
			       "waiting client running again") ||
	    bench_metric_label(pm->fp, "counted",
			       "4 KiB pages the page pool took from the OS, per repetition"))
		return -ENOMEM;
	bench_metric_reference(pm->tp, BENCH_REF_MEMCPY_BW, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_reference(pm->cb, BENCH_REF_MEMCPY_BW, BENCH_RATIO_VALUE_OVER_REF);
	bench_metric_reference(pm->cw, BENCH_REF_FUTEX_RTT, BENCH_RATIO_VALUE_OVER_REF);
	return 0;
}

/*
 * --backend=hw: open the GPU with VRAM (discrete) or TT (integrated) of
 * --capacity-mib and pick the placement the patterns validate into.
 */
static int hw_open(struct bench_run *run, struct ev_opts *eo, struct ttm_placement *target)
{
	struct bench_hw_args args = {.vram_size = eo->capacity_mib * MIB, .need_exec_fence = true};
	int rc = bench_hw_open(run, &eo->hw, &args);

#if TTM_HAVE_LIBDRM
	if (!rc && !eo->hw.dev->has_vram) {
		/*
		 * No device-local memory: reopen with a TT range of the capacity,
		 * so the thrash is of GPU addresses instead.
		 */
		bench_hw_close(&eo->hw);
		args = (struct bench_hw_args){
		    .tt_size = eo->capacity_mib * MIB, .no_vram = true, .need_exec_fence = true};
		rc = bench_hw_open(run, &eo->hw, &args);
	}
	if (rc)
		return rc;
	*target = eo->hw.dev->has_vram ? hw_ttm_placement_vram : hw_ttm_placement_tt;
	bench_run_param(run, "target", "%s",
			eo->hw.dev->has_vram ? "VRAM (blitter moves)"
					     : "TT, a GPU address range (unbind evictions; "
					       "integrated part, no VRAM)");
	if (!eo->hw.dev->has_vram)
		fprintf(stderr, "benchmark-evict: integrated GPU without VRAM: thrashing TT "
				"(address reassignment) instead\n");
#else
	(void)target;
#endif
	return rc;
}

/* The ttm_device of the hw back end (only reached when it opened). */
static struct ttm_device *hw_bdev(struct hw_ttm_device *dev)
{
#if TTM_HAVE_LIBDRM
	return &dev->bdev;
#else
	(void)dev;
	return NULL;
#endif
}

int main(int argc, char **argv)
{
	static const unsigned ws_full[] = {50, 75, 100, 150, 200, 300, 400};
	static const unsigned ws_quick[] = {50, 100, 200, 400};
	struct bench_metric *zipf_lo = NULL, *zipf_hi = NULL;
	struct ev_opts eo = {0};
	struct ttm_placement hw_target = {0};
	struct testlib_mock_device md;
	struct i915_device *i915 = NULL;
	struct ev_dev dev = {0};
	struct bench_run run;
	const unsigned *ws;
	bool sim, hw;
	unsigned nws, nclients_max, cfgs, steps, step = 0;
	uint64_t cap_pages;
	double secs;
	int rc;

	bench_hw_init(&eo.hw);
	rc = bench_setup(&run, "eviction", argc, argv, ev_extra, &eo);
	if (rc)
		return bench_exit_code(rc);
	if (!eo.capacity_mib)
		eo.capacity_mib = run.opts.quick ? 16 : 64;
	if (!eo.bo_kib)
		eo.bo_kib = 1024;
	if (eo.bo_kib % 4 || eo.bo_kib * 1024 > eo.capacity_mib * MIB / 4) {
		fprintf(stderr, "benchmark-evict: --bo-kib must be a multiple of 4 and at most a "
				"quarter of --capacity-mib\n");
		bench_run_fini(&run);
		return 2;
	}
	if (eo.capacity_mib * MIB * 5 > run.machine.ram_bytes / 2) {
		fprintf(stderr,
			"benchmark-evict: --capacity-mib %llu needs 5x that in RAM "
			"(VRAM stand-in plus a 4x working set), more than half of RAM\n",
			(unsigned long long)eo.capacity_mib);
		bench_run_fini(&run);
		return 2;
	}
	if (!run.opts.reps_set)
		run.opts.reps = run.opts.quick ? 3 : 5;
	ws = run.opts.quick ? ws_quick : ws_full;
	nws = run.opts.quick ? 4 : 7;
	nclients_max = run.opts.threads_set ? run.opts.threads : run.machine.pus;
	cfgs = nclients_max > 1 ? 2 : 1;
	/* Each point: --warmup + --reps repetitions of a fifth of --duration (0.04 s quick). */
	secs = run.opts.duration_s / 5;
	cap_pages = eo.capacity_mib * MIB / TTM_PAGE_SIZE;
	sim = run.opts.backend == BENCH_BACKEND_SIM;
	hw = run.opts.backend == BENCH_BACKEND_HW;
	dev.use = sim ? EV_USE_BLIT : hw ? EV_USE_NONE : EV_USE_CPU_READ;
	dev.bo_size = eo.bo_kib * 1024;
	dev.nclients = nclients_max;
	if (hw) {
		rc = hw_open(&run, &eo, &hw_target);
		if (rc)
			return bench_hw_exit(&run, &eo.hw, "benchmark-evict", rc);
		dev.hwdev = eo.hw.dev;
	}
	bench_run_param(&run, "backend", "%s", hw ? "hw" : sim ? "sim" : "core");
	bench_run_param(&run, "capacity_mib", "%llu", (unsigned long long)eo.capacity_mib);
	bench_run_param(&run, "bo_kib", "%llu", (unsigned long long)eo.bo_kib);
	bench_run_param(&run, "clients", "1,%u", nclients_max);
	bench_run_param(&run, "access", "%s", use_label(dev.use));
	if (sim) {
		bench_run_backend_param(&run, "device", "%s",
					"i915 on the simulated GPU, gen 12, 1 GiB GGTT");
		bench_run_backend_param(&run, "latency_model", "%s", "off");
		bench_run_backend_param(&run, "lmem_mib", "%llu",
					(unsigned long long)eo.capacity_mib);
		bench_run_backend_param(&run, "lmem_visible_mib", "%u", 0u);
		bench_run_backend_param(&run, "moves", "%s",
					"blitter through a GGTT hop, evicted to SYSTEM");
	} else if (!hw) {
		bench_run_backend_param(&run, "device", "%s",
					"bench_mockdev: host-memory VRAM, evicted to SYSTEM, "
					"memcpy moves");
	}
	rc = bench_references_measure(&run);
	if (rc)
		fprintf(stderr, "benchmark-evict: a reference failed (%d)\n", rc);
	rc = hw	   ? 0
	     : sim ? bench_simdev_open(&run, nclients_max, 0, eo.capacity_mib * MIB, &i915)
		   : bench_mockdev_init(&md, 0, cap_pages);
	if (rc) {
		fprintf(stderr, "benchmark-evict: device: %s\n", strerror(-rc));
		bench_run_fini(&run);
		return 1;
	}
	dev.i915 = i915;
	dev.md = sim || hw ? NULL : &md;
	dev.bdev = hw ? hw_bdev(dev.hwdev) : sim ? &i915->drm.bdev : &md.bdev;
	/* The same one-place VRAM placement execbuffer validates LMEM objects into. */
	bench_mockdev_place(&dev.vram, &dev.vram_place, TTM_PL_VRAM);
	if (hw)
		dev.vram = hw_target;
	dev.wait_idle = sim || (hw && dev.vram.placement[0].mem_type == TTM_PL_VRAM);
	if (sim)
		rc = dev_sim_init(&dev, nclients_max);
	steps = nws * P_COUNT * cfgs;
	for (unsigned wi = 0; wi < nws && !rc; wi++) {
		unsigned n = (unsigned)(eo.capacity_mib * 1024 * ws[wi] / 100 / eo.bo_kib);
		struct ev_set set;

		rc = set_make(&set, &dev, n, run.opts.seed + wi);
		for (unsigned c = 0; c < cfgs && !rc; c++) {
			unsigned nclients = c ? nclients_max : 1;

			for (int p = 0; p < P_COUNT && !rc; p++) {
				struct point_metrics pm;
				struct ev_figures fig;
				char pat[32];

				snprintf(pat, sizeof(pat), nclients > 1 ? "%s_c%u" : "%s",
					 pattern_names[p], nclients);
				bench_progress(&run, "eviction", (double)step++ / steps);
				rc = point_add(&run, pat, ws[wi], nclients, dev.use, &pm);
				if (rc)
					break;
				if (p == P_ZIPF && nclients == 1 && ws[wi] == 50)
					zipf_lo = pm.tp;
				if (p == P_ZIPF && nclients == 1 && ws[wi] == 200)
					zipf_hi = pm.tp;
				if (p == P_CYCLIC && ws[wi] > 100)
					bench_metric_target(pm.ev, 1.0, BENCH_TARGET_AT_MOST);
				/* Unmeasured: fill VRAM in this order, grow the pool. */
				for (unsigned r = 0; !rc && r < run.opts.warmup; r++)
					rc = ev_rep(&run, &set, (enum pattern)p, nclients, secs,
						    run.opts.seed + run.opts.reps + 1 + r, &fig);
				for (unsigned r = 0; !rc && r < run.opts.reps; r++) {
					/*
					 * The instruction axis of the validate rate: the
					 * whole repetition (every client's validates and
					 * uses) per validate.
					 */
					bench_icount_start();
					rc = ev_rep(&run, &set, (enum pattern)p, nclients, secs,
						    run.opts.seed + r + 1, &fig);
					rc = rc ? rc : bench_icount_stop(pm.vr, fig.validates);
					rc = rc ? rc : bench_metric_sample(pm.tp, fig.throughput);
					rc =
					    rc ? rc : bench_metric_sample(pm.vr, fig.validate_rate);
					rc = rc ? rc : bench_metric_sample(pm.ev, fig.evictions);
					rc = rc ? rc : bench_metric_sample(pm.mv, fig.moved);
					rc = rc ? rc : bench_metric_sample(pm.fp, fig.fresh_pages);
					if (!rc && isfinite(fig.copy_bw))
						rc = bench_metric_sample(pm.cb, fig.copy_bw);
					if (!rc && pm.cc && isfinite(fig.copy_bw_client))
						rc = bench_metric_sample(pm.cc, fig.copy_bw_client);
					if (!rc && isfinite(fig.copy_wake))
						rc = bench_metric_sample(pm.cw, fig.copy_wake);
					if (!rc && pm.us && isfinite(fig.copy_use_share))
						rc = bench_metric_sample(pm.us, fig.copy_use_share);
				}
				if (!rc && eo.bo_kib >= 1024 && ws[wi] > 100 &&
				    run.refs[BENCH_REF_MEMCPY_BW].measured)
					bench_metric_target(
					    pm.cb, 0.8 * run.refs[BENCH_REF_MEMCPY_BW].stats.median,
					    BENCH_TARGET_AT_LEAST);
			}
		}
		if (set.bos)
			set_free(&set);
	}
	bench_progress_done(&run);
	dev_sim_fini(&dev);
	if ((hw	   ? bench_hw_close(&eo.hw)
	     : sim ? bench_simdev_close(i915)
		   : testlib_mock_device_fini(&md)) &&
	    !rc)
		rc = -EBUSY;
	if (rc) {
		fprintf(stderr, "benchmark-evict: failed (%s)\n", strerror(-rc));
		bench_run_fini(&run);
		return 1;
	}
	if (zipf_lo && zipf_hi) {
		/* Smooth degradation: zipf at 2x keeps a quarter of its 0.5x rate. */
		struct bench_stats st;

		if (!bench_metric_stats(zipf_lo, &st)) {
			bench_metric_target(zipf_hi, 0.25 * st.median, BENCH_TARGET_AT_LEAST);
			bench_metric_label(zipf_hi, "target",
					   ">= 0.25x evict.zipf.ws50.throughput");
		}
	}
	return bench_run_finish(&run);
}
