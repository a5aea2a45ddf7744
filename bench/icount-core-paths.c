// SPDX-License-Identifier: MIT
/*
 * icount-core-paths: the TTM core paths of the kernel-reference comparison,
 * one per run, for counting instructions per operation under callgrind:
 *
 *   valgrind --tool=callgrind --instr-atstart=no icount-core-paths PATH [OPS]
 *
 * The setup runs uninstrumented; instrumentation is switched on around the
 * timed loop only, so the run's instruction total divided by the "ops" line
 * this program prints is the cost of one operation (deterministic: the same
 * binary gives the same count however loaded the machine is). Without
 * valgrind the program runs the same loops and prints ns per operation,
 * which is informative only. scripts/icount-core-paths.sh drives it.
 *
 * The driver is the kernel's ttm_kunit one in spirit: SYSTEM plus a TT
 * aperture (a range manager whose pages stay in the tt), SYSTEM <-> TT
 * moves by ttm_bo_move_null(), evictions to SYSTEM.
 *
 * Paths (4 KiB BOs unless said otherwise):
 *   hit          reserve + validate(TT) + unreserve of an idle BO in TT
 *   sys_tt_sys   reserve + validate(TT) + validate(SYSTEM) + unreserve,
 *                pages kept (one op is the round trip)
 *   thrash_4k    reserve + validate(TT) + unreserve cycling over 512 BOs of
 *                4 KiB in a 1 MiB TT: one eviction per validate
 *   thrash_64k   the same with 128 BOs of 64 KiB in 4 MiB
 *   create       init + validate into SYSTEM + put of a new BO
 *   resv_test    dma_resv_test_signaled(BOOKKEEP) on 16 fences, the last
 *                one pending
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <testlib/clock.h>

#include <ttm/dma_fence.h>
#include <ttm/dma_resv.h>
#include <ttm/ttm_bo.h>
#include <ttm/ttm_device.h>
#include <ttm/ttm_range_manager.h>

#include <testlib/mock_device.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION                                                            \
	do {                                                                                       \
	} while (0)
#define CALLGRIND_STOP_INSTRUMENTATION                                                             \
	do {                                                                                       \
	} while (0)
#endif

static const struct ttm_place sys_place = {.mem_type = TTM_PL_SYSTEM};
static const struct ttm_place tt_place = {.mem_type = TTM_PL_TT};
static const struct ttm_placement sys_placement = {1, &sys_place};
static const struct ttm_placement tt_placement = {1, &tt_place};

/*
 * testlib's mock device, bare: SYSTEM and a TT aperture of @tt_pages,
 * evictions to SYSTEM, SYSTEM <-> TT a rebind of the tt's pages (nothing
 * to copy).
 */
static int icount_dev_init(struct testlib_mock_device *d, uint64_t tt_pages)
{
	const struct testlib_mock_cfg cfg = {
	    .tt_pages = tt_pages,
	    .bare = true,
	    .evict = TESTLIB_MOCK_EVICT_SYSTEM,
	    .move = TESTLIB_MOCK_MOVE_BIND,
	};

	return testlib_mock_device_init(d, &cfg);
}

static struct ttm_buffer_object *icount_bo_create(struct testlib_mock_device *d, uint64_t size,
						  const struct ttm_placement *placement)
{
	struct ttm_buffer_object *bo;

	return testlib_mock_bo_create(&d->bdev, size, placement, NULL, false, &bo) ? NULL : bo;
}

static int reserve_validate_unreserve(struct ttm_buffer_object *bo,
				      const struct ttm_placement *placement)
{
	struct ttm_operation_ctx ctx = {0};
	int ret = ttm_bo_reserve(bo, false, false, NULL);

	if (ret)
		return ret;
	ret = ttm_bo_validate(bo, placement, &ctx);
	ttm_bo_unreserve(bo);
	return ret;
}

/* Run @ops of @path on @bos (@n of them), instrumented. */
static int run_bos(const char *path, struct ttm_buffer_object **bos, unsigned n, unsigned long ops,
		   double *ns)
{
	double t0;
	int ret = 0;

	t0 = (double)testlib_now_ns();
	CALLGRIND_START_INSTRUMENTATION;
	if (!strcmp(path, "hit")) {
		for (unsigned long i = 0; i < ops; i++)
			ret |= reserve_validate_unreserve(bos[0], &tt_placement);
	} else if (!strcmp(path, "sys_tt_sys")) {
		struct ttm_operation_ctx ctx = {0};

		for (unsigned long i = 0; i < ops; i++) {
			ret |= ttm_bo_reserve(bos[0], false, false, NULL);
			ret |= ttm_bo_validate(bos[0], &tt_placement, &ctx);
			ret |= ttm_bo_validate(bos[0], &sys_placement, &ctx);
			ttm_bo_unreserve(bos[0]);
		}
	} else {
		for (unsigned long i = 0; i < ops; i++)
			ret |= reserve_validate_unreserve(bos[i % n], &tt_placement);
	}
	CALLGRIND_STOP_INSTRUMENTATION;
	*ns = (double)testlib_now_ns() - t0;
	return ret;
}

static int run_create(struct testlib_mock_device *d, unsigned long ops, double *ns)
{
	double t0;
	int ret = 0;

	t0 = (double)testlib_now_ns();
	CALLGRIND_START_INSTRUMENTATION;
	for (unsigned long i = 0; i < ops; i++) {
		struct ttm_buffer_object *bo = icount_bo_create(d, 4096, &sys_placement);

		if (!bo) {
			ret = -ENOMEM;
			break;
		}
		ttm_bo_put(bo);
	}
	CALLGRIND_STOP_INSTRUMENTATION;
	*ns = (double)testlib_now_ns() - t0;
	return ret;
}

static const char *icount_fence_name(struct dma_fence *f)
{
	(void)f;
	return "icount";
}

static const struct dma_fence_ops icount_fence_ops = {
    .get_driver_name = icount_fence_name,
    .get_timeline_name = icount_fence_name,
};

#define RESV_FENCES 16

static int run_resv_test(unsigned long ops, double *ns)
{
	struct dma_fence fences[RESV_FENCES];
	struct dma_resv resv;
	double t0;
	unsigned long busy = 0;
	int ret;

	dma_resv_init(&resv);
	dma_resv_lock(&resv, NULL);
	ret = dma_resv_reserve_fences(&resv, RESV_FENCES);
	for (unsigned i = 0; i < RESV_FENCES && !ret; i++) {
		/* Separate contexts: each fence keeps its own slot. */
		dma_fence_init(&fences[i], &icount_fence_ops, dma_fence_context_alloc(1), 1);
		dma_fence_get(&fences[i]);
		if (i < RESV_FENCES - 1)
			dma_fence_signal(&fences[i]);
		ret = dma_resv_add_fence(&resv, &fences[i], DMA_RESV_USAGE_BOOKKEEP);
	}
	dma_resv_unlock(&resv);
	if (ret)
		return ret;
	t0 = (double)testlib_now_ns();
	CALLGRIND_START_INSTRUMENTATION;
	for (unsigned long i = 0; i < ops; i++)
		busy += !dma_resv_test_signaled(&resv, DMA_RESV_USAGE_BOOKKEEP);
	CALLGRIND_STOP_INSTRUMENTATION;
	*ns = (double)testlib_now_ns() - t0;
	dma_fence_signal(&fences[RESV_FENCES - 1]);
	dma_resv_fini(&resv);
	return busy == ops ? 0 : -EPROTO;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		uint64_t tt_pages, bo_size;
		unsigned nbos;
		unsigned long ops;
	} paths[] = {
	    {"hit", 256, 4096, 1, 20000},	  {"sys_tt_sys", 256, 4096, 1, 20000},
	    {"thrash_4k", 256, 4096, 512, 20000}, {"thrash_64k", 1024, 65536, 128, 5000},
	    {"create", 256, 4096, 0, 20000},	  {"resv_test", 0, 0, 0, 20000},
	};
	struct ttm_buffer_object *bos[512] = {0};
	struct testlib_mock_device d;
	unsigned long ops;
	unsigned p;
	double ns = 0;
	int ret;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s PATH [OPS]\n  PATH:", argv[0]);
		for (p = 0; p < sizeof(paths) / sizeof(paths[0]); p++)
			fprintf(stderr, " %s", paths[p].name);
		fprintf(stderr, "\n");
		return 2;
	}
	for (p = 0; p < sizeof(paths) / sizeof(paths[0]); p++)
		if (!strcmp(argv[1], paths[p].name))
			break;
	if (p == sizeof(paths) / sizeof(paths[0])) {
		fprintf(stderr, "icount-core-paths: unknown path %s\n", argv[1]);
		return 2;
	}
	ops = paths[p].ops;
	if (argc == 3) {
		char *end;

		ops = strtoul(argv[2], &end, 10);
		if (*end || !ops) {
			fprintf(stderr, "icount-core-paths: bad OPS %s\n", argv[2]);
			return 2;
		}
	}

	if (!strcmp(argv[1], "resv_test")) {
		ret = run_resv_test(ops, &ns);
		goto report;
	}
	ret = icount_dev_init(&d, paths[p].tt_pages);
	if (ret) {
		fprintf(stderr, "icount-core-paths: device init failed (%d)\n", ret);
		return 1;
	}
	if (!strcmp(argv[1], "create")) {
		/* One create outside the count: the pool and caches are warm. */
		ret = run_create(&d, 1, &ns) ?: run_create(&d, ops, &ns);
	} else {
		const struct ttm_placement *first =
		    !strcmp(argv[1], "sys_tt_sys") ? &sys_placement : &tt_placement;
		unsigned n = paths[p].nbos;

		for (unsigned i = 0; i < n; i++) {
			bos[i] = icount_bo_create(&d, paths[p].bo_size, &sys_placement);
			if (!bos[i]) {
				fprintf(stderr, "icount-core-paths: BO create failed\n");
				ret = -ENOMEM;
				goto out;
			}
		}
		/* Warm: populate every tt and fill TT so the counted loop is steady. */
		for (unsigned i = 0; i < n && !ret; i++)
			ret = reserve_validate_unreserve(bos[i], &tt_placement);
		for (unsigned i = 0; i < n && !ret; i++)
			ret = reserve_validate_unreserve(bos[i], first);
		if (!ret)
			ret = run_bos(argv[1], bos, n, ops, &ns);
	}
out:
	for (unsigned i = 0; i < 512; i++)
		if (bos[i])
			ttm_bo_put(bos[i]);
	testlib_mock_device_fini(&d);
report:
	if (ret) {
		fprintf(stderr, "icount-core-paths: %s failed (%d)\n", argv[1], ret);
		return 1;
	}
	printf("path %s\nops %lu\nns_per_op %.1f\n", argv[1], ops, ns / (double)ops);
	return 0;
}
