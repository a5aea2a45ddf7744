#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kernel-doc completeness gate for the public headers.
#
#   scripts/check-kernel-doc.sh            check; exit 1 on a finding
#   scripts/check-kernel-doc.sh --report   every incomplete function, no gate
#   scripts/check-kernel-doc.sh --counts   "complete N incomplete M" (headers)
#
# Every function declared (a prototype, so an exported symbol) in
# ttm/include/ttm/*.h, fault-inject/include/*.h, i915/include/i915/*.h and
# testlib/include/testlib/*.h (drm/include/drmcore/*.h is not checked yet)
# must be preceded by a /** kernel-doc */ block naming it ("name() - ...")
# that documents each parameter with "@name:" and, unless it returns void,
# has a "Return:" (or "Returns:") section.
#
# Headers listed in scripts/kernel-doc-allowlist.txt are not yet complete and
# are reported but not failed; the list may only shrink: a listed header that
# is now complete fails the gate until its line is removed, and a header not
# listed (every new header) must be complete.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
allow=scripts/kernel-doc-allowlist.txt
mode=${1:-check}

headers=$(ls ttm/include/ttm/*.h fault-inject/include/*.h i915/include/i915/*.h testlib/include/testlib/*.h 2>/dev/null)

# check_header FILE: prints "FILE:LINE: name(): missing ..." per incomplete function.
check_header() {
	awk -v file="$1" '
	function trim(s) { gsub(/^[ \t\n]+|[ \t\n]+$/, "", s); return s }
	# The parameter names of a prototype argument list ("" for (void)).
	function param_names(args,   n, i, c, depth, cur, out, nm) {
		out = ""; depth = 0; cur = ""
		for (i = 1; i <= length(args); i++) {
			c = substr(args, i, 1)
			if (c == "(") depth++
			if (c == ")") depth--
			if (c == "," && depth == 0) { out = out param_name(cur) "\n"; cur = ""; continue }
			cur = cur c
		}
		return out param_name(cur)
	}
	function param_name(p,   m) {
		p = trim(p)
		if (p == "void" || p == "" || p == "...") return ""
		if (match(p, /\(\*[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*\)/)) {
			m = substr(p, RSTART + 2, RLENGTH - 3)
			return trim(m)
		}
		sub(/\[[^]]*\][ \t]*$/, "", p)
		sub(/__attribute__.*$/, "", p)
		if (match(p, /[A-Za-z_][A-Za-z0-9_]*[ \t]*$/))
			return trim(substr(p, RSTART, RLENGTH))
		return ""
	}
	BEGIN { doc = ""; stmt = ""; in_doc = 0; in_comment = 0; depth = 0; macro = 0 }
	{
		line = $0
		if (macro) { macro = (line ~ /\\$/); next }
		if (in_doc) {
			doc = doc "\n" line
			if (line ~ /\*\//) in_doc = 0
			next
		}
		if (in_comment) { if (line ~ /\*\//) in_comment = 0; next }
		if (stmt == "" && line ~ /^[ \t]*#/) { macro = (line ~ /\\$/); next }
		if (stmt == "" && line ~ /^[ \t]*\/\*\*/) {
			doc = line; doc_line = NR
			if (line !~ /\*\//) in_doc = 1
			next
		}
		if (line ~ /^[ \t]*\/\*/) { if (line !~ /\*\//) in_comment = 1; next }
		sub(/\/\/.*$/, "", line)
		sub(/\/\*.*\*\//, "", line)
		if (stmt == "" && trim(line) == "") next
		if (stmt == "") stmt_line = NR
		# Inside a struct/union/enum/function body: skip to its end.
		if (depth > 0) {
			depth += gsub(/\{/, "{", line) - gsub(/\}/, "}", line)
			if (depth <= 0) { depth = 0; stmt = ""; doc = "" }
			next
		}
		stmt = stmt " " line
		if (stmt ~ /\{/) {
			depth = gsub(/\{/, "{", stmt) - gsub(/\}/, "}", stmt)
			if (depth <= 0) { depth = 0; stmt = ""; doc = "" }
			else stmt = ""
			if (depth == 0) doc = ""
			next
		}
		if (stmt !~ /;[ \t]*$/) next
		s = trim(stmt); stmt = ""
		d = doc; doc = ""
		if (s ~ /^(typedef|struct|union|enum|extern[ \t]+const|static)[ \t]/ && s !~ /^extern[ \t]/) {
			if (s !~ /^(struct|union|enum)[ \t][^(]*\(/) next
		}
		if (s ~ /^typedef/) next
		if (s !~ /\)[ \t]*(__attribute__[ \t]*\(\(.*\)\))?[ \t]*;$/) next
		# name ( args ) [attrs] ;
		if (!match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) next
		pre = substr(s, 1, RSTART - 1)
		name = substr(s, RSTART, RLENGTH); sub(/[ \t]*\($/, "", name)
		if (name == "__attribute__" || pre ~ /\(/) next
		rest = substr(s, RSTART + RLENGTH)
		# The argument list: up to the matching parenthesis.
		dep = 1; args = ""
		for (i = 1; i <= length(rest) && dep > 0; i++) {
			c = substr(rest, i, 1)
			if (c == "(") dep++
			if (c == ")") { dep--; if (dep == 0) break }
			args = args c
		}
		ret = trim(pre)
		sub(/^extern[ \t]+/, "", ret)
		total++
		missing = ""
		if (d == "" || d !~ ("\\*[ \t]*" name "\\(\\)")) {
			missing = " kernel-doc block"
		} else {
			n = split(param_names(args), ps, "\n")
			for (k = 1; k <= n; k++) {
				if (ps[k] == "") continue
				if (d !~ ("@" ps[k] ":")) missing = missing " @" ps[k]
			}
			if (ret !~ /^void$/ && ret !~ /(^|[ \t])void[ \t]*$/ && d !~ /Returns?:/)
				missing = missing " Return:"
		}
		if (missing != "")
			printf "%s:%d: %s(): missing%s\n", file, stmt_line, name, missing
	}
	END { if (totals) printf "#functions %d\n", total }' totals="${2:-0}" "$1"
}

complete=0 incomplete=0 fail=0
declare -A listed=()
if [ -f "$allow" ]; then
	while read -r h; do
		[ -n "$h" ] && [ "${h#\#}" = "$h" ] && listed[$h]=1
	done <"$allow"
fi
for h in $headers; do
	out=$(check_header "$h")
	if [ -z "$out" ]; then
		complete=$((complete + 1))
		if [ "$mode" = check ] && [ -n "${listed[$h]:-}" ]; then
			echo "$h: now complete: remove it from $allow" >&2
			fail=1
		fi
		continue
	fi
	incomplete=$((incomplete + 1))
	case $mode in
	--report) echo "$out" ;;
	--counts) ;;
	--list-incomplete) echo "$h" ;;
	*)
		if [ -z "${listed[$h]:-}" ]; then
			echo "$out" >&2
			echo "$h: incomplete kernel-doc (new headers must be complete)" >&2
			fail=1
		fi
		;;
	esac
done
case $mode in
--counts)
	nf=0 ni=0
	for h in $headers; do
		nf=$((nf + $(check_header "$h" 1 | sed -n 's/^#functions //p')))
		ni=$((ni + $(check_header "$h" | grep -c .)))
	done
	echo "headers: complete $complete incomplete $incomplete; functions: $((nf - ni)) of $nf complete"
	;;
check)
	echo "kernel-doc: $complete headers complete, $incomplete allowlisted as incomplete"
	exit $fail
	;;
esac
exit 0
