// SPDX-License-Identifier: MIT
/*
 * fuzz-gem-uapi - libFuzzer target for the i915 GEM uAPI (i915_gem_ioctl).
 *
 * Each input is a session on a simulated i915 (tgl or dg2, chosen by the
 * first byte; each probed once for the whole run, as the device outlives
 * its clients): a render file and a primary file, then a program of
 * ioctls. Every request picks one of the kernel's request values (or a
 * random one, or a real one with a wrong size or direction), a file, and
 * an argument filled with the fuzzer's bytes. Pointers are the hard part
 * of a userspace callee: the driver reads and writes them with checked
 * copies, so a wild pointer must give -EFAULT, but a pointer that happens
 * to be valid memory of this process would let the driver write over the
 * fuzzer itself. So every 8-byte word of the argument and of the scratch
 * area it may point into that is not a small number is replaced by a
 * pointer into the scratch area, an unmapped address or NULL. Handle
 * fields are often patched with handles the session has seen.
 *
 * Properties: every call returns 0 or a negative errno; nothing crashes,
 * hangs or trips a sanitizer; once both files are closed and the GPU is
 * idle, no object of the session is left alive.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ttm/dma_fence.h>

#include <drmcore/drm_fd.h>

#include "../i915/gem/gem_priv.h"
#include "fuzz_gem.h"
#include "fuzz_input.h"

#define MAX_ARG 256
#define SCRATCH_WORDS 2048
#define SMALL 65536u

static uint64_t scratch[SCRATCH_WORDS];
static struct i915_device *devices[2];

static const unsigned long fz_requests[] = {
    DRM_IOCTL_VERSION,
    DRM_IOCTL_GET_CAP,
    DRM_IOCTL_SET_CLIENT_CAP,
    DRM_IOCTL_GET_MAGIC,
    DRM_IOCTL_AUTH_MAGIC,
    DRM_IOCTL_GEM_CLOSE,
    DRM_IOCTL_GEM_FLINK,
    DRM_IOCTL_GEM_OPEN,
    DRM_IOCTL_PRIME_HANDLE_TO_FD,
    DRM_IOCTL_SYNCOBJ_CREATE,
    DRM_IOCTL_SYNCOBJ_DESTROY,
    DRM_IOCTL_SYNCOBJ_WAIT,
    DRM_IOCTL_SYNCOBJ_RESET,
    DRM_IOCTL_SYNCOBJ_SIGNAL,
    DRM_IOCTL_SYNCOBJ_QUERY,
    DRM_IOCTL_I915_GETPARAM,
    DRM_IOCTL_I915_GEM_CREATE,
    DRM_IOCTL_I915_GEM_CREATE_EXT,
    DRM_IOCTL_I915_GEM_MMAP_OFFSET,
    DRM_IOCTL_I915_GEM_MMAP_GTT,
    DRM_IOCTL_I915_GEM_PREAD,
    DRM_IOCTL_I915_GEM_PWRITE,
    DRM_IOCTL_I915_GEM_SET_DOMAIN,
    DRM_IOCTL_I915_GEM_SW_FINISH,
    DRM_IOCTL_I915_GEM_BUSY,
    DRM_IOCTL_I915_GEM_WAIT,
    DRM_IOCTL_I915_GEM_MADVISE,
    DRM_IOCTL_I915_GEM_SET_TILING,
    DRM_IOCTL_I915_GEM_GET_TILING,
    DRM_IOCTL_I915_GEM_SET_CACHING,
    DRM_IOCTL_I915_GEM_GET_CACHING,
    DRM_IOCTL_I915_GEM_GET_APERTURE,
    DRM_IOCTL_I915_GEM_THROTTLE,
    DRM_IOCTL_I915_GEM_CONTEXT_CREATE,
    DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT,
    DRM_IOCTL_I915_GEM_CONTEXT_DESTROY,
    DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM,
    DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM,
    DRM_IOCTL_I915_GEM_VM_CREATE,
    DRM_IOCTL_I915_GEM_VM_DESTROY,
    DRM_IOCTL_I915_GET_RESET_STATS,
    DRM_IOCTL_I915_QUERY,
    DRM_IOCTL_I915_REG_READ,
    DRM_IOCTL_I915_GEM_EXECBUFFER2,
    DRM_IOCTL_I915_GEM_EXECBUFFER2_WR,
};

#define N_REQUESTS (sizeof(fz_requests) / sizeof(fz_requests[0]))

/* A word that is not a small number becomes a pointer the driver may follow. */
static uint64_t fz_pointer(struct fuzz_input *in, uint64_t v)
{
	if (v < SMALL)
		return v;
	switch (fuzz_u8(in) & 3) {
	case 0:
		return 0;
	case 1:
		return 8; /* never mapped */
	case 2:
		return 0xffff800000000000ull; /* not a user address */
	default:
		/* Into the scratch area, leaving room for the largest struct. */
		return (uint64_t)(uintptr_t)&scratch[(v >> 3) % (SCRATCH_WORDS - MAX_ARG / 8)];
	}
}

static void fz_sanitize(struct fuzz_input *in, uint64_t *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		words[i] = fz_pointer(in, words[i]);
}

/* A mmap and munmap of an offset the session got, as a client would. */
static void fz_mmap(struct i915_device *i915, struct i915_gem_file *file, uint64_t offset,
		    size_t len)
{
	void *addr = NULL;
	int ret = i915_gem_mmap(file, NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
				(off_t)(offset & INT64_MAX), &addr);

	fuzz_check(ret <= 0);
	if (!ret) {
		((volatile uint8_t *)addr)[0] = 1;
		fuzz_check(i915_gem_munmap(i915, addr, len) == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
FUZZ_DEFINE_INITIALIZE()

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in;
	struct i915_device *i915;
	struct i915_gem_file *files[2];
	uint32_t handles[16] = {0};
	uint64_t offsets[4] = {0};
	unsigned int nhandles = 0, steps = 0, profile;

	fuzz_input_init(&in, data, size);
	profile = fuzz_u8(&in) & 1;
	if (!devices[profile] && i915_gem_device_create(profile ? "dg2" : "tgl", &devices[profile]))
		return 0;
	i915 = devices[profile];
	if (i915_gem_file_open(i915, true, &files[0]))
		return 0;
	if (i915_gem_file_open(i915, false, &files[1])) {
		i915_gem_file_close(files[0]);
		return 0;
	}
	while (!fuzz_input_done(&in) && steps++ < 64) {
		uint8_t op = fuzz_u8(&in), which = fuzz_u8(&in);
		struct i915_gem_file *file = files[which & 1];
		unsigned long req = fz_requests[op % N_REQUESTS];
		uint64_t arg[MAX_ARG / 8];
		size_t len;
		int ret;

		if (op >= 0xf8) {
			fz_mmap(i915, file, offsets[which % 4], (size_t)4096 << (which >> 6));
			continue;
		}
		if (op >= 0xf0) {
			/* A real request with its size or direction bits bent. */
			req ^= (unsigned long)fuzz_u16(&in) << 16;
		} else if (op >= 0xe8) {
			req = (unsigned long)fuzz_u16(&in) | ((unsigned long)fuzz_u16(&in) << 16);
		}
		len = _IOC_SIZE(req);
		if (len > MAX_ARG)
			continue;
		memset(arg, 0, sizeof(arg));
		for (size_t i = 0; i < sizeof(arg); i++)
			((uint8_t *)arg)[i] = fuzz_u8(&in);
		fz_sanitize(&in, arg, sizeof(arg) / 8);
		for (size_t i = 0; i < SCRATCH_WORDS; i += 97)
			scratch[i] = fz_pointer(&in, fuzz_u64(&in));
		/* Most requests name a handle in their first word. */
		if (nhandles && (which & 0x10))
			memcpy(arg, &handles[which % nhandles], sizeof(uint32_t));
		ret = i915_gem_ioctl(file, req, (which & 0x60) != 0x60 ? (void *)arg : (void *)8);
		fuzz_check(ret <= 0);
		if (ret)
			continue;
		if (req == DRM_IOCTL_I915_GEM_CREATE || req == DRM_IOCTL_I915_GEM_CREATE_EXT) {
			handles[nhandles++ % 16] = ((struct drm_i915_gem_create *)arg)->handle;
			nhandles = nhandles > 16 ? 16 : nhandles;
		} else if (req == DRM_IOCTL_I915_GEM_MMAP_OFFSET) {
			offsets[which % 4] = ((struct drm_i915_gem_mmap_offset *)arg)->offset;
		} else if (req == DRM_IOCTL_PRIME_HANDLE_TO_FD) {
			close(((struct drm_prime_handle *)arg)->fd);
		}
	}
	i915_gem_file_close(files[1]);
	i915_gem_file_close(files[0]);
	/* Descriptors the program never closed (out-fences, dma-bufs) go too. */
	for (int fd = 3; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0 && drm_fd_kind(fd) != DRM_FD_NONE)
			drm_fd_close(fd, close);
	/* Queued batches and the GPU finish; then nothing of the session is left. */
	fuzz_gem_check_quiet(i915);
	return 0;
}
