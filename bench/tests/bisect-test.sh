#!/bin/bash
# SPDX-License-Identifier: MIT
# bisect-test.sh GEN COMPARE BISECT: scripts/bisect.sh on a short history of
# a stand-in project (a muon-built "benchmark" that writes a results file
# through gen-results) whose latency gets 5% slower at one commit of six.
# The script must name that commit.
set -u
gen=$1 cmp=$2 bisect=$3
command -v muon-meson >/dev/null || { echo "SKIP: muon-meson is not installed"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/ttm-bisect-test.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
export XDG_CACHE_HOME="$dir/cache" TTM_HISTORY_DB="$dir/history.sqlite"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
repo="$dir/repo"
mkdir -p "$repo/bench" "$repo/scripts"
cp "$bisect" "$repo/scripts/bisect.sh" || fail "copy bisect.sh"
cd "$repo" || exit 1
git init -q . || fail "git init"
cat >meson.build <<'EOF'
project('bisect-fixture')
subdir('bench')
EOF
cat >bench/meson.build <<'EOF'
custom_target('benchmark-gen', input: 'gen.sh', output: 'benchmark-gen',
  command: ['cp', '@INPUT@', '@OUTPUT@'], build_by_default: true)
EOF
# commit N SCALE: one commit whose benchmark scales the latency by SCALE.
commit() {
	cat >bench/gen.sh <<EOF
#!/bin/bash
# step $1
out=
while [ \$# -gt 0 ]; do case \$1 in --out) out=\$2; shift ;; esac; shift; done
n=\$(( \$(cat "$dir/count" 2>/dev/null || echo 0) + 1 ))
echo \$n >"$dir/count"
exec "$gen" "\$out/gen.json" $2 "\$n" refscale=1
EOF
	chmod +x bench/gen.sh
	git add -A && git commit -q -m "step $1 (scale $2)" || fail "commit $1"
}
commit 1 1.0
commit 2 1.0
commit 3 1.0
commit 4 1.05
commit 5 1.05
commit 6 1.05
good=$(git rev-parse HEAD~5) planted=$(git rev-parse HEAD~2) head=$(git symbolic-ref HEAD)

out=$(./scripts/bisect.sh --compare "$cmp" --bench gen --rounds 8 "$good" HEAD 'gen.latency' 2>"$dir/err")
rc=$?
echo "$out"
cat "$dir/err" >&2
[ $rc -eq 0 ] || fail "bisect.sh exited $rc"
grep -q "^first bad commit: $planted step 4" <<<"$out" || fail "did not name the planted commit $planted"
[ "$(git symbolic-ref HEAD)" = "$head" ] && [ -z "$(git status --porcelain)" ] ||
	fail "the repository was not left where it was"
grep -q 'is bad:' "$dir/err" && grep -q 'gen.latency.*REGRESSED' "$dir/err" ||
	fail "the bad steps do not show the regressed metric"
echo "ok: bisect named the planted commit"
