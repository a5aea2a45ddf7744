#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# igt-wsim-check.sh [-p tgl] SHIM [WORKLOAD...]
# igt-wsim-check.sh --dir
#
# Runs Debian's gem_wsim (intel-gpu-tools) through the emulated render node
# SHIM (node/libttm-i915-node.so of a build) on the workload files igt ships
# (benchmarks/wsim/*.wsim), by default the ones that need the video engines,
# load balancing and bonds: vcs_balanced, media_load_balance_hd01,
# frame-split-60fps. Each run must exit 0, report its workloads/s and print
# no igt failure or ioctl error. Prints one line per workload.
#
# The workload files come from IGT_WSIM_DIR, else IGT_SRC (a tree, or a
# tarball), else the igt-gpu-tools-2.2 tarball in ../shared/third_party/
# beside the checkout; a tarball's wsim directory is unpacked once into
# ${IGT_CACHE:-$HOME/.cache/ttm-igt}/wsim-<hash>. --dir only prints that
# directory (igt-bench-shim.sh uses it).
#
# Exit status: 0 every run passed; 1 a run failed; 77 skipped (no gem_wsim:
# intel-gpu-tools absent; no igt source; a sanitizer build of SHIM, which an
# uninstrumented gem_wsim cannot preload); 2 bad usage.
set -u
. "$(dirname "$0")/lib.sh"

# wsim_dir: print the directory holding igt's .wsim files, or fail with a note.
wsim_dir() {
	local src=${IGT_SRC:-} f hash dir
	if [ -n "${IGT_WSIM_DIR:-}" ]; then
		[ -d "$IGT_WSIM_DIR" ] || { echo "IGT_WSIM_DIR=$IGT_WSIM_DIR is not a directory" >&2; return 1; }
		echo "$IGT_WSIM_DIR"
		return 0
	fi
	if [ -z "$src" ]; then
		for f in "$TTM_TOP"/../shared/third_party/igt-gpu-tools/igt-gpu-tools-2.2-*.tar.xz; do
			[ -f "$f" ] && src=$f
		done
	fi
	if [ -z "$src" ] || [ ! -e "$src" ]; then
		echo "no igt source for the workload files: set IGT_WSIM_DIR or IGT_SRC" >&2
		return 1
	fi
	if [ -d "$src" ]; then
		[ -d "$src/benchmarks/wsim" ] || { echo "$src has no benchmarks/wsim" >&2; return 1; }
		echo "$src/benchmarks/wsim"
		return 0
	fi
	hash=$(sha256sum <"$src" | cut -c1-16)
	dir=${IGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ttm-igt}/wsim-$hash
	if [ ! -f "$dir/.done" ]; then
		rm -rf "$dir"
		mkdir -p "$dir" || return 1
		tar -xJf "$src" -C "$dir" --strip-components=3 --wildcards '*/benchmarks/wsim/*' ||
			{ echo "unpacking the workload files of $src failed" >&2; return 1; }
		: >"$dir/.done"
	fi
	echo "$dir"
}

if [ "${1:-}" = --dir ]; then
	wsim_dir
	exit $?
fi

profile=tgl
while getopts p: opt; do
	case $opt in
	p) profile=$OPTARG ;;
	*) echo "usage: $0 [-p tgl|dg2] SHIM [WORKLOAD...] | $0 --dir" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
shim=${1:-}
[ -n "$shim" ] && [ -f "$shim" ] || { echo "usage: $0 [-p tgl|dg2] SHIM [WORKLOAD...]" >&2; exit 2; }
shift
loads=("$@")
[ ${#loads[@]} -gt 0 ] || loads=(vcs_balanced media_load_balance_hd01 frame-split-60fps)

wsim=/usr/libexec/igt-gpu-tools/benchmarks/gem_wsim
if [ ! -x "$wsim" ]; then
	echo "$0: skipped: no $wsim (Debian package intel-gpu-tools is absent)"
	exit 77
fi
if ldd "$shim" 2>/dev/null | grep -qE 'lib(a|ub|t)san'; then
	echo "$0: skipped: $shim is a sanitizer build; the uninstrumented gem_wsim cannot preload it"
	exit 77
fi
if ! dir=$(wsim_dir 2>&1); then
	echo "$0: skipped: $dir"
	exit 77
fi

fails=0
for w in "${loads[@]}"; do
	f=$dir/$w.wsim
	[ -f "$f" ] || { echo "gem_wsim $w: FAIL: no $f"; fails=$((fails + 1)); continue; }
	out=$(LD_PRELOAD=$shim TTM_I915_PROFILE=$profile timeout 300 "$wsim" -w "$f" -r 3 -c 1 2>&1)
	rc=$?
	rate=$(grep -E 'workloads/s' <<<"$out" | tail -n 1)
	bad=$(grep -E 'CRITICAL|Failed assertion|error: -?[0-9]|FAIL' <<<"$out" | head -n 3)
	if [ $rc -ne 0 ] || [ -z "$rate" ] || [ -n "$bad" ]; then
		echo "gem_wsim $w: FAIL (exit $rc)"
		sed 's/^/    /' <<<"${bad:-$(tail -n 5 <<<"$out")}"
		fails=$((fails + 1))
	else
		echo "gem_wsim $w: ok ($rate)"
	fi
done
[ $fails -eq 0 ]
