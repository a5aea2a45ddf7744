/* SPDX-License-Identifier: MIT */
/*
 * sim_cs.c - the command streamer: decodes and executes the gen8+ commands
 * of i915_cmds.h from the ring and from batches in GGTT memory.
 *
 * The parser runs without the device lock. It fetches each command with one
 * GGTT copy, charges the latency model, and checks for hangs and reset
 * requests every CS_CHECK_EVERY commands and inside every wait, so an
 * endless batch costs one clock read per few hundred commands.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include <testlib/clock.h>

#include <i915/i915_cmds.h>
#include <ttm/drm_cache.h>

#include "sim_priv.h"

#define CS_MAX_DW (0xff + 2)
#define CS_CHECK_EVERY 256
#define CS_LATENCY_SLICE_NS 20000ull
/*
 * A batch that has run this long gives the CPU away for CS_ARB_YIELD_NS at
 * each arbitration point (MI_ARB_CHECK), so a spinning batch (igt_spin)
 * costs a fraction of a core while it waits for the CPU to end it.
 */
#define CS_ARB_YIELD_AFTER_NS 1000000ull
#define CS_ARB_YIELD_NS 100000l

/**
 * struct cs_ctx - state of one ring command's execution.
 * @e: the engine. @gpu: its device.
 * @f: where an error is described.
 * @depth: 0 ring, 1 batch, 2 second-level batch.
 * @batch_t0: clock at the ring's MI_BATCH_BUFFER_START (0 outside a batch).
 * @progress_t0: clock at the batch's start or its last arbitration point:
 *	the hang timer. A batch passing MI_ARB_CHECK is preemptible, and the
 *	kernel's heartbeat preempts such a batch rather than resetting it, so
 *	only a batch without arbitration points for hangcheck_ms is hung.
 * @debt_ns: latency model charges not yet slept.
 * @cmds: commands executed, added to the engine's counter at the end.
 * @since_check: commands since the last hang/reset check.
 * @ppgtt: per nesting level, whether its commands are fetched (and its
 *	blits address) through the ppGTT; level 0 (the ring) is the GGTT.
 * @vm: the VM of RING_PDP0 with a reference, looked up at its first use.
 */
struct cs_ctx {
	struct sim_engine *e;
	struct sim_gpu *gpu;
	struct sim_fault *f;
	unsigned int depth;
	bool ppgtt[3];
	struct sim_vm *vm;
	uint64_t batch_t0;
	uint64_t progress_t0;
	uint64_t debt_ns;
	uint64_t cmds;
	unsigned int since_check;
};

enum cs_kind {
	CS_SIMPLE,
	CS_BB_START,
	CS_BB_END,
	CS_COND_END,
};

static int cs_error(struct cs_ctx *c, enum sim_error_reason reason, uint64_t acthd,
		    const uint32_t *dw, unsigned int n, const char *detail)
{
	struct sim_fault *f = c->f;

	f->reason = reason;
	f->acthd = acthd;
	memset(f->cmd, 0, sizeof(f->cmd));
	if (dw)
		memcpy(f->cmd, dw, 4 * (n < SIM_ERROR_CMD_DWORDS ? n : SIM_ERROR_CMD_DWORDS));
	f->depth = c->depth;
	if (reason != SIM_ERR_PAGE_FAULT) {
		f->fault_addr = 0;
		f->ppgtt = false;
	}
	snprintf(f->detail, sizeof(f->detail), "%s", detail);
	return 1;
}

static int cs_fault(struct cs_ctx *c, uint64_t acthd, const uint32_t *dw, unsigned int n, bool pp,
		    uint64_t addr, const char *what)
{
	c->f->fault_addr = addr;
	c->f->ppgtt = pp;
	return cs_error(c, SIM_ERR_PAGE_FAULT, acthd, dw, n, what);
}

/*
 * The running VM (RING_PDP0's), looked up once per ring command and again
 * only when a command reloads PDP0. NULL when the handle names no VM (any
 * more): every access then faults.
 */
static struct sim_vm *cs_vm(struct cs_ctx *c)
{
	uint64_t pdp = atomic_load_explicit(&c->e->pdp, memory_order_relaxed);

	if (c->vm && c->vm->handle == pdp)
		return c->vm;
	sim_vm_put(c->vm);
	c->vm = pdp ? sim_vm_lookup(c->gpu, pdp) : NULL;
	return c->vm;
}

/* A ppGTT access (@pp) needs RING_PDP0 loaded: 0, or 1 (bad command). */
static int cs_check_space(struct cs_ctx *c, bool pp, uint64_t acthd, const uint32_t *dw,
			  unsigned int n)
{
	if (pp && !atomic_load_explicit(&c->e->pdp, memory_order_relaxed))
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, n, "PPGTT address without a ppGTT");
	return 0;
}

/* sim_ggtt_resolve() in the GGTT (@pp false) or the running VM. */
static void *cs_resolve(struct cs_ctx *c, bool pp, uint64_t addr, size_t want, size_t *run)
{
	struct sim_vm *vm;

	if (!pp)
		return sim_ggtt_resolve(c->gpu, addr, want, run);
	vm = cs_vm(c);
	return vm ? sim_vm_resolve(c->gpu, vm, addr & (SIM_VM_SIZE - 1), want, run) : NULL;
}

/* Copy @len bytes at @addr of the space @pp out: 0 or -EFAULT with *@fault. */
static int cs_read(struct cs_ctx *c, bool pp, uint64_t addr, void *dst, size_t len, uint64_t *fault)
{
	uint8_t *d = dst;

	while (len) {
		size_t run;
		void *p = cs_resolve(c, pp, addr, len, &run);

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

static void cs_charge(struct cs_ctx *c, uint64_t ns)
{
	struct timespec ts;

	c->debt_ns += ns;
	if (c->debt_ns < CS_LATENCY_SLICE_NS)
		return;
	/* Sleep off the debt in one go: the model costs time, not CPU. */
	ts.tv_sec = (time_t)(c->debt_ns / 1000000000ull);
	ts.tv_nsec = (long)(c->debt_ns % 1000000000ull);
	c->debt_ns = 0;
	nanosleep(&ts, NULL);
}

static bool cs_cancelled(struct cs_ctx *c)
{
	return atomic_load_explicit(&c->e->reset_req, memory_order_relaxed) ||
	       atomic_load_explicit(&c->gpu->quit, memory_order_relaxed);
}

static uint64_t hangcheck_ns(const struct cs_ctx *c)
{
	return (uint64_t)c->gpu->cfg.hangcheck_ms * 1000000ull;
}

/* Periodic check inside a batch: -ECANCELED, 1 (hang) or 0. */
static int cs_check(struct cs_ctx *c, uint64_t acthd, const uint32_t *dw)
{
	if (++c->since_check < CS_CHECK_EVERY)
		return 0;
	c->since_check = 0;
	if (cs_cancelled(c))
		return -ECANCELED;
	if (c->gpu->cfg.hangcheck_ms != SIM_HANGCHECK_OFF && c->progress_t0 &&
	    testlib_now_ns() - c->progress_t0 > hangcheck_ns(c))
		return cs_error(c, SIM_ERR_HANG, acthd, dw, 1, "batch ran past hangcheck");
	return 0;
}

/*
 * Back off while waiting on memory: spin a little (a semaphore is usually
 * released soon), then sleep up to 1 ms so that a stuck engine is cheap.
 */
static void cs_backoff(unsigned int *round)
{
	struct timespec ts = {0, 0};

	if (*round < 16) {
		(*round)++;
		sched_yield();
		return;
	}
	ts.tv_nsec = *round < 40 ? 20000 : 1000000;
	(*round)++;
	nanosleep(&ts, NULL);
}

/* Wait until the hang timer (from @t0) fires: 1 (hang) or -ECANCELED. */
static int cs_wait_hang(struct cs_ctx *c, uint64_t t0, uint64_t acthd, const uint32_t *dw,
			unsigned int n, const char *why)
{
	unsigned int round = 16;

	for (;;) {
		if (cs_cancelled(c))
			return -ECANCELED;
		if (c->gpu->cfg.hangcheck_ms != SIM_HANGCHECK_OFF &&
		    testlib_now_ns() - t0 > hangcheck_ns(c))
			return cs_error(c, SIM_ERR_HANG, acthd, dw, n, why);
		cs_backoff(&round);
	}
}

/*
 * Decode the total length of the command whose first dword is @dw0 and
 * check that it may run on this engine. Returns 0 with *@len, or 1 (error).
 */
static int cs_decode(struct cs_ctx *c, uint32_t dw0, uint64_t acthd, unsigned int *len,
		     enum cs_kind *kind)
{
	unsigned int want = 0, got = 0;
	enum sim_engine_class cls = sim_engine_class(c->e->id);
	bool pipe_control = cls == SIM_CLASS_RENDER || cls == SIM_CLASS_COMPUTE;

	*kind = CS_SIMPLE;
	switch (I915_CMD_CLIENT(dw0)) {
	case I915_CLIENT_MI:
		switch (MI_OPCODE(dw0)) {
		case 0x00: /* MI_NOOP */
		case 0x02: /* MI_USER_INTERRUPT */
		case 0x05: /* MI_ARB_CHECK */
			*len = 1;
			return 0;
		case 0x0a: /* MI_BATCH_BUFFER_END */
			*len = 1;
			*kind = CS_BB_END;
			return 0;
		case 0x1c: /* MI_SEMAPHORE_WAIT */
		case 0x24: /* MI_STORE_REGISTER_MEM */
		case 0x29: /* MI_LOAD_REGISTER_MEM */
			want = 4;
			got = MI_LEN(dw0) + 2;
			break;
		case 0x20: /* MI_STORE_DWORD_IMM: dword or qword form */
		case 0x26: /* MI_FLUSH_DW: dword or qword post-sync */
			got = MI_LEN(dw0) + 2;
			want = got == 5 ? 5 : 4;
			if (MI_OPCODE(dw0) == 0x26 && pipe_control)
				return cs_error(c, SIM_ERR_WRONG_ENGINE, acthd, &dw0, 1,
						cls == SIM_CLASS_RENDER
						    ? "MI_FLUSH_DW on the render engine"
						    : "MI_FLUSH_DW on a compute engine");
			break;
		case 0x21: /* MI_STORE_DWORD_INDEX */
			want = 3;
			got = MI_LEN(dw0) + 2;
			break;
		case 0x22: /* MI_LOAD_REGISTER_IMM: pairs */
			got = MI_LEN(dw0) + 2;
			want = (got & 1) ? got : got + 1;
			break;
		case 0x36: /* MI_CONDITIONAL_BATCH_BUFFER_END */
			want = I915_COND_BB_END_DWORDS;
			got = MI_LEN(dw0) + 2;
			*kind = CS_COND_END;
			break;
		case 0x31: /* MI_BATCH_BUFFER_START */
			want = 3;
			got = MI_LEN(dw0) + 2;
			*kind = CS_BB_START;
			break;
		default:
			return cs_error(c, SIM_ERR_UNKNOWN_CMD, acthd, &dw0, 1,
					"unknown MI opcode");
		}
		break;
	case I915_CLIENT_2D:
		switch (I915_2D_OPCODE(dw0)) {
		case 0x50:
			want = I915_COLOR_BLT_DWORDS;
			break;
		case 0x53:
		case 0x42:
			want = I915_SRC_COPY_BLT_DWORDS;
			break;
		default:
			return cs_error(c, SIM_ERR_UNKNOWN_CMD, acthd, &dw0, 1,
					"unknown 2D opcode");
		}
		if (cls != SIM_CLASS_COPY)
			return cs_error(c, SIM_ERR_WRONG_ENGINE, acthd, &dw0, 1,
					cls == SIM_CLASS_RENDER ? "blit on the render engine"
								: "blit off the blitter");
		got = BLT_LEN(dw0) + 2;
		break;
	case I915_CLIENT_3D:
		if ((dw0 & PIPE_CONTROL_OPCODE_MASK) !=
		    (GFX_OP_PIPE_CONTROL(2) & PIPE_CONTROL_OPCODE_MASK))
			return cs_error(c, SIM_ERR_UNKNOWN_CMD, acthd, &dw0, 1,
					"unknown 3D command");
		if (!pipe_control)
			return cs_error(c, SIM_ERR_WRONG_ENGINE, acthd, &dw0, 1,
					cls == SIM_CLASS_COPY ? "PIPE_CONTROL on the blitter"
							      : "PIPE_CONTROL on a video engine");
		want = I915_PIPE_CONTROL_DWORDS;
		got = (dw0 & 0xff) + 2;
		break;
	default:
		return cs_error(c, SIM_ERR_UNKNOWN_CMD, acthd, &dw0, 1, "unknown client");
	}
	if (got < 3 || got != want)
		return cs_error(c, SIM_ERR_BAD_LENGTH, acthd, &dw0, 1, "length field wrong");
	*len = got;
	return 0;
}

static uint64_t qw(const uint32_t *dw)
{
	return (uint64_t)dw[0] | ((uint64_t)dw[1] << 32);
}

/*
 * Store @n (4 or 8) bytes at @addr of the GGTT or (@pp) the ppGTT, atomically
 * when aligned, as the driver polls it.
 */
static int cs_store(struct cs_ctx *c, uint64_t acthd, const uint32_t *dw, unsigned int ndw, bool pp,
		    uint64_t addr, uint64_t value, unsigned int n)
{
	size_t run;
	void *p;

	if (cs_check_space(c, pp, acthd, dw, ndw))
		return 1;
	p = cs_resolve(c, pp, addr, n, &run);
	if (!p || run < n)
		return cs_fault(c, acthd, dw, ndw, pp, p ? addr + run : addr,
				"store to unmapped page");
	if (n == 8)
		__atomic_store_n((uint64_t *)p, value, __ATOMIC_RELEASE);
	else
		__atomic_store_n((uint32_t *)p, (uint32_t)value, __ATOMIC_RELEASE);
	return 0;
}

static int cs_hws_addr(struct cs_ctx *c, uint64_t acthd, const uint32_t *dw, unsigned int ndw,
		       uint32_t offset, uint64_t *addr)
{
	struct sim_engine *e = c->e;
	bool valid;
	uint32_t hws;

	pthread_mutex_lock(&c->gpu->lock);
	valid = e->hws_valid;
	hws = e->hws;
	pthread_mutex_unlock(&c->gpu->lock);
	if (!valid || offset >= SIM_PAGE_SIZE || (offset & 3))
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, ndw, "no status page or bad index");
	*addr = (uint64_t)hws + offset;
	return 0;
}

/* The registers LRI/SRM may touch: CCID and the GPRs of this engine. */
static int cs_reg_ptr(struct cs_ctx *c, uint32_t reg, atomic_uint **ccid, _Atomic uint64_t **gpr,
		      bool *hi)
{
	uint32_t base = c->e->base;

	*ccid = NULL;
	*gpr = NULL;
	if (reg == SIM_RING_CCID(base)) {
		*ccid = &c->e->ccid;
		return 0;
	}
	if (reg >= SIM_RING_GPR(base, 0) && reg < SIM_RING_GPR(base, SIM_RING_NUM_GPRS) &&
	    !(reg & 3)) {
		*gpr = &c->e->gpr[(reg - SIM_RING_GPR(base, 0)) / 8];
		*hi = (reg - SIM_RING_GPR(base, 0)) & 4;
		return 0;
	}
	return -EINVAL;
}

/* "@v OP @data" for the MI_SEMAPHORE_SAD_* compare codes 0..5. */
static bool cs_compare(uint32_t op, uint32_t v, uint32_t data)
{
	switch (op) {
	case 0:
		return v > data;
	case 1:
		return v >= data;
	case 2:
		return v < data;
	case 3:
		return v <= data;
	case 4:
		return v == data;
	default:
		return v != data;
	}
}

/*
 * MI_ARB_CHECK inside a batch: an arbitration point. The batch is
 * preemptible here, which restarts its hang timer; one that has run for a
 * while sleeps a little, as a preempted context would be off the engine.
 */
static void cs_arb_point(struct cs_ctx *c)
{
	uint64_t now = testlib_now_ns();

	c->progress_t0 = now;
	if (now - c->batch_t0 > CS_ARB_YIELD_AFTER_NS) {
		struct timespec ts = {0, CS_ARB_YIELD_NS};

		nanosleep(&ts, NULL);
	}
}

/*
 * MI_CONDITIONAL_BATCH_BUFFER_END: 0 (go on), 2 (end the batch) or 1 (error).
 * The condition is read fresh each time, so a CPU write ends a loop on it.
 */
static int cs_cond_end(struct cs_ctx *c, uint64_t acthd, const uint32_t *dw)
{
	uint32_t op = (dw[0] & MI_SEMAPHORE_COMPARE_MASK) >> MI_SEMAPHORE_COMPARE_SHIFT;
	bool pp = !(dw[0] & MI_COND_BB_END_GGTT);
	uint64_t addr = qw(dw + 2) & ~7ull;
	size_t run;
	uint32_t *p;

	if (!(dw[0] & MI_DO_COMPARE))
		return 0;
	if (op > 5)
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, 4, "conditional end mode");
	if (cs_check_space(c, pp, acthd, dw, 4))
		return 1;
	p = cs_resolve(c, pp, addr, 4, &run);
	if (!p)
		return cs_fault(c, acthd, dw, 4, pp, addr, "conditional end on unmapped page");
	return cs_compare(op, __atomic_load_n(p, __ATOMIC_ACQUIRE), dw[1]) ? 0 : 2;
}

static int cs_semaphore(struct cs_ctx *c, uint64_t acthd, const uint32_t *dw)
{
	uint32_t op = (dw[0] & MI_SEMAPHORE_COMPARE_MASK) >> MI_SEMAPHORE_COMPARE_SHIFT;
	uint64_t addr = qw(dw + 2) & ~3ull, t0 = testlib_now_ns();
	unsigned int round = 0;

	bool pp = !(dw[0] & MI_SEMAPHORE_GLOBAL_GTT);

	if (op > 5)
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, 4, "semaphore mode");
	if (cs_check_space(c, pp, acthd, dw, 4))
		return 1;
	for (;;) {
		size_t run;
		uint32_t *p = cs_resolve(c, pp, addr, 4, &run);

		if (!p)
			return cs_fault(c, acthd, dw, 4, pp, addr, "semaphore on unmapped page");
		if (cs_compare(op, __atomic_load_n(p, __ATOMIC_ACQUIRE), dw[1]))
			return 0;
		if (cs_cancelled(c))
			return -ECANCELED;
		if (c->gpu->cfg.hangcheck_ms != SIM_HANGCHECK_OFF && round >= 16 &&
		    testlib_now_ns() - t0 > hangcheck_ns(c))
			return cs_error(c, SIM_ERR_HANG, acthd, dw, 4, "semaphore never satisfied");
		cs_backoff(&round);
	}
}

/* ---- blits ---------------------------------------------------------------- */

/*
 * The engine's writes do not allocate in the CPU's caches, as a DMA
 * engine's do not: runs of a page or more that do not overlap are streamed
 * (drm_memcpy_stream()) and fenced before the next command can signal their
 * completion. Overlapping runs (a blit within one surface) and short ones
 * (the rows of a narrow rectangle) are memmove()d.
 */
static int cs_copy(struct cs_ctx *c, uint64_t dst, uint64_t src, uint64_t len, uint64_t *fault)
{
	bool streamed = false;
	int ret = 0;

	while (len) {
		size_t rs, rd;
		uint8_t *s = cs_resolve(c, c->ppgtt[c->depth], src, len, &rs);
		uint8_t *d = cs_resolve(c, c->ppgtt[c->depth], dst, len, &rd);
		size_t n;

		if (!s || !d) {
			*fault = s ? dst : src;
			ret = -EFAULT;
			break;
		}
		n = rs < rd ? rs : rd;
		if (n >= SIM_PAGE_SIZE &&
		    ((uintptr_t)d + n <= (uintptr_t)s || (uintptr_t)s + n <= (uintptr_t)d)) {
			drm_memcpy_stream(d, s, n);
			streamed = true;
		} else {
			memmove(d, s, n);
		}
		src += n;
		dst += n;
		len -= n;
	}
	/* Even on a fault: what was copied is published in order. */
	if (streamed)
		drm_memcpy_stream_fence();
	return ret;
}

/*
 * A fill source: the pixel repeated over FILL_BLOCK bytes plus one pixel
 * more, so that a copy of up to FILL_BLOCK bytes may start at any phase
 * within a pixel. FILL_BLOCK is a multiple of every colour depth (1, 2, 4).
 */
#define FILL_BLOCK 4096u

struct fill_pat {
	uint8_t buf[FILL_BLOCK + 4];
	unsigned int cpp;
	size_t len;
};

/* Replicate the @cpp low bytes of @pattern over min(@len, FILL_BLOCK) + @cpp bytes. */
static void fill_pat_init(struct fill_pat *fp, uint32_t pattern, unsigned int cpp, uint64_t len)
{
	size_t have = cpp, want = (len < FILL_BLOCK ? (size_t)len : FILL_BLOCK) + cpp;

	memcpy(fp->buf, &pattern, cpp);
	while (have < want) {
		size_t n = have < want - have ? have : want - have;

		memcpy(fp->buf + have, fp->buf, n);
		have += n;
	}
	fp->cpp = cpp;
	fp->len = want - cpp;
}

/*
 * Fill @len bytes at @dst (a pixel boundary) from @fp. A run may end inside
 * a pixel at a page edge; the next run starts at that phase.
 */
static int cs_fill(struct cs_ctx *c, uint64_t dst, uint64_t len, const struct fill_pat *fp,
		   uint64_t *fault)
{
	uint64_t pos = 0;

	while (len) {
		size_t run;
		uint8_t *d = cs_resolve(c, c->ppgtt[c->depth], dst, len, &run);

		if (!d) {
			*fault = dst;
			return -EFAULT;
		}
		if (fp->cpp == 1) {
			memset(d, fp->buf[0], run);
		} else {
			const uint8_t *s = fp->buf + pos % fp->cpp;

			/* Whole blocks keep the phase: fp->len is a multiple of cpp. */
			for (size_t off = 0; off < run;) {
				size_t n = run - off < fp->len ? run - off : fp->len;

				memcpy(d + off, s, n);
				off += n;
			}
		}
		pos += run;
		dst += run;
		len -= run;
	}
	return 0;
}

static bool rect_ok(uint32_t p1, uint32_t p2, uint32_t *w, uint32_t *h)
{
	uint32_t x1 = p1 & 0xffff, y1 = p1 >> 16, x2 = p2 & 0xffff, y2 = p2 >> 16;

	if (x1 > I915_BLT_MAX_COORD || y1 > I915_BLT_MAX_COORD || x2 > I915_BLT_MAX_COORD ||
	    y2 > I915_BLT_MAX_COORD || x2 < x1 || y2 < y1)
		return false;
	*w = x2 - x1;
	*h = y2 - y1;
	return true;
}

/*
 * Copy a @w x @h pixel rectangle. Rows are copied one memmove per
 * contiguous run; when both pitches equal the row the whole rectangle is
 * one linear copy.
 */
static int cs_blit_copy(struct cs_ctx *c, uint64_t acthd, const uint32_t *dw, unsigned int cpp,
			uint32_t dst_pitch, uint32_t src_pitch)
{
	uint32_t w, h, dx = dw[2] & 0xffff, dy = dw[2] >> 16, sx = dw[6] & 0xffff, sy = dw[6] >> 16;
	uint64_t dst = qw(dw + 4), src = qw(dw + 8), row, fault = 0;
	int ret = 0;

	if (!rect_ok(dw[2], dw[3], &w, &h) || sx > I915_BLT_MAX_COORD || sy > I915_BLT_MAX_COORD)
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, 10, "bad blit rectangle");
	if (!w || !h)
		return 0;
	row = (uint64_t)w * cpp;
	if ((uint64_t)(dx + w) * cpp > dst_pitch || (uint64_t)(sx + w) * cpp > src_pitch)
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, 10, "blit wider than pitch");
	dst += (uint64_t)dy * dst_pitch + (uint64_t)dx * cpp;
	src += (uint64_t)sy * src_pitch + (uint64_t)sx * cpp;
	if (dst_pitch == row && src_pitch == row) {
		ret = cs_copy(c, dst, src, row * h, &fault);
	} else {
		for (uint32_t y = 0; y < h && !ret; y++)
			ret = cs_copy(c, dst + (uint64_t)y * dst_pitch,
				      src + (uint64_t)y * src_pitch, row, &fault);
	}
	if (ret)
		return cs_fault(c, acthd, dw, 10, c->ppgtt[c->depth], fault,
				"blit through unmapped page");
	cs_charge(c, row * h * c->gpu->cfg.latency.byte_ps / 1000);
	return 0;
}

static const unsigned int br13_cpp[4] = {1, 2, 2, 4};

static int cs_color_blt(struct cs_ctx *c, uint64_t acthd, const uint32_t *dw)
{
	unsigned int cpp = br13_cpp[(dw[1] & BR13_DEPTH_MASK) >> BR13_DEPTH_SHIFT];
	uint32_t pitch = dw[1] & BR13_PITCH_MASK, w, h, x = dw[2] & 0xffff, y = dw[2] >> 16;
	uint64_t dst = qw(dw + 4), row, fault = 0;
	struct fill_pat fp;
	int ret = 0;

	if (((dw[1] & BR13_ROP_MASK) >> BR13_ROP_SHIFT) != ROP_PATCOPY)
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, 7, "unsupported ROP");
	if (!rect_ok(dw[2], dw[3], &w, &h))
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, 7, "bad blit rectangle");
	if (!w || !h)
		return 0;
	row = (uint64_t)w * cpp;
	if ((uint64_t)(x + w) * cpp > pitch)
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, 7, "blit wider than pitch");
	dst += (uint64_t)y * pitch + (uint64_t)x * cpp;
	fill_pat_init(&fp, dw[6], cpp, pitch == row ? row * h : row);
	if (pitch == row)
		ret = cs_fill(c, dst, row * h, &fp, &fault);
	else
		for (uint32_t i = 0; i < h && !ret; i++)
			ret = cs_fill(c, dst + (uint64_t)i * pitch, row, &fp, &fault);
	if (ret)
		return cs_fault(c, acthd, dw, 7, c->ppgtt[c->depth], fault,
				"blit through unmapped page");
	cs_charge(c, row * h * c->gpu->cfg.latency.byte_ps / 1000);
	return 0;
}

static int cs_src_copy_blt(struct cs_ctx *c, uint64_t acthd, const uint32_t *dw)
{
	unsigned int cpp = br13_cpp[(dw[1] & BR13_DEPTH_MASK) >> BR13_DEPTH_SHIFT];

	if (dw[0] & (XY_SRC_COPY_BLT_SRC_TILED | XY_SRC_COPY_BLT_DST_TILED))
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, 10, "tiled blit not modelled");
	if (((dw[1] & BR13_ROP_MASK) >> BR13_ROP_SHIFT) != ROP_SRCCOPY)
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, 10, "unsupported ROP");
	return cs_blit_copy(c, acthd, dw, cpp, dw[1] & BR13_PITCH_MASK, dw[7] & 0xffff);
}

static int cs_fast_copy_blt(struct cs_ctx *c, uint64_t acthd, const uint32_t *dw)
{
	unsigned int cpp;

	if (dw[0] & (XY_FAST_COPY_SRC_TILE_MASK | XY_FAST_COPY_DST_TILE_MASK))
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, 10, "tiled blit not modelled");
	switch (dw[1] & XY_FAST_COPY_BPP_MASK) {
	case XY_FAST_COPY_BPP_8:
		cpp = 1;
		break;
	case XY_FAST_COPY_BPP_16:
		cpp = 2;
		break;
	case XY_FAST_COPY_BPP_32:
		cpp = 4;
		break;
	case XY_FAST_COPY_BPP_64:
		cpp = 8;
		break;
	case XY_FAST_COPY_BPP_128:
		cpp = 16;
		break;
	default:
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, 10, "bad colour depth");
	}
	return cs_blit_copy(c, acthd, dw, cpp, dw[1] & 0xffff, dw[7] & 0xffff);
}

/* MI_LOAD_REGISTER_MEM: a dword from memory into CCID or a GPR half. */
static int cs_lrm(struct cs_ctx *c, uint64_t acthd, const uint32_t *dw, unsigned int n)
{
	bool pp = !(dw[0] & MI_LRM_USE_GGTT), hi = false;
	uint64_t addr = qw(dw + 2), fault;
	_Atomic uint64_t *gpr;
	atomic_uint *ccid;
	uint32_t v;

	if (cs_reg_ptr(c, dw[1] & MI_LRI_REG_MASK, &ccid, &gpr, &hi))
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, n, "LRM to an unmodelled register");
	if (addr & 3)
		return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, n, "misaligned load");
	if (cs_check_space(c, pp, acthd, dw, n))
		return 1;
	if (cs_read(c, pp, addr, &v, sizeof(v), &fault))
		return cs_fault(c, acthd, dw, n, pp, fault, "load from unmapped page");
	if (ccid) {
		atomic_store(ccid, v);
	} else {
		uint64_t old = atomic_load(gpr);

		atomic_store(gpr, hi ? (old & 0xffffffffull) | ((uint64_t)v << 32)
				     : (old & ~0xffffffffull) | v);
	}
	return 0;
}

/* ---- dispatch ------------------------------------------------------------- */

static int cs_exec_simple(struct cs_ctx *c, uint64_t acthd, const uint32_t *dw, unsigned int n)
{
	struct sim_gpu *gpu = c->gpu;
	uint64_t addr;
	int ret;

	switch (I915_CMD_CLIENT(dw[0])) {
	case I915_CLIENT_2D:
		switch (I915_2D_OPCODE(dw[0])) {
		case 0x50:
			return cs_color_blt(c, acthd, dw);
		case 0x53:
			return cs_src_copy_blt(c, acthd, dw);
		default:
			return cs_fast_copy_blt(c, acthd, dw);
		}
	case I915_CLIENT_3D: /* PIPE_CONTROL, the only one decoded */
		if ((dw[1] & PIPE_CONTROL_POSTSYNC_MASK) == 0)
			return 0;
		if ((dw[1] & PIPE_CONTROL_POSTSYNC_MASK) != PIPE_CONTROL_QW_WRITE)
			return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, n, "post-sync op");
		if (dw[1] & PIPE_CONTROL_STORE_DATA_INDEX) {
			ret = cs_hws_addr(c, acthd, dw, n, dw[2] & ~7u, &addr);
			if (ret)
				return ret;
			return cs_store(c, acthd, dw, n, false, addr, qw(dw + 4), 8);
		}
		return cs_store(c, acthd, dw, n, !(dw[1] & PIPE_CONTROL_GLOBAL_GTT_IVB),
				qw(dw + 2) & ~7ull, qw(dw + 4), 8);
	default:
		break;
	}

	switch (MI_OPCODE(dw[0])) {
	case 0x00:
		return 0;
	case 0x05:
		if (c->depth)
			cs_arb_point(c);
		return 0;
	case 0x02:
		pthread_mutex_lock(&gpu->lock);
		if (c->depth)
			sim_engine_raise_locked(c->e, SIM_IRQ_USER);
		else
			sim_engine_latch_locked(c->e, SIM_IRQ_USER);
		pthread_mutex_unlock(&gpu->lock);
		return 0;
	case 0x1c:
		return cs_semaphore(c, acthd, dw);
	case 0x20:
		addr = qw(dw + 1);
		if (addr & (n == 5 ? 7 : 3))
			return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, n, "misaligned store");
		return cs_store(c, acthd, dw, n, !(dw[0] & MI_USE_GGTT), addr,
				n == 5 ? qw(dw + 3) : dw[3], n == 5 ? 8 : 4);
	case 0x21:
		ret = cs_hws_addr(c, acthd, dw, n, dw[1], &addr);
		return ret ? ret : cs_store(c, acthd, dw, n, false, addr, dw[2], 4);
	case 0x22:
		for (unsigned int i = 1; i + 1 < n; i += 2) {
			atomic_uint *ccid;
			_Atomic uint64_t *gpr;
			bool hi = false;

			uint32_t reg = dw[i] & MI_LRI_REG_MASK;

			if (reg == SIM_RING_PDP0_LDW(c->e->base) ||
			    reg == SIM_RING_PDP0_UDW(c->e->base)) {
				sim_engine_set_pdp(c->e, reg == SIM_RING_PDP0_UDW(c->e->base),
						   dw[i + 1]);
				continue;
			}
			if (cs_reg_ptr(c, reg, &ccid, &gpr, &hi))
				return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, n,
						"LRI to an unmodelled register");
			if (ccid) {
				atomic_store(ccid, dw[i + 1]);
			} else {
				uint64_t old = atomic_load(gpr);

				atomic_store(gpr, hi ? (old & 0xffffffffull) |
							   ((uint64_t)dw[i + 1] << 32)
						     : (old & ~0xffffffffull) | dw[i + 1]);
			}
		}
		return 0;
	case 0x24: {
		atomic_uint *ccid;
		_Atomic uint64_t *gpr;
		bool hi = false;
		uint32_t v;

		uint32_t reg = dw[1] & MI_LRI_REG_MASK;

		if (reg == SIM_RING_TIMESTAMP(c->e->base) ||
		    reg == SIM_RING_TIMESTAMP_UDW(c->e->base)) {
			uint64_t t = sim_cs_timestamp();

			v = reg == SIM_RING_TIMESTAMP(c->e->base) ? (uint32_t)t
								  : (uint32_t)(t >> 32);
		} else if (cs_reg_ptr(c, reg, &ccid, &gpr, &hi)) {
			return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, n,
					"SRM of an unmodelled register");
		} else {
			v = ccid ? atomic_load(ccid)
				 : (uint32_t)(atomic_load(gpr) >> (hi ? 32 : 0));
		}
		addr = qw(dw + 2);
		if (addr & 3)
			return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, n, "misaligned store");
		return cs_store(c, acthd, dw, n, !(dw[0] & MI_SRM_USE_GGTT), addr, v, 4);
	}
	case 0x29:
		return cs_lrm(c, acthd, dw, n);
	case 0x26: {
		uint32_t op = dw[0] & MI_FLUSH_DW_OP_MASK;
		bool pp;

		if (op == MI_FLUSH_DW_OP_NONE)
			return 0;
		if (op != MI_FLUSH_DW_OP_STOREDW)
			return cs_error(c, SIM_ERR_BAD_CMD, acthd, dw, n, "post-sync op");
		if (dw[0] & MI_FLUSH_DW_STORE_INDEX) {
			ret = cs_hws_addr(c, acthd, dw, n, dw[1] & ~7u, &addr);
			if (ret)
				return ret;
			pp = false;
		} else {
			pp = !(dw[1] & MI_FLUSH_DW_USE_GTT);
			addr = qw(dw + 1) & ~7ull;
		}
		return cs_store(c, acthd, dw, n, pp, addr, n == 5 ? qw(dw + 3) : dw[3],
				n == 5 ? 8 : 4);
	}
	default:
		return cs_error(c, SIM_ERR_UNKNOWN_CMD, acthd, dw, n, "unknown MI opcode");
	}
}

/*
 * Fetch and decode the command at @addr of the current batch level's
 * space: 0, or 1 with the error described.
 */
static int cs_fetch(struct cs_ctx *c, uint64_t addr, uint32_t *dw, unsigned int *n,
		    enum cs_kind *kind)
{
	bool pp = c->ppgtt[c->depth];
	uint64_t fault;
	size_t run;
	const uint32_t *p = cs_resolve(c, pp, addr, 4 * CS_MAX_DW, &run);
	int ret;

	if (!p)
		return cs_fault(c, addr, NULL, 0, pp, addr, "command fetch from unmapped page");
	dw[0] = p[0];
	ret = cs_decode(c, dw[0], addr, n, kind);
	if (ret)
		return ret;
	/* One lookup serves the whole command unless it straddles a page run. */
	if (4 * (size_t)*n <= run)
		memcpy(dw + 1, p + 1, 4 * (*n - 1));
	else if (cs_read(c, pp, addr + 4, dw + 1, 4 * (*n - 1), &fault))
		return cs_fault(c, addr, dw, 1, pp, fault, "command fetch from unmapped page");
	return 0;
}

/*
 * The address space a MI_BATCH_BUFFER_START at @acthd selects for the batch
 * at nesting level @level: 0, or 1 (a ppGTT batch without a ppGTT).
 */
static int cs_batch_space(struct cs_ctx *c, unsigned int level, uint64_t acthd, const uint32_t *dw,
			  unsigned int n)
{
	bool pp = dw[0] & MI_BATCH_PPGTT;

	if (cs_check_space(c, pp, acthd, dw, n))
		return 1;
	c->ppgtt[level] = pp;
	return 0;
}

static int cs_run_batch(struct cs_ctx *c, uint64_t pc)
{
	uint32_t dw[CS_MAX_DW];
	uint64_t ret_pc = 0;
	enum cs_kind kind;
	unsigned int n;
	int ret;

	for (;;) {
		ret = cs_check(c, pc, NULL);
		if (ret)
			return ret;
		atomic_store_explicit(&c->e->acthd, pc, memory_order_relaxed);
		ret = cs_fetch(c, pc, dw, &n, &kind);
		if (ret)
			return ret;
		c->cmds++;
		if (c->gpu->cfg.latency.cmd_ns)
			cs_charge(c, c->gpu->cfg.latency.cmd_ns);
		if (kind == CS_COND_END) {
			ret = cs_cond_end(c, pc, dw);
			if (ret == 1)
				return ret;
			if (!ret) {
				pc += 4 * n;
				continue;
			}
			if (!(dw[0] & MI_COND_BB_END_CURRENT_LEVEL))
				return 0; /* ends every level */
			kind = CS_BB_END;
		}
		if (kind == CS_BB_END) {
			if (c->depth == 2) {
				c->depth = 1;
				pc = ret_pc;
				continue;
			}
			return 0;
		}
		if (kind == CS_BB_START) {
			unsigned int level = c->depth;

			if (dw[0] & MI_BATCH_SECOND_LEVEL) {
				if (c->depth == 2)
					return cs_error(c, SIM_ERR_BAD_CMD, pc, dw, n,
							"batch nesting too deep");
				level = 2;
			}
			if (cs_batch_space(c, level, pc, dw, n))
				return 1;
			if (level != c->depth) {
				ret_pc = pc + 4 * n;
				c->depth = level;
			}
			pc = qw(dw + 1) & ~3ull;
			continue;
		}
		ret = cs_exec_simple(c, pc, dw, n);
		if (ret)
			return ret;
		pc += 4 * n;
	}
}

/* Read @ndw dwords at ring offset @off, wrapping at the ring's end. */
static int cs_ring_read(struct cs_ctx *c, uint64_t start, uint32_t size, uint32_t off, uint32_t *dw,
			unsigned int ndw, uint64_t *fault)
{
	while (ndw) {
		unsigned int chunk = (size - off) / 4;

		if (chunk > ndw)
			chunk = ndw;
		if (sim_ggtt_read(c->gpu, start + off, dw, 4 * chunk, fault))
			return -EFAULT;
		dw += chunk;
		ndw -= chunk;
		off = (off + 4 * chunk) % size;
	}
	return 0;
}

static int cs_exec_ring(struct cs_ctx *c, uint32_t head, uint32_t tail, uint32_t *new_head)
{
	struct sim_engine *e = c->e;
	struct sim_gpu *gpu = c->gpu;
	uint32_t dw[CS_MAX_DW], size, start, avail;
	uint64_t acthd, fault;
	enum cs_kind kind;
	unsigned int n;
	int ret;

	pthread_mutex_lock(&gpu->lock);
	size = sim_ring_size(e);
	start = e->start;
	pthread_mutex_unlock(&gpu->lock);

	acthd = (uint64_t)start + head;
	atomic_store_explicit(&e->acthd, acthd, memory_order_relaxed);
	avail = (tail - head + size) % size / 4;
	if (cs_ring_read(c, start, size, head, dw, 1, &fault))
		return cs_fault(c, acthd, NULL, 0, false, fault, "ring fetch from unmapped page");
	ret = cs_decode(c, dw[0], acthd, &n, &kind);
	if (ret)
		return ret;
	if (n > avail)
		return cs_error(c, SIM_ERR_BAD_LENGTH, acthd, dw, 1, "command crosses the tail");
	if (n > 1 && cs_ring_read(c, start, size, (head + 4) % size, dw + 1, n - 1, &fault))
		return cs_fault(c, acthd, dw, 1, false, fault, "ring fetch from unmapped page");
	c->cmds = 1;
	if (gpu->cfg.latency.cmd_ns)
		cs_charge(c, gpu->cfg.latency.cmd_ns);

	if (kind == CS_BB_START) {
		if (cs_batch_space(c, 1, acthd, dw, n))
			return 1;
		atomic_fetch_add_explicit(&e->batch_count, 1, memory_order_relaxed);
		c->depth = 1;
		c->batch_t0 = testlib_now_ns();
		c->progress_t0 = c->batch_t0;
		if (gpu->cfg.latency.batch_ns)
			cs_charge(c, gpu->cfg.latency.batch_ns);
		if (fault_should_fail(&sim_fault_gpu_hang, 0))
			ret = cs_wait_hang(c, c->batch_t0, acthd, dw, n, "injected gpu_hang");
		else
			ret = cs_run_batch(c, qw(dw + 1) & ~3ull);
	} else if (kind == CS_BB_END || kind == CS_COND_END) {
		ret = 0; /* Outside a batch there is nothing to end. */
	} else {
		ret = cs_exec_simple(c, acthd, dw, n);
	}
	if (ret)
		return ret;
	*new_head = (head + 4 * n) % size;
	return 0;
}

int sim_cs_exec(struct sim_engine *e, uint32_t head, uint32_t tail, uint32_t *new_head,
		struct sim_fault *f)
{
	struct cs_ctx c = {.e = e, .gpu = e->gpu, .f = f, .debt_ns = e->lat_debt_ns};
	int ret = cs_exec_ring(&c, head, tail, new_head);

	atomic_fetch_add_explicit(&e->cmd_count, c.cmds, memory_order_relaxed);
	/* Carry the unslept charge over: one sleep per slice, not per ring command. */
	e->lat_debt_ns = c.debt_ns;
	/* A VM destroyed meanwhile goes now, with this command. */
	sim_vm_put(c.vm);
	return ret;
}
