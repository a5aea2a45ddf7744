#!/bin/bash
# SPDX-License-Identifier: MIT
# test-igt-protocol.sh IGT_SELFTEST : runs the demo program with the igt
# options and checks stdout lines and exit codes exactly.
P=$1
fails=0
out=
err=
rc=

run() { # run ARGS... : fills $out (stdout), $err (stderr), $rc
	local e
	e=$(mktemp)
	out=$("$P" "$@" 2>"$e")
	rc=$?
	err=$(cat "$e")
	rm -f "$e"
}
ok() { echo "ok - $1"; }
bad() { echo "FAIL - $1"; fails=$((fails + 1)); }
expect_rc() { # NAME WANT
	if [ "$rc" -eq "$2" ]; then ok "$1: exit $2"; else bad "$1: exit $rc, want $2"; fi
}
expect_line() { # NAME LINE : exact line present in stdout
	if printf '%s\n' "$out" | grep -qxF -- "$2"; then ok "$1: '$2'"
	else bad "$1: missing line '$2'"; printf '%s\n' "$out" | sed 's/^/    | /'; fi
}
expect_no_line() { # NAME REGEX : no stdout line matches
	if printf '%s\n' "$out" | grep -qE -- "$2"; then bad "$1: unexpected '$2'"
	else ok "$1: no '$2'"; fi
}
expect_err() { # NAME REGEX
	if printf '%s\n' "$err" | grep -qE -- "$2"; then ok "$1: stderr has '$2'"
	else bad "$1: stderr lacks '$2'"; printf '%s\n' "$err" | sed 's/^/    ! /'; fi
}
expect_no_err() { # NAME REGEX
	if printf '%s\n' "$err" | grep -qE -- "$2"; then bad "$1: stderr has '$2'"
	else ok "$1: stderr lacks '$2'"; fi
}
subtests() { # the "Subtest X: R" names, space separated
	printf '%s\n' "$out" | sed -n 's/^Subtest \([^:]*\): \([A-Z]*\) ([0-9.]*s)$/\1=\2/p' | tr '\n' ' '
}
expect_results() { # NAME "a=SUCCESS b=SKIP "
	local got
	got=$(subtests)
	if [ "$got" = "$2" ]; then ok "$1: results '$2'"
	else bad "$1: results '$got', want '$2'"; fi
}

all="pass skip fail crash abort-signal dyn dyn-fail dyn-empty params after-fixture-a after-fixture-b"

run --list-subtests
expect_rc list 0
if [ "$out" = "$(printf '%s\n' $all)" ] && [ -z "$err" ]; then ok "list: exact"
else bad "list: got '$out' err '$err'"; fi

run --show-testlist
expect_rc testlist 0
expect_line testlist "igt@$(basename "$P")@pass"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 11 ] && ok "testlist: 11 lines" || bad "testlist: line count"

run --run-subtest pass
expect_rc pass 0
printf '%s\n' "$out" | head -1 | grep -qE '^IGT-Version: 1\.[0-9]+-[^ ]+ \(x86_64\) \(Linux: [^ ]+ x86_64\)$' &&
	ok "version line first" || bad "version line: $(printf '%s\n' "$out" | head -1)"
expect_line pass "Starting subtest: pass"
expect_results pass "pass=SUCCESS "
expect_line pass "checks: operations=10 bytes_verified=4096 faults_injected=2"
expect_no_err "pass: no debug dump" "debug-from-pass|DEBUG"

run --run-subtest skip
expect_rc all-skip 77
expect_results skip "skip=SKIP "

run --run-subtest fail
expect_rc fail 98
expect_results fail "fail=FAIL "
expect_err "fail: debug dumped" "debug-from-fail"
expect_err "fail: assertion" "Failed assertion: 1 == 2"

run --run-subtest crash
expect_rc crash 98
expect_results crash "crash=CRASH "
expect_err "crash: debug dumped" "debug-from-crash"

run --run-subtest abort-signal
expect_rc abort-signal 98
expect_results abort-signal "abort-signal=CRASH "

run --run-subtest 'pass,skip'
expect_rc "comma" 0
expect_results comma "pass=SUCCESS skip=SKIP "

run --run-subtest 'after-*'
expect_rc star 0
expect_results star "after-fixture-a=SUCCESS after-fixture-b=SUCCESS "

run --run-subtest 'after-fixture-?'
expect_results question "after-fixture-a=SUCCESS after-fixture-b=SUCCESS "

run --run-subtest 'after-fixture-[b-z]'
expect_results class "after-fixture-b=SUCCESS "

run --run-subtest 'after-fixture-[^b]'
expect_results negclass "after-fixture-a=SUCCESS "

run --run-subtest 'after-*,!*-b'
expect_results "negation (last match wins)" "after-fixture-a=SUCCESS "

run --run-subtest 'nosuch'
expect_rc unknown 79
expect_err unknown "^Unknown subtest: nosuch$"
expect_no_line unknown "^Subtest "

run --no-such-option
expect_rc "invalid option" 79

run --duration abc
expect_rc "invalid duration" 79

run --run-subtest dyn
expect_rc dyn 0
expect_line dyn "Starting dynamic subtest: one"
expect_line dyn "Starting dynamic subtest: two"
printf '%s\n' "$out" | grep -qxE 'Dynamic subtest one: SUCCESS \([0-9]+\.[0-9]{3}s\)' && ok "dyn one" || bad "dyn one"
printf '%s\n' "$out" | grep -qxE 'Dynamic subtest two: SKIP \([0-9]+\.[0-9]{3}s\)' && ok "dyn two" || bad "dyn two"
expect_results dyn "dyn=SUCCESS "

run --run-subtest dyn --dynamic-subtest three
expect_no_line "dynamic filter" "dynamic subtest: one"
expect_line "dynamic filter" "Starting dynamic subtest: three"

run --dynamic-subtest nosuch
expect_rc "unknown dynamic subtest" 79
expect_err "unknown dynamic subtest" "^Unknown dynamic subtest: nosuch$"
expect_no_line "unknown dynamic subtest" "^Subtest (pass|fail|params): "

run --run-subtest dyn --dynamic-subtest nosuch
expect_rc "unknown dynamic subtest in a subtest" 79

run --dynamic-subtest three
expect_rc "dynamic subtest only" 0
expect_line "dynamic subtest only" "Starting dynamic subtest: three"
expect_no_line "dynamic subtest only" "^Starting subtest: (pass|params)$"

# A fault spec that does not parse: one line naming the token, exit 79, nothing run.
out=$(TTM_FAULTS="nosuchpoint:nth=1" "$P" --run-subtest pass 2>"${TMPDIR:-/tmp}/igt-proto.$$"); rc=$?
err=$(cat "${TMPDIR:-/tmp}/igt-proto.$$"); rm -f "${TMPDIR:-/tmp}/igt-proto.$$"
expect_rc "bad TTM_FAULTS" 79
expect_err "bad TTM_FAULTS" "nosuchpoint"
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && ok "bad TTM_FAULTS: one line" || bad "bad TTM_FAULTS: $err"
expect_no_line "bad TTM_FAULTS" "^Starting subtest"

for d in nan inf -1 0 1e9 " 1" 1x ""; do
	run --run-subtest params --duration "$d"
	expect_rc "--duration '$d'" 79
done
run --run-subtest params --seed -1
expect_rc "--seed -1" 79

run --run-subtest dyn-fail
expect_rc dyn-fail 98
printf '%s\n' "$out" | grep -qxE 'Dynamic subtest bad: FAIL \([0-9.]+s\)' && ok "dyn bad" || bad "dyn bad"
expect_results dyn-fail "dyn-fail=FAIL "

run --run-subtest dyn-empty
expect_rc dyn-empty 77
expect_results dyn-empty "dyn-empty=SKIP "

run --run-subtest params --duration 1.5 --seed 42
expect_line params "budget=1.500 seed=42"
out=$(IGT_STRESS_DURATION=3 IGT_SEED=7 "$P" --run-subtest params 2>/dev/null)
expect_line "params env" "budget=3.000 seed=7"

run --run-subtest pass --debug
expect_err "--debug live" "debug-from-pass"

out=$(IGT_SELFTEST_FIXTURE=skip "$P" --run-subtest 'pass,after-*' 2>/dev/null); rc=$?
expect_rc "fixture skip" 0
expect_results "fixture skip" "pass=SUCCESS after-fixture-a=SKIP after-fixture-b=SKIP "
expect_no_line "fixture skip" "after-.* ran"

out=$(IGT_SELFTEST_FIXTURE=skip "$P" --run-subtest 'after-*' 2>/dev/null); rc=$?
expect_rc "fixture skip only" 77

out=$(IGT_SELFTEST_FIXTURE=fail "$P" --run-subtest 'after-*' 2>/dev/null); rc=$?
expect_rc "fixture fail" 98
expect_results "fixture fail" "after-fixture-a=FAIL after-fixture-b=FAIL "

run --help-description
expect_rc help-description 0
expect_line help-description "Self-test of the igt harness: pass, skip, fail, crash, dynamic."

run
expect_rc "whole program" 98
[ "$(printf '%s\n' "$out" | grep -c '^Starting subtest: ')" -eq 11 ] && ok "all 11 ran" || bad "not all ran"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
