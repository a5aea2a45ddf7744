// SPDX-License-Identifier: MIT
/*
 * fuzz-server-wire: libFuzzer target for the device server's wire protocol.
 *
 * One device and server per process. Each input is one connection, served
 * by srv_serve_fd() on a thread, carrying a program of requests: raw
 * packets of any length and content, OPEN of any minor, ATTACH with
 * anchors, pipes or nothing, IOCTL and FD_IOCTL of known and arbitrary
 * numbers on known and arbitrary files, with descriptors riding along at
 * random. The server must answer every request and survive.
 *
 * Argument memory: the server copies in its client's address space, so
 * the "client" is a sacrificial child process (a fork of this one, asleep),
 * whose scratch page holds the argument bytes; a nested pointer that lands
 * anywhere in it corrupts only that child (respawned when it dies), never
 * the fuzzer. Waits that could block forever are left out.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../fuzz/fuzz_input.h"
#include "server.h"

#define SCRATCH 8192

static struct i915_device *fz_i915;
static struct srv *fz_srv;
static pid_t fz_child;
static unsigned char fz_scratch[SCRATCH] __attribute__((aligned(4096)));

static void fz_spawn(void)
{
	if (fz_child > 0 && !kill(fz_child, 0) && waitpid(fz_child, NULL, WNOHANG) == 0)
		return;
	fz_child = fork();
	if (fz_child == 0) {
		/* Hold none of the fuzzer's pipes: its runner waits for their EOF. */
		int null = open("/dev/null", O_RDWR);

		for (int fd = 0; fd < 3; fd++)
			dup2(null, fd);
		for (;;)
			pause();
	}
}

static void fz_fini(void)
{
	if (fz_child > 0) {
		kill(fz_child, SIGKILL);
		waitpid(fz_child, NULL, 0);
	}
}

static void fz_init(void)
{
	char dir[] = "/tmp/ttm-srv-fuzz.XXXXXX", path[96];

	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/s.sock", dir);
	signal(SIGPIPE, SIG_IGN);
	atexit(fz_fini);
	if (i915_gem_device_create(NULL, &fz_i915) || srv_create(fz_i915, path, NULL, &fz_srv))
		abort();
}

struct fz_serve {
	int fd;
	pid_t pid;
};

static void *fz_serve(void *arg)
{
	struct fz_serve *st = arg;

	srv_serve_fd(fz_srv, st->fd, st->pid);
	return NULL;
}

static const unsigned long fz_requests[] = {
    DRM_IOCTL_I915_GETPARAM,
    DRM_IOCTL_I915_GEM_CREATE,
    DRM_IOCTL_I915_GEM_PWRITE,
    DRM_IOCTL_I915_GEM_PREAD,
    DRM_IOCTL_GEM_CLOSE,
    DRM_IOCTL_GEM_FLINK,
    DRM_IOCTL_GEM_OPEN,
    DRM_IOCTL_PRIME_HANDLE_TO_FD,
    DRM_IOCTL_PRIME_FD_TO_HANDLE,
    DRM_IOCTL_I915_GEM_EXECBUFFER2,
    DRM_IOCTL_I915_GEM_EXECBUFFER2_WR,
    DRM_IOCTL_SYNCOBJ_CREATE,
    DRM_IOCTL_SYNCOBJ_DESTROY,
    DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD,
    DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE,
    DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT,
    DRM_IOCTL_I915_GEM_CONTEXT_DESTROY,
    DRM_IOCTL_I915_QUERY,
    DRM_IOCTL_I915_GEM_MMAP,
    DRM_IOCTL_I915_GEM_MMAP_OFFSET,
    DRM_IOCTL_I915_GEM_BUSY,
    DRM_IOCTL_VERSION,
    SYNC_IOC_MERGE,
    SYNC_IOC_FILE_INFO,
    DMA_BUF_IOCTL_SYNC,
    DMA_BUF_IOCTL_EXPORT_SYNC_FILE,
};

/* Calls that may wait without bound on the fuzzer's whim. */
static bool fz_may_block(unsigned long req)
{
	unsigned int nr = _IOC_NR(req);

	return _IOC_TYPE(req) == 'd' && (nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT) ||
					 nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT) ||
					 nr == _IOC_NR(DRM_IOCTL_I915_GEM_WAIT) ||
					 nr == _IOC_NR(DRM_IOCTL_I915_GEM_SET_DOMAIN) ||
					 nr == _IOC_NR(DRM_IOCTL_I915_GEM_THROTTLE));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in;
	struct fz_serve st;
	pthread_t thread;
	int sv[2], anchors[4] = {-1, -1, -1, -1}, pipefd[2];
	uint64_t ids[4] = {0};
	struct iovec l, r;

	if (!fz_srv)
		fz_init();
	fz_spawn();
	fuzz_input_init(&in, data, size);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) || pipe2(pipefd, O_CLOEXEC))
		abort();
	st = (struct fz_serve){sv[1], fz_child};
	if (pthread_create(&thread, NULL, fz_serve, &st))
		abort();
	for (int steps = 0; steps < 64 && !fuzz_input_done(&in); steps++) {
		uint8_t op = fuzz_u8(&in);
		unsigned int idx = fuzz_u8(&in) % 4;
		struct srv_rep rep;
		int fd_out = -1, nm;

		switch (op % 6) {
		case 0: { /* a raw packet */
			unsigned char pkt[160];
			size_t n = fuzz_u8(&in) % sizeof(pkt);

			for (size_t i = 0; i < n; i++)
				pkt[i] = fuzz_u8(&in);
			if (send(sv[0], pkt, n, MSG_NOSIGNAL) == (ssize_t)n)
				recv(sv[0], &rep, sizeof(rep), 0);
			break;
		}
		case 1: { /* open */
			int minor = (op & 0x40) ? 128 : (op & 0x80) ? (int)fuzz_u8(&in) : 0;

			if (anchors[idx] >= 0)
				close(anchors[idx]);
			anchors[idx] = -1;
			srv_client_open(sv[0], minor, 1, &anchors[idx], &ids[idx]);
			break;
		}
		case 2: { /* attach, with the right anchor, another one or a pipe */
			int fd = (op & 0x40) ? pipefd[0] : anchors[fuzz_u8(&in) % 4];
			uint64_t id = (op & 0x80) ? fuzz_u64(&in) : ids[idx];
			struct srv_req req = {.magic = SRV_MAGIC, .op = SRV_OP_ATTACH, .file = id};

			srv_call(sv[0], &req, &fd, fd >= 0, &rep, &fd_out, 1);
			break;
		}
		default: { /* ioctl on a file or a descriptor */
			unsigned long req =
			    (op & 0x80) ? (unsigned long)(uint32_t)fuzz_u64(&in)
					: fz_requests[fuzz_u8(&in) % (sizeof(fz_requests) /
								      sizeof(fz_requests[0]))];
			size_t off = (size_t)fuzz_u16(&in) % (SCRATCH - 512);
			size_t n = fuzz_u8(&in);
			uint64_t file = (op & 0x40) ? fuzz_u64(&in) : ids[idx];
			int target = op % 6 == 5 ? ((op & 0x20) ? pipefd[0] : anchors[idx]) : -1;

			if (fz_may_block(req))
				break;
			memset(fz_scratch, 0, SCRATCH);
			for (size_t i = 0; i < n; i++)
				fz_scratch[off + i] = fuzz_u8(&in);
			/* The argument lives in the sacrificial child at the same address. */
			l = (struct iovec){fz_scratch, SCRATCH};
			r = (struct iovec){fz_scratch, SCRATCH};
			if (process_vm_writev(fz_child, &l, 1, &r, 1, 0) != SCRATCH)
				break;
			{
				struct srv_req rq = {
				    .magic = SRV_MAGIC,
				    .op =
					target >= 0 || op % 6 == 5 ? SRV_OP_FD_IOCTL : SRV_OP_IOCTL,
				    .file = file,
				    .request = req,
				    .arg = (uint64_t)(uintptr_t)(fz_scratch + off),
				    .flags = (uint32_t)(op & 1),
				};
				int fds[2] = {target >= 0 ? target : pipefd[1], pipefd[0]};

				srv_call(sv[0], &rq, fds, (op >> 1) % 3, &rep, &fd_out, 1);
				(void)nm;
			}
			break;
		}
		}
		if (fd_out >= 0)
			close(fd_out);
	}
	close(sv[0]);
	pthread_join(thread, NULL);
	for (int i = 0; i < 4; i++)
		if (anchors[i] >= 0)
			close(anchors[i]);
	close(pipefd[0]);
	close(pipefd[1]);
	fz_spawn();
	return 0;
}
