#!/bin/sh
# SPDX-License-Identifier: MIT
# run-fuzzer.sh FUZZER SEED_DIR WORK_DIR RUNS SECONDS
#
# A bounded libFuzzer run for CI: starts from the committed seed corpus but
# writes what it discovers into WORK_DIR (libFuzzer adds new inputs to the
# first corpus directory it is given), so the committed corpus only changes
# when someone copies an input over on purpose. Crash reproducers land in
# WORK_DIR too. RUNS and SECONDS are whole numbers >= 1. Exit status is
# libFuzzer's: 0 clean, non-zero on a finding; 2 with one line on stderr
# for bad arguments (checked before anything runs).
set -eu
usage="usage: $0 FUZZER SEED_DIR WORK_DIR RUNS SECONDS"
[ $# -eq 5 ] || { echo "$usage" >&2; exit 2; }
fuzzer=$1 seeds=$2 work=$3 runs=$4 secs=$5
for n in "$runs" "$secs"; do
	case $n in
	'' | *[!0-9]* | 0*) echo "$0: '$n' is not a whole number >= 1" >&2; exit 2 ;;
	esac
	[ ${#n} -le 9 ] || { echo "$0: '$n' is too large" >&2; exit 2; }
done
[ -f "$fuzzer" ] && [ -x "$fuzzer" ] || { echo "$0: $fuzzer: not an executable file" >&2; exit 2; }
[ -d "$seeds" ] || { echo "$0: $seeds: no such seed directory" >&2; exit 2; }
[ ! -e "$work" ] || [ -d "$work" ] || { echo "$0: $work: exists and is not a directory" >&2; exit 2; }
mkdir -p "$work/corpus" "$work/artifacts" 2>/dev/null ||
	{ echo "$0: $work: cannot create the work directories" >&2; exit 2; }
exec "$fuzzer" -runs="$runs" -max_total_time="$secs" -max_len=4096 -timeout=10 \
	-rss_limit_mb=1024 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds"
