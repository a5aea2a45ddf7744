/* SPDX-License-Identifier: MIT */
/*
 * sim_gpu - the hardware interface of a simulated gen8+ Intel GPU.
 *
 * The driver programs this device the way a kernel driver programs an Intel
 * part: it writes GGTT page-table entries, ring registers (START, CTL, HEAD,
 * TAIL, HWS_PGA) and reads back heads and status-page seqnos; it gets
 * interrupts on a callback. The device has no knowledge of TTM.
 *
 * Memory model
 * ------------
 * Every GPU access goes through the GGTT, a table of 64-bit gen8-style PTEs,
 * one per 4 KiB page of a ggtt_size address space:
 *   bit 0        SIM_PTE_PRESENT: the entry is valid;
 *   bit 1        SIM_PTE_LM: the page is device-local memory (gen12 PTE_LM);
 *   bit 11       SIM_PTE_STOLEN: the page is stolen memory (sim-only bit);
 *   bits 12..56  SIM_PTE_ADDR_MASK: the page address.
 * With neither LM nor STOLEN the address is the host virtual address of a
 * 4 KiB-aligned page of this process ("system RAM"); the driver must keep
 * that page alive while the PTE points at it (a DMA to freed memory is a
 * driver bug, as on real hardware). With LM or STOLEN it is a byte offset
 * into the sim's own lmem or stolen array and must lie inside it. An access
 * through a non-present entry, an out-of-range LM/stolen offset, a host
 * address of 0, or beyond ggtt_size is a GPU page fault: the engine stops
 * and records an error state. It never touches host memory it was not given.
 *
 * Stolen memory (stolen_size) is not CPU-visible except through the
 * aperture: the low aperture_size bytes of the GGTT, reached by
 * sim_aperture_read()/sim_aperture_write() (which resolve the PTEs exactly as
 * the GPU does). Device-local memory (lmem_size, gen12 discrete model) is
 * CPU-visible only in its first lmem_visible_size bytes (the small BAR):
 * sim_lmem_cpu_ptr().
 *
 * Per-process GTTs (ppGTT)
 * ------------------------
 * Besides the GGTT the device has any number of 48-bit virtual address
 * spaces ("VMs"), each a 4-level page table (512 entries per level, 4 KiB
 * pages, leaf entries in the GGTT PTE format) created with sim_vm_create()
 * and written with sim_vm_insert()/sim_vm_clear(). A VM is named by a
 * handle, a non-zero page-aligned value standing where hardware keeps the
 * PML4's address; an engine runs in the VM whose handle its RING_PDP0
 * register pair holds (0: none), which the driver loads with
 * MI_LOAD_REGISTER_IMM at the start of each request, as gen8 ring-buffer
 * mode loads the context's PDPs. An address is a ppGTT address when the
 * command says so: MI_BATCH_BUFFER_START with MI_BATCH_PPGTT (the batch and
 * the commands in it are fetched through the VM), MI_STORE_DWORD_IMM,
 * MI_STORE_REGISTER_MEM and MI_LOAD_REGISTER_MEM without their use-GGTT
 * bit, MI_FLUSH_DW without MI_FLUSH_DW_USE_GTT, PIPE_CONTROL without
 * PIPE_CONTROL_GLOBAL_GTT_IVB, MI_SEMAPHORE_WAIT without
 * MI_SEMAPHORE_GLOBAL_GTT; blits address the space of the batch they are
 * in (the GGTT in the ring). A ppGTT access while RING_PDP0 names no VM is
 * SIM_ERR_BAD_CMD; one through a non-present entry or a bad LM/stolen
 * offset is SIM_ERR_PAGE_FAULT with fault_ppgtt set. Bits 63:48 of a ppGTT
 * address are ignored, so canonical (sign-extended) addresses work.
 * sim_vm_destroy() may be called while an engine still executes in the VM:
 * the tables stay until that ring command ends, later accesses fault.
 *
 * Engines and rings
 * -----------------
 * Each engine of the configuration (enum sim_engine_id: RCS and BCS always,
 * the gen12 video, video-enhance and compute engines per engine_mask) has a
 * ring buffer in GGTT memory, a hardware status page (HWS) and a command
 * streamer. Register offsets are
 * the real ones (SIM_RING_*(base)); RING_CTL's reset value describes a ring
 * of the configured size with RING_VALID set. Writing TAIL (qword aligned,
 * below the ring size) makes the streamer fetch from HEAD to TAIL; in the
 * threaded mode the streamer thread sleeps on a condition variable while the
 * ring is empty and wakes on the tail write. The streamer executes:
 * MI_NOOP, MI_ARB_CHECK, MI_USER_INTERRUPT, MI_BATCH_BUFFER_START (gen8, GGTT
 * or ppGTT; first level chains, SECOND_LEVEL calls one level deep),
 * MI_BATCH_BUFFER_END, MI_STORE_DWORD_IMM / QWORD, MI_STORE_DWORD_INDEX,
 * MI_LOAD_REGISTER_IMM, MI_LOAD_REGISTER_MEM and MI_STORE_REGISTER_MEM of
 * the modelled registers (the engine's CCID context tag, its RING_PDP0 pair
 * (LRI only) and its 16 64-bit GPRs; SRM also of the
 * read-only RING_TIMESTAMP, see below), MI_SEMAPHORE_WAIT
 * (polling, all six compare ops), MI_FLUSH_DW (BCS only) with dword/qword
 * post-sync, PIPE_CONTROL (RCS only) with a qword post-sync write, and on BCS
 * XY_COLOR_BLT, XY_SRC_COPY_BLT (8/16/32 bpp, linear) and XY_FAST_COPY_BLT
 * (linear). Any other command, a wrong length, a blit with bad geometry, a
 * command on the wrong engine or a page fault stops the engine with an error
 * state (sim_error_state_get(), sim_error_state_dump()).
 *
 * Memory the GPU polls (semaphores) or stores seqnos to is accessed with
 * atomic loads/stores; CPU code sharing it with a running engine should use
 * atomics too. In the synchronous mode a semaphore is polled on the caller's
 * thread, so only another thread (or hangcheck) can end the wait.
 *
 * Hangcheck: a semaphore wait unsatisfied for hangcheck_ms, or one batch
 * running longer than hangcheck_ms from the ring's MI_BATCH_BUFFER_START
 * or its last MI_ARB_CHECK, stops the engine with reason SIM_ERR_HANG. A
 * batch that keeps passing MI_ARB_CHECK (a preemptible spinner such as
 * igt's) runs until it ends or is reset, as the kernel's heartbeat only
 * preempts it; past 1 ms it sleeps 100 us at each MI_ARB_CHECK. The fault point
 * "gpu_hang" (sim_fault_gpu_hang) makes the batch it fires on hang. After an
 * error the engine stays stopped until sim_engine_reset().
 *
 * Interrupts: an engine that raises one from its ring runs the handler on
 * its own thread between ring commands, as a CPU takes the interrupt, and
 * then goes on with its queued work; otherwise (a batch-level interrupt,
 * another handler running, an error pending) a dedicated interrupt thread
 * delivers it. In the synchronous mode the handler runs on the caller's
 * thread at the end of sim_engine_run_until_idle(). There is one interrupt
 * line: handlers never run concurrently. Interrupt bits raised while the
 * handler runs are OR-ed together and delivered by the next call, as an IIR
 * latches them.
 *
 * Doorbell: an engine thread whose ring ran empty watches for a new tail for
 * cfg.idle_poll_us before it sleeps (see struct sim_gpu_config).
 *
 * Locking: every function may be called from any thread, except that
 * sim_gpu_destroy() must not race with anything, and the configuration calls
 * (sim_set_irq_handler(), sim_set_error_handler()) must be made while the
 * engines are idle. The handlers run without any sim lock held and may call
 * every function except sim_gpu_destroy(), sim_engine_reset() and
 * sim_engine_wait_idle() (those wait for the interrupt thread's progress).
 */
#ifndef SIM_GPU_H
#define SIM_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <fault_inject.h>

#define SIM_PAGE_SIZE 4096u
#define SIM_PAGE_SHIFT 12

/* PTE layout, see the file comment. */
#define SIM_PTE_PRESENT (1ull << 0)
#define SIM_PTE_LM (1ull << 1)
#define SIM_PTE_STOLEN (1ull << 11)
#define SIM_PTE_ADDR_MASK 0x01fffffffffff000ull /* bits 12..56 */

/**
 * enum sim_engine_id - the modelled engines of gen12 parts, by their
 * physical id (the kernel's RCS0, BCS0, VCS0..3, VECS0..1, CCS0..3); a
 * device has the ones of its sim_gpu_config.engine_mask.
 * @SIM_RCS: render, MMIO base 0x2000.
 * @SIM_BCS: blitter (copy), 0x22000.
 * @SIM_VCS0: video decode 0, 0x1c0000; @SIM_VCS1: 0x1c4000; @SIM_VCS2:
 *	0x1d0000; @SIM_VCS3: 0x1d4000.
 * @SIM_VECS0: video enhancement 0, 0x1c8000; @SIM_VECS1: 0x1d8000.
 * @SIM_CCS0: compute 0, 0x1a000; @SIM_CCS1: 0x1c000; @SIM_CCS2: 0x1e000;
 *	@SIM_CCS3: 0x26000.
 * @SIM_NUM_ENGINES: count.
 *
 * What each class executes: every engine the MI_* commands; RCS and CCS
 * PIPE_CONTROL (not MI_FLUSH_DW); BCS, VCS and VECS MI_FLUSH_DW (not
 * PIPE_CONTROL); only BCS the blits.
 */
enum sim_engine_id {
	SIM_RCS = 0,
	SIM_BCS = 1,
	SIM_VCS0,
	SIM_VCS1,
	SIM_VCS2,
	SIM_VCS3,
	SIM_VECS0,
	SIM_VECS1,
	SIM_CCS0,
	SIM_CCS1,
	SIM_CCS2,
	SIM_CCS3,
	SIM_NUM_ENGINES
};

#define SIM_ENGINE_BIT(e) (1u << (e))
/* The default: render and blitter, what the driver needs. */
#define SIM_ENGINES_DEFAULT (SIM_ENGINE_BIT(SIM_RCS) | SIM_ENGINE_BIT(SIM_BCS))
/* Tiger Lake GT2 (i915_pci.c tgl_info): rcs0, bcs0, vcs0, vcs2, vecs0. */
#define SIM_ENGINES_TGL                                                                            \
	(SIM_ENGINES_DEFAULT | SIM_ENGINE_BIT(SIM_VCS0) | SIM_ENGINE_BIT(SIM_VCS2) |               \
	 SIM_ENGINE_BIT(SIM_VECS0))
/* DG2 (dg2_info): TGL's plus vecs1 and ccs0..3. */
#define SIM_ENGINES_DG2                                                                            \
	(SIM_ENGINES_TGL | SIM_ENGINE_BIT(SIM_VECS1) | SIM_ENGINE_BIT(SIM_CCS0) |                  \
	 SIM_ENGINE_BIT(SIM_CCS1) | SIM_ENGINE_BIT(SIM_CCS2) | SIM_ENGINE_BIT(SIM_CCS3))

/**
 * enum sim_engine_class - the kernel's uAPI engine classes
 * (I915_ENGINE_CLASS_*).
 */
enum sim_engine_class {
	SIM_CLASS_RENDER = 0,
	SIM_CLASS_COPY = 1,
	SIM_CLASS_VIDEO = 2,
	SIM_CLASS_VIDEO_ENHANCE = 3,
	SIM_CLASS_COMPUTE = 4,
};

#define SIM_RCS_BASE 0x02000u
#define SIM_BCS_BASE 0x22000u
/* Ring registers relative to an engine's MMIO base. */
#define SIM_RING_TAIL(base) ((base) + 0x30)    /* bits 20:3: tail offset */
#define SIM_RING_HEAD(base) ((base) + 0x34)    /* bits 20:2: head offset */
#define SIM_RING_START(base) ((base) + 0x38)   /* GGTT address, page aligned */
#define SIM_RING_CTL(base) ((base) + 0x3c)     /* size and valid */
#define SIM_RING_ACTHD(base) ((base) + 0x74)   /* RO: GGTT address being executed */
#define SIM_RING_HWS_PGA(base) ((base) + 0x80) /* status page GGTT address */
#define SIM_RING_IMR(base) ((base) + 0xa8)     /* interrupt mask: set bits drop; resets to 0 */
#define SIM_RING_CCID(base) ((base) + 0x180)   /* context tag, see below */
#define SIM_RING_GPR(base, n) ((base) + 0x600 + 8 * (n)) /* 16 x 64-bit, lo then hi */
#define SIM_RING_NUM_GPRS 16
#define SIM_RING_TIMESTAMP(base) ((base) + 0x358)     /* RO: command streamer clock, low */
#define SIM_RING_TIMESTAMP_UDW(base) ((base) + 0x35c) /* RO: its high dword */
#define SIM_RING_PDP0_LDW(base) ((base) + 0x270)      /* ppGTT: low dword of the VM handle */
#define SIM_RING_PDP0_UDW(base) ((base) + 0x274)      /* ppGTT: its high dword */

/*
 * The command streamer timestamp: one 64-bit counter shared by the engines
 * (as they share the crystal clock on hardware), running at
 * SIM_CS_TIMESTAMP_HZ, the 19.2 MHz of gen11+ parts. Batches sample it with
 * MI_STORE_REGISTER_MEM of RING_TIMESTAMP and RING_TIMESTAMP_UDW (one dword
 * each, as on hardware), the CPU with sim_reg_read() or, both dwords from
 * one instant, sim_engine_timestamp(). It counts CLOCK_MONOTONIC, but a
 * driver should correlate it with the CPU clock by sampling both (as
 * DRM_I915_QUERY_CS_CYCLES does) rather than rely on that.
 */
#define SIM_CS_TIMESTAMP_HZ 19200000u

#define SIM_RING_TAIL_MASK 0x1ffff8u
#define SIM_RING_HEAD_MASK 0x1ffffcu
#define SIM_RING_VALID (1u << 0)
#define SIM_RING_NR_PAGES 0x1ff000u
/* RING_CTL value for a ring of @size bytes (4 KiB .. 2 MiB, page multiple). */
#define SIM_RING_CTL_SIZE(size) ((((size)-SIM_PAGE_SIZE) & SIM_RING_NR_PAGES) | SIM_RING_VALID)
#define SIM_RING_MAX_SIZE (2u << 20)

/*
 * The context tag: RING_CCID holds a driver-chosen id of the request being
 * executed (write it with MI_LOAD_REGISTER_IMM at the start of each request,
 * or with sim_reg_write()). Error states and the error handler report it so
 * the driver knows whose request hung.
 */

/* Interrupt status bits passed to the irq handler (per engine). */
#define SIM_IRQ_USER (1u << 0)	   /* MI_USER_INTERRUPT */
#define SIM_IRQ_CS_ERROR (1u << 1) /* the engine stopped on an error / hang */

/**
 * struct sim_latency - optional cost model (all zero: off, the default).
 * @cmd_ns: nanoseconds charged per executed command.
 * @byte_ps: picoseconds charged per byte written or copied by a blit.
 * @batch_ns: nanoseconds charged per batch started from the ring.
 *
 * Charges accumulate and the streamer sleeps once they exceed ~20 us, so
 * the model costs time, not CPU.
 */
struct sim_latency {
	uint32_t cmd_ns;
	uint32_t byte_ps;
	uint32_t batch_ns;
};

#define SIM_HANGCHECK_OFF UINT32_MAX

/**
 * struct sim_gpu_config - device description, see sim_gpu_config_init().
 * @gen: graphics generation 8..12; lmem requires 12.
 * @ggtt_size: GGTT address space in bytes (page multiple, <= 64 GiB).
 * @aperture_size: CPU-mappable low part of the GGTT (<= @ggtt_size).
 * @stolen_size: stolen memory bytes (page multiple, may be 0).
 * @lmem_size: device-local memory bytes (0: integrated part, no lmem).
 * @lmem_visible_size: CPU-visible prefix of lmem (<= @lmem_size).
 * @ring_size: reset value of each engine's RING_CTL size, bytes.
 * @engine_mask: the engines the device has (SIM_ENGINE_BIT() of each; RCS
 *	and BCS are required): SIM_ENGINES_DEFAULT, SIM_ENGINES_TGL, ...
 * @hangcheck_ms: no-progress time before a hang is declared
 *	(SIM_HANGCHECK_OFF disables hangcheck).
 * @latency: the cost model.
 * @synchronous: no threads; engines run in sim_engine_run_until_idle().
 * @idle_poll_us: how long an engine thread whose ring ran empty keeps
 *	watching for a new tail before it sleeps (0: sleep at once; at most
 *	SIM_IDLE_POLL_MAX_US). A real engine sees the tail write itself; a
 *	sleeping engine thread must be woken, which on a virtual machine costs
 *	the submitter tens of microseconds and as many again before the thread
 *	runs. Work submitted within the window starts without that wake-up.
 *	The poll yields the CPU between looks, so a runnable client on the
 *	same CPU is not held up by it.
 */
struct sim_gpu_config {
	unsigned int gen;
	uint64_t ggtt_size;
	uint64_t aperture_size;
	uint64_t stolen_size;
	uint64_t lmem_size;
	uint64_t lmem_visible_size;
	uint32_t ring_size[SIM_NUM_ENGINES];
	uint32_t engine_mask;
	uint32_t hangcheck_ms;
	struct sim_latency latency;
	bool synchronous;
	uint32_t idle_poll_us;
};

#define SIM_IDLE_POLL_MAX_US 10000u

/**
 * enum sim_error_reason - why an engine stopped.
 * @SIM_ERR_NONE: no error recorded.
 * @SIM_ERR_UNKNOWN_CMD: unknown opcode or client.
 * @SIM_ERR_BAD_LENGTH: length field wrong for the opcode.
 * @SIM_ERR_BAD_CMD: known command with invalid fields (geometry, tiling,
 *	PPGTT address space, unmodelled register, nesting too deep).
 * @SIM_ERR_WRONG_ENGINE: command not valid on this engine.
 * @SIM_ERR_PAGE_FAULT: access through an invalid GGTT entry.
 * @SIM_ERR_HANG: hangcheck fired.
 */
enum sim_error_reason {
	SIM_ERR_NONE = 0,
	SIM_ERR_UNKNOWN_CMD,
	SIM_ERR_BAD_LENGTH,
	SIM_ERR_BAD_CMD,
	SIM_ERR_WRONG_ENGINE,
	SIM_ERR_PAGE_FAULT,
	SIM_ERR_HANG,
};

#define SIM_ERROR_CMD_DWORDS 4

/**
 * struct sim_error_state - what an engine recorded when it stopped.
 * @engine: the engine.
 * @reason: why.
 * @head: ring offset of the ring command being executed (a batch's
 *	MI_BATCH_BUFFER_START when the error was inside the batch).
 * @acthd: GGTT address of the faulting command dword.
 * @cmd: the faulting command's first dwords (0 where unreadable).
 * @fault_addr: address that faulted (page fault), else 0.
 * @fault_ppgtt: @fault_addr is a ppGTT address (of the VM in RING_PDP0).
 * @ctx_id: RING_CCID at the time.
 * @batch_depth: 0 in the ring, 1 in a batch, 2 in a second-level batch.
 * @count: errors this engine recorded since creation.
 * @detail: human-readable detail.
 */
struct sim_error_state {
	enum sim_engine_id engine;
	enum sim_error_reason reason;
	uint32_t head;
	uint64_t acthd;
	uint32_t cmd[SIM_ERROR_CMD_DWORDS];
	uint64_t fault_addr;
	uint32_t ctx_id;
	unsigned int batch_depth;
	bool fault_ppgtt;
	unsigned long count;
	char detail[96];
};

struct sim_gpu;

/**
 * typedef sim_irq_handler_t - interrupt callback.
 * @data: the cookie given to sim_set_irq_handler().
 * @engine: the interrupting engine.
 * @iir: SIM_IRQ_* bits latched since the previous call for @engine.
 */
typedef void (*sim_irq_handler_t)(void *data, enum sim_engine_id engine, uint32_t iir);

/**
 * typedef sim_error_handler_t - engine-stopped callback (hang, fault, bad
 * command), called on the interrupt thread after the error state is stored
 * and before the SIM_IRQ_CS_ERROR interrupt of the same event.
 * @data: the cookie. @engine: the engine. @reason: why. @ctx_id: RING_CCID.
 */
typedef void (*sim_error_handler_t)(void *data, enum sim_engine_id engine,
				    enum sim_error_reason reason, uint32_t ctx_id);

/* "gpu_hang": when it fires on a batch start, that batch never completes. */
extern struct fault_attr sim_fault_gpu_hang;

/* "sim_gpu_alloc": the GPU's own state in sim_gpu_create(), which says -ENOMEM. */
extern struct fault_attr sim_fault_gpu_alloc;

/* Fill @cfg with defaults: gen 12, 4 GiB GGTT, 256 MiB aperture, 8 MiB
 * stolen, no lmem, SIM_ENGINES_DEFAULT, 32 KiB rings, 1000 ms hangcheck,
 * no latency, threaded. */
void sim_gpu_config_init(struct sim_gpu_config *cfg);

/**
 * sim_gpu_create - power up a device.
 * @cfg: the description (copied).
 * @out: the device.
 *
 * Returns 0, -EINVAL for an inconsistent @cfg, -ENOMEM, or the pthread
 * error. The GGTT starts all non-present; rings start empty at GGTT 0 with
 * no status page.
 */
int sim_gpu_create(const struct sim_gpu_config *cfg, struct sim_gpu **out);
/* Stop every thread and free the device; GGTT-mapped host pages stay the caller's. */
void sim_gpu_destroy(struct sim_gpu *gpu);
const struct sim_gpu_config *sim_gpu_get_config(const struct sim_gpu *gpu);

/* Engine MMIO base (SIM_RCS_BASE, SIM_BCS_BASE); 0 for a bad id. */
uint32_t sim_engine_mmio_base(enum sim_engine_id engine);
const char *sim_engine_name(enum sim_engine_id engine);
/* The engine's class and its physical instance within it (VCS2: video, 2). */
enum sim_engine_class sim_engine_class(enum sim_engine_id engine);
unsigned int sim_engine_instance(enum sim_engine_id engine);
/* True when @gpu has @engine (its configuration's engine_mask). */
bool sim_engine_present(const struct sim_gpu *gpu, enum sim_engine_id engine);

/* GGTT. Indices are page numbers (GGTT address >> 12). */
/* Returns 0 or -EINVAL (index beyond the GGTT). Takes effect for the next access. */
int sim_ggtt_write_pte(struct sim_gpu *gpu, uint64_t index, uint64_t pte);
/* Returns the PTE, 0 beyond the GGTT. */
uint64_t sim_ggtt_read_pte(const struct sim_gpu *gpu, uint64_t index);
/* Write @count PTEs from @ptes at @first; 0 or -EINVAL (range beyond the GGTT). */
int sim_ggtt_insert(struct sim_gpu *gpu, uint64_t first, const uint64_t *ptes, uint64_t count);
/* Map @count host pages starting at page-aligned @host (contiguous VA). */
int sim_ggtt_insert_host(struct sim_gpu *gpu, uint64_t first, void *host, uint64_t count);
/* Mark @count entries not present; 0 or -EINVAL. */
int sim_ggtt_clear(struct sim_gpu *gpu, uint64_t first, uint64_t count);
/* PTE encoders. */
uint64_t sim_pte_host(const void *page);
uint64_t sim_pte_stolen(uint64_t offset);
uint64_t sim_pte_lmem(uint64_t offset);

/*
 * CPU access through the aperture at GGTT @offset: returns 0, -EINVAL when
 * the range leaves the aperture, -EFAULT when a page is not present (nothing
 * is recorded: a CPU fault is not a GPU error).
 */
int sim_aperture_read(struct sim_gpu *gpu, uint64_t offset, void *dst, size_t len);
int sim_aperture_write(struct sim_gpu *gpu, uint64_t offset, const void *src, size_t len);
/*
 * sim_aperture_map - host pointer for the aperture page containing @offset,
 * or NULL (beyond the aperture, not present). Valid until the PTE changes.
 */
void *sim_aperture_map(struct sim_gpu *gpu, uint64_t offset);
/* Pointer to lmem byte @offset, NULL beyond lmem_visible_size. */
void *sim_lmem_cpu_ptr(struct sim_gpu *gpu, uint64_t offset);

/*
 * Registers. sim_reg_write() returns 0, -EINVAL (unknown or read-only
 * register, bad value: misaligned/oversized tail, bad ring size) or -EBUSY
 * (START/CTL/HEAD written while the engine executes). sim_reg_read()
 * returns 0 for unknown offsets.
 */
int sim_reg_write(struct sim_gpu *gpu, uint32_t offset, uint32_t value);
uint32_t sim_reg_read(struct sim_gpu *gpu, uint32_t offset);

/* Typed helpers over the registers. */
int sim_engine_set_ring(struct sim_gpu *gpu, enum sim_engine_id e, uint32_t ggtt_start,
			uint32_t size);
int sim_engine_set_hws(struct sim_gpu *gpu, enum sim_engine_id e, uint32_t ggtt_addr);
int sim_engine_set_tail(struct sim_gpu *gpu, enum sim_engine_id e, uint32_t tail);
uint32_t sim_engine_get_head(struct sim_gpu *gpu, enum sim_engine_id e);
/* The command streamer timestamp now, in SIM_CS_TIMESTAMP_HZ ticks. */
uint64_t sim_engine_timestamp(struct sim_gpu *gpu, enum sim_engine_id e);
/* Read dword @index of the status page (0 without one or on a fault). */
uint32_t sim_engine_read_hws(struct sim_gpu *gpu, enum sim_engine_id e, uint32_t index);

/*
 * sim_engine_submit - copy @ndw dwords into the ring at the current tail
 * (through the GGTT, wrapping), pad with MI_NOOP to a qword and write TAIL.
 * Returns 0, -ENOSPC (not enough free ring space), -EFAULT (ring not
 * mapped) or -EINVAL. Serialises concurrent submitters of the same engine.
 */
int sim_engine_submit(struct sim_gpu *gpu, enum sim_engine_id e, const uint32_t *dw,
		      unsigned int ndw);

/* True when the engine is stopped on an error (until sim_engine_reset()). */
bool sim_engine_is_stopped(struct sim_gpu *gpu, enum sim_engine_id e);
/* True when head == tail and nothing executes (a stopped engine is idle). */
bool sim_engine_is_idle(struct sim_gpu *gpu, enum sim_engine_id e);
/*
 * Wait until idle: 0, -ETIMEDOUT after @timeout_ms, -EIO when the engine is
 * stopped, -EINVAL in synchronous mode (use sim_engine_run_until_idle()).
 */
int sim_engine_wait_idle(struct sim_gpu *gpu, enum sim_engine_id e, unsigned int timeout_ms);
/*
 * Synchronous mode: execute the ring on the calling thread until empty,
 * then deliver the latched interrupts and errors. Returns 0 (idle), -EIO
 * (stopped on an error) or -EINVAL (threaded device).
 */
int sim_engine_run_until_idle(struct sim_gpu *gpu, enum sim_engine_id e);
/*
 * sim_engine_reset - stop the engine (abandoning the command in flight),
 * set HEAD to @head (SIM_RESET_TO_TAIL: head = tail, drop everything
 * queued), clear the stopped state and restart. Returns 0 or -EINVAL.
 */
#define SIM_RESET_TO_TAIL UINT32_MAX
int sim_engine_reset(struct sim_gpu *gpu, enum sim_engine_id e, uint32_t head);

/* Install or remove (NULL) the interrupt and error handlers. */
void sim_set_irq_handler(struct sim_gpu *gpu, sim_irq_handler_t fn, void *data);
void sim_set_error_handler(struct sim_gpu *gpu, sim_error_handler_t fn, void *data);

/* Copy out @e's last error state: 0 or -ENOENT when it has none. */
int sim_error_state_get(struct sim_gpu *gpu, enum sim_engine_id e, struct sim_error_state *out);
/* Forget @e's last error state (the count is kept). */
void sim_error_state_clear(struct sim_gpu *gpu, enum sim_engine_id e);
/* Print every engine's error state as text ("no error" lines for clean ones). */
void sim_error_state_dump(struct sim_gpu *gpu, FILE *out);
const char *sim_error_reason_name(enum sim_error_reason reason);

/*
 * ppGTT (see the file comment). sim_vm_create() returns 0 with *@handle,
 * or -ENOMEM; sim_vm_destroy() 0 or -ENOENT (unknown handle). Pages are
 * numbered by address >> 12, below SIM_VM_SIZE >> 12. sim_vm_insert()
 * writes @count leaf entries (0; -EINVAL outside the VM; -ENOENT; -ENOMEM
 * when a directory table cannot be allocated, fault point "sim_vm_table":
 * the entries before stay written); sim_vm_clear() marks them not present
 * (0; -EINVAL; -ENOENT). sim_vm_read_pte() returns the entry, 0 when not
 * present or unknown. sim_vm_table_pages() counts the VM's page-table
 * pages (the PML4 included), 0 for an unknown handle.
 */
#define SIM_VM_LEVELS 4
#define SIM_VM_SIZE (1ull << 48)
extern struct fault_attr sim_fault_vm_table;
int sim_vm_create(struct sim_gpu *gpu, uint64_t *handle);
int sim_vm_destroy(struct sim_gpu *gpu, uint64_t handle);
int sim_vm_insert(struct sim_gpu *gpu, uint64_t handle, uint64_t first, const uint64_t *ptes,
		  uint64_t count);
int sim_vm_clear(struct sim_gpu *gpu, uint64_t handle, uint64_t first, uint64_t count);
uint64_t sim_vm_read_pte(struct sim_gpu *gpu, uint64_t handle, uint64_t index);
uint64_t sim_vm_table_pages(struct sim_gpu *gpu, uint64_t handle);

/* Statistics: commands and batches executed by @e since creation. */
uint64_t sim_engine_cmd_count(struct sim_gpu *gpu, enum sim_engine_id e);
uint64_t sim_engine_batch_count(struct sim_gpu *gpu, enum sim_engine_id e);

#endif /* SIM_GPU_H */
