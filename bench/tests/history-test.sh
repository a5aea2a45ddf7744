#!/bin/bash
# SPDX-License-Identifier: MIT
# history-test.sh GEN HISTORY CASE: ttm-history on a synthetic history of
# eight commits whose latency steps up 20% at the fifth.
#   sqlite    import, re-import (nothing new), refuse bad files, trend marks
#             the step and nothing else, plot renders, runs lists them
#   postgres  the same history in a PostgreSQL server started for the test
#             (Debian's postgresql; skipped, exit 77, without it or without
#             root to run it as the postgres user); trend must print what the
#             SQLite history prints
set -u
gen=$1 hist=$2 case=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/ttm-history-test.XXXXXX") || exit 1
pgbin=
cleanup() {
	if [ -n "$pgbin" ] && [ -f "$dir/pg/postmaster.pid" ]; then
		runuser -u postgres -- "$pgbin/pg_ctl" -D "$dir/pg" -m immediate stop >/dev/null 2>&1
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# Eight runs on commits c1..c8, one a minute apart; c5 onwards 20% slower.
mkdir -p "$dir/runs"
for i in 1 2 3 4 5 6 7 8; do
	scale=1.0
	[ "$i" -ge 5 ] && scale=1.2
	"$gen" "$dir/raw-$i.json" "$scale" "$i" refscale=1 || fail "gen-results"
	jq --arg rev "c${i}000000000" --arg t "2026-12-01T10:0${i}:00Z" \
		'.machine.build.git_rev = $rev | .started_utc = $t' "$dir/raw-$i.json" \
		>"$dir/runs/gen-$i.json" || fail "jq"
done
metric=$(jq -r '.metrics[0].name' "$dir/runs/gen-1.json")

case $case in
sqlite) db=(--db "$dir/history.sqlite") ;;
postgres)
	pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$pgbin" ] || [ ! -x "$pgbin/initdb" ]; then
		echo "SKIP: no PostgreSQL server binaries (apt-get install postgresql)"
		exit 77
	fi
	if [ "$(id -u)" -ne 0 ] || ! id postgres >/dev/null 2>&1; then
		echo "SKIP: starting a PostgreSQL server for the test needs root and the postgres user"
		exit 77
	fi
	chmod 755 "$dir"
	mkdir "$dir/pg" "$dir/sock" && chown postgres "$dir/pg" "$dir/sock" || fail "pg dirs"
	runuser -u postgres -- "$pgbin/initdb" -A trust -U postgres -D "$dir/pg" \
		>"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; fail "initdb"; }
	runuser -u postgres -- "$pgbin/pg_ctl" -D "$dir/pg" -w -l "$dir/sock/pg.log" \
		-o "-k $dir/sock -c listen_addresses=''" start >/dev/null ||
		{ cat "$dir/sock/pg.log" >&2; fail "pg_ctl start"; }
	db=(--pg "host=$dir/sock user=postgres dbname=postgres")
	;;
*) fail "unknown case $case" ;;
esac

out=$("$hist" "${db[@]}" import --source test "$dir/runs") || fail "import: $out"
[ "$out" = "8 runs recorded, 0 already in the history, 0 refused, 0 failed" ] ||
	fail "first import said: $out"
out=$("$hist" "${db[@]}" import "$dir/runs") || fail "re-import: $out"
[ "$out" = "0 runs recorded, 8 already in the history, 0 refused, 0 failed" ] ||
	fail "second import said: $out"

# A file that is not a results file is refused (exit 2), the history unchanged.
echo '{"schema": "ttm-bench-results", "schema_version": 1, "metr' >"$dir/bad.json"
"$hist" "${db[@]}" import "$dir/bad.json" >/dev/null 2>&1
[ $? -eq 2 ] || fail "a malformed file was not refused with exit 2"

trend=$("$hist" "${db[@]}" trend "$metric") || fail "trend"
echo "$trend"
rows=$(grep -c '^2026-12-01' <<<"$trend")
[ "$rows" -eq 8 ] || fail "trend printed $rows runs, not 8"
marked=$(grep -- '<- ' <<<"$trend")
[ "$(wc -l <<<"$marked")" -eq 1 ] || fail "expected exactly one change point: $marked"
grep -q '^2026-12-01T10:05:00Z c5000000000' <<<"$marked" ||
	fail "the change point is not at c5: $marked"
step=$(sed -n 's/.*<- +\([0-9.]*\)%.*/\1/p' <<<"$marked")
awk -v s="${step:-0}" 'BEGIN { exit !(s >= 15 && s <= 25) }' ||
	fail "the step is not about +20% (1% noise per sample): $marked"
"$hist" "${db[@]}" trend "$metric" --last 4 | grep -q '^2026-12-01T10:05' ||
	fail "--last 4 lost the newest runs"
"$hist" "${db[@]}" trend no.such.metric >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown metric did not exit 2"
"$hist" "${db[@]}" runs | grep -q '^8 runs$' || fail "runs did not list 8 runs"

"$hist" "${db[@]}" plot "$metric" -o "$dir/trend.png" >/dev/null || fail "plot"
[ "$(head -c 4 "$dir/trend.png" | od -An -c | tr -d ' ')" = '211PNG' ] ||
	fail "plot wrote no PNG"

if [ "$case" = postgres ]; then
	"$hist" --db "$dir/lite.sqlite" import "$dir/runs" >/dev/null || fail "sqlite import"
	lite=$("$hist" --db "$dir/lite.sqlite" trend "$metric") || fail "sqlite trend"
	# Field by field; numbers within 1e-4 relative (SQLite's own text to
	# REAL conversion may differ from PostgreSQL's in the last bit).
	paste -d'\n' <(echo "$lite") <(echo "$trend") | awk '
		NR % 2 { n = split($0, a); next }
		{
			m = split($0, b)
			if (m != n) exit 1
			for (i = 1; i <= n; i++) {
				if (a[i] == b[i]) continue
				x = a[i] + 0; y = b[i] + 0
				if (a[i] != x "" && a[i] !~ /^[-+0-9.e]+$/) exit 1
				d = x - y; if (d < 0) d = -d
				s = x < 0 ? -x : x
				if (d > 1e-4 * s) exit 1
			}
		}' || {
		diff <(echo "$lite") <(echo "$trend") >&2
		fail "PostgreSQL and SQLite histories disagree"
	}
fi
echo "ok: $case"
