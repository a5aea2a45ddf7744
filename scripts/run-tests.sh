#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test command: install what is missing, build, and run every suite.
#
#   ./scripts/run-tests.sh            plain build (unit, stress, fault), then
#                                     ASan+UBSan (unit, stress, fault) and TSan
#                                     (the concurrency tests), then the fuzzers
#   ./scripts/run-tests.sh --quick    plain build only
#   ./scripts/run-tests.sh --only asan|tsan|plain|fuzz
#
# Ends with one line "N passed, N failed, N skipped" summed over every run and
# exits non-zero when anything failed or did not build.
set -u
. "$(dirname "$0")/lib.sh"
cd "$TTM_TOP" || exit 1

runs="plain asan tsan fuzz"
case "${1:-}" in
--quick) runs=plain ;;
--only) runs=${2:?--only needs plain, asan, tsan or fuzz} ;;
"") ;;
*)
	echo "usage: $0 [--quick | --only plain|asan|tsan|fuzz]" >&2
	exit 2
	;;
esac

werror=false
[ -n "${CI:-}" ] && werror=true

ttm_ensure_packages || { echo "0 passed, 1 failed"; exit 1; }

total_pass=0 total_fail=0 total_skip=0
logdir="$TTM_TOP/build-logs"
mkdir -p "$logdir"

# run_suites NAME BUILDDIR SUITE...: run muon's test runner, add up its counts.
run_suites() {
	local name=$1 dir=$2
	shift 2
	local args=() s
	for s in "$@"; do args+=(-s "$s"); done
	ttm_log "$name: running suites $*"
	muon-meson -C "$dir" test -R -v "${args[@]}" >"$logdir/$name.log" 2>&1
	local rc=$?
	grep -E '^\[' "$logdir/$name.log" | grep -v '^\[ok' | sed "s/^/[$name] /" >&2
	local line
	line=$(grep -E '^finished [0-9]+ tests' "$logdir/$name.log" | tail -n 1)
	if [ -z "$line" ] && grep -q '^no tests defined' "$logdir/$name.log"; then
		ttm_log "$name: no tests registered in suites $*"
		return
	fi
	if [ -z "$line" ]; then
		ttm_log "$name: the test runner printed no summary (exit $rc)"
		tail -n 40 "$logdir/$name.log" >&2
		total_fail=$((total_fail + 1))
		return
	fi
	local n f sk
	n=$(sed -E 's/^finished ([0-9]+) tests.*/\1/' <<<"$line")
	f=$(sed -E 's/.* ([0-9]+) fail.*/\1/' <<<"$line")
	sk=$(sed -E 's/.* ([0-9]+) skipped.*/\1/' <<<"$line")
	total_pass=$((total_pass + n - f - sk))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + sk))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		total_fail=$((total_fail + 1))
	fi
	ttm_log "$name: $line"
}

# build_and_run NAME DIR "meson options" SUITE...
build_and_run() {
	local name=$1 dir=$2 opts=$3
	shift 3
	# shellcheck disable=SC2086
	if ! ttm_configure "$dir" $opts || ! ttm_build "$dir"; then
		ttm_log "$name: build failed"
		total_fail=$((total_fail + 1))
		return
	fi
	run_suites "$name" "$dir" "$@"
}

for r in $runs; do
	case $r in
	plain)
		build_and_run plain build "-Dwerror=$werror" unit stress fault
		;;
	asan)
		CC=clang build_and_run asan build-asan \
			"-Dwerror=$werror -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug -Doptimization=1" \
			unit stress fault
		;;
	tsan)
		CC=clang build_and_run tsan build-tsan \
			"-Dwerror=$werror -Db_sanitize=thread -Db_lundef=false -Dbuildtype=debug -Doptimization=1" \
			tsan
		;;
	fuzz)
		# Same options as the asan tree, so it is reused, not rebuilt.
		CC=clang build_and_run fuzz build-asan \
			"-Dwerror=$werror -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug -Doptimization=1" \
			fuzz
		;;
	*)
		echo "unknown run '$r'" >&2
		exit 2
		;;
	esac
done

echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
