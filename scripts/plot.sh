#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Render the benchmark plots of one results directory, as PNG and SVG.
#
#   scripts/plot.sh RESULTS_DIR [BASELINE_DIR]
#
# Reads every *.json in RESULTS_DIR through ttm-results-csv (the CSV view of
# results/README.md) and writes RESULTS_DIR/plots/<name>.{png,svg}:
#   validate-cdf-<case>      latency CDF per validate case, one curve per size
#   eviction-throughput      accessed bytes/s against working set / capacity
#   eviction-bytes-moved     bytes moved per validate, same axes
#   fence-threads            fence throughput against threads, per case
#   pagelimit-<series>       accounted pages, RSS and the cap against time
#   compare-ratios           current / baseline of each same-run ratio, coloured
#                            by ttm-compare's own verdict (the default one,
#                            ratio and value, that run-benchmarks.sh prints),
#                            with BASELINE_DIR
# A plot whose data is missing is skipped with one line saying so; that is
# not an error. Exit 2 on bad usage, 1 when gnuplot or the tools are missing.
#
# Tools are looked up as $TTM_RESULTS_CSV / $TTM_COMPARE, else in
# build-bench/bench, else in the newest build-*/bench that has them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

usage() {
	echo "usage: $0 RESULTS_DIR [BASELINE_DIR]" >&2
	exit 2
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
case $1 in -*) usage ;; esac
res=$1
base=${2:-}
[ -d "$res" ] || { echo "plot.sh: $res: not a directory" >&2; exit 2; }
[ -z "$base" ] || [ -d "$base" ] || { echo "plot.sh: $base: not a directory" >&2; exit 2; }

find_tool() { # name envvalue
	local name=$1 env=$2 d
	if [ -n "$env" ]; then
		echo "$env"
		return 0
	fi
	for d in "$top/build-bench/bench" $(ls -1dt "$top"/build-*/bench 2>/dev/null); do
		[ -x "$d/$name" ] && { echo "$d/$name"; return 0; }
	done
	return 1
}
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
csvtool=$(find_tool ttm-results-csv "${TTM_RESULTS_CSV:-}") ||
	{ echo "plot.sh: ttm-results-csv not built (ninja -C build-bench)" >&2; exit 1; }

out="$res/plots"
data="$out/data"
# The series files are appended to by the CSV export: start from nothing.
rm -rf "$data"
mkdir -p "$data" || exit 1

skip() { echo "plot.sh: skipping $1: $2" >&2; }

if ! ls "$res"/*.json >/dev/null 2>&1; then
	skip "every plot" "no results files in $res"
	exit 0
fi
"$csvtool" "$data" "$res" || exit 1

# pngcairo draws antialiased text; plain libgd png is the fallback.
if gnuplot -e 'set terminal' 2>&1 | grep -qw pngcairo; then
	pngterm="pngcairo size 1000,640 font ',10'"
else
	pngterm="png size 1000,640"
fi

# render SCRIPT NAME 'var=value; ...': one PNG and one SVG.
render() {
	local gp=$1 name=$2 vars=$3 ok=0
	gnuplot -e "$vars; dirname='$here'; term=\"$pngterm\"; outfile='$out/$name.png'" "$here/$gp" || ok=1
	gnuplot -e "$vars; dirname='$here'; term=\"svg size 1000,640 dynamic\"; outfile='$out/$name.svg'" \
		"$here/$gp" || ok=1
	if [ $ok -eq 0 ]; then
		echo "plot.sh: wrote $out/$name.png and .svg" >&2
	else
		echo "plot.sh: gnuplot failed on $name" >&2
	fi
}

# -- validate latency CDFs: one plot per case, one curve per size.
if [ -s "$data/validate-cdf.dat" ]; then
	awk -v d="$data" '
		/^#/ || NF < 3 { next }
		{ split($1, p, "."); c = p[2]; s = p[3]; f = d "/cdf-" c "-" s ".dat"
		  print $2, $3 > f; cases[c] = cases[c] " " f }
		END { for (c in cases) print c > (d "/cdf-cases.txt") }' "$data/validate-cdf.dat"
	while read -r c; do
		# Curves in size order (4k, 64k, 1m, ...), which sort -h understands.
		files=$(for f in "$data"/cdf-"$c"-*.dat; do
			sz=${f##*-}
			echo "${sz%.dat} $f"
		done | sort -h -k1,1 | cut -d' ' -f2- | tr '\n' ' ')
		render validate-cdf.gp "validate-cdf-$c" "files='$files'; vcase='$c'"
	done <"$data/cdf-cases.txt"
else
	skip "validate latency CDFs" "no validate.* histogram metrics"
fi

# -- eviction throughput and bytes moved against working set / capacity.
if [ -s "$data/eviction.dat" ]; then
	awk -v d="$data" '!/^#/ && NF >= 5 { print $2 / 100.0, $3, $4, $5 > (d "/evict-" $1 ".dat") }' \
		"$data/eviction.dat"
	files=$(ls -1 "$data"/evict-*.dat | tr '\n' ' ')
	render eviction.gp eviction-throughput "files='$files'; ylab='accessed GB/s (validate + use of the whole BO + wait)'"
else
	skip "eviction throughput" "no evict.<pattern>.ws<pct>.throughput metrics"
fi
if [ -s "$data/metrics.dat" ] &&
	awk '$3 ~ /^evict\.[^.]+\.ws[0-9]+\.bytes_moved_per_validate$/ { f = 1 } END { exit !f }' \
		"$data/metrics.dat"; then
	awk -v d="$data" '$3 ~ /^evict\.[^.]+\.ws[0-9]+\.bytes_moved_per_validate$/ {
		split($3, p, "."); ws = substr(p[3], 3)
		print ws / 100.0, $5, $6, $7 > (d "/moved-" p[2] ".dat") }' "$data/metrics.dat"
	files=$(ls -1 "$data"/moved-*.dat | tr '\n' ' ')
	render eviction.gp eviction-bytes-moved "files='$files'; ylab='bytes moved per validate'"
else
	skip "eviction bytes moved" "no evict.<pattern>.ws<pct>.bytes_moved_per_validate metrics"
fi

# -- fence throughput against threads.
if [ -s "$data/fence.dat" ]; then
	awk -v d="$data" '!/^#/ && NF >= 5 { print $2, $3, $4, $5 > (d "/fence-" $1 ".dat") }' \
		"$data/fence.dat"
	files=$(ls -1 "$data"/fence-*.dat | tr '\n' ' ')
	render fence.gp fence-threads "files='$files'"
else
	skip "fence throughput" "no fence.<case>.t<threads>.throughput metrics"
fi

# -- page-limit time series.
found=
for s in "$data"/series-pagelimit*.dat; do
	[ -s "$s" ] || continue
	found=1
	n=$(basename "$s" .dat)
	n=${n#series-}
	render pagelimit.gp "$n" "file='$s'"
done
[ -n "$found" ] || skip "page-limit curves" "no pagelimit* series"

# -- baseline against current, as ratios to the same-run references.
if [ -n "$base" ]; then
	cmp=$(find_tool ttm-compare "${TTM_COMPARE:-}") || cmp=
	if [ -z "$cmp" ]; then
		skip "baseline comparison" "ttm-compare not built"
	else
		"$cmp" --csv "$base" "$res" >"$data/compare.csv" 2>"$data/compare.err"
		rc=$?
		# 0: fine, 1: a regression (still worth drawing), 2: nothing comparable.
		if [ $rc -le 1 ] && [ "$(wc -l <"$data/compare.csv")" -gt 1 ]; then
			# "bench[params] metric",unit,basis,base,new,change_pct,ci_lo_pct,
			# ci_hi_pct,drift_pct,abs_change,verdict (the label is quoted and
			# may hold commas): keep the metric, new/base and the verdict.
			awk 'NR > 1 {
				i = index($0, "\","); key = substr($0, 2, i - 2); rest = substr($0, i + 2)
				split(rest, a, ","); j = index(key, "] "); m = j ? substr(key, j + 2) : key
				if (a[2] == "ratio" && a[3] + 0 != 0) print m, a[4] / a[3], (a[10] == "REGRESSED" ? 1 : (a[10] == "improved" ? 2 : 0))
			}' "$data/compare.csv" >"$data/compare.all.dat"
			# One bar per metric that has a target (the headline figures):
			# a bar for each of the ~170 ratios could not be read. Results
			# files without targets keep every ratio.
			jq -r '.metrics[] | select(.target != null) | .name' "$res"/*.json \
				2>/dev/null | sort -u >"$data/compare.targets"
			if [ -s "$data/compare.targets" ]; then
				awk 'NR == FNR { t[$1] = 1; next } ($1 in t)' "$data/compare.targets" \
					"$data/compare.all.dat" >"$data/compare.dat"
			else
				cp "$data/compare.all.dat" "$data/compare.dat"
			fi
			if [ -s "$data/compare.dat" ]; then
				render compare.gp compare-ratios "file='$data/compare.dat'"
			else
				skip "baseline comparison" "no metric with a ratio in common"
			fi
		else
			skip "baseline comparison" "$(head -n 1 "$data/compare.err")"
		fi
	fi
fi
exit 0
