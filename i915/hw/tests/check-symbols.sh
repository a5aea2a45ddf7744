#!/bin/sh
# SPDX-License-Identifier: MIT
# check-symbols.sh NM LIB: every global symbol libi915_hw defines is in the
# hw_ namespace, and none belongs to the recording fake, which is test-only.
# Compiler-generated names (leading "__", e.g. sanitizer bookkeeping) are
# ignored.
nm=$1
lib=$2
syms=$("$nm" --defined-only -g "$lib" | awk 'NF == 3 && $2 ~ /^[TDRBCGSV]$/ { print $3 }' |
	grep -v '^__' | sort -u)
[ -n "$syms" ] || { echo "no global symbols found in $lib" >&2; exit 1; }
bad=$(printf '%s\n' "$syms" | grep -v '^hw_')
fake=$(printf '%s\n' "$syms" | grep '^hw_fake')
[ -z "$bad" ] || { echo "outside the hw_ namespace:" $bad >&2; exit 1; }
[ -z "$fake" ] || { echo "test-only fake symbols in the library:" $fake >&2; exit 1; }
echo "$(printf '%s\n' "$syms" | wc -l) symbols, all hw_*"
