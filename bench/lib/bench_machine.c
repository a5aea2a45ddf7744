// SPDX-License-Identifier: MIT
/*
 * bench_machine.c - what machine a result came from, and thread pinning.
 *
 * The machine id hashes only what changes the numbers (CPU model and
 * signature, core and PU counts, cache sizes, RAM in GiB), not the hostname
 * or the kernel, so a reinstalled or renamed box keeps its baselines. The
 * signature and the caches are there because a virtual machine's model name
 * can hide the part: two cloud guests both called "AMD EPYC", one of family
 * 25 with a 32 KiB L1d and one of family 26 with 48 KiB, differ by 3x in a
 * locked instruction and 7x in a system call, and must not share a baseline.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"
#include "bench_priv.h"
#include "ttm_config.h"

#if TTM_HAVE_HWLOC
#include <hwloc.h>
#endif

static void read_cpu_model(char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;
		size_t n;

		/* x86 says "model name"; arm64 has no model, "CPU part" is the nearest. */
		if (!colon || strncmp(line, "model name", 10))
			continue;
		v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		n = strcspn(v, "\n");
		v[n] = '\0';
		if (*v)
			snprintf(buf, len, "%s", v);
		break;
	}
	fclose(f);
}

/*
 * What identifies the part beyond its marketing name: x86's family, model
 * and stepping, arm64's implementer, part and variant ("-" for a field the
 * kernel does not show). "unknown" when /proc/cpuinfo cannot be read.
 */
static void read_cpu_signature(char *buf, size_t len)
{
	static const char *const keys[2][3] = {
	    {"cpu family", "model", "stepping"},
	    {"CPU implementer", "CPU part", "CPU variant"},
	};
	char vals[2][3][32] = {{"", "", ""}, {"", "", ""}};
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int k;

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	/* The first processor's block only: it ends at the first blank line. */
	while (fgets(line, sizeof(line), f) && line[0] != '\n') {
		char *colon = strchr(line, ':'), *v;
		size_t klen;

		if (!colon)
			continue;
		klen = (size_t)(colon - line);
		while (klen && (line[klen - 1] == ' ' || line[klen - 1] == '\t'))
			klen--;
		v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = '\0';
		for (k = 0; k < 6; k++) {
			const char *key = keys[k / 3][k % 3];

			if (strlen(key) == klen && !strncmp(line, key, klen))
				snprintf(vals[k / 3][k % 3], sizeof(vals[0][0]), "%s", v);
		}
	}
	fclose(f);
	for (k = 0; k < 2; k++) {
		if (!vals[k][0][0] && !vals[k][1][0])
			continue;
		snprintf(buf, len, "%s %s/%s/%s", k ? "arm" : "x86",
			 vals[k][0][0] ? vals[k][0] : "-", vals[k][1][0] ? vals[k][1] : "-",
			 vals[k][2][0] ? vals[k][2] : "-");
		break;
	}
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--) {
		h ^= *c++;
		h *= 0x100000001b3ull;
	}
	return h;
}

#if TTM_HAVE_HWLOC
static uint64_t cache_size(hwloc_topology_t t, hwloc_obj_type_t type)
{
	hwloc_obj_t o = hwloc_get_obj_by_type(t, type, 0);

	return o && o->attr ? o->attr->cache.size : 0;
}

static uint64_t llc_size(hwloc_topology_t t)
{
	uint64_t s = cache_size(t, HWLOC_OBJ_L3CACHE);

	return s ? s : cache_size(t, HWLOC_OBJ_L2CACHE);
}

static int probe_hwloc(struct bench_machine *m)
{
	hwloc_topology_t t;
	int n;

	if (hwloc_topology_init(&t))
		return -ENOMEM;
	if (hwloc_topology_load(t)) {
		hwloc_topology_destroy(t);
		return -EIO;
	}
	n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
	m->packages = n > 0 ? (unsigned)n : 1;
	n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
	m->cores = n > 0 ? (unsigned)n : m->pus;
	n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	if (n > 0)
		m->pus = (unsigned)n;
	n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
	m->numa_nodes = n > 0 ? (unsigned)n : 1;
	m->l1d_bytes = cache_size(t, HWLOC_OBJ_L1CACHE);
	m->l2_bytes = cache_size(t, HWLOC_OBJ_L2CACHE);
	m->l3_bytes = llc_size(t);
	m->have_hwloc = true;
	m->topo = t;
	return 0;
}
#endif

/* Truncating copy; uname fields are longer than ours but never that long in practice. */
static void copy_trunc(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static uint64_t sysconf_cache(int name)
{
	long v = sysconf(name);

	return v > 0 ? (uint64_t)v : 0;
}

int bench_machine_probe(struct bench_machine *m)
{
	struct utsname u;
	long pages, psz, online;
	uint64_t h = 0xcbf29ce484222325ull, gib;

	memset(m, 0, sizeof(*m));
	if (gethostname(m->hostname, sizeof(m->hostname) - 1))
		snprintf(m->hostname, sizeof(m->hostname), "unknown");
	read_cpu_model(m->cpu_model, sizeof(m->cpu_model));
	read_cpu_signature(m->cpu_signature, sizeof(m->cpu_signature));
	if (!uname(&u)) {
		copy_trunc(m->kernel, sizeof(m->kernel), u.release);
		copy_trunc(m->arch, sizeof(m->arch), u.machine);
	} else {
		snprintf(m->kernel, sizeof(m->kernel), "unknown");
		snprintf(m->arch, sizeof(m->arch), "unknown");
	}
	pages = sysconf(_SC_PHYS_PAGES);
	psz = sysconf(_SC_PAGESIZE);
	m->ram_bytes = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0;
	online = sysconf(_SC_NPROCESSORS_ONLN);
	m->pus = online > 0 ? (unsigned)online : 1;
	m->cores = m->pus;
	m->packages = 1;
	m->numa_nodes = 1;
#ifdef _SC_LEVEL1_DCACHE_SIZE
	m->l1d_bytes = sysconf_cache(_SC_LEVEL1_DCACHE_SIZE);
	m->l2_bytes = sysconf_cache(_SC_LEVEL2_CACHE_SIZE);
	m->l3_bytes = sysconf_cache(_SC_LEVEL3_CACHE_SIZE);
	if (!m->l3_bytes)
		m->l3_bytes = m->l2_bytes;
#else
	(void)sysconf_cache;
#endif
#if TTM_HAVE_HWLOC
	/* Without a topology the fallbacks above stand; pinning still works. */
	if (probe_hwloc(m))
		m->have_hwloc = false;
#endif
	gib = (m->ram_bytes + (1ull << 29)) >> 30;
	h = fnv1a(h, m->cpu_model, strlen(m->cpu_model));
	h = fnv1a(h, &m->cores, sizeof(m->cores));
	h = fnv1a(h, &m->pus, sizeof(m->pus));
	h = fnv1a(h, &gib, sizeof(gib));
	h = fnv1a(h, m->cpu_signature, strlen(m->cpu_signature));
	h = fnv1a(h, &m->l1d_bytes, sizeof(m->l1d_bytes));
	h = fnv1a(h, &m->l2_bytes, sizeof(m->l2_bytes));
	h = fnv1a(h, &m->l3_bytes, sizeof(m->l3_bytes));
	snprintf(m->id, sizeof(m->id), "%016" PRIx64, h);
	return 0;
}

void bench_machine_fini(struct bench_machine *m)
{
#if TTM_HAVE_HWLOC
	if (m->topo)
		hwloc_topology_destroy(m->topo);
#endif
	m->topo = NULL;
	m->have_hwloc = false;
}

static int pin_to_pu_sched(unsigned pu)
{
	cpu_set_t set;
	int rc;

	if (pu >= CPU_SETSIZE)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(pu, &set);
	rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	return -rc;
}

/* The PU (OS index) worker @index is pinned to; see bench_pin_thread(). */
static int worker_pu(const struct bench_run *r, unsigned index, unsigned *pu)
{
	const struct bench_options *o = &r->opts;
	const struct bench_machine *m = &r->machine;

	if (o->ncpus) {
		long online = sysconf(_SC_NPROCESSORS_CONF);

		*pu = o->cpus[index % o->ncpus];
		return online > 0 && *pu >= (unsigned long)online ? -EINVAL : 0;
	}
#if TTM_HAVE_HWLOC
	if (m->topo) {
		hwloc_topology_t t = m->topo;
		hwloc_obj_t obj;
		int ncores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);

		if (ncores > 0)
			obj = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, index % (unsigned)ncores);
		else
			obj = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, index % m->pus);
		/* The first PU of the core: its sibling stays free. */
		while (obj && obj->type != HWLOC_OBJ_PU && obj->first_child)
			obj = obj->first_child;
		if (!obj || obj->type != HWLOC_OBJ_PU)
			return -EINVAL;
		*pu = obj->os_index;
		return 0;
	}
#endif
	*pu = index % (m->pus ? m->pus : 1);
	return 0;
}

int bench_pin_thread(struct bench_run *r, unsigned index)
{
	unsigned pu;
	int rc = worker_pu(r, index, &pu);

	if (rc)
		return rc;
#if TTM_HAVE_HWLOC
	if (r->machine.topo) {
		hwloc_topology_t t = r->machine.topo;
		hwloc_obj_t obj = hwloc_get_pu_obj_by_os_index(t, pu);

		if (!obj || !obj->cpuset)
			return -EINVAL;
		if (hwloc_set_cpubind(t, obj->cpuset, HWLOC_CPUBIND_THREAD))
			return errno ? -errno : -EINVAL;
		return 0;
	}
#endif
	return pin_to_pu_sched(pu);
}

int bench_device_cpus(struct bench_run *r, unsigned nworkers, cpu_set_t *set)
{
	unsigned i, pu;
	int rc;

	*set = r->priv->allowed;
	for (i = 0; i < nworkers; i++) {
		rc = worker_pu(r, i, &pu);
		if (rc)
			return rc;
		if (pu < CPU_SETSIZE)
			CPU_CLR(pu, set);
	}
	if (!CPU_COUNT(set))
		*set = r->priv->allowed;
	return 0;
}
