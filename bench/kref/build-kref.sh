#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the kernel reference object for benchmark-kref: Linux 6.12's TTM,
# drm_mm, drm_vma_manager, dma-fence, dma-fence-chain, dma-resv and rbtree
# sources, compiled unmodified as userspace C over bench/kref/shim, plus the
# kernel-side workload driver (kdrv.c), combined with `ld -r` into one
# relocatable object in which every symbol but the kref_* entry points is
# local, so it links beside libttm (which defines the same names).
#
#   build-kref.sh --src DIR|TARBALL --out OBJ --work DIR [--cc CC] [--opt O]
#
# --src: an unpacked linux-source-6.12 tree (/usr/src/linux-source-6.12) or
# Debian's tarball (/usr/src/linux-source-6.12.tar.xz); from a tarball only
# the members listed below are extracted, once, into WORK/src.
# Nothing of the kernel is copied into the source tree: WORK is a build
# directory and OBJ is never installed.
set -eu

src= out= work= cc=${CC:-cc} opt=2
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=$2; shift ;;
	--out) out=$2; shift ;;
	--work) work=$2; shift ;;
	--cc) cc=$2; shift ;;
	--opt) opt=$2; shift ;;
	*) echo "usage: $0 --src DIR|TARBALL --out OBJ --work DIR [--cc CC] [--opt O]" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$src" ] && [ -n "$out" ] && [ -n "$work" ] || { echo "$0: --src, --out and --work are required" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
work=$(cd "$work" && pwd)

# The kernel files compiled (relative to the source root) and the kernel
# headers used as they are (every other <linux/*.h>, <asm/*.h> comes from
# the shim: shim/include is first on the include path).
ksrcs=(
	drivers/gpu/drm/ttm/ttm_device.c
	drivers/gpu/drm/ttm/ttm_bo.c
	drivers/gpu/drm/ttm/ttm_bo_util.c
	drivers/gpu/drm/ttm/ttm_resource.c
	drivers/gpu/drm/ttm/ttm_tt.c
	drivers/gpu/drm/ttm/ttm_pool.c
	drivers/gpu/drm/ttm/ttm_range_manager.c
	drivers/gpu/drm/ttm/ttm_sys_manager.c
	drivers/gpu/drm/ttm/ttm_module.c
	drivers/gpu/drm/drm_mm.c
	drivers/gpu/drm/drm_vma_manager.c
	drivers/dma-buf/dma-fence.c
	drivers/dma-buf/dma-fence-chain.c
	drivers/dma-buf/dma-fence-array.c
	drivers/dma-buf/dma-resv.c
	lib/rbtree.c
)
khdrs=(
	drivers/gpu/drm/ttm/ttm_module.h
	drivers/gpu/drm/ttm/ttm_pool_internal.h
	include/drm/ttm
	include/drm/drm_mm.h
	include/drm/drm_gem.h
	include/drm/drm_vma_manager.h
	include/linux/dma-fence.h
	include/linux/dma-fence-chain.h
	include/linux/dma-fence-array.h
	include/linux/dma-resv.h
	include/linux/rbtree.h
	include/linux/rbtree_types.h
	include/linux/rbtree_augmented.h
	include/linux/interval_tree_generic.h
	include/linux/list.h
	include/linux/llist.h
	include/linux/kref.h
	include/linux/iosys-map.h
)

# Where the sources are: a tree as is, a tarball extracted once (only the
# members above).
if [ -d "$src" ]; then
	ksrc=$(cd "$src" && pwd)
elif [ -f "$src" ]; then
	ksrc=$work/src
	if [ ! -e "$ksrc/.extracted" ]; then
		top=$(tar -tJf "$src" 2>/dev/null | head -n 1 | cut -d/ -f1)
		[ -n "$top" ] || { echo "$0: cannot read $src" >&2; exit 1; }
		rm -rf "$ksrc.tmp"
		mkdir -p "$ksrc.tmp"
		members=()
		for f in "${ksrcs[@]}" "${khdrs[@]}"; do
			members+=("$top/$f" "$top/$f/*")
		done
		tar -xJf "$src" -C "$ksrc.tmp" --wildcards --no-wildcards-match-slash "${members[@]}" \
			2>/dev/null || true
		[ -f "$ksrc.tmp/$top/drivers/gpu/drm/ttm/ttm_bo.c" ] ||
			{ echo "$0: $src has no drivers/gpu/drm/ttm/ttm_bo.c" >&2; exit 1; }
		rm -rf "$ksrc"
		mv "$ksrc.tmp/$top" "$ksrc"
		rm -rf "$ksrc.tmp"
		touch "$ksrc/.extracted"
	fi
else
	echo "$0: no kernel source at $src" >&2
	exit 1
fi

# The pass-through include directory: only the headers listed.
kinc=$work/kinc
rm -rf "$kinc"
mkdir -p "$kinc/linux" "$kinc/drm"
for h in "${khdrs[@]}"; do
	case $h in
	include/*) ln -sfn "$ksrc/$h" "$kinc/${h#include/}" ;;
	esac
done

kflags=(-std=gnu11 "-O$opt" -g -fno-strict-aliasing -fno-common -fno-delete-null-pointer-checks
	-fvisibility=hidden -fPIE -D__KERNEL__ -DKBUILD_MODNAME='"ttm"' -nostdinc
	-isystem "$($cc -print-file-name=include)"
	-I "$here/shim/include" -I "$here/shim" -I "$here" -I "$kinc" -I "$ksrc/drivers/gpu/drm/ttm"
	-include "$here/shim/kshim.h" -w)
objs=()
for f in "${ksrcs[@]}"; do
	o=$work/$(basename "${f%.c}").o
	$cc "${kflags[@]}" -c "$ksrc/$f" -o "$o"
	objs+=("$o")
done
# Ours, compiled the same way: the shim's implementations and the driver.
$cc "${kflags[@]}" -Wall -Wno-unused-parameter -c "$here/shim/kshim.c" -o "$work/kshim.o"
$cc "${kflags[@]}" -Wall -Wno-unused-parameter -c "$here/kdrv.c" -o "$work/kdrv.o"
objs+=("$work/kshim.o" "$work/kdrv.o")

ld -r -o "$work/kref-all.o" "${objs[@]}"
# Only the kref_* entry points stay global; everything of the kernel (and
# the shim) becomes local, so ttm_bo_validate & co. do not clash with ours.
nm -g --defined-only "$work/kref-all.o" | awk '$3 ~ /^kref_/ { print $3 }' >"$work/keep.txt"
[ -s "$work/keep.txt" ] || { echo "$0: no kref_* symbol defined" >&2; exit 1; }
objcopy --localize-hidden --keep-global-symbols="$work/keep.txt" "$work/kref-all.o" "$out.tmp"
# Anything global and defined that is not kref_* would clash: refuse.
if nm -g --defined-only "$out.tmp" | awk '$3 !~ /^kref_/ { bad = 1; print } END { exit !bad }' >&2; then
	echo "$0: symbols other than kref_* left global" >&2
	exit 1
fi
mv "$out.tmp" "$out"
