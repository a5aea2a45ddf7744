// SPDX-License-Identifier: MIT
/*
 * The device of this process and the files around it.
 *
 * The device is created on the first use of anything of it (a stat of
 * /dev/dri/card0 comes before the open, and libdrm reads sysfs before it
 * opens a node), with the profile named by TTM_I915_PROFILE or by the
 * "profile" key of the file TTM_I915_CONFIG names, and destroyed when the
 * creating process exits.
 *
 * Its files are a real directory tree, made at creation under /dev/shm
 * (or $TMPDIR) and removed at exit: dev/dri, sys/dev/char/226:*,
 * sys/class/drm, the PCI function's directory, sys/bus/pci/{devices,
 * drivers}, sys/module/i915 and sys/kernel/debug, laid out like the
 * kernel's, with relative symbolic links where sysfs has them. Virtual
 * paths are redirected into it, so directory listings, relative opens,
 * symbolic links and realpath() behave as on a kernel; what must be live
 * (the device nodes, debugfs, resource0) is classified by the physical
 * path inside the tree and served by node_libc.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "node_priv.h"

struct node_device node_dev = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

bool node_trace;

/* The st_dev the tree's /sys/kernel/debug reports, unlike its parent's. */
#define NODE_DEBUGFS_DEV makedev(0, 0x7ffe)

void node_say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0) {
		ssize_t r =
		    REAL(write)(2, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
		(void)r;
	}
}

bool node_fork_refuse(void)
{
	if (!atomic_load_explicit(&node_dev.forked, memory_order_relaxed))
		return false;
	if (!atomic_exchange(&node_dev.fork_warned, true))
		node_say("ttm-i915-node: pid %d: the i915 device lives in process %d, which forked "
			 "this one; a forked child cannot use it (EIO)\n",
			 (int)getpid(), (int)node_dev.creator);
	errno = EIO;
	return true;
}

static void node_atfork_child(void)
{
	if (atomic_load(&node_dev.created))
		atomic_store(&node_dev.forked, true);
}

/* ---- the profile ------------------------------------------------------ */

/* The "profile" key of the config file: "profile = NAME" lines, # comments. */
static char *node_config_profile(const char *path)
{
	char line[256], *ret = NULL;
	FILE *f = fopen(path, "re");

	if (!f) {
		node_say("ttm-i915-node: TTM_I915_CONFIG=%s: %s\n", path, strerror(errno));
		return NULL;
	}
	while (fgets(line, sizeof(line), f)) {
		char *key = line, *val, *end;

		key += strspn(key, " \t");
		if (*key == '#' || !(val = strchr(key, '=')))
			continue;
		*val++ = '\0';
		for (end = val - 2; end >= key && strchr(" \t", *end); end--)
			*end = '\0';
		val += strspn(val, " \t");
		val[strcspn(val, " \t\r\n#")] = '\0';
		if (!strcmp(key, "profile") && *val) {
			free(ret);
			ret = strdup(val);
		}
	}
	fclose(f);
	return ret;
}

/* ---- the tree ----------------------------------------------------------- */

static int node_mkdirs(const char *rel)
{
	char path[PATH_MAX];
	char *p;

	if (snprintf(path, sizeof(path), "%s/%s", node_dev.root, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (p = path + node_dev.rootlen + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int node_put_file(const char *rel, const void *data, size_t len, mode_t mode)
{
	char path[PATH_MAX];
	const char *slash = strrchr(rel, '/');
	int fd, ret = 0;

	if (slash && slash != rel) {
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - rel), rel);
		ret = node_mkdirs(dir);
		if (ret)
			return ret;
	}
	if (snprintf(path, sizeof(path), "%s/%s", node_dev.root, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	if (len && write(fd, data, len) != (ssize_t)len)
		ret = -EIO;
	close(fd);
	return ret;
}

static int node_put_text(const char *rel, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int node_put_text(const char *rel, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	return node_put_file(rel, buf, (size_t)n, 0644);
}

static int node_put_link(const char *rel, const char *target)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", node_dev.root, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (symlink(target, path) && errno != EEXIST)
		return -errno;
	return 0;
}

static int node_rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void node_rm_tree(const char *path)
{
	nftw(path, node_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Trees of processes that died without exiting (killed, _exit()). */
static void node_rm_stale_trees(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		long pid;

		if (strncmp(de->d_name, "ttm-i915-node.", 14))
			continue;
		pid = strtol(de->d_name + 14, NULL, 10);
		if (pid <= 0 || !(kill((pid_t)pid, 0) && errno == ESRCH))
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, de->d_name);
		node_rm_tree(path);
	}
	closedir(d);
}

static int node_build_sysfs(void)
{
	const struct i915_gem_profile *p = node_dev.profile;
	const char *slot = p->pci_slot;
	const char *pci = node_dev.pci_dir + 1; /* relative to the root */
	char rel[PATH_MAX], res[2048];
	uint8_t cfg[256];
	static const struct {
		int minor;
		const char *name;
	} nodes[] = {{NODE_MINOR_PRIMARY, "card0"}, {NODE_MINOR_RENDER, "renderD128"}};
	size_t n = 0;
	int ret = 0;

	ret |= node_mkdirs("dev/dri/by-path");
	for (unsigned int i = 0; i < 2; i++) {
		snprintf(rel, sizeof(rel), "dev/dri/%s", nodes[i].name);
		ret |= node_put_file(rel, NULL, 0, 0666);
		snprintf(rel, sizeof(rel), "dev/dri/by-path/pci-%s-%s", slot,
			 i ? "render" : "card");
		ret |= node_put_link(rel, i ? "../renderD128" : "../card0");

		snprintf(rel, sizeof(rel), "%s/drm/%s/dev", pci, nodes[i].name);
		ret |= node_put_text(rel, "%d:%d\n", NODE_DRM_MAJOR, nodes[i].minor);
		snprintf(rel, sizeof(rel), "%s/drm/%s/uevent", pci, nodes[i].name);
		ret |= node_put_text(rel, "MAJOR=%d\nMINOR=%d\nDEVNAME=dri/%s\nDEVTYPE=drm_minor\n",
				     NODE_DRM_MAJOR, nodes[i].minor, nodes[i].name);
		snprintf(rel, sizeof(rel), "%s/drm/%s/device", pci, nodes[i].name);
		snprintf(res, sizeof(res), "../../../%s", slot);
		ret |= node_put_link(rel, res);
		snprintf(rel, sizeof(rel), "%s/drm/%s/subsystem", pci, nodes[i].name);
		ret |= node_put_link(rel, "../../../../../class/drm");

		snprintf(rel, sizeof(rel), "sys/dev/char/%d:%d", NODE_DRM_MAJOR, nodes[i].minor);
		ret |= node_mkdirs("sys/dev/char");
		snprintf(res, sizeof(res), "../../devices/pci0000:00/%s/drm/%s", slot,
			 nodes[i].name);
		ret |= node_put_link(rel, res);
		snprintf(rel, sizeof(rel), "sys/class/drm/%s", nodes[i].name);
		ret |= node_mkdirs("sys/class/drm");
		snprintf(res, sizeof(res), "../../devices/pci0000:00/%s/drm/%s", slot,
			 nodes[i].name);
		ret |= node_put_link(rel, res);
	}
	ret |= node_put_text("sys/class/drm/version", "drm 1.1.0 20060810\n");

	/* The PCI function, as drivers/pci/pci-sysfs.c presents it. */
	snprintf(rel, sizeof(rel), "%s/vendor", pci);
	ret |= node_put_text(rel, "0x%04x\n", p->pci_vendor);
	snprintf(rel, sizeof(rel), "%s/device", pci);
	ret |= node_put_text(rel, "0x%04x\n", p->pci_device);
	snprintf(rel, sizeof(rel), "%s/subsystem_vendor", pci);
	ret |= node_put_text(rel, "0x%04x\n", p->pci_subsystem_vendor);
	snprintf(rel, sizeof(rel), "%s/subsystem_device", pci);
	ret |= node_put_text(rel, "0x%04x\n", p->pci_subsystem_device);
	snprintf(rel, sizeof(rel), "%s/class", pci);
	ret |= node_put_text(rel, "0x%06x\n", node_pci_class());
	snprintf(rel, sizeof(rel), "%s/revision", pci);
	ret |= node_put_text(rel, "0x%02x\n", p->pci_revision);
	snprintf(rel, sizeof(rel), "%s/enable", pci);
	ret |= node_put_text(rel, "1\n");
	snprintf(rel, sizeof(rel), "%s/numa_node", pci);
	ret |= node_put_text(rel, "-1\n");
	snprintf(rel, sizeof(rel), "%s/boot_vga", pci);
	ret |= node_put_text(rel, "%d\n", p->discrete ? 0 : 1);
	snprintf(rel, sizeof(rel), "%s/uevent", pci);
	ret |= node_put_text(
	    rel,
	    "DRIVER=i915\nPCI_CLASS=%X\nPCI_ID=%04X:%04X\nPCI_SUBSYS_ID=%04X:%04X\n"
	    "PCI_SLOT_NAME=%s\nMODALIAS=pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X\n",
	    node_pci_class(), p->pci_vendor, p->pci_device, p->pci_subsystem_vendor,
	    p->pci_subsystem_device, slot, p->pci_vendor, p->pci_device, p->pci_subsystem_vendor,
	    p->pci_subsystem_device, node_pci_class() >> 16, (node_pci_class() >> 8) & 0xff,
	    node_pci_class() & 0xff);
	node_pci_config(cfg);
	snprintf(rel, sizeof(rel), "%s/config", pci);
	ret |= node_put_file(rel, cfg, sizeof(cfg), 0644);
	n = node_pci_resource_text(res, sizeof(res));
	snprintf(rel, sizeof(rel), "%s/resource", pci);
	ret |= node_put_file(rel, res, n, 0444);
	/*
	 * resourceN (and resourceN_wc for the prefetchable BAR 2) as sysfs
	 * sizes them: the BAR's size. resource0 is served live (node_pci.c);
	 * the others are sparse files.
	 */
	for (unsigned int bar = 0; bar < 6; bar++) {
		uint64_t size = node_pci_resource_size(bar);

		for (int wc = 0; size && wc < (bar == 2 ? 2 : 1); wc++) {
			snprintf(rel, sizeof(rel), "%s/resource%u%s", pci, bar, wc ? "_wc" : "");
			ret |= node_put_file(rel, NULL, 0, 0600);
			if (snprintf(res, sizeof(res), "%s/%s", node_dev.root, rel) >=
				(int)sizeof(res) ||
			    truncate(res, (off_t)size))
				ret |= -EIO;
		}
	}
	snprintf(rel, sizeof(rel), "%s/driver", pci);
	ret |= node_put_link(rel, "../../../bus/pci/drivers/i915");
	snprintf(rel, sizeof(rel), "%s/subsystem", pci);
	ret |= node_put_link(rel, "../../../bus/pci");

	ret |= node_mkdirs("sys/bus/pci/devices");
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", slot);
	snprintf(res, sizeof(res), "../../../devices/pci0000:00/%s", slot);
	ret |= node_put_link(rel, res);
	ret |= node_mkdirs("sys/bus/pci/drivers/i915");
	snprintf(rel, sizeof(rel), "sys/bus/pci/drivers/i915/%s", slot);
	snprintf(res, sizeof(res), "../../../../devices/pci0000:00/%s", slot);
	ret |= node_put_link(rel, res);
	ret |= node_put_link("sys/bus/pci/drivers/i915/module", "../../../../module/i915");
	/* Writable as on sysfs; writing them changes nothing (rmmod does, node_kmod.c). */
	ret |= node_put_file("sys/bus/pci/drivers/i915/bind", NULL, 0, 0200);
	ret |= node_put_file("sys/bus/pci/drivers/i915/unbind", NULL, 0, 0200);
	ret |= node_put_file("sys/bus/pci/drivers/i915/new_id", NULL, 0, 0200);
	ret |= node_put_file("sys/bus/pci/drivers/i915/remove_id", NULL, 0, 0200);
	ret |= node_put_file("sys/bus/pci/drivers/i915/uevent", NULL, 0, 0200);

	ret |= node_put_text("sys/module/i915/initstate", "live\n");
	ret |= node_put_text("sys/module/i915/refcnt", "1\n");
	ret |= node_mkdirs("sys/module/i915/parameters");
	ret |= node_mkdirs("sys/module/i915/drivers");
	ret |= node_mkdirs("sys/module/i915/holders");
	ret |= node_put_link("sys/module/i915/drivers/pci:i915", "../../../bus/pci/drivers/i915");
	return ret ? -EIO : 0;
}

static int node_build_debugfs(void)
{
	const char *const *files = i915_gem_debugfs_files(node_dev.i915);
	const char *slot = node_dev.profile->pci_slot;
	char rel[PATH_MAX];
	int ret = 0;

	ret |= node_put_text("sys/kernel/debug/dri/0/name", "i915 dev=%s unique=%s\n", slot, slot);
	ret |= node_put_file("sys/kernel/debug/sync/sw_sync", NULL, 0, 0600);
	ret |=
	    node_put_text("sys/kernel/debug/dri/128/name", "i915 dev=%s unique=%s\n", slot, slot);
	for (; files && *files; files++) {
		const char *name = *files;

		snprintf(rel, sizeof(rel), "sys/kernel/debug/dri/0/%s", name);
		ret |= node_put_file(rel, NULL, 0, 0644);
		/* Module parameters: a snapshot under /sys/module as well. */
		if (!strncmp(name, "i915_params/", 12)) {
			char *text = NULL;
			size_t len = 0;

			if (i915_gem_debugfs_read(node_dev.i915, name, &text, &len) == 0) {
				snprintf(rel, sizeof(rel), "sys/module/i915/parameters/%s",
					 name + 12);
				ret |= node_put_file(rel, text, len, 0644);
			}
			free(text);
		}
	}
	return ret ? -EIO : 0;
}

static int node_build_tree(void)
{
	const char *base = "/dev/shm";
	char path[PATH_MAX];
	struct stat st;
	int ret;

	if (access(base, W_OK)) {
		base = getenv("TMPDIR");
		if (!base || !*base)
			base = "/tmp";
	}
	node_rm_stale_trees(base);
	snprintf(node_dev.root, sizeof(node_dev.root), "%s/ttm-i915-node.%d.XXXXXX", base,
		 (int)getpid());
	if (!mkdtemp(node_dev.root))
		return -errno;
	node_dev.rootlen = strlen(node_dev.root);
	snprintf(node_dev.pci_dir, sizeof(node_dev.pci_dir), "/sys/devices/pci0000:00/%s",
		 node_dev.profile->pci_slot);

	ret = node_build_sysfs();
	if (!ret)
		ret = node_build_debugfs();
	if (ret)
		return ret;

	snprintf(path, sizeof(path), "%s/sys/kernel/debug", node_dev.root);
	if (stat(path, &st))
		return -errno;
	node_dev.tree_dev = st.st_dev;
	node_dev.debugfs_ino = st.st_ino;
	node_dev.debugfs_dev = NODE_DEBUGFS_DEV;
	snprintf(path, sizeof(path), "%s/dev/dri/card0", node_dev.root);
	if (stat(path, &st))
		return -errno;
	node_dev.node_ino[0] = st.st_ino;
	snprintf(path, sizeof(path), "%s/dev/dri/renderD128", node_dev.root);
	if (stat(path, &st))
		return -errno;
	node_dev.node_ino[1] = st.st_ino;
	return 0;
}

static int node_device_create(void)
{
	const char *name = getenv("TTM_I915_PROFILE");
	const char *config = getenv("TTM_I915_CONFIG");
	char *from_config = NULL;
	int ret;

	if ((!name || !*name) && config && *config)
		name = from_config = node_config_profile(config);
	if (name && !*name)
		name = NULL;
	if (!node_dev.params) {
		const char *env = getenv("TTM_I915_PARAMS");

		node_dev.params = env && *env ? strdup(env) : NULL;
	}
	ret = i915_gem_device_create_params(name, node_dev.params, &node_dev.i915);
	node_dev.create_err = ret;
	if (ret) {
		node_say("ttm-i915-node: cannot create the i915 device (profile %s): %s\n",
			 name ? name : "default", strerror(-ret));
		free(from_config);
		return ret;
	}
	free(from_config);
	node_dev.profile = i915_gem_device_profile(node_dev.i915);
	node_dev.creator = getpid();
	node_pci_probe();
	ret = node_build_tree();
	if (ret) {
		node_say("ttm-i915-node: cannot build the device's files under %s: %s\n",
			 node_dev.root[0] ? node_dev.root : "/dev/shm", strerror(-ret));
		if (node_dev.rootlen)
			node_rm_tree(node_dev.root);
		i915_gem_device_destroy(node_dev.i915);
		node_dev.i915 = NULL;
		node_dev.rootlen = 0;
		return ret;
	}
	return 0;
}

bool node_device_get(void)
{
	if (atomic_load_explicit(&node_dev.created, memory_order_acquire))
		return true;
	pthread_mutex_lock(&node_dev.lock);
	if (!atomic_load(&node_dev.created) && !node_dev.failed && !node_dev.unloaded) {
		node_in_driver++;
		if (node_device_create())
			node_dev.failed = true;
		else
			atomic_store_explicit(&node_dev.created, true, memory_order_release);
		node_in_driver--;
	}
	pthread_mutex_unlock(&node_dev.lock);
	if (!atomic_load(&node_dev.created)) {
		errno = ENOENT;
		return false;
	}
	return true;
}

bool node_device_loaded(void)
{
	bool loaded;

	pthread_mutex_lock(&node_dev.lock);
	loaded = !node_dev.unloaded && !node_dev.failed;
	pthread_mutex_unlock(&node_dev.lock);
	return loaded;
}

int node_device_unload(void)
{
	int ret = 0;

	if (node_fork_refuse())
		return -EIO;
	pthread_mutex_lock(&node_dev.lock);
	if (node_dev.unloaded) {
		ret = -ENOENT;
	} else if (atomic_load(&node_dev.files) || node_range_count() || node_bar_count()) {
		ret = -EAGAIN;
	} else {
		if (atomic_load(&node_dev.created)) {
			atomic_store(&node_dev.created, false);
			node_in_driver++;
			node_bar_shutdown();
			i915_gem_device_destroy(node_dev.i915);
			node_rm_tree(node_dev.root);
			node_in_driver--;
			node_dev.i915 = NULL;
			node_dev.rootlen = 0;
		}
		node_dev.unloaded = true;
		node_dev.failed = false;
	}
	pthread_mutex_unlock(&node_dev.lock);
	return ret;
}

int node_device_load(const char *options)
{
	char *params = options ? strdup(options) : NULL;

	if (node_fork_refuse()) {
		free(params);
		return -EIO;
	}
	if (options && !params)
		return -ENOMEM;
	pthread_mutex_lock(&node_dev.lock);
	if (!node_dev.unloaded && !node_dev.failed) {
		pthread_mutex_unlock(&node_dev.lock);
		free(params);
		return -EEXIST;
	}
	free(node_dev.params);
	node_dev.params = params;
	node_dev.unloaded = false;
	node_dev.failed = false;
	pthread_mutex_unlock(&node_dev.lock);
	if (!node_device_get())
		return node_dev.create_err ? node_dev.create_err : -ENODEV;
	return 0;
}

__attribute__((constructor)) static void node_device_init(void)
{
	const char *trace = getenv("TTM_I915_NODE_TRACE");

	node_trace = trace && *trace && strcmp(trace, "0");
	pthread_atfork(NULL, NULL, node_atfork_child);
}

__attribute__((destructor)) static void node_device_fini(void)
{
	struct timespec ms = {0, 1000000};
	bool idle = false;

	if (!atomic_load(&node_dev.created) || atomic_load(&node_dev.forked))
		return;
	/*
	 * exit() runs this while the program's other threads may still be in
	 * an ioctl: new calls fail with EIO from here on, and the device is
	 * destroyed only once the calls in flight are out (2 s at most; else
	 * it is left to the process's end, as a kernel would reclaim it).
	 */
	atomic_store(&node_dev.closing, true);
	for (int i = 0; i < 2000 && !(idle = !atomic_load(&node_dev.inflight)); i++)
		nanosleep(&ms, NULL);
	node_in_driver++;
	node_bar_shutdown();
	if (idle)
		i915_gem_device_destroy(node_dev.i915);
	node_rm_tree(node_dev.root);
	node_in_driver--;
}

/* ---- paths -------------------------------------------------------------- */

bool node_tree_strip(char *path)
{
	size_t n = node_dev.rootlen;

	if (!atomic_load_explicit(&node_dev.created, memory_order_acquire) || !n ||
	    strncmp(path, node_dev.root, n) || (path[n] != '/' && path[n] != '\0'))
		return false;
	if (path[n] == '\0')
		strcpy(path, "/");
	else
		memmove(path, path + n, strlen(path + n) + 1);
	return true;
}

void node_stat_fixup(struct stat *st)
{
	if (!atomic_load_explicit(&node_dev.created, memory_order_acquire) ||
	    st->st_dev != node_dev.tree_dev)
		return;
	if (st->st_ino == node_dev.debugfs_ino) {
		st->st_dev = node_dev.debugfs_dev;
	} else if (st->st_ino == node_dev.node_ino[0] || st->st_ino == node_dev.node_ino[1]) {
		st->st_mode = S_IFCHR | 0666;
		st->st_rdev =
		    makedev(NODE_DRM_MAJOR, st->st_ino == node_dev.node_ino[0] ? NODE_MINOR_PRIMARY
									       : NODE_MINOR_RENDER);
		st->st_size = 0;
		st->st_blocks = 0;
	}
}

/*
 * Which virtual directories are the device's. Those depending on the PCI
 * slot match any slot here (@generic) and are checked against the
 * profile once the device exists.
 */
static bool node_root_match(const char *norm, size_t len, bool *generic)
{
	static const char *const exact[] = {
	    "/dev/dri",		 "/sys/dev/char/226:0",	      "/sys/dev/char/226:128",
	    "/sys/class/drm",	 "/sys/bus/pci/drivers/i915", "/sys/module/i915",
	    "/sys/kernel/debug",
	};
	static const char *const by_slot[] = {"/sys/devices/pci0000:00/", "/sys/bus/pci/devices/"};

	*generic = false;
	for (unsigned int i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strlen(exact[i]) == len && !memcmp(norm, exact[i], len))
			return true;
	for (unsigned int i = 0; i < 2; i++) {
		size_t pl = strlen(by_slot[i]);

		if (len > pl && !memcmp(norm, by_slot[i], pl) &&
		    !memchr(norm + pl, '/', len - pl)) {
			*generic = true;
			return true;
		}
	}
	return false;
}

static bool node_slot_match(const char *norm)
{
	return !strcmp(strrchr(norm, '/') + 1, node_dev.profile->pci_slot);
}

/*
 * After "/proc/": "self/", "thread-self/", "<our pid>/" or "<our pid>/task/<tid>/",
 * then "fd/N" (@info false) or "fdinfo/N" (@info true): N, else -1.
 */
static int node_procfd(const char *p, bool *info)
{
	char *end;
	long n;

	if (!strncmp(p, "self/", 5)) {
		p += 5;
	} else if (!strncmp(p, "thread-self/", 12)) {
		p += 12;
	} else {
		long pid = strtol(p, &end, 10);

		if (end == p || pid != getpid() || *end != '/')
			return -1;
		p = end + 1;
		if (!strncmp(p, "task/", 5)) {
			long tid = strtol(p + 5, &end, 10);

			if (end == p + 5 || tid <= 0 || *end != '/')
				return -1;
			p = end + 1;
		}
	}
	if (!strncmp(p, "fd/", 3)) {
		*info = false;
		p += 3;
	} else if (!strncmp(p, "fdinfo/", 7)) {
		*info = true;
		p += 7;
	} else {
		return -1;
	}
	if (*p < '0' || *p > '9')
		return -1;
	n = strtol(p, &end, 10);
	if (*end || n > INT_MAX)
		return -1;
	return (int)n;
}

static void node_path_classify(struct node_path *out)
{
	char phys[PATH_MAX];
	const char *rel;
	size_t plen = strlen(node_dev.pci_dir);

	if (!REAL(realpath)(out->tree, phys) || !node_tree_strip(phys))
		return;
	rel = phys;
	if (!strcmp(rel, "/dev/dri/card0")) {
		out->kind = NODE_PATH_DEVNODE;
		out->minor = NODE_MINOR_PRIMARY;
	} else if (!strcmp(rel, "/dev/dri/renderD128")) {
		out->kind = NODE_PATH_DEVNODE;
		out->minor = NODE_MINOR_RENDER;
	} else if (!strncmp(rel, "/sys/kernel/debug/dri/0/", 24)) {
		const char *const *files = i915_gem_debugfs_files(node_dev.i915);

		for (; files && *files; files++)
			if (!strcmp(*files, rel + 24)) {
				out->kind = NODE_PATH_DEBUGFS;
				out->debugfs_name = *files;
				break;
			}
	} else if (!strncmp(rel, node_dev.pci_dir, plen) && !strcmp(rel + plen, "/resource0")) {
		out->kind = NODE_PATH_BAR;
	} else if (!strcmp(rel, "/sys/kernel/debug/sync/sw_sync")) {
		out->kind = NODE_PATH_SW_SYNC;
	}
}

int node_path_resolve(int dirfd, const char *path, struct node_path *out)
{
	char abs[PATH_MAX];
	const char *p, *rest = NULL;
	size_t len = 0;
	bool generic = false, matched = false;

	out->kind = NODE_PATH_REAL;
	out->debugfs_name = NULL;
	out->fd = -1;
	out->minor = -1;
	if (!path)
		return 0;
	if (path[0] != '/') {
		char link[64];
		ssize_t n;

		if (dirfd == AT_FDCWD || !atomic_load(&node_dev.created))
			return 0;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
		n = REAL(readlink)(link, abs, sizeof(abs) - 1);
		if (n <= 0)
			return 0;
		abs[n] = '\0';
		/* Under /proc the link is the path itself (fdinfo of a descriptor). */
		if (strncmp(abs, "/proc/", 6) && !node_tree_strip(abs))
			return 0;
		if (strlen(abs) + 1 + strlen(path) >= sizeof(abs))
			return strncmp(abs, "/proc/", 6) ? -ENAMETOOLONG : 0;
		strcat(abs, "/");
		strcat(abs, path);
	} else {
		if (strlen(path) >= sizeof(abs))
			return 0;
		strcpy(abs, path);
	}

	if (!strncmp(abs, "/proc/", 6)) {
		bool info = false;
		int fd = node_procfd(abs + 6, &info);
		struct node_obj *obj = fd >= 0 ? node_fd_get(fd) : NULL;

		if (obj) {
			if (obj->kind == NODE_FD_DEVICE) {
				out->kind = info ? NODE_PATH_FDINFO : NODE_PATH_PROCFD;
				out->fd = fd;
				out->minor = obj->minor;
			}
			node_obj_put(obj);
		}
		return 0;
	}
	if (strncmp(abs, "/dev/dri", 8) && strncmp(abs, "/sys/", 5))
		return 0;

	/* Lexically normalize up to one of our roots; below it the tree resolves. */
	out->virt[0] = '\0';
	for (p = abs; *p;) {
		const char *c = p + strspn(p, "/");
		size_t cl = strcspn(c, "/");

		if (!cl)
			break;
		p = c + cl;
		if (cl == 1 && c[0] == '.')
			continue;
		if (cl == 2 && c[0] == '.' && c[1] == '.') {
			char *slash = strrchr(out->virt, '/');

			if (slash)
				*slash = '\0';
			len = strlen(out->virt);
			continue;
		}
		out->virt[len++] = '/';
		memcpy(out->virt + len, c, cl);
		len += cl;
		out->virt[len] = '\0';
		if (node_root_match(out->virt, len, &generic)) {
			matched = true;
			rest = p;
			break;
		}
	}
	if (!matched)
		return 0;
	if (!node_device_get())
		return -ENOENT;
	if (generic && !node_slot_match(out->virt))
		return 0;
	if (node_dev.rootlen + len + strlen(rest) >= sizeof(out->tree))
		return -ENAMETOOLONG;
	memcpy(out->tree, node_dev.root, node_dev.rootlen);
	strcpy(out->tree + node_dev.rootlen, out->virt);
	strcat(out->tree, rest);
	out->kind = NODE_PATH_TREE;
	node_path_classify(out);
	return 0;
}
