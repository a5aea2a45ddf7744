#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Static-analysis gate: clang-tidy with the checks listed (and justified) in
# .clang-tidy over every C file the build compiles (ttm/, fault-inject/,
# drm/, testlib/, i915/, node/, bench/, stress/, fuzz/) and the tree's
# headers they include; every finding is an error. The compilers' own
# warnings are not repeated here (-w): the -Werror builds check those.
# A false positive gets "// NOLINT(check-name): reason" on its line.
#
#   scripts/check-clang-tidy.sh [BUILDDIR]
#
# BUILDDIR provides compile_commands.json (any configured tree). Without
# one, the gate configures build-clang-tidy with clang (configure only,
# nothing is compiled) and configures it again when a meson.build changed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
command -v clang-tidy >/dev/null || { echo "clang-tidy not installed (Debian package clang-tidy)" >&2; exit 1; }
builddir=${1:-build-clang-tidy}
db=$builddir/compile_commands.json
if [ $# -eq 0 ]; then
	if [ -f "$db" ] && [ -n "$(find . -name meson.build -newer "$db" -not -path './build*' | head -n 1)" ]; then
		rm -rf "$builddir"
	fi
	if [ ! -f "$db" ]; then
		log=$(mktemp)
		CC=clang muon-meson setup "$builddir" >"$log" 2>&1 ||
			{ cat "$log" >&2; rm -f "$log"; echo "clang-tidy: configuring $builddir failed" >&2; exit 1; }
		rm -f "$log"
	fi
fi
[ -f "$db" ] || { echo "clang-tidy: no $db" >&2; exit 1; }

# The tree's C files the database compiles (generated and vanished files skipped).
mapfile -t files < <(sed -n 's/.*"file": *"\(.*\)".*/\1/p' "$db" | while read -r f; do
	case $f in /*) ;; *) f=$builddir/$f ;; esac
	f=$(realpath -m "$f")
	case $f in "$top"/build*) continue ;; "$top"/*) [ -f "$f" ] && echo "$f" ;; esac
done | sort -u)
[ ${#files[@]} -gt 0 ] || { echo "clang-tidy: no C files in $db" >&2; exit 1; }

out=$(printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 8 clang-tidy -p "$builddir" --quiet \
	--header-filter="^$top/" --extra-arg=-w 2>&1)
findings=$(grep -E ': (warning|error): ' <<<"$out" | sed -e "s#^$top/##" -e "s#^\.\./##" | sort -u)
if [ -n "$findings" ]; then
	echo "$findings" >&2
	echo "clang-tidy: $(grep -c . <<<"$findings") findings in ${#files[@]} files" >&2
	exit 1
fi
echo "clang-tidy: ${#files[@]} files clean ($(grep -c '^  [a-z]' .clang-tidy) checks of .clang-tidy)"
