// SPDX-License-Identifier: MIT
/*
 * The PCI function as libpciaccess and libdrm read it: configuration
 * space, the class, the BARs of the sysfs resource file, and BAR 0
 * (GTTMMADR) mapped through resource0.
 *
 * BAR 0 mappings are anonymous shared memory filled at mmap time with
 * i915_gem_mmio_read32() of every dword, then kept live by a refresher
 * thread: while any BAR mapping exists it rewrites the live registers
 * (each engine's RING_TIMESTAMP and its upper dword) every
 * TTM_I915_BAR_REFRESH_US microseconds (default 20), so a program polling
 * the timestamp sees it advance at the CS timestamp frequency with that
 * granularity. Writes land in the mapping and reach no register.
 */
#include <drm.h>
#include <drmcore/drm_user.h>
#include <i915_drm.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "node_priv.h"

#define NODE_BAR_SIZE (16ull << 20)
#define NODE_BAR_MAPS 16

/* Engine MMIO bases of gen12 (render, blitter, video, enhance, compute). */
static const uint32_t node_engine_bases[] = {
    0x002000, 0x022000, 0x1c0000, 0x1c4000, 0x1d0000, 0x1d4000, 0x1c8000, 0x1d8000, 0x01a000,
};

#define NODE_RING_TIMESTAMP 0x358
#define NODE_RING_TIMESTAMP_UDW 0x35c

struct node_bar_map {
	char *addr;
	size_t len;
	uint64_t offset;
};

/* Protected by node_bar_lock. */
static struct node_bar_map node_bar_maps[NODE_BAR_MAPS];
static unsigned int node_bar_nmaps;
#if !defined(__x86_64__)
static bool node_bar_thread_running;
#endif
static pthread_mutex_t node_bar_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t node_bar_size(void)
{
	return NODE_BAR_SIZE;
}

uint64_t node_bar_phys(void)
{
	return node_dev.profile->discrete ? 0x4000000000ull : 0x6000000000ull;
}

uint32_t node_pci_class(void)
{
	return 0x030000; /* display controller, VGA compatible */
}

/*
 * BAR 2: the graphics memory aperture (GMADR) of an integrated part, or the
 * local-memory BAR (LMEMBAR) of a discrete one. Its size is what igt's
 * gem_mappable_aperture_size() reads through libpciaccess.
 */
#define NODE_GMADR_SIZE (256ull << 20)
/* BAR 4 of an integrated part: 64 bytes of legacy I/O ports. */
#define NODE_IOBAR_SIZE 64ull
#define NODE_IOBAR_PORT 0x4000ull

static uint64_t node_pow2_up(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* The CPU-visible size of the first local-memory region, asked as igt asks it. */
static uint64_t node_lmem_visible(void)
{
	struct drm_i915_query_item item = {.query_id = DRM_I915_QUERY_MEMORY_REGIONS};
	struct drm_i915_query q = {.num_items = 1, .items_ptr = (uintptr_t)&item};
	struct drm_i915_query_memory_regions *info = NULL;
	struct i915_gem_file *file;
	uint64_t size = 0;

	if (i915_gem_file_open(node_dev.i915, true, &file))
		return 0;
	if (i915_gem_ioctl(file, DRM_IOCTL_I915_QUERY, &q) || item.length <= 0)
		goto out;
	info = calloc(1, (size_t)item.length);
	if (!info)
		goto out;
	item.data_ptr = (uintptr_t)info;
	if (i915_gem_ioctl(file, DRM_IOCTL_I915_QUERY, &q) || item.length <= 0)
		goto out;
	for (uint32_t i = 0; i < info->num_regions; i++) {
		const struct drm_i915_memory_region_info *r = &info->regions[i];

		if (r->region.memory_class == I915_MEMORY_CLASS_DEVICE) {
			size = r->probed_cpu_visible_size;
			break;
		}
	}
out:
	free(info);
	i915_gem_file_close(file);
	return size;
}

void node_pci_probe(void)
{
	uint64_t size = NODE_GMADR_SIZE;

	if (node_dev.profile->discrete) {
		size = node_lmem_visible();
		if (!size)
			size = NODE_GMADR_SIZE;
	}
	/* A BAR decodes a power of two. */
	node_dev.bar2_size = node_pow2_up(size);
}

uint64_t node_bar2_size(void)
{
	return node_dev.bar2_size;
}

/* Above BAR 0, aligned to its own size as a PCI BAR is. */
static uint64_t node_bar2_phys(void)
{
	uint64_t size = node_bar2_size();
	uint64_t base = node_bar_phys() + NODE_BAR_SIZE;

	return (base + size - 1) & ~(size - 1);
}

size_t node_pci_resource_text(char *buf, size_t len)
{
	/* start, end, flags of the 6 BARs, the ROM and the 6 bridge windows. */
	uint64_t res[13][3] = {{0}};
	size_t n = 0;

	/* IORESOURCE_MEM | MEM_64 | SIZEALIGN, with the BAR's type bits. */
	res[0][0] = node_bar_phys();
	res[0][1] = node_bar_phys() + NODE_BAR_SIZE - 1;
	res[0][2] = 0x140204;
	/* ... | PREFETCH: BAR 2 is a 64-bit prefetchable memory BAR. */
	res[2][0] = node_bar2_phys();
	res[2][1] = node_bar2_phys() + node_bar2_size() - 1;
	res[2][2] = 0x14220c;
	if (!node_dev.profile->discrete) {
		/* IORESOURCE_IO | SIZEALIGN, I/O space indicator bit. */
		res[4][0] = NODE_IOBAR_PORT;
		res[4][1] = NODE_IOBAR_PORT + NODE_IOBAR_SIZE - 1;
		res[4][2] = 0x40101;
	}
	for (unsigned int i = 0; i < 13 && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "0x%016llx 0x%016llx 0x%016llx\n",
				      (unsigned long long)res[i][0], (unsigned long long)res[i][1],
				      (unsigned long long)res[i][2]);
	return n < len ? n : len;
}

uint64_t node_pci_resource_size(unsigned int bar)
{
	switch (bar) {
	case 0:
		return NODE_BAR_SIZE;
	case 2:
		return node_bar2_size();
	case 4:
		return node_dev.profile->discrete ? 0 : NODE_IOBAR_SIZE;
	default:
		return 0;
	}
}

static void node_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void node_put32(uint8_t *p, uint32_t v)
{
	node_put16(p, (uint16_t)v);
	node_put16(p + 2, (uint16_t)(v >> 16));
}

void node_pci_config(uint8_t cfg[256])
{
	const struct i915_gem_profile *p = node_dev.profile;
	uint64_t bar0 = node_bar_phys();

	memset(cfg, 0, 256);
	node_put16(cfg + 0x00, p->pci_vendor);
	node_put16(cfg + 0x02, p->pci_device);
	node_put16(cfg + 0x04, 0x0007); /* I/O, memory, bus master */
	node_put16(cfg + 0x06, 0x0000); /* no capability list */
	cfg[0x08] = p->pci_revision;
	cfg[0x09] = (uint8_t)node_pci_class();
	cfg[0x0a] = (uint8_t)(node_pci_class() >> 8);
	cfg[0x0b] = (uint8_t)(node_pci_class() >> 16);
	cfg[0x0e] = 0x00;			      /* type 0 header, single function */
	node_put32(cfg + 0x10, (uint32_t)bar0 | 0x4); /* 64-bit memory BAR */
	node_put32(cfg + 0x14, (uint32_t)(bar0 >> 32));
	node_put32(cfg + 0x18, (uint32_t)node_bar2_phys() | 0xc); /* 64-bit prefetchable */
	node_put32(cfg + 0x1c, (uint32_t)(node_bar2_phys() >> 32));
	if (!node_dev.profile->discrete)
		node_put32(cfg + 0x20, (uint32_t)NODE_IOBAR_PORT | 0x1); /* I/O space */
	node_put16(cfg + 0x2c, p->pci_subsystem_vendor);
	node_put16(cfg + 0x2e, p->pci_subsystem_device);
	cfg[0x3c] = 0xff;
	cfg[0x3d] = 0x01; /* INTA# */
}

#if !defined(__x86_64__)
static void node_bar_fill_live(const struct node_bar_map *m)
{
	for (unsigned int i = 0; i < sizeof(node_engine_bases) / sizeof(node_engine_bases[0]);
	     i++) {
		uint32_t regs[2] = {node_engine_bases[i] + NODE_RING_TIMESTAMP,
				    node_engine_bases[i] + NODE_RING_TIMESTAMP_UDW};

		for (unsigned int j = 0; j < 2; j++) {
			if (regs[j] < m->offset || regs[j] + 4 > m->offset + m->len)
				continue;
			*(volatile uint32_t *)(m->addr + (regs[j] - m->offset)) =
			    i915_gem_mmio_read32(node_dev.i915, regs[j]);
		}
	}
}

static void *node_bar_refresher(void *arg)
{
	struct timespec ts = {0, 20000};
	const char *env = getenv("TTM_I915_BAR_REFRESH_US");

	(void)arg;
	if (env && atol(env) > 0)
		ts.tv_nsec = atol(env) * 1000 % 1000000000;
	node_in_driver = 1;
	for (;;) {
		pthread_mutex_lock(&node_bar_lock);
		if (!node_bar_nmaps || atomic_load(&node_dev.forked)) {
			node_bar_thread_running = false;
			pthread_mutex_unlock(&node_bar_lock);
			return NULL;
		}
		for (unsigned int i = 0; i < node_bar_nmaps; i++)
			node_bar_fill_live(&node_bar_maps[i]);
		pthread_mutex_unlock(&node_bar_lock);
		nanosleep(&ts, NULL);
	}
}
#endif

#if defined(__x86_64__)
/*
 * Exact reads on x86-64: the pages holding live registers are PROT_NONE.
 * A load from one faults; the SIGSEGV handler opens the page, writes the
 * registers' current values (i915_gem_mmio_read32()) and sets the trap
 * flag, so the load executes once and SIGTRAP follows, whose handler
 * closes the page again. Signals that are not ours go to the handlers
 * that were installed before (the program's, e.g. igt's crash handler).
 * A handler the program installs after the first BAR mapping replaces
 * ours: the registers then read as the snapshot of the last trap.
 */
#include <signal.h>
#include <ucontext.h>

#define NODE_EFLAGS_TF 0x100

static struct sigaction node_bar_old_segv, node_bar_old_trap;
static __thread char *node_bar_open_page;

static bool node_reg_live(uint32_t reg)
{
	for (unsigned int i = 0; i < sizeof(node_engine_bases) / sizeof(node_engine_bases[0]); i++)
		if (reg == node_engine_bases[i] + NODE_RING_TIMESTAMP ||
		    reg == node_engine_bases[i] + NODE_RING_TIMESTAMP_UDW)
			return true;
	return false;
}

static void node_bar_chain(const struct sigaction *old, int sig, siginfo_t *info, void *uctx)
{
	if (old->sa_flags & SA_SIGINFO) {
		old->sa_sigaction(sig, info, uctx);
	} else if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN) {
		/* Default action: re-raise with the default disposition. */
		signal(sig, SIG_DFL);
		raise(sig);
	} else {
		old->sa_handler(sig);
	}
}

static void node_bar_segv(int sig, siginfo_t *info, void *uctx)
{
	char *a = info->si_addr, *page = (char *)((uintptr_t)a & ~(uintptr_t)4095);
	ucontext_t *uc = uctx;
	int saved = errno;

	/* node_bar_lock is never held around a load from a BAR mapping. */
	pthread_mutex_lock(&node_bar_lock);
	for (unsigned int i = 0; i < node_bar_nmaps; i++) {
		const struct node_bar_map *m = &node_bar_maps[i];
		uint64_t base;

		if (a < m->addr || a >= m->addr + m->len)
			continue;
		base = m->offset + (uint64_t)(page - m->addr);
		mprotect(page, 4096, PROT_READ | PROT_WRITE);
		node_in_driver++;
		for (uint32_t off = 0; off < 4096; off += 4)
			if (node_reg_live((uint32_t)base + off))
				*(volatile uint32_t *)(page + off) =
				    i915_gem_mmio_read32(node_dev.i915, (uint32_t)base + off);
		node_in_driver--;
		pthread_mutex_unlock(&node_bar_lock);
		node_bar_open_page = page;
		uc->uc_mcontext.gregs[REG_EFL] |= NODE_EFLAGS_TF;
		errno = saved;
		return;
	}
	pthread_mutex_unlock(&node_bar_lock);
	errno = saved;
	node_bar_chain(&node_bar_old_segv, sig, info, uctx);
}

static void node_bar_trap(int sig, siginfo_t *info, void *uctx)
{
	ucontext_t *uc = uctx;
	int saved = errno;

	if (!node_bar_open_page) {
		node_bar_chain(&node_bar_old_trap, sig, info, uctx);
		return;
	}
	mprotect(node_bar_open_page, 4096, PROT_NONE);
	node_bar_open_page = NULL;
	uc->uc_mcontext.gregs[REG_EFL] &= ~NODE_EFLAGS_TF;
	errno = saved;
}

/*
 * The SIGSEGV handler goes in front of the drm layer's user-copy guard
 * (installed first, here if no copy did yet), by the real sigaction(): a
 * handler the program installs later then goes behind the guard (node_libc.c's
 * sigaction()) and never displaces this one.
 */
static void node_bar_install_traps(void)
{
	struct sigaction sa = {0};

	(void)NODE_DRIVER_CALL(drm_user_copy_mode());
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = node_bar_segv;
	REAL(sigaction)(SIGSEGV, &sa, &node_bar_old_segv);
	sa.sa_sigaction = node_bar_trap;
	REAL(sigaction)(SIGTRAP, &sa, &node_bar_old_trap);
}

/* Close the live pages of a new mapping; the first mapping installs the handlers. */
static int node_bar_arm(struct node_bar_map *m)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, node_bar_install_traps);
	for (size_t off = 0; off < m->len; off += 4096) {
		bool live = false;

		for (uint32_t r = 0; r < 4096 && !live; r += 4)
			live = node_reg_live((uint32_t)(m->offset + off) + r);
		if (live && mprotect(m->addr + off, 4096, PROT_NONE))
			return -errno;
	}
	return 0;
}
#endif

void *node_bar_mmap(void *addr, size_t len, int prot, int flags, off_t offset)
{
#if !defined(__x86_64__)
	pthread_attr_t attr;
	pthread_t thread;
#endif
	char *map;

	if (node_fork_refuse())
		return MAP_FAILED;
	if (offset < 0 || (uint64_t)offset >= NODE_BAR_SIZE || !len ||
	    len > NODE_BAR_SIZE - (uint64_t)offset || (offset & 4095)) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	map = REAL(mmap)(addr, len, prot | PROT_READ | PROT_WRITE,
			 (flags & MAP_FIXED) | MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return map;
	node_in_driver++;
	for (size_t off = 0; off + 4 <= len; off += 4)
		*(uint32_t *)(map + off) =
		    i915_gem_mmio_read32(node_dev.i915, (uint32_t)((uint64_t)offset + off));
	node_in_driver--;

	pthread_mutex_lock(&node_bar_lock);
	if (node_bar_nmaps == NODE_BAR_MAPS) {
		pthread_mutex_unlock(&node_bar_lock);
		REAL(munmap)(map, len);
		errno = ENOMEM;
		return MAP_FAILED;
	}
	node_bar_maps[node_bar_nmaps++] = (struct node_bar_map){map, len, (uint64_t)offset};
#if defined(__x86_64__)
	if (node_bar_arm(&node_bar_maps[node_bar_nmaps - 1])) {
		node_bar_nmaps--;
		pthread_mutex_unlock(&node_bar_lock);
		REAL(munmap)(map, len);
		errno = ENOMEM;
		return MAP_FAILED;
	}
#else
	if (!node_bar_thread_running) {
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		node_in_driver++;
		if (!pthread_create(&thread, &attr, node_bar_refresher, NULL))
			node_bar_thread_running = true;
		node_in_driver--;
		pthread_attr_destroy(&attr);
	}
#endif
	pthread_mutex_unlock(&node_bar_lock);
	return map;
}

bool node_bar_munmap(void *addr, size_t len, int *ret)
{
	char *a = addr;
	bool found = false;

	if (!__atomic_load_n(&node_bar_nmaps, __ATOMIC_RELAXED))
		return false;
	pthread_mutex_lock(&node_bar_lock);
	for (unsigned int i = 0; i < node_bar_nmaps;) {
		struct node_bar_map *m = &node_bar_maps[i];

		if (m->addr < a + len && a < m->addr + m->len) {
			/* The refresher must not write into a range being unmapped. */
			found = true;
			*m = node_bar_maps[--node_bar_nmaps];
			continue;
		}
		i++;
	}
	if (found)
		*ret = REAL(munmap)(addr, len);
	pthread_mutex_unlock(&node_bar_lock);
	return found;
}

void node_bar_shutdown(void)
{
	/*
	 * The refresher reads registers of the device under node_bar_lock:
	 * once no mapping is listed it only takes the lock and leaves.
	 */
	pthread_mutex_lock(&node_bar_lock);
#if defined(__x86_64__)
	/* Mappings that outlive the device read their last values instead of trapping. */
	for (unsigned int i = 0; i < node_bar_nmaps; i++)
		mprotect(node_bar_maps[i].addr, node_bar_maps[i].len, PROT_READ | PROT_WRITE);
#endif
	node_bar_nmaps = 0;
	pthread_mutex_unlock(&node_bar_lock);
}

unsigned int node_bar_count(void)
{
	return __atomic_load_n(&node_bar_nmaps, __ATOMIC_RELAXED);
}
