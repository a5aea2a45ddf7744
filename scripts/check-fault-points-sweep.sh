#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-fault-points-sweep.sh [-B BUILDDIR] [--strict] : the fault suite's
# sites x hits table. Lists every fault_should_fail() call site of the core
# and the drivers (ttm/, drm/, i915/ outside tests and benchmarks: each is an
# allocation or I/O failure path, see check-fault-points.sh) and how many
# failures the fault suite injected at it, each site located by the return
# address fault-inject records when a failure fires (fault_print_sites()):
#  - stress/ttm_fault_sweep --run-subtest each-point (core, 2008 uAPI, i915
#    on the simulated GPU), which prints its sites per point;
#  - drm/tests/test-drm-faults (the drm layer's fail-nth sweep), whose
#    sites come through TTM_FAULTS_SITES.
# A second column counts what the unit tests that sweep fault points
# themselves (every ttm/, drm/, i915/ test program whose source arms one:
# fail-nth loops, nth, TTM_FAULTS specs) injected, through TTM_FAULTS_SITES.
# A site nobody fired is listed with 0 and the reason a reader can check
# (the hw back end needs an Intel GPU). Leaks: the programs
# run from BUILDDIR; in a sanitizer tree LeakSanitizer checks every exit
# and any sanitizer report fails this script.
#
# -B BUILDDIR  tree with stress/ttm_fault_sweep and drm/tests/test-drm-faults
#              (default ./build); addr2line resolves its debug info.
# --strict     also fail when a site outside i915/hw was hit by nothing.
# Exit status: 0 ok, 1 a program failed, a sanitizer reported or (--strict)
# a site was missed, 2 usage or a missing tool.
set -u
cd "$(dirname "$0")/.." || exit 2
build=./build strict=false
while [ $# -gt 0 ]; do
	case $1 in
	-B) [ $# -ge 2 ] || { echo "$0: -B needs a directory" >&2; exit 2; }
		build=$2; shift 2 ;;
	--strict) strict=true; shift ;;
	*) echo "usage: $0 [-B BUILDDIR] [--strict]" >&2; exit 2 ;;
	esac
done
sweep=$build/stress/ttm_fault_sweep drmf=$build/drm/tests/test-drm-faults
for x in "$sweep" "$drmf"; do
	[ -f "$x" ] && [ -x "$x" ] || { echo "$0: $x not built (ninja -C $build)" >&2; exit 2; }
done
command -v addr2line >/dev/null || { echo "$0: addr2line (binutils) not found" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# Every source site: "file:line point-name".
grep -rhoE --include='*.c' 'DEFINE_FAULT_POINT\([a-z0-9_]+, *"[^"]+"' ttm drm i915 fault-inject |
	sed -E 's/DEFINE_FAULT_POINT\(([a-z0-9_]+), *"([^"]+)"/\1 \2/' >"$tmp/names"
find ttm drm i915 -name '*.c' ! -path '*/tests/*' ! -name 'benchmark-*' | LC_ALL=C sort |
	xargs grep -nE 'fault_should_fail\(&[a-z0-9_]+' /dev/null |
	sed -E 's/^([^:]+):([0-9]+):.*fault_should_fail\(&([a-z0-9_]+).*/\1:\2 \3/' |
	awk 'NR == FNR { name[$1] = $2; next } { print $1, ($2 in name ? name[$2] : $2) }' \
		"$tmp/names" - >"$tmp/sites"

rc=0
"$sweep" --run-subtest each-point >"$tmp/sweep.log" 2>&1 || {
	echo "$0: $sweep --run-subtest each-point failed:" >&2
	tail -n 20 "$tmp/sweep.log" >&2
	rc=1
}
TTM_FAULTS_SITES=$tmp/drm.sites "$drmf" >"$tmp/drm.log" 2>&1 || {
	echo "$0: $drmf failed:" >&2
	tail -n 20 "$tmp/drm.log" >&2
	rc=1
}
# The unit tests that arm fault points themselves.
for src in $(grep -lE 'fault_thread_fail_nth|fault_set_nth|fault_configure' \
	ttm/tests/test-*.c drm/tests/test-*.c i915/tests/test-*.c i915/gem/tests/test-*.c 2>/dev/null); do
	exe=$build/${src%.c}
	[ -x "$exe" ] || continue
	name=${src##*/}
	TTM_FAULTS_SITES=$tmp/unit.sites "$exe" >"$tmp/unit-$name.log" 2>&1 || {
		echo "$0: $exe failed:" >&2
		tail -n 20 "$tmp/unit-$name.log" >&2
		rc=1
	}
done
if grep -hE 'ERROR: (Address|Leak|Thread|UndefinedBehavior)Sanitizer|runtime error:' \
	"$tmp/sweep.log" "$tmp/drm.log" "$tmp"/unit-*.log >&2; then
	echo "$0: sanitizer report (above)" >&2
	rc=1
fi

# resolve: "fault-site: POINT OBJECT 0xOFF N" lines on stdin -> "file:line N",
# summed per line.
resolve() {
	awk '$1 == "fault-site:" && $4 ~ /^0x/ { print $3, $4, $5 }' | while read -r obj off n; do
		[ -f "$obj" ] || obj=$sweep
		loc=$(addr2line -e "$obj" "$off" | head -n 1)
		# Paths come out relative to the build tree ("BUILD/../ttm/x.c"): keep the part in the repo.
		loc=${loc##*/../}
		loc=${loc%% *}
		echo "$loc $n"
	done | awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }'
}
{ grep -h '^fault-site: ' "$tmp/sweep.log"; cat "$tmp/drm.sites" 2>/dev/null; } | resolve >"$tmp/hits"
cat "$tmp/unit.sites" 2>/dev/null | resolve >"$tmp/unit.hits"

hit=0 unit_only=0 miss=0 missed_core=0 total=0 injected=0
printf '%-36s %-18s %7s %7s  %s\n' site point suite unit note
while read -r site point; do
	n=$(awk -v s="$site" '$1 == s { print $2 }' "$tmp/hits")
	u=$(awk -v s="$site" '$1 == s { print $2 }' "$tmp/unit.hits")
	n=${n:-0} u=${u:-0} note=
	total=$((total + 1))
	if [ "$n" -gt 0 ]; then
		hit=$((hit + 1)) injected=$((injected + n))
	elif [ "$u" -gt 0 ]; then
		unit_only=$((unit_only + 1)) note="unit tests only"
	else
		miss=$((miss + 1))
		case $site in
		i915/hw/*) note="hw back end: needs an Intel GPU" ;;
		*) note="not reached"; missed_core=$((missed_core + 1)) ;;
		esac
	fi
	printf '%-36s %-18s %7s %7s  %s\n' "$site" "$point" "$n" "$u" "$note"
done <"$tmp/sites"
# Fired sites that are not in the list (a line the debug info moved);
# the tests' own points are not sites of the core.
other=$(cat "$tmp/hits" "$tmp/unit.hits" | awk 'NR == FNR { s[$1] = 1; next } !($1 in s)' "$tmp/sites" - |
	grep -v '/tests/' | LC_ALL=C sort)
[ -z "$other" ] || { echo "fired at lines not listed as sites:"; echo "$other" | sed 's/^/    /'; }
echo "fault sites: $total; $hit hit by the fault suite ($injected failures injected)," \
	"$unit_only more by unit tests only, $miss by neither ($missed_core outside i915/hw)"
$strict && [ "$missed_core" -gt 0 ] && rc=1
exit $rc
