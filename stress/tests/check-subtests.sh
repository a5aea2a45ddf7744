#!/bin/sh
# SPDX-License-Identifier: MIT
# check-subtests.sh PROGRAM NAME... : fail unless PROGRAM --list-subtests
# prints exactly NAME... in that order, so the per-subtest test() entries in
# stress/meson.build cannot drift from the program.
prog=$1
shift
got=$("$prog" --list-subtests) || { echo "$prog --list-subtests failed" >&2; exit 1; }
want=$(printf '%s\n' "$@")
if [ "$got" != "$want" ]; then
	echo "subtest list of $prog differs from stress/meson.build:" >&2
	printf '%s\n' "$want" >/tmp/check-subtests.$$.want
	printf '%s\n' "$got" >/tmp/check-subtests.$$.got
	diff -u /tmp/check-subtests.$$.want /tmp/check-subtests.$$.got >&2
	rm -f /tmp/check-subtests.$$.want /tmp/check-subtests.$$.got
	exit 1
fi
exit 0
