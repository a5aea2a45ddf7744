// SPDX-License-Identifier: MIT
/*
 * bench_hw against i915/hw's recording fake: what --backend=hw benchmarks
 * rely on without a GPU. The open records the GPU in the results file, the
 * errors that must skip do skip (77) with a reason, and no open - however
 * it fails - leaves an fd, a GEM handle, a context or a VM behind.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "bench.h"
#include "bench_hw.h"
#include "hw_fake.h"
#include "hw_ttm.h"
#include "ktest.h"
#include "bench_hw_fixture.h"

KTEST(bench_hw_open_records_gpu)
{
	struct bench_hw_fixture fx;
	struct json_object *root, *machine, *params, *v;
	char dir[] = "/tmp/test-bench-hw-XXXXXX";
	char *path = NULL;
	void *loaded;
	char err[128];

	ASSERT_EQ(bench_hw_fixture_init(&fx, "test-bench-hw", "bench-hw-test"), 0);
	ASSERT_EQ(bench_hw_open(&fx.run, &fx.hw, &fx.args), 0);
	ASSERT_NOT_NULL(fx.hw.gpu);
	ASSERT_NOT_NULL(fx.hw.dev);
	EXPECT_STREQ(fx.hw.why, "");
	/* The TT manager runs over the fake's ppGTT: TTM is usable at once. */
	EXPECT_TRUE(fx.hw.dev->bdev.man_drv[TTM_PL_TT] != NULL);

	/* A results file needs a usable metric to load (bench_results_load()). */
	ASSERT_EQ(bench_metric_sample(
		      bench_metric_add(&fx.run, "probe", "ns", BENCH_LOWER_IS_BETTER), 1.0),
		  0);
	ASSERT_NOT_NULL(mkdtemp(dir));
	ASSERT_EQ(bench_run_write(&fx.run, dir, &path), 0);
	ASSERT_EQ(bench_results_load(path, &loaded, err, sizeof(err)), 0);
	root = loaded;
	ASSERT_TRUE(json_object_object_get_ex(root, "machine", &machine));
	ASSERT_TRUE(json_object_object_get_ex(machine, "backend_params", &params));
	ASSERT_TRUE(json_object_object_get_ex(params, "gpu.pci_id", &v));
	EXPECT_STREQ(json_object_get_string(v), "8086:9a49");
	EXPECT_TRUE(json_object_object_get_ex(params, "gpu.device", &v));
	EXPECT_TRUE(json_object_object_get_ex(params, "gpu.driver", &v));
	json_object_put(root);
	unlink(path);
	rmdir(dir);
	free(path);

	EXPECT_EQ(bench_hw_close(&fx.hw), 0);
	EXPECT_NULL(fx.hw.gpu);
	EXPECT_NULL(fx.hw.dev);
	EXPECT_TRUE(hw_fake_clean(fx.fake, NULL, 0));
	/* Closing twice is harmless (a program's error paths may). */
	EXPECT_EQ(bench_hw_close(&fx.hw), 0);
	bench_hw_fixture_fini(&fx);
}

KTEST(bench_hw_open_close_refuses_live_bo)
{
	struct bench_hw_fixture fx;
	struct hw_ttm_bo *bo;

	ASSERT_EQ(bench_hw_fixture_init(&fx, "test-bench-hw", "bench-hw-test"), 0);
	ASSERT_EQ(bench_hw_open(&fx.run, &fx.hw, &fx.args), 0);
	ASSERT_EQ(hw_ttm_bo_create(fx.hw.dev, 4096, &hw_ttm_placement_tt, &bo), 0);
	/* A live BO keeps the device: close must not free it under the BO. */
	EXPECT_EQ(bench_hw_close(&fx.hw), -EBUSY);
	EXPECT_TRUE(fx.hw.dev != NULL && fx.hw.gpu != NULL);
	ttm_bo_put(&bo->tbo);
	EXPECT_EQ(bench_hw_close(&fx.hw), 0);
	EXPECT_TRUE(hw_fake_clean(fx.fake, NULL, 0));
	bench_hw_fixture_fini(&fx);
}

/* Each way the machine cannot run hw must be a skip with a reason. */
KTEST(bench_hw_open_skips)
{
	static const struct {
		const char *what;
		int expect;
	} cases[] = {
	    /* clang-format off */
		{"not i915", -ENODEV},
		{"no node", -ENODEV},
		{"no softpin", -EOPNOTSUPP},
		{"no exec fence", -EOPNOTSUPP},
		{"permission", -EACCES},
	    /* clang-format on */
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bench_hw_fixture fx;
		int ret;

		ASSERT_EQ(bench_hw_fixture_init(&fx, "test-bench-hw", "bench-hw-test"), 0);
		switch (i) {
		case 0:
			strcpy(fx.fake->nodes[0].driver, "amdgpu");
			break;
		case 1:
			fx.fake->num_nodes = 0;
			break;
		case 2:
			fx.fake->softpin = 0;
			break;
		case 3:
			fx.fake->exec_fence = 0;
			break;
		default:
			fx.fake->nodes[0].open_err = -EACCES;
			break;
		}
		ret = bench_hw_open(&fx.run, &fx.hw, &fx.args);
		EXPECT_TRUE(bench_hw_skippable(ret));
		EXPECT_TRUE(fx.hw.why[0] != '\0');
		EXPECT_NULL(fx.hw.gpu);
		EXPECT_NULL(fx.hw.dev);
		EXPECT_TRUE(hw_fake_clean(fx.fake, NULL, 0));
		if (ret != cases[i].expect)
			ktest_fail(__FILE__, __LINE__, "case %s: %d (%s)", cases[i].what, ret,
				   fx.hw.why);
		EXPECT_EQ(bench_hw_close(&fx.hw), 0);
		bench_hw_fixture_fini(&fx);
	}
}

/* Fail every ioctl of the open in turn: an error or success, never a leak. */
KTEST(bench_hw_open_every_ioctl_fails)
{
	unsigned failed = 0;

	for (unsigned n = 1; n < 64; n++) {
		struct bench_hw_fixture fx;
		int ret;

		ASSERT_EQ(bench_hw_fixture_init(&fx, "test-bench-hw", "bench-hw-test"), 0);
		fx.fake->fail_nth = n;
		fx.fake->fail_err = -ENOMEM;
		ret = bench_hw_open(&fx.run, &fx.hw, &fx.args);
		/* An n past the open would fail a destroy inside close: not this test. */
		fx.fake->fail_nth = 0;
		if (ret) {
			failed++;
			EXPECT_TRUE(fx.hw.why[0] != '\0');
			EXPECT_NULL(fx.hw.gpu);
		}
		EXPECT_EQ(bench_hw_close(&fx.hw), 0);
		if (!hw_fake_clean(fx.fake, NULL, 0))
			ktest_fail(__FILE__, __LINE__,
				   "ioctl %u failing (open: %d, %s): fds %d handles %d maps %d ctx "
				   "%d vms %d",
				   n, ret, fx.hw.why, fx.fake->open_fds, fx.fake->live_handles,
				   fx.fake->live_maps, fx.fake->live_ctx, fx.fake->live_vms);
		bench_hw_fixture_fini(&fx);
	}
	/* The open issues several ioctls: some of them must have been hit. */
	EXPECT_GT(failed, 0u);
}

/*
 * The fake's GPU: completes every out-fence handed out, with @status, until
 * told to stop (what the kernel does when a request retires).
 */
struct gpu_thread {
	struct hw_fake *fake;
	atomic_bool stop;
	atomic_int status;
	unsigned done;
};

static void *gpu_thread_fn(void *arg)
{
	struct gpu_thread *g = arg;
	const struct timespec ms = {0, 200 * 1000};

	while (!atomic_load(&g->stop)) {
		unsigned have;

		pthread_mutex_lock(&g->fake->lock);
		have = g->fake->num_fences;
		pthread_mutex_unlock(&g->fake->lock);
		while (g->done < have)
			hw_fake_signal(g->fake, g->done++, atomic_load(&g->status));
		nanosleep(&ms, NULL);
	}
	return NULL;
}

/* The benchmarks' nop submission, end to end through hw_ttm and the fence bridge. */
KTEST(bench_hw_exec_wait_nop)
{
	struct gpu_thread g = {0};
	struct hw_ttm_bo *batch, *other;
	struct bench_hw_fixture fx;
	pthread_t thread;
	int ret;

	ASSERT_EQ(bench_hw_fixture_init(&fx, "test-bench-hw", "bench-hw-test"), 0);
	ASSERT_EQ(bench_hw_open(&fx.run, &fx.hw, &fx.args), 0);
	ASSERT_EQ(bench_hw_nop_batch(&fx.hw, &batch), 0);
	ASSERT_EQ(hw_ttm_bo_create(fx.hw.dev, 8192, &hw_ttm_placement_system, &other), 0);
	/* Nobody completes the fence yet: the wait must time out, not hang. */
	EXPECT_EQ(bench_hw_exec_wait(&fx.hw, NULL, 0, batch, 1000000), -ETIME);

	g.fake = fx.fake;
	atomic_init(&g.stop, false);
	atomic_init(&g.status, 1);
	ASSERT_EQ(pthread_create(&thread, NULL, gpu_thread_fn, &g), 0);
	for (int i = 0; i < 20; i++)
		EXPECT_EQ(bench_hw_exec_wait(&fx.hw, NULL, 0, batch, 5000000000LL), 0);
	EXPECT_EQ(bench_hw_exec_wait(&fx.hw, &other, 1, batch, 5000000000LL), 0);
	/* A batch killed by a reset reports the fence's error. */
	atomic_store(&g.status, -EIO);
	ret = bench_hw_exec_wait(&fx.hw, NULL, 0, batch, 5000000000LL);
	EXPECT_EQ(ret, -EIO);
	atomic_store(&g.status, 1);
	/* Let the GPU thread retire everything, then stop it. */
	EXPECT_EQ(bench_hw_exec_wait(&fx.hw, NULL, 0, batch, 5000000000LL), 0);
	atomic_store(&g.stop, true);
	pthread_join(thread, NULL);
	/* The batch ended up softpinned where the TT manager put it. */
	ASSERT_EQ(ttm_bo_reserve(&batch->tbo, false, false, NULL), 0);
	EXPECT_TRUE(hw_ttm_bo_gpu_addr(batch) != UINT64_MAX);
	ttm_bo_unreserve(&batch->tbo);

	ttm_bo_put(&other->tbo);
	ttm_bo_put(&batch->tbo);
	EXPECT_EQ(bench_hw_close(&fx.hw), 0);
	EXPECT_TRUE(hw_fake_clean(fx.fake, NULL, 0));
	bench_hw_fixture_fini(&fx);
}

KTEST(bench_hw_not_open)
{
	struct bench_hw hw;
	struct hw_ttm_bo *bo;

	bench_hw_init(&hw);
	EXPECT_EQ(bench_hw_nop_batch(&hw, &bo), -ENODEV);
	EXPECT_EQ(bench_hw_exec_wait(&hw, NULL, 0, NULL, 0), -ENODEV);
}

KTEST(bench_hw_opt_device_checks)
{
	struct bench_hw hw;
	char err[128], longp[80];

	bench_hw_init(&hw);
	EXPECT_EQ(bench_hw_opt_device(&hw, "/dev/dri/renderD129", err, sizeof(err)), 0);
	EXPECT_STREQ(hw.device, "/dev/dri/renderD129");
	EXPECT_EQ(bench_hw_opt_device(&hw, "", err, sizeof(err)), -EINVAL);
	memset(longp, 'x', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	EXPECT_EQ(bench_hw_opt_device(&hw, longp, err, sizeof(err)), -EINVAL);
	EXPECT_STREQ(hw.device, "/dev/dri/renderD129");
}

KTEST(bench_hw_exit_status)
{
	struct bench_hw_fixture fx;

	ASSERT_EQ(bench_hw_fixture_init(&fx, "test-bench-hw", "bench-hw-test"), 0);
	strcpy(fx.hw.why, "no DRM render node");
	/* bench_hw_exit() frees the run: re-init it for bench_hw_fixture_fini(). */
	EXPECT_EQ(bench_hw_exit(&fx.run, &fx.hw, "test", -ENODEV), 77);
	ASSERT_EQ(bench_run_init(&fx.run, "bench-hw-test", &fx.opts), 0);
	EXPECT_EQ(bench_hw_exit(&fx.run, &fx.hw, "test", -EACCES), 77);
	ASSERT_EQ(bench_run_init(&fx.run, "bench-hw-test", &fx.opts), 0);
	EXPECT_EQ(bench_hw_exit(&fx.run, &fx.hw, "test", -ENOMEM), 1);
	ASSERT_EQ(bench_run_init(&fx.run, "bench-hw-test", &fx.opts), 0);
	bench_hw_fixture_fini(&fx);
}
