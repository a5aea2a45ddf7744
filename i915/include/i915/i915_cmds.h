/* SPDX-License-Identifier: MIT */
/*
 * Gen8+ command-streamer encodings and tiny encoders.
 *
 * The bit layouts follow the Intel PRMs (and the kernel's
 * intel_gpu_commands.h): a command's first dword carries the client type in
 * bits 31:29, the opcode and, for most commands, "total length in dwords
 * minus 2" in the low bits. The simulator (i915/sim) decodes exactly these
 * encodings, the driver and the real-hardware back end emit them.
 *
 * Every encoder writes its dwords at @cs and returns the pointer past the
 * last dword written, so calls chain: cs = i915_emit_noop(cs). Encoders never
 * check space: the caller sizes the batch (I915_*_DWORDS give the lengths).
 * Addresses are 64-bit GGTT addresses; the low 2 bits must be 0 for dword
 * stores, the low 3 bits for qword stores.
 */
#ifndef I915_CMDS_H
#define I915_CMDS_H

#include <stdint.h>

/* Client types, dword 0 bits 31:29. */
#define I915_CLIENT_MI 0x0u
#define I915_CLIENT_2D 0x2u
#define I915_CLIENT_3D 0x3u
#define I915_CMD_CLIENT(dw) ((dw) >> 29)

/* MI commands: opcode in bits 28:23, flags/length below. */
#define MI_INSTR(opcode, flags) (((uint32_t)(opcode) << 23) | (uint32_t)(flags))
#define MI_OPCODE(dw) (((dw) >> 23) & 0x3f)
/* Length field of MI commands that have one: bits 7:0 (dwords - 2). */
#define MI_LEN(dw) ((dw)&0xff)

#define MI_NOOP MI_INSTR(0x00, 0)
#define MI_USER_INTERRUPT MI_INSTR(0x02, 0)
#define MI_ARB_CHECK MI_INSTR(0x05, 0)
#define MI_BATCH_BUFFER_END MI_INSTR(0x0a, 0)

/* MI_SEMAPHORE_WAIT, gen8 4-dword form: cmd, data, addr lo, addr hi. */
#define MI_SEMAPHORE_WAIT MI_INSTR(0x1c, 2)
#define MI_SEMAPHORE_GLOBAL_GTT (1u << 22)
#define MI_SEMAPHORE_POLL (1u << 15)
#define MI_SEMAPHORE_COMPARE_SHIFT 12
#define MI_SEMAPHORE_COMPARE_MASK (7u << 12)
#define MI_SEMAPHORE_SAD_GT_SDD (0u << 12)  /* *addr >  data */
#define MI_SEMAPHORE_SAD_GTE_SDD (1u << 12) /* *addr >= data */
#define MI_SEMAPHORE_SAD_LT_SDD (2u << 12)  /* *addr <  data */
#define MI_SEMAPHORE_SAD_LTE_SDD (3u << 12) /* *addr <= data */
#define MI_SEMAPHORE_SAD_EQ_SDD (4u << 12)  /* *addr == data */
#define MI_SEMAPHORE_SAD_NEQ_SDD (5u << 12) /* *addr != data */
#define I915_SEMAPHORE_WAIT_DWORDS 4

/* MI_STORE_DWORD_IMM, gen8 4-dword form: cmd, addr lo, addr hi, value. */
#define MI_STORE_DWORD_IMM_GEN8 MI_INSTR(0x20, 2)
/* Same opcode, 5 dwords with bit 21: cmd, addr lo, addr hi, value lo, value hi. */
#define MI_STORE_QWORD_IMM_GEN8 (MI_INSTR(0x20, 3) | (1u << 21))
#define MI_STORE_QWORD (1u << 21)
#define MI_USE_GGTT (1u << 22)
#define I915_STORE_DWORD_DWORDS 4
#define I915_STORE_QWORD_DWORDS 5

/* MI_STORE_DWORD_INDEX: cmd, byte offset into the status page, value. */
#define MI_STORE_DWORD_INDEX MI_INSTR(0x21, 1)

/* MI_LOAD_REGISTER_IMM(n): cmd then n (register offset, value) pairs. */
#define MI_LOAD_REGISTER_IMM(n) MI_INSTR(0x22, 2 * (n)-1)
#define MI_LRI_REG_MASK 0x7ffffcu

/* MI_STORE_REGISTER_MEM, gen8 4-dword form: cmd, register, addr lo, addr hi. */
#define MI_STORE_REGISTER_MEM_GEN8 MI_INSTR(0x24, 2)
#define MI_SRM_USE_GGTT (1u << 22)

/* MI_LOAD_REGISTER_MEM (gen8): dword 1 the register, 2-3 the address. */
#define MI_LOAD_REGISTER_MEM_GEN8 MI_INSTR(0x29, 2)
#define MI_LRM_USE_GGTT (1u << 22)

/*
 * MI_FLUSH_DW (blitter and video engines only, not RCS): 4 dwords with a
 * dword post-sync store (cmd, addr lo | MI_FLUSH_DW_USE_GTT, addr hi, value),
 * 5 with a qword store. With MI_FLUSH_DW_STORE_INDEX the address is a byte
 * offset into the status page.
 */
#define MI_FLUSH_DW MI_INSTR(0x26, 1)
#define MI_FLUSH_DW_STORE_INDEX (1u << 21)
#define MI_INVALIDATE_TLB (1u << 18)
#define MI_FLUSH_DW_OP_MASK (3u << 14)
#define MI_FLUSH_DW_OP_NONE (0u << 14)
#define MI_FLUSH_DW_OP_STOREDW (1u << 14)
#define MI_FLUSH_DW_USE_GTT (1u << 2)
#define I915_FLUSH_DW_DWORDS 4

/*
 * MI_BATCH_BUFFER_START, gen8 3-dword form: cmd, addr lo, addr hi. Bit 8
 * selects the PPGTT (clear: GGTT); bit 22 makes the batch second level
 * (its MI_BATCH_BUFFER_END returns to the calling batch).
 */
#define MI_BATCH_BUFFER_START_GEN8 MI_INSTR(0x31, 1)
#define MI_BATCH_PPGTT (1u << 8)
#define MI_BATCH_SECOND_LEVEL (1u << 22)
#define I915_BB_START_DWORDS 3

/*
 * MI_CONDITIONAL_BATCH_BUFFER_END, gen8+ 4 dwords: cmd, data, addr lo, addr
 * hi (a qword-aligned address: bits 2:0 are ignored). With MI_DO_COMPARE the
 * dword at the address is compared with the data: the batch goes on while
 * "memory OP data" holds (OP from bits 14:12, the MI_SEMAPHORE_SAD_* codes;
 * 0 = "memory > data", the gen8 behaviour) and ends otherwise; without
 * MI_DO_COMPARE the command does nothing. The end is of the whole batch
 * (every level) unless MI_COND_BB_END_CURRENT_LEVEL, which ends only the
 * running level as its MI_BATCH_BUFFER_END would. MI_COND_BB_END_GGTT: the
 * address is in the GGTT (clear: the running ppGTT).
 */
#define MI_CONDITIONAL_BATCH_BUFFER_END MI_INSTR(0x36, 2)
#define MI_COND_BB_END_GGTT (1u << 22)
#define MI_DO_COMPARE (1u << 21)
#define MI_COND_BB_END_CURRENT_LEVEL (1u << 18)
#define I915_COND_BB_END_DWORDS 4

/* PIPE_CONTROL (render only), gen8 6 dwords: cmd, flags, addr lo, hi, data lo, hi. */
#define GFX_OP_PIPE_CONTROL(len) ((0x3u << 29) | (0x3u << 27) | (0x2u << 24) | ((len)-2))
#define PIPE_CONTROL_OPCODE_MASK 0xffff0000u
#define PIPE_CONTROL_GLOBAL_GTT_IVB (1u << 24)
#define PIPE_CONTROL_STORE_DATA_INDEX (1u << 21)
#define PIPE_CONTROL_CS_STALL (1u << 20)
#define PIPE_CONTROL_POSTSYNC_MASK (3u << 14)
#define PIPE_CONTROL_QW_WRITE (1u << 14)
#define I915_PIPE_CONTROL_DWORDS 6

/* 2D (blitter) commands: opcode in bits 28:22, length (dwords - 2) in 7:0. */
#define I915_2D_OPCODE(dw) (((dw) >> 22) & 0x7f)
#define BLT_LEN(dw) ((dw)&0xff)
#define BLT_WRITE_ALPHA (1u << 21)
#define BLT_WRITE_RGB (1u << 20)
#define BLT_WRITE_RGBA (BLT_WRITE_RGB | BLT_WRITE_ALPHA)

/* BR13 (dword 1 of XY_COLOR_BLT / XY_SRC_COPY_BLT). */
#define BR13_PITCH_MASK 0xffffu
#define BR13_ROP_SHIFT 16
#define BR13_ROP_MASK (0xffu << 16)
#define BR13_DEPTH_SHIFT 24
#define BR13_DEPTH_MASK (3u << 24)
#define BR13_8 (0u << 24)
#define BR13_565 (1u << 24)
#define BR13_1555 (2u << 24)
#define BR13_8888 (3u << 24)
#define BR13_CLIP_ENABLE (1u << 30)
#define ROP_SRCCOPY 0xccu /* D = S */
#define ROP_PATCOPY 0xf0u /* D = P (the fill colour) */

/*
 * XY_COLOR_BLT, gen8 7 dwords: cmd, BR13, y1<<16|x1, y2<<16|x2 (exclusive),
 * addr lo, addr hi, colour.
 */
#define XY_COLOR_BLT_CMD ((I915_CLIENT_2D << 29) | (0x50u << 22))
#define I915_COLOR_BLT_DWORDS 7

/*
 * XY_SRC_COPY_BLT, gen8 10 dwords: cmd, BR13 (dst pitch), dst y1<<16|x1,
 * dst y2<<16|x2, dst lo, dst hi, src y1<<16|x1, src pitch, src lo, src hi.
 */
#define XY_SRC_COPY_BLT_CMD ((I915_CLIENT_2D << 29) | (0x53u << 22))
#define XY_SRC_COPY_BLT_SRC_TILED (1u << 15)
#define XY_SRC_COPY_BLT_DST_TILED (1u << 11)
#define I915_SRC_COPY_BLT_DWORDS 10

/*
 * XY_FAST_COPY_BLT, 10 dwords: cmd (tiling modes), dw1 = colour depth |
 * dst pitch in bytes, dst y1<<16|x1, dst y2<<16|x2, dst lo, dst hi,
 * src y1<<16|x1, src pitch, src lo, src hi.
 */
#define XY_FAST_COPY_BLT_CMD ((I915_CLIENT_2D << 29) | (0x42u << 22))
#define XY_FAST_COPY_SRC_TILE_MASK (3u << 20)
#define XY_FAST_COPY_DST_TILE_MASK (3u << 13)
#define XY_FAST_COPY_BPP_MASK (7u << 24)
#define XY_FAST_COPY_BPP_8 (0u << 24)
#define XY_FAST_COPY_BPP_16 (1u << 24)
#define XY_FAST_COPY_BPP_32 (3u << 24)
#define XY_FAST_COPY_BPP_64 (4u << 24)
#define XY_FAST_COPY_BPP_128 (5u << 24)
#define I915_FAST_COPY_BLT_DWORDS 10

/* Largest coordinate a 16-bit blitter field carries. */
#define I915_BLT_MAX_COORD 0x7fffu

static inline uint32_t i915_lower_32(uint64_t v)
{
	return (uint32_t)v;
}

static inline uint32_t i915_upper_32(uint64_t v)
{
	return (uint32_t)(v >> 32);
}

static inline uint32_t *i915_emit_noop(uint32_t *cs)
{
	*cs++ = MI_NOOP;
	return cs;
}

static inline uint32_t *i915_emit_user_interrupt(uint32_t *cs)
{
	*cs++ = MI_USER_INTERRUPT;
	return cs;
}

static inline uint32_t *i915_emit_bb_end(uint32_t *cs)
{
	*cs++ = MI_BATCH_BUFFER_END;
	return cs;
}

/* i915_emit_bb_start - jump (chain) to a first-level batch at GGTT @addr. */
static inline uint32_t *i915_emit_bb_start(uint32_t *cs, uint64_t addr)
{
	*cs++ = MI_BATCH_BUFFER_START_GEN8;
	*cs++ = i915_lower_32(addr);
	*cs++ = i915_upper_32(addr);
	return cs;
}

/* i915_emit_bb_start_ppgtt - start a first-level batch at @addr of the running ppGTT. */
static inline uint32_t *i915_emit_bb_start_ppgtt(uint32_t *cs, uint64_t addr)
{
	*cs++ = MI_BATCH_BUFFER_START_GEN8 | MI_BATCH_PPGTT;
	*cs++ = i915_lower_32(addr);
	*cs++ = i915_upper_32(addr);
	return cs;
}

/* i915_emit_bb_call - call a second-level batch; its BB_END returns here. */
static inline uint32_t *i915_emit_bb_call(uint32_t *cs, uint64_t addr)
{
	*cs++ = MI_BATCH_BUFFER_START_GEN8 | MI_BATCH_SECOND_LEVEL;
	*cs++ = i915_lower_32(addr);
	*cs++ = i915_upper_32(addr);
	return cs;
}

/*
 * i915_emit_cond_bb_end_ppgtt - end the batch unless the dword at ppGTT @addr
 * is greater than @data (the gen8 compare, as igt's spinner uses it).
 */
static inline uint32_t *i915_emit_cond_bb_end_ppgtt(uint32_t *cs, uint64_t addr, uint32_t data)
{
	*cs++ = MI_CONDITIONAL_BATCH_BUFFER_END | MI_DO_COMPARE;
	*cs++ = data;
	*cs++ = i915_lower_32(addr);
	*cs++ = i915_upper_32(addr);
	return cs;
}

static inline uint32_t *i915_emit_store_dword_imm(uint32_t *cs, uint64_t addr, uint32_t value)
{
	*cs++ = MI_STORE_DWORD_IMM_GEN8 | MI_USE_GGTT;
	*cs++ = i915_lower_32(addr);
	*cs++ = i915_upper_32(addr);
	*cs++ = value;
	return cs;
}

static inline uint32_t *i915_emit_store_qword_imm(uint32_t *cs, uint64_t addr, uint64_t value)
{
	*cs++ = MI_STORE_QWORD_IMM_GEN8 | MI_USE_GGTT;
	*cs++ = i915_lower_32(addr);
	*cs++ = i915_upper_32(addr);
	*cs++ = i915_lower_32(value);
	*cs++ = i915_upper_32(value);
	return cs;
}

/* i915_emit_store_dword_index - store @value at byte @offset of the status page. */
static inline uint32_t *i915_emit_store_dword_index(uint32_t *cs, uint32_t offset, uint32_t value)
{
	*cs++ = MI_STORE_DWORD_INDEX;
	*cs++ = offset;
	*cs++ = value;
	return cs;
}

/* i915_emit_lri - load one register (@reg is an MMIO offset) with @value. */
static inline uint32_t *i915_emit_lri(uint32_t *cs, uint32_t reg, uint32_t value)
{
	*cs++ = MI_LOAD_REGISTER_IMM(1);
	*cs++ = reg;
	*cs++ = value;
	return cs;
}

static inline uint32_t *i915_emit_store_register_mem(uint32_t *cs, uint32_t reg, uint64_t addr)
{
	*cs++ = MI_STORE_REGISTER_MEM_GEN8 | MI_SRM_USE_GGTT;
	*cs++ = reg;
	*cs++ = i915_lower_32(addr);
	*cs++ = i915_upper_32(addr);
	return cs;
}

/* i915_emit_flush_dw_store - MI_FLUSH_DW with a post-sync dword store to GGTT @addr. */
static inline uint32_t *i915_emit_flush_dw_store(uint32_t *cs, uint64_t addr, uint32_t value)
{
	*cs++ = (MI_FLUSH_DW | MI_FLUSH_DW_OP_STOREDW) + 1;
	*cs++ = i915_lower_32(addr) | MI_FLUSH_DW_USE_GTT;
	*cs++ = i915_upper_32(addr);
	*cs++ = value;
	return cs;
}

/* i915_emit_flush_dw_store_qword - MI_FLUSH_DW with a post-sync qword store. */
static inline uint32_t *i915_emit_flush_dw_store_qword(uint32_t *cs, uint64_t addr, uint64_t value)
{
	*cs++ = (MI_FLUSH_DW | MI_FLUSH_DW_OP_STOREDW) + 2;
	*cs++ = i915_lower_32(addr) | MI_FLUSH_DW_USE_GTT;
	*cs++ = i915_upper_32(addr);
	*cs++ = i915_lower_32(value);
	*cs++ = i915_upper_32(value);
	return cs;
}

/* i915_emit_pipe_control_store - render post-sync qword write of @value. */
static inline uint32_t *i915_emit_pipe_control_store(uint32_t *cs, uint64_t addr, uint64_t value)
{
	*cs++ = GFX_OP_PIPE_CONTROL(6);
	*cs++ = PIPE_CONTROL_QW_WRITE | PIPE_CONTROL_GLOBAL_GTT_IVB | PIPE_CONTROL_CS_STALL;
	*cs++ = i915_lower_32(addr);
	*cs++ = i915_upper_32(addr);
	*cs++ = i915_lower_32(value);
	*cs++ = i915_upper_32(value);
	return cs;
}

/*
 * i915_emit_semaphore_wait - poll the dword at GGTT @addr until
 * "*addr <op> @value" holds; @op is one of MI_SEMAPHORE_SAD_*.
 */
static inline uint32_t *i915_emit_semaphore_wait(uint32_t *cs, uint64_t addr, uint32_t op,
						 uint32_t value)
{
	*cs++ = MI_SEMAPHORE_WAIT | MI_SEMAPHORE_GLOBAL_GTT | MI_SEMAPHORE_POLL |
		(op & MI_SEMAPHORE_COMPARE_MASK);
	*cs++ = value;
	*cs++ = i915_lower_32(addr);
	*cs++ = i915_upper_32(addr);
	return cs;
}

/*
 * i915_emit_fast_copy_blt - linear copy of @height rows of @width_bytes from
 * @src (pitch @src_pitch) to @dst (pitch @dst_pitch), 8 bpp so any byte
 * width works. Pitches and sizes must fit the 16-bit fields.
 */
static inline uint32_t *i915_emit_fast_copy_blt(uint32_t *cs, uint64_t dst, uint32_t dst_pitch,
						uint64_t src, uint32_t src_pitch,
						uint32_t width_bytes, uint32_t height)
{
	*cs++ = XY_FAST_COPY_BLT_CMD | (I915_FAST_COPY_BLT_DWORDS - 2);
	*cs++ = XY_FAST_COPY_BPP_8 | (dst_pitch & 0xffffu);
	*cs++ = 0;
	*cs++ = (height << 16) | width_bytes;
	*cs++ = i915_lower_32(dst);
	*cs++ = i915_upper_32(dst);
	*cs++ = 0;
	*cs++ = src_pitch & 0xffffu;
	*cs++ = i915_lower_32(src);
	*cs++ = i915_upper_32(src);
	return cs;
}

/* Encode a blitter colour depth in bytes per pixel (1, 2, 4) as BR13 bits. */
static inline uint32_t i915_br13_depth(unsigned int cpp)
{
	return cpp == 4 ? BR13_8888 : cpp == 2 ? BR13_565 : BR13_8;
}

/*
 * i915_emit_src_copy_blt - XY_SRC_COPY_BLT of a @w x @h pixel rectangle at
 * (@sx, @sy) in @src to (@dx, @dy) in @dst, @cpp bytes per pixel (1/2/4).
 */
static inline uint32_t *i915_emit_src_copy_blt(uint32_t *cs, unsigned int cpp, uint64_t dst,
					       uint32_t dst_pitch, uint32_t dx, uint32_t dy,
					       uint64_t src, uint32_t src_pitch, uint32_t sx,
					       uint32_t sy, uint32_t w, uint32_t h)
{
	*cs++ =
	    XY_SRC_COPY_BLT_CMD | (cpp == 4 ? BLT_WRITE_RGBA : 0) | (I915_SRC_COPY_BLT_DWORDS - 2);
	*cs++ = i915_br13_depth(cpp) | (ROP_SRCCOPY << BR13_ROP_SHIFT) | (dst_pitch & 0xffffu);
	*cs++ = (dy << 16) | dx;
	*cs++ = ((dy + h) << 16) | (dx + w);
	*cs++ = i915_lower_32(dst);
	*cs++ = i915_upper_32(dst);
	*cs++ = (sy << 16) | sx;
	*cs++ = src_pitch & 0xffffu;
	*cs++ = i915_lower_32(src);
	*cs++ = i915_upper_32(src);
	return cs;
}

/*
 * i915_emit_color_blt - fill the @w x @h pixel rectangle at (@x, @y) of
 * @dst with @color, @cpp bytes per pixel (1/2/4).
 */
static inline uint32_t *i915_emit_color_blt(uint32_t *cs, unsigned int cpp, uint64_t dst,
					    uint32_t pitch, uint32_t x, uint32_t y, uint32_t w,
					    uint32_t h, uint32_t color)
{
	*cs++ = XY_COLOR_BLT_CMD | (cpp == 4 ? BLT_WRITE_RGBA : 0) | (I915_COLOR_BLT_DWORDS - 2);
	*cs++ = i915_br13_depth(cpp) | (ROP_PATCOPY << BR13_ROP_SHIFT) | (pitch & 0xffffu);
	*cs++ = (y << 16) | x;
	*cs++ = ((y + h) << 16) | (x + w);
	*cs++ = i915_lower_32(dst);
	*cs++ = i915_upper_32(dst);
	*cs++ = color;
	return cs;
}

#endif /* I915_CMDS_H */
