#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-fault-points.sh [--update] : count the heap allocation sites of the
# core and the drivers (malloc, calloc, realloc, strdup, strndup, asprintf,
# aligned_alloc, posix_memalign in ttm/, drm/, i915/ outside tests) that
# have no fault point: no fault_should_fail() in the five lines before the
# call or on its line. Each file's count must not exceed the one recorded in
# scripts/fault-points-baseline.txt, so a new allocation without a fault
# point fails CI; adding fault points lowers the counts (--update rewrites
# the baseline, to commit with them). Prints the uncovered sites of a file
# that went over. Also fails when two fault points share a name. Exit 0 ok,
# 1 over the baseline or a duplicate name, 2 bad usage.
set -u
cd "$(dirname "$0")/.." || exit 2
base=scripts/fault-points-baseline.txt
update=false
case $#:${1:-} in
0:) ;;
1:--update) update=true ;;
*) echo "usage: $0 [--update]" >&2; exit 2 ;;
esac

# file:line of each uncovered allocation site, for every C source in scope.
sites() {
	find ttm drm i915 -name '*.c' ! -path '*/tests/*' ! -name 'benchmark-*' 2>/dev/null | LC_ALL=C sort |
		while read -r f; do
			awk -v f="$f" '
			{ line[NR] = $0 }
			/fault_should_fail/ { last = NR }
			/(^|[^a-z_])(malloc|calloc|realloc|strdup|strndup|asprintf|vasprintf|aligned_alloc|posix_memalign)\(/ {
				if ($0 ~ /^[ \t]*(\*|\/\/|\/\*)/) next   # in a comment
				if (!(last && NR - last <= 5)) print f ":" NR
			}' "$f"
		done
}

# Two points with one name: a spec (TTM_FAULTS="name:...") would arm only one.
dups=$(grep -rhoE --include='*.c' 'DEFINE_FAULT_POINT\([a-z0-9_]+, *"[^"]+"' ttm drm i915 fault-inject 2>/dev/null |
	sed -E 's/.*"([^"]+)"/\1/' | LC_ALL=C sort | uniq -d)
if [ -n "$dups" ]; then
	echo "fault point names defined twice: $(echo $dups)" >&2
	exit 1
fi

list=$(sites)
counts=$(printf '%s\n' "$list" | grep . | cut -d: -f1 | LC_ALL=C sort | uniq -c | awk '{ print $2, $1 }')
total=$(printf '%s\n' "$list" | grep -c .)
if $update; then
	{
		echo "# Allocation sites without a fault point, per file (scripts/check-fault-points.sh)."
		printf '%s\n' "$counts"
	} >"$base"
	echo "fault points: $total allocation sites without one; baseline rewritten"
	exit 0
fi
[ -f "$base" ] || { echo "$0: $base missing (run with --update)" >&2; exit 2; }
over=0
while read -r f n; do
	[ -n "$f" ] || continue
	allowed=$(awk -v f="$f" '$1 == f { print $2 }' "$base")
	if [ "$n" -gt "${allowed:-0}" ]; then
		echo "$f: $n allocation sites without a fault point, the baseline allows ${allowed:-0}:"
		printf '%s\n' "$list" | grep "^$f:" | sed 's/^/    /'
		over=$((over + 1))
	fi
done <<<"$counts"
echo "fault points: $total allocation sites without one ($over file(s) over the baseline)"
[ "$over" -eq 0 ]
