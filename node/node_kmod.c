// SPDX-License-Identifier: MIT
/*
 * The libkmod API, as far as the i915 module is concerned: igt unloads and
 * reloads i915 with options (igt_i915_driver_unload/_load) around tests
 * such as gem_lmem_swapping. Loading and unloading the module are the
 * device's lifetime here: kmod_module_remove_module() of i915 destroys the
 * device (refused with -EAGAIN while files or mappings hold it, as
 * delete_module(O_NONBLOCK) of a module in use), insertion creates it
 * again and applies the options through debugfs i915_params/.
 *
 * Every other module, every context and every list of libkmod's is the
 * real libkmod's, passed through. Our objects: the one i915 module object
 * (static, never freed) and the lists we return, told apart by address.
 * Lists we return that hold real modules (kmod_module_new_from_loaded)
 * keep a reference of each. Functions not defined here must not be given
 * our i915 module: kmod_module_get_dependencies, _softdeps, _sections,
 * _versions, _install_commands and _remove_commands are (NULL/empty).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libkmod.h>

#include "node_priv.h"

static void *kreal(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

#define KREAL(fn, ...)                                                                             \
	({                                                                                         \
		__typeof__(&fn) f__ = kreal(#fn);                                                  \
		f__ ? f__(__VA_ARGS__) : (__typeof__(f__(__VA_ARGS__)))0;                          \
	})

/* The i915 module object: its address is its identity. */
static struct node_kmod_module {
	char name[8];
} node_i915 = {"i915"};

#define NODE_I915 ((struct kmod_module *)&node_i915)

struct node_kmod_entry {
	struct kmod_module *mod; /* a reference; NULL for info entries */
	char *key, *value;	 /* info entries */
};

struct node_kmod_list {
	struct node_kmod_list *next_list;
	size_t n;
	struct node_kmod_entry e[];
};

/* Lists we handed out. Protected by node_kmod_lock. */
static struct node_kmod_list *node_kmod_lists;
static pthread_mutex_t node_kmod_lock = PTHREAD_MUTEX_INITIALIZER;

static bool node_kmod_is_i915(const struct kmod_module *mod)
{
	return mod == NODE_I915;
}

static struct node_kmod_list *node_kmod_list_of(const void *entry, size_t *idx)
{
	struct node_kmod_list *l;

	if (!entry)
		return NULL;
	pthread_mutex_lock(&node_kmod_lock);
	for (l = node_kmod_lists; l; l = l->next_list)
		if ((const char *)entry >= (const char *)l->e &&
		    (const char *)entry < (const char *)(l->e + l->n)) {
			if (idx)
				*idx = (size_t)((const struct node_kmod_entry *)entry - l->e);
			break;
		}
	pthread_mutex_unlock(&node_kmod_lock);
	return l;
}

static struct node_kmod_list *node_kmod_list_new(size_t n)
{
	struct node_kmod_list *l = calloc(1, sizeof(*l) + n * sizeof(l->e[0]));

	if (l)
		l->n = n;
	return l;
}

/* Publish @l (entries filled): its first entry is the list's handle. */
static struct kmod_list *node_kmod_list_publish(struct node_kmod_list *l)
{
	if (!l->n) {
		free(l);
		return NULL;
	}
	pthread_mutex_lock(&node_kmod_lock);
	l->next_list = node_kmod_lists;
	node_kmod_lists = l;
	pthread_mutex_unlock(&node_kmod_lock);
	return (struct kmod_list *)&l->e[0];
}

static void node_kmod_list_free(struct node_kmod_list *l)
{
	struct node_kmod_list **pp;

	pthread_mutex_lock(&node_kmod_lock);
	for (pp = &node_kmod_lists; *pp; pp = &(*pp)->next_list)
		if (*pp == l) {
			*pp = l->next_list;
			break;
		}
	pthread_mutex_unlock(&node_kmod_lock);
	for (size_t i = 0; i < l->n; i++) {
		if (l->e[i].mod && !node_kmod_is_i915(l->e[i].mod))
			KREAL(kmod_module_unref, l->e[i].mod);
		free(l->e[i].key);
		free(l->e[i].value);
	}
	free(l);
}

/* ---- lists ------------------------------------------------------------------ */

NODE_EXPORT struct kmod_list *kmod_list_next(const struct kmod_list *list,
					     const struct kmod_list *curr)
{
	struct node_kmod_list *l;
	size_t i;

	l = node_kmod_list_of(curr, &i);
	if (!l)
		return KREAL(kmod_list_next, list, curr);
	return i + 1 < l->n ? (struct kmod_list *)&l->e[i + 1] : NULL;
}

NODE_EXPORT struct kmod_list *kmod_list_prev(const struct kmod_list *list,
					     const struct kmod_list *curr)
{
	struct node_kmod_list *l;
	size_t i;

	l = node_kmod_list_of(curr, &i);
	if (!l)
		return KREAL(kmod_list_prev, list, curr);
	return i > 0 ? (struct kmod_list *)&l->e[i - 1] : NULL;
}

NODE_EXPORT struct kmod_list *kmod_list_last(const struct kmod_list *list)
{
	struct node_kmod_list *l = node_kmod_list_of(list, NULL);

	if (!l)
		return KREAL(kmod_list_last, list);
	return (struct kmod_list *)&l->e[l->n - 1];
}

NODE_EXPORT struct kmod_module *kmod_module_get_module(const struct kmod_list *entry)
{
	struct node_kmod_list *l;
	size_t i;

	l = node_kmod_list_of(entry, &i);
	if (!l)
		return KREAL(kmod_module_get_module, entry);
	if (!l->e[i].mod)
		return NULL;
	return node_kmod_is_i915(l->e[i].mod) ? NODE_I915 : KREAL(kmod_module_ref, l->e[i].mod);
}

NODE_EXPORT int kmod_module_unref_list(struct kmod_list *list)
{
	struct node_kmod_list *l = node_kmod_list_of(list, NULL);

	if (!l)
		return KREAL(kmod_module_unref_list, list);
	node_kmod_list_free(l);
	return 0;
}

NODE_EXPORT const char *kmod_module_info_get_key(const struct kmod_list *entry)
{
	struct node_kmod_list *l;
	size_t i;

	l = node_kmod_list_of(entry, &i);
	if (!l)
		return KREAL(kmod_module_info_get_key, entry);
	return l->e[i].key;
}

NODE_EXPORT const char *kmod_module_info_get_value(const struct kmod_list *entry)
{
	struct node_kmod_list *l;
	size_t i;

	l = node_kmod_list_of(entry, &i);
	if (!l)
		return KREAL(kmod_module_info_get_value, entry);
	return l->e[i].value;
}

NODE_EXPORT void kmod_module_info_free_list(struct kmod_list *list)
{
	struct node_kmod_list *l = node_kmod_list_of(list, NULL);

	if (!l) {
		void (*f)(struct kmod_list *) = kreal("kmod_module_info_free_list");

		if (f)
			f(list);
		return;
	}
	node_kmod_list_free(l);
}

/* ---- modules ---------------------------------------------------------------- */

static bool node_kmod_name_is_i915(const char *name)
{
	return name && !strcmp(name, "i915");
}

NODE_EXPORT int kmod_module_new_from_name(struct kmod_ctx *ctx, const char *name,
					  struct kmod_module **mod)
{
	if (!node_kmod_name_is_i915(name))
		return KREAL(kmod_module_new_from_name, ctx, name, mod);
	*mod = NODE_I915;
	return 0;
}

NODE_EXPORT int kmod_module_new_from_lookup(struct kmod_ctx *ctx, const char *alias,
					    struct kmod_list **list)
{
	struct node_kmod_list *l;

	if (!node_kmod_name_is_i915(alias))
		return KREAL(kmod_module_new_from_lookup, ctx, alias, list);
	l = node_kmod_list_new(1);
	if (!l)
		return -ENOMEM;
	l->e[0].mod = NODE_I915;
	*list = node_kmod_list_publish(l);
	return 0;
}

NODE_EXPORT int kmod_module_new_from_loaded(struct kmod_ctx *ctx, struct kmod_list **list)
{
	struct kmod_list *real = NULL, *it;
	struct node_kmod_list *l;
	size_t n = 0, i = 0;
	int ret;

	ret = KREAL(kmod_module_new_from_loaded, ctx, &real);
	if (ret < 0)
		real = NULL;
	for (it = real; it; it = KREAL(kmod_list_next, real, it))
		n++;
	l = node_kmod_list_new(n + 1);
	if (!l) {
		KREAL(kmod_module_unref_list, real);
		return -ENOMEM;
	}
	for (it = real; it; it = KREAL(kmod_list_next, real, it)) {
		struct kmod_module *m = KREAL(kmod_module_get_module, it);

		/* A real i915 (a machine with a GPU) is hidden: ours stands for it. */
		if (m && node_kmod_name_is_i915(KREAL(kmod_module_get_name, m))) {
			KREAL(kmod_module_unref, m);
			continue;
		}
		l->e[i++].mod = m;
	}
	KREAL(kmod_module_unref_list, real);
	if (node_device_loaded())
		l->e[i++].mod = NODE_I915;
	l->n = i;
	*list = node_kmod_list_publish(l);
	return 0;
}

NODE_EXPORT struct kmod_module *kmod_module_ref(struct kmod_module *mod)
{
	if (node_kmod_is_i915(mod))
		return mod;
	return KREAL(kmod_module_ref, mod);
}

NODE_EXPORT struct kmod_module *kmod_module_unref(struct kmod_module *mod)
{
	if (node_kmod_is_i915(mod))
		return NULL;
	return KREAL(kmod_module_unref, mod);
}

NODE_EXPORT const char *kmod_module_get_name(const struct kmod_module *mod)
{
	if (node_kmod_is_i915(mod))
		return node_i915.name;
	return KREAL(kmod_module_get_name, mod);
}

NODE_EXPORT const char *kmod_module_get_path(const struct kmod_module *mod)
{
	if (node_kmod_is_i915(mod))
		return NULL;
	return KREAL(kmod_module_get_path, mod);
}

NODE_EXPORT const char *kmod_module_get_options(const struct kmod_module *mod)
{
	if (node_kmod_is_i915(mod))
		return NULL;
	return KREAL(kmod_module_get_options, mod);
}

NODE_EXPORT struct kmod_list *kmod_module_get_dependencies(const struct kmod_module *mod)
{
	if (node_kmod_is_i915(mod))
		return NULL;
	return KREAL(kmod_module_get_dependencies, mod);
}

NODE_EXPORT int kmod_module_get_initstate(const struct kmod_module *mod)
{
	if (!node_kmod_is_i915(mod))
		return KREAL(kmod_module_get_initstate, mod);
	return node_device_loaded() ? KMOD_MODULE_LIVE : -ENOENT;
}

NODE_EXPORT int kmod_module_get_refcnt(const struct kmod_module *mod)
{
	if (!node_kmod_is_i915(mod))
		return KREAL(kmod_module_get_refcnt, mod);
	if (!node_device_loaded())
		return -ENOENT;
	return atomic_load(&node_dev.files) + (int)node_range_count() + (int)node_bar_count();
}

NODE_EXPORT struct kmod_list *kmod_module_get_holders(const struct kmod_module *mod)
{
	if (node_kmod_is_i915(mod))
		return NULL; /* no module depends on ours */
	return KREAL(kmod_module_get_holders, mod);
}

NODE_EXPORT int kmod_module_remove_module(struct kmod_module *mod, unsigned int flags)
{
	if (!node_kmod_is_i915(mod))
		return KREAL(kmod_module_remove_module, mod, flags);
	return node_device_unload();
}

NODE_EXPORT int kmod_module_insert_module(struct kmod_module *mod, unsigned int flags,
					  const char *options)
{
	if (!node_kmod_is_i915(mod))
		return KREAL(kmod_module_insert_module, mod, flags, options);
	return node_device_load(options);
}

NODE_EXPORT int kmod_module_probe_insert_module(
    struct kmod_module *mod, unsigned int flags, const char *extra_options,
    int (*run_install)(struct kmod_module *m, const char *cmdline, void *data), const void *data,
    void (*print_action)(struct kmod_module *m, bool install, const char *options))
{
	int ret;

	if (!node_kmod_is_i915(mod))
		return KREAL(kmod_module_probe_insert_module, mod, flags, extra_options,
			     run_install, data, print_action);
	if (print_action)
		print_action(mod, false, extra_options ? extra_options : "");
	if (flags & KMOD_PROBE_DRY_RUN)
		return 0;
	ret = node_device_load(extra_options);
	/* Already loaded is an error only when the caller says so. */
	if (ret == -EEXIST && !(flags & KMOD_PROBE_FAIL_ON_LOADED))
		ret = 0;
	return ret;
}

/* modinfo of i915: a "parm" and "parmtype" per parameter i915_params/ lists. */
NODE_EXPORT int kmod_module_get_info(const struct kmod_module *mod, struct kmod_list **list)
{
	const char *const *files;
	struct node_kmod_list *l;
	size_t n = 0, i = 0;

	if (!node_kmod_is_i915(mod))
		return KREAL(kmod_module_get_info, mod, list);
	if (!node_device_get())
		return -ENOENT;
	for (files = i915_gem_debugfs_files(node_dev.i915); files && *files; files++)
		n += !strncmp(*files, "i915_params/", 12);
	l = node_kmod_list_new(2 * n + 1);
	if (!l)
		return -ENOMEM;
	l->e[i].key = strdup("license");
	l->e[i++].value = strdup("GPL and additional rights");
	for (files = i915_gem_debugfs_files(node_dev.i915); files && *files; files++) {
		const char *p = *files + 12;

		if (strncmp(*files, "i915_params/", 12))
			continue;
		l->e[i].key = strdup("parm");
		if (asprintf(&l->e[i].value, "%s:i915 module parameter", p) < 0)
			l->e[i].value = NULL;
		i++;
		l->e[i].key = strdup("parmtype");
		if (asprintf(&l->e[i].value, "%s:int", p) < 0)
			l->e[i].value = NULL;
		i++;
	}
	for (size_t k = 0; k < i; k++)
		if (!l->e[k].key || !l->e[k].value) {
			l->n = i;
			node_kmod_list_free(l);
			return -ENOMEM;
		}
	*list = node_kmod_list_publish(l);
	return (int)i;
}
