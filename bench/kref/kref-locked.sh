#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Locked read-modify-write instructions (lock-prefixed, or xchg with memory,
# which is locked implicitly) executed per iteration of benchmark-kref cases,
# ours and the kernel's, with the functions that execute them. Instruction
# counts hide these: each costs a store-buffer drain (10-20+ cycles), so a
# side with fewer instructions can still be slower.
#
#   bench/kref/kref-locked.sh BENCHMARK-KREF [--only TEXT] [--by-function]
#
# Runs the cases under callgrind with --dump-instr=yes (per-instruction
# counts), disassembles the binary with objdump and sums the counts of the
# locked instructions of the benchmark binary itself (glibc's are left out:
# neither side's malloc takes a lock in this single-threaded process).
set -eu
[ $# -ge 1 ] || { echo "usage: $0 BENCHMARK-KREF [--only TEXT] [--by-function]" >&2; exit 2; }
exe=$1
shift
only=() byfn=0
while [ $# -gt 0 ]; do
	case $1 in
	--only) only=(--only "$2"); shift ;;
	--by-function) byfn=1 ;;
	*) echo "$0: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
command -v valgrind >/dev/null || { echo "$0: valgrind is not installed" >&2; exit 77; }
command -v objdump >/dev/null || { echo "$0: objdump is not installed" >&2; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
valgrind --tool=callgrind --instr-atstart=no --dump-instr=yes --callgrind-out-file="$dir/cg.out" \
	"$exe" --callgrind --quick "${only[@]}" --out "$dir" >"$dir/log" 2>&1 ||
	{ tail -n 20 "$dir/log" >&2; exit 1; }
# Addresses of the binary's locked instructions.
objdump -d --no-show-raw-insn "$exe" |
	awk '/^ *[0-9a-f]+:\t/ {
		a = $1; sub(":", "", a); ins = $0; sub(/^[^\t]*\t/, "", ins)
		if (ins ~ /^lock / || ins ~ /^xchg +%[a-z0-9]+,.*\(/) print a
	}' >"$dir/locked"
base=$(basename "$exe")
for f in "$dir"/cg.out.*; do
	# Callgrind's compressed positions: "+N"/"-N" relative to the last
	# address, "*" the same; a cost line after "calls=" is the call's
	# inclusive cost and not the instruction's own.
	awk -v base="$base" -v byfn="$byfn" '
		function num(t,    v, i, d) {
			if (t !~ /^0x/) return t + 0
			v = 0
			for (i = 3; i <= length(t); i++) {
				d = index("0123456789abcdef", substr(t, i, 1)) - 1
				v = v * 16 + d
			}
			return v
		}
		FNR == NR { locked[$1] = 1; next }
		/^desc: Trigger: Client Request: kref / { c = $6; s = $7; n = $8 }
		/^ob=/ { ob = $0; if (ob ~ /\(/) { id = ob; sub(/^ob=/, "", id); sub(/\).*/, ")", id)
			 if (ob ~ /\) /) { nm = ob; sub(/^[^)]*\) /, "", nm); obn[id] = nm } cur_ob = obn[id] } next }
		/^fn=/ { id = $0; sub(/^fn=/, "", id); sub(/\).*/, ")", id)
			 if ($0 ~ /\) /) { nm = $0; sub(/^[^)]*\) /, "", nm); fnn[id] = nm } cur_fn = fnn[id]; next }
		/^cfn=/ { id = $0; sub(/^cfn=/, "", id); sub(/\).*/, ")", id)
			  if ($0 ~ /\) /) { nm = $0; sub(/^[^)]*\) /, "", nm); fnn[id] = nm } next }
		/^calls=/ { skip = 1; next }
		/^(0x[0-9a-f]+|[+-][0-9]+|\*)( |$)/ {
			t = $1
			if (t == "*") addr = addr
			else if (t ~ /^\+/) addr += num(substr(t, 2))
			else if (t ~ /^-/) addr -= num(substr(t, 2))
			else addr = num(t)
			if (skip) { skip = 0; next }
			if (NF >= 3 && cur_ob ~ ("/" base "$")) {
				h = sprintf("%x", addr)
				if (h in locked) { tot += $3; if (byfn) per[cur_fn] += $3 }
			}
			next
		}
		END {
			if (c == "") exit
			printf "%-34s %-7s %8.2f\n", c, s, tot / n
			if (byfn) for (f in per) printf "    %8.2f  %s\n", per[f] / n, f
		}' "$dir/locked" "$f"
done | awk 'BEGIN { printf "%-34s %-7s %8s\n", "case (locked RMW/iteration)", "side", "locked" } { print }'
