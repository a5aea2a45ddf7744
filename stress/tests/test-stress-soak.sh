#!/bin/bash
# SPDX-License-Identifier: MIT
# test-stress-soak.sh PROG SUBTEST [PROG SUBTEST...] : under --soak a stress
# loop runs for its whole --duration, not only until the operation or round
# cap of a default run (which ends these subtests well within a second).
fails=0
dur=1.5
while [ $# -ge 2 ]; do
	prog=$1 st=$2
	shift 2
	out=$("$prog" --run-subtest "$st" --soak --duration "$dur" 2>/dev/null)
	rc=$?
	t=$(printf '%s\n' "$out" | sed -n "s/^Subtest $st: SUCCESS (\([0-9.]*\)s)\$/\1/p")
	if [ "$rc" -eq 0 ] && [ -n "$t" ] && awk -v t="$t" -v d="$dur" 'BEGIN { exit !(t >= d) }'; then
		echo "ok - $(basename "$prog")@$st --soak ran ${t}s of ${dur}s"
	else
		echo "FAIL - $(basename "$prog")@$st --soak: exit $rc, time '${t}' (want >= ${dur}s)"
		fails=$((fails + 1))
	fi
done
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
