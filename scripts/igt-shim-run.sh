#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# igt-shim-run.sh -p tgl|dg2 [-o DIR] [-x EXPECTED] [-l LIST] [-b BUILDDIR]
#                 [-t TIMEOUT_S] [TEST[@SUBTEST-GLOB]...]
#
# Runs igt-gpu-tools tests (built by scripts/igt-build.sh) through igt_runner
# against the emulated i915 render node: every test process gets the node
# library (node/ of the project build) in LD_PRELOAD and TTM_I915_PROFILE set
# to the profile. Entries name a test binary, optionally with an fnmatch glob
# on its subtest names (gem_exec_nop@basic-*); -l adds the entries of a list
# file (scripts/igt/acceptance-<profile>.txt format). With neither, the
# profile's acceptance list runs.
#
# Prints one line per subtest (result, name, igt's own requirement/assertion
# message for skips and failures), then "N pass, N fail, N skip, N crash" and
# the results directory (igt_runner's results.json is there).
#
# EXPECTED (default scripts/igt/expected-fail-<profile>.txt when present) lists
# subtests that fail only because a forked child (igt_fork) touched the device,
# which lives in the process that opened it; one "test@subtest reason" a line.
# A listed subtest must fail with the node's fork message in its output
# (IGT_FORK_STOP_RE, default the node's "a forked child cannot use it" line),
# otherwise it counts as an unexpected failure too.
#
# -R reports the earlier run in DIR again (its joblist.txt and results.json),
# without running anything: for a changed expected-failure list.
#
# Exit status: 0 when every failure or crash is listed and no listed subtest
# passed; 1 otherwise (unexpected failure, unexpected pass, runner trouble);
# 77 when igt or the node library is not available; 2 on bad usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

usage() {
	echo "usage: $0 -p tgl|dg2 [-o DIR] [-x EXPECTED] [-l LIST] [-b BUILDDIR] [-t TIMEOUT_S] [TEST[@SUBTEST-GLOB]...]" >&2
	echo "       $0 -p tgl|dg2 -R -o DIR [-x EXPECTED]   (report an earlier run of DIR again)" >&2
	exit 2
}

profile='' out='' expected='' bdir=${TTM_BUILD:-$TTM_TOP/build-igt} tmo=${IGT_TIMEOUT:-120}
lists=()
report_only=''
while getopts p:o:x:l:b:t:R opt; do
	case $opt in
	R) report_only=1 ;;
	p) profile=$OPTARG ;;
	o) out=$OPTARG ;;
	x) expected=$OPTARG ;;
	l) lists+=("$OPTARG") ;;
	b) bdir=$OPTARG ;;
	t) tmo=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
case $profile in tgl | dg2) ;; *) usage ;; esac
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "$report_only" ]; then
	[ -n "$out" ] && [ -f "$out/results.json" ] && [ -f "$out/joblist.txt" ] ||
		{ echo "$0: -R needs -o DIR of an earlier run" >&2; exit 2; }
	sed -E 's/^([^ ]+) (.+)$/igt@\1@\2/; s/^([^ @]+)$/igt@\1/' "$out/joblist.txt" >"$tmp/jobs"
	if [ -z "$expected" ] && [ -f "$here/igt/expected-fail-$profile.txt" ]; then
		expected=$here/igt/expected-fail-$profile.txt
	fi
	fork_re=${IGT_FORK_STOP_RE:-ttm-i915-node: .*a forked child cannot use it}
else
	entries=("$@")
	[ ${#entries[@]} -gt 0 ] || [ ${#lists[@]} -gt 0 ] || lists=("$here/igt/acceptance-$profile.txt")
	for l in ${lists[@]+"${lists[@]}"}; do
		[ -f "$l" ] || { echo "$0: no list $l" >&2; exit 2; }
		mapfile -t -O ${#entries[@]} entries < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$l" | grep -v '^$')
	done
	[ ${#entries[@]} -gt 0 ] || { echo "$0: nothing to run" >&2; exit 2; }
	if [ -z "$expected" ] && [ -f "$here/igt/expected-fail-$profile.txt" ]; then
		expected=$here/igt/expected-fail-$profile.txt
	fi
	[ -z "$expected" ] || [ -f "$expected" ] || { echo "$0: no expected-failure list $expected" >&2; exit 2; }
	[ -n "$out" ] || out=$TTM_TOP/igt-results/shim-$profile
	fork_re=${IGT_FORK_STOP_RE:-ttm-i915-node: .*a forked child cannot use it}


	# igt itself: the acceptance lists plus whatever else was asked for.
	printf '%s\n' "${entries[@]%%@*}" >"$tmp/wanted.txt"
	bld=$("$here/igt-build.sh" -q "$here"/igt/acceptance-*.txt "$tmp/wanted.txt")
	rc=$?
	[ $rc -eq 0 ] || exit $rc

	# The node library from the project build (configured and built when missing).
	shim=${TTM_SHIM:-}
	if [ -z "$shim" ]; then
		if [ ! -f "$bdir/build.ninja" ]; then
			ttm_configure "$bdir" || { echo "$0: cannot configure $bdir" >&2; exit 1; }
		fi
		# Only the node library (and what it links), not the whole tree.
		mapfile -t libs < <(ninja -C "$bdir" -t targets all 2>/dev/null |
			sed -nE 's|^(node/[^/:]*\.so):.*|\1|p' | sort -u)
		if [ ${#libs[@]} -gt 0 ]; then
			ninja -C "$bdir" "${libs[@]}" >"$tmp/ninja.log" 2>&1 || {
				tail -n 40 "$tmp/ninja.log" >&2
				echo "$0: building ${libs[*]} in $bdir failed" >&2
				exit 1
			}
		fi
		mapfile -t libs < <(find "$bdir/node" -maxdepth 1 -name '*.so' -type f 2>/dev/null | sort)
		if [ ${#libs[@]} -eq 0 ]; then
			echo "$0: no render-node library in $bdir/node (node/ not built yet?); set TTM_SHIM=/path/to/lib.so" >&2
			exit 77
		fi
		[ ${#libs[@]} -eq 1 ] || { echo "$0: several libraries in $bdir/node (${libs[*]}); set TTM_SHIM" >&2; exit 2; }
		shim=${libs[0]}
	fi
	shim=$(readlink -f "$shim")
	[ -f "$shim" ] || { echo "$0: no node library $shim" >&2; exit 77; }

	# The job list: igt@test@subtest for every subtest an entry's glob matches
	# (igt@test for a test without subtests). --list-subtests needs no device.
	: >"$tmp/jobs"
	for e in "${entries[@]}"; do
		t=${e%%@*} glob='*'
		[ "$t" = "$e" ] || glob=${e#*@}
		[ -x "$bld/tests/$t" ] || { echo "$0: igt test $t was not built" >&2; exit 1; }
		subs=$("$bld/tests/$t" --list-subtests 2>/dev/null) || { echo "$0: $t --list-subtests failed" >&2; exit 1; }
		if [ -z "$subs" ]; then
			echo "igt@$t" >>"$tmp/jobs"
			continue
		fi
		n=0
		while read -r s; do
			# shellcheck disable=SC2053
			if [[ $s == $glob ]]; then
				echo "igt@$t@$s" >>"$tmp/jobs"
				n=$((n + 1))
			fi
		done <<<"$subs"
		[ $n -gt 0 ] || { echo "$0: $e matches no subtest of $t" >&2; exit 1; }
	done
	awk '!seen[$0]++' "$tmp/jobs" >"$tmp/jobs.u" && mv "$tmp/jobs.u" "$tmp/jobs"

	mkdir -p "$(dirname "$out")" || exit 1
	# igt's allocator (lib/intel_allocator_msgchannel.c) grows its SysV message
	# queue to 288 KiB, which needs CAP_SYS_RESOURCE or kernel.msgmnb at least
	# that large; containers often have neither, and every test using the
	# allocator would fail in its fixture.
	msgmnb=$(cat /proc/sys/kernel/msgmnb 2>/dev/null || echo 0)
	if [ "$msgmnb" -lt 294912 ] && ! { echo 294912 >/proc/sys/kernel/msgmnb; } 2>/dev/null; then
		ttm_log "igt: kernel.msgmnb is $msgmnb (< 294912) and not writable: tests using igt's allocator will fail"
	fi
	# That queue is one per IPC namespace, keyed by /tmp/igt.allocator.key: two
	# runs at once (both profiles, or two people) would remove each other's
	# queue mid-test ("Identifier removed"). Each run gets its own namespace
	# where it can (root), with the queue limit raised inside it.
	ipc=()
	if unshare --ipc true 2>/dev/null; then
		ipc=(unshare --ipc sh -c 'echo 294912 >/proc/sys/kernel/msgmnb; exec "$@"' sh)
	fi
	ttm_log "igt: $(wc -l <"$tmp/jobs") subtests on $profile under $shim"
	# The kernel's log says nothing about a device that lives in user space, so
	# only drm/i915 lines in it (piglit's filter) may change a result.
	${ipc[@]+"${ipc[@]}"} "$bld/runner/igt_runner" --allow-non-root --overwrite --piglit-style-dmesg \
		--per-test-timeout "$tmo" --inactivity-timeout "$tmo" \
		-e "LD_PRELOAD=$shim" -e "TTM_I915_PROFILE=$profile" \
		-n "ttm-node-$profile" --test-list "$tmp/jobs" "$bld/tests" "$out" \
		>"$tmp/runner.log" 2>&1
	runner_rc=$?
	cp "$tmp/runner.log" "$out/runner.log" 2>/dev/null
	if [ ! -f "$out/results.json" ]; then
		tail -n 40 "$tmp/runner.log" >&2
		echo "$0: igt_runner wrote no results (exit $runner_rc)" >&2
		exit 1
	fi

fi

# name<TAB>result<TAB>why, one line per job, in job order. igt_runner keys
# results.json by the lowercased name.
jq -r --rawfile jobs "$tmp/jobs" '
	# igt'"'"'s own reason: the requirement for a skip, the assertion (and
	# its values) for anything else.
	def lines: ((.out // "") + "\n" + (.err // "")) | split("\n");
	def why: [lines[]] as $l | if .result == "skip"
		then [$l[] | select(test("Test requirement:|Last errno:"))] | .[0:2] | join(" | ")
		else [$l[] | select(test("Failed assertion:|CRITICAL: error:|Received signal|Last errno:|timed out"))]
			| if length > 0 then .[0:3] | join(" | ")
			  else [$l[] | select(test("Test requirement:"))] | .[0:1] | join("") end
		end;
	. as $r | $jobs | split("\n")[] | select(length > 0) | . as $j
	| ($r.tests[$j | ascii_downcase] // {result: "notrun"}) as $t
	| [$j, $t.result, (if $t.result == "pass" then "" else ($t | why) end)] | @tsv' \
	"$out/results.json" >"$tmp/res" || { echo "$0: cannot read $out/results.json" >&2; exit 1; }

declare -A exp=()
if [ -n "$expected" ]; then
	while read -r name reason; do
		case $name in '' | '#'*) continue ;; esac
		[ -n "$reason" ] || { echo "$0: $expected: $name has no reason" >&2; exit 2; }
		exp["igt@${name,,}"]=$reason
	done <"$expected"
fi

# fork_stopped NAME KEY: the node's fork line is in the job's output. igt's
# own log reaches results.json through igt_runner's socket; what the node
# writes to stderr itself is only in the job directory's err.txt.
fork_stopped() {
	local t s line
	jq -e --arg k "$2" --arg re "$fork_re" \
		'(.tests[$k].out // "") + (.tests[$k].err // "") | test($re)' \
		"$out/results.json" >/dev/null && return 0
	t=${1#igt@}
	s=${t#*@}
	t=${t%%@*}
	line=$(grep -nxF "$t $s" "$out/joblist.txt" | head -n 1 | cut -d: -f1)
	[ -n "$line" ] || return 1
	grep -qE "$fork_re" "$out/$((line - 1))/err.txt" "$out/$((line - 1))/out.txt" 2>/dev/null
}

np=0 nf=0 ns=0 nc=0 bad=0 nexp=0
while IFS=$'\t' read -r name res why; do
	case $res in
	pass | warn | dmesg-warn) cls=pass ;;
	skip) cls=skip ;;
	crash | timeout | abort | incomplete) cls=crash ;;
	*) cls=fail ;;
	esac
	note=
	key=${name,,}
	if [ -n "${exp[$key]+x}" ]; then
		case $cls in
		pass)
			note="  UNEXPECTED PASS: remove it from $expected"
			bad=$((bad + 1))
			;;
		fail | crash)
			if fork_stopped "$name" "$key"; then
				note="  (expected: ${exp[$key]})"
				nexp=$((nexp + 1))
			else
				note="  UNEXPECTED: listed as fork-stopped, but no fork message /$fork_re/ in its output"
				bad=$((bad + 1))
			fi
			;;
		esac
	elif [ $cls = fail ] || [ $cls = crash ]; then
		bad=$((bad + 1))
		! fork_stopped "$name" "$key" || note="  (a forked child touched the device)"
	fi
	case $cls in
	pass) np=$((np + 1)) ;; fail) nf=$((nf + 1)) ;; skip) ns=$((ns + 1)) ;; crash) nc=$((nc + 1)) ;;
	esac
	printf '%-10s %s%s%s\n' "$res" "$name" "${why:+  -- $why}" "$note"
done <"$tmp/res"

echo "$np pass, $nf fail, $ns skip, $nc crash"
[ $nexp -eq 0 ] || echo "($nexp of the failures are expected fork-stopped subtests)"
echo "results: $(readlink -f "$out")"
[ $bad -eq 0 ]
