#!/bin/bash
# SPDX-License-Identifier: MIT
# compare-run-test.sh GEN COMPARE CASE: ttm-compare --run on two stand-in
# build trees whose one benchmark (bench/benchmark-gen) writes a synthetic
# results file through gen-results: 1% noise per sample, a latency scaled by
# the side's factor.
#   aa        both sides 1.0: exit 0, nothing regressed
#   slower    B 1.05: exit 1, both latencies REGRESSED by about 5%
#   faster    B 0.95: exit 0, improved
#   order     the rounds alternate which side runs first
#   badside   a side that is neither a build tree nor a commit: exit 2
#   failing   B's benchmark fails: exit 2 naming the round
#   few       B 1.05 over 5 rounds: too few for a 99% interval, exit 0,
#             nothing flagged and a message saying 8 are needed
set -u
gen=$1 cmp=$2 case=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/ttm-compare-run-test.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# tree NAME SCALE [fail]: a build tree whose benchmark-gen runs gen-results.
tree() {
	local t="$dir/$1"
	mkdir -p "$t/bench"
	printf 'build bench/benchmark-gen: phony\n' >"$t/build.ninja"
	cat >"$t/bench/benchmark-gen" <<EOF
#!/bin/bash
out=
while [ \$# -gt 0 ]; do
	case \$1 in --out) out=\$2; shift ;; esac
	shift
done
[ -n "\$out" ] || exit 2
[ "${3:-}" = fail ] && { echo "benchmark-gen: simulated failure" >&2; exit 1; }
echo "$1" >>"$dir/order"
n=\$(wc -l <"$dir/order")
exec "$gen" "\$out/gen.json" "$2" "\$n" refscale=1
EOF
	chmod +x "$t/bench/benchmark-gen"
}

want=0
case $case in
aa) tree A 1.0; tree B 1.0 ;;
slower) tree A 1.0; tree B 1.05; want=1 ;;
faster) tree A 1.0; tree B 0.95 ;;
order) tree A 1.0; tree B 1.0 ;;
badside) tree A 1.0; want=2 ;;
failing) tree A 1.0; tree B 1.0 fail; want=2 ;;
few) tree A 1.0; tree B 1.05 ;;
*) fail "unknown case $case" ;;
esac
rounds=8
[ "$case" = few ] && rounds=5
side_b="$dir/B"
[ "$case" = badside ] && side_b="$dir/no-such-tree-or-commit"

out=$(cd "$dir" && TTM_HISTORY_DB="$dir/history.sqlite" "$cmp" --run "$dir/A" "$side_b" --bench gen --rounds "$rounds" --out "$dir/out" \
	--args "--quick" 2>"$dir/err")
rc=$?
echo "$out"
cat "$dir/err" >&2
[ $rc -eq $want ] || fail "exit $rc, wanted $want"

case $case in
aa)
	grep -q '2 metrics compared over 8 paired rounds: 0 regressed, 0 improved' <<<"$out" ||
		fail "A/A was not judged clean"
	# Both sides' sixteen files went into the results history.
	hist="$(dirname "$cmp")/ttm-history"
	if [ -x "$hist" ]; then
		"$hist" --db "$dir/history.sqlite" runs | grep -q '^16 runs$' ||
			fail "the runs were not recorded in the history"
	fi
	;;
slower)
	[ "$(grep -c 'REGRESSED' <<<"$out")" -eq 2 ] || fail "not both latencies regressed"
	grep 'gen.latency' <<<"$out" | grep -Eq '\+ *[45]\.[0-9]+%' ||
		fail "the latency's change is not about +5%"
	;;
faster)
	[ "$(grep -c ' improved$' <<<"$out")" -eq 2 ] || fail "not both latencies improved"
	;;
order)
	# A B, then B A, then A B ...: the first side alternates per round.
	[ "$(paste -sd' ' "$dir/order")" = "A B B A A B B A A B B A A B B A" ] ||
		fail "rounds ran in the order $(paste -sd' ' "$dir/order")"
	;;
badside)
	grep -q 'neither a build directory nor a commit' "$dir/err" || fail "no message for a bad side"
	;;
failing)
	grep -q 'round 0 of side B failed' "$dir/err" || fail "the failed round is not named"
	;;
few)
	grep -q '5 paired rounds cannot show a change at 99% confidence (it takes 8)' "$dir/err" ||
		fail "no message about too few rounds"
	grep -q ' 0 regressed, 0 improved' <<<"$out" || fail "a change was flagged from 5 rounds"
	;;
esac
echo "ok: $case"
