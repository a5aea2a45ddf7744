// SPDX-License-Identifier: MIT
/*
 * CPU mappings in forked children, through the device server: run with the
 * node preloaded (LD_PRELOAD=libttm-i915-node.so, tgl). A child maps an
 * object of its parent's file (MMAP_OFFSET + mmap, the legacy GEM_MMAP
 * ioctl, a dma-buf), and its CPU writes are the object's content for the
 * parent and the GPU; the parent swaps the object out while a child has it
 * mapped and the child's next touch sees the content intact (its mapping
 * was revoked before the move and faulted back); a child killed while
 * holding a mapping leaves the server with no mapping of it; a parent
 * reads and writes a stopped child's inherited copy of its mapping with
 * ptrace() and process_vm_readv() (the pages present at fork are present
 * in the child, as the kernel copies the page table entries).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm.h>
#include <i915_drm.h>

#include "ktest.h"
#include "server_wire.h"

#define BO_SIZE (64 * 4096)

static int pread_bo(int fd, uint32_t handle, uint64_t off, void *buf, size_t n)
{
	struct drm_i915_gem_pread p = {
	    .handle = handle, .offset = off, .size = n, .data_ptr = (uint64_t)(uintptr_t)buf};

	return ioctl(fd, DRM_IOCTL_I915_GEM_PREAD, &p);
}

static int pwrite_bo(int fd, uint32_t handle, uint64_t off, const void *buf, size_t n)
{
	struct drm_i915_gem_pwrite p = {
	    .handle = handle, .offset = off, .size = n, .data_ptr = (uint64_t)(uintptr_t)buf};

	return ioctl(fd, DRM_IOCTL_I915_GEM_PWRITE, &p);
}

static int create_bo(int fd, uint32_t *handle)
{
	struct drm_i915_gem_create c = {.size = BO_SIZE};
	int ret = ioctl(fd, DRM_IOCTL_I915_GEM_CREATE, &c);

	*handle = c.handle;
	return ret;
}

/* A CPU (write-back) mapping of the whole object through MMAP_OFFSET. */
static void *map_offset(int fd, uint32_t handle)
{
	struct drm_i915_gem_mmap_offset mo = {.handle = handle, .flags = I915_MMAP_OFFSET_WB};
	void *p;

	if (ioctl(fd, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mo))
		return NULL;
	p = mmap(NULL, BO_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)mo.offset);
	return p == MAP_FAILED ? NULL : p;
}

/* The legacy GEM_MMAP ioctl (gem_mmap__cpu). */
static void *map_legacy(int fd, uint32_t handle)
{
	struct drm_i915_gem_mmap m = {.handle = handle, .size = BO_SIZE};

	if (ioctl(fd, DRM_IOCTL_I915_GEM_MMAP, &m))
		return NULL;
	return (void *)(uintptr_t)m.addr_ptr;
}

/* debugfs i915_gem_drop_caches: evict and swap out every idle object. */
static int drop_caches(void)
{
	static const char *const paths[] = {"/sys/kernel/debug/dri/0/i915_gem_drop_caches",
					    "/sys/kernel/debug/dri/128/i915_gem_drop_caches"};
	int ret = -1;

	for (unsigned int i = 0; i < 2 && ret; i++) {
		int fd = open(paths[i], O_WRONLY);

		if (fd < 0)
			continue;
		/* DROP_BOUND | DROP_UNBOUND | DROP_RETIRE | DROP_IDLE | DROP_SHRINK_ALL */
		ret = write(fd, "0x67", 4) == 4 ? 0 : -1;
		close(fd);
	}
	return ret;
}

/* The embedded server's counts (its socket is the creator's, this process's). */
/* The stats of the server of this process (or of its creator, @owner, in a child). */
static int server_stats_of(pid_t owner, struct srv_stats *st)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char path[160];
	int conn, ret;

	if (xdg && *xdg)
		snprintf(path, sizeof(path), "%s/ttm-i915/node-%d.sock", xdg, (int)owner);
	else
		snprintf(path, sizeof(path), "/tmp/ttm-i915-%u/node-%d.sock",
			 (unsigned int)geteuid(), (int)owner);
	conn = srv_connect(path);
	if (conn < 0)
		return conn;
	ret = srv_client_stats(conn, st);
	close(conn);
	return ret;
}

static int server_stats(struct srv_stats *st)
{
	return server_stats_of(getpid(), st);
}

static int wait_child(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void fill(char *p, char c)
{
	for (size_t i = 0; i < BO_SIZE; i += 4096)
		memset(p + i, c + (char)(i / 4096 % 16), 16);
}

static bool check(const char *p, char c)
{
	for (size_t i = 0; i < BO_SIZE; i += 4096)
		for (size_t j = 0; j < 16; j++)
			if (p[i + j] != (char)(c + (char)(i / 4096 % 16)))
				return false;
	return true;
}

/* A child writes through its mapping; the parent reads the object's content. */
static int child_write(int fd, uint32_t handle, bool legacy)
{
	char *p = legacy ? map_legacy(fd, handle) : map_offset(fd, handle);

	if (!p)
		return 1;
	if (!check(p, 'a'))
		return 2;
	fill(p, 'A');
	return munmap(p, BO_SIZE) ? 3 : 0;
}

static void child_writes_parent_sees(bool legacy)
{
	int fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
	char *buf = calloc(1, BO_SIZE);
	struct srv_stats st;
	uint32_t handle;
	pid_t pid;

	ASSERT_GE(fd, 0);
	ASSERT_NOT_NULL(buf);
	ASSERT_EQ(create_bo(fd, &handle), 0);
	fill(buf, 'a');
	ASSERT_EQ(pwrite_bo(fd, handle, 0, buf, BO_SIZE), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(child_write(fd, handle, legacy));
	EXPECT_EQ(wait_child(pid), 0);
	ASSERT_EQ(pread_bo(fd, handle, 0, buf, BO_SIZE), 0);
	EXPECT_TRUE(check(buf, 'A'));
	/* The child's munmap released its mapping at the server. */
	ASSERT_EQ(server_stats(&st), 0);
	EXPECT_EQ(st.maps, 0);
	free(buf);
	close(fd);
}

KTEST(child_writes_through_mmap_offset)
{
	child_writes_parent_sees(false);
}

KTEST(child_writes_through_legacy_mmap)
{
	child_writes_parent_sees(true);
}

/*
 * The parent swaps the object out and writes it while a child has it
 * mapped and touched: the child's next access faults the new pages in and
 * sees its own writes and the parent's.
 */
KTEST(child_mapping_survives_swapout)
{
	int fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC), to_child[2], to_parent[2];
	struct srv_stats before, after;
	char *buf = calloc(1, BO_SIZE), c;
	uint32_t handle;
	pid_t pid;

	ASSERT_GE(fd, 0);
	ASSERT_NOT_NULL(buf);
	ASSERT_EQ(create_bo(fd, &handle), 0);
	fill(buf, 'a');
	ASSERT_EQ(pwrite_bo(fd, handle, 0, buf, BO_SIZE), 0);
	ASSERT_EQ(pipe(to_child), 0);
	ASSERT_EQ(pipe(to_parent), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char *p = map_offset(fd, handle);
		int ret = 0;

		if (!p || !check(p, 'a'))
			_exit(1);
		fill(p, 'A');
		if (write(to_parent[1], "m", 1) != 1 || read(to_child[0], &c, 1) != 1)
			_exit(2);
		/* Swapped out and written by the parent meanwhile. */
		if (!check(p, 'A') || memcmp(p + 4096 + 64, "parent", 6))
			ret = 3;
		else
			memcpy(p + 2 * 4096 + 64, "child", 5);
		if (write(to_parent[1], "d", 1) != 1)
			ret = 4;
		_exit(ret);
	}
	ASSERT_EQ(read(to_parent[0], &c, 1), 1);
	ASSERT_EQ(server_stats(&before), 0);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(drop_caches(), 0);
	/* The swap-out took the child's pages back first. */
	ASSERT_EQ(server_stats(&after), 0);
	EXPECT_GT(after.revokes, before.revokes);
	ASSERT_EQ(pwrite_bo(fd, handle, 4096 + 64, "parent", 6), 0);
	ASSERT_EQ(write(to_child[1], "g", 1), 1);
	ASSERT_EQ(read(to_parent[0], &c, 1), 1);
	EXPECT_EQ(wait_child(pid), 0);
	ASSERT_EQ(pread_bo(fd, handle, 0, buf, BO_SIZE), 0);
	EXPECT_TRUE(check(buf, 'A'));
	EXPECT_EQ(memcmp(buf + 2 * 4096 + 64, "child", 5), 0);
	free(buf);
	close(fd);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

/*
 * A child killed while it holds a touched mapping: the server releases the
 * mapping, and moving the object afterwards does not wait for the dead.
 */
KTEST(child_killed_holding_mapping)
{
	int fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC), to_parent[2];
	char *buf = calloc(1, BO_SIZE), c;
	struct srv_stats st;
	uint32_t handle;
	pid_t pid;

	ASSERT_GE(fd, 0);
	ASSERT_NOT_NULL(buf);
	ASSERT_EQ(create_bo(fd, &handle), 0);
	fill(buf, 'k');
	ASSERT_EQ(pwrite_bo(fd, handle, 0, buf, BO_SIZE), 0);
	ASSERT_EQ(pipe(to_parent), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char *p = map_offset(fd, handle);

		if (!p || !check(p, 'k'))
			_exit(1);
		p[5] = 'x';
		if (write(to_parent[1], "m", 1) != 1)
			_exit(2);
		pause();
		_exit(3);
	}
	ASSERT_EQ(read(to_parent[0], &c, 1), 1);
	ASSERT_EQ(server_stats(&st), 0);
	EXPECT_EQ(st.maps, 1);
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	EXPECT_EQ(wait_child(pid), 128 + SIGKILL);
	EXPECT_EQ(drop_caches(), 0);
	ASSERT_EQ(pread_bo(fd, handle, 0, buf, BO_SIZE), 0);
	EXPECT_EQ(buf[5], 'x');
	buf[5] = 'k';
	EXPECT_TRUE(check(buf, 'k'));
	/* The dead child's mapping goes once its channel's end is seen. */
	for (int i = 0; i < 200; i++) {
		ASSERT_EQ(server_stats(&st), 0);
		if (!st.maps)
			break;
		usleep(10000);
	}
	EXPECT_EQ(st.maps, 0);
	free(buf);
	close(fd);
	close(to_parent[0]);
	close(to_parent[1]);
}

/* mmap of a dma-buf in a child: the exporter's object, shared both ways. */
KTEST(child_maps_dma_buf)
{
	int fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
	struct drm_prime_handle ph = {.flags = DRM_CLOEXEC | DRM_RDWR};
	char *buf = calloc(1, BO_SIZE);
	uint32_t handle;
	pid_t pid;

	ASSERT_GE(fd, 0);
	ASSERT_NOT_NULL(buf);
	ASSERT_EQ(create_bo(fd, &handle), 0);
	fill(buf, 'd');
	ASSERT_EQ(pwrite_bo(fd, handle, 0, buf, BO_SIZE), 0);
	ph.handle = handle;
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char *p = mmap(NULL, BO_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, ph.fd, 0);

		if (p == MAP_FAILED)
			_exit(1);
		if (!check(p, 'd'))
			_exit(2);
		fill(p, 'D');
		_exit(munmap(p, BO_SIZE) ? 3 : 0);
	}
	EXPECT_EQ(wait_child(pid), 0);
	ASSERT_EQ(pread_bo(fd, handle, 0, buf, BO_SIZE), 0);
	EXPECT_TRUE(check(buf, 'D'));
	close(ph.fd);
	free(buf);
	close(fd);
}

/* Bad requests get mmap(2)'s errno in a child, as in the creator. */
KTEST(child_mmap_bad_offset)
{
	int fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
	pid_t pid;

	ASSERT_GE(fd, 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 1ll << 40);

		_exit(p == MAP_FAILED && errno == EINVAL ? 0 : 1);
	}
	EXPECT_EQ(wait_child(pid), 0);
	close(fd);
}

/*
 * A mapping the parent made before fork: the child's copy is taken over
 * through the server at the same address, so it stays coherent when the
 * parent swaps the object out (the kernel's copied vma).
 */
KTEST(child_inherits_parents_mapping)
{
	int fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC), to_child[2], to_parent[2];
	char *buf = calloc(1, BO_SIZE), *p, c;
	struct srv_stats before, after;
	uint32_t handle;
	pid_t pid;

	ASSERT_GE(fd, 0);
	ASSERT_NOT_NULL(buf);
	ASSERT_EQ(create_bo(fd, &handle), 0);
	p = map_offset(fd, handle);
	ASSERT_NOT_NULL(p);
	fill(p, 'i');
	ASSERT_EQ(pipe(to_child), 0);
	ASSERT_EQ(pipe(to_parent), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int ret = 0;

		if (!check(p, 'i'))
			_exit(1);
		fill(p, 'I');
		if (write(to_parent[1], "m", 1) != 1 || read(to_child[0], &c, 1) != 1)
			_exit(2);
		if (!check(p, 'I') || memcmp(p + 3 * 4096 + 64, "parent", 6))
			ret = 3;
		if (munmap(p, BO_SIZE))
			ret = 4;
		if (write(to_parent[1], "d", 1) != 1)
			ret = 5;
		_exit(ret);
	}
	ASSERT_EQ(read(to_parent[0], &c, 1), 1);
	ASSERT_EQ(server_stats(&before), 0);
	EXPECT_EQ(drop_caches(), 0);
	ASSERT_EQ(server_stats(&after), 0);
	EXPECT_GT(after.revokes, before.revokes);
	ASSERT_EQ(pwrite_bo(fd, handle, 3 * 4096 + 64, "parent", 6), 0);
	ASSERT_EQ(write(to_child[1], "g", 1), 1);
	ASSERT_EQ(read(to_parent[0], &c, 1), 1);
	EXPECT_EQ(wait_child(pid), 0);
	/* The parent's own view: the child's writes. */
	EXPECT_TRUE(check(p, 'I'));
	EXPECT_EQ(munmap(p, BO_SIZE), 0);
	ASSERT_EQ(pread_bo(fd, handle, 0, buf, BO_SIZE), 0);
	EXPECT_TRUE(check(buf, 'I'));
	free(buf);
	close(fd);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

/*
 * igt gem_mmap_offset@ptrace: a child stops itself at once; its parent
 * reads and writes the child's copy of the parent's mapping through the
 * kernel (PEEKDATA/POKEDATA, process_vm_readv), which cannot fault pages
 * in for a stopped process: they must be there since fork() returned.
 */
KTEST(parent_ptraces_childs_inherited_mapping)
{
	int fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC), status;
	char *buf = calloc(1, BO_SIZE), *p;
	struct iovec local, remote;
	uint32_t handle;
	long aa;
	pid_t pid;

	ASSERT_GE(fd, 0);
	ASSERT_NOT_NULL(buf);
	ASSERT_EQ(create_bo(fd, &handle), 0);
	p = map_offset(fd, handle);
	ASSERT_NOT_NULL(p);
	memset(p, 0x55, BO_SIZE);
	memset(&aa, 0xaa, sizeof(aa));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		/* The parent's pokes are in this process's view. */
		for (size_t i = 0; i < 3 * 4096; i++)
			if ((unsigned char)p[i] != 0xaa)
				_exit(1);
		_exit(p[3 * 4096] == 0x55 ? 0 : 2);
	}
	ASSERT_EQ(waitpid(pid, &status, WUNTRACED), pid);
	ASSERT_TRUE(WIFSTOPPED(status));
	for (size_t i = 0; i < 3 * 4096 / sizeof(long); i++) {
		long *at = (long *)p + i;

		errno = 0;
		EXPECT_EQ(ptrace(PTRACE_PEEKDATA, pid, at, NULL), 0x5555555555555555l);
		EXPECT_EQ(errno, 0);
		EXPECT_EQ(ptrace(PTRACE_POKEDATA, pid, at, (void *)aa), 0l);
		if (errno)
			break;
	}
	local = (struct iovec){buf, BO_SIZE};
	remote = (struct iovec){p, BO_SIZE};
	EXPECT_EQ(process_vm_readv(pid, &local, 1, &remote, 1, 0), (ssize_t)BO_SIZE);
	EXPECT_EQ((unsigned char)buf[0], 0xaa);
	EXPECT_EQ((unsigned char)buf[3 * 4096 - 1], 0xaa);
	EXPECT_EQ((unsigned char)buf[3 * 4096], 0x55);
	EXPECT_EQ((unsigned char)buf[BO_SIZE - 1], 0x55);
	EXPECT_EQ(ptrace(PTRACE_DETACH, pid, NULL, NULL), 0l);
	EXPECT_EQ(wait_child(pid), 0);
	/* The child's view is the object: the parent sees the pokes. */
	EXPECT_EQ((unsigned char)p[0], 0xaa);
	EXPECT_EQ((unsigned char)p[3 * 4096 - 1], 0xaa);
	EXPECT_EQ((unsigned char)p[3 * 4096], 0x55);
	EXPECT_EQ(munmap(p, BO_SIZE), 0);
	free(buf);
	close(fd);
}

/*
 * munmap of part of a child's mapping, as the kernel's of part of a vma:
 * the pages outside stay mapped with their content and keep faulting
 * through the server, the server's mapping goes with the last part.
 */
static int child_partial_munmap(int fd, uint32_t handle, pid_t creator)
{
	struct srv_stats st0, st;
	unsigned char v;
	char *p;

	if (server_stats_of(creator, &st0))
		return 1;
	p = map_offset(fd, handle);
	if (!p)
		return 2;
	fill(p, 'p');
	if (munmap(p + 8 * 4096, 8 * 4096))
		return 3;
	/* The hole is unmapped; the rest is there and still the object's. */
	if (mincore(p + 8 * 4096, 4096, &v) == 0 || errno != ENOMEM)
		return 4;
	for (int i = 0; i < 64; i++)
		if (i < 8 || i >= 16)
			if (p[i * 4096] != (char)('p' + i % 16))
				return 5;
	memset(p + 20 * 4096, 'T', 16);
	if (munmap(p, 8 * 4096) || server_stats_of(creator, &st) || st.maps != st0.maps + 1)
		return 6;
	if (munmap(p + 16 * 4096, BO_SIZE - 16 * 4096) || server_stats_of(creator, &st) ||
	    st.maps != st0.maps)
		return 7;
	return 0;
}

KTEST(child_partial_munmap_keeps_the_rest)
{
	int fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
	char buf[16];
	uint32_t handle;
	pid_t pid, self = getpid();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(create_bo(fd, &handle), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(child_partial_munmap(fd, handle, self));
	EXPECT_EQ(wait_child(pid), 0);
	ASSERT_EQ(pread_bo(fd, handle, 20 * 4096, buf, sizeof(buf)), 0);
	EXPECT_EQ(memcmp(buf, "TTTTTTTTTTTTTTTT", 16), 0);
	ASSERT_EQ(pread_bo(fd, handle, 40 * 4096, buf, 1), 0);
	EXPECT_EQ(buf[0], (char)('p' + 40 % 16));
	close(fd);
}
