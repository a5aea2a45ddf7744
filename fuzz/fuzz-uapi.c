// SPDX-License-Identifier: MIT
/*
 * fuzz-uapi - libFuzzer target for the ioctl-style dispatch (ttm_drm_ioctl).
 *
 * Each input is a session: a fresh ttm_drm_device with two clients, then a
 * program of requests. Every request picks one of the uAPI numbers (or a
 * random one), a client (or a closed / never-opened descriptor) and an
 * argument struct of exactly the request's size filled with the fuzzer's
 * bytes; handle fields are optionally patched with handles the session has
 * seen (its own, the other client's, freed ones) so lookups get past the
 * first check. The only pointer in the uAPI, BO_CREATE's buffer_start, is
 * either 0 or a page of this program's own memory, because a userspace
 * callee cannot tell a wild pointer from a good one (the kernel would give
 * -EFAULT). One request in four runs with this thread's Nth fault-point hit
 * failing (fail-nth, N from the input), as syzkaller's fault injection does.
 * Properties: every call returns 0 or a negative errno; nothing
 * crashes, hangs or trips a sanitizer; after both clients close, the device
 * tears down (no buffer left alive) and no fence outlives the session.
 *
 * The driver's fences signal as they are emitted, so no wait can block.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <fault_inject.h>
#include <ttm/dma_fence.h>
#include <ttm/ttm_global.h>
#include <ttm_drm.h>
#include <ttm/ttm_drm_device.h>

#include "fuzz_input.h"
#include "ttm_uapi_mock.h"

#define MAX_ARG 512
#define MAX_HANDLES 32
#define USER_PAGES 4

/*
 * struct fz_request - a request and where its handle fields are.
 * @nr: the DRM_IOCTL_* number.
 * @handle_in: byte offset of the handle the request reads, or -1.
 * @handle_out: byte offset of a handle in the reply, or -1.
 */
struct fz_request {
	unsigned long nr;
	int handle_in;
	int handle_out;
};

#define OFF_INFO_REQ_HANDLE 16 /* drm_bo_info_req.handle */
#define OFF_INFO_REP_HANDLE 48 /* drm_bo_info_rep.handle */

static const struct fz_request fz_requests[] = {
    {DRM_IOCTL_MM_INIT, -1, -1},
    {DRM_IOCTL_MM_TAKEDOWN, -1, -1},
    {DRM_IOCTL_MM_LOCK, -1, -1},
    {DRM_IOCTL_MM_UNLOCK, -1, -1},
    {DRM_IOCTL_MM_INFO, -1, -1},
    {DRM_IOCTL_FENCE_CREATE, -1, 0},
    {DRM_IOCTL_FENCE_REFERENCE, 0, 0},
    {DRM_IOCTL_FENCE_UNREFERENCE, 0, -1},
    {DRM_IOCTL_FENCE_SIGNALED, 0, -1},
    {DRM_IOCTL_FENCE_FLUSH, 0, -1},
    {DRM_IOCTL_FENCE_WAIT, 0, -1},
    {DRM_IOCTL_FENCE_EMIT, 0, -1},
    {DRM_IOCTL_FENCE_BUFFERS, -1, 0},
    {DRM_IOCTL_BO_CREATE, -1, OFF_INFO_REP_HANDLE},
    {DRM_IOCTL_BO_MAP, OFF_INFO_REQ_HANDLE, -1},
    {DRM_IOCTL_BO_UNMAP, 0, -1},
    {DRM_IOCTL_BO_REFERENCE, 0, OFF_INFO_REP_HANDLE},
    {DRM_IOCTL_BO_UNREFERENCE, 0, -1},
    {DRM_IOCTL_BO_SETSTATUS, OFF_INFO_REQ_HANDLE, -1},
    {DRM_IOCTL_BO_INFO, 0, -1},
    {DRM_IOCTL_BO_WAIT_IDLE, OFF_INFO_REQ_HANDLE, -1},
    {DRM_IOCTL_BO_VERSION, -1, -1},
};

#define N_REQUESTS (sizeof(fz_requests) / sizeof(fz_requests[0]))

/* Size of the argument: the number's size field, as the dispatch reads it. */
static size_t fz_arg_size(unsigned long nr)
{
	return (nr >> 16) & 0x3fff;
}

static _Alignas(4096) uint8_t fz_user_mem[USER_PAGES * 4096];
/* Requests that ran with a fault injected, over the run. */
static unsigned long fz_faults;

static void __attribute__((destructor)) fz_report(void)
{
	if (fz_faults)
		fprintf(stderr, "fuzz-uapi: %lu requests ran with an injected fault\n", fz_faults);
}

static bool fz_errno_ok(int ret)
{
	return ret == 0 || (ret < 0 && ret > -4096);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
FUZZ_DEFINE_INITIALIZE()

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static bool once;
	static struct ttm_drm_device ddev;
	uint64_t arg[MAX_ARG / 8];
	uint32_t handles[MAX_HANDLES];
	unsigned nhandles = 0, ops = 0;
	struct fuzz_input in;
	long fences;
	int fd[2];

	if (!once) {
		/* Bound what hostile sizes can make the pools take. */
		struct ttm_global_config cfg = {.limit_pages = 4096};

		ttm_global_config(&cfg);
		ttm_uapi_mock_timelines_init();
		once = true;
	}
	fuzz_input_init(&in, data, len);
	fences = dma_fence_live_count();
	memset(&ddev, 0, sizeof(ddev));
	fuzz_check(ttm_drm_device_init(&ddev, &ttm_uapi_mock_funcs, &ttm_uapi_mock_driver,
				       "fuzz-uapi", false) == 0);
	fd[0] = ttm_drm_open(&ddev);
	fd[1] = ttm_drm_open(&ddev);
	fuzz_check(fd[0] >= 0 && fd[1] >= 0);

	while (!fuzz_input_done(&in) && ops++ < 256) {
		uint8_t sel = fuzz_u8(&in), who = fuzz_u8(&in), patch = fuzz_u8(&in);
		const struct fz_request *rq = &fz_requests[sel % N_REQUESTS];
		unsigned long nr = rq->nr;
		size_t size, n;
		int f, ret;
		unsigned long nth;

		if (sel >= 0xf8) /* an unknown number, or a known one with a bad size */
			nr = sel & 1 ? (unsigned long)fuzz_u64(&in) : nr + (1ul << 16);
		size = fz_arg_size(nr);
		if (size > sizeof(arg))
			size = sizeof(arg);
		memset(arg, 0, sizeof(arg));
		n = fuzz_u8(&in) % (size + 1);
		for (size_t i = 0; i < n; i++)
			((uint8_t *)arg)[i] = fuzz_u8(&in);
		if (rq->handle_in >= 0 && (patch & 3) && nhandles)
			memcpy((uint8_t *)arg + rq->handle_in, &handles[fuzz_u8(&in) % nhandles],
			       4);
		if (rq->nr == DRM_IOCTL_BO_CREATE && nr == rq->nr) {
			struct drm_bo_create_req *req = (void *)arg;

			req->buffer_start = 0;
			if (patch & 4) { /* a user buffer over our own pages */
				req->buffer_start = (uint64_t)(uintptr_t)fz_user_mem;
				req->size %= sizeof(fz_user_mem) + 1;
			}
		}
		f = who % 8 == 7 ? (who & 8 ? -1 : 1000 + who) : fd[who & 1];
		/* One request in four fails its Nth fault-point hit (this thread's). */
		nth = (who & 0x30) == 0x30 ? 1 + fuzz_u8(&in) % 32 : 0;
		fault_thread_fail_nth(NULL, nth);
		ret = ttm_drm_ioctl(f, nr, (patch & 0x80) ? NULL : arg);
		fz_faults += nth && !fault_thread_nth_pending();
		fault_thread_fail_nth(NULL, 0);
		fuzz_check(fz_errno_ok(ret));
		if (!ret && rq->handle_out >= 0 && nr == rq->nr && nhandles < MAX_HANDLES)
			memcpy(&handles[nhandles++], (uint8_t *)arg + rq->handle_out, 4);
		if ((patch & 0x70) == 0x70) { /* a client goes away mid-session */
			fuzz_check(ttm_drm_close(fd[who & 1]) == 0);
			fd[who & 1] = ttm_drm_open(&ddev);
			fuzz_check(fd[who & 1] >= 0);
		}
	}

	fuzz_check(ttm_drm_close(fd[0]) == 0);
	fuzz_check(ttm_drm_close(fd[1]) == 0);
	fuzz_check(ttm_drm_close(fd[0]) == -EBADF);
	/* Closing dropped every reference: the device must come down. */
	fuzz_check(ttm_drm_device_fini(&ddev) == 0);
	fuzz_check(dma_fence_live_count() == fences);
	return 0;
}
