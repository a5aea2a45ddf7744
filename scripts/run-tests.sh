#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test command: install what is missing, build, and run every suite.
#
#   ./scripts/run-tests.sh            plain build (unit, stress, fault), then
#                                     ASan+UBSan (unit, stress, fault) and TSan
#                                     (the concurrency tests), then the fuzzers
#   ./scripts/run-tests.sh --quick    plain build only
#   ./scripts/run-tests.sh --only asan|tsan|plain|fuzz|igt|gates
#
# The gates run (first in the default list) counts one test per gate: the
# kernel-doc completeness of the public headers (scripts/check-kernel-doc.sh),
# cppcheck over the core (scripts/check-cppcheck.sh), clang-tidy over every
# compiled file (scripts/check-clang-tidy.sh, checks in .clang-tidy), the formatting of the
# files in scripts/format-files.txt (scripts/check-format.sh), and the layering
# and include cycles of the tree (scripts/check-include-graph.sh).
#
# The igt run builds igt-gpu-tools (scripts/igt-build.sh, cached outside the
# checkout) and runs, against the emulated render node on both profiles,
# either the acceptance lists scripts/igt/acceptance-{tgl,dg2}.txt
# (TTM_IGT=1, or --only igt) or the CI gate scripts/igt/ci-gate-{tgl,dg2}.txt
# (TTM_IGT=gate, what .ci/run sets): the subtests that pass today, so a
# change that breaks one fails CI while the acceptance lists are not yet met.
#
# Ends with one line "N passed, N failed, N skipped" summed over every run and
# exits non-zero when anything failed or did not build.
set -u
. "$(dirname "$0")/lib.sh"
cd "$TTM_TOP" || exit 1

runs="gates plain asan tsan fuzz"
# TTM_IGT=1 adds the igt run to the default list (CI: set it in .ci/run's
# environment once the acceptance lists pass under the render node).
[ -z "${TTM_IGT:-}" ] || [ "${TTM_IGT}" = 0 ] || runs="$runs igt"
case "${1:-}" in
--quick) runs=plain ;;
--only) runs=${2:?--only needs plain, asan, tsan, fuzz, igt or gates} ;;
"") ;;
*)
	echo "usage: $0 [--quick | --only plain|asan|tsan|fuzz|igt|gates]" >&2
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

# run_igt: igt's acceptance lists on both profiles, under the render node of
# the plain build. Each subtest counts once: pass as passed, fail/crash as
# failed, skip as skipped; a subtest on the profile's expected-failure list
# (only fork-stopped ones may be there) counts as skipped. No igt source or no
# node library: one skip, with the way to enable it.
run_igt() {
	local bld rc p line
	bld=$(scripts/igt-build.sh 2>"$logdir/igt-build.log")
	rc=$?
	if [ $rc -eq 77 ]; then
		ttm_log "igt: skipped: $(tail -n 1 "$logdir/igt-build.log")"
		total_skip=$((total_skip + 1))
		return
	elif [ $rc -ne 0 ]; then
		ttm_log "igt: building igt failed (log: $logdir/igt-build.log)"
		tail -n 20 "$logdir/igt-build.log" >&2
		total_fail=$((total_fail + 1))
		return
	fi
	ttm_log "igt: built in $bld"
	if ! ttm_configure build "-Dwerror=$werror" ||
		! ninja -C build node/libttm-i915-node.so >"$logdir/igt-node-build.log" 2>&1; then
		ttm_log "igt: building the render node failed (log: $logdir/igt-node-build.log)"
		tail -n 20 "$logdir/igt-node-build.log" >&2
		total_fail=$((total_fail + 1))
		return
	fi
	# Debian's gem_wsim on igt's own workload files (video engines, load
	# balancing, bonds), through the node: a program we did not write.
	ttm_ensure_packages intel-gpu-tools >"$logdir/igt-wsim-apt.log" 2>&1
	scripts/igt-wsim-check.sh -p tgl build/node/libttm-i915-node.so >"$logdir/igt-wsim.log" 2>&1
	rc=$?
	case $rc in
	0)
		total_pass=$((total_pass + 1))
		ttm_log "igt: gem_wsim: $(tr '\n' ' ' <"$logdir/igt-wsim.log")"
		;;
	77)
		total_skip=$((total_skip + 1))
		ttm_log "igt: gem_wsim $(tail -n 1 "$logdir/igt-wsim.log")"
		;;
	*)
		total_fail=$((total_fail + 1))
		ttm_log "igt: gem_wsim failed (log: $logdir/igt-wsim.log)"
		tail -n 20 "$logdir/igt-wsim.log" >&2
		;;
	esac
	for p in tgl dg2; do
		local what=acceptance list=()
		if [ "${TTM_IGT:-}" = gate ]; then
			what="CI gate"
			list=(-l "scripts/igt/ci-gate-$p.txt")
		fi
		ttm_log "igt: $what list on $p"
		scripts/igt-shim-run.sh -p "$p" -b build -t "${IGT_TIMEOUT:-120}" -o "$TTM_TOP/build-logs/igt-$p" \
			"${list[@]}" >"$logdir/igt-$p.log" 2>&1
		rc=$?
		if [ $rc -eq 77 ]; then
			ttm_log "igt: $p skipped: $(tail -n 1 "$logdir/igt-$p.log")"
			total_skip=$((total_skip + 1))
			continue
		fi
		grep -vE '^(pass|warn|dmesg-warn|skip) ' "$logdir/igt-$p.log" | sed "s/^/[igt-$p] /" >&2
		line=$(grep -E '^[0-9]+ pass, [0-9]+ fail, [0-9]+ skip, [0-9]+ crash$' "$logdir/igt-$p.log")
		if [ -z "$line" ]; then
			ttm_log "igt: $p printed no summary (exit $rc)"
			total_fail=$((total_fail + 1))
			continue
		fi
		local np nf ns nc nx
		read -r np nf ns nc <<<"$(sed -E 's/^([0-9]+) pass, ([0-9]+) fail, ([0-9]+) skip, ([0-9]+) crash$/\1 \2 \3 \4/' <<<"$line")"
		nx=$(sed -nE 's/^\(([0-9]+) of the failures are expected.*/\1/p' "$logdir/igt-$p.log")
		nx=${nx:-0}
		total_pass=$((total_pass + np))
		total_fail=$((total_fail + nf + nc - nx))
		total_skip=$((total_skip + ns + nx))
		# Exit 1 with every failure expected: an unexpected pass of a listed one.
		[ $rc -eq 0 ] || [ $((nf + nc - nx)) -gt 0 ] || total_fail=$((total_fail + 1))
		ttm_log "igt: $p: $line ($nx of them expected fork-stopped)"
	done
}

# run_gates: each static gate is one test; its findings go to the log and stderr.
run_gates() {
	local g
	for g in check-kernel-doc check-cppcheck check-clang-tidy check-format check-include-graph; do
		if scripts/$g.sh >"$logdir/$g.log" 2>&1; then
			total_pass=$((total_pass + 1))
			ttm_log "gates: $g: $(tail -n 1 "$logdir/$g.log")"
		else
			total_fail=$((total_fail + 1))
			ttm_log "gates: $g failed (log: $logdir/$g.log)"
			tail -n 40 "$logdir/$g.log" >&2
		fi
	done
}

for r in $runs; do
	case $r in
	gates)
		run_gates
		;;
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
			"-Dwerror=$werror -Db_sanitize=thread -Db_lundef=false -Dbuildtype=debug -Doptimization=1 -Dww_lockdep=true" \
			tsan
		;;
	fuzz)
		# Same options as the asan tree, so it is reused, not rebuilt.
		CC=clang build_and_run fuzz build-asan \
			"-Dwerror=$werror -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug -Doptimization=1" \
			fuzz
		;;
	igt)
		run_igt
		;;
	*)
		echo "unknown run '$r'" >&2
		exit 2
		;;
	esac
done

echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
