#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: install what is missing, build an optimised tree, run the
# benchmark suite, keep everything under results/runs/<timestamp>/, print one
# summary table, render the plots and compare with this machine's baseline.
#
#   ./scripts/run-benchmarks.sh               full budget (under 10 min on 2 cores)
#   ./scripts/run-benchmarks.sh --quick       smoke run (CI, under 1 min after the build)
#   ./scripts/run-benchmarks.sh --no-faults   build with fault points compiled out
#   ./scripts/run-benchmarks.sh --gate        exit 1 when ttm-compare finds a regression
#   ./scripts/run-benchmarks.sh --build DIR   use (and build) DIR instead of build-bench
#   ./scripts/run-benchmarks.sh --baseline DIR  compare against DIR instead of
#                                             results/baselines/<machine id>/
#   ./scripts/run-benchmarks.sh --backend B   pass --backend=B (sim, the default:
#                                             the i915 driver on the simulated GPU;
#                                             core: validate/evict on the TTM core
#                                             through the mock driver; hw)
#   ./scripts/run-benchmarks.sh --verbose     print the full table of every metric
#                                             and the whole comparison (by default
#                                             they go to summary.txt / compare.txt
#                                             and the screen gets, per benchmark,
#                                             the metrics that have a target)
#
# Output: a progress line per benchmark while the suite runs, then one block per
# benchmark (its status and its headline metrics: value, reference ratio, target,
# pass/MISS), the comparison's regressions, and one closing verdict line.
#
# Exit status: 0; 1 when a benchmark failed (or --gate and a regression);
# 2 on bad usage. A benchmark that skips (exit 77, e.g. no hardware) is listed
# as skipped, not failed.
set -u
. "$(dirname "$0")/lib.sh"
cd "$TTM_TOP" || exit 1

quick=
faults=true
gate=false
dir=build-bench
baseline=
backend=sim
verbose=false
usage() {
	echo "usage: $0 [--quick] [--no-faults] [--gate] [--verbose] [--build DIR] [--baseline DIR]" \
		"[--backend sim|core|hw]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=--quick ;;
	--no-faults) faults=false ;;
	--gate) gate=true ;;
	--verbose) verbose=true ;;
	--build) [ $# -ge 2 ] || usage; dir=$2; shift ;;
	--baseline) [ $# -ge 2 ] || usage; baseline=$2; shift ;;
	--backend)
		[ $# -ge 2 ] || usage
		case $2 in sim | core | hw) backend=$2 ;; *) usage ;; esac
		shift
		;;
	*) usage ;;
	esac
	shift
done

ttm_ensure_packages || exit 1
# The kernel reference of benchmark-kref (bench/kref) is built from Debian's
# Linux 6.12 source; without it that one benchmark is not built.
ttm_ensure_packages linux-source-6.12 || ttm_log "linux-source-6.12 not installed: benchmark-kref is not built"
# A tree configured before the source was there has no benchmark-kref target.
if [ -e /usr/src/linux-source-6.12.tar.xz ] || [ -d /usr/src/linux-source-6.12 ]; then
	[ -f "$dir/build.ninja" ] && ! grep -q benchmark-kref "$dir/build.ninja" && rm -f "$dir/.ttm-options"
fi
# In CI a warning fails the build, as in the test trees (GCC -O3 warns of
# things the debug trees never show).
werror=false
[ -n "${CI:-}" ] && werror=true
ttm_configure "$dir" -Dbuildtype=release -Db_ndebug=true "-Dfault_inject=$faults" "-Dwerror=$werror" || exit 1
# The suite in a fixed order: the four of issue 7, then the supporting ones.
progs=(benchmark-validate benchmark-evict benchmark-fence benchmark-fence-gpu benchmark-pagelimit benchmark-probe
	benchmark-range-alloc benchmark-map-fault benchmark-kref)
# Where a program is built (benchmark-kref only exists when the kernel source did at setup).
prog_path() {
	case $1 in
	benchmark-kref) echo bench/kref/$1 ;;
	*) echo bench/$1 ;;
	esac
}
# Only our targets: a half-written file elsewhere in the tree must not stop the run.
targets=(bench/ttm-compare bench/ttm-results-csv bench/ttm-history)
for p in "${progs[@]}"; do
	if [ "$p" = benchmark-kref ] && ! grep -q "bench/kref/benchmark-kref:" "$dir/build.ninja"; then
		continue
	fi
	targets+=("$(prog_path "$p")")
done
ttm_log "building $dir (${#targets[@]} targets)"
ninja -C "$dir" "${targets[@]}" >"$dir/.bench-build.log" 2>&1 || {
	tail -n 60 "$dir/.bench-build.log" >&2
	exit 1
}

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out="results/runs/$stamp"
part="$out.partial"
mkdir -p "$part" || exit 1
rc=0
t_start=$(date +%s)
# The load when the run starts: a baseline is only worth taking on a quiet box.
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A status
i=0
for name in "${progs[@]}"; do
	i=$((i + 1))
	p="$dir/$(prog_path "$name")"
	if [ ! -x "$p" ]; then
		status[$name]="not built"
		continue
	fi
	ttm_log "[$i/${#progs[@]}] $name ${quick:-full budget}, $(($(date +%s) - t_start)) s into the run"
	args=($quick)
	# Programs on the shared harness write a JSON results file too.
	if "$p" --help 2>/dev/null | grep -q -- '--out'; then
		args+=(--out "$part" "--backend=$backend")
	fi
	t0=$(date +%s)
	"$p" "${args[@]}" >"$part/$name.txt" 2>"$part/$name.err"
	e=$?
	case $e in
	0) status[$name]="ok ($(($(date +%s) - t0)) s)" ;;
	77) status[$name]="skipped: $(grep -m1 SKIP "$part/$name.err" || echo 'exit 77')" ;;
	*)
		status[$name]="FAILED (exit $e, see $out/$name.err)"
		rc=1
		;;
	esac
done
{
	echo "commit:   $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
	echo "kernel:   $(uname -r)"
	echo "cpu:      $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "cores:    $(nproc)"
	echo "faults:   $faults"
	echo "mode:     ${quick:-full}"
	echo "backend:  $backend"
	echo "load:     $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
	echo "elapsed:  $(($(date +%s) - t_start)) s"
} >"$part/machine.txt"
# Only a finished run gets its final name.
mv "$part" "$out"

# table [--targets] FILE...: one table over results files (--targets: only
# the metrics that have a target, the headline figures).
table() {
	local only=false f
	[ "${1:-}" = --targets ] && { only=true; shift; }
	printf '%-56s %12s %-9s %-20s %11s %-12s %s\n' metric value unit reference ratio target result
	for f in "$@"; do
		[ -e "$f" ] || continue
		jq -r --argjson only "$only" '.metrics[] | select(($only | not) or .target != null) | [
			.name,
			(if .stats == null then "-" else (.stats.median | tostring) end),
			.unit,
			(if .reference == null then "-" else .reference.name end),
			(if .reference == null or .reference.ratio == null then "-"
			 else (.reference.ratio | tostring) end),
			(if .target == null then "-" else "\(.target.cmp)\(.target.value)" end),
			(if .target == null or .target.pass == null then "-"
			 elif .target.pass then "pass" else "MISS" end)
		] | @tsv' "$f"
	done | awk -F'\t' '{
		v = $2; if (v != "-") v = sprintf("%.4g", v)
		r = $5; if (r != "-") r = sprintf("%.3g", r)
		t = $6; if (t != "-") { c = substr(t, 1, 2); t = c sprintf("%.4g", substr(t, 3)) }
		printf "%-56s %12s %-9s %-20s %11s %-12s %s\n", $1, v, $3, $4, r, t, $7 }'
}
table "$out"/*.json >"$out/summary.txt"
targets_met=$(grep -c ' pass$' "$out/summary.txt")
targets_missed=$(grep -c ' MISS$' "$out/summary.txt")

echo
echo "== TTM suite benchmarks ($stamp, results in $out) =="
if $verbose; then
	cat "$out/machine.txt"
else
	grep -E '^(commit|mode|backend|load|elapsed):' "$out/machine.txt" | tr -s ' ' | paste -sd';' |
		sed 's/;/; /g'
fi
echo
for name in "${progs[@]}"; do
	printf '  %-24s %s\n' "$name" "${status[$name]}"
done
if ! $verbose; then
	# One block per results file: its headline metrics.
	for f in "$out"/*.json; do
		[ -e "$f" ] || continue
		rows=$(table --targets "$f" | tail -n +2)
		n=$(jq '.metrics | length' "$f")
		echo
		if [ -n "$rows" ]; then
			printf '%s: %d of %d targets met (%d metrics in all)\n' "$(jq -r .benchmark "$f")" \
				"$(grep -c ' pass$' <<<"$rows")" "$(wc -l <<<"$rows")" "$n"
			printf '%s\n' "$rows" | sed 's/^/  /'
		else
			printf '%s: %d metrics, none with a target\n' "$(jq -r .benchmark "$f")" "$n"
		fi
	done
fi
if $verbose; then
	echo
	cat "$out/summary.txt"
fi
echo
echo "pass/miss: $targets_met targets met, $targets_missed missed (every metric: $out/summary.txt)"

# Baseline of this kind of machine, if one is committed.
mid=$(jq -r '.machine.id' "$out"/*.json 2>/dev/null | head -n 1)
[ -n "$baseline" ] || baseline="results/baselines/$mid"
base_arg=
cmp_verdict="no baseline for this machine"
if [ -n "$mid" ] && [ -d "$baseline" ] && ls "$baseline"/*.json >/dev/null 2>&1; then
	base_arg=$baseline
	echo
	echo "== against $baseline (ratio and value, intervals widened by the machine's drift) =="
	# The default verdict judges a metric with a same-run reference by its
	# ratio and its value (both must have regressed), one without by its
	# value, every interval widened by how far the references moved between
	# the runs: what other load on this shared machine does is not a
	# regression. The purely absolute comparison is kept beside for reading.
	"$dir/bench/ttm-compare" --absolute "$baseline" "$out" >"$out/compare-absolute.txt" 2>&1
	"$dir/bench/ttm-compare" "$baseline" "$out" >"$out/compare.txt" 2>"$out/compare.err"
	c=$?
	if $verbose; then
		cat "$out/compare.txt"
	else
		# Only what changed beyond the noise, and the tool's closing line.
		grep -E 'REGRESSED|improved' "$out/compare.txt" | head -n 40
		tail -n 1 "$out/compare.txt"
		echo "(every metric: $out/compare.txt)"
	fi
	head -n 3 "$out/compare.err"
	echo "(absolute figures: $(tail -n 1 "$out/compare-absolute.txt"); see $out/compare-absolute.txt)"
	case $c in
	0) cmp_verdict="no regression against $baseline" ;;
	1)
		cmp_verdict="$(grep -c REGRESSED "$out/compare.txt") metrics REGRESSED against $baseline"
		$gate && rc=1
		;;
	*) cmp_verdict="nothing comparable in $baseline (a --quick run against a full baseline has other parameters)" ;;
	esac
	echo "comparison: $cmp_verdict"
else
	echo
	echo "no baseline for machine ${mid:-?} (add one: cp $out/*.json results/baselines/${mid:-<id>}/)"
fi

TTM_RESULTS_CSV="$dir/bench/ttm-results-csv" TTM_COMPARE="$dir/bench/ttm-compare" \
	./scripts/plot.sh "$out" $base_arg >"$out/plots.log" 2>&1
plot_rc=$?
if $verbose; then
	echo
	sed 's/^/  /' "$out/plots.log"
fi

# Every run goes into the results history (bench/ttm-history; SQLite here,
# TTM_HISTORY_PG for a farm's PostgreSQL server).
history=
if [ -x "$dir/bench/ttm-history" ]; then
	if "$dir/bench/ttm-history" import --source main-job "$out" >"$out/history.log" 2>&1; then
		history="; recorded in the history (${TTM_HISTORY_PG:+PostgreSQL}${TTM_HISTORY_PG:-${TTM_HISTORY_DB:-results/history.sqlite}})"
	else
		history="; history import FAILED (see $out/history.log)"
	fi
fi

failed=0
for name in "${progs[@]}"; do
	case ${status[$name]} in ok*) ;; skipped*) ;; *) failed=$((failed + 1)) ;; esac
done
[ $plot_rc -eq 0 ] && plots="plots in $out/plots" || plots="plots FAILED (see $out/plots.log)"
echo
echo "verdict: $((${#progs[@]} - failed)) of ${#progs[@]} benchmarks ran;" \
	"$targets_met targets met, $targets_missed missed; $cmp_verdict; $plots$history"
exit $rc
