/* SPDX-License-Identifier: MIT */
/*
 * USDT probes, provider "ttm". With sys/sdt.h each probe is a single nop plus
 * an ELF note (and a semaphore-free site), so a disabled probe costs one
 * instruction; without it the macros expand to nothing. perf picks them up as
 * sdt_ttm:<name> after `perf probe -x <binary> sdt_ttm:<name>` (or
 * `perf buildid-cache --add`), see scripts/perf-profile.sh.
 *
 * Probe names used by the project (keep this list in sync with the script):
 *   validate_begin(bo, size)       validate_end(bo, ret, bytes_moved)
 *   evict(bo, from_mem_type, size)   move(bo, bytes, from, to)
 *   swapout(bo, pages)  swapin(bo, pages)
 *   fence_emit(ctx, seqno)  fence_signal(ctx, seqno)  fence_wait(ctx, seqno)
 *   execbuf_submit(fence_ctx, nbufs, seqno)  (the request's fence: matches fence_signal)
 */
#ifndef TTM_TRACE_H
#define TTM_TRACE_H

#include "ttm_config.h"

#if TTM_HAVE_SDT
#include <sys/sdt.h>
#define TTM_PROBE0(n) STAP_PROBE(ttm, n)
#define TTM_PROBE1(n, a) STAP_PROBE1(ttm, n, a)
#define TTM_PROBE2(n, a, b) STAP_PROBE2(ttm, n, a, b)
#define TTM_PROBE3(n, a, b, c) STAP_PROBE3(ttm, n, a, b, c)
#define TTM_PROBE4(n, a, b, c, d) STAP_PROBE4(ttm, n, a, b, c, d)
#else
#define TTM_PROBE0(n)                                                                              \
	do {                                                                                       \
	} while (0)
#define TTM_PROBE1(n, a)                                                                           \
	do {                                                                                       \
		(void)(a);                                                                         \
	} while (0)
#define TTM_PROBE2(n, a, b)                                                                        \
	do {                                                                                       \
		(void)(a);                                                                         \
		(void)(b);                                                                         \
	} while (0)
#define TTM_PROBE3(n, a, b, c)                                                                     \
	do {                                                                                       \
		(void)(a);                                                                         \
		(void)(b);                                                                         \
		(void)(c);                                                                         \
	} while (0)
#define TTM_PROBE4(n, a, b, c, d)                                                                  \
	do {                                                                                       \
		(void)(a);                                                                         \
		(void)(b);                                                                         \
		(void)(c);                                                                         \
		(void)(d);                                                                         \
	} while (0)
#endif

#endif /* TTM_TRACE_H */
