#!/bin/bash
# SPDX-License-Identifier: MIT
# test-igt-scripts.sh SRCDIR IGT_SELFTEST : scripts/igt-run.sh writes an
# igt_runner-shaped results.json for the demo program and
# scripts/stress-report.sh summarises it and a log directory.
src=$1 prog=$2
fails=0
command -v jq >/dev/null || { echo "jq not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { if eval "$2"; then echo "ok - $1"; else echo "FAIL - $1"; fails=$((fails + 1)); fi; }

# Force the direct path even where igt_runner is installed.
PATH=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r d; do
	[ -x "$d/igt_runner" ] || printf '%s:' "$d"; done)
"$src/scripts/igt-run.sh" -o "$tmp/res" "$prog" >/dev/null 2>&1
rc=$?
check "igt-run exit 1 (demo has failures)" "[ $rc -eq 1 ]"
j=$tmp/res/results.json
n=$(basename "$prog")
check "pass entry" "[ \"\$(jq -r '.tests[\"igt@$n@pass\"].result' $j)\" = pass ]"
check "crash entry" "[ \"\$(jq -r '.tests[\"igt@$n@crash\"].result' $j)\" = crash ]"
check "dynamic entry" "[ \"\$(jq -r '.tests[\"igt@$n@dyn-fail@bad\"].result' $j)\" = fail ]"
check "totals" "[ \"\$(jq -c '.totals.root | [.pass, .fail, .skip, .crash]' $j)\" = '[8,3,3,2]' ]"
check "has out/err/time/uname/runtimes" \
	"jq -e '(.tests[\"igt@$n@pass\"] | has(\"out\") and has(\"err\") and (.time | has(\"start\") and has(\"end\"))) and (.uname | length > 0) and (.runtimes | has(\"igt@$n\"))' $j >/dev/null"

rep=$("$src/scripts/stress-report.sh" "$j")
check "report row with checks" "grep -qE '^igt@$n@pass +pass +[0-9.]+ +10 +4096 +2\$' <<<\"\$rep\""
check "report totals" "grep -qxE '16 subtests: .*' <<<\"\$rep\""
mkdir "$tmp/logs"
"$prog" >"$tmp/logs/$n.log" 2>/dev/null
rep=$("$src/scripts/stress-report.sh" "$tmp/logs")
check "log report row" "grep -qE '^igt@$n@pass +SUCCESS +[0-9.]+ +10 +4096 +2\$' <<<\"\$rep\""
check "log report dynamic row" "grep -qE '^igt@$n@dyn@two +SKIP ' <<<\"\$rep\""
# Input that is not a run: one line on stderr, exit 2, never an empty table.
printf 'not json\n' >"$tmp/notjson.json"
printf '{"tests": {}}\n' >"$tmp/empty.json"
printf '{"tests": 5}\n' >"$tmp/notobj.json"
mkdir "$tmp/nologs" && printf 'garbage\n' >"$tmp/nologs/x.log"
for f in "$tmp/notjson.json" "$tmp/empty.json" "$tmp/notobj.json" "$tmp/nologs" /dev/null \
	"$tmp/missing"; do
	"$src/scripts/stress-report.sh" "$f" >"$tmp/rep.out" 2>"$tmp/rep.err"
	rc=$?
	check "report refuses $(basename "$f")" \
		"[ $rc -eq 2 ] && [ ! -s \"$tmp/rep.out\" ] && [ \"\$(wc -l <\"$tmp/rep.err\")\" -eq 1 ]"
done
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
