// SPDX-License-Identifier: MIT
/*
 * i915_exec_storm - execbuffers from several clients through a small
 * aperture on the simulated GPU.
 *
 * Each client is a thread with its own context, its own target objects
 * (most of them needing the 1 MiB mappable aperture, the others softpinned
 * at fixed GGTT addresses above it, a few in local memory) and a ring of
 * batch objects. Every batch stores distinct values into three of the
 * client's targets, through relocations (presumed offset stale on purpose,
 * so every one is applied) or the softpin address; the client keeps several
 * batches in flight while the others' execbuffers evict its targets out of
 * the aperture. Before a batch object is rewritten its fence is waited for
 * and every value it stored is read back.
 *
 * Proven: every batch whose fence signalled without error wrote exactly
 * what it was told to, wherever its targets had gone since; softpinned
 * targets sat where they were pinned; with the gpu_hang fault point armed,
 * the batch it fired on ends with -EIO, its context is blamed, and every
 * other batch (of the same or another client) completes with its values;
 * -ENOSPC from a full aperture leaves nothing attached and the next try
 * works. The device tears down with nothing left.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fault_inject.h>
#include <i915/i915_cmds.h>
#include <i915/i915_drv.h>
#include <i915/i915_engine.h>
#include <i915/i915_gem.h>
#include <ttm/dma_fence.h>

#include "igt.h"
#include "stress_util.h"

#define ES_MAX_CLIENTS 4
#define ES_TARGETS 24
#define ES_TARGET_SIZE (64u * 1024u)
#define ES_SOFTPIN 3 /* targets [0, ES_SOFTPIN) are softpinned */
#define ES_LMEM 1    /* the next ES_LMEM live in local memory */
#define ES_INFLIGHT 4
#define ES_STORES 3
#define ES_APERTURE (1ull << 20)
#define ES_SOFTPIN_BASE (64ull << 20)
#define ES_SOFTPIN_STRIDE (1ull << 20)

/* One store of one batch: where it went and what it wrote. */
struct es_store {
	unsigned target;
	uint32_t offset;
	uint32_t value;
};

/* A batch object and the batch last submitted from it. */
struct es_batch {
	struct i915_gem_object *obj;
	struct dma_fence *fence; /* NULL when idle or checked */
	struct es_store stores[ES_STORES];
};

struct es_ctx;

struct es_client {
	struct es_ctx *c;
	unsigned id;
	uint64_t rng;
	struct i915_context *ctx;
	struct i915_gem_object *targets[ES_TARGETS];
	struct es_batch batches[ES_INFLIGHT];
	uint64_t seq;
	uint64_t submitted, verified, nospc, hung, eio;
};

/**
 * struct es_ctx - one run.
 * @i915: the simulated device.
 * @hang: arm gpu_hang up to @hangs_left more times (re-armed by the client
 *	that saw the previous one end in -EIO).
 * @fault: the gpu_hang point, NULL when fault points are compiled out.
 * @seconds, @max_batches: each client's budget.
 */
struct es_ctx {
	struct i915_device *i915;
	double seconds;
	uint64_t max_batches;
	bool hang;
	atomic_int hangs_left;
	struct fault_attr *fault;
};

static uint64_t es_softpin_addr(unsigned client, unsigned target)
{
	return ES_SOFTPIN_BASE + client * ES_SOFTPIN_STRIDE + target * (uint64_t)ES_TARGET_SIZE;
}

/* Wait for @b's batch and read back what it stored; -EIO batches are skipped. */
static void es_batch_check(struct es_client *cl, struct es_batch *b)
{
	int status;

	if (!b->fence)
		return;
	igt_assert_eq(dma_fence_wait(b->fence, false), 0);
	status = dma_fence_get_status(b->fence);
	dma_fence_put(b->fence);
	b->fence = NULL;
	if (status == -EIO) {
		igt_assert_f(cl->c->hang, "client %u: batch ended -EIO without an injected hang\n",
			     cl->id);
		cl->hung++;
		/* The next hang goes to whoever submits next. */
		if (cl->c->fault && atomic_fetch_sub(&cl->c->hangs_left, 1) > 1)
			fault_set_nth(cl->c->fault, 1 + stress_rand_below(&cl->rng, 32));
		return;
	}
	igt_assert_f(status == 1, "client %u: batch fence status %d\n", cl->id, status);
	for (unsigned k = 0; k < ES_STORES; k++) {
		const struct es_store *s = &b->stores[k];
		uint32_t v = 0;

		igt_assert_eq(
		    i915_gem_object_access(cl->targets[s->target], s->offset, &v, 4, false), 0);
		igt_assert_f(v == s->value,
			     "client %u target %u offset %u: %#x, the batch stored %#x\n", cl->id,
			     s->target, s->offset, v, s->value);
	}
	cl->verified += ES_STORES * 4;
}

/* Submit one batch from slot @slot: three stores to three distinct targets. */
static void es_submit(struct es_client *cl, unsigned slot)
{
	struct es_batch *b = &cl->batches[slot];
	struct i915_exec_object objs[ES_STORES + 1];
	struct i915_exec_reloc relocs[ES_STORES];
	struct i915_execbuffer eb;
	uint32_t cs[ES_STORES * 4 + 2] = {0}, *p = cs;
	unsigned nreloc = 0, eio_tries = 0;
	int ret;

	es_batch_check(cl, b);
	memset(objs, 0, sizeof(objs));
	for (unsigned k = 0; k < ES_STORES; k++) {
		struct es_store *s = &b->stores[k];
		bool fresh;
		unsigned page = (unsigned)stress_rand_below(&cl->rng, ES_TARGET_SIZE / 4096);

		do {
			s->target = (unsigned)stress_rand_below(&cl->rng, ES_TARGETS);
			fresh = true;
			for (unsigned j = 0; j < k; j++)
				fresh &= b->stores[j].target != s->target;
		} while (!fresh);
		/* Distinct dwords per slot and store: batches in flight never overlap. */
		s->offset = page * 4096 + (slot * ES_STORES + k) * 4;
		s->value =
		    (uint32_t)(cl->id << 28) ^ (uint32_t)(cl->seq * ES_STORES + k) ^ 0x5a5a0000u;
		objs[k].obj = cl->targets[s->target];
		objs[k].flags = EXEC_OBJECT_WRITE;
		if (s->target < ES_SOFTPIN) {
			objs[k].flags |= EXEC_OBJECT_PINNED;
			objs[k].offset = es_softpin_addr(cl->id, s->target);
			p = i915_emit_store_dword_imm(p, objs[k].offset + s->offset, s->value);
		} else {
			if (s->target >= ES_SOFTPIN + ES_LMEM)
				objs[k].flags |= EXEC_OBJECT_NEEDS_MAPPABLE;
			relocs[nreloc] = (struct i915_exec_reloc){
			    .target = k,
			    .delta = s->offset,
			    .offset = (uint64_t)(p - cs + 1) * 4,
			    .presumed_offset = 0, /* never true: GGTT page 0 is the guard */
			    .read_domains = I915_GEM_DOMAIN_RENDER,
			    .write_domain = I915_GEM_DOMAIN_RENDER,
			};
			nreloc++;
			p = i915_emit_store_dword_imm(p, 0, s->value);
		}
	}
	i915_emit_bb_end(p);
	igt_assert_eq(i915_gem_object_access(b->obj, 0, cs, sizeof(cs), true), 0);
	objs[ES_STORES] = (struct i915_exec_object){
	    .obj = b->obj,
	    .relocs = nreloc ? relocs : NULL,
	    .nreloc = nreloc,
	};
	for (;;) {
		memset(&eb, 0, sizeof(eb));
		eb.objects = objs;
		eb.count = ES_STORES + 1;
		eb.ctx = cl->ctx;
		ret = i915_gem_execbuffer(cl->c->i915, &eb);
		if (ret == -EIO && cl->c->hang && ++eio_tries < 5000) {
			/* Submitted while the engine awaited its reset: refused whole, retry. */
			struct timespec ts = {0, 1000000};

			igt_assert(!eb.out_fence);
			cl->eio++;
			nanosleep(&ts, NULL);
			continue;
		}
		if (ret != -ENOSPC)
			break;
		/* The aperture is full of the others' reserved objects: nothing attached, retry. */
		igt_assert(!eb.out_fence);
		cl->nospc++;
		for (unsigned k = 0; k < ES_STORES; k++)
			if (!(objs[k].flags & EXEC_OBJECT_PINNED))
				objs[k].offset = 0;
		sched_yield();
	}
	igt_assert_f(ret == 0, "client %u: execbuffer %d\n", cl->id, ret);
	igt_assert(eb.out_fence);
	for (unsigned k = 0; k < ES_STORES; k++) {
		if (objs[k].flags & EXEC_OBJECT_PINNED)
			igt_assert_eq_u64(objs[k].offset,
					  es_softpin_addr(cl->id, b->stores[k].target));
		else if (objs[k].flags & EXEC_OBJECT_NEEDS_MAPPABLE)
			igt_assert_f(objs[k].offset + ES_TARGET_SIZE <= ES_APERTURE,
				     "mappable target at %#" PRIx64 ", outside the aperture\n",
				     objs[k].offset);
	}
	b->fence = eb.out_fence;
	cl->seq++;
	cl->submitted++;
}

static void *es_client_thread(void *data)
{
	struct es_client *cl = data;
	struct stress_budget budget;

	stress_budget_init(&budget, cl->c->seconds, cl->c->max_batches);
	while (!stress_budget_done(&budget, cl->submitted))
		es_submit(cl, (unsigned)(cl->seq % ES_INFLIGHT));
	for (unsigned i = 0; i < ES_INFLIGHT; i++)
		es_batch_check(cl, &cl->batches[i]);
	return NULL;
}

static void es_client_init(struct es_client *cl, struct es_ctx *c, unsigned id, uint64_t seed)
{
	memset(cl, 0, sizeof(*cl));
	cl->c = c;
	cl->id = id;
	cl->rng = seed;
	igt_assert_eq(i915_context_create(c->i915, &cl->ctx), 0);
	for (unsigned i = 0; i < ES_TARGETS; i++) {
		enum i915_gem_region r = i >= ES_SOFTPIN && i < ES_SOFTPIN + ES_LMEM
					     ? I915_GEM_REGION_LMEM
					     : I915_GEM_REGION_SMEM;
		uint32_t zero[1024] = {0};

		igt_assert_eq(i915_gem_object_create(c->i915, ES_TARGET_SIZE, r, &cl->targets[i]),
			      0);
		/* Touch every page so the backing exists before the storm. */
		for (unsigned pg = 0; pg < ES_TARGET_SIZE / 4096; pg++)
			igt_assert_eq(i915_gem_object_access(cl->targets[i], pg * 4096ull, zero,
							     sizeof(zero), true),
				      0);
	}
	for (unsigned i = 0; i < ES_INFLIGHT; i++)
		igt_assert_eq(i915_gem_object_create(c->i915, 4096, I915_GEM_REGION_SMEM,
						     &cl->batches[i].obj),
			      0);
}

static void es_client_fini(struct es_client *cl)
{
	for (unsigned i = 0; i < ES_TARGETS; i++)
		i915_gem_object_put(cl->targets[i]);
	for (unsigned i = 0; i < ES_INFLIGHT; i++)
		i915_gem_object_put(cl->batches[i].obj);
	i915_context_put(cl->ctx);
}

static void es_run(unsigned nclients, bool hang)
{
	struct es_client *cl = calloc(ES_MAX_CLIENTS, sizeof(*cl));
	pthread_t tid[ES_MAX_CLIENTS];
	struct i915_device_config cfg;
	struct es_ctx c;
	uint64_t rng = igt_seed() ^ 0xe5e5e5e5ull;
	uint64_t submitted = 0, verified = 0, nospc = 0, hung = 0, guilty = 0, eio = 0, evictions;
	long fences = dma_fence_live_count();
	unsigned long fired = 0;

	igt_assert(cl);
	memset(&c, 0, sizeof(c));
	c.seconds = igt_stress_budget_s() > 3 ? 3 : igt_stress_budget_s();
	c.max_batches = 40000;
	c.hang = hang;
	if (hang) {
		c.fault = fault_lookup("gpu_hang");
		igt_require_f(FAULT_INJECT_ENABLED && c.fault,
			      "gpu_hang fault point not built in\n");
	}
	i915_device_config_init(&cfg, I915_BACKEND_SIM);
	cfg.ggtt_size = 256ull << 20;
	cfg.aperture_size = ES_APERTURE;
	cfg.stolen_size = 4ull << 20;
	cfg.lmem_size = 16ull << 20;
	cfg.lmem_visible_size = 4ull << 20;
	/*
	 * Hangcheck is wall-clock: on a loaded machine a preempted streamer
	 * could trip it, so only the hang subtest has it, and long enough that
	 * only the injected hangs reach it.
	 */
	cfg.hangcheck_ms = hang ? 250 : I915_HANGCHECK_OFF;
	igt_assert_eq(i915_device_create(&cfg, &c.i915), 0);
	igt_assert_eq(i915_gem_init(c.i915), 0);
	for (unsigned i = 0; i < nclients; i++)
		es_client_init(&cl[i], &c, i, prng_step(&rng));
	if (hang) {
		/* Armed after setup, so it fires on a client's batch, not an lmem clear. */
		fault_reset(c.fault);
		atomic_init(&c.hangs_left, 3);
		fault_set_nth(c.fault, 1 + stress_rand_below(&rng, 32));
	}
	for (unsigned i = 0; i < nclients; i++)
		igt_assert_eq(pthread_create(&tid[i], NULL, es_client_thread, &cl[i]), 0);
	for (unsigned i = 0; i < nclients; i++)
		pthread_join(tid[i], NULL);
	if (hang) {
		fired = c.fault->fired;
		fault_reset(c.fault);
	}
	for (unsigned i = 0; i < nclients; i++) {
		submitted += cl[i].submitted;
		verified += cl[i].verified;
		nospc += cl[i].nospc;
		hung += cl[i].hung;
		eio += cl[i].eio;
		guilty += atomic_load(&cl[i].ctx->guilty);
		/* Blame lands on the context whose batch hung, and only there. */
		igt_assert_eq_u64(atomic_load(&cl[i].ctx->guilty), cl[i].hung);
		es_client_fini(&cl[i]);
	}
	if (hang) {
		igt_assert_f(hung >= 1, "no batch hung (gpu_hang fired %lu times)\n", fired);
		igt_assert_eq_u64(hung, fired);
	}
	/* The mappable targets of even one client overflow the aperture. */
	evictions = (uint64_t)atomic_load(&c.i915->drm.bdev.stats.evictions);
	igt_assert_f(evictions > 0, "no eviction: the aperture never filled\n");
	igt_assert_eq(i915_gem_fini(c.i915), 0);
	igt_assert_eq(i915_device_destroy(c.i915), 0);
	igt_assert_eq_s64(dma_fence_live_count(), fences);
	igt_info("%u clients: %" PRIu64 " batches, %" PRIu64 " hung (-EIO, %" PRIu64
		 " blamed), %" PRIu64 " evictions, execbuffers retried: %" PRIu64
		 " after -ENOSPC, %" PRIu64 " after -EIO during a reset; %" PRIu64
		 " bytes verified\n",
		 nclients, submitted, hung, guilty, evictions, nospc, eio, verified);
	igt_report_checks(submitted, verified, fired);
	free(cl);
}

igt_main_description("Execbuffers with relocations and softpin from several clients through a "
		     "small aperture on the simulated GPU, with injected GPU hangs: every "
		     "non-hung batch's stores read back, hung batches end -EIO.")
{
	igt_subtest("basic") es_run(1, false);
	igt_subtest("multi-client")
	    es_run(igt_opt_count(IGT_CLIENTS, ES_MAX_CLIENTS, ES_MAX_CLIENTS), false);
	igt_subtest("hang") es_run(ES_MAX_CLIENTS, true);
}
