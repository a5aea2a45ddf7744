#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Static-analysis gate: cppcheck over the core (ttm/, fault-inject/) with the
# warning, performance and portability checks (errors are always on), every
# finding an error. False positives go into scripts/cppcheck-suppressions.txt
# with the reason, or next to the line as "// cppcheck-suppress id".
#
#   scripts/check-cppcheck.sh [BUILDDIR]   BUILDDIR provides ttm_config.h (default: build)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
builddir=${1:-build}
command -v cppcheck >/dev/null || { echo "cppcheck not installed (Debian package cppcheck)" >&2; exit 1; }
inc=(-I ttm/include -I ttm/uapi -I fault-inject/include)
[ -f "$builddir/ttm_config.h" ] && inc+=(-I "$builddir")
out=$(cppcheck -q --enable=warning,performance,portability --std=c11 --library=posix \
	-D_GNU_SOURCE -DFAULT_INJECT_ENABLED=1 "${inc[@]}" \
	--suppressions-list=scripts/cppcheck-suppressions.txt --inline-suppr \
	-j "$(nproc)" --template='{file}:{line}: {severity}: {message} [{id}]' \
	ttm/*.c fault-inject/*.c 2>&1)
if [ -n "$out" ]; then
	echo "$out" >&2
	echo "cppcheck: $(grep -c '^[^ ].*: \(error\|warning\|performance\|portability\|style\):' <<<"$out") findings" >&2
	exit 1
fi
echo "cppcheck: ttm/ fault-inject/ clean (warning, performance, portability)"
