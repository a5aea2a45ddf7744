#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: install what is missing, build an optimised tree, run every
# benchmark program that exists on the simulated device, keep their output
# under results/runs/<timestamp>/ and print one summary.
#
#   ./scripts/run-benchmarks.sh           full budget
#   ./scripts/run-benchmarks.sh --quick   a smoke run (CI)
#   ./scripts/run-benchmarks.sh --no-faults   build with fault points compiled out
set -u
. "$(dirname "$0")/lib.sh"
cd "$TTM_TOP" || exit 1

quick=
faults=true
for a in "$@"; do
	case $a in
	--quick) quick=--quick ;;
	--no-faults) faults=false ;;
	*)
		echo "usage: $0 [--quick] [--no-faults]" >&2
		exit 2
		;;
	esac
done

ttm_ensure_packages || exit 1
dir=build-bench
ttm_configure "$dir" -Dbuildtype=release -Db_ndebug=true "-Dfault_inject=$faults" || exit 1
ttm_build "$dir" || exit 1

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out="results/runs/$stamp"
mkdir -p "$out.partial"
rc=0
# Every benchmark program the build produced, in a stable order.
mapfile -t progs < <(find "$dir/bench" -maxdepth 1 -type f -name 'benchmark-*' -perm -u+x | sort)
if [ ${#progs[@]} -eq 0 ]; then
	echo "no benchmark programs were built" >&2
	exit 1
fi
for p in "${progs[@]}"; do
	name=$(basename "$p")
	ttm_log "running $name $quick"
	# Programs on the shared harness write a JSON results file too.
	args=($quick)
	if "$p" --help 2>/dev/null | grep -q -- '--out'; then
		args+=(--out "$out.partial")
	fi
	if ! "$p" "${args[@]}" >"$out.partial/$name.txt" 2>"$out.partial/$name.err"; then
		echo "$name failed (exit $?), see $out/$name.err" >&2
		rc=1
	fi
done
{
	echo "commit:  $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
	echo "kernel:  $(uname -r)"
	echo "cpu:     $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "cores:   $(nproc)"
	echo "faults:  $faults"
} >"$out.partial/machine.txt"
# Only a finished run gets its final name.
mv "$out.partial" "$out"
echo
echo "== TTM suite benchmarks ($stamp, results in $out) =="
cat "$out/machine.txt"
for f in "$out"/benchmark-*.txt; do
	echo
	echo "-- $(basename "$f" .txt)"
	cat "$f"
done
exit $rc
