#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fault-sweep.sh [-B BUILDDIR] [-s SEED] [-p RUNS] : run the fault-injection
# sweep and print the coverage note the stress issue asks for: for every
# fault point registered (ttm-faults --names for the core, the sweep's own
# "registered fault point:" lines for the simulated GPU), how many hits of the
# workload were swept (fail the 1st, 2nd, ... Nth hit), how many faults were
# injected and the result. Points registered but absent from the sweep's
# output, and points the workload never reaches, are listed as such.
#
# -B BUILDDIR  build tree with ttm/ttm-faults and stress/ttm_fault_sweep
#              (default: ./build)
# -s SEED      seed of the probabilistic runs (default 1; printed, reproducible)
# -p RUNS      repeat the probabilistic subtest RUNS times with SEED, SEED+1, ...
#              (default 1; 0 skips it)
# Exit status: 0 when every swept point passed and nothing was left out
# unexplained; 1 on a failed point or probabilistic run; 2 on usage errors.
set -u
build=./build seed=1 pruns=1
while getopts :B:s:p: opt; do
	case $opt in
	B) build=$OPTARG ;;
	s) seed=$OPTARG ;;
	p) pruns=$OPTARG ;;
	*) echo "usage: $0 [-B BUILDDIR] [-s SEED] [-p RUNS]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
# Numbers checked whole here: a bad one must not start a long sweep.
case $#:$seed:$pruns in
0:[0-9]*:[1-9]*) ;;
*) echo "usage: $0 [-B BUILDDIR] [-s SEED] [-p RUNS] (SEED >= 0, RUNS >= 1)" >&2; exit 2 ;;
esac
case $seed$pruns in *[!0-9]*) echo "$0: -s and -p take decimal integers" >&2; exit 2 ;; esac
faults=$build/ttm/ttm-faults sweep=$build/stress/ttm_fault_sweep
for x in "$faults" "$sweep"; do
	[ -x "$x" ] || { echo "$0: $x not built (ninja -C $build)" >&2; exit 2; }
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT

"$sweep" --run-subtest each-point >"$log" 2>&1
rc=$?
# Every point of the core registry (ttm-faults) and of the sweep binary's
# own (which adds the simulated GPU's, e.g. gpu_hang): a point either lists
# and the sweep does not run is reported, not silently dropped.
mapfile -t points < <({ "$faults" --names
	sed -nE 's/^registered fault point: ([A-Za-z0-9_]+)$/\1/p' "$log"; } | sort -u)
[ "${#points[@]}" -gt 0 ] || { echo "$0: no fault point registered" >&2; exit 2; }

fails=0 uncovered=0 total_hits=0 total_injected=0
printf '%-16s %-8s %10s %9s  %s\n' point result hits_swept injected note
for p in "${points[@]}"; do
	res=$(sed -nE "s/^Dynamic subtest $p: ([A-Z]+) .*/\1/p" "$log")
	hits=$(sed -nE "s/^$p: swept hits 1\.\.([0-9]+), .*/\1/p" "$log")
	inj=$(sed -nE "s/^$p: swept hits 1\.\.[0-9]+, ([0-9]+) faults injected.*/\1/p" "$log")
	note=
	case $res in
	SUCCESS) ;;
	SKIP) hits=0 inj=0 note="not reached by this workload" uncovered=$((uncovered + 1)) ;;
	"") res=MISSING hits=- inj=- note="registered but not swept" fails=$((fails + 1)) ;;
	*) fails=$((fails + 1)) ;;
	esac
	[ "$hits" != - ] && total_hits=$((total_hits + ${hits:-0}))
	[ "$inj" != - ] && total_injected=$((total_injected + ${inj:-0}))
	printf '%-16s %-8s %10s %9s  %s\n' "$p" "$res" "${hits:--}" "${inj:--}" "$note"
	# The per-part rows (core / uapi / i915 / softpin) under the point, and
	# what the softpin part's execbuffers did (refused, hung, ran on a retry).
	sed -nE -e "s/^  $p +([a-z0-9]+) +([0-9]+) hits swept +([0-9]+) faults injected$/    \1: \2 hits, \3 injected/p" \
		-e "s/^  $p +softpin execbuffer: (.*)$/      softpin execbuffer: \1/p" "$log"
done
echo "${#points[@]} points, $((${#points[@]} - uncovered - fails)) swept: $total_hits hits," \
	"$total_injected faults injected; $uncovered not reached, $fails failed or missing" \
	"(sweep exit $rc)"
if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ "$fails" -eq 0 ]; then
	fails=1
	tail -n 30 "$log" >&2
fi

for ((i = 0; i < pruns; i++)); do
	# One seed drives 20 workload runs (seed .. seed+19): step by 20 so runs do not overlap.
	s=$((seed + 20 * i))
	if "$sweep" --run-subtest probabilistic --seed "$s" >"$log" 2>&1; then
		echo "probabilistic seed $s: pass ($(sed -nE 's/^([0-9]+ faults injected over [0-9]+ runs).*/\1/p' "$log"))"
	else
		echo "probabilistic seed $s: FAIL (rerun: $sweep --run-subtest probabilistic --seed $s)"
		tail -n 30 "$log" >&2
		fails=$((fails + 1))
	fi
done
[ "$fails" -eq 0 ]
