#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Find the commit that made a metric slower: git bisect run, each step judged
# by a paired A/B comparison (ttm-compare --run) of the known good commit
# against the commit under test.
#
#   ./scripts/bisect.sh [options] GOOD BAD METRIC-GLOB
#     --bench LIST       benchmarks to run (names after benchmark-; default validate)
#     --rounds N         paired rounds per step (default 10)
#     --threshold PCT    smallest change that counts (default 1)
#     --args "ARGS"      arguments of every benchmark run (default --quick)
#     --compare PATH     the ttm-compare to use (default: build-bench/bench/ttm-compare,
#                        built when missing); it is copied aside first, so the
#                        checkouts of the bisection cannot change it
#
# A step is "bad" when METRIC-GLOB (fnmatch over metric names, e.g.
# 'validate.in_place.*') has a metric that REGRESSED against GOOD, "good" when
# none did, and skipped (exit 125) when the commit cannot be built or run.
# Each commit is built once under $XDG_CACHE_HOME/ttm-ab/<commit>/ and reused.
# Prints "first bad commit: <sha> <subject>" and leaves the repository where
# it was (git bisect reset). Exit: 0 found; 1 not found; 2 bad usage.
set -u
bench=validate rounds=10 threshold=1 args=--quick compare=
usage() {
	sed -n '5,19p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--bench) [ $# -ge 2 ] || usage; bench=$2; shift ;;
	--rounds) [ $# -ge 2 ] || usage; rounds=$2; shift ;;
	--threshold) [ $# -ge 2 ] || usage; threshold=$2; shift ;;
	--args) [ $# -ge 2 ] || usage; args=$2; shift ;;
	--compare) [ $# -ge 2 ] || usage; compare=$2; shift ;;
	-h | --help) usage ;;
	-*) echo "bisect.sh: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 3 ] || usage
good_spec=$1 bad_spec=$2 metric=$3
[[ $rounds =~ ^[0-9]+$ ]] && [ "$rounds" -ge 3 ] || { echo "bisect.sh: --rounds takes a number >= 3" >&2; exit 2; }

top=$(git rev-parse --show-toplevel 2>/dev/null) || { echo "bisect.sh: not in a git tree" >&2; exit 2; }
cd "$top" || exit 2
good=$(git rev-parse --verify --quiet "$good_spec^{commit}") ||
	{ echo "bisect.sh: $good_spec is not a commit" >&2; exit 2; }
bad=$(git rev-parse --verify --quiet "$bad_spec^{commit}") ||
	{ echo "bisect.sh: $bad_spec is not a commit" >&2; exit 2; }
git merge-base --is-ancestor "$good" "$bad" ||
	{ echo "bisect.sh: $good_spec is not an ancestor of $bad_spec" >&2; exit 2; }
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	{ echo "bisect.sh: the work tree has uncommitted changes; commit or stash them first" >&2; exit 2; }

if [ -z "$compare" ]; then
	. "$top/scripts/lib.sh"
	ttm_configure build-bench -Dbuildtype=release -Db_ndebug=true -Dfault_inject=true || exit 2
	ninja -C build-bench bench/ttm-compare bench/ttm-history >/dev/null || exit 2
	compare=build-bench/bench/ttm-compare
fi
[ -x "$compare" ] || { echo "bisect.sh: $compare is not executable" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ttm-bisect.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
cp "$compare" "$work/ttm-compare" || exit 2
hist="$(dirname "$compare")/ttm-history"
[ -x "$hist" ] && cp "$hist" "$work/ttm-history"

# The step git bisect runs at each commit.
cat >"$work/step.sh" <<EOF
#!/usr/bin/env bash
sha=\$(git rev-parse HEAD)
[ "\$sha" = "$good" ] && exit 0
out=\$("$work/ttm-compare" --run "$good" "\$sha" --bench "$bench" --rounds "$rounds" \\
	--threshold "$threshold" --metrics '$metric' --args "$args" --out "$work/step-\$sha" \\
	2>"$work/step-\$sha.err")
rc=\$?
echo "\$out" >"$work/step-\$sha.txt"
case \$rc in
0) echo "bisect: \$(git log -1 --format='%h %s') is good" >&2; exit 0 ;;
1) echo "bisect: \$(git log -1 --format='%h %s') is bad:" >&2
   grep REGRESSED <<<"\$out" | sed 's/^/    /' >&2; exit 1 ;;
*) echo "bisect: \$(git log -1 --format='%h %s') cannot be judged (skip):" >&2
   tail -n 3 "$work/step-\$sha.err" | sed 's/^/    /' >&2; exit 125 ;;
esac
EOF
chmod +x "$work/step.sh"

orig=$(git symbolic-ref -q --short HEAD || git rev-parse HEAD)
git bisect start "$bad" "$good" >/dev/null || exit 2
git bisect run "$work/step.sh" >"$work/bisect.log" 2>&1
first=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$work/bisect.log" | head -n 1)
git bisect reset "$orig" >/dev/null 2>&1
grep -E '^(bisect: |    )' "$work/bisect.log" >&2
if [ -n "$first" ]; then
	echo "first bad commit: $(git log -1 --format='%H %s' "$first")"
	exit 0
fi
echo "bisect.sh: no first bad commit found (see the steps above)" >&2
exit 1
