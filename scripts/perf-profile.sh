#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Profile one benchmark with perf: the ttm USDT probes and a call-graph profile.
#
#   scripts/perf-profile.sh [--out DIR] BENCH [benchmark args...]
#
# BENCH is a path or a program name looked up in build-bench/bench (then the
# newest build-*/bench). Into DIR (default results/runs/<UTC>-perf-<name>/):
#   probes.txt        the sdt_ttm:* probes found in the binary and how often
#                     each fired during one run (perf stat on the uprobes)
#   perf.data         perf record --call-graph dwarf of a second run
#   report.txt        perf report --stdio --no-children of it
#   folded.txt        folded stacks ("frame;frame;leaf count", root first),
#                     ready for flamegraph.pl or speedscope
#   *.json, bench.txt the benchmark's own results and summary
# Exit status: the benchmark's, 77 when perf cannot be used here (not
# installed, perf_event_paranoid, seccomp in a container: said on stderr),
# 2 on bad usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

usage() {
	echo "usage: $0 [--out DIR] BENCH [benchmark args...]" >&2
	exit 2
}
out=
while [ $# -gt 0 ]; do
	case $1 in
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--out=*) out=${1#--out=}; shift ;;
	-h|--help) usage ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
bench=$1
shift

if [ ! -x "$bench" ]; then
	for d in "$top/build-bench/bench" $(ls -1dt "$top"/build-*/bench 2>/dev/null); do
		if [ -x "$d/$bench" ]; then
			bench=$d/$bench
			break
		fi
	done
fi
[ -x "$bench" ] || { echo "perf-profile.sh: $bench: no such benchmark program (build it first)" >&2; exit 2; }
bench=$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench")
name=$(basename "$bench")

skip() {
	echo "perf-profile.sh: SKIP: $*" >&2
	exit 77
}
command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown)
# A trial run says more than the sysctl: containers refuse perf_event_open
# through seccomp whatever the sysctl is.
trial=$(mktemp)
event=cycles
if ! perf record -q -o "$trial" -e cycles -- true >/dev/null 2>&1; then
	# No hardware counters (many VMs): the software clock still samples.
	event=cpu-clock
	if ! perf record -q -o "$trial" -e cpu-clock -- true >/dev/null 2>&1; then
		rm -f "$trial"
		skip "perf_event_open is not permitted here (perf_event_paranoid=$paranoid, uid $(id -u));" \
			"run as root or: sysctl kernel.perf_event_paranoid=1"
	fi
fi
rm -f "$trial"

stamp=$(date -u +%Y%m%dT%H%M%SZ)
[ -n "$out" ] || out="$top/results/runs/$stamp-perf-$name"
mkdir -p "$out" || exit 1
echo "perf-profile.sh: $name -> $out (perf_event_paranoid=$paranoid)" >&2

# -- 1. the USDT probes: add them as uprobes, count each during one run.
probes=()
if readelf -n "$bench" 2>/dev/null | grep -q 'Provider: ttm'; then
	perf buildid-cache --add "$bench" >/dev/null 2>&1
	# Probes another run left behind would make the add fail: start clean.
	perf probe -q -d 'sdt_ttm:*' >/dev/null 2>&1
	if perf probe -q -x "$bench" -a 'sdt_ttm:*' >"$out/probe-add.log" 2>&1; then
		trap 'perf probe -q -d "sdt_ttm:*" >/dev/null 2>&1' EXIT
		mapfile -t probes < <(perf probe -l 2>/dev/null | awk '$1 ~ /^sdt_ttm:/ { print $1 }' | sort -u)
	else
		echo "perf-profile.sh: perf probe could not add the sdt_ttm probes (see $out/probe-add.log)" >&2
	fi
else
	echo "perf-profile.sh: $name has no ttm USDT probes (built without sys/sdt.h?)" >&2
fi
{
	echo "# ttm USDT probes of $bench, hits during one run of: $name $*"
	if [ ${#probes[@]} -gt 0 ]; then
		evs=$(IFS=,; echo "${probes[*]}")
		perf stat -x, -e "$evs" -o "$out/probe-stat.csv" -- "$bench" "$@" --out "$out" \
			>"$out/bench-stat.txt" 2>"$out/bench-stat.err"
		echo "# exit status of the counted run: $?"
		awk -F, '!/^#/ && NF >= 3 { printf "%-28s %14s hits\n", $3, $1 }' "$out/probe-stat.csv"
	else
		echo "(no probes)"
	fi
} >"$out/probes.txt"
cat "$out/probes.txt" >&2

# -- 2. the call-graph profile. DWARF unwinding because an optimised build
# has no frame pointers; a modest frequency keeps perf.data to megabytes.
perf record -q --call-graph dwarf,16384 -F 499 -e "$event" -o "$out/perf.data" -- \
	"$bench" "$@" --out "$out" >"$out/bench.txt" 2>"$out/bench.err"
rc=$?
if [ ! -s "$out/perf.data" ]; then
	echo "perf-profile.sh: perf record wrote nothing (exit $rc), see $out/bench.err" >&2
	exit 1
fi
perf report -i "$out/perf.data" --stdio --no-children --percent-limit 0.5 \
	>"$out/report.txt" 2>/dev/null

# perf script prints a header line per sample, then one frame per line, leaf
# first, then a blank line. Fold each stack root first, count equal stacks.
perf script -i "$out/perf.data" -F comm,ip,sym 2>/dev/null | awk '
	function flush(   s, i) {
		if (n == 0 && comm == "")
			return
		s = comm
		for (i = n; i >= 1; i--)
			s = s ";" f[i]
		count[s]++
		n = 0
		comm = ""
	}
	/^[^ \t]/ { flush(); comm = $1; next }
	/^[ \t]*$/ { flush(); next }
	{
		sym = $2
		for (i = 3; i <= NF && $i !~ /^\(/; i++)
			sym = sym " " $i
		sub(/\+0x[0-9a-f]+$/, "", sym)
		if (sym == "" || sym == "[unknown]")
			sym = "[unknown]"
		f[++n] = sym
	}
	END { flush(); for (s in count) print s, count[s] }' | sort >"$out/folded.txt"

# perf may have fallen back from cycles to cpu-clock: name what it recorded.
recorded=$(sed -n "s/^# Samples: .* of event '\(.*\)'/\1/p" "$out/report.txt" | head -n 1)
echo "perf-profile.sh: wrote $out/report.txt ($(wc -l <"$out/report.txt") lines, event" \
	"${recorded:-$event}), $out/folded.txt ($(wc -l <"$out/folded.txt") stacks)" >&2
exit $rc
