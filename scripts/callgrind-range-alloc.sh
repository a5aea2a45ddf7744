#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per drm_mm remove+insert pair at 1 Ki and 1 Mi resident nodes,
# counted by callgrind (deterministic: the same binary and seed give the same
# count whatever else the machine does). O(log n) shows as a small ratio
# between the two; the target is the 1 Mi figure within 2.5x of the 1 Ki one.
#
#   ./scripts/callgrind-range-alloc.sh [BUILD_DIR]   (default build-bench)
set -u
. "$(dirname "$0")/lib.sh"
case $#:${1:-} in
0:* | 1:[!-]*) ;;
*)
	echo "usage: $0 [BUILD_DIR]" >&2
	exit 2
	;;
esac
cd "$TTM_TOP" || exit 1
dir=${1:-build-bench}
bin="$dir/bench/benchmark-range-alloc"
if [ ! -x "$bin" ]; then
	ttm_ensure_packages || exit 1
	ttm_configure "$dir" -Dbuildtype=release -Db_ndebug=true || exit 1
	ttm_build "$dir" || exit 1
fi
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A per
for n in 1024 1048576; do
	out=$(valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$tmp/cg.$n" \
		"$bin" --callgrind "$n" 2>"$tmp/log.$n") || { cat "$tmp/log.$n" >&2; exit 1; }
	pairs=$(awk '/^pairs/ {print $2}' <<<"$out")
	ir=$(awk '/^totals:/ {print $2; exit}' "$tmp/cg.$n")
	[ -n "$pairs" ] && [ "${ir:-0}" -gt 0 ] || { echo "no count for $n nodes" >&2; exit 1; }
	per[$n]=$(awk -v i="$ir" -v p="$pairs" 'BEGIN {printf "%.0f", i / p}')
	printf 'resident %-8s %8s instructions per remove+insert pair (%s pairs)\n' "$n" "${per[$n]}" "$pairs"
done
awk -v a="${per[1024]}" -v b="${per[1048576]}" 'BEGIN {
	r = b / a
	printf "ratio 1Mi/1Ki %.2fx (target <= 2.5x): %s\n", r, r <= 2.5 ? "pass" : "MISS"
}'
