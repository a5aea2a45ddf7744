#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How sensitive is the paired comparison? Plant known slowdowns and count how
# often ttm-compare --run flags them, and how often it flags a build against
# itself.
#
#   ./scripts/sensitivity.sh [options]
#     -n RUNS           paired comparisons per kind (default 20)
#     -r ROUNDS         paired rounds per comparison (default 10)
#     -k KINDS          any of aa,validate,fence,evict (default all four)
#     -o DIR            where results and summary.txt go (default
#                       sensitivity-<date>); must not exist yet
#     --base DIR        the build to compare (default: a release build of
#                       this checkout under $XDG_CACHE_HOME/ttm-sens/base)
#     --cpus LIST       passed to ttm-compare --run (pin both sides)
#
# Kinds (each a build that differs from the base by one delay knob, sized
# from the base's own figure measured first, so the planted change is the
# stated percentage of what this machine measures):
#   aa        the base against itself over validate-hit and fence: every
#             metric flagged is a false positive
#   validate  -Dvalidate_delay_ns: 3% of validate.hit_cycle (reserve +
#             validate + unreserve of an idle BO in place)
#   fence     -Dfence_delay_ns: 3% of fence.create_signal_put
#   evict     -Devict_delay_ns: 5% of the time per eviction of
#             evict.cyclic.ws200 (one eviction per validate)
# A planted slowdown is detected when its headline metric is REGRESSED.
# summary.txt has one line per kind: runs, flagged, the median measured
# change and the median smallest detectable change. Exit: 0 done (whatever
# the counts), 2 bad usage or a build that failed.
set -u
runs=20 rounds=10 kinds=aa,validate,fence,evict out= base= cpus=
usage() {
	sed -n '6,15p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	-n) [ $# -ge 2 ] || usage; runs=$2; shift ;;
	-r) [ $# -ge 2 ] || usage; rounds=$2; shift ;;
	-k) [ $# -ge 2 ] || usage; kinds=$2; shift ;;
	-o) [ $# -ge 2 ] || usage; out=$2; shift ;;
	--base) [ $# -ge 2 ] || usage; base=$2; shift ;;
	--cpus) [ $# -ge 2 ] || usage; cpus=$2; shift ;;
	-h | --help) usage ;;
	*) echo "sensitivity.sh: unknown argument $1" >&2; usage ;;
	esac
	shift
done
[[ $runs =~ ^[0-9]+$ ]] && [ "$runs" -ge 1 ] && [ "$runs" -le 1000 ] ||
	{ echo "sensitivity.sh: -n takes a number from 1 to 1000" >&2; exit 2; }
[[ $rounds =~ ^[0-9]+$ ]] && [ "$rounds" -ge 3 ] && [ "$rounds" -le 1000 ] ||
	{ echo "sensitivity.sh: -r takes a number from 3 to 1000" >&2; exit 2; }
for k in ${kinds//,/ }; do
	case $k in aa | validate | fence | evict) ;;
	*) echo "sensitivity.sh: unknown kind '$k' (aa, validate, fence, evict)" >&2; exit 2 ;;
	esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ttm-sens
out=${out:-sensitivity-$(date +%Y%m%d-%H%M%S)}
[ -e "$out" ] && { echo "sensitivity.sh: $out exists; results are never written over" >&2; exit 2; }
mkdir -p "$out" "$cache" || exit 2
out=$(cd "$out" && pwd)

# A release build of this checkout with extra -D options, in $cache/NAME.
build() {
	local name=$1
	shift
	local dir=$cache/$name
	if [ ! -f "$dir/build.ninja" ]; then
		(cd "$top" && muon-meson setup -Dbuildtype=release -Db_ndebug=true "$@" "$dir") \
			>"$out/configure-$name.log" 2>&1 ||
			{ echo "sensitivity.sh: configuring $name failed, see $out/configure-$name.log" >&2; return 2; }
	fi
	ninja -C "$dir" bench/ttm-compare bench/benchmark-validate-hit bench/benchmark-fence \
		bench/benchmark-evict >"$out/build-$name.log" 2>&1 ||
		{ echo "sensitivity.sh: building $name failed, see $out/build-$name.log" >&2; return 2; }
	echo "$dir"
}

if [ -z "$base" ]; then
	base=$(build base) || exit 2
fi
[ -x "$base/bench/ttm-compare" ] || { echo "sensitivity.sh: $base has no bench/ttm-compare" >&2; exit 2; }
base=$(cd "$base" && pwd)
compare=$out/ttm-compare
cp "$base/bench/ttm-compare" "$compare" || exit 2
pin=()
[ -n "$cpus" ] && pin=(--cpus "$cpus")

# The median of METRIC in a results file of BENCH run once on the base.
base_figure() {
	local bench=$1 metric=$2 file=$out/base-$1.json
	[ -f "$file" ] || "$base/bench/benchmark-$bench" --quick --out "$file" >/dev/null 2>&1 ||
		{ echo "sensitivity.sh: benchmark-$bench failed on the base" >&2; return 2; }
	tr -d '\n' <"$file" | grep -o "\"name\": *\"$metric\"[^}]*\"median\": *[0-9.e+-]*" |
		sed 's/.*"median": *//' | head -n 1
}

# One paired comparison; prints "verdict change mde" of METRIC (or of the
# worst metric for the A/A kind: "flagged/compared").
compare_once() {
	local a=$1 b=$2 bench=$3 metric=$4 dir=$5
	"$compare" --run "$a" "$b" --bench "$bench" --rounds "$rounds" --out "$dir" "${pin[@]}" \
		>"$dir.txt" 2>"$dir.err"
	local rc=$?
	[ $rc -le 1 ] || { echo "error - -"; return; }
	if [ "$metric" = '*' ]; then
		awk '/ (REGRESSED|improved|within noise)$/ { n++; if (/REGRESSED$/) f++ }
		     END { printf "%d/%d - -\n", f, n }' "$dir.txt"
	else
		# The metric is a field of its own; the benchmark's label before it may
		# hold spaces (the eviction benchmark's does), so it is searched for.
		awk -v m="$metric" '{ k = 0; for (i = 1; i <= NF; i++) if ($i == m) { k = i; break } }
		     k && / (REGRESSED|improved|within noise)$/ {
			v = $NF == "noise" ? "noise" : $NF
			c = ""; for (i = k + 1; i <= NF; i++) if ($i ~ /%$/) { c = $i; break }
			print v, c, $(NF - (v == "noise" ? 2 : 1)); found = 1 }
		     END { if (!found) print "missing - -" }' "$dir.txt"
	fi
}

# Median of a column of numbers with a trailing % (or none).
median() {
	tr -d '%+' | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'
}

summary=$out/summary.txt
printf '%-9s %9s %5s %8s %14s %14s\n' kind delay_ns runs flagged median_change median_mde >"$summary"

for k in ${kinds//,/ }; do
	case $k in
	aa) bench=validate-hit,fence metric='*' delay=- ;;
	validate)
		bench=validate-hit metric=validate.hit_cycle
		f=$(base_figure validate-hit validate.hit_cycle) || exit 2
		delay=$(awk -v f="$f" 'BEGIN { printf "%.2f", f * 0.03 }') ;;
	fence)
		bench=fence metric=fence.create_signal_put
		f=$(base_figure fence fence.create_signal_put) || exit 2
		delay=$(awk -v f="$f" 'BEGIN { printf "%.2f", f * 0.03 }') ;;
	evict)
		bench=evict metric=evict.cyclic.ws200.throughput
		f=$(base_figure evict evict.cyclic.ws200.validate_rate) || exit 2
		delay=$(awk -v f="$f" 'BEGIN { printf "%.2f", 0.05 * 1e9 / f }') ;;
	esac
	[ -n "$delay" ] || { echo "sensitivity.sh: no base figure for $k" >&2; exit 2; }
	if [ "$k" = aa ]; then
		b=$base
	else
		b=$(build "$k-$delay" "-D${k}_delay_ns=$delay") || exit 2
	fi
	res=$out/$k.txt
	: >"$res"
	for i in $(seq 1 "$runs"); do
		echo "sensitivity.sh: $k run $i/$runs (delay $delay ns)" >&2
		compare_once "$base" "$b" "$bench" "$metric" "$out/$k-$i" >>"$res"
	done
	if [ "$k" = aa ]; then
		flagged=$(awk -F'[/ ]' '{ f += $1; n += $2 } END { printf "%d/%d", f, n }' "$res")
		printf '%-9s %9s %5s %8s %14s %14s\n' "$k" - "$runs" "$flagged" - - >>"$summary"
	else
		flagged=$(awk '$1 == "REGRESSED" { f++ } END { print f + 0 }' "$res")
		chg=$(awk '$2 != "-" { print $2 }' "$res" | median)
		mde=$(awk '$3 != "-" { print $3 }' "$res" | median)
		printf '%-9s %9s %5s %8s %13s%% %13s%%\n' "$k" "$delay" "$runs" "$flagged" "$chg" "$mde" >>"$summary"
	fi
done
cat "$summary"
echo "sensitivity.sh: per-run tables in $out"
