#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# igt-bench-shim.sh -p tgl|dg2 [-o DIR] [-b BUILDDIR] [-t TIMEOUT_S] [BENCH...]
#
# Runs Debian's igt benchmarks (intel-gpu-tools, /usr/libexec/igt-gpu-tools/
# benchmarks) against the emulated i915 render node, each with short
# arguments under `timeout`, and keeps every output in DIR/<name>.log
# (default DIR: igt-results/bench-<profile>). Then records a trace of
# gem_exec_nop with libgem_exec_tracer.so (stacked before the node library)
# and replays it with gem_exec_trace. gem_wsim runs the workload files shipped
# in igt's source tree (the tree scripts/igt-build.sh unpacks, or IGT_WSIM_DIR).
# Benchmarks that loop until killed (gem_create, gem_set_domain, ...) are
# bounded by their own repetition options; -t caps each run (default 60 s).
#
# Prints "name exit-status seconds last-figure-line" per run and writes
# DIR/summary.txt. Exit status: 0 when every run exited 0, 1 otherwise,
# 77 when the benchmarks or the node library are not available.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

profile='' out='' bdir=${TTM_BUILD:-$TTM_TOP/build-igt} tmo=60
while getopts p:o:b:t: opt; do
	case $opt in
	p) profile=$OPTARG ;;
	o) out=$OPTARG ;;
	b) bdir=$OPTARG ;;
	t) tmo=$OPTARG ;;
	*) echo "usage: $0 -p tgl|dg2 [-o DIR] [-b BUILDDIR] [-t TIMEOUT_S] [BENCH...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $profile in tgl | dg2) ;; *) echo "usage: $0 -p tgl|dg2 ..." >&2; exit 2 ;; esac
[ -n "$out" ] || out=$TTM_TOP/igt-results/bench-$profile

ttm_ensure_packages intel-gpu-tools || exit 1
bench=/usr/libexec/igt-gpu-tools/benchmarks
[ -x "$bench/gem_exec_nop" ] || { echo "$0: no $bench (Debian package intel-gpu-tools)" >&2; exit 77; }

shim=${TTM_SHIM:-}
if [ -z "$shim" ]; then
	[ -f "$bdir/build.ninja" ] || ttm_configure "$bdir" || exit 1
	mapfile -t libs < <(ninja -C "$bdir" -t targets all 2>/dev/null |
		sed -nE 's|^(node/[^/:]*\.so):.*|\1|p' | sort -u)
	[ ${#libs[@]} -eq 0 ] || ninja -C "$bdir" "${libs[@]}" >/dev/null 2>&1 ||
		{ echo "$0: building ${libs[*]} in $bdir failed" >&2; exit 1; }
	mapfile -t libs < <(find "$bdir/node" -maxdepth 1 -name '*.so' -type f 2>/dev/null | sort)
	[ ${#libs[@]} -eq 1 ] || { echo "$0: no single render-node library in $bdir/node; set TTM_SHIM" >&2; exit 77; }
	shim=${libs[0]}
fi
shim=$(readlink -f "$shim")

wsim=$("$here/igt-wsim-check.sh" --dir 2>/dev/null)

rm -rf "$out"
mkdir -p "$out" || exit 1
export TTM_I915_PROFILE=$profile
fails=0
: >"$out/summary.txt"

# run NAME PRELOAD CMD...: one bounded run, output to $out/NAME.log.
run() {
	local name=$1 pre=$2
	shift 2
	local t0 t1 rc fig
	t0=$(date +%s.%N)
	(cd "$out" && LD_PRELOAD=$pre timeout -k 5 "$tmo" "$@") >"$out/$name.log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	# The last line that carries a number and is not igt's own chatter.
	fig=$(grep -E '[0-9]' "$out/$name.log" | grep -vE '^\(|IGT-Version|Using IGT|Stack trace|#[0-9]' | tail -n 1)
	[ $rc -eq 0 ] || fails=$((fails + 1))
	printf '%-28s rc=%-3s %6.1fs  %s\n' "$name" "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		"${fig:0:100}" | tee -a "$out/summary.txt"
}

want() { [ $# -eq 0 ] && return 0; local b; for b in "${sel[@]}"; do [ "$b" = "$1" ] && return 0; done; return 1; }
sel=("$@")
w() { [ ${#sel[@]} -eq 0 ] || want "$1"; }

w gem_exec_nop && run gem_exec_nop "$shim" "$bench/gem_exec_nop" -e rcs -r 1
w gem_exec_nop && run gem_exec_nop-all "$shim" "$bench/gem_exec_nop" -e all -r 1
w gem_create && run gem_create "$shim" "$bench/gem_create" -s 65536 -r 1
w gem_busy && run gem_busy "$shim" "$bench/gem_busy" -e rcs -r 1
w gem_blt && run gem_blt "$shim" "$bench/gem_blt" -s 65536 -t 1 -r 1
w gem_exec_reloc && run gem_exec_reloc "$shim" "$bench/gem_exec_reloc" -b 2 -r 1 -l 1
w gem_exec_ctx && run gem_exec_ctx-nop "$shim" "$bench/gem_exec_ctx" -e rcs -b nop -r 1
w gem_exec_ctx && run gem_exec_ctx-switch "$shim" "$bench/gem_exec_ctx" -e rcs -b switch -r 1
w gem_exec_ctx && run gem_exec_ctx-create "$shim" "$bench/gem_exec_ctx" -e rcs -b create -r 1
w gem_prw && run gem_prw-write "$shim" "$bench/gem_prw" -D write -r 5
w gem_prw && run gem_prw-read "$shim" "$bench/gem_prw" -D read -r 5
w gem_set_domain && run gem_set_domain "$shim" "$bench/gem_set_domain" -s 65536 -r 1
w gem_syslatency && run gem_syslatency "$shim" "$bench/gem_syslatency" -t 5
w gem_latency && run gem_latency "$shim" "$bench/gem_latency" -t 5
if w gem_wsim; then
	if [ -d "$wsim" ]; then
		for f in vcs1 vcs_balanced media_17i7 media_load_balance_hd01 frame-split-60fps; do
			[ -f "$wsim/$f.wsim" ] && run "gem_wsim-$f" "$shim" "$bench/gem_wsim" -w "$wsim/$f.wsim" -r 5 -c 1
		done
	else
		echo "gem_wsim: no workload files (igt source tree or IGT_WSIM_DIR)" | tee -a "$out/summary.txt"
	fi
fi
if w gem_exec_trace; then
	# Record: the tracer wraps ioctl() before the node library sees it and
	# writes /tmp/trace-<pid>.<fd>; the shell execs the benchmark, so $$ is it.
	run trace-record "$bench/libgem_exec_tracer.so:$shim" \
		sh -c 'echo $$ >"$0"; exec "$@"' "$out/trace.pid" "$bench/gem_exec_reloc" -b 2 -r 1 -l 1
	pid=$(cat "$out/trace.pid" 2>/dev/null)
	trace=
	[ -n "$pid" ] && trace=$(ls -S /tmp/trace-"$pid".* 2>/dev/null | head -n 1)
	if [ -n "$trace" ] && [ -s "$trace" ]; then
		mv "$trace" "$out/gem_exec_reloc.trace"
		rm -f /tmp/trace-"$pid".*
		# -n: a fixed nop batch instead of calibrating against execution time.
		run trace-replay "$shim" "$bench/gem_exec_trace" -n 4096 "$out/gem_exec_reloc.trace"
	else
		echo "trace-record: no trace file written" | tee -a "$out/summary.txt"
		fails=$((fails + 1))
	fi
fi
echo "logs: $(readlink -f "$out")"
[ $fails -eq 0 ]
