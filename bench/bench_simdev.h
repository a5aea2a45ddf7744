/* SPDX-License-Identifier: MIT */
/*
 * bench_simdev - the "sim" back end of benchmark-validate and
 * benchmark-evict: the i915 driver (GEM layer up) on the simulated GPU with
 * the latency model off, so the figures are the driver's and the core's
 * CPU cost plus the simulated blitter's copies, not a modelled GPU delay.
 *
 * The GGTT is 1 GiB; the rings are placed top-down, so the CPU-mappable
 * aperture at its bottom holds only the 4 KiB guard page and what the
 * benchmark puts there. Device-local memory is not CPU-visible: every move
 * in or out of it is a blit through a GGTT hop, as on a small-BAR part.
 * Errors are negative errno values.
 */
#ifndef BENCH_SIMDEV_H
#define BENCH_SIMDEV_H

#include <stdint.h>

#include <bench.h>
#include <i915/i915_gem.h>

/** BENCH_SIMDEV_GGTT - GGTT size of every bench_simdev device, bytes. */
#define BENCH_SIMDEV_GGTT (1ull << 30)

/**
 * bench_simdev_open() - probe a simulated part and bring GEM up.
 * @aperture: CPU-mappable GGTT bytes (page multiple); 0 for the default
 *	(256 MiB).
 * @lmem: device-local memory bytes (page multiple); 0 for an integrated
 *	part.
 * @run: the run whose workers 0..@nworkers-1 the device's threads (engines,
 *	interrupt, reset) keep off (bench_device_cpus()); they would otherwise
 *	inherit the caller's affinity, and a caller pinned to a client's CPU
 *	would put the simulated GPU on that core.
 * @nworkers: how many workers the device serves at most.
 * @out: the device.
 * Return: 0; the errors of bench_device_cpus(), i915_device_create_sim()
 * and i915_gem_init(); nothing is left behind on failure.
 */
int bench_simdev_open(struct bench_run *run, unsigned nworkers, uint64_t aperture, uint64_t lmem,
		      struct i915_device **out);

/**
 * bench_simdev_close() - tear @i915 down. Every object must have been put.
 * Return: 0; -EBUSY when objects remain (nothing is freed then).
 */
int bench_simdev_close(struct i915_device *i915);

#endif /* BENCH_SIMDEV_H */
