// SPDX-License-Identifier: MIT
/*
 * The libudev API, as far as a program can hand it one of our devices.
 *
 * This library is preloaded before libudev, so these definitions win.
 * The udev context, monitors, and every device and list that is not ours
 * are the real libudev's (resolved with dlsym(RTLD_NEXT) and passed
 * through untouched): a program that uses libudev for block devices or
 * input still works. What is ours:
 *   - three devices: the PCI function (subsystem "pci", driver i915) and
 *     its drm children card0 and renderD128 (subsystem "drm"), whose
 *     properties and sysattrs come from the node's sysfs tree;
 *   - every enumeration's result list: the real one copied, minus real
 *     drm-class devices (the node owns the drm class) and a real function
 *     at our slot, plus ours where the enumeration's matches allow. The
 *     matches modelled are subsystem (match and nomatch), property,
 *     sysname and parent; an enumeration with any other kind of match
 *     (sysattr, tag, is_initialized) does not list our devices.
 * Our objects are told apart from libudev's by address: each is
 * registered in node_udev_objs while alive.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <libudev.h>

#include "node_priv.h"

#define NODE_UDEV_PCI 0
#define NODE_UDEV_CARD 1
#define NODE_UDEV_RENDER 2

struct node_list_entry {
	struct node_list_entry *next;
	char *name;
	char *value;
};

/* A list we hand out: entries in one array, registered as a range. */
struct node_list {
	struct node_list_entry *entries;
	size_t n, cap;
};

struct node_udev_device {
	atomic_int refs;
	struct udev *udev;
	int which;
	char syspath[PATH_MAX];
	char sysname[32];
	char devnode[64];
	struct node_list props;
	struct node_list sysattrs;    /* names, values read on demand */
	struct node_list attr_values; /* values returned so far */
	struct node_udev_device *parent;
};

/* What an enumeration of libudev's asked for, to decide about ours. */
struct node_enum {
	struct node_enum *next;
	struct udev_enumerate *real;
	struct node_list subsystems, nomatch_subsystems, properties, sysnames;
	int parent; /* -1: none; else which of ours */
	bool parent_real, unmodelled;
	struct node_list result;
};

/* Live objects of ours, by address range. Protected by node_udev_lock. */
struct node_udev_obj {
	const void *start;
	size_t len;
};
static struct node_udev_obj *node_udev_objs;
static size_t node_udev_nobjs, node_udev_objs_cap;
static struct node_enum *node_enums;
static pthread_mutex_t node_udev_lock = PTHREAD_MUTEX_INITIALIZER;

static void *ureal(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

#define UREAL(fn, ...)                                                                             \
	({                                                                                         \
		__typeof__(&fn) f__ = ureal(#fn);                                                  \
		f__ ? f__(__VA_ARGS__) : (__typeof__(f__(__VA_ARGS__)))0;                          \
	})

static void node_udev_register(const void *p, size_t len)
{
	pthread_mutex_lock(&node_udev_lock);
	if (node_udev_nobjs == node_udev_objs_cap) {
		size_t cap = node_udev_objs_cap ? 2 * node_udev_objs_cap : 32;
		struct node_udev_obj *o = realloc(node_udev_objs, cap * sizeof(*o));

		if (!o) {
			pthread_mutex_unlock(&node_udev_lock);
			return;
		}
		node_udev_objs = o;
		node_udev_objs_cap = cap;
	}
	node_udev_objs[node_udev_nobjs++] = (struct node_udev_obj){p, len};
	pthread_mutex_unlock(&node_udev_lock);
}

static void node_udev_unregister(const void *p)
{
	pthread_mutex_lock(&node_udev_lock);
	for (size_t i = 0; i < node_udev_nobjs; i++)
		if (node_udev_objs[i].start == p) {
			node_udev_objs[i] = node_udev_objs[--node_udev_nobjs];
			break;
		}
	pthread_mutex_unlock(&node_udev_lock);
}

static bool node_udev_ours(const void *p)
{
	bool ours = false;

	if (!p)
		return false;
	pthread_mutex_lock(&node_udev_lock);
	for (size_t i = 0; i < node_udev_nobjs && !ours; i++)
		ours =
		    (const char *)p >= (const char *)node_udev_objs[i].start &&
		    (const char *)p < (const char *)node_udev_objs[i].start + node_udev_objs[i].len;
	pthread_mutex_unlock(&node_udev_lock);
	return ours;
}

/* ---- lists ---------------------------------------------------------------- */

static int node_list_add(struct node_list *l, const char *name, const char *value)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct node_list_entry *e = realloc(l->entries, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		l->entries = e;
		l->cap = cap;
	}
	l->entries[l->n].name = strdup(name);
	l->entries[l->n].value = value ? strdup(value) : NULL;
	if (!l->entries[l->n].name) {
		free(l->entries[l->n].value);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

/* Link the entries and register the array: the list may now be handed out. */
static struct udev_list_entry *node_list_publish(struct node_list *l)
{
	if (!l->n)
		return NULL;
	for (size_t i = 0; i < l->n; i++)
		l->entries[i].next = i + 1 < l->n ? &l->entries[i + 1] : NULL;
	node_udev_unregister(l->entries);
	node_udev_register(l->entries, l->n * sizeof(*l->entries));
	return (struct udev_list_entry *)l->entries;
}

static void node_list_clear(struct node_list *l)
{
	if (l->entries)
		node_udev_unregister(l->entries);
	for (size_t i = 0; i < l->n; i++) {
		free(l->entries[i].name);
		free(l->entries[i].value);
	}
	free(l->entries);
	memset(l, 0, sizeof(*l));
}

static const char *node_list_find(const struct node_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->entries[i].name, name))
			return l->entries[i].value ? l->entries[i].value : "";
	return NULL;
}

NODE_EXPORT struct udev_list_entry *udev_list_entry_get_next(struct udev_list_entry *e)
{
	if (!node_udev_ours(e))
		return UREAL(udev_list_entry_get_next, e);
	return (struct udev_list_entry *)((struct node_list_entry *)e)->next;
}

NODE_EXPORT const char *udev_list_entry_get_name(struct udev_list_entry *e)
{
	if (!node_udev_ours(e))
		return UREAL(udev_list_entry_get_name, e);
	return ((struct node_list_entry *)e)->name;
}

NODE_EXPORT const char *udev_list_entry_get_value(struct udev_list_entry *e)
{
	if (!node_udev_ours(e))
		return UREAL(udev_list_entry_get_value, e);
	return ((struct node_list_entry *)e)->value;
}

NODE_EXPORT struct udev_list_entry *udev_list_entry_get_by_name(struct udev_list_entry *e,
								const char *name)
{
	if (!node_udev_ours(e))
		return UREAL(udev_list_entry_get_by_name, e, name);
	for (struct node_list_entry *n = (struct node_list_entry *)e; n; n = n->next)
		if (!strcmp(n->name, name))
			return (struct udev_list_entry *)n;
	return NULL;
}

/* ---- our devices ------------------------------------------------------------ */

/* 0, 1, 2 for our PCI function, card0, renderD128; -1 for anything else. */
static int node_udev_which(const char *syspath)
{
	char virt[PATH_MAX];

	if (!syspath || strncmp(syspath, "/sys/", 5) || !realpath(syspath, virt))
		return -1;
	if (!strcmp(virt, node_dev.pci_dir))
		return NODE_UDEV_PCI;
	if (!strncmp(virt, node_dev.pci_dir, strlen(node_dev.pci_dir))) {
		const char *rest = virt + strlen(node_dev.pci_dir);

		if (!strcmp(rest, "/drm/card0"))
			return NODE_UDEV_CARD;
		if (!strcmp(rest, "/drm/renderD128"))
			return NODE_UDEV_RENDER;
	}
	return -1;
}

static const char *node_udev_syspath(int which, char *buf, size_t len)
{
	static const char *const tails[] = {"", "/drm/card0", "/drm/renderD128"};

	snprintf(buf, len, "%s%s", node_dev.pci_dir, tails[which]);
	return buf;
}

/* A sysattr: a link's target basename, a file's first line. */
static char *node_udev_read_attr(const char *syspath, const char *attr)
{
	char path[PATH_MAX], buf[4096];
	ssize_t n;
	int fd;

	if (strchr(attr, '/') && strstr(attr, ".."))
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", syspath, attr);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = '\0';
		return strdup(strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return strdup(buf);
}

static struct node_udev_device *node_udev_device_new(struct udev *udev, int which)
{
	const struct i915_gem_profile *p = node_dev.profile;
	struct node_udev_device *d = calloc(1, sizeof(*d));
	char buf[256];
	DIR *dir;
	struct dirent *de;
	int err = 0;

	if (!d)
		return NULL;
	atomic_init(&d->refs, 1);
	d->udev = udev;
	d->which = which;
	node_udev_syspath(which, d->syspath, sizeof(d->syspath));
	snprintf(d->sysname, sizeof(d->sysname), "%s", strrchr(d->syspath, '/') + 1);
	err |= node_list_add(&d->props, "DEVPATH", d->syspath + 4);
	if (which == NODE_UDEV_PCI) {
		err |= node_list_add(&d->props, "SUBSYSTEM", "pci");
		err |= node_list_add(&d->props, "DRIVER", "i915");
		snprintf(buf, sizeof(buf), "%X", node_pci_class());
		err |= node_list_add(&d->props, "PCI_CLASS", buf);
		snprintf(buf, sizeof(buf), "%04X:%04X", p->pci_vendor, p->pci_device);
		err |= node_list_add(&d->props, "PCI_ID", buf);
		snprintf(buf, sizeof(buf), "%04X:%04X", p->pci_subsystem_vendor,
			 p->pci_subsystem_device);
		err |= node_list_add(&d->props, "PCI_SUBSYS_ID", buf);
		err |= node_list_add(&d->props, "PCI_SLOT_NAME", p->pci_slot);
		snprintf(buf, sizeof(buf), "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X",
			 p->pci_vendor, p->pci_device, p->pci_subsystem_vendor,
			 p->pci_subsystem_device, node_pci_class() >> 16,
			 (node_pci_class() >> 8) & 0xff, node_pci_class() & 0xff);
		err |= node_list_add(&d->props, "MODALIAS", buf);
	} else {
		int minor = which == NODE_UDEV_CARD ? NODE_MINOR_PRIMARY : NODE_MINOR_RENDER;

		snprintf(d->devnode, sizeof(d->devnode), "/dev/dri/%s", d->sysname);
		err |= node_list_add(&d->props, "SUBSYSTEM", "drm");
		err |= node_list_add(&d->props, "DEVNAME", d->devnode);
		err |= node_list_add(&d->props, "DEVTYPE", "drm_minor");
		snprintf(buf, sizeof(buf), "%d", NODE_DRM_MAJOR);
		err |= node_list_add(&d->props, "MAJOR", buf);
		snprintf(buf, sizeof(buf), "%d", minor);
		err |= node_list_add(&d->props, "MINOR", buf);
		snprintf(buf, sizeof(buf), "pci-%s", p->pci_slot);
		err |= node_list_add(&d->props, "ID_PATH", buf);
		for (char *c = buf; *c; c++)
			if (*c == ':' || *c == '.')
				*c = '_';
		err |= node_list_add(&d->props, "ID_PATH_TAG", buf);
	}
	dir = opendir(d->syspath);
	while (dir && (de = readdir(dir)))
		if (de->d_name[0] != '.' && (de->d_type == DT_REG || de->d_type == DT_LNK))
			err |= node_list_add(&d->sysattrs, de->d_name, NULL);
	if (dir)
		closedir(dir);
	if (err) {
		node_list_clear(&d->props);
		node_list_clear(&d->sysattrs);
		free(d);
		return NULL;
	}
	node_udev_register(d, sizeof(*d));
	return d;
}

static struct udev_device *node_udev_device_lookup(struct udev *udev, int which)
{
	if (which < 0 || !node_device_get())
		return NULL;
	return (struct udev_device *)node_udev_device_new(udev, which);
}

NODE_EXPORT struct udev_device *udev_device_new_from_syspath(struct udev *udev, const char *syspath)
{
	int which = -1;

	if (syspath && (!strncmp(syspath, "/sys/", 5)) && node_device_get())
		which = node_udev_which(syspath);
	if (which >= 0)
		return node_udev_device_lookup(udev, which);
	return UREAL(udev_device_new_from_syspath, udev, syspath);
}

NODE_EXPORT struct udev_device *udev_device_new_from_devnum(struct udev *udev, char type,
							    dev_t devnum)
{
	if (type == 'c' && major(devnum) == NODE_DRM_MAJOR &&
	    (minor(devnum) == NODE_MINOR_PRIMARY || minor(devnum) == NODE_MINOR_RENDER))
		return node_udev_device_lookup(
		    udev, minor(devnum) == NODE_MINOR_PRIMARY ? NODE_UDEV_CARD : NODE_UDEV_RENDER);
	return UREAL(udev_device_new_from_devnum, udev, type, devnum);
}

NODE_EXPORT struct udev_device *udev_device_new_from_subsystem_sysname(struct udev *udev,
								       const char *subsystem,
								       const char *sysname)
{
	if (subsystem && sysname && !strcmp(subsystem, "drm")) {
		if (!strcmp(sysname, "card0"))
			return node_udev_device_lookup(udev, NODE_UDEV_CARD);
		if (!strcmp(sysname, "renderD128"))
			return node_udev_device_lookup(udev, NODE_UDEV_RENDER);
	}
	if (subsystem && sysname && !strcmp(subsystem, "pci") && node_device_get() &&
	    !strcmp(sysname, node_dev.profile->pci_slot))
		return node_udev_device_lookup(udev, NODE_UDEV_PCI);
	return UREAL(udev_device_new_from_subsystem_sysname, udev, subsystem, sysname);
}

NODE_EXPORT struct udev_device *udev_device_new_from_device_id(struct udev *udev, const char *id)
{
	if (id && id[0] == 'c') {
		unsigned int maj, min;

		if (sscanf(id + 1, "%u:%u", &maj, &min) == 2 && maj == NODE_DRM_MAJOR &&
		    (min == NODE_MINOR_PRIMARY || min == NODE_MINOR_RENDER))
			return udev_device_new_from_devnum(udev, 'c', makedev(maj, min));
	}
	return UREAL(udev_device_new_from_device_id, udev, id);
}

#define NODE_DEV(d) ((struct node_udev_device *)(d))

NODE_EXPORT struct udev_device *udev_device_ref(struct udev_device *d)
{
	if (!node_udev_ours(d))
		return UREAL(udev_device_ref, d);
	atomic_fetch_add(&NODE_DEV(d)->refs, 1);
	return d;
}

NODE_EXPORT struct udev_device *udev_device_unref(struct udev_device *d)
{
	struct node_udev_device *n = NODE_DEV(d);

	if (!node_udev_ours(d))
		return UREAL(udev_device_unref, d);
	if (atomic_fetch_sub(&n->refs, 1) != 1)
		return NULL;
	node_udev_unregister(n);
	if (n->parent)
		udev_device_unref((struct udev_device *)n->parent);
	node_list_clear(&n->props);
	node_list_clear(&n->sysattrs);
	node_list_clear(&n->attr_values);
	free(n);
	return NULL;
}

#define NODE_DEV_GETTER(type, fn, expr)                                                            \
	NODE_EXPORT type fn(struct udev_device *d)                                                 \
	{                                                                                          \
		if (!node_udev_ours(d))                                                            \
			return UREAL(fn, d);                                                       \
		return (expr);                                                                     \
	}

NODE_DEV_GETTER(struct udev *, udev_device_get_udev, NODE_DEV(d)->udev)
NODE_DEV_GETTER(const char *, udev_device_get_syspath, NODE_DEV(d)->syspath)
NODE_DEV_GETTER(const char *, udev_device_get_sysname, NODE_DEV(d)->sysname)
NODE_DEV_GETTER(const char *, udev_device_get_devpath, NODE_DEV(d)->syspath + 4)
NODE_DEV_GETTER(const char *, udev_device_get_devnode,
		NODE_DEV(d)->devnode[0] ? NODE_DEV(d)->devnode : NULL)
NODE_DEV_GETTER(const char *, udev_device_get_subsystem,
		NODE_DEV(d)->which == NODE_UDEV_PCI ? "pci" : "drm")
NODE_DEV_GETTER(const char *, udev_device_get_devtype,
		NODE_DEV(d)->which == NODE_UDEV_PCI ? NULL : "drm_minor")
NODE_DEV_GETTER(const char *, udev_device_get_driver,
		NODE_DEV(d)->which == NODE_UDEV_PCI ? "i915" : NULL)
NODE_DEV_GETTER(const char *, udev_device_get_action, NULL)
NODE_DEV_GETTER(unsigned long long, udev_device_get_seqnum, 0)
NODE_DEV_GETTER(unsigned long long, udev_device_get_usec_since_initialized, 0)
NODE_DEV_GETTER(int, udev_device_get_is_initialized, 1)
NODE_DEV_GETTER(struct udev_list_entry *, udev_device_get_properties_list_entry,
		node_list_publish(&NODE_DEV(d)->props))
NODE_DEV_GETTER(struct udev_list_entry *, udev_device_get_sysattr_list_entry,
		node_list_publish(&NODE_DEV(d)->sysattrs))
NODE_DEV_GETTER(struct udev_list_entry *, udev_device_get_devlinks_list_entry, NULL)
NODE_DEV_GETTER(struct udev_list_entry *, udev_device_get_tags_list_entry, NULL)
NODE_DEV_GETTER(struct udev_list_entry *, udev_device_get_current_tags_list_entry, NULL)

NODE_EXPORT const char *udev_device_get_sysnum(struct udev_device *d)
{
	const char *s;

	if (!node_udev_ours(d))
		return UREAL(udev_device_get_sysnum, d);
	s = NODE_DEV(d)->sysname + strlen(NODE_DEV(d)->sysname);
	while (s > NODE_DEV(d)->sysname && s[-1] >= '0' && s[-1] <= '9')
		s--;
	return *s ? s : NULL;
}

NODE_EXPORT dev_t udev_device_get_devnum(struct udev_device *d)
{
	if (!node_udev_ours(d))
		return UREAL(udev_device_get_devnum, d);
	switch (NODE_DEV(d)->which) {
	case NODE_UDEV_CARD:
		return makedev(NODE_DRM_MAJOR, NODE_MINOR_PRIMARY);
	case NODE_UDEV_RENDER:
		return makedev(NODE_DRM_MAJOR, NODE_MINOR_RENDER);
	default:
		return makedev(0, 0);
	}
}

NODE_EXPORT int udev_device_has_tag(struct udev_device *d, const char *tag)
{
	if (!node_udev_ours(d))
		return UREAL(udev_device_has_tag, d, tag);
	return 0;
}

NODE_EXPORT int udev_device_has_current_tag(struct udev_device *d, const char *tag)
{
	if (!node_udev_ours(d))
		return UREAL(udev_device_has_current_tag, d, tag);
	return 0;
}

NODE_EXPORT const char *udev_device_get_property_value(struct udev_device *d, const char *key)
{
	if (!node_udev_ours(d))
		return UREAL(udev_device_get_property_value, d, key);
	return key ? node_list_find(&NODE_DEV(d)->props, key) : NULL;
}

NODE_EXPORT const char *udev_device_get_sysattr_value(struct udev_device *d, const char *attr)
{
	struct node_udev_device *n = NODE_DEV(d);
	const char *cached;
	char *value;

	if (!node_udev_ours(d))
		return UREAL(udev_device_get_sysattr_value, d, attr);
	if (!attr)
		return NULL;
	cached = node_list_find(&n->attr_values, attr);
	if (cached)
		return cached;
	value = node_udev_read_attr(n->syspath, attr);
	if (!value)
		return NULL;
	if (node_list_add(&n->attr_values, attr, value)) {
		free(value);
		return NULL;
	}
	free(value);
	return n->attr_values.entries[n->attr_values.n - 1].value;
}

NODE_EXPORT int udev_device_set_sysattr_value(struct udev_device *d, const char *attr,
					      const char *value)
{
	char path[PATH_MAX];
	int fd;
	ssize_t w;

	if (!node_udev_ours(d))
		return UREAL(udev_device_set_sysattr_value, d, attr, value);
	if (!attr || !value || strchr(attr, '/'))
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/%s", NODE_DEV(d)->syspath, attr) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = write(fd, value, strlen(value));
	close(fd);
	return w < 0 ? -EIO : 0;
}

NODE_EXPORT struct udev_device *udev_device_get_parent(struct udev_device *d)
{
	struct node_udev_device *n = NODE_DEV(d);

	if (!node_udev_ours(d))
		return UREAL(udev_device_get_parent, d);
	/* The PCI function's own parent (the host bridge) is not modelled. */
	if (n->which == NODE_UDEV_PCI)
		return NULL;
	if (!n->parent)
		n->parent = node_udev_device_new(n->udev, NODE_UDEV_PCI);
	return (struct udev_device *)n->parent;
}

NODE_EXPORT struct udev_device *udev_device_get_parent_with_subsystem_devtype(struct udev_device *d,
									      const char *subsystem,
									      const char *devtype)
{
	struct udev_device *p;

	if (!node_udev_ours(d))
		return UREAL(udev_device_get_parent_with_subsystem_devtype, d, subsystem, devtype);
	p = udev_device_get_parent(d);
	if (p && subsystem && !strcmp(subsystem, "pci") && !devtype)
		return p;
	return NULL;
}

/* ---- enumeration -------------------------------------------------------- */

static struct node_enum *node_enum_find(struct udev_enumerate *e)
{
	struct node_enum *n;

	pthread_mutex_lock(&node_udev_lock);
	for (n = node_enums; n && n->real != e; n = n->next)
		;
	pthread_mutex_unlock(&node_udev_lock);
	return n;
}

NODE_EXPORT struct udev_enumerate *udev_enumerate_new(struct udev *udev)
{
	struct udev_enumerate *e = UREAL(udev_enumerate_new, udev);
	struct node_enum *n;

	if (!e)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n) {
		UREAL(udev_enumerate_unref, e);
		errno = ENOMEM;
		return NULL;
	}
	n->real = e;
	n->parent = -1;
	pthread_mutex_lock(&node_udev_lock);
	n->next = node_enums;
	node_enums = n;
	pthread_mutex_unlock(&node_udev_lock);
	return e;
}

NODE_EXPORT struct udev_enumerate *udev_enumerate_unref(struct udev_enumerate *e)
{
	struct udev_enumerate *ret = UREAL(udev_enumerate_unref, e);
	struct node_enum **pp, *n = NULL;

	if (ret) /* still referenced */
		return ret;
	pthread_mutex_lock(&node_udev_lock);
	for (pp = &node_enums; *pp; pp = &(*pp)->next)
		if ((*pp)->real == e) {
			n = *pp;
			*pp = n->next;
			break;
		}
	pthread_mutex_unlock(&node_udev_lock);
	if (n) {
		node_list_clear(&n->subsystems);
		node_list_clear(&n->nomatch_subsystems);
		node_list_clear(&n->properties);
		node_list_clear(&n->sysnames);
		node_list_clear(&n->result);
		free(n);
	}
	return NULL;
}

NODE_EXPORT int udev_enumerate_add_match_subsystem(struct udev_enumerate *e, const char *s)
{
	struct node_enum *n = node_enum_find(e);

	if (n && s)
		node_list_add(&n->subsystems, s, NULL);
	return UREAL(udev_enumerate_add_match_subsystem, e, s);
}

NODE_EXPORT int udev_enumerate_add_nomatch_subsystem(struct udev_enumerate *e, const char *s)
{
	struct node_enum *n = node_enum_find(e);

	if (n && s)
		node_list_add(&n->nomatch_subsystems, s, NULL);
	return UREAL(udev_enumerate_add_nomatch_subsystem, e, s);
}

NODE_EXPORT int udev_enumerate_add_match_property(struct udev_enumerate *e, const char *k,
						  const char *v)
{
	struct node_enum *n = node_enum_find(e);

	if (n && k)
		node_list_add(&n->properties, k, v ? v : "*");
	return UREAL(udev_enumerate_add_match_property, e, k, v);
}

NODE_EXPORT int udev_enumerate_add_match_sysname(struct udev_enumerate *e, const char *s)
{
	struct node_enum *n = node_enum_find(e);

	if (n && s)
		node_list_add(&n->sysnames, s, NULL);
	return UREAL(udev_enumerate_add_match_sysname, e, s);
}

NODE_EXPORT int udev_enumerate_add_match_parent(struct udev_enumerate *e, struct udev_device *p)
{
	struct node_enum *n = node_enum_find(e);

	if (!node_udev_ours(p)) {
		if (n)
			n->parent_real = true;
		return UREAL(udev_enumerate_add_match_parent, e, p);
	}
	/* Only our devices descend from ours: the real list is dropped. */
	if (n)
		n->parent = NODE_DEV(p)->which;
	return 0;
}

static void node_enum_unmodelled(struct udev_enumerate *e)
{
	struct node_enum *n = node_enum_find(e);

	if (n)
		n->unmodelled = true;
}

NODE_EXPORT int udev_enumerate_add_match_sysattr(struct udev_enumerate *e, const char *a,
						 const char *v)
{
	node_enum_unmodelled(e);
	return UREAL(udev_enumerate_add_match_sysattr, e, a, v);
}

NODE_EXPORT int udev_enumerate_add_nomatch_sysattr(struct udev_enumerate *e, const char *a,
						   const char *v)
{
	node_enum_unmodelled(e);
	return UREAL(udev_enumerate_add_nomatch_sysattr, e, a, v);
}

NODE_EXPORT int udev_enumerate_add_match_tag(struct udev_enumerate *e, const char *t)
{
	node_enum_unmodelled(e);
	return UREAL(udev_enumerate_add_match_tag, e, t);
}

static bool node_enum_glob_any(const struct node_list *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (s && !fnmatch(l->entries[i].name, s, 0))
			return true;
	return false;
}

/* Would libudev list our device @which for enumeration @n? */
static bool node_enum_wants(const struct node_enum *n, int which)
{
	struct node_udev_device *d;
	bool ok = true;

	if (n->unmodelled || n->parent_real)
		return false;
	if (n->parent >= 0 && n->parent != which && n->parent != NODE_UDEV_PCI)
		return false;
	d = node_udev_device_new(NULL, which);
	if (!d)
		return false;
	if (n->subsystems.n &&
	    !node_enum_glob_any(&n->subsystems, which == NODE_UDEV_PCI ? "pci" : "drm"))
		ok = false;
	if (node_enum_glob_any(&n->nomatch_subsystems, which == NODE_UDEV_PCI ? "pci" : "drm"))
		ok = false;
	if (n->sysnames.n && !node_enum_glob_any(&n->sysnames, d->sysname))
		ok = false;
	if (n->properties.n) {
		bool any = false;

		/* Property matches are OR-ed, as in libudev. */
		for (size_t i = 0; i < n->properties.n && !any; i++) {
			const char *v = node_list_find(&d->props, n->properties.entries[i].name);

			any = v && !fnmatch(n->properties.entries[i].value, v, 0);
		}
		ok = ok && any;
	}
	udev_device_unref((struct udev_device *)d);
	return ok;
}

/* Real entries the node hides: the drm class, and a real function at our slot. */
static bool node_enum_hides(const char *syspath)
{
	char pci[PATH_MAX];

	if (strstr(syspath, "/drm/card") || strstr(syspath, "/drm/renderD") ||
	    strstr(syspath, "/drm/controlD") || !strncmp(syspath, "/sys/class/drm/", 15))
		return true;
	snprintf(pci, sizeof(pci), "/%s", node_dev.profile->pci_slot);
	return strlen(syspath) > strlen(pci) &&
	       !strcmp(syspath + strlen(syspath) - strlen(pci), pci);
}

NODE_EXPORT int udev_enumerate_scan_devices(struct udev_enumerate *e)
{
	struct node_enum *n = node_enum_find(e);
	int ret = UREAL(udev_enumerate_scan_devices, e);
	struct udev_list_entry *r;
	char path[PATH_MAX];

	if (!n)
		return ret;
	node_list_clear(&n->result);
	if (n->parent < 0) {
		for (r = UREAL(udev_enumerate_get_list_entry, e); r;
		     r = UREAL(udev_list_entry_get_next, r)) {
			const char *name = UREAL(udev_list_entry_get_name, r);

			if (!name || (node_device_get() && node_enum_hides(name)))
				continue;
			node_list_add(&n->result, name, UREAL(udev_list_entry_get_value, r));
		}
	}
	if (!node_device_get())
		return ret;
	for (int which = NODE_UDEV_PCI; which <= NODE_UDEV_RENDER; which++)
		if (node_enum_wants(n, which))
			node_list_add(&n->result, node_udev_syspath(which, path, sizeof(path)),
				      NULL);
	return n->result.n ? 0 : ret;
}

NODE_EXPORT struct udev_list_entry *udev_enumerate_get_list_entry(struct udev_enumerate *e)
{
	struct node_enum *n = node_enum_find(e);

	if (!n)
		return UREAL(udev_enumerate_get_list_entry, e);
	return node_list_publish(&n->result);
}

NODE_EXPORT int udev_enumerate_scan_subsystems(struct udev_enumerate *e)
{
	struct node_enum *n = node_enum_find(e);
	int ret = UREAL(udev_enumerate_scan_subsystems, e);
	struct udev_list_entry *r;

	if (!n)
		return ret;
	/* Subsystems, not devices: the real list as it is. */
	node_list_clear(&n->result);
	for (r = UREAL(udev_enumerate_get_list_entry, e); r; r = UREAL(udev_list_entry_get_next, r))
		node_list_add(&n->result, UREAL(udev_list_entry_get_name, r),
			      UREAL(udev_list_entry_get_value, r));
	return ret;
}
