/* SPDX-License-Identifier: MIT */
/*
 * sim_priv.h - the simulator's internal state, shared by sim_device.c (device,
 * GGTT, registers, threads) and sim_cs.c (the command parser).
 *
 * Lock order: there is one lock, sim_gpu.lock. The command parser runs
 * without it and takes it only to publish progress (HEAD, errors,
 * interrupts); handlers are called without it.
 */
#ifndef SIM_PRIV_H
#define SIM_PRIV_H

#include <pthread.h>
#include <stdatomic.h>

#include <testlib/clock.h>

#include "sim_gpu.h"

/**
 * struct sim_fault - an error found by the parser, before it is published
 * as the engine's error state.
 * @reason: why the engine stops.
 * @acthd: GGTT address of the offending command.
 * @cmd: its first dwords.
 * @fault_addr: faulting address for SIM_ERR_PAGE_FAULT.
 * @ppgtt: @fault_addr is a ppGTT address.
 * @depth: batch nesting at the time.
 * @detail: human-readable text.
 */
struct sim_fault {
	enum sim_error_reason reason;
	uint64_t acthd;
	uint32_t cmd[SIM_ERROR_CMD_DWORDS];
	uint64_t fault_addr;
	bool ppgtt;
	unsigned int depth;
	char detail[96];
};

/**
 * struct sim_engine - one command streamer.
 * @gpu: the device.
 * @id: which engine.
 * @base: MMIO base.
 * @thread: the streamer thread (threaded mode).
 * @thread_started: @thread must be joined.
 * @wake: signalled on a TAIL write, a reset and at destroy.
 *
 * Fields under "Protected by gpu->lock" are the registers and the run state.
 * @executing is true while the parser works on a ring command without the
 * lock; START/CTL/HEAD writes are refused then. The atomics are written by
 * the parser and read lock-free by register reads.
 */
struct sim_engine {
	struct sim_gpu *gpu;
	enum sim_engine_id id;
	uint32_t base;
	pthread_t thread;
	bool thread_started;
	pthread_cond_t wake;

	/* Protected by gpu->lock. */
	uint32_t start;
	uint32_t ctl;
	uint32_t head;
	uint32_t tail;
	uint32_t hws;
	bool hws_valid;
	uint32_t imr;
	bool executing;
	bool stopped;
	uint32_t iir;
	bool err_pending;
	enum sim_error_reason err_reason;
	uint32_t err_ctx;
	bool irq_busy;
	bool sleeping; /* the engine thread waits on @wake */
	bool has_error;
	struct sim_error_state error;
	unsigned long error_count;

	/* Owned by whoever has @executing set. */
	uint64_t lat_debt_ns;

	/* Lock-free: written by the parser (or a register write). */
	atomic_uint ccid;
	_Atomic uint64_t pdp; /* RING_PDP0: the VM handle, 0 for none */
	_Atomic uint64_t gpr[SIM_RING_NUM_GPRS];
	_Atomic uint64_t acthd;
	atomic_bool reset_req;
	atomic_uint doorbell; /* bumped at every tail write, under gpu->lock */
	_Atomic uint64_t cmd_count;
	_Atomic uint64_t batch_count;
};

/**
 * struct sim_gpu - the device.
 * @cfg: the configuration, immutable after create.
 * @ptes: the GGTT; read and written with __atomic builtins because the
 *	parser reads entries while the driver rewrites others.
 * @nr_ptes: entries in @ptes.
 * @stolen: stolen memory.
 * @lmem: device-local memory.
 * @lock: see the file comment.
 * @idle: broadcast whenever an engine's run or interrupt state changes.
 * @irq_wake: wakes the interrupt thread.
 * @irq_thread: the interrupt thread (threaded mode).
 * @irq_started: @irq_thread must be joined.
 * @irq_running: a handler runs (threaded mode): handlers never run concurrently.
 * @quit: destroy in progress; every thread leaves.
 * @irq_fn: interrupt handler, @irq_data its cookie.
 * @err_fn: error handler, @err_data its cookie.
 * @vms: the ppGTTs by slot (handle >> 12) - 1, NULL for a free slot;
 *	@nr_vms slots. Protected by @lock (the table, not the VMs' entries).
 * @engine: the engines.
 */
struct sim_gpu {
	struct sim_gpu_config cfg;
	uint64_t *ptes;
	uint64_t nr_ptes;
	uint8_t *stolen;
	uint8_t *lmem;
	pthread_mutex_t lock;
	pthread_cond_t idle;
	pthread_cond_t irq_wake;
	pthread_t irq_thread;
	bool irq_started;
	bool irq_running;
	atomic_bool quit;
	sim_irq_handler_t irq_fn;
	void *irq_data;
	sim_error_handler_t err_fn;
	void *err_data;
	struct sim_vm **vms;
	unsigned int nr_vms;
	struct sim_engine engine[SIM_NUM_ENGINES];
};

static inline uint32_t sim_ring_size(const struct sim_engine *e)
{
	return (e->ctl & SIM_RING_NR_PAGES) + SIM_PAGE_SIZE;
}

/* RING_TIMESTAMP now: testlib_now_ns() in SIM_CS_TIMESTAMP_HZ ticks (12/625). */
_Static_assert(SIM_CS_TIMESTAMP_HZ == 19200000u, "sim_cs_timestamp() assumes 12 ticks per 625 ns");
static inline uint64_t sim_cs_timestamp(void)
{
	uint64_t ns = testlib_now_ns();

	/* Split so that the product cannot overflow in any uptime. */
	return ns / 625 * 12 + ns % 625 * 12 / 625;
}

/*
 * sim_ggtt_resolve - host pointer for GGTT @addr and the number of bytes
 * (at most @want) readable from it contiguously, merging neighbouring pages
 * whose backing is contiguous too. NULL on a GPU page fault.
 */
void *sim_ggtt_resolve(struct sim_gpu *gpu, uint64_t addr, size_t want, size_t *run);
/* Copy between GGTT and a host buffer; 0 or -EFAULT with *@fault set. */
int sim_ggtt_read(struct sim_gpu *gpu, uint64_t addr, void *dst, size_t len, uint64_t *fault);
int sim_ggtt_write(struct sim_gpu *gpu, uint64_t addr, const void *src, size_t len,
		   uint64_t *fault);

/* Raise @bits on @e (masked by IMR) and wake the interrupt thread. gpu->lock held. */
void sim_engine_raise_locked(struct sim_engine *e, uint32_t bits);

/*
 * Latch @bits on @e (masked by IMR) without waking the interrupt thread: a
 * ring-level command raising an interrupt on the engine thread. The engine
 * thread hands the bits over when that command is done (engine_run_locked()).
 * gpu->lock held.
 */
void sim_engine_latch_locked(struct sim_engine *e, uint32_t bits);

/*
 * sim_cs_exec - execute the ring command at ring offset @head (and the batch
 * it starts). Called without gpu->lock. Returns 0 with *@new_head set, 1
 * with @f filled when the engine must stop, or -ECANCELED when a reset or
 * destroy abandoned the command.
 */
int sim_cs_exec(struct sim_engine *e, uint32_t head, uint32_t tail, uint32_t *new_head,
		struct sim_fault *f);

/**
 * struct sim_vm - one ppGTT (sim_vm.c).
 * @handle: its handle, (slot + 1) << 12.
 * @refs: the device's table holds one; an engine executing in it one more.
 * @lock: serialises writers (directory allocation); readers walk lock-free.
 * @pml4: the top-level table; directory entries hold host addresses.
 * @tables: directory and leaf tables allocated below @pml4.
 */
struct sim_vm {
	uint64_t handle;
	atomic_int refs;
	pthread_mutex_t lock;
	uint64_t *pml4;
	atomic_ulong tables;
};

/* Host pointer of the page a (GGTT-format) PTE maps, NULL when it faults. */
uint8_t *sim_pte_ptr(struct sim_gpu *gpu, uint64_t pte);
/* The VM of @handle with a reference, NULL when there is none. */
struct sim_vm *sim_vm_lookup(struct sim_gpu *gpu, uint64_t handle);
void sim_vm_put(struct sim_vm *vm);
/* As sim_ggtt_resolve(), for address @addr (below SIM_VM_SIZE) of @vm. */
void *sim_vm_resolve(struct sim_gpu *gpu, struct sim_vm *vm, uint64_t addr, size_t want,
		     size_t *run);
/* Set the low (@hi false) or high dword of @e's RING_PDP0; any thread. */
static inline void sim_engine_set_pdp(struct sim_engine *e, bool hi, uint32_t value)
{
	uint64_t old = atomic_load(&e->pdp), val;

	do {
		val = hi ? (old & 0xffffffffull) | ((uint64_t)value << 32)
			 : (old & ~0xffffffffull) | value;
	} while (!atomic_compare_exchange_weak(&e->pdp, &old, val));
}

/* Drop every VM at device destruction. */
void sim_vm_destroy_all(struct sim_gpu *gpu);

#endif /* SIM_PRIV_H */
