#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Include-graph gate: the tree's #include lines, read with awk, must keep
#  1. the layering  testlib-base -> fault-inject -> ttm -> {drm, testlib}
#     -> i915 -> node -> {bench, stress, fuzz, tests}: no file includes a
#     header of a component above its own (nor of another component on its
#     own level, except at the top);
#  2. no include cycle between the files of one component (a header that,
#     through others, includes itself).
# Exceptions are listed, each with its reason, in
# scripts/include-graph-allow.txt as "cycle: comp: file file ..." (the
# files of one cycle, sorted) or "edge: file -> header".
#
#   scripts/check-include-graph.sh            check; exit 1 on a finding
#   scripts/check-include-graph.sh --all      print every finding, allowed or not
#   scripts/check-include-graph.sh --dot FILE also write the graph (graphviz
#                                             dot; render it with `dot -Tsvg FILE`)
#   scripts/check-include-graph.sh --modules  report (not fail on) cycles between
#                                             modules instead of files: a module
#                                             is a source and its header
#                                             (ttm/ttm_bo.c + ttm/include/ttm/
#                                             ttm_bo.h), A depends on B when a
#                                             file of A includes B's header: the
#                                             objects that call each other
#
# Headers are resolved among the tracked files: "x.h" beside the includer
# first, then any tracked file whose path ends in /x.h (the same component
# preferred); <x.h> that the system has (/usr/include, libdrm's directory)
# is the system's. bench/kref/kdrv* build against the kernel's headers and
# (and their shim of them) are not read. Needs only bash, git, awk, sort and tsort (coreutils).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
allow=scripts/include-graph-allow.txt
show_all=0 dot= by_file=1
while [ $# -gt 0 ]; do
	case $1 in
	--all) show_all=1 ;;
	--modules) by_file=0 ;;
	--dot) dot=${2:?--dot needs a file}; shift ;;
	*) echo "usage: $0 [--all] [--modules] [--dot FILE]" >&2; exit 2 ;;
	esac
	shift
done
tmp=$(mktemp -d) || exit 1
export LC_ALL=C
trap 'rm -rf "$tmp"' EXIT

git ls-files '*.c' '*.h' | grep -v -e '^bench/kref/kdrv' -e '^bench/kref/shim/' >"$tmp/files"
# file<TAB>kind<TAB>header for every #include line.
xargs awk '
	/^[ \t]*#[ \t]*include[ \t]*[<"]/ {
		s = $0; sub(/^[^<"]*/, "", s)
		kind = substr(s, 1, 1); s = substr(s, 2)
		sub(/[>"].*/, "", s)
		print FILENAME "\t" kind "\t" s
	}' <"$tmp/files" >"$tmp/incs"

# Resolve every include to a tracked file (or drop it as the system's), then
# name components and modules, and print edges.
awk -F'\t' -v by_file="$by_file" -v sysdirs="/usr/include /usr/include/libdrm $(echo | cpp -xc -v 2>&1 | awk '/^ \//{printf "%s ", $1}')" '
	function comp(p) {
		if (p ~ /^testlib\/include\/testlib\/(prng|clock|checksum)\.h$/) return "testlib-base"
		if (p ~ /(^|\/)tests\//) { sub(/\/tests\/.*/, "/tests", p); return p }
		if (p ~ /^scripts\//) return "scripts"
		split(p, a, "/"); return a[1]
	}
	function rank(c) {
		if (c == "testlib-base") return 0
		if (c == "fault-inject") return 1
		if (c == "ttm") return 2
		if (c == "drm" || c == "testlib") return 3
		if (c == "i915") return 4
		if (c == "node") return 5
		return 6
	}
	function module(p,   b) {
		if (by_file) return p
		b = p; sub(/.*\//, "", b); sub(/\.[ch]$/, "", b)
		return comp(p) ":" b
	}
	function exists(p) { return (p in tracked) }
	function sys_has(h,   d, i, line) {
		if (h in sys) return sys[h]
		sys[h] = 0
		for (i = 1; i <= nsys; i++)
			if ((getline line < (sysdir[i] "/" h)) >= 0) {
				close(sysdir[i] "/" h); sys[h] = 1; break
			}
		return sys[h]
	}
	# <h> names a tracked header only under an include directory.
	function root_ok(p, h,   pre) {
		pre = substr(p, 1, length(p) - length(h))
		return pre ~ /(^|\/)(include|uapi|compat|lib|sim|hw|tests)\/$/
	}
	function resolve(f, kind, h,   dir, c, best, b, n, i, p) {
		dir = f; sub(/[^\/]*$/, "", dir)
		if (kind == "\"" && exists(dir h)) return dir h
		if (kind == "<" && sys_has(h)) return ""
		c = comp(f); best = ""
		b = h; sub(/.*\//, "", b)
		n = split(bybase[b], cand, " ")
		for (i = 1; i <= n; i++) {
			p = cand[i]
			if (p != h && substr(p, length(p) - length(h)) != "/" h) continue
			if (kind == "<" && !root_ok(p, h)) continue
			if (comp(p) == c) return p
			if (best == "" || p < best) best = p
		}
		return best
	}
	BEGIN { nsys = split(sysdirs, sysdir, " ") }
	FNR == NR { tracked[$0] = 1; b = $0; sub(/.*\//, "", b); bybase[b] = bybase[b] " " $0; next }
	{
		to = resolve($1, $2, $3)
		if (to == "" || to == $1) next
		print $1 "\t" to "\t" comp($1) "\t" comp(to) "\t" rank(comp($1)) "\t" rank(comp(to)) "\t" module($1) "\t" module(to)
	}' "$tmp/files" "$tmp/incs" | sort -u >"$tmp/edges"

touch "$tmp/allowed"
[ -f "$allow" ] && grep -v '^[[:space:]]*\(#\|$\)' "$allow" | sed 's/[[:space:]]*#.*//' >"$tmp/allowed"
bad=0 allowed=0

finding() { # $1: the finding's key as the allowlist writes it
	if grep -qxF "$1" "$tmp/allowed"; then
		allowed=$((allowed + 1))
		[ $show_all = 1 ] && echo "allowed: $1"
	else
		bad=$((bad + 1))
		echo "$1" >&2
	fi
}

# 1. Layering.
while IFS=$'\t' read -r from to cf ct rf rt _ _; do
	[ "$cf" = "$ct" ] && continue
	case $ct in */tests) [ "$rf" = 6 ] && continue ;; esac
	if [ "$rf" -lt "$rt" ] || { [ "$rf" = "$rt" ] && [ "$rf" != 6 ]; }; then
		finding "edge: $from -> $to"
	fi
done <"$tmp/edges"

# 2. Cycles among the files (--modules: modules) of each component: tsort
# names one loop per run; drop its edges and run again until none is left.
cut -f3 "$tmp/edges" | sort -u >"$tmp/comps"
while read -r c; do
	awk -F'\t' -v c="$c" '$3 == c && $4 == c && $7 != $8 { print $7, $8 }' "$tmp/edges" |
		sort -u >"$tmp/medges"
	[ -s "$tmp/medges" ] || continue
	for _ in $(seq 1 50); do
		tsort "$tmp/medges" >/dev/null 2>"$tmp/loop" && break
		loop=$(grep -v 'input contains a loop' "$tmp/loop" | sed 's/^tsort: //' | sort -u | tr '\n' ' ')
		[ -n "$loop" ] || break
		if [ $by_file = 1 ]; then
			finding "cycle: $c: ${loop% }"
		else
			echo "module cycle: $c: ${loop% }"
		fi
		# Drop the loop's edges so the next round finds another one.
		printf '%s\n' $loop >"$tmp/lmods"
		awk 'NR == FNR { m[$1] = 1; next } !($1 in m && $2 in m)' "$tmp/lmods" "$tmp/medges" \
			>"$tmp/medges2"
		mv "$tmp/medges2" "$tmp/medges"
	done
done <"$tmp/comps"

if [ -n "$dot" ]; then
	{
		echo 'digraph includes {'
		echo '  rankdir=BT; node [shape=box, fontsize=9];'
		awk -F'\t' '$7 != $8 { printf "  \"%s\" -> \"%s\";\n", $7, $8 }' "$tmp/edges" | sort -u
		echo '}'
	} >"$dot"
fi

# Allowlist entries that no longer match anything are stale: say so.
while read -r a; do
	[ -z "$a" ] && continue
	case $a in
	edge:*) f=${a#edge: }; f=${f%% -> *}; t=${a##* -> }
		awk -F'\t' -v f="$f" -v t="$t" '$1 == f && $2 == t { found = 1 } END { exit !found }' \
			"$tmp/edges" || { echo "stale allowlist entry: $a" >&2; bad=$((bad + 1)); } ;;
	esac
done <"$tmp/allowed"

echo "include graph: $(wc -l <"$tmp/edges") edges, $bad findings, $allowed allowed"
[ $bad = 0 ]
