// SPDX-License-Identifier: MIT
/* The page pool: free blocks per caching mode and order; see ttm/ttm_pool.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ttm/ttm_faults.h>
#include <ttm/ttm_global.h>
#include <ttm/ttm_pool.h>
#include <ttm/ttm_tt.h>

const char *ttm_caching_name(enum ttm_caching c)
{
	switch (c) {
	case ttm_cached:
		return "cached";
	case ttm_write_combined:
		return "wc";
	case ttm_uncached:
		return "uncached";
	}
	return "?";
}

static size_t block_bytes(unsigned int order)
{
	return TTM_PAGE_SIZE << order;
}

/* Eight page pointers as four 16-byte stores (may alias the void * array). */
typedef uintptr_t ttm_pool_v2 __attribute__((vector_size(16), may_alias, aligned(8)));

/*
 * @pages[0 .. 2^@order) = the pages of block @p, in 16-byte stores (the
 * kernel's commit loop is a pointer store per page).
 */
static void block_pages_set(void **pages, void *p, unsigned int order)
{
	uintptr_t q = (uintptr_t)p;
	unsigned long n = 1ul << order, j = 0;

	if (n >= 8) {
		ttm_pool_v2 *v = (ttm_pool_v2 *)pages;
		ttm_pool_v2 a = {q, q + TTM_PAGE_SIZE};
		ttm_pool_v2 b = a + 2 * TTM_PAGE_SIZE, c = a + 4 * TTM_PAGE_SIZE;
		ttm_pool_v2 d = a + 6 * TTM_PAGE_SIZE;

		for (; j < n; j += 8, v += 4) {
			v[0] = a;
			v[1] = b;
			v[2] = c;
			v[3] = d;
			a += 8 * TTM_PAGE_SIZE;
			b += 8 * TTM_PAGE_SIZE;
			c += 8 * TTM_PAGE_SIZE;
			d += 8 * TTM_PAGE_SIZE;
		}
		return;
	}
	for (; j < n; j++)
		pages[j] = (void *)(q + j * TTM_PAGE_SIZE);
}

/*
 * @pages[0 .. 2^@order) = NULL, in 16-byte stores: a rep stos would be as
 * fast, but instruction counts (callgrind) charge it per byte.
 */
static void block_pages_clear(void **pages, unsigned int order)
{
	unsigned long n = 1ul << order, j = 0;

	if (n >= 8) {
		ttm_pool_v2 *v = (ttm_pool_v2 *)pages;
		const ttm_pool_v2 z = {0, 0};

		for (; j < n; j += 8, v += 4) {
			v[0] = z;
			v[1] = z;
			v[2] = z;
			v[3] = z;
			/* Keeps the compiler from turning the loop into memset(). */
			__asm__("" : : "r"(v) : "memory");
		}
		return;
	}
	for (; j < n; j++)
		pages[j] = NULL;
}

/* Highest order whose block fits in @n pages, capped at TTM_POOL_MAX_ORDER. */
static unsigned int order_for(unsigned long n)
{
	unsigned int order = 0;

	while (order < TTM_POOL_MAX_ORDER && (2ul << order) <= n)
		order++;
	return order;
}

/* The pool whose buckets and arena hold @pool's blocks of caching @c. */
static inline struct ttm_pool *pool_for(struct ttm_pool *pool, enum ttm_caching c)
{
	return c != ttm_cached && pool->shared ? pool->shared : pool;
}

/**
 * struct ttm_pool_block - where one OS block of the arena lives.
 * @node: in ttm_pool.blocks, ordered by @addr.
 * @addr: first byte of the block's shared mapping.
 * @bytes: its size.
 * @offset: where it is in the arena memfd.
 */
struct ttm_pool_block {
	struct rb_node node;
	uint8_t *addr;
	size_t bytes;
	uint64_t offset;
};

/* The arena block holding @p, or NULL. Arena lock held. */
static struct ttm_pool_block *arena_find(struct ttm_pool *pool, const void *p)
{
	struct rb_node *n = pool->blocks.root;
	const uint8_t *a = p;

	while (!rb_is_nil(&pool->blocks, n)) {
		struct ttm_pool_block *b = container_of(n, struct ttm_pool_block, node);

		if (a < b->addr)
			n = n->left;
		else if (a >= b->addr + b->bytes)
			n = n->right;
		else
			return b;
	}
	return NULL;
}

static void arena_link(struct ttm_pool *pool, struct ttm_pool_block *blk)
{
	struct rb_node *parent = &pool->blocks.nil, *n = pool->blocks.root;
	bool left = false;

	while (!rb_is_nil(&pool->blocks, n)) {
		parent = n;
		left = blk->addr < container_of(n, struct ttm_pool_block, node)->addr;
		n = left ? n->left : n->right;
	}
	rb_insert(&pool->blocks, &blk->node, parent, left);
}

/*
 * A fresh block of 2^@order pages from the OS: carved from the arena memfd
 * (grown with ftruncate, mapped shared) so its pages can be mapped again
 * elsewhere, or anonymous memory when the pool has no arena.
 */
static void *block_map(struct ttm_pool *pool, unsigned int order)
{
	size_t bytes = block_bytes(order);
	struct ttm_pool_block *blk;
	void *p;

	if (pool->arena_fd < 0) {
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return p == MAP_FAILED ? NULL : p;
	}
	/* The bookkeeping is part of the block the caller's check charged: size 0. */
	if (fault_should_fail(&ttm_fault_pool_alloc, 0))
		return NULL;
	blk = malloc(sizeof(*blk));
	if (!blk)
		return NULL;
	/*
	 * Offsets only grow: freed blocks leave punched holes, which cost no
	 * memory, so there is no offset allocator to get wrong.
	 */
	pthread_mutex_lock(&pool->arena_lock);
	blk->offset = pool->arena_size;
	/* A DMA32 device cannot address DMA (arena) offsets from 4 GiB on. */
	if ((pool->use_dma_alloc && pool->use_dma32 && blk->offset + bytes > (1ull << 32)) ||
	    ftruncate(pool->arena_fd, (off_t)(blk->offset + bytes))) {
		pthread_mutex_unlock(&pool->arena_lock);
		free(blk);
		return NULL;
	}
	pool->arena_size += bytes;
	pthread_mutex_unlock(&pool->arena_lock);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, pool->arena_fd,
		 (off_t)blk->offset);
	if (p == MAP_FAILED) {
		free(blk);
		return NULL;
	}
	blk->addr = p;
	blk->bytes = bytes;
	pthread_mutex_lock(&pool->arena_lock);
	arena_link(pool, blk);
	pthread_mutex_unlock(&pool->arena_lock);
	return p;
}

/*
 * Back to the OS: an arena block's pages are released by punching its range
 * out of the memfd (unmapping alone would keep them in the file), so the
 * ttm_global uncharge that follows stays true.
 */
static void block_unmap(struct ttm_pool *pool, void *p, unsigned int order)
{
	struct ttm_pool_block *blk = NULL;

	if (pool->arena_fd >= 0) {
		pthread_mutex_lock(&pool->arena_lock);
		blk = arena_find(pool, p);
		if (blk)
			rb_erase(&pool->blocks, &blk->node);
		pthread_mutex_unlock(&pool->arena_lock);
	}
	munmap(p, block_bytes(order));
	if (blk) {
		fallocate(pool->arena_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  (off_t)blk->offset, (off_t)blk->bytes);
		free(blk);
	}
}

/* ttm_pool_page_backing() in  own arena only: 0 or -ENOENT. */
static int arena_backing(struct ttm_pool *pool, const void *page, int *fd, uint64_t *offset)
{
	struct ttm_pool_block *blk;
	int ret = -ENOENT;

	if (pool->arena_fd < 0)
		return -ENOENT;
	pthread_mutex_lock(&pool->arena_lock);
	blk = arena_find(pool, page);
	if (blk) {
		*fd = pool->arena_fd;
		*offset = blk->offset + (uint64_t)((const uint8_t *)page - blk->addr);
		ret = 0;
	}
	pthread_mutex_unlock(&pool->arena_lock);
	return ret;
}

int ttm_pool_page_backing(struct ttm_pool *pool, const void *page, int *fd, uint64_t *offset)
{
	int ret;

	if (pool->arena_fd < 0 || !page || ((uintptr_t)page & (TTM_PAGE_SIZE - 1)))
		return pool->arena_fd < 0 ? -ENOENT : -EINVAL;
	ret = arena_backing(pool, page, fd, offset);
	if (ret && pool->shared)
		ret = arena_backing(pool->shared, page, fd, offset);
	return ret;
}

/* A 1 MiB pipe moves a 2 MiB block in two rounds; a smaller one only takes more. */
#define TTM_POOL_PIPE_BYTES (1 << 20)

/* A pipe to splice through: one of the pool's spares, or a new one. */
static int pipe_get(struct ttm_pool *pool, int p[2])
{
	pthread_mutex_lock(&pool->arena_lock);
	if (pool->nr_pipes) {
		pool->nr_pipes--;
		p[0] = pool->pipes[pool->nr_pipes][0];
		p[1] = pool->pipes[pool->nr_pipes][1];
		pthread_mutex_unlock(&pool->arena_lock);
		return 0;
	}
	pthread_mutex_unlock(&pool->arena_lock);
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	fcntl(p[1], F_SETPIPE_SZ, TTM_POOL_PIPE_BYTES); /* best effort */
	return 0;
}

/* Keep an empty pipe for the next copy; one that may hold data is closed. */
static void pipe_put(struct ttm_pool *pool, int p[2], bool empty)
{
	if (empty) {
		pthread_mutex_lock(&pool->arena_lock);
		if (pool->nr_pipes < TTM_POOL_SPARE_PIPES) {
			pool->pipes[pool->nr_pipes][0] = p[0];
			pool->pipes[pool->nr_pipes][1] = p[1];
			pool->nr_pipes++;
			pthread_mutex_unlock(&pool->arena_lock);
			return;
		}
		pthread_mutex_unlock(&pool->arena_lock);
	}
	close(p[0]);
	close(p[1]);
}

static int splice_errno(void)
{
	return errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP ? -EOPNOTSUPP : -EIO;
}

/*
 * @len bytes from @in at @inoff to @out at @outoff through empty pipe @p:
 * the source pages go into the pipe by reference, the one copy is the
 * write into @out's page cache. Returns 0 with @p empty again, or
 * -EOPNOTSUPP/-EIO with @p possibly holding data.
 */
static int splice_range(int p[2], int in, loff_t inoff, int out, loff_t outoff, size_t len)
{
	while (len) {
		ssize_t n = splice(in, &inoff, p[1], NULL, len, SPLICE_F_MOVE);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return splice_errno();
		if (n == 0)
			return -EIO;
		len -= (size_t)n;
		while (n) {
			ssize_t m = splice(p[0], NULL, out, &outoff, (size_t)n, SPLICE_F_MOVE);

			if (m < 0 && errno == EINTR)
				continue;
			if (m < 0)
				return splice_errno();
			if (m == 0)
				return -EIO;
			n -= m;
		}
	}
	return 0;
}

int ttm_pool_swap_file_get(struct ttm_pool *pool)
{
	int fd = -1;

	pthread_mutex_lock(&pool->arena_lock);
	if (pool->nr_swap_files)
		fd = pool->swap_files[--pool->nr_swap_files];
	pthread_mutex_unlock(&pool->arena_lock);
	if (fd < 0)
		fd = memfd_create("ttm-swap", MFD_CLOEXEC);
	return fd < 0 ? -ENOMEM : fd;
}

void ttm_pool_swap_file_put(struct ttm_pool *pool, int fd)
{
	if (fd < 0)
		return;
	/* Emptied first: a spare holds no memory, whoever gave it back. */
	if (!ftruncate(fd, 0)) {
		pthread_mutex_lock(&pool->arena_lock);
		if (pool->nr_swap_files < TTM_POOL_SPARE_FILES) {
			pool->swap_files[pool->nr_swap_files++] = fd;
			fd = -1;
		}
		pthread_mutex_unlock(&pool->arena_lock);
	}
	if (fd >= 0)
		close(fd);
}

int ttm_pool_copy_file(struct ttm_pool *pool, struct ttm_tt *tt, int fd, bool to_file)
{
	unsigned long i = 0;
	int p[2], r = 0;

	if (pool->arena_fd < 0 || pipe_get(pool, p))
		return -EOPNOTSUPP;
	while (i < tt->num_pages && !r) {
		unsigned int order = tt->orders[i];
		loff_t foff = (loff_t)(i * TTM_PAGE_SIZE);
		uint64_t boff;
		int afd;

		if (i + (1ul << order) > tt->num_pages ||
		    ttm_pool_page_backing(pool, tt->pages[i], &afd, &boff)) {
			r = -EINVAL;
			break;
		}
		r = to_file ? splice_range(p, afd, (loff_t)boff, fd, foff, block_bytes(order))
			    : splice_range(p, fd, foff, afd, (loff_t)boff, block_bytes(order));
		i += 1ul << order;
	}
	pipe_put(pool, p, r != -EIO);
	return r;
}

/* Pop a free block of [@c][@order], NULL when the bucket is empty. */
static void *bucket_take(struct ttm_pool *pool, enum ttm_caching c, unsigned int order)
{
	struct ttm_pool_type *pt = &pool->types[c][order];
	struct list_head *l = NULL;

	ttm_lock(&pool->lock);
	if (!list_empty(&pt->free)) {
		l = pt->free.next;
		list_del_init(l);
		pt->nr_free--;
		pt->allocs++;
		pool->nr_free_pages -= 1ul << order;
	}
	ttm_unlock(&pool->lock);
	return l;
}

static void bucket_give(struct ttm_pool *pool, enum ttm_caching c, unsigned int order, void *p)
{
	struct ttm_pool_type *pt = &pool->types[c][order];
	struct list_head *l = p;

	ttm_lock(&pool->lock);
	list_add(l, &pt->free);
	pt->nr_free++;
	pool->nr_free_pages += 1ul << order;
	ttm_unlock(&pool->lock);
}

/* An open claim of block_alloc(): which bucket it waits on, what it took. */
struct pool_claim {
	struct ttm_pool *pool;
	enum ttm_caching caching;
	unsigned int order;
	void *block;
};

static bool pool_claim_take(void *arg)
{
	struct pool_claim *cl = arg;

	cl->block = bucket_take(cl->pool, cl->caching, cl->order);
	return cl->block != NULL;
}

/*
 * One block of 2^@order pages in caching @c for @pool, from the buckets and
 * arena of @bp = pool_for(@pool, @c): recycled from its bucket, or
 * charged to ttm_global and mapped from the OS. While the reservation runs
 * the shrinkers, the pool's claim is open: a block a swap-out of this pool
 * parks in the bucket is taken as it is (see ttm_global_reserve_claim()).
 * Zeroes recycled blocks when @zero; fresh anonymous mappings are zero
 * already.
 */
static int block_alloc(struct ttm_pool *bp, enum ttm_caching c, unsigned int order, bool zero,
		       struct ttm_operation_ctx *ctx, void **out)
{
	struct pool_claim cl = {.pool = bp, .caching = c, .order = order};
	const struct ttm_global_claim claim = {.take = pool_claim_take, .arg = &cl};
	void *p;
	int r;

	if (fault_should_fail(&ttm_fault_pool_alloc, block_bytes(order)))
		return -ENOMEM;
	p = bucket_take(bp, c, order);
	if (!p) {
		atomic_fetch_add(&bp->claims, 1);
		r = ttm_global_reserve_claim(1ul << order, bp->use_dma32, ctx, &claim);
		atomic_fetch_sub(&bp->claims, 1);
		if (r < 0)
			return r;
		p = cl.block;
	}
	if (p) {
		if (zero)
			memset(p, 0, block_bytes(order));
		else
			memset(p, 0, sizeof(struct list_head)); /* no free-list pointers leak out */
		*out = p;
		return 0;
	}
	p = block_map(bp, order);
	if (!p) {
		ttm_global_unreserve(1ul << order, bp->use_dma32);
		return -ENOMEM;
	}
	ttm_lock(&bp->lock);
	bp->types[c][order].os_allocs++;
	ttm_unlock(&bp->lock);
	*out = p;
	return 0;
}

static void tt_blocks_free(struct ttm_pool *pool, struct ttm_tt *tt, unsigned long end,
			   bool reclaim)
{
	struct ttm_pool *bp = pool_for(pool, tt->caching);
	unsigned long i = 0;

	while (i < end) {
		unsigned int order = tt->orders[i];

		/* An allocation of this pool waiting for room takes the block as it is. */
		if (reclaim && !atomic_load(&bp->claims)) {
			block_unmap(bp, tt->pages[i], order);
			ttm_global_unreserve(1ul << order, tt->dma32);
		} else {
			bucket_give(bp, tt->caching, order, tt->pages[i]);
		}
		block_pages_clear(tt->pages + i, order);
		if (tt->dma_address)
			memset(&tt->dma_address[i], 0, sizeof(*tt->dma_address) << order);
		i += 1ul << order;
	}
}

/*
 * The DMA address of block @p: its offset in a DMA-allocating pool's arena,
 * else its CPU address (a device with no IOMMU in between).
 */
static uint64_t block_dma_address(struct ttm_pool *pool, void *p)
{
	uint64_t off;
	int fd;

	if (pool->use_dma_alloc && !arena_backing(pool, p, &fd, &off))
		return off;
	return (uint64_t)(uintptr_t)p;
}

int ttm_pool_alloc(struct ttm_pool *pool, struct ttm_tt *tt, struct ttm_operation_ctx *ctx)
{
	bool zero = tt->page_flags & TTM_TT_FLAG_ZERO_ALLOC;
	struct ttm_pool *bp;
	unsigned int order = TTM_POOL_MAX_ORDER;
	unsigned long i = 0;

	if ((unsigned int)tt->caching >= TTM_NUM_CACHING_TYPES)
		return -EINVAL;
	tt->dma32 = pool->use_dma32;
	bp = pool_for(pool, tt->caching);
	while (i < tt->num_pages) {
		unsigned int fit = order_for(tt->num_pages - i);
		unsigned long j;
		void *p;
		int r;

		if (order > fit)
			order = fit;
		r = block_alloc(bp, tt->caching, order, zero, ctx, &p);
		if (r) {
			/* As the kernel does: small blocks may exist where big ones do not. */
			if (order > 0) {
				order--;
				continue;
			}
			tt_blocks_free(pool, tt, i, false);
			return r;
		}
		tt->orders[i] = (uint8_t)order;
		block_pages_set(tt->pages + i, p, order);
		if (tt->dma_address) {
			uint64_t dma = block_dma_address(pool, p);

			for (j = 0; j < (1ul << order); j++)
				tt->dma_address[i + j] = dma + j * TTM_PAGE_SIZE;
		}
		i += 1ul << order;
	}
	return 0;
}

void ttm_pool_free(struct ttm_pool *pool, struct ttm_tt *tt, bool reclaim)
{
	tt_blocks_free(pool, tt, tt->num_pages, reclaim);
}

unsigned long ttm_pool_shrink(struct ttm_pool *pool, unsigned long nr_pages)
{
	unsigned long freed = 0;

	while (freed < nr_pages) {
		struct list_head *l = NULL;
		unsigned int order = TTM_POOL_MAX_ORDER + 1;
		int c;

		/* Largest blocks first: fewest unmaps for the pages wanted. */
		ttm_lock(&pool->lock);
		while (!l && order-- > 0) {
			for (c = 0; c < TTM_NUM_CACHING_TYPES; c++) {
				struct ttm_pool_type *pt = &pool->types[c][order];

				if (!list_empty(&pt->free)) {
					l = pt->free.next;
					list_del_init(l);
					pt->nr_free--;
					pool->nr_free_pages -= 1ul << order;
					break;
				}
			}
		}
		ttm_unlock(&pool->lock);
		if (!l)
			break;
		block_unmap(pool, l, order);
		ttm_global_unreserve(1ul << order, pool->use_dma32);
		freed += 1ul << order;
	}
	return freed;
}

static unsigned long ttm_pool_scan(struct ttm_global_shrinker *shrinker, unsigned long nr_pages,
				   struct ttm_operation_ctx *ctx)
{
	return ttm_pool_shrink(container_of(shrinker, struct ttm_pool, shrinker), nr_pages);
}

/*
 * Set up one pool object (a device's or a global one) without touching the
 * global pools. Returns 0 or -ENOMEM.
 */
static int pool_setup(struct ttm_pool *pool, bool use_dma_alloc, bool use_dma32, const char *name)
{
	int c;
	unsigned int o;

	memset(pool, 0, sizeof(*pool));
	ttm_lock_init(&pool->lock);
	if (pthread_mutex_init(&pool->arena_lock, NULL))
		return -ENOMEM;
	rb_init(&pool->blocks, NULL);
	atomic_init(&pool->claims, 0);
	/*
	 * Without memfd the pool still works, only without zero-copy mappings;
	 * a DMA-allocating pool cannot: its DMA addresses are arena offsets.
	 */
	pool->arena_fd = memfd_create(name, MFD_CLOEXEC);
	if (use_dma_alloc && pool->arena_fd < 0) {
		pthread_mutex_destroy(&pool->arena_lock);
		return -ENOMEM;
	}
	/* DMA address 0 is never handed out: a zero entry means "no page". */
	if (use_dma_alloc)
		pool->arena_size = TTM_PAGE_SIZE;
	pool->use_dma_alloc = use_dma_alloc;
	pool->use_dma32 = use_dma32;
	for (c = 0; c < TTM_NUM_CACHING_TYPES; c++)
		for (o = 0; o <= TTM_POOL_MAX_ORDER; o++)
			INIT_LIST_HEAD(&pool->types[c][o].free);
	pool->shrinker.scan = ttm_pool_scan;
	pool->shrinker.swaps = false;
	ttm_global_register_shrinker(&pool->shrinker);
	return 0;
}

/* Undo pool_setup(): every free block back to the OS, files closed. */
static void pool_teardown(struct ttm_pool *pool)
{
	ttm_global_unregister_shrinker(&pool->shrinker);
	ttm_pool_shrink(pool, ULONG_MAX);
	while (pool->nr_swap_files)
		close(pool->swap_files[--pool->nr_swap_files]);
	while (pool->nr_pipes) {
		pool->nr_pipes--;
		close(pool->pipes[pool->nr_pipes][0]);
		close(pool->pipes[pool->nr_pipes][1]);
	}
	if (pool->arena_fd >= 0)
		close(pool->arena_fd);
	pool->arena_fd = -1;
	pthread_mutex_destroy(&pool->arena_lock);
}

/*
 * The global pools of write-combined and uncached blocks, [0] for pools
 * without DMA32, [1] for DMA32 ones (the kernel's global_write_combined,
 * global_uncached and their dma32 twins). Process-wide like the ttm_global
 * page accounting they are charged to: a block one device frees serves the
 * next request of any device. Each lives while a pool without DMA
 * allocation of its kind does (@global_users); @global_lock serialises
 * their set-up and teardown and nests outside everything of the pools.
 */
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ttm_pool global_pools[2];
static unsigned int global_users[2];

static struct ttm_pool *global_get(bool use_dma32)
{
	struct ttm_pool *g = &global_pools[use_dma32];

	pthread_mutex_lock(&global_lock);
	if (!global_users[use_dma32] &&
	    pool_setup(g, false, use_dma32,
		       use_dma32 ? "ttm-pool-global-dma32" : "ttm-pool-global")) {
		pthread_mutex_unlock(&global_lock);
		return NULL;
	}
	global_users[use_dma32]++;
	pthread_mutex_unlock(&global_lock);
	return g;
}

static void global_put(struct ttm_pool *g)
{
	bool dma32 = g->use_dma32;

	pthread_mutex_lock(&global_lock);
	if (!--global_users[dma32])
		pool_teardown(g);
	pthread_mutex_unlock(&global_lock);
}

int ttm_pool_init_dma(struct ttm_pool *pool, bool use_dma_alloc, bool use_dma32)
{
	struct ttm_pool *g = NULL;
	int ret;

	if (!use_dma_alloc) {
		g = global_get(use_dma32);
		if (!g)
			return -ENOMEM;
	}
	ret = pool_setup(pool, use_dma_alloc, use_dma32, "ttm-pool");
	if (ret) {
		if (g)
			global_put(g);
		return ret;
	}
	pool->shared = g;
	return 0;
}

int ttm_pool_init(struct ttm_pool *pool, bool use_dma32)
{
	return ttm_pool_init_dma(pool, false, use_dma32);
}

void ttm_pool_fini(struct ttm_pool *pool)
{
	struct ttm_pool *g = pool->shared;

	pool_teardown(pool);
	pool->shared = NULL;
	if (g)
		global_put(g);
}

unsigned long ttm_pool_nr_free(struct ttm_pool *pool, enum ttm_caching caching, unsigned int order)
{
	unsigned long n;

	if ((unsigned int)caching >= TTM_NUM_CACHING_TYPES || order > TTM_POOL_MAX_ORDER)
		return 0;
	pool = pool_for(pool, caching);
	ttm_lock(&pool->lock);
	n = pool->types[caching][order].nr_free;
	ttm_unlock(&pool->lock);
	return n;
}

unsigned long ttm_pool_free_pages(struct ttm_pool *pool)
{
	unsigned long n;

	ttm_lock(&pool->lock);
	n = pool->nr_free_pages;
	ttm_unlock(&pool->lock);
	if (pool->shared) {
		ttm_lock(&pool->shared->lock);
		n += pool->shared->nr_free_pages;
		ttm_unlock(&pool->shared->lock);
	}
	return n;
}

bool ttm_pool_can_serve(struct ttm_pool *pool, const struct ttm_tt *tt)
{
	unsigned int order = order_for(tt->num_pages);

	return ttm_pool_nr_free(pool, tt->caching, order) >= (tt->num_pages >> order);
}

unsigned long ttm_pool_os_pages(struct ttm_pool *pool)
{
	unsigned long n = 0;
	unsigned int o;
	int c;

	for (c = 0; c < TTM_NUM_CACHING_TYPES; c++) {
		struct ttm_pool *bp = pool_for(pool, (enum ttm_caching)c);

		ttm_lock(&bp->lock);
		for (o = 0; o <= TTM_POOL_MAX_ORDER; o++)
			n += bp->types[c][o].os_allocs << o;
		ttm_unlock(&bp->lock);
	}
	return n;
}

/* The rows of caching @c in @bp's buckets, marked when @bp is a global pool; @bp's lock taken. */
static unsigned long print_caching(struct ttm_pool *bp, int c, bool global, FILE *out)
{
	unsigned long pages = 0;
	unsigned int o;

	ttm_lock(&bp->lock);
	for (o = 0; o <= TTM_POOL_MAX_ORDER; o++) {
		struct ttm_pool_type *pt = &bp->types[c][o];

		pages += pt->nr_free << o;
		if (!pt->nr_free && !pt->allocs && !pt->os_allocs)
			continue;
		fprintf(out, "%-9s %5u %8lu %10lu %10lu%s\n", ttm_caching_name((enum ttm_caching)c),
			o, pt->nr_free, pt->allocs, pt->os_allocs, global ? " global" : "");
	}
	ttm_unlock(&bp->lock);
	return pages;
}

void ttm_pool_print(struct ttm_pool *pool, FILE *out)
{
	unsigned long own = 0, shared = 0;
	int c;

	fprintf(out, "%-9s %5s %8s %10s %10s\n", "caching", "order", "free", "reused", "os_allocs");
	for (c = 0; c < TTM_NUM_CACHING_TYPES; c++) {
		struct ttm_pool *bp = pool_for(pool, (enum ttm_caching)c);

		if (bp == pool)
			own += print_caching(bp, c, false, out);
		else
			shared += print_caching(bp, c, true, out);
	}
	fprintf(out, "free pages: %lu%s%s", own + shared, pool->use_dma32 ? " (dma32)" : "",
		pool->use_dma_alloc ? " (dma alloc)" : "");
	if (pool->shared)
		fprintf(out, " (%lu of them wc/uncached in the global pool)", shared);
	fputc('\n', out);
}
