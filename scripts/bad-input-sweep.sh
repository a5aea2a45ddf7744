#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bad-input-sweep.sh BUILD_DIR : every program we build, and the scripts that
# take arguments, fed bad options, bad numbers (overflow, negative, nan, inf,
# trailing text, empty), bad paths (missing directory, a directory or a device
# where a file is expected, a file where a directory is expected) and bad
# results files (not JSON, truncated, too large, NaN, impossible values,
# nothing usable). Cases come from the tables below.
#
# A rejected input must give a non-zero exit (the program's documented code:
# 2 for the benchmarks and tools, 79 for igt-protocol programs) and exactly
# one line on stderr, in time and without a signal or a sanitizer report; an
# accepted one (--help, a good file) must exit 0 with output. Prints every
# violation and the counts; exit 1 on any violation, 2 on bad usage.
#
# Cases run concurrently, SWEEP_JOBS at a time (default: 4 per CPU; each one
# mostly waits for a program to start and refuse), each in its own output
# files; violations are printed in case order at the end. SWEEP_TIMEOUT is
# the per-case limit in seconds (default 20).
set -u
[ $# -eq 1 ] && [ -d "$1" ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
B=$(cd "$1" && pwd) || exit 2
SRC=$(cd "$(dirname "$0")/.." && pwd) || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bad-input-sweep.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cwd" "$tmp/outdir" "$tmp/emptydir" || exit 1
cd "$tmp/cwd" || exit 1

cases=0
violations=0
running=0
T=${SWEEP_TIMEOUT:-20}
J=${SWEEP_JOBS:-$(($(nproc 2>/dev/null || echo 2) * 4))}
case $T:$J in
*[!0-9:]* | :* | *: | 0:* | *:0) echo "$0: SWEEP_TIMEOUT and SWEEP_JOBS take whole numbers >= 1" >&2; exit 2 ;;
esac
mkdir "$tmp/cases" || exit 1

# run WANT NAME CMD... : WANT is "ok" (exit 0, some stdout), a number (that exit
# status, one line on stderr) or "fail" (any non-zero status but 77, one line).
# Starts the case in the background (at most $J at once); its verdict goes to
# $tmp/cases/N.
run() {
	cases=$((cases + 1))
	if [ "$running" -ge "$J" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_case "$tmp/cases/$cases" "$@" &
	running=$((running + 1))
}

# Waits for every case started so far (before a check that needs their effects).
run_wait() {
	wait
	running=0
}

# Only builtins besides the program and timeout: on a loaded machine every
# extra process per case costs more than the program itself.
run_case() {
	local res=$1 want=$2 name=$3 rc why= lines l san=false
	local -a errl
	shift 3
	timeout -k 2 "$T" "$@" >"$res.out" 2>"$res.err" </dev/null
	rc=$?
	mapfile -t errl <"$res.err"
	lines=${#errl[@]}
	for l in "${errl[@]}"; do
		[[ $l =~ Sanitizer|runtime\ error: ]] && san=true
	done
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		why="hang (killed after ${T}s)"
	elif [ "$rc" -gt 128 ]; then
		why="signal $((rc - 128))"
	elif $san; then
		why="sanitizer report"
	elif [ "$want" = ok ]; then
		if [ "$rc" -ne 0 ]; then why="exit $rc, want 0"
		elif [ ! -s "$res.out" ]; then why="no output"; fi
	elif [ "$rc" -eq 0 ]; then
		why="silent success (exit 0)"
	elif [ "$want" != fail ] && [ "$rc" -ne "$want" ]; then
		why="exit $rc, want $want"
	elif [ "$want" = fail ] && [ "$rc" -eq 77 ]; then
		why="skipped (77) instead of refusing"
	elif [ "$lines" -ne 1 ]; then
		why="$lines lines on stderr, want one"
	fi
	if [ -n "$why" ]; then
		{
			echo "VIOLATION [$name]: $why"
			printf '    $'
			printf ' %q' "$@"
			echo
			for l in "${errl[@]:0:3}"; do echo "    ! $l"; done
		} >"$res.violation"
	fi
}

# ---------------------------------------------------------------- tables

# Values no count, size, or repetition option may accept.
bad_ints=("" "-1" "abc" "3abc" " 3" "3 " "+3" "nan" "inf" "1.5" "0x10" "1e3"
	"4294967296" "18446744073709551616" "99999999999999999999999999")
# Values no duration (seconds) may accept.
bad_secs=("" "-1" "0" "abc" "1s" " 1" "nan" "NaN" "inf" "-inf" "1e999" "1e-999" "0x10"
	"99999999999")
# Values no seed may accept.
bad_seeds=("" "-1" "abc" "1x" " 1" "18446744073709551616" "1.5")
# --cpus lists that are malformed or name CPUs this machine does not have.
bad_cpus=("" "999999" "0-" "-1" "1-0" "0,0" "0,,1" "a" "0-999999" "4294967296" "0;1")
bad_backends=("" "gpu" "SIM" "sim,hw" "hw2")
# TTM_FAULTS strings that do not parse.
bad_faults=("nosuchpoint:nth=1" "all" "all:" "all:nth=abc" "all:nth=-5" "all:probability=101"
	"all:nosuchkey=1" "seed=abc" "all:nth=1;bogus:times=1" "all:nth=99999999999999999999")
# Options nothing accepts.
bad_opts=("--no-such-option" "-x" "positional" "--" "-" "--=1")

# ------------------------------------------------------- results files

gen=$B/bench/tests/gen-results
good=$tmp/good.json
"$gen" "$good" 1.0 1 >/dev/null 2>&1 || { echo "$0: cannot generate a results file" >&2; exit 1; }
head_doc='{"schema": "ttm-bench-results", "schema_version": 1, "benchmark": "x", "machine": {"id": "m"}, '
doc() { printf '%s%s\n' "$head_doc" "$2" >"$tmp/bad-$1.json"; }
printf 'not json at all\n' >"$tmp/bad-text.json"
: >"$tmp/bad-empty.json"
head -c 300 "$good" >"$tmp/bad-truncated.json"
{ cat "$good"; printf 'trailing garbage\n'; } >"$tmp/bad-trailing.json"
{ cat "$good"; printf '{}\n'; } >"$tmp/bad-twoobjects.json"
printf '[1, 2, 3]\n' >"$tmp/bad-array.json"
printf '"a string"\n' >"$tmp/bad-string.json"
head -c 4096 /dev/urandom >"$tmp/bad-binary.json"
printf '%*s' 5000 '' | tr ' ' '[' >"$tmp/bad-deep.json"
truncate -s 65M "$tmp/bad-huge.json"
doc nan '"metrics": [{"name": "m", "unit": "ns", "direction": "lower_is_better", "samples": [NaN]}]}'
doc inf '"metrics": [{"name": "m", "unit": "ns", "direction": "lower_is_better", "samples": [Infinity]}]}'
doc overflow '"metrics": [{"name": "m", "unit": "ns", "direction": "lower_is_better", "samples": [1e999]}]}'
doc negative '"metrics": [{"name": "m", "unit": "ns", "direction": "lower_is_better", "samples": [-1e300]}]}'
doc negrate '"metrics": [{"name": "m", "unit": "GB/s", "direction": "higher_is_better", "stats": {"median": -2}}]}'
doc nanstats '"metrics": [{"name": "m", "unit": "ns", "direction": "lower_is_better", "stats": {"median": NaN}}]}'
doc allnull '"metrics": [{"name": "m", "unit": "ns", "direction": "lower_is_better", "stats": null}, {"name": "n", "unit": "ns", "direction": "lower_is_better", "samples": []}]}'
doc nometrics '"metrics": []}'
doc metricsobj '"metrics": {}}'
doc metricnum '"metrics": [5]}'
doc samplestr '"metrics": [{"name": "m", "unit": "ns", "direction": "lower_is_better", "samples": ["12"]}]}'
doc samplesobj '"metrics": [{"name": "m", "unit": "ns", "direction": "lower_is_better", "samples": {"a": 1}}]}'
doc statsstr '"metrics": [{"name": "m", "unit": "ns", "direction": "lower_is_better", "stats": "fast"}]}'
printf '{"schema": "other", "schema_version": 1}\n' >"$tmp/bad-schema.json"
sed 's/"schema_version": 1/"schema_version": 2/' "$good" >"$tmp/bad-version.json"
printf 'garbage\n' >"$tmp/plainfile"
mkfifo "$tmp/fifo"
# Device nodes of our own: a program that wrote or renamed over one would
# replace only this copy, never /dev/null itself (run as root, it would).
# Without the right to mknod (not root) those cases are left out.
devs=()
mknod -m 666 "$tmp/fakenull" c 1 3 2>/dev/null && devs+=("$tmp/fakenull")
mknod -m 444 "$tmp/fakezero" c 1 5 2>/dev/null && devs+=("$tmp/fakezero")
mknod -m 444 "$tmp/fakeurandom" c 1 9 2>/dev/null && devs+=("$tmp/fakeurandom")
bad_results=("$tmp"/bad-*.json "${devs[@]}" "$tmp/fifo" "$tmp/emptydir"
	"$tmp/missing.json" "$tmp/plainfile/x.json")

# ---------------------------------------------------- the harness benchmarks

# Programs on the shared harness (bench.h): the common options and their own.
harness=()
for p in "$B"/bench/benchmark-*; do
	[ -x "$p" ] && [ -f "$p" ] || continue
	"$p" --help 2>/dev/null | grep -q -- '--out' && harness+=("$p")
done
[ ${#harness[@]} -ge 5 ] || { echo "$0: found only ${#harness[@]} harness benchmarks in $B" >&2; exit 1; }

# They share one parser: the first gets every table in full, every other one
# a sample of each table (so each program is still seen to use the parser).
first=
for p in "${harness[@]}"; do
	n=$(basename "$p")
	if [ -z "$first" ]; then
		first=$p
		ints=("${bad_ints[@]}") secs=("${bad_secs[@]}") seeds=("${bad_seeds[@]}")
		cpus=("${bad_cpus[@]}") backends=("${bad_backends[@]}") faults=("${bad_faults[@]}")
		opts=("${bad_opts[@]}") vals=("" "zzz" "-1" "3abc" "nan" "1e999" "99999999999999999999999")
		outs=("" "${devs[@]}" "$tmp/plainfile" "$good" "$tmp/missing-dir/x.json" "$tmp/plainfile/x.json"
			/proc/x.json "$tmp/fifo")
		run 2 "$n --reps 0" "$p" --reps 0
		run 2 "$n --threads 0" "$p" --threads 0
		run 2 "$n --threads 257" "$p" --threads 257
		run 2 "$n --reps 100001" "$p" --reps 100001
		run 2 "$n --threads 2 --cpus 0" "$p" --threads 2 --cpus 0
	else
		ints=("3abc" "-1" "4294967296") secs=("nan" "0x10" "-1") seeds=("-1" " 1")
		cpus=("999999" "0,0") backends=("gpu") faults=("nosuchpoint:nth=1")
		opts=("--no-such-option" "positional") vals=("-1" "3abc" "99999999999999999999999")
		outs=("${devs[@]:0:1}" "$good" "$tmp/missing-dir/x.json")
	fi
	run ok "$n --help" "$p" --help
	for o in "${opts[@]}"; do run 2 "$n $o" "$p" "$o"; done
	for o in reps threads duration out; do
		run 2 "$n --$o (no value)" "$p" "--$o"
	done
	run 2 "$n --quick=1" "$p" --quick=1
	for v in "${ints[@]}"; do
		run 2 "$n --reps '$v'" "$p" --reps "$v"
		run 2 "$n --threads '$v'" "$p" --threads "$v"
		run 2 "$n --warmup=$v" "$p" "--warmup=$v"
	done
	for v in "${secs[@]}"; do run 2 "$n --duration '$v'" "$p" --duration "$v"; done
	for v in "${seeds[@]}"; do run 2 "$n --seed '$v'" "$p" --seed "$v"; done
	for v in "${cpus[@]}"; do run 2 "$n --cpus '$v'" "$p" --cpus "$v"; done
	for v in "${backends[@]}"; do run 2 "$n --backend '$v'" "$p" --backend "$v"; done
	# Outputs that cannot take a results file: found before measuring.
	for v in "${outs[@]}"; do
		run fail "$n --out '$v'" "$p" --quick --out "$v"
	done
	for f in "${faults[@]}"; do
		run 2 "$n TTM_FAULTS='$f'" env "TTM_FAULTS=$f" "$p" --quick --out "$tmp/outdir"
	done
	# Its own options (from --help), with values none of them accepts.
	for o in $("$p" --help | awk '$1 ~ /^--/ && NF > 2 && $2 ~ /^[A-Z|]+$/ { print substr($1, 3) }' |
		grep -vxE 'reps|warmup|duration|out|cpus|threads|backend|seed|device'); do
		for v in "${vals[@]}"; do
			run 2 "$n --$o '$v'" "$p" "--$o" "$v"
		done
	done
done
run_wait
[ -f "$tmp/plainfile" ] && [ "$(cat "$tmp/plainfile")" = garbage ] ||
	{ echo "VIOLATION [--out]: an existing file was replaced"; violations=$((violations + 1)); }
[ -z "$(ls -A "$tmp/outdir")" ] ||
	{ echo "VIOLATION [--out]: a refused run left files: $(ls "$tmp/outdir")"; violations=$((violations + 1)); }
for d in "${devs[@]}"; do
	[ -c "$d" ] || { echo "VIOLATION [--out]: the device node $d was replaced"; violations=$((violations + 1)); }
done

# ------------------------------------------ the other benchmark programs

for p in "$B"/bench/benchmark-exec-nop "$B"/bench/benchmark-blit-copy; do
	[ -x "$p" ] || continue
	n=$(basename "$p")
	run ok "$n --help" "$p" --help
	for o in "${bad_opts[@]}"; do run 2 "$n $o" "$p" "$o"; done
	run 2 "$n --reps (no value)" "$p" --reps
	for v in "${bad_ints[@]}" 0; do run 2 "$n --reps '$v'" "$p" --reps "$v"; done
done
p=$B/bench/benchmark-exec-nop
if [ -x "$p" ]; then
	for v in "${bad_ints[@]}" 0; do run 2 "exec-nop --duration-ms '$v'" "$p" --duration-ms "$v"; done
	for v in "${bad_backends[@]}"; do run 2 "exec-nop --backend '$v'" "$p" --backend "$v"; done
fi
p=$B/bench/benchmark-blit-copy
if [ -x "$p" ]; then
	for v in "${bad_ints[@]}" 0 257; do run 2 "blit-copy --size-mib '$v'" "$p" --size-mib "$v"; done
fi

# ------------------------------------------------ ttm-compare, ttm-results-csv

cmp=$B/bench/ttm-compare
csv=$B/bench/ttm-results-csv
run ok "ttm-compare good good" "$cmp" "$good" "$good"
run ok "ttm-compare --help" "$cmp" --help
run ok "ttm-results-csv good" sh -c '"$1" "$2" "$3" && ls "$2"' sh "$csv" "$tmp/csv-good" "$good"
run ok "ttm-results-csv --help" "$csv" --help
for f in "${bad_results[@]}"; do
	n=${f#"$tmp"/}
	run 2 "ttm-compare BASE=$n" "$cmp" "$f" "$good"
	run 2 "ttm-compare NEW=$n" "$cmp" "$good" "$f"
	run 2 "ttm-results-csv $n" "$csv" "$tmp/csv-out" "$f"
done
for o in "${bad_opts[@]}"; do
	[ "$o" = positional ] && continue
	run 2 "ttm-compare $o" "$cmp" "$o" "$good" "$good"
done
run 2 "ttm-compare (no input)" "$cmp"
run 2 "ttm-compare (one input)" "$cmp" "$good"
run 2 "ttm-compare (three inputs)" "$cmp" "$good" "$good" "$good"
for v in "" "-1" "abc" "nan" "inf" "5%" " 5" "1e999"; do
	run 2 "ttm-compare --threshold '$v'" "$cmp" --threshold "$v" "$good" "$good"
done
for v in "${bad_seeds[@]}"; do run 2 "ttm-compare --seed '$v'" "$cmp" --seed "$v" "$good" "$good"; done
run 2 "ttm-results-csv (no input)" "$csv" "$tmp/csv-out"
run 2 "ttm-results-csv good+emptydir" "$csv" "$tmp/csv-out" "$good" "$tmp/emptydir"
run 2 "ttm-results-csv -x" "$csv" -x "$good"
for d in "${devs[@]:0:1}" "$tmp/plainfile" "$tmp/plainfile/sub" /proc/csvout ""; do
	run 2 "ttm-results-csv OUTDIR=$d" "$csv" "$d" "$good"
done

# ------------------------------------------------ igt-protocol stress programs

first=
for p in "$B"/stress/*; do
	[ -x "$p" ] && [ -f "$p" ] || continue
	n=$(basename "$p")
	if [ -z "$first" ]; then
		first=$p
		secs=("${bad_secs[@]}") seeds=("${bad_seeds[@]}") faults=("${bad_faults[@]}")
	else
		secs=("nan" "0") seeds=("-1") faults=("nosuchpoint:nth=1" "all:nth=abc")
	fi
	run ok "$n --list-subtests" "$p" --list-subtests
	run ok "$n --help" "$p" --help
	for o in "${bad_opts[@]}"; do [ "$o" = "--" ] || run 79 "$n $o" "$p" "$o"; done
	run 79 "$n --run-subtest nosuch" "$p" --run-subtest no-such-subtest
	run 79 "$n --dynamic-subtest nosuch" "$p" --dynamic-subtest no-such-dynamic-subtest
	run 79 "$n --run-subtest (no value)" "$p" --run-subtest
	for v in "${secs[@]}"; do
		run 79 "$n --duration '$v'" "$p" --run-subtest no-such-subtest --duration "$v"
		run 79 "$n IGT_STRESS_DURATION='$v'" env "IGT_STRESS_DURATION=$v" "$p" \
			--run-subtest no-such-subtest
	done
	for v in "${seeds[@]}"; do
		run 79 "$n --seed '$v'" "$p" --seed "$v"
		run 79 "$n IGT_SEED='$v'" env "IGT_SEED=$v" "$p"
	done
	# The concurrency options: refused at parse time in every program.
	for o in clients threads waiters; do
		for v in 0 4097 abc -1 ''; do run 79 "$n --$o '$v'" "$p" "--$o" "$v"; done
	done
	for f in "${faults[@]}"; do run 79 "$n TTM_FAULTS='$f'" env "TTM_FAULTS=$f" "$p"; done
done

# Counts above a program's own bound: exit 79 for the whole run (also
# when the subtest, not the parser, finds it), never a skip or a start.
for c in "ttm_share reference-storm --clients 5" "ttm_evict_storm multi-client --clients 5" \
	"i915_exec_storm multi-client --clients 5" "i915_mmap_close close-fd-threads --threads 17" \
	"ttm_fuzz_threads basic --threads 17" "ttm_fence_storm many-waiters --waiters 1001"; do
	set -- $c
	[ -x "$B/stress/$1" ] || continue
	run 79 "$1 --run-subtest $2 $3 $4" "$B/stress/$1" --run-subtest "$2" "$3" "$4"
done
for c in "i915_mmap_close TTM_MMAP_THREADS" "ttm_fuzz_threads TTM_FUZZ_THREADS"; do
	set -- $c
	[ -x "$B/stress/$1" ] || continue
	for v in 0 17 abc -1; do run 79 "$1 $2=$v" env "$2=$v" "$B/stress/$1"; done
done

# ------------------------------------------------------------- ttm-faults

p=$B/ttm/ttm-faults
if [ -x "$p" ]; then
	run ok "ttm-faults --help" "$p" --help
	run ok "ttm-faults --names" "$p" --names
	run ok "ttm-faults --check good" "$p" --check "all:nth=1;seed=5"
	for o in "${bad_opts[@]}"; do run 2 "ttm-faults $o" "$p" "$o"; done
	run 2 "ttm-faults --check (no value)" "$p" --check
	for f in "${bad_faults[@]}" ":" ";x" "all:nth=1,nth"; do
		run 2 "ttm-faults --check '$f'" "$p" --check "$f"
		run 2 "ttm-faults --list TTM_FAULTS='$f'" env "TTM_FAULTS=$f" "$p" --list
	done
	for v in "" abc -1 1x; do
		run 2 "ttm-faults TTM_FAULTS_SEED='$v'" env "TTM_FAULTS_SEED=$v" "$p" --list
	done
fi

# -------------------------------------------------------- i915-hw tools

# The real-hardware tools: without a device they may skip (77), but an
# option they do not know, a number out of range or a --device that is not
# a DRM node is bad input, refused in one line whatever the machine has.
hwdevs=("$tmp/missing-node" "$tmp/emptydir" "$tmp/plainfile" "$tmp/fifo" "${devs[@]:0:1}")
for p in "$B"/i915/hw/i915-hw-*; do
	[ -x "$p" ] && [ -f "$p" ] || continue
	n=$(basename "$p")
	run ok "$n --help" "$p" --help
	for o in "${bad_opts[@]}"; do [ "$o" = "--" ] || run fail "$n $o" "$p" "$o"; done
	run fail "$n --device (no value)" "$p" --device
	for d in "${hwdevs[@]}"; do
		run fail "$n --device ${d#"$tmp"/}" "$p" --device "$d"
		run fail "$n TTM_HW_DEVICE=${d#"$tmp"/}" env "TTM_HW_DEVICE=$d" "$p"
	done
	# Its own numeric options (from the usage line), with values none accepts.
	for o in $("$p" --help 2>&1 | grep -oE -- '--[a-z-]+ [0-9N]' | awk '{ print $1 }' | sort -u); do
		for v in "" "-1" "abc" "3abc" "0x10" "99999999999999999999"; do
			run fail "$n $o '$v'" "$p" "$o" "$v"
		done
	done
done

# ------------------------------------------------------------- fuzzers

# libFuzzer targets (clang trees with a libFuzzer runtime): flags they do
# not know and numbers that are not numbers are refused (libFuzzer itself
# would ignore them); a missing input is an error. run-fuzzer.sh checks
# its arguments before starting one.
rf=$SRC/fuzz/run-fuzzer.sh
for p in "$B"/fuzz/fuzz-*; do
	[ -x "$p" ] && [ -f "$p" ] || continue
	n=$(basename "$p")
	corpus=$SRC/fuzz/corpus/${n#fuzz-}
	run fail "$n -no_such_flag=1" "$p" -no_such_flag=1 -runs=1
	for v in "" "abc" "3abc" "1e3" "0x10" "99999999999999999999"; do
		run fail "$n -runs='$v'" "$p" "-runs=$v"
		run fail "$n -max_len='$v'" "$p" "-max_len=$v" -runs=1
	done
	run fail "$n -max_total_time=-5" "$p" -max_total_time=-5 -runs=1
	run fail "$n (missing input)" "$p" "$tmp/missing-input"
	[ -d "$corpus" ] || continue
	run fail "run-fuzzer.sh $n (no arguments)" "$rf"
	run fail "run-fuzzer.sh $n (missing seeds)" "$rf" "$p" "$tmp/missing-dir" "$tmp/fz" 1 1
	run fail "run-fuzzer.sh $n (not a fuzzer)" "$rf" "$tmp/plainfile" "$corpus" "$tmp/fz" 1 1
	run fail "run-fuzzer.sh $n (work is a file)" "$rf" "$p" "$corpus" "$tmp/plainfile" 1 1
	for v in "" "abc" "-1" "3abc" "0" "99999999999999999999"; do
		run fail "run-fuzzer.sh $n RUNS='$v'" "$rf" "$p" "$corpus" "$tmp/fz" "$v" 1
		run fail "run-fuzzer.sh $n SECONDS='$v'" "$rf" "$p" "$corpus" "$tmp/fz" 1 "$v"
	done
done

# ---------------------------------------------------------------- scripts

rep=$SRC/scripts/stress-report.sh
for f in "${bad_results[@]}" "$tmp/plainfile"; do
	run 2 "stress-report.sh ${f#"$tmp"/}" "$rep" "$f"
done
run 2 "stress-report.sh (no argument)" "$rep"
run 2 "stress-report.sh (two arguments)" "$rep" "$good" "$good"
for s in run-benchmarks.sh run-tests.sh fault-sweep.sh igt-run.sh perf-profile.sh plot.sh \
	check-probes.sh callgrind-range-alloc.sh stress-report.sh; do
	[ -x "$SRC/scripts/$s" ] || continue
	run 2 "$s --no-such-option" "$SRC/scripts/$s" --no-such-option
done
run 2 "run-benchmarks.sh --backend gpu" "$SRC/scripts/run-benchmarks.sh" --backend gpu
run 2 "run-benchmarks.sh --build (no value)" "$SRC/scripts/run-benchmarks.sh" --build
run 2 "igt-run.sh (no program)" "$SRC/scripts/igt-run.sh" -o "$tmp/igt-out"
run 2 "plot.sh (no directory)" "$SRC/scripts/plot.sh"
run 2 "callgrind-range-alloc.sh a b" "$SRC/scripts/callgrind-range-alloc.sh" a b

run_wait
for ((i = 1; i <= cases; i++)); do
	if [ -f "$tmp/cases/$i.violation" ]; then
		cat "$tmp/cases/$i.violation"
		violations=$((violations + 1))
	fi
done
echo "bad-input sweep: $cases cases, $violations violation(s)"
[ "$violations" -eq 0 ]
