// SPDX-License-Identifier: MIT
/* System-memory backing of a buffer and its swap to memfd; see ttm/ttm_tt.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ttm/ttm_faults.h>
#include <ttm/ttm_pool.h>
#include <ttm/ttm_tt.h>

#define TTM_TT_INIT_FLAGS                                                                          \
	(TTM_TT_FLAG_ZERO_ALLOC | TTM_TT_FLAG_EXTERNAL | TTM_TT_FLAG_EXTERNAL_MAPPABLE)

/*
 * The page directory, the DMA addresses when @dma, and the pool's order
 * bytes in one zeroed block (pages first, then @dma_address, then
 * @orders): one allocation per tt, as the kernel's one kvcalloc() of the
 * directory.
 */
static int tt_alloc_arrays(struct ttm_tt *tt, bool dma)
{
	size_t n = tt->num_pages;
	size_t each =
	    sizeof(*tt->pages) + sizeof(*tt->orders) + (dma ? sizeof(*tt->dma_address) : 0);

	if (fault_should_fail(&ttm_fault_tt_alloc, n * sizeof(void *)))
		return -ENOMEM;
	tt->pages = calloc(n, each);
	if (!tt->pages)
		return -ENOMEM;
	if (dma) {
		tt->dma_address = (uint64_t *)(tt->pages + n);
		tt->orders = (uint8_t *)(tt->dma_address + n);
	} else {
		tt->orders = (uint8_t *)(tt->pages + n);
	}
	return 0;
}

static void tt_free_arrays(struct ttm_tt *tt)
{
	free(tt->pages);
	tt->pages = NULL;
	tt->orders = NULL;
	tt->dma_address = NULL;
}

static int tt_init(struct ttm_tt *tt, size_t size, uint32_t page_flags, enum ttm_caching caching,
		   unsigned long extra_pages, bool dma)
{
	uint64_t pages;

	if (!size || (page_flags & ~TTM_TT_INIT_FLAGS) ||
	    (unsigned int)caching >= TTM_NUM_CACHING_TYPES)
		return -EINVAL;
	pages = ((uint64_t)size + TTM_PAGE_SIZE - 1) >> TTM_PAGE_SHIFT;
	if (pages + extra_pages > UINT32_MAX || pages + extra_pages < pages)
		return -EINVAL;
	memset(tt, 0, sizeof(*tt));
	tt->num_pages = (uint32_t)(pages + extra_pages);
	tt->page_flags = page_flags;
	tt->caching = caching;
	tt->swap_storage = -1;
	/* The kernel's ttm_tt_init() allocates the page directory here, too. */
	return tt_alloc_arrays(tt, dma);
}

int ttm_tt_init(struct ttm_tt *tt, size_t size, uint32_t page_flags, enum ttm_caching caching,
		unsigned long extra_pages)
{
	return tt_init(tt, size, page_flags, caching, extra_pages, false);
}

int ttm_sg_tt_init(struct ttm_tt *tt, size_t size, uint32_t page_flags, enum ttm_caching caching)
{
	return tt_init(tt, size, page_flags, caching, 0, true);
}

int ttm_tt_populate(struct ttm_pool *pool, struct ttm_tt *tt, struct ttm_operation_ctx *ctx)
{
	int r;

	if (!tt || !tt->pages)
		return -EINVAL;
	if (ttm_tt_is_populated(tt))
		return 0;
	if (ttm_tt_is_swapped(tt))
		return ttm_tt_swapin(pool, tt, ctx);
	if (!(tt->page_flags & TTM_TT_FLAG_EXTERNAL)) {
		r = ttm_pool_alloc(pool, tt, ctx);
		if (r)
			return r;
	}
	tt->page_flags |= TTM_TT_FLAG_POPULATED;
	return 0;
}

void ttm_tt_unpopulate(struct ttm_pool *pool, struct ttm_tt *tt)
{
	if (!ttm_tt_is_populated(tt))
		return;
	/* The pool clears the entries it takes back; the owner's are cleared here. */
	if (!(tt->page_flags & TTM_TT_FLAG_EXTERNAL))
		ttm_pool_free(pool, tt, false);
	else
		memset(tt->pages, 0, (size_t)tt->num_pages * sizeof(*tt->pages));
	tt->page_flags &= ~TTM_TT_FLAG_POPULATED;
}

void ttm_tt_fini(struct ttm_pool *pool, struct ttm_tt *tt)
{
	ttm_tt_unpopulate(pool, tt);
	tt_free_arrays(tt);
	if (pool)
		ttm_pool_swap_file_put(pool, tt->swap_storage);
	else if (tt->swap_storage >= 0)
		close(tt->swap_storage);
	tt->swap_storage = -1;
	tt->page_flags &= ~TTM_TT_FLAG_SWAPPED;
}

/*
 * Move the whole content between @tt's pages and @fd, one system call per
 * run of contiguous pages (a pool block). Returns 0 or -EIO on a short or
 * failed transfer.
 */
static int tt_file_io(struct ttm_tt *tt, int fd, bool write)
{
	unsigned long i = 0;

	while (i < tt->num_pages) {
		unsigned long j = i + 1;
		size_t len, done = 0;
		char *base = tt->pages[i];

		while (j < tt->num_pages && (char *)tt->pages[j] == base + (j - i) * TTM_PAGE_SIZE)
			j++;
		len = (j - i) * TTM_PAGE_SIZE;
		while (done < len) {
			off_t off = (off_t)(i * TTM_PAGE_SIZE + done);
			ssize_t n = write ? pwrite(fd, base + done, len - done, off)
					  : pread(fd, base + done, len - done, off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return -EIO;
			done += (size_t)n;
		}
		i = j;
	}
	return 0;
}

/*
 * The content between @tt and @fd: in the kernel, page cache to page cache,
 * when the pool can (ttm_pool_copy_file()), else through the pages' mappings.
 * Any failure of the first is retried by the second, which rewrites every
 * byte, so its answer is the one that counts.
 */
static int tt_copy_content(struct ttm_pool *pool, struct ttm_tt *tt, int fd, bool write)
{
	if (!ttm_pool_copy_file(pool, tt, fd, write))
		return 0;
	return tt_file_io(tt, fd, write);
}

long ttm_tt_swapout(struct ttm_pool *pool, struct ttm_tt *tt)
{
	long freed = tt->num_pages;
	int fd, r;

	if (!ttm_tt_is_populated(tt) || (tt->page_flags & TTM_TT_FLAG_EXTERNAL))
		return -EINVAL;
	if (fault_should_fail(&ttm_fault_swapout_write, (size_t)tt->num_pages * TTM_PAGE_SIZE))
		return -ENOMEM;
	/* Every page is written, so the file ends up exactly num_pages long. */
	fd = ttm_pool_swap_file_get(pool);
	if (fd < 0)
		return fd;
	r = tt_copy_content(pool, tt, fd, true);
	if (r) {
		ttm_pool_swap_file_put(pool, fd);
		return r;
	}
	ttm_pool_free(pool, tt, true);
	tt->swap_storage = fd;
	tt->page_flags = (tt->page_flags & ~TTM_TT_FLAG_POPULATED) | TTM_TT_FLAG_SWAPPED;
	return freed;
}

int ttm_tt_swapin(struct ttm_pool *pool, struct ttm_tt *tt, struct ttm_operation_ctx *ctx)
{
	int r;

	if (!tt || !tt->pages || !ttm_tt_is_swapped(tt) || tt->swap_storage < 0)
		return -EINVAL;
	r = ttm_pool_alloc(pool, tt, ctx);
	if (r)
		return r;
	if (fault_should_fail(&ttm_fault_swapin_read, (size_t)tt->num_pages * TTM_PAGE_SIZE))
		r = -EIO;
	else
		r = tt_copy_content(pool, tt, tt->swap_storage, false);
	if (r)
		goto err_pages;
	ttm_pool_swap_file_put(pool, tt->swap_storage);
	tt->swap_storage = -1;
	tt->page_flags = (tt->page_flags & ~TTM_TT_FLAG_SWAPPED) | TTM_TT_FLAG_POPULATED;
	return 0;

err_pages:
	ttm_pool_free(pool, tt, false);
	return r;
}

void *ttm_tt_page_ptr(const struct ttm_tt *tt, unsigned long i)
{
	if (!ttm_tt_is_populated(tt) || i >= tt->num_pages)
		return NULL;
	return tt->pages[i];
}

static bool tt_range_ok(const struct ttm_tt *tt, size_t offset, size_t len)
{
	size_t size = (size_t)tt->num_pages * TTM_PAGE_SIZE;

	return ttm_tt_is_populated(tt) && tt->pages && offset <= size && len <= size - offset;
}

int ttm_tt_copy_to(struct ttm_tt *tt, size_t offset, const void *src, size_t len)
{
	const char *s = src;

	if (!tt_range_ok(tt, offset, len))
		return -EINVAL;
	while (len) {
		size_t in = offset & (TTM_PAGE_SIZE - 1);
		size_t n = TTM_PAGE_SIZE - in < len ? TTM_PAGE_SIZE - in : len;

		memcpy((char *)tt->pages[offset >> TTM_PAGE_SHIFT] + in, s, n);
		s += n;
		offset += n;
		len -= n;
	}
	return 0;
}

int ttm_tt_copy_from(const struct ttm_tt *tt, size_t offset, void *dst, size_t len)
{
	char *d = dst;

	if (!tt_range_ok(tt, offset, len))
		return -EINVAL;
	while (len) {
		size_t in = offset & (TTM_PAGE_SIZE - 1);
		size_t n = TTM_PAGE_SIZE - in < len ? TTM_PAGE_SIZE - in : len;

		memcpy(d, (char *)tt->pages[offset >> TTM_PAGE_SHIFT] + in, n);
		d += n;
		offset += n;
		len -= n;
	}
	return 0;
}
