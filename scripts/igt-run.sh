#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# igt-run.sh [-o OUTDIR] [-t TIMEOUT_S] PROGRAM... : run igt-protocol stress
# programs and leave OUTDIR/results.json (default OUTDIR: ./igt-results).
#
# With igt_runner installed (Debian's intel-gpu-tools) the programs are
# linked into OUTDIR/tests, a testlist is generated from --show-testlist and
# igt_runner writes its own results.json. Without it every subtest runs
# directly (prog --run-subtest NAME, under timeout) and results.json is
# written in igt_runner's shape from the programs' own output:
#   {"name", "uname", "tests": {"igt@prog@sub": {"result", "out", "err",
#    "time": {"start", "end"}}}, "totals": {"root": {...}},
#    "runtimes": {"igt@prog": {"time": {...}}}}
# Dynamic subtests become "igt@prog@sub@dyn" entries, as igt_runner does.
# Exit status: 0 when nothing failed, crashed or timed out, else 1.
set -u
out=./igt-results
tmo=600
while getopts :o:t: opt; do
	case $opt in
	o) out=$OPTARG ;;
	t) tmo=$OPTARG ;;
	*) echo "usage: $0 [-o OUTDIR] [-t TIMEOUT_S] PROGRAM..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-o OUTDIR] [-t TIMEOUT_S] PROGRAM..." >&2; exit 2; }
case $tmo in '' | *[!0-9]* | 0) echo "$0: -t takes a positive number of seconds, not '$tmo'" >&2; exit 2 ;; esac
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 2; }
mkdir -p "$out" || exit 2

if command -v igt_runner >/dev/null; then
	rm -rf "$out/tests" "$out/run"
	mkdir -p "$out/tests"
	: >"$out/testlist"
	for p in "$@"; do
		ln -s "$(readlink -f "$p")" "$out/tests/$(basename "$p")" || exit 2
		"$p" --show-testlist >>"$out/testlist" || exit 2
	done
	igt_runner --overwrite --per-test-timeout "$tmo" --test-list "$out/testlist" \
		"$out/tests" "$out/run"
	rc=$?
	[ -f "$out/run/results.json" ] && cp "$out/run/results.json" "$out/results.json"
	exit $rc
fi

# igt result words from the harness's result words.
map() {
	case $1 in
	SUCCESS) echo pass ;; SKIP) echo skip ;; FAIL) echo fail ;; CRASH) echo crash ;;
	*) echo "$1" ;;
	esac
}

tests=$(mktemp) runtimes=$(mktemp)
trap 'rm -f "$tests" "$runtimes" "$tests.o" "$tests.e" "$tests.n" "$runtimes.n"' EXIT
echo '{}' >"$tests"
echo '{}' >"$runtimes"
t_run0=$(date +%s.%N)
for p in "$@"; do
	prog=$(basename "$p")
	subs=$("$p" --list-subtests) || { echo "$0: $p --list-subtests failed" >&2; exit 2; }
	p_t0=$(date +%s.%N)
	for st in $subs; do
		t0=$(date +%s.%N)
		timeout -k 10 "$tmo" "$p" --run-subtest "$st" >"$tests.o" 2>"$tests.e"
		rc=$?
		t1=$(date +%s.%N)
		line=$(grep -m1 -E "^Subtest $st: [A-Z]+ \(" "$tests.o")
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			res=timeout
		elif [ "$rc" -eq 112 ]; then
			res=abort
		elif [ -n "$line" ]; then
			res=$(map "$(sed -E 's/^Subtest [^:]*: ([A-Z]+) .*/\1/' <<<"$line")")
		else
			res=crash
		fi
		jq --arg k "igt@$prog@$st" --arg r "$res" --rawfile o "$tests.o" \
			--rawfile e "$tests.e" --argjson s "$t0" --argjson f "$t1" \
			'.[$k] = {result: $r, out: $o, err: $e,
			          time: {__type__: "TimeAttribute", start: $s, end: $f}}' \
			"$tests" >"$tests.n" && mv "$tests.n" "$tests"
		# Dynamic subtests: their own entries, output shared with the parent.
		sed -nE 's/^Dynamic subtest ([^:]*): ([A-Z]+) \(([0-9.]+)s\)$/\1 \2 \3/p' "$tests.o" |
		while read -r dn dr dt; do
			jq --arg k "igt@$prog@$st@$dn" --arg r "$(map "$dr")" \
				--rawfile o "$tests.o" --argjson d "$dt" \
				'.[$k] = {result: $r, out: $o, err: "",
				          time: {__type__: "TimeAttribute", start: 0, end: $d}}' \
				"$tests" >"$tests.n" && mv "$tests.n" "$tests"
		done
	done
	p_t1=$(date +%s.%N)
	jq --arg k "igt@$prog" --argjson d "$(awk -v a="$p_t0" -v b="$p_t1" 'BEGIN { print b - a }')" \
		'.[$k] = {time: {__type__: "TimeAttribute", start: 0, end: $d}}' \
		"$runtimes" >"$runtimes.n" && mv "$runtimes.n" "$runtimes"
done
t_run1=$(date +%s.%N)

jq -n --slurpfile t "$tests" --slurpfile r "$runtimes" --arg u "$(uname -a)" \
	--argjson s "$t_run0" --argjson f "$t_run1" '
	def totals: reduce (.[] | .result) as $x
		({pass: 0, fail: 0, skip: 0, crash: 0, timeout: 0, abort: 0,
		  incomplete: 0, warn: 0, notrun: 0, "dmesg-warn": 0, "dmesg-fail": 0};
		 .[$x] += 1);
	{__type__: "TestrunResult", results_version: 10, name: "results", uname: $u,
	 time_elapsed: {__type__: "TimeAttribute", start: $s, end: $f},
	 tests: $t[0], runtimes: $r[0],
	 totals: {"": ($t[0] | totals), root: ($t[0] | totals)}}' >"$out/results.json" || exit 2
jq -e '[.tests[] | .result] | all(. == "pass" or . == "skip")' "$out/results.json" >/dev/null
