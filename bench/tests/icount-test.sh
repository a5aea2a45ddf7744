#!/bin/bash
# SPDX-License-Identifier: MIT
# icount-test.sh GEN-ICOUNT COMPARE CASE: the per-metric instruction axis.
# Stand-in build trees whose benchmark-gen (gen-icount) runs round(1000 F)
# instructions per operation of gen.work, F read from the tree.
#   region    one run under callgrind: gen.work carries instructions per
#             operation within 1% of the planted count, and the file says
#             which tool counted
#   aa        ttm-compare --run A A' --instructions, F 1.0 both: exit 0,
#             gen.work "same"
#   plus1pct  B has F 1.01: exit 1, gen.work REGRESSED by about +1%
# Wall time is not judged here (--threshold 1000): a shared machine moves it
# by more than 1%; instruction counts do not move.
set -u
gen=$1 cmp=$2 case=$3
command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/ttm-icount-test.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# tree NAME FACTOR
tree() {
	mkdir -p "$dir/$1/bench"
	printf 'build bench/benchmark-gen: phony\n' >"$dir/$1/build.ninja"
	ln -s "$gen" "$dir/$1/bench/benchmark-gen"
	echo "$2" >"$dir/$1/icount-factor"
}

per_op() { # FILE: gen.work's instructions per operation
	jq -r '.metrics[] | select(.name == "gen.work") | .instructions.per_op // empty' "$1"
}

case $case in
region)
	tree A 1.0
	mkdir -p "$dir/out"
	TTM_BENCH_CALLGRIND_OUT="$dir/cg.out" valgrind --tool=callgrind \
		--callgrind-out-file="$dir/cg.out" "$dir/A/bench/benchmark-gen" --quick --reps 3 \
		--out "$dir/out" >"$dir/log" 2>&1 || { cat "$dir/log"; fail "run under callgrind failed"; }
	f=$(ls "$dir"/out/*.json) || fail "no results file"
	[ "$(jq -r .instruction_tool "$f")" = callgrind ] || fail "instruction_tool is not callgrind"
	v=$(per_op "$f")
	[ -n "$v" ] || fail "gen.work has no instructions"
	n=$(jq '.metrics[] | select(.name == "gen.work") | .instructions.samples | length' "$f")
	[ "$n" -ge 3 ] || fail "expected a sample per repetition, got $n"
	# 1000 additions: 3 or 4 instructions per step with the loop, depending
	# on the optimisation, and a few per call.
	awk -v v="$v" 'BEGIN { exit !(v >= 3000 && v <= 4050) }' ||
		fail "gen.work: $v instructions per operation, planted 1000 steps"
	# The count is the code's, not the machine's: every repetition agrees.
	jq -e '.metrics[] | select(.name == "gen.work") | .instructions.samples |
		(max - min) <= 0.001 * min' "$f" >/dev/null || fail "repetitions disagree on gen.work"
	echo "gen.work: $v instructions per operation"
	# Outside callgrind: no instruction axis, no tool named.
	"$dir/A/bench/benchmark-gen" --quick --reps 2 --out "$dir/plain.json" >/dev/null 2>&1 ||
		fail "plain run failed"
	[ -z "$(per_op "$dir/plain.json")" ] || fail "instructions recorded outside callgrind"
	[ "$(jq -r '.instruction_tool // "none"' "$dir/plain.json")" = none ] ||
		fail "instruction_tool recorded outside callgrind"
	exit 0
	;;
aa) tree A 1.0; tree B 1.0; want=0 ;;
plus1pct) tree A 1.0; tree B 1.01; want=1 ;;
*) fail "unknown case $case" ;;
esac

out=$(cd "$dir" && TTM_HISTORY_DB="$dir/history.sqlite" "$cmp" --run "$dir/A" "$dir/B" --bench gen \
	--rounds 3 --threshold 1000 --instructions --out "$dir/out" \
	--args "--quick" 2>"$dir/err")
rc=$?
echo "$out"
cat "$dir/err" >&2
[ "$rc" -eq "$want" ] || fail "exit $rc, want $want"
line=$(grep -E '^gen\.work ' <<<"$out" | tail -1)
[ -n "$line" ] || fail "no per-metric instruction row for gen.work"
case $case in
aa) grep -q ' same$' <<<"$line" || fail "A/A: $line" ;;
plus1pct)
	grep -q 'REGRESSED$' <<<"$line" || fail "+1%: $line"
	chg=$(awk '{ print $4 }' <<<"$line" | tr -d '%+')
	awk -v c="$chg" 'BEGIN { exit !(c >= 0.8 && c <= 1.2) }' || fail "+1% read as $chg%"
	;;
esac
exit 0
