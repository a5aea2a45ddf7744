#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Formatting gate: every file listed in scripts/format-files.txt must be
# unchanged by clang-format with the committed .clang-format.
#
#   scripts/check-format.sh           check the listed files; exit 1 on a difference
#   scripts/check-format.sh --diff    also print what clang-format would change
#   scripts/check-format.sh --matching
#                                     print the tracked C files that match today
#                                     (candidates to add to the list)
#
# The list grows as files are formatted (clang-format -i FILE, then add it);
# a file that leaves the tree is dropped from the list. A listed file that no
# longer exists is an error, so the list stays honest.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
list=scripts/format-files.txt
command -v clang-format >/dev/null || { echo "clang-format not installed (Debian package clang-format)" >&2; exit 1; }

if [ "${1:-}" = --matching ]; then
	git ls-files '*.c' '*.h' | while read -r f; do
		clang-format --dry-run -Werror "$f" >/dev/null 2>&1 && echo "$f"
	done
	exit 0
fi

bad=0 n=0
while read -r f; do
	case $f in '' | \#*) continue ;; esac
	n=$((n + 1))
	if [ ! -f "$f" ]; then
		echo "$f: listed in $list but missing" >&2
		bad=$((bad + 1))
		continue
	fi
	if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "$f: not formatted (clang-format -i $f)" >&2
		[ "${1:-}" = --diff ] && clang-format "$f" | diff -u "$f" - >&2
		bad=$((bad + 1))
	fi
done <"$list"
echo "format: $((n - bad)) of $n listed files match .clang-format"
[ "$bad" -eq 0 ]
