#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# shim-cost.sh [-p tgl|dg2] [-b BUILDDIR] [--quick]
#
# What the render node costs a program, in one run on one machine:
#  1. benchmark-node-ioctl: GEM_BUSY through the node against the same call
#     in-process (goal: node rate >= 0.8x) and against getppid() (goal:
#     <= 2x), and igt gem_exec_nop's loop (empty batch + GEM_WAIT) through
#     the node against in-process (goal >= 0.8x), in interleaved rounds;
#  2. igt's own gem_exec_nop and gem_busy benchmarks (Debian's
#     intel-gpu-tools) under the node, their figures printed beside 1.
# Timings need an idle machine: run it after the helpers stopped building.
# Exit status: 0; 1 a run failed; 77 the node or the benchmarks are missing.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
profile=tgl
build=$top/build
quick=
while [ $# -gt 0 ]; do
	case $1 in
	-p) profile=$2; shift 2 ;;
	-b) build=$2; shift 2 ;;
	--quick) quick=--quick; shift ;;
	*) echo "usage: $0 [-p tgl|dg2] [-b BUILDDIR] [--quick]" >&2; exit 2 ;;
	esac
done
shim=$build/node/libttm-i915-node.so
[ -f "$shim" ] || { echo "SKIP: no $shim (build the node first)"; exit 77; }
[ -x "$build/node/benchmark-node-ioctl" ] || { echo "SKIP: no benchmark-node-ioctl in $build"; exit 77; }
export TTM_I915_PROFILE=$profile
rc=0
echo "==> benchmark-node-ioctl ($profile)"
LD_PRELOAD=$shim "$build/node/benchmark-node-ioctl" $quick || rc=1
bench=${IGT_BENCHMARKS:-/usr/libexec/igt-gpu-tools/benchmarks}
if [ ! -x "$bench/gem_exec_nop" ] || [ ! -x "$bench/gem_busy" ]; then
	echo "SKIP: igt benchmarks not in $bench (Debian package intel-gpu-tools)"
	exit $rc
fi
reps=3
[ -n "$quick" ] && reps=1
for b in "gem_exec_nop -e rcs -r $reps" "gem_busy -e rcs -r $reps"; do
	echo "==> igt $b (under the node)"
	# shellcheck disable=SC2086
	LD_PRELOAD=$shim timeout -k 5 300 "$bench"/$b 2>&1 | grep -v '^$' | tail -n 3 || rc=1
done
exit $rc
