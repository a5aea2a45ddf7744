// SPDX-License-Identifier: MIT
/*
 * stress-server: N client processes share buffer objects through PRIME and
 * flink over the device server, submit against each other's buffers, and
 * are SIGKILLed at random points for a fixed time. At the end every shared
 * object's content must still match its checksum and the server's counts
 * (open files, held descriptors, GEM objects) must be back at their start.
 *
 *   stress-server [-n PROCS] [-d SECONDS] [-s SEED]   (defaults 8, 10, time)
 *
 * The device and its server live in this process, which is a client too:
 * it creates the shared objects, exports them (a flink name and a dma-buf
 * each) before forking the workers, and kills and respawns them.
 * Exit: 0 pass, 1 fail (what failed on stderr), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <testlib/checksum.h>
#include <testlib/prng.h>

#include "server.h"

#define SHARED 16
#define BO_SIZE 16384
#define MAX_PROCS 64

static struct {
	uint32_t flink[SHARED];
	int dmabuf[SHARED];
	uint64_t sum[SHARED];
} shared;

static const char *sock_path;

static int create(int conn, uint64_t file, uint32_t *handle)
{
	struct drm_i915_gem_create c = {.size = BO_SIZE};
	int ret = srv_client_ioctl(conn, file, -1, DRM_IOCTL_I915_GEM_CREATE, &c, NULL);

	*handle = c.handle;
	return ret;
}

static void gem_close(int conn, uint64_t file, uint32_t handle)
{
	struct drm_gem_close c = {.handle = handle};

	srv_client_ioctl(conn, file, -1, DRM_IOCTL_GEM_CLOSE, &c, NULL);
}

/* A worker: never returns; exits non-zero on a wrong checksum. */
static void worker(uint64_t seed)
{
	static unsigned char buf[BO_SIZE];
	uint32_t bbe[2] = {0x0a << 23, 0};
	int conn = srv_connect(sock_path), card_a, render_a;
	uint64_t card, render;
	uint32_t batch;

	if (conn < 0 || srv_client_open(conn, 0, 1, &card_a, &card) ||
	    srv_client_open(conn, 128, 1, &render_a, &render) || create(conn, render, &batch) ||
	    srv_client_gem_rw(conn, render, batch, bbe, sizeof(bbe), true))
		_exit(3);
	for (;;) {
		unsigned int i = (unsigned int)(prng_step(&seed) % SHARED);
		bool use_flink = prng_step(&seed) & 1;
		uint64_t file = use_flink ? card : render;
		uint32_t handle = 0, mine = 0;
		int ret;

		if (use_flink) {
			struct drm_gem_open o = {.name = shared.flink[i]};

			ret = srv_client_ioctl(conn, card, -1, DRM_IOCTL_GEM_OPEN, &o, NULL);
			handle = o.handle;
		} else {
			struct drm_prime_handle p = {.fd = shared.dmabuf[i]};

			ret = srv_client_ioctl(conn, render, -1, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p,
					       NULL);
			handle = p.handle;
		}
		if (ret)
			_exit(4);
		if (srv_client_gem_rw(conn, file, handle, buf, sizeof(buf), false))
			_exit(5);
		if (testlib_checksum(buf, sizeof(buf)) != shared.sum[i]) {
			fprintf(stderr,
				"stress-server: pid %d: shared object %u has wrong content\n",
				(int)getpid(), i);
			_exit(1);
		}
		/* Submit against the shared object, and write a private one. */
		if (!use_flink) {
			struct drm_i915_gem_exec_object2 objs[2] = {{.handle = handle},
								    {.handle = batch}};
			struct drm_i915_gem_execbuffer2 eb = {
			    .buffers_ptr = (uint64_t)(uintptr_t)objs,
			    .buffer_count = 2,
			};

			if (srv_client_ioctl(conn, render, -1, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb,
					     NULL))
				_exit(6);
		}
		if (!create(conn, file, &mine)) {
			memset(buf, (int)(seed & 0xff), sizeof(buf));
			if (srv_client_gem_rw(conn, file, mine, buf, sizeof(buf), true))
				_exit(7);
			if (prng_step(&seed) & 1)
				gem_close(conn, file, mine); /* else left for the kill to clean */
		}
		gem_close(conn, file, handle);
	}
}

static pid_t spawn(uint64_t seed)
{
	pid_t pid = fork();

	if (pid == 0)
		worker(seed);
	return pid;
}

static int settle(struct srv *s, const struct srv_stats *want, struct srv_stats *got)
{
	struct timespec ms = {0, 2000000};

	for (int i = 0; i < 2500; i++) {
		srv_get_stats(s, got);
		if (got->files == want->files && got->held_fds == want->held_fds &&
		    got->objects == want->objects && got->conns == want->conns)
			return 0;
		nanosleep(&ms, NULL);
	}
	return -1;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/ttm-srv-stress.XXXXXX", path[96];
	int nprocs = 8, opt, conn, card_a, fails = 0;
	double seconds = 10;
	uint64_t seed = (uint64_t)time(NULL), card, kills = 0;
	struct srv_stats start, end;
	struct i915_device *i915;
	struct timespec t0, now;
	pid_t pids[MAX_PROCS];
	uint32_t handles[SHARED];
	struct srv *s;

	while ((opt = getopt(argc, argv, "n:d:s:")) != -1) {
		char *end_p;

		switch (opt) {
		case 'n':
			nprocs = (int)strtol(optarg, &end_p, 10);
			if (*end_p || nprocs < 1 || nprocs > MAX_PROCS)
				goto usage;
			break;
		case 'd':
			seconds = strtod(optarg, &end_p);
			if (*end_p || !(seconds > 0))
				goto usage;
			break;
		case 's':
			seed = strtoull(optarg, &end_p, 0);
			if (*end_p)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc)
		goto usage;
	seed |= 1;
	printf("stress-server: %d processes, %.1f s, seed %llu\n", nprocs, seconds,
	       (unsigned long long)seed);
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/s.sock", dir);
	sock_path = path;
	if (i915_gem_device_create(NULL, &i915) || srv_create(i915, path, NULL, &s))
		return 1;
	srv_get_stats(s, &start);
	conn = srv_connect(path);
	if (conn < 0 || srv_client_open(conn, 0, 1, &card_a, &card))
		return 1;
	for (int i = 0; i < SHARED; i++) {
		static unsigned char buf[BO_SIZE];
		struct drm_gem_flink fl = {0};
		struct drm_prime_handle p = {.flags = DRM_CLOEXEC};

		for (size_t b = 0; b < sizeof(buf); b++)
			buf[b] = (unsigned char)prng_step(&seed);
		shared.sum[i] = testlib_checksum(buf, sizeof(buf));
		if (create(conn, card, &handles[i]) ||
		    srv_client_gem_rw(conn, card, handles[i], buf, sizeof(buf), true))
			return 1;
		fl.handle = handles[i];
		p.handle = handles[i];
		if (srv_client_ioctl(conn, card, -1, DRM_IOCTL_GEM_FLINK, &fl, NULL) ||
		    srv_client_ioctl(conn, card, -1, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p, NULL))
			return 1;
		shared.flink[i] = fl.name;
		shared.dmabuf[i] = p.fd;
		/* Not close-on-exec matters not: the workers are forks. */
	}
	for (int i = 0; i < nprocs; i++)
		pids[i] = spawn(prng_step(&seed));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct timespec d = {0, (long)(prng_step(&seed) % 40 + 1) * 1000000};
		int i = (int)(prng_step(&seed) % (uint64_t)nprocs), status;

		nanosleep(&d, NULL);
		/* A worker that exited on its own failed a check. */
		for (int j = 0; j < nprocs; j++) {
			if (waitpid(pids[j], &status, WNOHANG) == pids[j]) {
				fprintf(stderr, "stress-server: worker %d exited with %d\n",
					(int)pids[j], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
				fails++;
				pids[j] = spawn(prng_step(&seed));
			}
		}
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
		kills++;
		pids[i] = spawn(prng_step(&seed));
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9 >
		    seconds)
			break;
	}
	for (int i = 0; i < nprocs; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	/* The shared objects' content, read back by their creator. */
	for (int i = 0; i < SHARED; i++) {
		static unsigned char buf[BO_SIZE];

		if (srv_client_gem_rw(conn, card, handles[i], buf, sizeof(buf), false) ||
		    testlib_checksum(buf, sizeof(buf)) != shared.sum[i]) {
			fprintf(stderr, "stress-server: shared object %d lost its content\n", i);
			fails++;
		}
		close(shared.dmabuf[i]);
	}
	close(card_a);
	close(conn);
	if (settle(s, &start, &end)) {
		fprintf(
		    stderr,
		    "stress-server: counts not back: files %llu (start %llu), conns %llu (%llu), "
		    "held fds %llu (%llu), objects %lld (%lld)\n",
		    (unsigned long long)end.files, (unsigned long long)start.files,
		    (unsigned long long)end.conns, (unsigned long long)start.conns,
		    (unsigned long long)end.held_fds, (unsigned long long)start.held_fds,
		    (long long)end.objects, (long long)start.objects);
		fails++;
	}
	printf("stress-server: %llu kills, %llu requests served, %s\n", (unsigned long long)kills,
	       (unsigned long long)end.calls, fails ? "FAIL" : "pass");
	srv_destroy(s);
	i915_gem_device_destroy(i915);
	unlink(path);
	rmdir(dir);
	return fails ? 1 : 0;

usage:
	fprintf(stderr, "usage: %s [-n PROCS] [-d SECONDS] [-s SEED]\n", argv[0]);
	return 2;
}
