// SPDX-License-Identifier: MIT
/*
 * kshim.c - implementations behind kshim.h for the kernel reference of
 * benchmark-kref: memory (kmalloc on the C library's malloc), the two
 * page-allocator models, the workqueue without workers, the ww_mutex, time,
 * printing. Compiled like the kernel sources (no C library headers: the
 * few libc functions needed are declared below). Simplifications and their
 * bias: bench/kref/README.md.
 */
#include <kshim.h>
#include <linux/dma-fence.h>
#include <drm/drm_print.h>
#include <drm/drm_cache.h>

#include "kref.h"

/* The C library, declared by hand (its headers clash with the kernel's names). */
void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);
void *aligned_alloc(size_t align, size_t size);
void free(void *p);
size_t malloc_usable_size(void *p);
int vsnprintf(char *buf, size_t size, const char *fmt, __builtin_va_list ap);
int sched_yield(void);
long sysconf(int name);
struct kshim_timespec {
	long tv_sec;
	long tv_nsec;
};
int clock_gettime(int clk, struct kshim_timespec *ts);
struct _IO_FILE;
extern struct _IO_FILE *stderr;
int fputs(const char *s, struct _IO_FILE *f);
void abort(void) __noreturn;
#define KSHIM_SC_PHYS_PAGES 85
#define KSHIM_CLOCK_MONOTONIC 1

__thread struct task_struct kshim_current;
unsigned long volatile jiffies;
unsigned long totalram_pages_value;
struct workqueue_struct *system_wq;
struct workqueue_struct *system_unbound_wq;

/* ------------------------------------------------------------ printing */
/* Messages are kept quiet unless KREF_VERBOSE is set by kref_set_verbose(). */
static int kshim_verbose;
static unsigned long kshim_warnings;

void kref_set_verbose(int on)
{
	kshim_verbose = on;
}

unsigned long kref_warnings(void)
{
	return kshim_warnings;
}

int kshim_printk(const char *fmt, ...)
{
	char buf[512];
	__builtin_va_list ap;
	int n;

	if (!kshim_verbose)
		return 0;
	__builtin_va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	__builtin_va_end(ap);
	fputs("kref: ", stderr);
	fputs(buf, stderr);
	return n;
}

void kshim_warn(const char *file, int line, const char *cond)
{
	char buf[256];

	kshim_warnings++;
	snprintf(buf, sizeof(buf), "kref: WARNING at %s:%d: %s\n", file, line, cond);
	fputs(buf, stderr);
}

void kshim_bug(const char *file, int line)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "kref: BUG at %s:%d\n", file, line);
	fputs(buf, stderr);
	abort();
}

void kshim_refcount_warn(refcount_t *r, const char *what)
{
	kshim_warn("refcount", 0, what);
	/* Saturate, as the kernel does, so a use-after-free cannot follow. */
	atomic_set(&r->refs, INT_MIN / 2);
}

void drm_printf(struct drm_printer *p, const char *f, ...)
{
	(void)p;
	(void)f;
}

void drm_puts(struct drm_printer *p, const char *str)
{
	(void)p;
	(void)str;
}

void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	(void)m;
	(void)fmt;
}

void seq_puts(struct seq_file *m, const char *s)
{
	(void)m;
	(void)s;
}

/* ------------------------------------------------------------- memory */
void *kmalloc(size_t size, gfp_t flags)
{
	return flags & __GFP_ZERO ? calloc(1, size) : malloc(size);
}

void *kzalloc(size_t size, gfp_t flags)
{
	(void)flags;
	return calloc(1, size);
}

void *kmalloc_array(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return kmalloc(bytes, flags);
}

void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	return kmalloc_array(n, size, flags | __GFP_ZERO);
}

void *kvmalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags);
}

void *kvzalloc(size_t size, gfp_t flags)
{
	return kzalloc(size, flags);
}

void *kvmalloc_array(size_t n, size_t size, gfp_t flags)
{
	return kmalloc_array(n, size, flags);
}

void *kvcalloc(size_t n, size_t size, gfp_t flags)
{
	return kcalloc(n, size, flags);
}

void *vmalloc(unsigned long size)
{
	return malloc(size);
}

void *vzalloc(unsigned long size)
{
	return calloc(1, size);
}

void kfree(const void *p)
{
	free((void *)p);
}

void kvfree(const void *p)
{
	free((void *)p);
}

void vfree(const void *p)
{
	free((void *)p);
}

void *krealloc(const void *p, size_t new_size, gfp_t flags)
{
	(void)flags;
	return realloc((void *)p, new_size);
}

void *krealloc_array(void *p, size_t new_n, size_t new_size, gfp_t flags)
{
	size_t bytes;

	if (__builtin_mul_overflow(new_n, new_size, &bytes))
		return NULL;
	return krealloc(p, bytes, flags);
}

size_t ksize(const void *objp)
{
	return malloc_usable_size((void *)objp);
}

/*
 * The size kmalloc() would really hand out (SLUB's size classes: 8..192 with
 * 96 and 192, then powers of two to 8 KiB, then whole page orders), so that
 * dma_resv sizes its fence lists as in the kernel.
 */
size_t kmalloc_size_roundup(size_t size)
{
	size_t s = 8;

	if (size <= 8)
		return 8;
	if (size > 8192) {
		size_t pages = PAGE_SIZE;

		while (pages < size)
			pages <<= 1;
		return pages;
	}
	if (size > 64 && size <= 96)
		return 96;
	if (size > 128 && size <= 192)
		return 192;
	while (s < size)
		s <<= 1;
	return s;
}

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align,
				     unsigned long flags, void (*ctor)(void *))
{
	struct kmem_cache *s = malloc(sizeof(*s));

	(void)align;
	(void)flags;
	(void)ctor;
	if (s) {
		s->size = size;
		s->name = name;
	}
	return s;
}

void kmem_cache_destroy(struct kmem_cache *s)
{
	free(s);
}

void *kmem_cache_alloc(struct kmem_cache *s, gfp_t flags)
{
	return kmalloc(s->size, flags);
}

void *kmem_cache_zalloc(struct kmem_cache *s, gfp_t flags)
{
	return kzalloc(s->size, flags);
}

void kmem_cache_free(struct kmem_cache *s, void *objp)
{
	(void)s;
	free(objp);
}

char *kstrdup(const char *s, gfp_t gfp)
{
	size_t n = __builtin_strlen(s) + 1;
	char *d = kmalloc(n, gfp);

	if (d)
		__builtin_memcpy(d, s, n);
	return d;
}

void *kmemdup(const void *src, size_t len, gfp_t gfp)
{
	void *d = kmalloc(len, gfp);

	if (d)
		__builtin_memcpy(d, src, len);
	return d;
}

char *kasprintf(gfp_t gfp, const char *fmt, ...)
{
	char buf[256];
	__builtin_va_list ap;

	__builtin_va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	__builtin_va_end(ap);
	return kstrdup(buf, gfp);
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	__builtin_va_list ap;
	int n;

	if (!size)
		return 0;
	__builtin_va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	__builtin_va_end(ap);
	return n < (int)size ? n : (int)size - 1;
}

size_t strscpy(char *dst, const char *src, size_t count)
{
	size_t n = __builtin_strlen(src);

	if (!count)
		return (size_t)-E2BIG;
	if (n >= count) {
		__builtin_memcpy(dst, src, count - 1);
		dst[count - 1] = 0;
		return (size_t)-E2BIG;
	}
	__builtin_memcpy(dst, src, n + 1);
	return n;
}

/* -------------------------------------------------------------- pages */
/*
 * A block of 2^order pages: its struct page array (contiguous, as the
 * kernel's memmap is, so ttm_pool's p + i works) and its memory.
 */
struct kshim_block {
	struct list_head link;
	unsigned int order;
	void *mem;
	struct page pages[];
};

static int kshim_page_model = KREF_PAGES_WARM;
static struct list_head kshim_free_blocks[NR_PAGE_ORDERS];
static bool kshim_free_init;
static spinlock_t kshim_free_lock;
static unsigned long kshim_blocks_out;

void kref_set_page_model(int model)
{
	kshim_page_model = model;
}

int kref_page_model(void)
{
	return kshim_page_model;
}

static struct kshim_block *kshim_block_new(unsigned int order)
{
	unsigned long n = 1UL << order;
	struct kshim_block *b = malloc(sizeof(*b) + n * sizeof(struct page));
	unsigned long i;

	if (!b)
		return NULL;
	b->order = order;
	b->mem = aligned_alloc(PAGE_SIZE << order, PAGE_SIZE << order);
	if (!b->mem) {
		free(b);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		struct page *p = &b->pages[i];

		p->flags = 0;
		p->private = 0;
		p->virtual = (char *)b->mem + (i << PAGE_SHIFT);
		atomic_set(&p->_refcount, 0);
		p->kshim_block = b;
		INIT_LIST_HEAD(&p->lru);
	}
	return b;
}

static void kshim_block_free(struct kshim_block *b)
{
	free(b->mem);
	free(b);
}

/*
 * KREF_PAGES_WARM: a block freed goes onto a free list of its order and the
 * next allocation of that order takes it back (the kernel's per-CPU page
 * lists at their best: a list pop, the memory cache-warm).
 * KREF_PAGES_ALIGNED: every allocation is an aligned_alloc() of the block
 * and every free a free() (a page allocator that has to find memory).
 */
struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	struct kshim_block *b = NULL;

	if (order > MAX_PAGE_ORDER)
		return NULL;
	if (kshim_page_model == KREF_PAGES_WARM) {
		spin_lock(&kshim_free_lock);
		if (!kshim_free_init) {
			unsigned int i;

			for (i = 0; i < NR_PAGE_ORDERS; i++)
				INIT_LIST_HEAD(&kshim_free_blocks[i]);
			kshim_free_init = true;
		}
		if (!list_empty(&kshim_free_blocks[order])) {
			b = list_first_entry(&kshim_free_blocks[order], struct kshim_block, link);
			list_del(&b->link);
		}
		spin_unlock(&kshim_free_lock);
	}
	if (!b)
		b = kshim_block_new(order);
	if (!b)
		return NULL;
	kshim_blocks_out++;
	atomic_set(&b->pages[0]._refcount, 1);
	b->pages[0].private = 0;
	if (gfp & __GFP_ZERO)
		__builtin_memset(b->mem, 0, PAGE_SIZE << order);
	return &b->pages[0];
}

void __free_pages(struct page *page, unsigned int order)
{
	struct kshim_block *b = page->kshim_block;

	if (WARN_ON(page != &b->pages[0] || order != b->order))
		return;
	kshim_blocks_out--;
	if (kshim_page_model == KREF_PAGES_WARM) {
		spin_lock(&kshim_free_lock);
		list_add(&b->link, &kshim_free_blocks[order]);
		spin_unlock(&kshim_free_lock);
		return;
	}
	kshim_block_free(b);
}

void kref_page_cache_drain(void)
{
	unsigned int i;

	if (!kshim_free_init)
		return;
	spin_lock(&kshim_free_lock);
	for (i = 0; i < NR_PAGE_ORDERS; i++) {
		while (!list_empty(&kshim_free_blocks[i])) {
			struct kshim_block *b =
			    list_first_entry(&kshim_free_blocks[i], struct kshim_block, link);

			list_del(&b->link);
			kshim_block_free(b);
		}
	}
	spin_unlock(&kshim_free_lock);
}

unsigned long kref_pages_outstanding(void)
{
	return kshim_blocks_out;
}

void put_page(struct page *p)
{
	if (atomic_dec_and_test(&p->_refcount))
		__free_pages(p, ((struct kshim_block *)p->kshim_block)->order);
}

unsigned long __get_free_pages(gfp_t gfp, unsigned int order)
{
	struct page *p = alloc_pages(gfp, order);

	return p ? (unsigned long)page_address(p) : 0;
}

/* Only for addresses of whole blocks handed out by __get_free_pages(). */
void free_pages(unsigned long addr, unsigned int order)
{
	(void)addr;
	(void)order;
	WARN_ON(addr);
}

unsigned long kshim_page_to_pfn(const struct page *page)
{
	return (unsigned long)page->virtual >> PAGE_SHIFT;
}

/* No reverse map from memory to struct page (only ttm_pool's DMA path asks). */
struct page *virt_to_page(const void *addr)
{
	(void)addr;
	WARN_ON(1);
	return NULL;
}

void si_meminfo(struct sysinfo *val)
{
	long pages = sysconf(KSHIM_SC_PHYS_PAGES);

	__builtin_memset(val, 0, sizeof(*val));
	val->totalram = pages > 0 ? (unsigned long)pages : (1UL << 20);
	val->mem_unit = PAGE_SIZE;
	totalram_pages_value = val->totalram;
}

/* A vmap of one page is its address; more is not supported (-ENOMEM). */
void *vmap(struct page **pages, unsigned int count, unsigned long flags, pgprot_t prot)
{
	(void)flags;
	(void)prot;
	return count == 1 ? page_address(pages[0]) : NULL;
}

void vunmap(const void *addr)
{
	(void)addr;
}

/* No I/O memory: the benchmark's device has none. */
void *ioremap(resource_size_t off, unsigned long size)
{
	(void)off;
	(void)size;
	return NULL;
}

void iounmap(volatile void *addr)
{
	(void)addr;
}

void *memremap(resource_size_t off, size_t size, unsigned long flags)
{
	(void)off;
	(void)size;
	(void)flags;
	return NULL;
}

void memunmap(void *addr)
{
	(void)addr;
}

void *io_mapping_map_local_wc(struct io_mapping *m, unsigned long off)
{
	(void)m;
	(void)off;
	return NULL;
}

void io_mapping_unmap_local(void *vaddr)
{
	(void)vaddr;
}

void drm_memcpy_from_wc(struct iosys_map *dst, const struct iosys_map *src, unsigned long len)
{
	(void)dst;
	(void)src;
	(void)len;
	WARN_ON(1);
}

void drm_clflush_pages(struct page *pages[], unsigned long num_pages)
{
	(void)pages;
	(void)num_pages;
}

struct scatterlist *sg_next(struct scatterlist *sg)
{
	(void)sg;
	return NULL;
}

/* DMA mapping, swap and mmap: never reached by the benchmark (no device,
 * no swapout, no CPU mapping); they fail cleanly if they are. */
dma_addr_t dma_map_page(struct device *dev, struct page *page, size_t off, size_t size,
			enum dma_data_direction dir)
{
	(void)dev;
	(void)dir;
	(void)size;
	return ((dma_addr_t)kshim_page_to_pfn(page) << PAGE_SHIFT) + off;
}

void dma_unmap_page(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir)
{
	(void)dev;
	(void)addr;
	(void)size;
	(void)dir;
}

void *dma_alloc_attrs(struct device *dev, size_t size, dma_addr_t *dma, gfp_t gfp,
		      unsigned long attrs)
{
	(void)dev;
	(void)size;
	(void)dma;
	(void)gfp;
	(void)attrs;
	return NULL;
}

void dma_free_attrs(struct device *dev, size_t size, void *cpu, dma_addr_t dma, unsigned long attrs)
{
	(void)dev;
	(void)size;
	(void)cpu;
	(void)dma;
	(void)attrs;
}

int dev_to_node(struct device *dev)
{
	(void)dev;
	return NUMA_NO_NODE;
}

struct file *shmem_file_setup(const char *name, loff_t size, unsigned long flags)
{
	(void)name;
	(void)size;
	(void)flags;
	return ERR_PTR(-ENOMEM);
}

struct page *shmem_read_mapping_page_gfp(struct address_space *m, pgoff_t i, gfp_t g)
{
	(void)m;
	(void)i;
	(void)g;
	return ERR_PTR(-ENOMEM);
}

void fput(struct file *f)
{
	(void)f;
}

void unmap_mapping_range(struct address_space *m, loff_t const holebegin, loff_t const holelen,
			 int even_cows)
{
	(void)m;
	(void)holebegin;
	(void)holelen;
	(void)even_cows;
}

/* Shrinkers are registered and never called (no memory pressure). */
struct shrinker *shrinker_alloc(unsigned int flags, const char *fmt, ...)
{
	(void)flags;
	(void)fmt;
	return calloc(1, sizeof(struct shrinker));
}

void shrinker_register(struct shrinker *shrinker)
{
	(void)shrinker;
}

void shrinker_free(struct shrinker *shrinker)
{
	free(shrinker);
}

/* ---------------------------------------------------------- scheduling */
ktime_t ktime_get(void)
{
	struct kshim_timespec ts;

	clock_gettime(KSHIM_CLOCK_MONOTONIC, &ts);
	return (ktime_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* One jiffy passes per call: a waiter polls, yielding the CPU in between. */
long schedule_timeout(long timeout)
{
	sched_yield();
	current->state = TASK_RUNNING;
	if (timeout == MAX_SCHEDULE_TIMEOUT)
		return timeout;
	return timeout > 0 ? timeout - 1 : 0;
}

void schedule(void)
{
	sched_yield();
}

int wake_up_state(struct task_struct *p, unsigned int state)
{
	(void)state;
	p->state = TASK_RUNNING;
	return 1;
}

int wake_up_process(struct task_struct *p)
{
	return wake_up_state(p, TASK_NORMAL);
}

void synchronize_rcu(void)
{
}

void rcu_barrier(void)
{
}

void init_waitqueue_head(struct wait_queue_head *wq)
{
	spin_lock_init(&wq->lock);
	INIT_LIST_HEAD(&wq->head);
}

void wake_up_all(struct wait_queue_head *wq)
{
	(void)wq;
}

void kshim_mutex_lock_slow(struct mutex *m)
{
	while (!kshim_mutex_trylock_fast(m))
		sched_yield();
}

/* ------------------------------------------------------------ ww_mutex */
static int kshim_ww_lock_slow(struct ww_mutex *lock, struct ww_acquire_ctx *ctx)
{
	for (;;) {
		struct ww_acquire_ctx *holder;

		if (kshim_mutex_trylock_fast(&lock->base)) {
			if (ctx) {
				lock->ctx = ctx;
				ctx->acquired++;
			}
			return 0;
		}
		holder = READ_ONCE(lock->ctx);
		if (ctx && holder == ctx)
			return -EALREADY;
		/* Wait-die: a younger context that holds locks backs off. */
		if (ctx && holder && ctx->acquired > 0 && ctx->stamp > holder->stamp)
			return -EDEADLK;
		sched_yield();
	}
}

int ww_mutex_lock(struct ww_mutex *lock, struct ww_acquire_ctx *ctx)
{
	might_sleep();
	if (kshim_mutex_trylock_fast(&lock->base)) {
		if (ctx) {
			lock->ctx = ctx;
			ctx->acquired++;
		}
		return 0;
	}
	return kshim_ww_lock_slow(lock, ctx);
}

int ww_mutex_lock_interruptible(struct ww_mutex *lock, struct ww_acquire_ctx *ctx)
{
	return ww_mutex_lock(lock, ctx);
}

int ww_mutex_trylock(struct ww_mutex *lock, struct ww_acquire_ctx *ctx)
{
	if (!kshim_mutex_trylock_fast(&lock->base))
		return 0;
	if (ctx) {
		lock->ctx = ctx;
		ctx->acquired++;
	}
	return 1;
}

void ww_mutex_unlock(struct ww_mutex *lock)
{
	if (lock->ctx) {
		lock->ctx->acquired--;
		lock->ctx = NULL;
	}
	mutex_unlock(&lock->base);
}

/* ----------------------------------------------------------- workqueues */
struct workqueue_struct {
	spinlock_t lock;
	struct list_head pending;
};

void kshim_init_work(struct work_struct *w, work_func_t fn)
{
	atomic_long_set(&w->data, 0);
	INIT_LIST_HEAD(&w->entry);
	w->func = fn;
}

struct workqueue_struct *alloc_workqueue(const char *fmt, unsigned int flags, int max_active, ...)
{
	struct workqueue_struct *wq = malloc(sizeof(*wq));

	(void)fmt;
	(void)flags;
	(void)max_active;
	if (wq) {
		spin_lock_init(&wq->lock);
		INIT_LIST_HEAD(&wq->pending);
	}
	return wq;
}

static struct workqueue_struct kshim_system_wq = {
    .pending = {&kshim_system_wq.pending, &kshim_system_wq.pending},
};

static struct workqueue_struct *kshim_wq(struct workqueue_struct *wq)
{
	return wq ? wq : &kshim_system_wq;
}

bool queue_work(struct workqueue_struct *wq, struct work_struct *work)
{
	wq = kshim_wq(wq);
	if (atomic_long_xchg(&work->data, (long)wq))
		return false;
	spin_lock(&wq->lock);
	list_add_tail(&work->entry, &wq->pending);
	spin_unlock(&wq->lock);
	return true;
}

bool queue_work_node(int node, struct workqueue_struct *wq, struct work_struct *work)
{
	(void)node;
	return queue_work(wq, work);
}

bool queue_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw, unsigned long delay)
{
	(void)delay;
	return queue_work(wq, &dw->work);
}

bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw, unsigned long delay)
{
	(void)delay;
	return queue_work(wq, &dw->work);
}

bool schedule_work(struct work_struct *work)
{
	return queue_work(NULL, work);
}

bool schedule_delayed_work(struct delayed_work *dw, unsigned long delay)
{
	return queue_delayed_work(NULL, dw, delay);
}

/* Run the pending items of @wq (those queued while running included). */
void flush_workqueue(struct workqueue_struct *wq)
{
	wq = kshim_wq(wq);
	for (;;) {
		struct work_struct *w;

		spin_lock(&wq->lock);
		if (list_empty(&wq->pending)) {
			spin_unlock(&wq->lock);
			return;
		}
		w = list_first_entry(&wq->pending, struct work_struct, entry);
		list_del_init(&w->entry);
		atomic_long_set(&w->data, 0);
		spin_unlock(&wq->lock);
		w->func(w);
	}
}

void destroy_workqueue(struct workqueue_struct *wq)
{
	if (!wq)
		return;
	flush_workqueue(wq);
	free(wq);
}

bool work_pending(struct work_struct *work)
{
	return atomic_long_read(&work->data) != 0;
}

bool flush_work(struct work_struct *work)
{
	struct workqueue_struct *wq = (struct workqueue_struct *)atomic_long_read(&work->data);

	if (!wq)
		return false;
	flush_workqueue(wq);
	return true;
}

bool flush_delayed_work(struct delayed_work *dw)
{
	return flush_work(&dw->work);
}

static bool kshim_cancel(struct work_struct *work)
{
	struct workqueue_struct *wq = (struct workqueue_struct *)atomic_long_read(&work->data);

	if (!wq)
		return false;
	spin_lock(&wq->lock);
	list_del_init(&work->entry);
	atomic_long_set(&work->data, 0);
	spin_unlock(&wq->lock);
	return true;
}

bool cancel_work_sync(struct work_struct *work)
{
	return kshim_cancel(work);
}

bool cancel_delayed_work_sync(struct delayed_work *dw)
{
	return kshim_cancel(&dw->work);
}

bool cancel_delayed_work(struct delayed_work *dw)
{
	return kshim_cancel(&dw->work);
}

/* irq_work runs at once (dma_fence_chain uses it to re-arm a callback). */
bool irq_work_queue(struct irq_work *w)
{
	w->func(w);
	return true;
}

void irq_work_sync(struct irq_work *w)
{
	(void)w;
}
