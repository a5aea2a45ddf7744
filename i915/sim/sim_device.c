/* SPDX-License-Identifier: MIT */
/*
 * sim_device.c - the simulated device: memory, GGTT, registers, the streamer
 * and interrupt threads, hangcheck plumbing and error states. The command
 * parser itself lives in sim_cs.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <testlib/clock.h>

#include "sim_priv.h"

/*
 * Long enough to span what a client does between being woken by one
 * request's interrupt and submitting its next (unreserve, reserve,
 * validate: 20-40 us on a virtual machine), short against a time slice.
 */
#define SIM_IDLE_POLL_DEFAULT_US 100u

void sim_gpu_config_init(struct sim_gpu_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->gen = 12;
	cfg->ggtt_size = 4ull << 30;
	cfg->aperture_size = 256ull << 20;
	cfg->stolen_size = 8ull << 20;
	for (int i = 0; i < SIM_NUM_ENGINES; i++)
		cfg->ring_size[i] = 32u << 10;
	cfg->engine_mask = SIM_ENGINES_DEFAULT;
	cfg->hangcheck_ms = 1000;
	cfg->idle_poll_us = SIM_IDLE_POLL_DEFAULT_US;
}

static bool page_multiple(uint64_t v)
{
	return (v & (SIM_PAGE_SIZE - 1)) == 0;
}

static int config_check(const struct sim_gpu_config *cfg)
{
	if (cfg->gen < 8 || cfg->gen > 12)
		return -EINVAL;
	if (!cfg->ggtt_size || !page_multiple(cfg->ggtt_size) || cfg->ggtt_size > (64ull << 30))
		return -EINVAL;
	if (!page_multiple(cfg->aperture_size) || cfg->aperture_size > cfg->ggtt_size)
		return -EINVAL;
	if (!page_multiple(cfg->stolen_size) || !page_multiple(cfg->lmem_size))
		return -EINVAL;
	if (cfg->lmem_size && cfg->gen < 12)
		return -EINVAL;
	if (cfg->lmem_visible_size > cfg->lmem_size)
		return -EINVAL;
	if ((cfg->engine_mask & SIM_ENGINES_DEFAULT) != SIM_ENGINES_DEFAULT ||
	    (cfg->engine_mask >> SIM_NUM_ENGINES))
		return -EINVAL;
	for (int i = 0; i < SIM_NUM_ENGINES; i++) {
		uint32_t s = cfg->ring_size[i];

		if (!(cfg->engine_mask & SIM_ENGINE_BIT(i)))
			continue;
		if (s < SIM_PAGE_SIZE || s > SIM_RING_MAX_SIZE || !page_multiple(s))
			return -EINVAL;
	}
	if (!cfg->hangcheck_ms || cfg->idle_poll_us > SIM_IDLE_POLL_MAX_US)
		return -EINVAL;
	return 0;
}

/* ---- GGTT and memory ---------------------------------------------------- */

uint8_t *sim_pte_ptr(struct sim_gpu *gpu, uint64_t pte)
{
	uint64_t addr;

	if (!(pte & SIM_PTE_PRESENT))
		return NULL;
	addr = pte & SIM_PTE_ADDR_MASK;
	if ((pte & SIM_PTE_LM) && (pte & SIM_PTE_STOLEN))
		return NULL;
	if (pte & SIM_PTE_LM)
		return addr < gpu->cfg.lmem_size ? gpu->lmem + addr : NULL;
	if (pte & SIM_PTE_STOLEN)
		return addr < gpu->cfg.stolen_size ? gpu->stolen + addr : NULL;
	return addr ? (uint8_t *)(uintptr_t)addr : NULL;
}

static uint8_t *pte_page(struct sim_gpu *gpu, uint64_t index)
{
	if (index >= gpu->nr_ptes)
		return NULL;
	return sim_pte_ptr(gpu, __atomic_load_n(&gpu->ptes[index], __ATOMIC_ACQUIRE));
}

void *sim_ggtt_resolve(struct sim_gpu *gpu, uint64_t addr, size_t want, size_t *run)
{
	uint64_t index = addr >> SIM_PAGE_SHIFT;
	uint8_t *page = pte_page(gpu, index), *first = page;
	size_t got;

	if (!page)
		return NULL;
	got = SIM_PAGE_SIZE - (addr & (SIM_PAGE_SIZE - 1));
	/* Merge pages that are contiguous in the host too: one memcpy per run. */
	while (got < want) {
		uint8_t *next = pte_page(gpu, index + 1);

		if (next != page + SIM_PAGE_SIZE)
			break;
		page = next;
		index++;
		got += SIM_PAGE_SIZE;
	}
	*run = got < want ? got : want;
	/* The first lookup, not a second one: the PTE may change under us. */
	return first + (addr & (SIM_PAGE_SIZE - 1));
}

int sim_ggtt_read(struct sim_gpu *gpu, uint64_t addr, void *dst, size_t len, uint64_t *fault)
{
	uint8_t *d = dst;

	while (len) {
		size_t run;
		void *p = sim_ggtt_resolve(gpu, addr, len, &run);

		if (!p) {
			*fault = addr;
			return -EFAULT;
		}
		memcpy(d, p, run);
		d += run;
		addr += run;
		len -= run;
	}
	return 0;
}

int sim_ggtt_write(struct sim_gpu *gpu, uint64_t addr, const void *src, size_t len, uint64_t *fault)
{
	const uint8_t *s = src;

	while (len) {
		size_t run;
		void *p = sim_ggtt_resolve(gpu, addr, len, &run);

		if (!p) {
			*fault = addr;
			return -EFAULT;
		}
		memcpy(p, s, run);
		s += run;
		addr += run;
		len -= run;
	}
	return 0;
}

int sim_ggtt_write_pte(struct sim_gpu *gpu, uint64_t index, uint64_t pte)
{
	if (index >= gpu->nr_ptes)
		return -EINVAL;
	__atomic_store_n(&gpu->ptes[index], pte, __ATOMIC_RELEASE);
	return 0;
}

uint64_t sim_ggtt_read_pte(const struct sim_gpu *gpu, uint64_t index)
{
	if (index >= gpu->nr_ptes)
		return 0;
	return __atomic_load_n(&gpu->ptes[index], __ATOMIC_ACQUIRE);
}

static bool ggtt_range_ok(const struct sim_gpu *gpu, uint64_t first, uint64_t count)
{
	return first <= gpu->nr_ptes && count <= gpu->nr_ptes - first;
}

int sim_ggtt_insert(struct sim_gpu *gpu, uint64_t first, const uint64_t *ptes, uint64_t count)
{
	if (!ggtt_range_ok(gpu, first, count))
		return -EINVAL;
	for (uint64_t i = 0; i < count; i++)
		__atomic_store_n(&gpu->ptes[first + i], ptes[i], __ATOMIC_RELEASE);
	return 0;
}

int sim_ggtt_insert_host(struct sim_gpu *gpu, uint64_t first, void *host, uint64_t count)
{
	uint8_t *p = host;

	if (!ggtt_range_ok(gpu, first, count) || !p || ((uintptr_t)p & (SIM_PAGE_SIZE - 1)))
		return -EINVAL;
	for (uint64_t i = 0; i < count; i++)
		__atomic_store_n(&gpu->ptes[first + i], sim_pte_host(p + i * SIM_PAGE_SIZE),
				 __ATOMIC_RELEASE);
	return 0;
}

int sim_ggtt_clear(struct sim_gpu *gpu, uint64_t first, uint64_t count)
{
	if (!ggtt_range_ok(gpu, first, count))
		return -EINVAL;
	for (uint64_t i = 0; i < count; i++)
		__atomic_store_n(&gpu->ptes[first + i], 0, __ATOMIC_RELEASE);
	return 0;
}

uint64_t sim_pte_host(const void *page)
{
	return ((uint64_t)(uintptr_t)page & SIM_PTE_ADDR_MASK) | SIM_PTE_PRESENT;
}

uint64_t sim_pte_stolen(uint64_t offset)
{
	return (offset & SIM_PTE_ADDR_MASK) | SIM_PTE_STOLEN | SIM_PTE_PRESENT;
}

uint64_t sim_pte_lmem(uint64_t offset)
{
	return (offset & SIM_PTE_ADDR_MASK) | SIM_PTE_LM | SIM_PTE_PRESENT;
}

static int aperture_check(struct sim_gpu *gpu, uint64_t offset, size_t len)
{
	size_t run;

	if (offset > gpu->cfg.aperture_size || len > gpu->cfg.aperture_size - offset)
		return -EINVAL;
	/* Check the whole range first so that a failed write changes nothing. */
	while (len) {
		if (!sim_ggtt_resolve(gpu, offset, len, &run))
			return -EFAULT;
		offset += run;
		len -= run;
	}
	return 0;
}

int sim_aperture_read(struct sim_gpu *gpu, uint64_t offset, void *dst, size_t len)
{
	uint64_t fault;
	int ret = aperture_check(gpu, offset, len);

	return ret ? ret : sim_ggtt_read(gpu, offset, dst, len, &fault);
}

int sim_aperture_write(struct sim_gpu *gpu, uint64_t offset, const void *src, size_t len)
{
	uint64_t fault;
	int ret = aperture_check(gpu, offset, len);

	return ret ? ret : sim_ggtt_write(gpu, offset, src, len, &fault);
}

/* Returns the host address of byte @offset (page aligned for an aligned @offset). */
void *sim_aperture_map(struct sim_gpu *gpu, uint64_t offset)
{
	size_t run;

	if (offset >= gpu->cfg.aperture_size)
		return NULL;
	return sim_ggtt_resolve(gpu, offset, 1, &run);
}

void *sim_lmem_cpu_ptr(struct sim_gpu *gpu, uint64_t offset)
{
	if (offset >= gpu->cfg.lmem_visible_size)
		return NULL;
	return gpu->lmem + offset;
}

/* ---- engines, interrupts ------------------------------------------------ */

/* Per engine id: MMIO base, name, class, physical instance. */
static const struct {
	uint32_t base;
	const char *name;
	enum sim_engine_class cls;
	unsigned int instance;
} sim_engines[SIM_NUM_ENGINES] = {
    [SIM_RCS] = {SIM_RCS_BASE, "rcs0", SIM_CLASS_RENDER, 0},
    [SIM_BCS] = {SIM_BCS_BASE, "bcs0", SIM_CLASS_COPY, 0},
    [SIM_VCS0] = {0x1c0000, "vcs0", SIM_CLASS_VIDEO, 0},
    [SIM_VCS1] = {0x1c4000, "vcs1", SIM_CLASS_VIDEO, 1},
    [SIM_VCS2] = {0x1d0000, "vcs2", SIM_CLASS_VIDEO, 2},
    [SIM_VCS3] = {0x1d4000, "vcs3", SIM_CLASS_VIDEO, 3},
    [SIM_VECS0] = {0x1c8000, "vecs0", SIM_CLASS_VIDEO_ENHANCE, 0},
    [SIM_VECS1] = {0x1d8000, "vecs1", SIM_CLASS_VIDEO_ENHANCE, 1},
    [SIM_CCS0] = {0x1a000, "ccs0", SIM_CLASS_COMPUTE, 0},
    [SIM_CCS1] = {0x1c000, "ccs1", SIM_CLASS_COMPUTE, 1},
    [SIM_CCS2] = {0x1e000, "ccs2", SIM_CLASS_COMPUTE, 2},
    [SIM_CCS3] = {0x26000, "ccs3", SIM_CLASS_COMPUTE, 3},
};

uint32_t sim_engine_mmio_base(enum sim_engine_id engine)
{
	return (unsigned int)engine < SIM_NUM_ENGINES ? sim_engines[engine].base : 0;
}

const char *sim_engine_name(enum sim_engine_id engine)
{
	return (unsigned int)engine < SIM_NUM_ENGINES ? sim_engines[engine].name : "?";
}

enum sim_engine_class sim_engine_class(enum sim_engine_id engine)
{
	return (unsigned int)engine < SIM_NUM_ENGINES ? sim_engines[engine].cls : SIM_CLASS_RENDER;
}

unsigned int sim_engine_instance(enum sim_engine_id engine)
{
	return (unsigned int)engine < SIM_NUM_ENGINES ? sim_engines[engine].instance : 0;
}

bool sim_engine_present(const struct sim_gpu *gpu, enum sim_engine_id engine)
{
	return (unsigned int)engine < SIM_NUM_ENGINES &&
	       (gpu->cfg.engine_mask & SIM_ENGINE_BIT(engine));
}

static struct sim_engine *engine_get(struct sim_gpu *gpu, enum sim_engine_id e)
{
	if (!sim_engine_present(gpu, e))
		return NULL;
	return &gpu->engine[e];
}

void sim_engine_latch_locked(struct sim_engine *e, uint32_t bits)
{
	e->iir |= bits & ~e->imr;
}

void sim_engine_raise_locked(struct sim_engine *e, uint32_t bits)
{
	bits &= ~e->imr;
	if (!bits)
		return;
	e->iir |= bits;
	pthread_cond_signal(&e->gpu->irq_wake);
}

static void record_error_locked(struct sim_engine *e, uint32_t head, const struct sim_fault *f)
{
	struct sim_error_state *es = &e->error;

	memset(es, 0, sizeof(*es));
	es->engine = e->id;
	es->reason = f->reason;
	es->head = head;
	es->acthd = f->acthd;
	memcpy(es->cmd, f->cmd, sizeof(es->cmd));
	es->fault_addr = f->fault_addr;
	es->fault_ppgtt = f->reason == SIM_ERR_PAGE_FAULT && f->ppgtt;
	es->ctx_id = atomic_load_explicit(&e->ccid, memory_order_relaxed);
	es->batch_depth = f->depth;
	es->count = ++e->error_count;
	snprintf(es->detail, sizeof(es->detail), "%s", f->detail);
	e->has_error = true;
	e->stopped = true;
	e->err_pending = true;
	e->err_reason = f->reason;
	e->err_ctx = es->ctx_id;
	/* The error handler always runs; the CS_ERROR interrupt obeys IMR. */
	pthread_cond_signal(&e->gpu->irq_wake);
	sim_engine_raise_locked(e, SIM_IRQ_CS_ERROR);
}

/*
 * A new tail: a polling engine thread sees the counter move, a sleeping one
 * is woken (@sleeping is set under the lock the caller holds, so the
 * wake-up cannot fall between the thread's last look and its wait).
 */
static void engine_doorbell_locked(struct sim_engine *e)
{
	atomic_fetch_add_explicit(&e->doorbell, 1, memory_order_relaxed);
	if (e->sleeping)
		pthread_cond_signal(&e->wake);
}

static bool engine_runnable_locked(const struct sim_engine *e)
{
	return !e->stopped && e->head != e->tail && (e->ctl & SIM_RING_VALID) &&
	       !atomic_load(&e->reset_req) && !atomic_load(&e->gpu->quit);
}

static bool irq_pending_locked(struct sim_gpu *gpu)
{
	for (int i = 0; i < SIM_NUM_ENGINES; i++)
		if (gpu->engine[i].iir || gpu->engine[i].err_pending)
			return true;
	return false;
}

/*
 * Take @e's latched interrupt and error and call the handlers without the
 * lock. Entered and left with gpu->lock held.
 */
static void deliver_locked(struct sim_engine *e)
{
	struct sim_gpu *gpu = e->gpu;
	uint32_t iir = e->iir;
	bool err = e->err_pending;
	enum sim_error_reason reason = e->err_reason;
	uint32_t ctx = e->err_ctx;
	sim_irq_handler_t irq_fn = gpu->irq_fn;
	sim_error_handler_t err_fn = gpu->err_fn;
	void *irq_data = gpu->irq_data, *err_data = gpu->err_data;

	if (!iir && !err)
		return;
	e->iir = 0;
	e->err_pending = false;
	e->irq_busy = true;
	gpu->irq_running = true;
	pthread_mutex_unlock(&gpu->lock);
	if (err && err_fn)
		err_fn(err_data, e->id, reason, ctx);
	if (iir && irq_fn)
		irq_fn(irq_data, e->id, iir);
	pthread_mutex_lock(&gpu->lock);
	e->irq_busy = false;
	gpu->irq_running = false;
	/* Raised while the handler ran, on another engine's thread: the thread takes it. */
	if (irq_pending_locked(gpu))
		pthread_cond_signal(&gpu->irq_wake);
	pthread_cond_broadcast(&gpu->idle);
}

/*
 * Hand @e's latched interrupt (raised by the ring command just executed) to
 * a handler. The engine runs the handler itself, as a CPU would take the
 * interrupt, even with more work queued: waking the interrupt thread costs
 * the engine the same futex wake-up the handler's own signalling does (on a
 * virtual machine, an inter-processor interrupt), and the interrupt thread
 * then needs a CPU that the engine or a client was using. Measured with
 * benchmark-evict (two clients on two CPUs, 1 MiB BOs at 2x lmem): device
 * copy rate 0.73-0.79 of memcpy with the hand-off, 0.75-0.86 inline. An
 * interrupt that finds a handler already running (there is one interrupt
 * line: handlers never run concurrently) or an error still pending is left
 * to the interrupt thread.
 */
static void hand_over_locked(struct sim_engine *e)
{
	struct sim_gpu *gpu = e->gpu;

	if (!gpu->irq_running && !e->err_pending)
		deliver_locked(e);
	else
		pthread_cond_signal(&gpu->irq_wake);
}

/*
 * Run ring commands until the ring is empty, the engine stops or a reset
 * asks it to let go. Entered and left with gpu->lock held; the lock is
 * dropped around each ring command.
 */
static void engine_run_locked(struct sim_engine *e)
{
	struct sim_gpu *gpu = e->gpu;

	while (engine_runnable_locked(e)) {
		uint32_t head = e->head, tail = e->tail, new_head = head;
		struct sim_fault f;
		int ret;

		e->executing = true;
		pthread_mutex_unlock(&gpu->lock);
		ret = sim_cs_exec(e, head, tail, &new_head, &f);
		pthread_mutex_lock(&gpu->lock);
		e->executing = false;
		if (ret == 1)
			record_error_locked(e, head, &f);
		else if (ret == 0 && !atomic_load(&e->reset_req))
			e->head = new_head;
		if (e->iir && !gpu->cfg.synchronous)
			hand_over_locked(e);
		pthread_cond_broadcast(&gpu->idle);
	}
}

/*
 * Watch the doorbell for up to cfg.idle_poll_us without the lock, yielding
 * the CPU between looks; return early when it rings or the device is going
 * away or being reset. Entered and left with gpu->lock held.
 */
static void engine_idle_poll_locked(struct sim_engine *e)
{
	struct sim_gpu *gpu = e->gpu;
	unsigned int rung = atomic_load_explicit(&e->doorbell, memory_order_relaxed);
	uint64_t t0, budget = (uint64_t)gpu->cfg.idle_poll_us * 1000u;

	if (!budget)
		return;
	pthread_mutex_unlock(&gpu->lock);
	t0 = testlib_now_ns();
	while (atomic_load_explicit(&e->doorbell, memory_order_relaxed) == rung &&
	       !atomic_load(&gpu->quit) && !atomic_load(&e->reset_req) &&
	       testlib_now_ns() - t0 < budget)
		sched_yield();
	pthread_mutex_lock(&gpu->lock);
}

static void *engine_thread(void *arg)
{
	struct sim_engine *e = arg;
	struct sim_gpu *gpu = e->gpu;
	bool polled = false;

	pthread_mutex_lock(&gpu->lock);
	while (!atomic_load(&gpu->quit)) {
		if (!engine_runnable_locked(e)) {
			/* Once per idle period, then look again before sleeping. */
			if (!polled) {
				polled = true;
				engine_idle_poll_locked(e);
				continue;
			}
			e->sleeping = true;
			pthread_cond_wait(&e->wake, &gpu->lock);
			e->sleeping = false;
			continue;
		}
		polled = false;
		engine_run_locked(e);
	}
	pthread_mutex_unlock(&gpu->lock);
	return NULL;
}

static void *irq_thread(void *arg)
{
	struct sim_gpu *gpu = arg;

	pthread_mutex_lock(&gpu->lock);
	while (!atomic_load(&gpu->quit)) {
		if (!irq_pending_locked(gpu) || gpu->irq_running) {
			pthread_cond_wait(&gpu->irq_wake, &gpu->lock);
			continue;
		}
		for (int i = 0; i < SIM_NUM_ENGINES; i++)
			deliver_locked(&gpu->engine[i]);
	}
	pthread_mutex_unlock(&gpu->lock);
	return NULL;
}

static void engine_reset_regs(struct sim_engine *e, uint32_t ring_size)
{
	e->start = 0;
	e->ctl = SIM_RING_CTL_SIZE(ring_size);
	e->head = 0;
	e->tail = 0;
	e->hws = 0;
	e->hws_valid = false;
	/* Interrupts start unmasked so a handler works without setup. */
	e->imr = 0;
}

static void gpu_free(struct sim_gpu *gpu)
{
	free(gpu->ptes);
	free(gpu->stolen);
	free(gpu->lmem);
	free(gpu);
}

void sim_gpu_destroy(struct sim_gpu *gpu)
{
	if (!gpu)
		return;
	pthread_mutex_lock(&gpu->lock);
	atomic_store(&gpu->quit, true);
	for (int i = 0; i < SIM_NUM_ENGINES; i++)
		pthread_cond_broadcast(&gpu->engine[i].wake);
	pthread_cond_broadcast(&gpu->irq_wake);
	pthread_mutex_unlock(&gpu->lock);
	for (int i = 0; i < SIM_NUM_ENGINES; i++)
		if (gpu->engine[i].thread_started)
			pthread_join(gpu->engine[i].thread, NULL);
	if (gpu->irq_started)
		pthread_join(gpu->irq_thread, NULL);
	for (int i = 0; i < SIM_NUM_ENGINES; i++)
		pthread_cond_destroy(&gpu->engine[i].wake);
	pthread_cond_destroy(&gpu->irq_wake);
	pthread_cond_destroy(&gpu->idle);
	sim_vm_destroy_all(gpu);
	pthread_mutex_destroy(&gpu->lock);
	gpu_free(gpu);
}

int sim_gpu_create(const struct sim_gpu_config *cfg, struct sim_gpu **out)
{
	struct sim_gpu *gpu;
	pthread_condattr_t ca;
	int ret;

	ret = config_check(cfg);
	if (ret)
		return ret;
	if (fault_should_fail(&sim_fault_gpu_alloc, sizeof(*gpu)))
		return -ENOMEM;
	gpu = calloc(1, sizeof(*gpu));
	if (!gpu)
		return -ENOMEM;
	gpu->cfg = *cfg;
	gpu->nr_ptes = cfg->ggtt_size >> SIM_PAGE_SHIFT;
	/* calloc of large sizes maps zero pages lazily: untouched GGTT costs nothing. */
	if (!fault_should_fail(&sim_fault_gpu_alloc, gpu->nr_ptes * sizeof(*gpu->ptes))) {
		gpu->ptes = calloc(gpu->nr_ptes, sizeof(*gpu->ptes));
		gpu->stolen = cfg->stolen_size ? calloc(1, cfg->stolen_size) : NULL;
		gpu->lmem = cfg->lmem_size ? calloc(1, cfg->lmem_size) : NULL;
	}
	if (!gpu->ptes || (cfg->stolen_size && !gpu->stolen) || (cfg->lmem_size && !gpu->lmem)) {
		gpu_free(gpu);
		return -ENOMEM;
	}

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&gpu->lock, NULL);
	pthread_cond_init(&gpu->idle, &ca);
	pthread_cond_init(&gpu->irq_wake, &ca);
	for (int i = 0; i < SIM_NUM_ENGINES; i++) {
		struct sim_engine *e = &gpu->engine[i];

		e->gpu = gpu;
		e->id = (enum sim_engine_id)i;
		e->base = sim_engine_mmio_base(e->id);
		pthread_cond_init(&e->wake, &ca);
		engine_reset_regs(e, cfg->ring_size[i]);
	}
	pthread_condattr_destroy(&ca);

	if (!cfg->synchronous) {
		for (int i = 0; i < SIM_NUM_ENGINES && !ret; i++) {
			if (!(cfg->engine_mask & SIM_ENGINE_BIT(i)))
				continue;
			ret = -pthread_create(&gpu->engine[i].thread, NULL, engine_thread,
					      &gpu->engine[i]);
			gpu->engine[i].thread_started = !ret;
		}
		if (!ret) {
			ret = -pthread_create(&gpu->irq_thread, NULL, irq_thread, gpu);
			gpu->irq_started = !ret;
		}
		if (ret) {
			sim_gpu_destroy(gpu);
			return ret;
		}
	}
	*out = gpu;
	return 0;
}

const struct sim_gpu_config *sim_gpu_get_config(const struct sim_gpu *gpu)
{
	return &gpu->cfg;
}

/* ---- registers ---------------------------------------------------------- */

static struct sim_engine *engine_by_mmio(struct sim_gpu *gpu, uint32_t offset, uint32_t *reg)
{
	for (int i = 0; i < SIM_NUM_ENGINES; i++) {
		uint32_t base = gpu->engine[i].base;

		if (!sim_engine_present(gpu, (enum sim_engine_id)i))
			continue;
		if (offset >= base && offset - base < 0x1000) {
			*reg = offset - base;
			return &gpu->engine[i];
		}
	}
	return NULL;
}

/* The engine owns its ring registers while it has work or is mid-command. */
static bool engine_busy_locked(const struct sim_engine *e)
{
	return e->executing || (!e->stopped && e->head != e->tail);
}

static int reg_write_locked(struct sim_engine *e, uint32_t reg, uint32_t value)
{
	struct sim_gpu *gpu = e->gpu;

	if (reg >= 0x600 && reg < 0x600 + 8 * SIM_RING_NUM_GPRS) {
		unsigned int n = (reg - 0x600) / 8;
		bool hi = (reg - 0x600) & 4;
		uint64_t old, val;

		if (reg & 3)
			return -EINVAL;
		old = atomic_load(&e->gpr[n]);
		val = hi ? (old & 0xffffffffull) | ((uint64_t)value << 32)
			 : (old & ~0xffffffffull) | value;
		atomic_store(&e->gpr[n], val);
		return 0;
	}
	switch (reg) {
	case 0x30: /* TAIL */
		if ((value & ~SIM_RING_TAIL_MASK) || value >= sim_ring_size(e))
			return -EINVAL;
		e->tail = value;
		engine_doorbell_locked(e);
		return 0;
	case 0x34: /* HEAD */
		if (engine_busy_locked(e))
			return -EBUSY;
		if ((value & ~SIM_RING_HEAD_MASK) || value >= sim_ring_size(e))
			return -EINVAL;
		e->head = value;
		return 0;
	case 0x38: /* START */
		if (engine_busy_locked(e))
			return -EBUSY;
		if ((value & (SIM_PAGE_SIZE - 1)) || value >= gpu->cfg.ggtt_size)
			return -EINVAL;
		e->start = value;
		return 0;
	case 0x3c: /* CTL */
		if (engine_busy_locked(e))
			return -EBUSY;
		if (value & ~(SIM_RING_NR_PAGES | SIM_RING_VALID))
			return -EINVAL;
		e->ctl = value;
		if (e->head >= sim_ring_size(e) || e->tail >= sim_ring_size(e))
			e->head = e->tail = 0;
		return 0;
	case 0x80: /* HWS_PGA */
		if ((value & (SIM_PAGE_SIZE - 1)) || value >= gpu->cfg.ggtt_size)
			return -EINVAL;
		e->hws = value;
		e->hws_valid = true;
		return 0;
	case 0xa8: /* IMR */
		e->imr = value;
		return 0;
	case 0x180: /* CCID */
		atomic_store(&e->ccid, value);
		return 0;
	case 0x270: /* PDP0_LDW */
	case 0x274: /* PDP0_UDW */
		sim_engine_set_pdp(e, reg == 0x274, value);
		return 0;
	default: /* ACTHD is read-only; everything else is not modelled. */
		return -EINVAL;
	}
}

int sim_reg_write(struct sim_gpu *gpu, uint32_t offset, uint32_t value)
{
	uint32_t reg;
	struct sim_engine *e = engine_by_mmio(gpu, offset, &reg);
	int ret;

	if (!e)
		return -EINVAL;
	pthread_mutex_lock(&gpu->lock);
	ret = reg_write_locked(e, reg, value);
	pthread_mutex_unlock(&gpu->lock);
	return ret;
}

uint32_t sim_reg_read(struct sim_gpu *gpu, uint32_t offset)
{
	uint32_t reg, v = 0;
	struct sim_engine *e = engine_by_mmio(gpu, offset, &reg);

	if (!e)
		return 0;
	if (reg >= 0x600 && reg < 0x600 + 8 * SIM_RING_NUM_GPRS && !(reg & 3)) {
		uint64_t g = atomic_load(&e->gpr[(reg - 0x600) / 8]);

		return ((reg - 0x600) & 4) ? (uint32_t)(g >> 32) : (uint32_t)g;
	}
	if (reg == 0x358 || reg == 0x35c) {
		uint64_t t = sim_cs_timestamp();

		return reg == 0x35c ? (uint32_t)(t >> 32) : (uint32_t)t;
	}
	pthread_mutex_lock(&gpu->lock);
	switch (reg) {
	case 0x30:
		v = e->tail;
		break;
	case 0x34:
		v = e->head;
		break;
	case 0x38:
		v = e->start;
		break;
	case 0x3c:
		v = e->ctl;
		break;
	case 0x74:
		v = (uint32_t)atomic_load(&e->acthd);
		break;
	case 0x80:
		v = e->hws;
		break;
	case 0xa8:
		v = e->imr;
		break;
	case 0x180:
		v = atomic_load(&e->ccid);
		break;
	case 0x270:
		v = (uint32_t)atomic_load(&e->pdp);
		break;
	case 0x274:
		v = (uint32_t)(atomic_load(&e->pdp) >> 32);
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&gpu->lock);
	return v;
}

int sim_engine_set_ring(struct sim_gpu *gpu, enum sim_engine_id id, uint32_t ggtt_start,
			uint32_t size)
{
	struct sim_engine *e = engine_get(gpu, id);
	int ret;

	if (!e || size < SIM_PAGE_SIZE || size > SIM_RING_MAX_SIZE || !page_multiple(size))
		return -EINVAL;
	pthread_mutex_lock(&gpu->lock);
	ret = engine_busy_locked(e) ? -EBUSY : 0;
	if (!ret && ((ggtt_start & (SIM_PAGE_SIZE - 1)) || ggtt_start >= gpu->cfg.ggtt_size))
		ret = -EINVAL;
	if (!ret) {
		e->start = ggtt_start;
		e->ctl = SIM_RING_CTL_SIZE(size);
		e->head = 0;
		e->tail = 0;
	}
	pthread_mutex_unlock(&gpu->lock);
	return ret;
}

uint64_t sim_engine_timestamp(struct sim_gpu *gpu, enum sim_engine_id id)
{
	return engine_get(gpu, id) ? sim_cs_timestamp() : 0;
}

int sim_engine_set_hws(struct sim_gpu *gpu, enum sim_engine_id id, uint32_t ggtt_addr)
{
	uint32_t base = sim_engine_mmio_base(id);

	return base ? sim_reg_write(gpu, SIM_RING_HWS_PGA(base), ggtt_addr) : -EINVAL;
}

int sim_engine_set_tail(struct sim_gpu *gpu, enum sim_engine_id id, uint32_t tail)
{
	uint32_t base = sim_engine_mmio_base(id);

	return base ? sim_reg_write(gpu, SIM_RING_TAIL(base), tail) : -EINVAL;
}

uint32_t sim_engine_get_head(struct sim_gpu *gpu, enum sim_engine_id id)
{
	uint32_t base = sim_engine_mmio_base(id);

	return base ? sim_reg_read(gpu, SIM_RING_HEAD(base)) : 0;
}

uint32_t sim_engine_read_hws(struct sim_gpu *gpu, enum sim_engine_id id, uint32_t index)
{
	struct sim_engine *e = engine_get(gpu, id);
	uint32_t hws, *p;
	bool valid;
	size_t run;

	if (!e || index >= SIM_PAGE_SIZE / 4)
		return 0;
	pthread_mutex_lock(&gpu->lock);
	hws = e->hws;
	valid = e->hws_valid;
	pthread_mutex_unlock(&gpu->lock);
	if (!valid)
		return 0;
	p = sim_ggtt_resolve(gpu, (uint64_t)hws + 4 * index, 4, &run);
	/* The GPU stores seqnos here concurrently: read like a poll. */
	return p ? __atomic_load_n(p, __ATOMIC_ACQUIRE) : 0;
}

int sim_engine_submit(struct sim_gpu *gpu, enum sim_engine_id id, const uint32_t *dw,
		      unsigned int ndw)
{
	struct sim_engine *e = engine_get(gpu, id);
	uint32_t size, used, space, bytes, off, pad = 0 /* MI_NOOP */;
	uint64_t fault;
	int ret = 0;

	if (!e || (ndw && !dw))
		return -EINVAL;
	if (!ndw)
		return 0;
	pthread_mutex_lock(&gpu->lock);
	if (!(e->ctl & SIM_RING_VALID)) {
		ret = -EINVAL;
		goto out;
	}
	size = sim_ring_size(e);
	bytes = ((ndw + 1) & ~1u) * 4;
	used = (e->tail - e->head + size) % size;
	/* Keep a qword free so that a full ring is never mistaken for an empty one. */
	space = size - used - 8;
	if ((uint64_t)ndw * 4 > size || bytes > space) {
		ret = -ENOSPC;
		goto out;
	}
	/* Check every page first: a half-written ring is worse than none. */
	for (off = 0; off < bytes; off += 4) {
		size_t run;

		if (!sim_ggtt_resolve(gpu, (uint64_t)e->start + (e->tail + off) % size, 4, &run)) {
			ret = -EFAULT;
			goto out;
		}
	}
	off = e->tail;
	for (unsigned int done = 0; done < ndw;) {
		unsigned int chunk = (size - off) / 4;

		if (chunk > ndw - done)
			chunk = ndw - done;
		sim_ggtt_write(gpu, (uint64_t)e->start + off, dw + done, chunk * 4, &fault);
		done += chunk;
		off = (off + chunk * 4) % size;
	}
	if (ndw & 1) {
		sim_ggtt_write(gpu, (uint64_t)e->start + off, &pad, 4, &fault);
		off = (off + 4) % size;
	}
	e->tail = off;
	engine_doorbell_locked(e);
out:
	pthread_mutex_unlock(&gpu->lock);
	return ret;
}

bool sim_engine_is_stopped(struct sim_gpu *gpu, enum sim_engine_id id)
{
	struct sim_engine *e = engine_get(gpu, id);
	bool ret;

	if (!e)
		return false;
	pthread_mutex_lock(&gpu->lock);
	ret = e->stopped;
	pthread_mutex_unlock(&gpu->lock);
	return ret;
}

bool sim_engine_is_idle(struct sim_gpu *gpu, enum sim_engine_id id)
{
	struct sim_engine *e = engine_get(gpu, id);
	bool ret;

	if (!e)
		return false;
	pthread_mutex_lock(&gpu->lock);
	ret = !e->executing && (e->stopped || e->head == e->tail || !(e->ctl & SIM_RING_VALID));
	pthread_mutex_unlock(&gpu->lock);
	return ret;
}

/* Idle and with every interrupt of the engine handed to the handler. */
static bool engine_settled_locked(const struct sim_engine *e)
{
	return !e->executing && (e->stopped || e->head == e->tail || !(e->ctl & SIM_RING_VALID)) &&
	       !e->iir && !e->err_pending && !e->irq_busy;
}

int sim_engine_wait_idle(struct sim_gpu *gpu, enum sim_engine_id id, unsigned int timeout_ms)
{
	struct sim_engine *e = engine_get(gpu, id);
	struct timespec ts;
	uint64_t deadline;
	int ret = 0;

	if (!e || gpu->cfg.synchronous)
		return -EINVAL;
	deadline = testlib_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	ts.tv_sec = (time_t)(deadline / 1000000000ull);
	ts.tv_nsec = (long)(deadline % 1000000000ull);
	pthread_mutex_lock(&gpu->lock);
	while (!engine_settled_locked(e) && !ret)
		ret = -pthread_cond_timedwait(&gpu->idle, &gpu->lock, &ts);
	if (engine_settled_locked(e))
		ret = e->stopped ? -EIO : 0;
	pthread_mutex_unlock(&gpu->lock);
	return ret;
}

int sim_engine_run_until_idle(struct sim_gpu *gpu, enum sim_engine_id id)
{
	struct sim_engine *e = engine_get(gpu, id);
	int ret;

	if (!e || !gpu->cfg.synchronous)
		return -EINVAL;
	pthread_mutex_lock(&gpu->lock);
	if (!e->executing) /* Another caller already runs this engine: just report. */
		engine_run_locked(e);
	deliver_locked(e);
	ret = e->stopped ? -EIO : 0;
	pthread_mutex_unlock(&gpu->lock);
	return ret;
}

int sim_engine_reset(struct sim_gpu *gpu, enum sim_engine_id id, uint32_t head)
{
	struct sim_engine *e = engine_get(gpu, id);
	int ret = 0;

	if (!e)
		return -EINVAL;
	pthread_mutex_lock(&gpu->lock);
	if (head != SIM_RESET_TO_TAIL && ((head & 3) || head >= sim_ring_size(e))) {
		pthread_mutex_unlock(&gpu->lock);
		return -EINVAL;
	}
	atomic_store(&e->reset_req, true);
	/* The parser polls reset_req in every wait and every few hundred commands. */
	while (e->executing || (!gpu->cfg.synchronous && (e->err_pending || e->irq_busy)))
		pthread_cond_wait(&gpu->idle, &gpu->lock);
	e->head = head == SIM_RESET_TO_TAIL ? e->tail : head;
	e->stopped = false;
	atomic_store(&e->reset_req, false);
	engine_doorbell_locked(e);
	pthread_cond_broadcast(&gpu->idle);
	pthread_mutex_unlock(&gpu->lock);
	return ret;
}

void sim_set_irq_handler(struct sim_gpu *gpu, sim_irq_handler_t fn, void *data)
{
	pthread_mutex_lock(&gpu->lock);
	gpu->irq_fn = fn;
	gpu->irq_data = data;
	pthread_mutex_unlock(&gpu->lock);
}

void sim_set_error_handler(struct sim_gpu *gpu, sim_error_handler_t fn, void *data)
{
	pthread_mutex_lock(&gpu->lock);
	gpu->err_fn = fn;
	gpu->err_data = data;
	pthread_mutex_unlock(&gpu->lock);
}

/* ---- error states -------------------------------------------------------- */

int sim_error_state_get(struct sim_gpu *gpu, enum sim_engine_id id, struct sim_error_state *out)
{
	struct sim_engine *e = engine_get(gpu, id);
	int ret = -ENOENT;

	if (!e)
		return -EINVAL;
	pthread_mutex_lock(&gpu->lock);
	if (e->has_error) {
		*out = e->error;
		ret = 0;
	}
	pthread_mutex_unlock(&gpu->lock);
	return ret;
}

void sim_error_state_clear(struct sim_gpu *gpu, enum sim_engine_id id)
{
	struct sim_engine *e = engine_get(gpu, id);

	if (!e)
		return;
	pthread_mutex_lock(&gpu->lock);
	e->has_error = false;
	pthread_mutex_unlock(&gpu->lock);
}

const char *sim_error_reason_name(enum sim_error_reason reason)
{
	switch (reason) {
	case SIM_ERR_NONE:
		return "none";
	case SIM_ERR_UNKNOWN_CMD:
		return "unknown command";
	case SIM_ERR_BAD_LENGTH:
		return "bad length";
	case SIM_ERR_BAD_CMD:
		return "bad command";
	case SIM_ERR_WRONG_ENGINE:
		return "wrong engine";
	case SIM_ERR_PAGE_FAULT:
		return "page fault";
	case SIM_ERR_HANG:
		return "hang";
	}
	return "?";
}

void sim_error_state_dump(struct sim_gpu *gpu, FILE *out)
{
	for (int i = 0; i < SIM_NUM_ENGINES; i++) {
		struct sim_error_state es;
		enum sim_engine_id id = (enum sim_engine_id)i;

		if (!sim_engine_present(gpu, id))
			continue;
		if (sim_error_state_get(gpu, id, &es)) {
			fprintf(out, "%s: no error\n", sim_engine_name(id));
			continue;
		}
		fprintf(out, "%s: error #%lu: %s\n", sim_engine_name(id), es.count,
			sim_error_reason_name(es.reason));
		fprintf(out, "  head 0x%08x acthd 0x%016" PRIx64 " ctx 0x%08x depth %u\n", es.head,
			es.acthd, es.ctx_id, es.batch_depth);
		fprintf(out, "  cmd 0x%08x 0x%08x 0x%08x 0x%08x\n", es.cmd[0], es.cmd[1], es.cmd[2],
			es.cmd[3]);
		if (es.reason == SIM_ERR_PAGE_FAULT)
			fprintf(out, "  fault addr 0x%016" PRIx64 "%s\n", es.fault_addr,
				es.fault_ppgtt ? " (ppGTT)" : "");
		if (es.detail[0])
			fprintf(out, "  detail: %s\n", es.detail);
	}
}

uint64_t sim_engine_cmd_count(struct sim_gpu *gpu, enum sim_engine_id id)
{
	struct sim_engine *e = engine_get(gpu, id);

	return e ? atomic_load(&e->cmd_count) : 0;
}

uint64_t sim_engine_batch_count(struct sim_gpu *gpu, enum sim_engine_id id)
{
	struct sim_engine *e = engine_get(gpu, id);

	return e ? atomic_load(&e->batch_count) : 0;
}
