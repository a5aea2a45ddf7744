#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CI's smoke check of the main job: the benchmark suite in --quick mode must
# build, run every program to completion and leave a finished results
# directory. Absolute numbers are not gated on (CI machines are shared).
set -u
cd "$(dirname "$0")/.." || exit 1
./scripts/run-benchmarks.sh --quick || exit 1
latest=$(ls -1d results/runs/*/ 2>/dev/null | grep -v partial | tail -n 1)
[ -n "$latest" ] || { echo "no results directory was written" >&2; exit 1; }
for f in "$latest"/benchmark-*.txt; do
	grep -q 'ratio' "$f" || { echo "$f reports no ratio to a reference" >&2; exit 1; }
done
echo "benchmark smoke check: ok ($latest)"
