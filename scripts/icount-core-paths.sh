#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per operation on the TTM core paths of the kernel-reference
# comparison (validate hit, SYSTEM<->TT round trip, eviction thrash, BO
# create, dma_resv_test_signaled), counted by callgrind around the
# operation loop only: deterministic for a given binary, whatever the load.
# The paths are described in bench/icount-core-paths.c.
#
#   ./scripts/icount-core-paths.sh [BUILD_DIR] [PATH...]   (default build-bench, all paths)
#
# With TTM_ICOUNT_ANNOTATE=1 each path's callgrind_annotate --inclusive=yes
# profile is printed too.
set -u
. "$(dirname "$0")/lib.sh"
cd "$TTM_TOP" || exit 1
dir=build-bench
if [ $# -ge 1 ] && [ -d "$1" ]; then
	dir=$1
	shift
fi
paths=("$@")
[ ${#paths[@]} -gt 0 ] || paths=(hit sys_tt_sys thrash_4k thrash_64k create resv_test)
bin="$dir/bench/icount-core-paths"
if [ ! -x "$bin" ]; then
	ttm_ensure_packages || exit 1
	ttm_configure "$dir" -Dbuildtype=release -Db_ndebug=true || exit 1
	ninja -C "$dir" bench/icount-core-paths || exit 1
fi
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in "${paths[@]}"; do
	out=$(valgrind --tool=callgrind --instr-atstart=no --dump-instr=yes \
		--callgrind-out-file="$tmp/cg.$p" "$bin" "$p" 2>"$tmp/log.$p") ||
		{ cat "$tmp/log.$p" >&2; exit 1; }
	ops=$(awk '/^ops/ {print $2}' <<<"$out")
	ir=$(awk '/^totals:/ {print $2; exit}' "$tmp/cg.$p")
	[ -n "$ops" ] && [ "${ir:-0}" -gt 0 ] || { echo "no count for $p" >&2; exit 1; }
	awk -v p="$p" -v i="$ir" -v o="$ops" \
		'BEGIN {printf "%-12s %8.1f instructions/op (%d ops)\n", p, i / o, o}'
	if [ "${TTM_ICOUNT_ANNOTATE:-0}" = 1 ]; then
		callgrind_annotate --inclusive=yes "$tmp/cg.$p" | head -60
	fi
done
