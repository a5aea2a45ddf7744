#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CI's smoke check of the main job: the suite in --quick mode must build, run
# every program to completion, leave a finished results directory whose JSON
# files validate (schema fields, a stats object or null per metric, ratios
# where a reference is named) and that ttm-compare can read. Absolute numbers
# are not gated on: CI machines are shared and noisy.
set -u
cd "$(dirname "$0")/.." || exit 1
dir=${TTM_BENCH_BUILD:-build-bench}
./scripts/run-benchmarks.sh --quick --build "$dir" || exit 1
latest=$(ls -1d results/runs/*/ 2>/dev/null | grep -v -e partial -e perf | sort | tail -n 1)
latest=${latest%/}
[ -n "$latest" ] || { echo "no results directory was written" >&2; exit 1; }
n=0
for f in "$latest"/*.json; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	jq -e '
		.schema == "ttm-bench-results" and .schema_version == 1
		and (.benchmark | type == "string") and (.machine.id | type == "string")
		and (.metrics | type == "array" and length > 0)
		and all(.metrics[]; (.name | type == "string") and (.unit | type == "string")
			and (.stats == null or (.stats.median | type == "number")))
	' "$f" >/dev/null || { echo "$f does not validate" >&2; exit 1; }
done
[ $n -gt 0 ] || { echo "$latest holds no results files" >&2; exit 1; }
# A run compared with itself: every metric matched, nothing regressed.
"$dir/bench/ttm-compare" "$latest" "$latest" >"$latest/self-compare.txt" ||
	{ echo "ttm-compare failed on $latest against itself" >&2; exit 1; }
[ -s "$latest/plots/fence-threads.png" ] || { echo "the plots were not rendered" >&2; exit 1; }
echo "benchmark smoke check: ok ($latest, $n results files)"
