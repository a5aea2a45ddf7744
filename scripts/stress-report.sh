#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stress-report.sh RESULTS : one-page summary of a stress run, one row per
# (dynamic) subtest: result, duration, and the figures the subtest reported
# with igt_report_checks() ("checks: operations=N bytes_verified=N
# faults_injected=N"; the last such line of a subtest wins, '-' when none).
#
# RESULTS is a results.json from scripts/igt-run.sh (or igt_runner), or a
# directory of logs holding the stdout of stress programs (*.log, *.out,
# *.txt), parsed from their "Starting subtest:" / "Subtest X: R (Ts)" lines.
set -u
[ $# -eq 1 ] || { echo "usage: $0 RESULTS.json|LOGDIR" >&2; exit 2; }
src=$1

# rows on stdin: name result seconds ops bytes faults (tab separated)
print_table() {
	awk -F'\t' '
	{ n++; name[n] = $1; res[n] = $2; dur[n] = $3; ops[n] = $4; byt[n] = $5; flt[n] = $6
	  cnt[$2]++; if (length($1) > w) w = length($1) }
	END {
		if (w < 7) w = 7
		printf "%-" w "s  %-8s %10s %14s %16s %8s\n", "subtest", "result", "time(s)",
			"operations", "bytes_verified", "faults"
		for (i = 1; i <= n; i++)
			printf "%-" w "s  %-8s %10s %14s %16s %8s\n", name[i], res[i], dur[i],
				ops[i], byt[i], flt[i]
		s = ""
		for (r in cnt) s = s sprintf("%s%s=%d", s == "" ? "" : " ", r, cnt[r])
		printf "\n%d subtests: %s\n", n, s
	}'
}

# checks fields from a text (stdin): "ops bytes faults" or "- - -"
checks_of() {
	sed -nE 's/^checks: operations=([0-9]+) bytes_verified=([0-9]+) faults_injected=([0-9]+).*/\1\t\2\t\3/p' |
		tail -1 | grep . || printf -- '-\t-\t-\n'
}

if [ -f "$src" ]; then
	command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 2; }
	# One line on a file that is not a results.json with subtests, not jq's parse error.
	jq -e '.tests | type == "object" and length > 0
		and all(.[]; type == "object" and (.result | type == "string"))' "$src" >/dev/null 2>&1 ||
		{ echo "$0: $src: not a results.json with subtests (.tests)" >&2; exit 2; }
	rows=$(jq -r '.tests | to_entries[] | [.key, .value.result,
		((.value.time.end // 0) - (.value.time.start // 0) | . * 1000 | round / 1000 | tostring)]
		| @tsv' "$src" | while IFS=$'\t' read -r k r d; do
		# A dynamic subtest shares its parent's output: take only its lines.
		dyn=$(awk -F@ '{ print (NF > 3) ? $4 : "" }' <<<"$k")
		if [ -n "$dyn" ]; then
			c=$(jq -r --arg k "$k" '.tests[$k].out' "$src" |
				awk -v d="$dyn" '/^Starting dynamic subtest: / { on = ($4 == d) } on' |
				checks_of)
		else
			c=$(jq -r --arg k "$k" '.tests[$k].out' "$src" | checks_of)
		fi
		printf '%s\t%s\t%s\t%s\n' "$k" "$r" "$d" "$c"
	done)
elif [ -d "$src" ]; then
	files=()
	for f in "$src"/*.log "$src"/*.out "$src"/*.txt; do
		[ -f "$f" ] && files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || { echo "$0: no *.log, *.out or *.txt in $src" >&2; exit 2; }
	rows=$(for f in "${files[@]}"; do
		prog=$(basename "${f%.*}")
		awk -v prog="$prog" '
		function flush_row(name, r, t) {
			printf "%s\t%s\t%s\t%s\t%s\t%s\n", name, r, t, ops, byt, flt
			ops = byt = flt = "-"
		}
		BEGIN { ops = byt = flt = "-" }
		/^Starting subtest: / { cur = $3; ops = byt = flt = "-" }
		/^Starting dynamic subtest: / { ops = byt = flt = "-" }
		/^Dynamic subtest [^ ]+: [A-Z]+ \([0-9.]+s\)$/ {
			name = $3; sub(/:$/, "", name); t = $5; gsub(/[()s]/, "", t)
			flush_row("igt@" prog "@" cur "@" name, $4, t)
		}
		/^checks: / {
			for (i = 2; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] == "operations") ops = kv[2]
				else if (kv[1] == "bytes_verified") byt = kv[2]
				else if (kv[1] == "faults_injected") flt = kv[2]
			}
		}
		/^Subtest [^ ]+: [A-Z]+ \([0-9.]+s\)$/ {
			name = $2; sub(/:$/, "", name); t = $4; gsub(/[()s]/, "", t)
			flush_row("igt@" prog "@" name, $3, t)
		}' "$f"
	done)
elif [ -e "$src" ]; then
	echo "$0: $src: not a regular file or directory" >&2
	exit 2
else
	echo "$0: $src: no such file or directory" >&2
	exit 2
fi
# Nothing recognised is an error, not an empty table.
[ -n "$rows" ] || { echo "$0: $src: no subtest results found" >&2; exit 2; }
printf '%s\n' "$rows" | print_table
