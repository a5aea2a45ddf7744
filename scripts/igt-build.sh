#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# igt-build.sh [-q] [LIST...] : build igt-gpu-tools' igt_runner and the tests
# named in the acceptance lists (default: scripts/igt/acceptance-*.txt) into a
# cache outside the checkout, and print the build directory on stdout.
#
# IGT_SRC is an igt source tree or tarball (default: the igt-gpu-tools-2.2-*
# tarball in ../shared/third_party/igt-gpu-tools/ beside the checkout). The
# build goes to ${IGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ttm-igt}/<hash>,
# where <hash> names the source (tarball contents, or a tree's file list with
# sizes and mtimes); a stamp there records the targets built, so an unchanged
# source and list reuse it without running meson or ninja at all.
# igt's own build needs Python meson (Debian's 'meson' package): a test-only
# dependency, installed here; the project itself keeps building with muon.
# The tests' directory gets the test-list.txt igt_runner reads.
# Exit status: 0 built, 77 no igt source (with a note on how to get one), 1 failed.
set -u
. "$(dirname "$0")/lib.sh"

quiet=
[ "${1:-}" = -q ] && { quiet=1; shift; }

# Debian packages igt 2.2's meson build needs (tests + runner, no display bits).
IGT_PACKAGES=(meson ninja-build python3 pkg-config gcc flex bison libdrm-dev
	libkmod-dev libproc2-dev libdw-dev libcairo2-dev libpixman-1-dev libudev-dev
	libunwind-dev libglib2.0-dev libgsl-dev libjson-c-dev libpciaccess-dev
	xz-utils)

src=${IGT_SRC:-}
if [ -z "$src" ]; then
	for f in "$TTM_TOP"/../shared/third_party/igt-gpu-tools/igt-gpu-tools-2.2-*.tar.xz; do
		[ -f "$f" ] && src=$f
	done
fi
if [ -z "$src" ] || [ ! -e "$src" ]; then
	echo "$0: no igt source${src:+ at $src}; set IGT_SRC=/path/to/igt-gpu-tools-2.2-*.tar.xz" \
		"(or an unpacked igt tree), or put the tarball in ../shared/third_party/igt-gpu-tools/" >&2
	exit 77
fi
src=$(readlink -f "$src")

lists=("$@")
[ ${#lists[@]} -gt 0 ] || lists=("$TTM_TOP"/scripts/igt/acceptance-*.txt)
# Binary names: the part of each entry before '@', comments and blanks dropped.
mapfile -t tests < <(sed -e 's/#.*//' -e 's/@.*//' -e 's/[[:space:]]//g' "${lists[@]}" |
	grep -v '^$' | sort -u)
[ ${#tests[@]} -gt 0 ] || { echo "$0: no tests in ${lists[*]}" >&2; exit 1; }

if [ -d "$src" ]; then
	hash=$(cd "$src" && find . -path ./.git -prune -o -type f -printf '%P %s %T@\n' |
		sort | sha256sum | cut -c1-16)
else
	hash=$(sha256sum <"$src" | cut -c1-16)
fi
cache=${IGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ttm-igt}/$hash
bld=$cache/build
stamp=$cache/stamp
stampkey="$src ${tests[*]}"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stampkey" ] && [ -x "$bld/runner/igt_runner" ]; then
	[ -n "$quiet" ] || ttm_log "igt build up to date in $bld"
	echo "$bld"
	exit 0
fi

ttm_ensure_packages "${IGT_PACKAGES[@]}" || { echo "$0: installing igt's build dependencies failed" >&2; exit 1; }
mkdir -p "$cache" || exit 1
rm -f "$stamp"
log=$cache/build.log
: >"$log"

if [ -d "$src" ]; then
	tree=$src
else
	tree=$cache/src
	if [ ! -f "$tree/meson.build" ]; then
		ttm_log "unpacking $src"
		rm -rf "$tree" "$cache/unpack"
		mkdir -p "$cache/unpack" || exit 1
		tar -xf "$src" -C "$cache/unpack" || { echo "$0: cannot unpack $src" >&2; exit 1; }
		top=$(find "$cache/unpack" -mindepth 2 -maxdepth 2 -name meson.build -printf '%h\n' | head -n1)
		[ -n "$top" ] || { echo "$0: $src has no meson.build at its top" >&2; exit 1; }
		mv "$top" "$tree" && rm -rf "$cache/unpack"
	fi
fi

if [ ! -f "$bld/build.ninja" ]; then
	ttm_log "configuring igt in $bld"
	meson setup "$bld" "$tree" -Dtests=enabled -Drunner=enabled -Doverlay=disabled \
		-Dman=disabled -Ddocs=disabled -Dchamelium=disabled -Dtestplan=disabled \
		-Dsphinx=disabled -Dvalgrind=disabled -Dxe_eudebug=disabled -Dvmtb=disabled \
		-Dlibdrm_drivers=intel -Doping=disabled >>"$log" 2>&1 || {
		tail -n 40 "$log" >&2
		echo "$0: igt configure failed (log: $log)" >&2
		rm -rf "$bld"
		exit 1
	}
fi

targets=(runner/igt_runner)
for t in "${tests[@]}"; do targets+=("tests/$t"); done
ttm_log "building igt_runner and ${#tests[@]} tests (log: $log)"
ninja -C "$bld" "${targets[@]}" >>"$log" 2>&1 || {
	tail -n 60 "$log" >&2
	echo "$0: igt build failed (log: $log)" >&2
	exit 1
}
# igt_runner reads the test root's test-list.txt; a partial build has none.
printf '%s\n' "${tests[@]}" >"$bld/tests/test-list.txt" || exit 1
echo "$stampkey" >"$stamp"
echo "$bld"
