#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The USDT probes a build carries must be the ones ttm_trace.h documents:
#
#   check-probes.sh TTM_TRACE_H LIBRARY...
#
# Reads the probe names listed in ttm_trace.h's comment ("name(args)" after
# the line "Probe names used by the project"), and the provider-ttm probe
# descriptors (NT_STAPSDT notes) in the given libraries or programs with
# readelf. Every documented probe must have a site and every site must be
# documented; perf-profile.sh and the README promise exactly that list.
# Every site of one probe must also pass the same argument sizes, none of
# them a constant: perf probe skips an immediate operand, and two sites of
# one name whose arguments then differ make 'perf probe -a sdt_ttm:*' fail
# with "File exists" for the whole provider.
# Exit 0 when they agree, 1 with the difference, 77 when no library carries
# a probe note (a build without sys/sdt.h), 2 on bad usage.
set -u
[ $# -ge 2 ] || { echo "usage: $0 TTM_TRACE_H LIBRARY..." >&2; exit 2; }
header=$1
shift
command -v readelf >/dev/null || { echo "SKIP: readelf not found"; exit 77; }
[ -r "$header" ] || { echo "cannot read $header" >&2; exit 2; }

documented=$(sed -n '/Probe names used by the project/,/\*\//p' "$header" |
	grep -oE '[a-z_]+\(' | tr -d '(' | sort -u)
[ -n "$documented" ] || { echo "$header lists no probe names" >&2; exit 2; }

notes=$(for lib in "$@"; do
	[ -r "$lib" ] || { echo "cannot read $lib" >&2; exit 2; }
	readelf -n "$lib" 2>/dev/null
done) || exit 2
grep -q 'NT_STAPSDT' <<<"$notes" || { echo "SKIP: no USDT probe notes in $*"; exit 77; }
built=$(awk '/Provider:/ { p = $2 } /Name:/ && p == "ttm" { print $2 }' <<<"$notes" | sort -u)

rc=0
# name, then each argument's size (the part before '@'); an immediate is "$".
shapes=$(awk '/Provider:/ { p = $2 } /Name:/ { n = $2 }
	/Arguments:/ && p == "ttm" {
		s = n
		for (i = 2; i <= NF; i++) {
			split($i, a, "@")
			s = s " " a[1] (substr(a[2], 1, 1) == "$" ? "$" : "")
		}
		print s
	}' <<<"$notes" | sort -u)
bad=$(awk '{ n[$1]++ } END { for (k in n) if (n[k] > 1) print k }' <<<"$shapes")
if [ -n "$bad" ]; then
	echo "probes whose sites pass different argument sizes:" $bad
	rc=1
fi
imm=$(awk '/\$/ { print $1 }' <<<"$shapes" | sort -u)
if [ -n "$imm" ]; then
	echo "probes with a constant argument (perf skips it):" $imm
	rc=1
fi
missing=$(comm -23 <(echo "$documented") <(echo "$built"))
extra=$(comm -13 <(echo "$documented") <(echo "$built"))
if [ -n "$missing" ]; then
	echo "documented in $(basename "$header") but no probe site in the build:" $missing
	rc=1
fi
if [ -n "$extra" ]; then
	echo "probe sites not documented in $(basename "$header"):" $extra
	rc=1
fi
[ $rc -eq 0 ] && echo "ok: $(wc -w <<<"$built") ttm probes, as documented:" $built
exit $rc
