#!/bin/sh
# SPDX-License-Identifier: MIT
# run-fuzzer.sh FUZZER SEED_DIR WORK_DIR RUNS SECONDS
#
# A bounded libFuzzer run for CI: starts from the committed seed corpus but
# writes what it discovers into WORK_DIR (libFuzzer adds new inputs to the
# first corpus directory it is given), so the committed corpus only changes
# when someone copies an input over on purpose. Crash reproducers land in
# WORK_DIR too. Exit status is libFuzzer's: 0 clean, non-zero on a finding.
set -eu
fuzzer=$1 seeds=$2 work=$3 runs=$4 secs=$5
mkdir -p "$work/corpus" "$work/artifacts"
exec "$fuzzer" -runs="$runs" -max_total_time="$secs" -max_len=4096 -timeout=10 \
	-rss_limit_mb=1024 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds"
