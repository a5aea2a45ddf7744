#!/bin/sh
# SPDX-License-Identifier: MIT
# compare-test.sh GEN COMPARE CASE: generate two results files for CASE, run
# ttm-compare on them and check its exit status (identical 0, slower 1,
# malformed 2, schema 2, ...).
set -u
gen=$1 cmp=$2 case=$3 opts= base= new=
dir=$(mktemp -d "${TMPDIR:-/tmp}/ttm-compare-test.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
case $case in
rounds | roundsslower) base=rounds ;;
floormoved | floorsteady) base=floor=1 ;;
esac
# shellcheck disable=SC2086 # $base is one word or none
"$gen" "$dir/base.json" 1.0 1 $base || exit 1
case $case in
identical) "$gen" "$dir/new.json" 1.0 1 || exit 1; want=0 ;;
noise)     "$gen" "$dir/new.json" 1.0 2 || exit 1; want=0 ;;
slower)    "$gen" "$dir/new.json" 1.2 2 refscale=1 || exit 1; want=1 ;;
drift)     "$gen" "$dir/new.json" 1.3 2 || exit 1; want=0 ;;
absdrift)  "$gen" "$dir/new.json" 1.3 2 || exit 1; want=0; opts=--absolute ;;
nodrift)   "$gen" "$dir/new.json" 1.3 2 || exit 1; want=1; opts="--absolute --no-drift" ;;
driftslower) "$gen" "$dir/new.json" 1.6 2 refscale=1.2 || exit 1; want=1 ;;
faster)    "$gen" "$dir/new.json" 0.8 2 || exit 1; want=0 ;;
malformed) "$gen" "$dir/new.json" 1.0 1 malformed || exit 1; want=2 ;;
schema)    "$gen" "$dir/new.json" 1.0 1 schema || exit 1; want=2 ;;
missing)   want=2 ;;
ratios)    "$gen" "$dir/new.json" 1.2 2 othermachine || exit 1; want=0; opts=--ratios ;;
othermachine) "$gen" "$dir/new.json" 1.0 2 othermachine || exit 1; want=0 ;;
csv)       "$gen" "$dir/new.json" 1.2 2 refscale=1 || exit 1; want=1; opts=--csv ;;
threshold) "$gen" "$dir/new.json" 1.2 2 refscale=1 || exit 1; want=0; opts=--threshold=50 ;;
badoption) "$gen" "$dir/new.json" 1.0 1 || exit 1; want=2; opts=--threshold=x ;;
# A histogram 10% slower: its order-statistics interval alone calls that a
# regression; measured in rounds that move by 15% over a run, it is noise.
norounds)  "$gen" "$dir/new.json" 1.0 2 histscale=1.1 || exit 1; want=1 ;;
rounds)    "$gen" "$dir/new.json" 1.0 2 rounds histscale=1.1 || exit 1; want=0 ;;
roundsslower) "$gen" "$dir/new.json" 1.0 2 rounds histscale=2 || exit 1; want=1 ;;
# Both latencies 30% slower on a machine whose references did not move; their
# platform floor (gen.floor) 30% slower too: the floor moved them, not the
# code. With the floor where it was, the same change is a regression.
floormoved) "$gen" "$dir/new.json" 1.3 2 refscale=1 floor=1.3 || exit 1; want=0 ;;
floorsteady) "$gen" "$dir/new.json" 1.3 2 refscale=1 floor=1 || exit 1; want=1 ;;
# NEW is two programs' files: gen 15% slower on a machine whose references
# did not move, and another program whose references read the machine 40%
# slower. Unsteady within the run: the 15% cannot be told from that.
# Steady (the other program's references as gen's): it is a regression.
unsteady | steady)
	mkdir "$dir/new" || exit 1
	new=$dir/new
	"$gen" "$dir/new/a.json" 1.15 2 refscale=1 || exit 1
	if [ "$case" = unsteady ]; then
		"$gen" "$dir/new/b.json" 1.0 3 refscale=1.4 bench=other || exit 1; want=0
	else
		"$gen" "$dir/new/b.json" 1.0 3 refscale=1 bench=other || exit 1; want=1
	fi ;;
*) echo "unknown case $case"; exit 1 ;;
esac
# shellcheck disable=SC2086 # $opts is split into its words on purpose
"$cmp" $opts "$dir/base.json" "${new:-$dir/new.json}" >"$dir/out" 2>"$dir/err"
got=$?
cat "$dir/out" "$dir/err"
if [ "$got" -ne "$want" ]; then
	echo "ttm-compare exited $got, expected $want"
	exit 1
fi
if [ "$want" -eq 2 ] && [ "$(wc -l <"$dir/err")" -ne 1 ]; then
	echo "expected exactly one error line"
	exit 1
fi
case $case in
othermachine|ratios)
	grep -q "machine ids differ" "$dir/err" || { echo "no machine id warning"; exit 1; } ;;
floormoved)
	grep -q "^gen.floor .*platform$" "$dir/out" || { echo "gen.floor not shown as platform"; exit 1; } ;;
unsteady)
	grep -q "within a run" "$dir/out" || { echo "no unsteadiness in the drift line"; exit 1; } ;;
csv)
	head -n1 "$dir/out" | grep -q "^benchmark_metric,unit," || { echo "no CSV header"; exit 1; }
	grep -q ",REGRESSED$" "$dir/out" || { echo "no CSV verdict"; exit 1; } ;;
esac
exit 0
