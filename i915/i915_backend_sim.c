// SPDX-License-Identifier: MIT
/*
 * The simulated-GPU back end: a thin translation of i915_backend_ops onto
 * sim_gpu.h, the one file of the driver that includes a sim header. It adds
 * no state of its own beyond the callback cookie, so the driver sees exactly
 * the device's behaviour. Also the sim's public constructor,
 * i915_device_create_sim() (i915_drv.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <i915/i915_drv.h>
#include <i915/i915_faults.h>
#include <sim_gpu.h>
#include <ttm/list.h>

#include "i915_backend.h"

struct i915_backend_sim {
	struct i915_backend base;
	struct sim_gpu *gpu;
	struct i915_backend_callbacks cb;
	struct i915_device *cb_data;
};

static struct i915_backend_sim *to_sim(struct i915_backend *be)
{
	return container_of(be, struct i915_backend_sim, base);
}

_Static_assert((int)I915_NUM_ENGINES == (int)SIM_NUM_ENGINES &&
		   (int)I915_ENGINE_CCS3 == (int)SIM_CCS3,
	       "the driver's engine ids are the sim's");
_Static_assert(I915_IRQ_USER == SIM_IRQ_USER && I915_IRQ_CS_ERROR == SIM_IRQ_CS_ERROR,
	       "the driver's interrupt bits are the sim's");
_Static_assert(I915_BACKEND_RESET_TO_TAIL == SIM_RESET_TO_TAIL, "the reset-to-tail head");
_Static_assert(I915_RING_MAX_SIZE >= SIM_RING_MAX_SIZE, "a sim ring fits the driver's bound");

/* The ids are the same physical engines in the same order. */
static enum sim_engine_id sim_engine(enum i915_engine_id id)
{
	return (enum sim_engine_id)id;
}

static void sim_be_irq(void *data, enum sim_engine_id engine, uint32_t iir)
{
	struct i915_backend_sim *s = data;

	s->cb.irq(s->cb_data, (enum i915_engine_id)engine, iir);
}

static void sim_be_error(void *data, enum sim_engine_id engine, enum sim_error_reason reason,
			 uint32_t ctx_id)
{
	struct i915_backend_sim *s = data;

	s->cb.error(s->cb_data, (enum i915_engine_id)engine, (int)reason, ctx_id);
}

static void sim_be_destroy(struct i915_backend *be)
{
	struct i915_backend_sim *s = to_sim(be);

	sim_gpu_destroy(s->gpu);
	free(s);
}

static uint64_t sim_be_pte_encode(struct i915_backend *be, enum i915_pte_kind kind, uint64_t addr)
{
	(void)be;
	switch (kind) {
	case I915_PTE_STOLEN:
		return sim_pte_stolen(addr);
	case I915_PTE_LMEM:
		return sim_pte_lmem(addr);
	case I915_PTE_HOST:
	default:
		return sim_pte_host((const void *)(uintptr_t)addr);
	}
}

static int sim_be_ggtt_insert(struct i915_backend *be, uint64_t first, const uint64_t *ptes,
			      uint64_t count)
{
	return sim_ggtt_insert(to_sim(be)->gpu, first, ptes, count);
}

static int sim_be_ggtt_clear(struct i915_backend *be, uint64_t first, uint64_t count)
{
	return sim_ggtt_clear(to_sim(be)->gpu, first, count);
}

static uint64_t sim_be_ggtt_read_pte(struct i915_backend *be, uint64_t index)
{
	return sim_ggtt_read_pte(to_sim(be)->gpu, index);
}

static int sim_be_engine_setup(struct i915_backend *be, enum i915_engine_id engine, uint32_t ring,
			       uint32_t size, uint32_t hws)
{
	struct sim_gpu *gpu = to_sim(be)->gpu;
	int ret;

	ret = sim_engine_set_hws(gpu, sim_engine(engine), hws);
	if (ret)
		return ret;
	return sim_engine_set_ring(gpu, sim_engine(engine), ring, size);
}

static int sim_be_engine_submit(struct i915_backend *be, enum i915_engine_id engine,
				const uint32_t *dw, unsigned int ndw)
{
	return sim_engine_submit(to_sim(be)->gpu, sim_engine(engine), dw, ndw);
}

static uint32_t sim_be_engine_read_hws(struct i915_backend *be, enum i915_engine_id engine,
				       uint32_t index)
{
	return sim_engine_read_hws(to_sim(be)->gpu, sim_engine(engine), index);
}

static uint64_t sim_be_engine_timestamp(struct i915_backend *be, enum i915_engine_id engine)
{
	return sim_engine_timestamp(to_sim(be)->gpu, sim_engine(engine));
}

static bool sim_be_engine_is_stopped(struct i915_backend *be, enum i915_engine_id engine)
{
	return sim_engine_is_stopped(to_sim(be)->gpu, sim_engine(engine));
}

static int sim_be_engine_reset(struct i915_backend *be, enum i915_engine_id engine, uint32_t head)
{
	return sim_engine_reset(to_sim(be)->gpu, sim_engine(engine), head);
}

static int sim_be_engine_run(struct i915_backend *be, enum i915_engine_id engine)
{
	return sim_engine_run_until_idle(to_sim(be)->gpu, sim_engine(engine));
}

static bool sim_be_is_synchronous(struct i915_backend *be)
{
	return sim_gpu_get_config(to_sim(be)->gpu)->synchronous;
}

static void sim_be_error_state_dump(struct i915_backend *be, FILE *out)
{
	sim_error_state_dump(to_sim(be)->gpu, out);
}

static void *sim_be_lmem_cpu_ptr(struct i915_backend *be, uint64_t offset)
{
	return sim_lmem_cpu_ptr(to_sim(be)->gpu, offset);
}

static int sim_be_vm_create(struct i915_backend *be, uint64_t *handle)
{
	return sim_vm_create(to_sim(be)->gpu, handle);
}

static void sim_be_vm_destroy(struct i915_backend *be, uint64_t handle)
{
	sim_vm_destroy(to_sim(be)->gpu, handle);
}

static int sim_be_vm_insert(struct i915_backend *be, uint64_t handle, uint64_t first,
			    const uint64_t *ptes, uint64_t count)
{
	return sim_vm_insert(to_sim(be)->gpu, handle, first, ptes, count);
}

static int sim_be_vm_clear(struct i915_backend *be, uint64_t handle, uint64_t first, uint64_t count)
{
	return sim_vm_clear(to_sim(be)->gpu, handle, first, count);
}

static uint64_t sim_be_vm_read_pte(struct i915_backend *be, uint64_t handle, uint64_t index)
{
	return sim_vm_read_pte(to_sim(be)->gpu, handle, index);
}

/*
 * Memory of raw requests: host pages the GPU reaches through the context's
 * ppGTT, bound by @request_submit at the address it names. One binding is
 * remembered (the last VM and address); binding elsewhere drops it first,
 * as a softpin to a new address unbinds the old one.
 */
struct sim_mem {
	struct i915_mem base;
	pthread_mutex_t lock;
	uint64_t vm;	/* the VM handle of the binding; 0: unbound */
	uint64_t first; /* its first page */
};

static int sim_be_mem_create(struct i915_backend *be, uint64_t size, struct i915_mem **out)
{
	struct sim_mem *m;

	(void)be;
	m = fault_should_fail(&i915_fault_mem_alloc, sizeof(*m)) ? NULL : calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->base.cpu = fault_should_fail(&i915_fault_mem_alloc, size)
			  ? NULL
			  : aligned_alloc(TTM_PAGE_SIZE, size);
	if (!m->base.cpu) {
		free(m);
		return -ENOMEM;
	}
	memset(m->base.cpu, 0, size);
	m->base.size = size;
	pthread_mutex_init(&m->lock, NULL);
	*out = &m->base;
	return 0;
}

static void sim_be_mem_destroy(struct i915_backend *be, struct i915_mem *mem)
{
	struct i915_backend_sim *s = to_sim(be);
	struct sim_mem *m = container_of(mem, struct sim_mem, base);

	/* Which requests used it is not tracked: every engine's are waited for. */
	for (int id = 0; id < I915_NUM_ENGINES; id++) {
		struct i915_engine *engine = i915_engine_get(s->cb_data, id);

		if (engine)
			i915_engine_wait_idle(engine, UINT32_MAX / 2);
	}
	/* A VM already destroyed took the binding with it (-ENOENT). */
	if (m->vm)
		sim_vm_clear(s->gpu, m->vm, m->first, mem->size >> TTM_PAGE_SHIFT);
	pthread_mutex_destroy(&m->lock);
	free(mem->cpu);
	free(m);
}

/* Bind @m at page @first of VM @vm unless it is there already. */
static int sim_mem_bind(struct i915_backend_sim *s, struct sim_mem *m, uint64_t vm, uint64_t first)
{
	uint64_t ptes[64], pages = m->base.size >> TTM_PAGE_SHIFT;
	int ret = 0;

	pthread_mutex_lock(&m->lock);
	if (m->vm == vm && m->first == first)
		goto out;
	if (m->vm)
		sim_vm_clear(s->gpu, m->vm, m->first, pages);
	m->vm = 0;
	for (uint64_t done = 0; done < pages && !ret;) {
		uint64_t n = pages - done < 64 ? pages - done : 64;

		for (uint64_t i = 0; i < n; i++)
			ptes[i] = sim_pte_host((char *)m->base.cpu + (done + i) * TTM_PAGE_SIZE);
		ret = sim_vm_insert(s->gpu, vm, first + done, ptes, n);
		done += n;
	}
	if (ret) {
		sim_vm_clear(s->gpu, vm, first, pages);
		goto out;
	}
	m->vm = vm;
	m->first = first;
out:
	pthread_mutex_unlock(&m->lock);
	return ret;
}

static int sim_be_request_submit(struct i915_backend *be, enum i915_engine_id engine,
				 const struct i915_request_args *args, struct dma_fence **out)
{
	struct i915_backend_sim *s = to_sim(be);
	struct i915_address_space *vm = i915_context_get_vm(args->ctx);
	int ret = 0;

	if (!vm)
		return -EINVAL;
	for (unsigned int i = 0; i < args->nobjects && !ret; i++) {
		const struct i915_request_object *o = &args->objects[i];

		ret = sim_mem_bind(s, container_of(o->mem, struct sim_mem, base), vm->handle,
				   o->gpu_addr >> TTM_PAGE_SHIFT);
	}
	i915_vm_put(vm);
	if (ret)
		return ret;
	return i915_ring_request_submit(s->cb_data, engine, args, out);
}

static void sim_be_describe(struct i915_backend *be,
			    void (*emit)(void *data, const char *key, const char *value),
			    void *data)
{
	const struct sim_gpu_config *cfg = sim_gpu_get_config(to_sim(be)->gpu);
	char v[32];

	snprintf(v, sizeof(v), "%u", cfg->gen);
	emit(data, "gen", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)cfg->ggtt_size);
	emit(data, "ggtt_bytes", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)cfg->lmem_size);
	emit(data, "lmem_bytes", v);
	emit(data, "latency_model",
	     cfg->latency.cmd_ns || cfg->latency.byte_ps || cfg->latency.batch_ns ? "on" : "off");
	emit(data, "synchronous", cfg->synchronous ? "yes" : "no");
}

static const struct i915_backend_ops i915_backend_sim_ops = {
    .name = "sim",
    .destroy = sim_be_destroy,
    .request_submit = sim_be_request_submit,
    .mem_create = sim_be_mem_create,
    .mem_destroy = sim_be_mem_destroy,
    .describe = sim_be_describe,
    .pte_encode = sim_be_pte_encode,
    .ggtt_insert = sim_be_ggtt_insert,
    .ggtt_clear = sim_be_ggtt_clear,
    .ggtt_read_pte = sim_be_ggtt_read_pte,
    .engine_setup = sim_be_engine_setup,
    .engine_submit = sim_be_engine_submit,
    .engine_read_hws = sim_be_engine_read_hws,
    .engine_timestamp = sim_be_engine_timestamp,
    .engine_is_stopped = sim_be_engine_is_stopped,
    .engine_reset = sim_be_engine_reset,
    .engine_run = sim_be_engine_run,
    .is_synchronous = sim_be_is_synchronous,
    .error_state_dump = sim_be_error_state_dump,
    .lmem_cpu_ptr = sim_be_lmem_cpu_ptr,
    .vm_create = sim_be_vm_create,
    .vm_destroy = sim_be_vm_destroy,
    .vm_insert = sim_be_vm_insert,
    .vm_clear = sim_be_vm_clear,
    .vm_read_pte = sim_be_vm_read_pte,
};

/* i915_backend_create_fn of the sim: @cfg_arg is a struct sim_gpu_config. */
static int i915_backend_sim_create(const void *cfg_arg, const struct i915_backend_callbacks *cb,
				   void *data, struct i915_backend **out)
{
	const struct sim_gpu_config *cfg = cfg_arg;
	struct i915_backend_sim *s;
	int ret;

	if (!cfg || !cb || !cb->irq || !cb->error || !out)
		return -EINVAL;
	s = fault_should_fail(&i915_fault_device_alloc, sizeof(*s)) ? NULL : calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	ret = sim_gpu_create(cfg, &s->gpu);
	if (ret) {
		free(s);
		return ret;
	}
	s->base.ops = &i915_backend_sim_ops;
	s->base.ggtt_size = cfg->ggtt_size;
	s->base.aperture_size = cfg->aperture_size;
	s->base.stolen_size = cfg->stolen_size;
	s->base.lmem_size = cfg->lmem_size;
	s->base.lmem_visible_size = cfg->lmem_visible_size;
	for (int i = 0; i < I915_NUM_ENGINES; i++)
		s->base.ring_size[i] = cfg->ring_size[i];
	s->base.engine_mask = cfg->engine_mask;
	s->base.hangcheck_ms = cfg->hangcheck_ms;
	s->base.cs_timestamp_hz = SIM_CS_TIMESTAMP_HZ;
	s->base.ring_max_size = SIM_RING_MAX_SIZE;
	/* The simulated GPU reads and writes memory, never the CPU's caches. */
	s->base.gpu_snoops = false;
	s->cb = *cb;
	s->cb_data = data;
	/* Engines are idle right after creation, as the handler setters require. */
	sim_set_irq_handler(s->gpu, sim_be_irq, s);
	sim_set_error_handler(s->gpu, sim_be_error, s);
	*out = &s->base;
	return 0;
}

int i915_device_create_sim(const struct sim_gpu_config *cfg, struct i915_device **out)
{
	return i915_device_probe(i915_backend_sim_create, cfg, out);
}

struct sim_gpu *i915_device_sim(struct i915_device *i915)
{
	struct i915_backend *be = i915 ? i915->be : NULL;

	return be && be->ops == &i915_backend_sim_ops ? to_sim(be)->gpu : NULL;
}

void i915_sim_config_defaults(struct i915_device_config *cfg)
{
	struct sim_gpu_config sim;

	sim_gpu_config_init(&sim);
	cfg->ggtt_size = sim.ggtt_size;
	cfg->aperture_size = sim.aperture_size;
	cfg->stolen_size = sim.stolen_size;
	cfg->lmem_size = sim.lmem_size;
	cfg->lmem_visible_size = sim.lmem_visible_size;
	cfg->hangcheck_ms = sim.hangcheck_ms;
	cfg->synchronous = sim.synchronous;
}

int i915_device_create_sim_config(const struct i915_device_config *cfg, struct i915_device **out)
{
	struct sim_gpu_config sim;

	sim_gpu_config_init(&sim);
	sim.ggtt_size = cfg->ggtt_size;
	sim.aperture_size = cfg->aperture_size;
	sim.stolen_size = cfg->stolen_size;
	sim.lmem_size = cfg->lmem_size;
	sim.lmem_visible_size = cfg->lmem_visible_size;
	sim.hangcheck_ms = cfg->hangcheck_ms;
	sim.synchronous = cfg->synchronous;
	return i915_device_create_sim(&sim, out);
}
