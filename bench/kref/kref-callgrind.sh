#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per iteration of every benchmark-kref case, ours and the
# kernel's, counted by valgrind's callgrind (deterministic where the timings
# of a shared machine are not).
#
#   bench/kref/kref-callgrind.sh BENCHMARK-KREF [--only TEXT] [--json FILE]
#
# benchmark-kref --callgrind runs each case's loop once per side with the
# instrumentation on and dumps the counters after each loop
# ("kref <case> <side> <n>"); this script reads the dumps, prints one row
# per case (instructions per iteration, ours, kernel, ratio) and with
# --json writes them as {"case": {"ours": N, "kernel": N, "vs_kernel": R}}.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 BENCHMARK-KREF [--only TEXT] [--json FILE]" >&2; exit 2; }
exe=$1
shift
only=() json=
while [ $# -gt 0 ]; do
	case $1 in
	--only) only=(--only "$2"); shift ;;
	--json) json=$2; shift ;;
	*) echo "$0: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
command -v valgrind >/dev/null || { echo "$0: valgrind is not installed" >&2; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
valgrind --tool=callgrind --instr-atstart=no --dump-instr=no --callgrind-out-file="$dir/cg.out" \
	"$exe" --callgrind --quick "${only[@]}" --out "$dir" >"$dir/log" 2>&1 ||
	{ tail -n 20 "$dir/log" >&2; exit 1; }
# Each dump: a "desc: Trigger: Client Request: kref CASE SIDE N" line and
# a "summary:" (or "totals:") line with the instructions since the last zero.
for f in "$dir"/cg.out*; do
	awk '/^desc: Trigger: Client Request: kref / { c = $6; s = $7; n = $8 }
	     /^(summary|totals):/ { if (c != "") { print c, s, n, $2; c = "" } }' "$f"
done >"$dir/rows"
awk -v json="$json" '
	{ ir[$1 " " $2] = $4 / $3; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
	END {
		printf "%-34s %14s %14s %9s\n", "case (instructions/iteration)", "ours", "kernel", "ours/kern"
		if (json != "") printf "{" >json
		for (i = 1; i <= n; i++) {
			c = order[i]; o = ir[c " ours"]; k = ir[c " kernel"]
			r = k > 0 ? o / k : 0
			printf "%-34s %14.1f %14.1f %9.3f\n", c, o, k, r
			if (json != "")
				printf "%s\"%s\": {\"ours\": %.1f, \"kernel\": %.1f, \"vs_kernel\": %.4f}", \
					(i > 1 ? ", " : ""), c, o, k, r >json
		}
		if (json != "") printf "}\n" >json
	}' "$dir/rows"
