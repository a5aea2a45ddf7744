// SPDX-License-Identifier: MIT
/*
 * The emulated render node seen from an unmodified client: this program
 * is an ordinary libc/libdrm/libudev program, run with the node preloaded
 * (meson sets LD_PRELOAD), and checks what a kernel i915 would show it.
 * Without the preload, or when the node cannot create its device, every
 * case skips with the reason.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libudev.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>
#include <i915_drm.h>

#include "ktest.h"

/* DRM_IOCTL_SYNCOBJ_EVENTFD where libdrm's <drm.h> predates it: drm/'s fallback. */
#include <drmcore/drm_syncobj.h>

/* Open @path, skipping the case when no node is there (no preload). */
static int open_node(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		char why[256];

		snprintf(why, sizeof(why), "%s: %s (is the node preloaded and its driver built?)",
			 path, strerror(errno));
		KTEST_SKIP(why);
	}
	return fd;
}

static void drm_name(int fd, char *name, size_t len)
{
	struct drm_version v = {.name = name, .name_len = len - 1};

	memset(name, 0, len);
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_VERSION, &v), 0);
}

static uint32_t chipset_id(int fd)
{
	int value = 0;
	struct drm_i915_getparam gp = {.param = I915_PARAM_CHIPSET_ID, .value = &value};

	ASSERT_EQ(ioctl(fd, DRM_IOCTL_I915_GETPARAM, &gp), 0);
	return (uint32_t)value;
}

KTEST(open_version_says_i915)
{
	char name[32];
	int render = open_node("/dev/dri/renderD128");
	int card = open_node("/dev/dri/card0");

	drm_name(render, name, sizeof(name));
	EXPECT_STREQ(name, "i915");
	drm_name(card, name, sizeof(name));
	EXPECT_STREQ(name, "i915");
	/* As drm_ioctl(): an empty core slot is EINVAL, a foreign type ENOTTY. */
	errno = 0;
	EXPECT_EQ(ioctl(render, DRM_IOC(DRM_IOC_READWRITE, DRM_IOCTL_BASE, 0x3f, 8), name), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(ioctl(render, DRM_IOC(DRM_IOC_READWRITE, 'T', 0x01, 8), name), -1);
	EXPECT_EQ(errno, ENOTTY);
}

KTEST(stat_nodes_are_drm_char_devices)
{
	struct stat st, fst, card;
	int fd = open_node("/dev/dri/renderD128");

	ASSERT_EQ(stat("/dev/dri/renderD128", &st), 0);
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(major(st.st_rdev), 226);
	EXPECT_EQ(minor(st.st_rdev), 128);
	ASSERT_EQ(fstat(fd, &fst), 0);
	EXPECT_TRUE(S_ISCHR(fst.st_mode));
	EXPECT_UEQ(fst.st_rdev, st.st_rdev);
	EXPECT_UEQ(fst.st_ino, st.st_ino);
	EXPECT_UEQ(fst.st_dev, st.st_dev);
	ASSERT_EQ(lstat("/dev/dri/card0", &card), 0);
	EXPECT_TRUE(S_ISCHR(card.st_mode));
	EXPECT_EQ(minor(card.st_rdev), 0);
	EXPECT_NE(card.st_ino, st.st_ino);
	EXPECT_EQ(access("/dev/dri/card0", R_OK | W_OK), 0);
}

KTEST(dev_dri_lists_both_nodes)
{
	DIR *d;
	struct dirent *de;
	bool card = false, render = false;

	open_node("/dev/dri/card0");
	d = opendir("/dev/dri");
	ASSERT_NOT_NULL(d);
	while ((de = readdir(d))) {
		card |= !strcmp(de->d_name, "card0");
		render |= !strcmp(de->d_name, "renderD128");
	}
	closedir(d);
	EXPECT_TRUE(card);
	EXPECT_TRUE(render);
}

KTEST(drm_get_devices_finds_one_intel_device)
{
	int fd = open_node("/dev/dri/renderD128");
	uint32_t id = chipset_id(fd);
	drmDevicePtr devs[8], dev;
	int n;

	n = drmGetDevices2(0, devs, 8);
	ASSERT_EQ(n, 1);
	EXPECT_EQ(devs[0]->bustype, DRM_BUS_PCI);
	EXPECT_EQ(devs[0]->deviceinfo.pci->vendor_id, 0x8086);
	EXPECT_EQ(devs[0]->deviceinfo.pci->device_id, id);
	EXPECT_TRUE(devs[0]->available_nodes & (1 << DRM_NODE_RENDER));
	EXPECT_TRUE(devs[0]->available_nodes & (1 << DRM_NODE_PRIMARY));
	EXPECT_STREQ(devs[0]->nodes[DRM_NODE_RENDER], "/dev/dri/renderD128");
	EXPECT_STREQ(devs[0]->nodes[DRM_NODE_PRIMARY], "/dev/dri/card0");
	drmFreeDevices(devs, n);

	ASSERT_EQ(drmGetDevice2(fd, 0, &dev), 0);
	EXPECT_EQ(dev->deviceinfo.pci->device_id, id);
	drmFreeDevice(&dev);
}

KTEST(sysfs_pci_view_matches_the_device)
{
	int fd = open_node("/dev/dri/card0");
	char buf[PATH_MAX], *real;
	unsigned char cfg[256];
	FILE *f;
	unsigned int dev_id = 0;
	int cfd;

	real = realpath("/sys/dev/char/226:0/device/subsystem", NULL);
	ASSERT_NOT_NULL(real);
	EXPECT_STREQ(real, "/sys/bus/pci");
	free(real);
	ASSERT_GT(readlink("/sys/class/drm/card0", buf, sizeof(buf) - 1), 0);
	f = fopen("/sys/dev/char/226:0/device/device", "r");
	ASSERT_NOT_NULL(f);
	EXPECT_EQ(fscanf(f, "%x", &dev_id), 1);
	fclose(f);
	EXPECT_EQ(dev_id, chipset_id(fd));
	cfd = open("/sys/class/drm/renderD128/device/config", O_RDONLY);
	ASSERT_GE(cfd, 0);
	EXPECT_EQ(read(cfd, cfg, sizeof(cfg)), 256);
	close(cfd);
	EXPECT_EQ(cfg[0] | cfg[1] << 8, 0x8086);
	EXPECT_EQ(cfg[2] | cfg[3] << 8, (int)dev_id);
	EXPECT_EQ(cfg[0xb], 0x03); /* display class */
}

/* The CPU-visible size of the first device-memory region (0: none). */
static uint64_t lmem_visible(int fd)
{
	struct drm_i915_query_item item = {.query_id = DRM_I915_QUERY_MEMORY_REGIONS};
	struct drm_i915_query q = {.num_items = 1, .items_ptr = (uintptr_t)&item};
	struct drm_i915_query_memory_regions *info;
	uint64_t size = 0;

	ASSERT_EQ(ioctl(fd, DRM_IOCTL_I915_QUERY, &q), 0);
	ASSERT_GT(item.length, 0);
	info = calloc(1, (size_t)item.length);
	ASSERT_NOT_NULL(info);
	item.data_ptr = (uintptr_t)info;
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_I915_QUERY, &q), 0);
	for (uint32_t i = 0; i < info->num_regions; i++)
		if (info->regions[i].region.memory_class == I915_MEMORY_CLASS_DEVICE) {
			size = info->regions[i].probed_cpu_visible_size;
			break;
		}
	free(info);
	return size;
}

/*
 * The sysfs resource file lists every BAR as the kernel prints it: BAR 0
 * (MMIO) and BAR 2, the mappable aperture of an integrated part or the
 * local-memory BAR of a discrete one (what igt's
 * gem_mappable_aperture_size() reads), each with its resourceN file.
 */
KTEST(pci_resource_lists_bar0_and_bar2)
{
	int fd = open_node("/dev/dri/card0");
	unsigned long long start[13] = {0}, end[13] = {0}, flags[13] = {0};
	uint64_t visible = lmem_visible(fd), bar2;
	unsigned char cfg[256];
	struct stat st;
	int lines = 0, cfd;
	FILE *f;

	f = fopen("/sys/class/drm/card0/device/resource", "r");
	ASSERT_NOT_NULL(f);
	while (lines < 13 &&
	       fscanf(f, "%llx %llx %llx", &start[lines], &end[lines], &flags[lines]) == 3)
		lines++;
	fclose(f);
	EXPECT_EQ(lines, 13);
	EXPECT_UEQ(end[0] - start[0] + 1, 16u << 20);
	EXPECT_UEQ(flags[0] & 0x200, 0x200u); /* IORESOURCE_MEM */
	ASSERT_NE(start[2], 0u);
	bar2 = end[2] - start[2] + 1;
	EXPECT_UEQ(bar2 & (bar2 - 1), 0u);	/* a power of two */
	EXPECT_UEQ(start[2] & (bar2 - 1), 0u);	/* aligned to its size */
	EXPECT_UEQ(flags[2] & 0x2000, 0x2000u); /* IORESOURCE_PREFETCH */
	if (visible)
		EXPECT_UEQ(bar2, visible); /* LMEMBAR: the CPU-visible lmem */
	else
		EXPECT_UEQ(bar2, 256u << 20); /* GMADR of a Tiger Lake */
	ASSERT_EQ(stat("/sys/class/drm/card0/device/resource2", &st), 0);
	EXPECT_UEQ((uint64_t)st.st_size, bar2);
	ASSERT_EQ(stat("/sys/class/drm/card0/device/resource2_wc", &st), 0);
	ASSERT_EQ(stat("/sys/class/drm/card0/device/resource0", &st), 0);
	EXPECT_UEQ((uint64_t)st.st_size, 16u << 20);
	cfd = open("/sys/class/drm/card0/device/config", O_RDONLY);
	ASSERT_GE(cfd, 0);
	EXPECT_EQ(read(cfd, cfg, sizeof(cfg)), 256);
	close(cfd);
	EXPECT_EQ(cfg[0x18] & 0xf, 0xc); /* 64-bit prefetchable memory BAR */
	EXPECT_UEQ((cfg[0x18] & 0xf0) | (uint64_t)cfg[0x19] << 8 | (uint64_t)cfg[0x1a] << 16 |
		       (uint64_t)cfg[0x1b] << 24 | (uint64_t)cfg[0x1c] << 32 |
		       (uint64_t)cfg[0x1d] << 40 | (uint64_t)cfg[0x1e] << 48 |
		       (uint64_t)cfg[0x1f] << 56,
		   start[2]);
	close(fd);
}

KTEST(dup_keeps_the_file_until_the_last_close)
{
	char name[32];
	int fd = open(("/dev/dri/renderD128"), O_RDWR);
	int d1, d2, d3;

	if (fd < 0)
		KTEST_SKIP("no render node (is the node preloaded?)");
	d1 = dup(fd);
	d2 = fcntl(fd, F_DUPFD_CLOEXEC, 100);
	ASSERT_GE(d1, 0);
	ASSERT_GE(d2, 100);
	d3 = dup2(d1, 90);
	ASSERT_EQ(d3, 90);
	EXPECT_EQ(close(fd), 0);
	drm_name(d1, name, sizeof(name));
	EXPECT_STREQ(name, "i915");
	EXPECT_EQ(close(d1), 0);
	drm_name(d2, name, sizeof(name));
	EXPECT_STREQ(name, "i915");
	EXPECT_EQ(close(d2), 0);
	drm_name(d3, name, sizeof(name));
	EXPECT_EQ(close(d3), 0);
	/* Every descriptor closed: the number is nobody's. */
	errno = 0;
	EXPECT_EQ(ioctl(d3, DRM_IOCTL_VERSION, &(struct drm_version){0}), -1);
	EXPECT_EQ(errno, EBADF);
}

KTEST(proc_self_fd_reopens_the_node)
{
	int fd = open_node("/dev/dri/renderD128");
	char path[64], link[PATH_MAX], name[32];
	ssize_t n;
	int re;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	ASSERT_GT(n, 0);
	link[n] = '\0';
	EXPECT_STREQ(link, "/dev/dri/renderD128");
	re = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_GE(re, 0);
	drm_name(re, name, sizeof(name));
	EXPECT_STREQ(name, "i915");
	close(re);
}

/*
 * A forked child touching its parent's device: with the device server (the
 * default) its ioctls reach the parent's device; with TTM_I915_SERVER=0 every
 * call fails with EIO after one line on stderr.
 */
KTEST(forked_child_uses_the_device_or_gets_eio)
{
	const char *env = getenv("TTM_I915_SERVER");
	bool server = !(env && !strcmp(env, "0"));
	int fd = open_node("/dev/dri/renderD128");
	int pipefd[2], status;
	char out[1024] = {0};
	ssize_t n, total = 0;
	pid_t pid;
	int lines = 0;

	ASSERT_EQ(pipe(pipefd), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char cname[16] = {0};
		struct drm_version v = {.name = cname, .name_len = sizeof(cname) - 1};
		int ok = 1;

		dup2(pipefd[1], 2);
		for (int i = 0; i < 3; i++) {
			errno = 0;
			if (server)
				ok &=
				    ioctl(fd, DRM_IOCTL_VERSION, &v) == 0 && !strcmp(cname, "i915");
			else
				ok &= ioctl(fd, DRM_IOCTL_VERSION, &v) == -1 && errno == EIO;
		}
		if (!server) {
			errno = 0;
			ok &= mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED &&
			      errno == EIO;
		}
		_exit(ok ? 0 : 1);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], out + total, sizeof(out) - 1 - (size_t)total)) > 0)
		total += n;
	close(pipefd[0]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (char *p = out; (p = strchr(p, '\n')); p++)
		lines++;
	if (server) {
		EXPECT_TRUE(strstr(out, "forked") == NULL);
	} else {
		EXPECT_EQ(lines, 1);
		EXPECT_TRUE(strstr(out, "forked") != NULL);
	}
	/* The parent still owns the device. */
	chipset_id(fd);
}

KTEST(debugfs_is_a_mount_with_drop_caches)
{
	struct stat dot, dotdot;
	char name[256] = {0};
	int dir, fd;

	open_node("/dev/dri/card0");
	ASSERT_EQ(stat("/sys/kernel/debug/.", &dot), 0);
	ASSERT_EQ(stat("/sys/kernel/debug/..", &dotdot), 0);
	EXPECT_NE(dot.st_dev, dotdot.st_dev);
	dir = open("/sys/kernel/debug/dri/0", O_RDONLY | O_DIRECTORY);
	ASSERT_GE(dir, 0);
	fd = openat(dir, "name", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_GT(read(fd, name, sizeof(name) - 1), 0);
	close(fd);
	EXPECT_TRUE(!strncmp(name, "i915 dev=", 9));
	fd = openat(dir, "i915_gem_drop_caches", O_WRONLY);
	close(dir);
	if (fd < 0)
		KTEST_SKIP("the driver has no i915_gem_drop_caches");
	EXPECT_EQ(write(fd, "0x5c", 4), 4);
	close(fd);
}

KTEST(udev_enumerates_the_drm_nodes_with_a_pci_parent)
{
	int found = 0, fd = open_node("/dev/dri/renderD128");
	struct udev *udev = udev_new();
	struct udev_enumerate *e;
	struct udev_list_entry *l;
	char id[16];

	snprintf(id, sizeof(id), "8086:%04X", chipset_id(fd));
	ASSERT_NOT_NULL(udev);
	e = udev_enumerate_new(udev);
	ASSERT_NOT_NULL(e);
	udev_enumerate_add_match_subsystem(e, "drm");
	udev_enumerate_add_match_property(e, "DEVNAME", "/dev/dri/*");
	udev_enumerate_scan_devices(e);
	udev_list_entry_foreach(l, udev_enumerate_get_list_entry(e))
	{
		struct udev_device *d =
		    udev_device_new_from_syspath(udev, udev_list_entry_get_name(l));
		struct udev_device *p;
		const char *node;

		ASSERT_NOT_NULL(d);
		node = udev_device_get_devnode(d);
		ASSERT_NOT_NULL(node);
		EXPECT_TRUE(!strcmp(node, "/dev/dri/card0") ||
			    !strcmp(node, "/dev/dri/renderD128"));
		EXPECT_STREQ(udev_device_get_subsystem(d), "drm");
		p = udev_device_get_parent(d);
		ASSERT_NOT_NULL(p);
		EXPECT_STREQ(udev_device_get_subsystem(p), "pci");
		EXPECT_STREQ(udev_device_get_property_value(p, "PCI_ID"), id);
		EXPECT_STREQ(udev_device_get_property_value(p, "DRIVER"), "i915");
		EXPECT_STREQ(udev_device_get_sysattr_value(p, "vendor"), "0x8086");
		EXPECT_STREQ(udev_device_get_sysattr_value(p, "driver"), "i915");
		udev_device_unref(d);
		found++;
	}
	EXPECT_EQ(found, 2);
	udev_enumerate_unref(e);
	udev_unref(udev);
}

KTEST(pci_bar_timestamp_ticks)
{
	int fd = open_node("/dev/dri/card0");
	struct dirent **list;
	volatile uint32_t *bar;
	char slot[64] = {0}, path[PATH_MAX];
	bool listed = false;
	uint32_t t0, t1;
	int n, rfd;
	struct timespec ts = {0, 200000};

	(void)fd;
	n = (int)readlink("/sys/dev/char/226:0/device", path, sizeof(path) - 1);
	ASSERT_GT(n, 0);
	path[n] = '\0';
	snprintf(slot, sizeof(slot), "%s", strrchr(path, '/') + 1);
	n = scandir("/sys/bus/pci/devices", &list, NULL, alphasort);
	ASSERT_GE(n, 1);
	for (int i = 0; i < n; i++) {
		listed |= !strcmp(list[i]->d_name, slot);
		free(list[i]);
	}
	free(list);
	EXPECT_TRUE(listed);

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0", slot);
	rfd = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_GE(rfd, 0);
	bar = mmap(NULL, 2 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, rfd, 0);
	close(rfd);
	ASSERT_TRUE(bar != MAP_FAILED);
	/* Live: RING_TIMESTAMP of render and blitter advance (within a second, however loaded). */
	for (unsigned int r = 0; r < 2; r++) {
		size_t reg = (r ? 0x22358 : 0x2358) / 4;

		t0 = bar[reg];
		t1 = t0;
		for (int i = 0; i < 5000 && t1 == t0; i++) {
			nanosleep(&ts, NULL);
			t1 = bar[reg];
		}
		EXPECT_NE(t0, t1);
	}
	EXPECT_EQ(munmap((void *)bar, 2 << 20), 0);
}

/* A new object of @size and an mmap offset for it (WC, or FIXED on discrete parts). */
static uint32_t object_with_offset(int fd, uint64_t size, uint64_t *offset)
{
	struct drm_i915_gem_create create = {.size = size};
	struct drm_i915_gem_mmap_offset mmo = {0};

	ASSERT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_CREATE, &create), 0);
	mmo.handle = create.handle;
	mmo.flags = I915_MMAP_OFFSET_WC;
	if (ioctl(fd, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mmo) && errno == ENODEV) {
		mmo.flags = I915_MMAP_OFFSET_FIXED;
		ASSERT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mmo), 0);
	}
	*offset = mmo.offset;
	return create.handle;
}

KTEST(gem_create_mmap_offset_write_pread)
{
	int fd = open_node("/dev/dri/renderD128");
	struct drm_i915_gem_create create = {.size = 8192};
	struct drm_gem_close gclose = {0};
	uint32_t readback[64];
	uint64_t offset;
	uint32_t *map;

	create.handle = object_with_offset(fd, create.size, &offset);
	ASSERT_NE(create.handle, 0);
	map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
	ASSERT_TRUE(map != MAP_FAILED);
	for (unsigned int i = 0; i < 2048; i++)
		map[i] = 0xc0de0000u + i;
	EXPECT_EQ(munmap(map, 8192), 0);

	struct drm_i915_gem_pread pread = {
	    .handle = create.handle,
	    .offset = 4096,
	    .size = sizeof(readback),
	    .data_ptr = (uintptr_t)readback,
	};
	if (ioctl(fd, DRM_IOCTL_I915_GEM_PREAD, &pread)) {
		/* After Tiger Lake the kernel refuses PREAD: read through a new mapping. */
		ASSERT_EQ(errno, EOPNOTSUPP);
		map = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, (off_t)offset);
		ASSERT_TRUE(map != MAP_FAILED);
		memcpy(readback, map + 1024, sizeof(readback));
		EXPECT_EQ(munmap(map, 8192), 0);
	}
	for (unsigned int i = 0; i < 64; i++)
		EXPECT_UEQ(readback[i], 0xc0de0000u + 1024 + i);
	gclose.handle = create.handle;
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gclose), 0);
	/* Closed: the handle is gone. */
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gclose), -1);
	EXPECT_EQ(errno, EINVAL);
}

/*
 * One object mapped several times, as the kernel gives every mmap(2) a
 * vma of its own: the mappings are distinct addresses showing the same
 * bytes, a part unmapped leaves the rest working at its offset, a mapping
 * may start inside the object, MAP_FIXED replaces and MAP_FIXED_NOREPLACE
 * refuses, mremap moves a part, and the object outlives its handle while
 * a mapping holds it.
 */
KTEST(one_object_mapped_twice_and_unmapped_in_parts)
{
	const size_t sz = 2u << 20, pg = 4096;
	int fd = open_node("/dev/dri/renderD128");
	struct drm_gem_close gclose = {0};
	uint8_t *a, *b, *c, *d, *dest;
	uint64_t off;

	gclose.handle = object_with_offset(fd, sz, &off);
	a = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	b = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	ASSERT_TRUE(a != MAP_FAILED && b != MAP_FAILED);
	EXPECT_TRUE(a != b);
	/* All but the last page of the first mapping goes (igt gem_mmap_offset@partial-unmap). */
	EXPECT_EQ(munmap(a, sz - pg), 0);
	memset(a + sz - pg, 0xcc, pg);
	memset(b, 0xdd, pg);
	for (size_t i = 0; i < pg; i++) {
		EXPECT_EQ(a[sz - pg + i], 0xcc);
		EXPECT_EQ(b[sz - pg + i], 0xcc);
	}
	/* A mapping of the object's last page only (partial-mmap). */
	c = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, (off_t)(off + sz - pg));
	ASSERT_TRUE(c != MAP_FAILED);
	EXPECT_EQ(c[0], 0xcc);
	/* MAP_FIXED_NOREPLACE over a mapping refuses; MAP_FIXED replaces it. */
	errno = 0;
	EXPECT_TRUE(mmap(b + pg, pg, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, (off_t)off) ==
		    MAP_FAILED);
	EXPECT_EQ(errno, EEXIST);
	d = mmap(b + pg, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)off);
	EXPECT_TRUE(d == b + pg);
	EXPECT_EQ(d[0], 0xdd);
	EXPECT_EQ(b[0], 0xdd);
	/* An anonymous MAP_FIXED over a device page takes it from the device. */
	d = mmap(b + 2 * pg, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0);
	ASSERT_TRUE(d == b + 2 * pg);
	EXPECT_EQ(d[0], 0);
	d[0] = 0x77;
	/* mremap moves the remaining page of the first mapping (partial-remap). */
	dest = mmap(NULL, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(dest != MAP_FAILED);
	d = mremap(a + sz - pg, pg, pg, MREMAP_MAYMOVE | MREMAP_FIXED, dest);
	EXPECT_TRUE(d == dest);
	EXPECT_EQ(dest[0], 0xcc);
	dest[1] = 0xee;
	EXPECT_EQ(c[1], 0xee);
	/* The handle goes; the mappings keep the object. */
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gclose), 0);
	EXPECT_EQ(b[sz - 1], 0xcc);
	EXPECT_EQ(munmap(dest, pg), 0);
	EXPECT_EQ(munmap(c, pg), 0);
	EXPECT_EQ(munmap(b, sz), 0);
	close(fd);
}

/*
 * uAPI structs in memory the program cannot read back or cannot write:
 * the kernel reads what the ioctl reads and writes what it writes, with
 * the CPU's rights (a PROT_WRITE-only page is readable on x86).
 */
KTEST(ioctl_args_in_write_only_and_read_only_memory)
{
	int fd = open_node("/dev/dri/renderD128");
	char *wo = mmap(NULL, 4096, PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct drm_i915_gem_create *c = (void *)wo;
	struct drm_i915_gem_busy *b;
	struct drm_gem_close *gc;
	uint32_t handle;

	ASSERT_TRUE(wo != MAP_FAILED && ro != MAP_FAILED);
	/* _IOWR from write-only memory: read the size, write the handle. */
	c->size = 4096;
	c->handle = 0;
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_CREATE, c), 0);
	handle = c->handle;
	EXPECT_NE(handle, 0u);

	/* _IOW from read-only memory: only read. */
	gc = (void *)ro;
	b = (void *)(ro + 64);
	b->handle = handle;
	b->busy = 77;
	gc->handle = 0xdead;
	ASSERT_EQ(mprotect(ro, 4096, PROT_READ), 0);
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_GEM_CLOSE, gc), -1);
	EXPECT_EQ(errno, EINVAL); /* read fine: no such handle */
	/* _IOWR into read-only memory: the copy back is -EFAULT. */
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_BUSY, b), -1);
	EXPECT_EQ(errno, EFAULT);
	EXPECT_EQ(b->busy, 77u);
	ASSERT_EQ(mprotect(ro, 4096, PROT_READ | PROT_WRITE), 0);
	gc->handle = handle;
	ASSERT_EQ(mprotect(ro, 4096, PROT_READ), 0);
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_GEM_CLOSE, gc), 0);
	munmap(wo, 4096);
	munmap(ro, 4096);
	close(fd);
}

/*
 * A GEM mapping cannot grow (the kernel's vma is VM_DONTEXPAND: mremap() is
 * -EFAULT) and stays usable after the refusal.
 */
KTEST(mremap_cannot_grow_a_device_mapping)
{
	int fd = open_node("/dev/dri/renderD128");
	struct drm_gem_close gclose = {0};
	uint64_t offset;
	uint32_t *map;
	void *moved;

	gclose.handle = object_with_offset(fd, 8192, &offset);
	map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
	ASSERT_TRUE(map != MAP_FAILED);
	map[0] = 0x600d;
	errno = 0;
	moved = mremap(map, 8192, 16384, MREMAP_MAYMOVE);
	EXPECT_TRUE(moved == MAP_FAILED);
	EXPECT_EQ(errno, EFAULT);
	errno = 0;
	EXPECT_TRUE(mremap(map, 8192, 16384, 0) == MAP_FAILED);
	EXPECT_EQ(errno, EFAULT);
	/* Bad flags are the kernel's -EINVAL before any vma lookup. */
	errno = 0;
	EXPECT_TRUE(mremap(map, 8192, 16384, MREMAP_FIXED) == MAP_FAILED);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_UEQ(map[0], 0x600du);
	map[2047] = 1;
	EXPECT_EQ(munmap(map, 8192), 0);
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gclose), 0);
	close(fd);
}

static sigjmp_buf segv_env;
static volatile sig_atomic_t segv_hits;
/*
 * An address in page 0, which no process maps: a read of it faults. Read
 * through a volatile so the compiler sees no constant null dereference.
 */
static volatile uintptr_t segv_addr = 8;

static void segv_trap(int sig)
{
	(void)sig;
	segv_hits++;
	siglongjmp(segv_env, 1);
}

/*
 * A SIGSEGV handler the program installs after its first ioctl (igt's
 * crash handler) sees the program's own faults, while an ioctl with a bad
 * pointer still fails with EFAULT; the program reads back the disposition
 * it installed; with the default disposition a fault still kills.
 */
KTEST(fault_handlers_installed_after_an_ioctl_keep_efault)
{
	int fd = open_node("/dev/dri/renderD128");
	struct drm_i915_gem_busy busy = {0};
	sighandler_t prev;
	int status;
	pid_t pid;

	/* The first copies (and a bad one) come before the handler. */
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_BUSY, (void *)8), -1);
	EXPECT_EQ(errno, EFAULT);
	prev = signal(SIGSEGV, segv_trap);
	ASSERT_TRUE(prev != SIG_ERR);
	EXPECT_TRUE(signal(SIGSEGV, segv_trap) == segv_trap);
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_BUSY, (void *)8), -1);
	EXPECT_EQ(errno, EFAULT);
	busy.handle = 0;
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_BUSY, &busy), -1);
	EXPECT_EQ(errno, ENOENT);
	EXPECT_EQ(segv_hits, 0);
	if (!sigsetjmp(segv_env, 1))
		(void)*(volatile int *)(uintptr_t)segv_addr;
	EXPECT_EQ(segv_hits, 1);
	signal(SIGSEGV, prev);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		(void)*(volatile int *)(uintptr_t)segv_addr;
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	close(fd);
}

/* The kernel's struct for rt_sigaction. */
struct raw_ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

/*
 * A program that installs its SIGSEGV handler with a raw rt_sigaction
 * system call (libc's syscall(), no sigaction() to interpose) still gets
 * EFAULT for bad ioctl pointers, reads back what it installed, and its
 * handler (here the default: death) still takes its own faults.
 */
KTEST(raw_rt_sigaction_keeps_efault)
{
	struct raw_ksigaction dfl = {.handler = SIG_DFL}, cur = {.handler = SIG_IGN}, saved[2];
	int fd = open_node("/dev/dri/renderD128");
	struct drm_i915_gem_busy busy = {0};
	int status;
	pid_t pid;

	EXPECT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_BUSY, (void *)8), -1);
	EXPECT_EQ(errno, EFAULT);
	ASSERT_EQ(syscall(SYS_rt_sigaction, SIGSEGV, &dfl, &saved[0], sizeof(dfl.mask)), 0);
	ASSERT_EQ(syscall(SYS_rt_sigaction, SIGBUS, &dfl, &saved[1], sizeof(dfl.mask)), 0);
	EXPECT_EQ(syscall(SYS_rt_sigaction, SIGSEGV, NULL, &cur, sizeof(cur.mask)), 0);
	EXPECT_TRUE(cur.handler == SIG_DFL);
	/* A bad argument pointer of rt_sigaction itself is EFAULT, as the kernel's. */
	EXPECT_EQ(syscall(SYS_rt_sigaction, SIGSEGV, (void *)8, NULL, sizeof(dfl.mask)), -1);
	EXPECT_EQ(errno, EFAULT);
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_BUSY, (void *)8), -1);
		EXPECT_EQ(errno, EFAULT);
	}
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_BUSY, &busy), -1);
	EXPECT_EQ(errno, ENOENT);
	/* The program's own fault takes what it installed: the default, death. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		(void)*(volatile int *)(uintptr_t)segv_addr;
		_exit(2);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	EXPECT_EQ(syscall(SYS_rt_sigaction, SIGSEGV, &saved[0], NULL, sizeof(dfl.mask)), 0);
	EXPECT_EQ(syscall(SYS_rt_sigaction, SIGBUS, &saved[1], NULL, sizeof(dfl.mask)), 0);
	close(fd);
}

/* The value an eventfd holds now (0 when unsignalled), without blocking. */
static uint64_t eventfd_count(int efd)
{
	struct pollfd p = {.fd = efd, .events = POLLIN};
	uint64_t v = 0;

	if (poll(&p, 1, 1000) != 1 || read(efd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return v;
}

/*
 * DRM_IOCTL_SYNCOBJ_EVENTFD through the render node: the kernel's errnos
 * for bad input, the eventfd signalled when the syncobj's fence signals
 * (binary) or when the point is submitted (WAIT_AVAILABLE).
 */
KTEST(syncobj_eventfd_through_the_node)
{
	int fd = open_node("/dev/dri/renderD128");
	struct drm_syncobj_create bin = {0}, tl = {0};
	struct drm_syncobj_eventfd ev = {0};
	struct drm_syncobj_array sig = {0};
	struct drm_syncobj_timeline_array tsig = {0};
	uint64_t point = 2;
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), p[2];

	ASSERT_GE(efd, 0);
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &bin), 0);
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &tl), 0);
	ev.handle = bin.handle;
	ev.fd = efd;
	ev.flags = ~0u;
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_SYNCOBJ_EVENTFD, &ev), -1);
	EXPECT_EQ(errno, EINVAL);
	ev.flags = 0;
	ev.handle = 0xdead;
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_SYNCOBJ_EVENTFD, &ev), -1);
	EXPECT_EQ(errno, ENOENT);
	ev.handle = bin.handle;
	ASSERT_EQ(pipe(p), 0);
	ev.fd = p[0];
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_SYNCOBJ_EVENTFD, &ev), -1);
	EXPECT_EQ(errno, EINVAL);
	close(p[0]);
	close(p[1]);

	/* Binary: fires when SIGNAL installs a signalled fence. */
	ev.fd = efd;
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_SYNCOBJ_EVENTFD, &ev), 0);
	sig.handles = (uintptr_t)&bin.handle;
	sig.count_handles = 1;
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_SYNCOBJ_SIGNAL, &sig), 0);
	EXPECT_UEQ(eventfd_count(efd), 1u);

	/* Timeline, WAIT_AVAILABLE: fires once point 2 is submitted. */
	ev.handle = tl.handle;
	ev.point = 2;
	ev.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_SYNCOBJ_EVENTFD, &ev), 0);
	tsig.handles = (uintptr_t)&tl.handle;
	tsig.points = (uintptr_t)&point;
	tsig.count_handles = 1;
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &tsig), 0);
	EXPECT_UEQ(eventfd_count(efd), 1u);
	close(efd);
	close(fd);
}

/*
 * A SIGSEGV handler the program installs after mapping BAR 0 (igt installs
 * its crash handler late) does not displace the node's: the live registers
 * still read, the program's handler sees none of those faults.
 */
KTEST(pci_bar_stays_live_under_a_later_segv_handler)
{
	int fd = open_node("/dev/dri/card0");
	volatile uint32_t *bar;
	sighandler_t prev;
	uint32_t t0, t1;
	int rfd;
	struct timespec ts = {0, 200000};

	rfd = open("/sys/class/drm/card0/device/resource0", O_RDWR | O_CLOEXEC);
	ASSERT_GE(rfd, 0);
	bar = mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, rfd, 0);
	close(rfd);
	ASSERT_TRUE(bar != MAP_FAILED);
	segv_hits = 0;
	prev = signal(SIGSEGV, segv_trap);
	t0 = bar[0x2358 / 4];
	t1 = t0;
	for (int i = 0; i < 5000 && t1 == t0; i++) {
		nanosleep(&ts, NULL);
		t1 = bar[0x2358 / 4];
	}
	EXPECT_NE(t0, t1);
	EXPECT_EQ(segv_hits, 0);
	signal(SIGSEGV, prev);
	EXPECT_EQ(munmap((void *)bar, 1 << 20), 0);
	close(fd);
}

KTEST(prime_dma_buf_polls_maps_and_closes)
{
	int fd = open_node("/dev/dri/renderD128");
	struct drm_i915_gem_create create = {.size = 4096};
	struct drm_prime_handle prime = {0};
	struct drm_gem_close gclose = {0};
	struct pollfd pfd;
	uint32_t data[4] = {1, 2, 3, 4}, *map;
	struct drm_i915_gem_pwrite pwrite = {
	    .size = sizeof(data),
	    .data_ptr = (uintptr_t)data,
	};

	ASSERT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_CREATE, &create), 0);
	pwrite.handle = create.handle;
	if (ioctl(fd, DRM_IOCTL_I915_GEM_PWRITE, &pwrite)) {
		/* No PWRITE after Tiger Lake: write through a mapping. */
		struct drm_i915_gem_mmap_offset mmo = {.handle = create.handle,
						       .flags = I915_MMAP_OFFSET_FIXED};

		ASSERT_EQ(errno, EOPNOTSUPP);
		ASSERT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &mmo), 0);
		map = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, fd, (off_t)mmo.offset);
		ASSERT_TRUE(map != MAP_FAILED);
		memcpy(map, data, sizeof(data));
		munmap(map, 4096);
	}
	prime.handle = create.handle;
	prime.flags = DRM_CLOEXEC | DRM_RDWR;
	if (ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime)) {
		if (errno == ENOTTY || errno == EINVAL)
			KTEST_SKIP("the driver exports no dma-buf");
		ASSERT_EQ(errno, 0);
	}
	ASSERT_GE(prime.fd, 0);
	EXPECT_EQ(lseek(prime.fd, 0, SEEK_END), 4096);
	/* Idle: readable and writable at once, as the kernel's dma_buf_poll(). */
	pfd = (struct pollfd){.fd = prime.fd, .events = POLLIN | POLLOUT};
	EXPECT_EQ(poll(&pfd, 1, 1000), 1);
	EXPECT_EQ(pfd.revents, POLLIN | POLLOUT);
	EXPECT_EQ(pfd.fd, prime.fd);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, prime.fd, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	EXPECT_MEMEQ(map, data, sizeof(data));
	EXPECT_EQ(munmap(map, 4096), 0);
	/* The handle goes; the dma-buf keeps the object until its descriptor closes. */
	gclose.handle = create.handle;
	EXPECT_EQ(ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gclose), 0);
	prime.handle = 0;
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &prime), 0);
	EXPECT_NE(prime.handle, 0);
	EXPECT_EQ(close(prime.fd), 0);
	close(fd);
}

#if NODE_TEST_KMOD
#include <libkmod.h>

static bool kmod_i915_loaded(struct kmod_ctx *ctx)
{
	struct kmod_list *list = NULL, *it;
	bool found = false;

	if (kmod_module_new_from_loaded(ctx, &list) < 0)
		return false;
	kmod_list_foreach(it, list)
	{
		struct kmod_module *m = kmod_module_get_module(it);

		found |= !strcmp(kmod_module_get_name(m), "i915");
		kmod_module_unref(m);
	}
	kmod_module_unref_list(list);
	return found;
}

KTEST(kmod_unload_and_reload_with_options)
{
	int fd = open_node("/dev/dri/card0"), pfd;
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);
	struct kmod_module *mod;
	char name[32], value[32] = {0};
	struct stat st;

	if (!getenv("NODE_TEST_KMOD_CHILD")) {
		/*
		 * rmmod needs every file and mapping of the device gone: run the
		 * case in a fresh process (exec, so the node starts anew there).
		 */
		int status;
		pid_t pid;

		close(fd);
		kmod_unref(ctx);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0) {
			setenv("NODE_TEST_KMOD_CHILD", "1", 1);
			setenv("KTEST_FORK", "0", 1);
			dup2(2, 1);
			execl("/proc/self/exe", "test-node", "kmod_unload_and_reload_with_options",
			      (char *)NULL);
			_exit(127);
		}
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(WEXITSTATUS(status), 0);
		return;
	}
	ASSERT_NOT_NULL(ctx);
	EXPECT_TRUE(kmod_i915_loaded(ctx));
	ASSERT_EQ(kmod_module_new_from_name(ctx, "i915", &mod), 0);
	EXPECT_EQ(kmod_module_get_initstate(mod), KMOD_MODULE_LIVE);
	/* An open file holds the module. */
	EXPECT_GE(kmod_module_get_refcnt(mod), 1);
	EXPECT_EQ(kmod_module_remove_module(mod, 0), -EAGAIN);
	close(fd);
	EXPECT_EQ(kmod_module_remove_module(mod, 0), 0);
	EXPECT_FALSE(kmod_i915_loaded(ctx));
	errno = 0;
	EXPECT_EQ(stat("/dev/dri/card0", &st), -1);
	EXPECT_EQ(errno, ENOENT);
	EXPECT_EQ(open("/dev/dri/card0", O_RDWR), -1);
	EXPECT_EQ(access("/sys/module/i915/initstate", F_OK), -1);

	/* modprobe i915 reset=1 bogus=2: known options applied, unknown ignored. */
	ASSERT_EQ(kmod_module_probe_insert_module(mod, KMOD_PROBE_FAIL_ON_LOADED, "reset=1 bogus=2",
						  NULL, NULL, NULL),
		  0);
	EXPECT_TRUE(kmod_i915_loaded(ctx));
	EXPECT_EQ(
	    kmod_module_probe_insert_module(mod, KMOD_PROBE_FAIL_ON_LOADED, NULL, NULL, NULL, NULL),
	    -EEXIST);
	fd = open_node("/dev/dri/card0");
	drm_name(fd, name, sizeof(name));
	EXPECT_STREQ(name, "i915");
	pfd = open("/sys/kernel/debug/dri/0/i915_params/reset", O_RDONLY);
	if (pfd >= 0) {
		EXPECT_GT(read(pfd, value, sizeof(value) - 1), 0);
		EXPECT_EQ(atoi(value), 1);
		close(pfd);
	}
	close(fd);
	kmod_module_unref(mod);
	kmod_unref(ctx);
}
#endif

/* The kernel's sw_sync uAPI (drivers/dma-buf/sw_sync.c; no installed header). */
struct sw_sync_create_fence_data {
	uint32_t value;
	char name[32];
	int32_t fence;
};

#define SW_SYNC_IOC_CREATE_FENCE _IOWR('W', 0, struct sw_sync_create_fence_data)
#define SW_SYNC_IOC_INC _IOW('W', 1, uint32_t)

static int fence_status(int fence)
{
	struct sync_file_info info = {0};

	ASSERT_EQ(ioctl(fence, SYNC_IOC_FILE_INFO, &info), 0);
	return info.status;
}

KTEST(sw_sync_timeline_signals_in_order_and_on_close)
{
	int fd = open_node("/dev/dri/card0");
	struct sw_sync_create_fence_data a = {.value = 2}, b = {.value = 5};
	struct pollfd pfd;
	uint32_t one = 1;
	int tl;

	tl = open("/sys/kernel/debug/sync/sw_sync", O_RDWR);
	ASSERT_GE(tl, 0);
	ASSERT_EQ(ioctl(tl, SW_SYNC_IOC_CREATE_FENCE, &a), 0);
	ASSERT_EQ(ioctl(tl, SW_SYNC_IOC_CREATE_FENCE, &b), 0);
	pfd = (struct pollfd){.fd = a.fence, .events = POLLIN};
	EXPECT_EQ(poll(&pfd, 1, 0), 0);
	EXPECT_EQ(fence_status(a.fence), 0);
	ASSERT_EQ(ioctl(tl, SW_SYNC_IOC_INC, &one), 0);
	EXPECT_EQ(fence_status(a.fence), 0);
	ASSERT_EQ(ioctl(tl, SW_SYNC_IOC_INC, &one), 0);
	EXPECT_EQ(poll(&pfd, 1, 1000), 1);
	EXPECT_EQ(fence_status(a.fence), 1);
	EXPECT_EQ(fence_status(b.fence), 0);
	/* The timeline goes: what it did not reach signals with -ENOENT. */
	close(tl);
	EXPECT_EQ(fence_status(b.fence), -ENOENT);
	errno = 0;
	EXPECT_EQ(ioctl(fd, SW_SYNC_IOC_INC, &one), -1);
	EXPECT_EQ(errno, ENOTTY);
	close(a.fence);
	close(b.fence);
	close(fd);
}

/* /proc/self/fdinfo/@fd read as igt does: openat() of the number under the directory. */
static void fdinfo_read(int fd, char *buf, size_t len)
{
	char name[16];
	int dir, f;
	ssize_t n;

	dir = open("/proc/self/fdinfo", O_DIRECTORY | O_RDONLY);
	ASSERT_GE(dir, 0);
	snprintf(name, sizeof(name), "%d", fd);
	f = openat(dir, name, O_RDONLY);
	ASSERT_GE(f, 0);
	n = read(f, buf, len - 1);
	ASSERT_GT(n, 0);
	buf[n] = '\0';
	close(f);
	close(dir);
}

/* The value of "@key:\t..." in @text (sizes in bytes, KiB/MiB scaled); -1 when absent. */
static long long fdinfo_value(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p;
	char *end;
	long long v;

	for (p = text; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, key, kl) || p[kl] != ':')
			continue;
		v = strtoll(p + kl + 1, &end, 10);
		if (!strncmp(end, " KiB", 4))
			v *= 1024;
		else if (!strncmp(end, " MiB", 4))
			v *= 1024 * 1024;
		return v;
	}
	return -1;
}

/* Run an empty batch (@bb) on the render engine of context @ctx and wait for it. */
static void run_nop(int fd, uint32_t bb, uint32_t ctx)
{
	struct drm_i915_gem_exec_object2 obj = {.handle = bb};
	struct drm_i915_gem_execbuffer2 eb = {
	    .buffers_ptr = (uintptr_t)&obj,
	    .buffer_count = 1,
	    .flags = I915_EXEC_RENDER,
	    .rsvd1 = ctx,
	};
	struct drm_i915_gem_wait wait = {.bo_handle = bb, .timeout_ns = -1};

	ASSERT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_EXECBUFFER2, &eb), 0);
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_WAIT, &wait), 0);
}

/*
 * fdinfo of a device descriptor: procfs's own lines, then what the
 * kernel's drm_show_fdinfo() and i915's show_fdinfo print: one client id
 * per drm file (shared by dup()s), the PCI slot of the device, per region
 * the sizes of the file's objects (total, then resident once it has pages,
 * shared once exported, purgeable once idle and DONTNEED), and per engine
 * class the time the file's contexts ran, kept after a context is destroyed.
 */
KTEST(fdinfo_shows_the_drm_client_its_memory_and_engine_time)
{
	int fd = open_node("/dev/dri/renderD128");
	int fd2 = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC), dup_fd = dup(fd), dmabuf = -1;
	static char text[8192], before[8192];
	char pdev[PATH_MAX], *slot, line[256];
	uint64_t offset;
	uint32_t handle, *map;
	struct drm_i915_gem_madvise madv = {.madv = I915_MADV_DONTNEED};
	struct drm_i915_gem_context_create cc = {0};
	struct drm_i915_gem_context_destroy cd = {0};
	struct drm_prime_handle prime = {.flags = DRM_CLOEXEC};
	long long t0, r0, render, copy;
	FILE *f;

	ASSERT_GE(fd2, 0);
	ASSERT_GE(dup_fd, 0);
	fdinfo_read(fd, text, sizeof(text));
	EXPECT_TRUE(!strncmp(text, "pos:\t", 5));
	EXPECT_TRUE(strstr(text, "\ndrm-driver:\ti915\n") != NULL);
	ASSERT_NOT_NULL(realpath("/sys/class/drm/renderD128/device", pdev));
	slot = strrchr(pdev, '/') + 1;
	snprintf(line, sizeof(line), "\ndrm-pdev:\t%s\n", slot);
	EXPECT_TRUE(strstr(text, line) != NULL);
	EXPECT_GT(fdinfo_value(text, "drm-client-id"), 0);
	strcpy(before, text);
	fdinfo_read(dup_fd, text, sizeof(text));
	EXPECT_EQ(fdinfo_value(text, "drm-client-id"), fdinfo_value(before, "drm-client-id"));
	fdinfo_read(fd2, text, sizeof(text));
	EXPECT_NE(fdinfo_value(text, "drm-client-id"), fdinfo_value(before, "drm-client-id"));
	/* Not a drm file: procfs's lines only. */
	fdinfo_read(0, text, sizeof(text));
	EXPECT_NULL(strstr(text, "drm-"));

	/* Memory: a new object counts in total only; pages make it resident. */
	t0 = fdinfo_value(before, "drm-total-system0");
	r0 = fdinfo_value(before, "drm-resident-system0");
	ASSERT_GE(t0, 0);
	ASSERT_GE(r0, 0);
	handle = object_with_offset(fd, 65536, &offset);
	ASSERT_NE(handle, 0);
	fdinfo_read(fd, text, sizeof(text));
	EXPECT_EQ(fdinfo_value(text, "drm-total-system0"), t0 + 65536);
	EXPECT_EQ(fdinfo_value(text, "drm-resident-system0"), r0);
	EXPECT_EQ(fdinfo_value(text, "drm-shared-system0"), 0);
	map = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
	ASSERT_TRUE(map != MAP_FAILED);
	map[0] = 0x0a << 23; /* MI_BATCH_BUFFER_END */
	map[1] = 0;
	EXPECT_EQ(munmap(map, 65536), 0);
	fdinfo_read(fd, text, sizeof(text));
	EXPECT_EQ(fdinfo_value(text, "drm-resident-system0"), r0 + 65536);
	/* The other file has none of it. */
	fdinfo_read(fd2, before, sizeof(before));
	EXPECT_EQ(fdinfo_value(before, "drm-total-system0"), 0);

	/* Engine time: a batch on render adds to render only. */
	render = fdinfo_value(text, "drm-engine-render");
	copy = fdinfo_value(text, "drm-engine-copy");
	ASSERT_GE(render, 0);
	ASSERT_GE(copy, 0);
	run_nop(fd, handle, 0);
	fdinfo_read(fd, text, sizeof(text));
	EXPECT_GT(fdinfo_value(text, "drm-engine-render"), render);
	EXPECT_EQ(fdinfo_value(text, "drm-engine-copy"), copy);
	EXPECT_TRUE(strstr(text, "drm-engine-render:\t") != NULL);
	EXPECT_TRUE(strstr(strstr(text, "drm-engine-render:\t"), " ns\n") != NULL);
	/* A destroyed context's time stays the file's. */
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &cc), 0);
	run_nop(fd, handle, cc.ctx_id);
	fdinfo_read(fd, before, sizeof(before));
	render = fdinfo_value(before, "drm-engine-render");
	cd.ctx_id = cc.ctx_id;
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_CONTEXT_DESTROY, &cd), 0);
	fdinfo_read(fd, text, sizeof(text));
	EXPECT_GE(fdinfo_value(text, "drm-engine-render"), render);

	/* Exported: shared. Idle and DONTNEED: purgeable. */
	prime.handle = handle;
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime), 0);
	dmabuf = prime.fd;
	fdinfo_read(fd, text, sizeof(text));
	EXPECT_EQ(fdinfo_value(text, "drm-shared-system0"), 65536);
	EXPECT_EQ(fdinfo_value(text, "drm-purgeable-system0"), 0);
	madv.handle = handle;
	ASSERT_EQ(ioctl(fd, DRM_IOCTL_I915_GEM_MADVISE, &madv), 0);
	fdinfo_read(fd, text, sizeof(text));
	EXPECT_EQ(fdinfo_value(text, "drm-purgeable-system0"), 65536);
	EXPECT_EQ(fdinfo_value(text, "drm-active-system0"), 0);

	/* Through stdio and an absolute path, the same client. */
	snprintf(line, sizeof(line), "/proc/self/fdinfo/%d", fd);
	f = fopen(line, "re");
	ASSERT_NOT_NULL(f);
	memset(before, 0, sizeof(before));
	EXPECT_GT(fread(before, 1, sizeof(before) - 1, f), 0);
	fclose(f);
	EXPECT_EQ(fdinfo_value(before, "drm-client-id"), fdinfo_value(text, "drm-client-id"));
	close(dmabuf);
	close(dup_fd);
	close(fd2);
	close(fd);
}

/*
 * munmap(2) of a span holding a device mapping and other mappings takes
 * the whole span, as the kernel's does: the device part, the anonymous
 * page after it, and nothing beyond the span.
 */
KTEST(munmap_of_a_mixed_span_unmaps_all_of_it)
{
	int fd = open_node("/dev/dri/renderD128");
	uint64_t offset;
	uint32_t handle = object_with_offset(fd, 8192, &offset);
	char *base, *p;

	ASSERT_NE(handle, 0);
	base = mmap(NULL, 4 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(base != MAP_FAILED);
	p = mmap(base, 8192, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)offset);
	ASSERT_TRUE(p == base);
	p = mmap(base + 8192, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0);
	ASSERT_TRUE(p == base + 8192);
	base[0] = 1;
	base[8192] = 2;
	EXPECT_EQ(munmap(base, 3 * 4096 - 100), 0);
	/* The three pages are free again, the fourth is still there. */
	p = mmap(base + 8192, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		 -1, 0);
	EXPECT_TRUE(p == base + 8192);
	p = mmap(base, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	EXPECT_TRUE(p == base);
	errno = 0;
	p = mmap(base + 3 * 4096, 4096, PROT_READ,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	EXPECT_TRUE(p == MAP_FAILED);
	EXPECT_EQ(errno, EEXIST);
	/* What the kernel refuses stays mapped. */
	errno = 0;
	EXPECT_EQ(munmap(base + 1, 4096), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(munmap(base, 4 * 4096), 0);
	close(fd);
}
