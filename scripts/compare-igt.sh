#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# compare-igt.sh: on a machine with an Intel GPU, run igt's own gem_exec_nop
# and gem_latency benchmarks (Debian's intel-gpu-tools) and this project's
# i915-hw-exec-nop (the hw back end: ppGTT context, softpinned batch, out-
# fence through the dma_fence bridge) on the same render node, and write
# both into one results directory in the ttm-bench-results format, so
# ttm-compare and scripts/plot.sh show them side by side.
#
#   ./scripts/compare-igt.sh [--device PATH] [--out DIR] [--build DIR]
#                            [--reps N] [--quick] [--gpu-top]
#
#   --device PATH  render node (default: $TTM_HW_DEVICE, else the first i915 one)
#   --out DIR      results directory (default results/runs/<UTC stamp>-igt)
#   --build DIR    use an existing build tree instead of configuring build-hw-release
#   --reps N       repetitions of each benchmark (default 5, 3 with --quick)
#   --gpu-top      sample `intel_gpu_top -J` during each run into gpu-top-*.json
#
# IGT_BENCHMARKS overrides where igt's benchmark programs are looked for;
# IGT_EXEC_NOP_ARGS (default "-e ENGINE -r 3") and IGT_LATENCY_ARGS (default
# none) override their arguments. gem_exec_nop's last printed number (its
# microseconds per batch) becomes one sample per run; gem_latency's output
# is kept as text, not parsed.
#
# Exit status: 0 done; 77 skipped (no Intel GPU, igt benchmarks not
# installable, or the hw back end refuses the device: one line says why);
# 1 a run failed; 2 bad usage.
set -u
. "$(dirname "$0")/lib.sh"
cd "$TTM_TOP" || exit 1

skip() {
	echo "SKIP: $*"
	exit 77
}

device=${TTM_HW_DEVICE:-}
out=
build=
reps=
quick=
gputop=
while [ $# -gt 0 ]; do
	case $1 in
	--device) device=${2:-}; shift ;;
	--device=*) device=${1#--device=} ;;
	--out) out=${2:-}; shift ;;
	--build) build=${2:-}; shift ;;
	--reps) reps=${2:-}; shift ;;
	--quick) quick=1 ;;
	--gpu-top) gputop=1 ;;
	*)
		sed -n '2,/^set -u/p' "$0" | sed -n 's/^# \{0,1\}//p' >&2
		exit 2
		;;
	esac
	shift
done
[ -n "$reps" ] || reps=$([ -n "$quick" ] && echo 3 || echo 5)
case $reps in '' | *[!0-9]* | 0) echo "$0: --reps needs a positive number" >&2; exit 2 ;; esac

# 1. An Intel render node, from sysfs (cheap, before building anything).
find_node() {
	local n drv
	for n in /sys/class/drm/renderD*; do
		[ -e "$n/device/driver" ] || continue
		drv=$(basename "$(readlink -f "$n/device/driver")")
		if [ "$drv" = i915 ]; then
			echo "/dev/dri/$(basename "$n")"
			return 0
		fi
	done
	return 1
}
if [ -z "$device" ]; then
	device=$(find_node) || skip "no Intel GPU: no render node driven by i915 under /sys/class/drm"
fi
[ -e "$device" ] || skip "no such device: $device"

# 2. igt's benchmarks, installed if missing (only worth it with a GPU).
find_igt() {
	local d
	for d in ${IGT_BENCHMARKS:-} /usr/libexec/igt-gpu-tools/benchmarks \
		/usr/lib/x86_64-linux-gnu/igt-gpu-tools/benchmarks \
		/usr/local/libexec/igt-gpu-tools/benchmarks /usr/libexec/intel-gpu-tools/benchmarks; do
		if [ -x "$d/gem_exec_nop" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}
igt=$(find_igt) || {
	ttm_ensure_packages intel-gpu-tools >/dev/null 2>&1 || true
	igt=$(find_igt)
} || skip "igt benchmarks (gem_exec_nop) not found and intel-gpu-tools could not be installed"
command -v jq >/dev/null || ttm_ensure_packages jq || skip "jq is needed to write the results"

# 3. Our programs.
if [ -z "$build" ]; then
	build="build-hw-release"
	ttm_configure "$build" -Dbuildtype=release -Db_ndebug=true -Dhw=enabled || exit 1
	ninja -C "$build" i915/hw/i915-hw-exec-nop i915/hw/i915-hw-info >"$build/.build.log" 2>&1 || {
		tail -n 40 "$build/.build.log" >&2
		exit 1
	}
fi
ours="$build/i915/hw/i915-hw-exec-nop"
info="$build/i915/hw/i915-hw-info"
if [ ! -x "$ours" ] || [ ! -x "$info" ]; then
	echo "$0: $ours or $info not built" >&2
	exit 1
fi

[ -n "$out" ] || out="results/runs/$(date -u +%Y%m%dT%H%M%SZ)-igt"
mkdir -p "$out" || exit 1

# 4. The device as the hw back end sees it; its verdict decides the skip.
"$info" --device "$device" >"$out/gpu.txt"
rc=$?
[ $rc -eq 77 ] && skip "$(head -n 1 "$out/gpu.txt")"
[ $rc -eq 0 ] || { cat "$out/gpu.txt" >&2; exit 1; }
pci=$(sed -n 's/^pci_id: //p' "$out/gpu.txt")
driver=$(sed -n 's/^driver: //p' "$out/gpu.txt")

gpu_top_start() {
	top_pid=
	[ -n "$gputop" ] || return 0
	command -v intel_gpu_top >/dev/null || { ttm_log "intel_gpu_top not found, not sampling"; return 0; }
	intel_gpu_top -J -s 100 -d "drm:$device" >"$out/gpu-top-$1.json" 2>/dev/null &
	top_pid=$!
}
gpu_top_stop() {
	[ -n "${top_pid:-}" ] || return 0
	kill "$top_pid" 2>/dev/null
	wait "$top_pid" 2>/dev/null
	top_pid=
}

# sample lines: "<kind> <name> <unit> <direction> v1 v2 ..." (kind sample|reference)
samples="$out/samples.txt"
: >"$samples"
failed=0
for engine in rcs bcs; do
	ttm_log "ours: i915-hw-exec-nop --engine $engine --reps $reps"
	gpu_top_start "ours-$engine"
	"$ours" --device "$device" --engine "$engine" --reps "$reps" ${quick:+--quick} \
		>"$out/ours-exec-nop-$engine.txt" 2>&1
	rc=$?
	gpu_top_stop
	if [ $rc -eq 0 ]; then
		grep -E '^(sample|reference) ' "$out/ours-exec-nop-$engine.txt" |
			sed "s/^/ours $engine /" >>"$samples"
	else
		echo "i915-hw-exec-nop --engine $engine: exit $rc (see $out/ours-exec-nop-$engine.txt)" >&2
		failed=1
	fi

	ttm_log "igt: gem_exec_nop ${IGT_EXEC_NOP_ARGS:--e $engine -r 3} x $reps"
	gpu_top_start "igt-$engine"
	vals=
	for r in $(seq "$reps"); do
		# shellcheck disable=SC2086 # the arguments are meant to split
		timeout 300 "$igt/gem_exec_nop" ${IGT_EXEC_NOP_ARGS:--e $engine -r 3} \
			>"$out/igt-gem_exec_nop-$engine-$r.txt" 2>&1 || { failed=1; continue; }
		v=$(grep -Eo '[0-9]+(\.[0-9]+)?' "$out/igt-gem_exec_nop-$engine-$r.txt" | tail -n 1)
		[ -n "$v" ] && vals="$vals $(awk -v us="$v" 'BEGIN { printf "%.1f", us * 1000 }')"
	done
	gpu_top_stop
	[ -n "$vals" ] && echo "igt $engine sample igt.gem_exec_nop.$engine ns lower_is_better$vals" >>"$samples"
done

if [ -x "$igt/gem_latency" ]; then
	ttm_log "igt: gem_latency ${IGT_LATENCY_ARGS:-}"
	gpu_top_start igt-latency
	# shellcheck disable=SC2086
	timeout 300 "$igt/gem_latency" ${IGT_LATENCY_ARGS:-} >"$out/igt-gem_latency.txt" 2>&1 || failed=1
	gpu_top_stop
fi

# 5. Results files, one per side, in the ttm-bench-results format.
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
cores=$(nproc)
ram=$(awk '/^MemTotal:/ { printf "%d", $2 * 1024 }' /proc/meminfo)
# Not the harness's FNV-1a id: results from here are compared with each other.
mid=$(printf '%s|%s|%s|hw' "$cpu" "$cores" "$((ram >> 30))" | sha256sum | cut -c1-16)
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
write_side() { # side engine -> json on stdout
	local side=$1 engine=$2
	awk -v s="$side" -v e="$engine" '$1 == s && $2 == e' "$samples" |
		jq -R -s --arg side "$side" --arg engine "$engine" --arg stamp "$stamp" \
			--arg mid "$mid" --arg cpu "$cpu" --argjson cores "$cores" \
			--argjson ram "$ram" --arg kernel "$(uname -r)" --arg arch "$(uname -m)" \
			--arg host "$(hostname)" --arg device "$device" --arg pci "$pci" \
			--arg driver "$driver" --argjson reps "$reps" --arg rev "$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" '
		def stats: sort as $s | ($s | length) as $n |
			($s | add / $n) as $mean |
			{ n: $n, min: $s[0], max: $s[$n - 1],
			  median: (if $n % 2 == 1 then $s[($n - 1) / 2] else ($s[$n / 2 - 1] + $s[$n / 2]) / 2 end),
			  p90: $s[(($n * 0.9) | ceil) - 1], p99: $s[(($n * 0.99) | ceil) - 1],
			  mean: $mean,
			  stddev: (if $n > 1 then (($s | map(. - $mean | . * .) | add) / ($n - 1) | sqrt) else 0 end),
			  ci_lo: $s[0], ci_hi: $s[$n - 1] };
		[split("\n")[] | select(length > 0) | split(" ") |
		 { kind: .[2], name: .[3], unit: .[4], direction: .[5], values: (.[6:] | map(tonumber)) }] as $rows |
		($rows | map(select(.kind == "reference")) |
		 map({ key: .name, value: { unit: .unit, direction: .direction, stats: (.values | stats) } }) |
		 from_entries) as $refs |
		{ schema: "ttm-bench-results", schema_version: 1,
		  benchmark: (if $side == "igt" then "igt-gem_exec_nop" else "hw-exec-nop" end),
		  started_utc: $stamp, elapsed_s: 0,
		  options: { reps: $reps, warmup: 1, duration_s: 0, quick: false, threads: 1, seed: 0, cpus: [] },
		  parameters: { engine: $engine },
		  machine: { id: $mid, hostname: $host, cpu_model: $cpu, kernel: $kernel, arch: $arch,
			     packages: 1, cores: $cores, pus: $cores, numa_nodes: 1, l1d_bytes: 0,
			     l2_bytes: 0, l3_bytes: 0, ram_bytes: $ram, topology_source: "sysconf",
			     build: { git_rev: $rev }, backend: "hw",
			     backend_params: { device: $device, pci_id: $pci, driver: $driver,
					       kernel: $kernel, producer: $side } },
		  references: $refs,
		  metrics: [$rows[] | select(.kind == "sample") |
			    { name: .name, unit: .unit, direction: .direction, kind: "samples",
			      stats: (.values | stats), samples: .values, samples_total: (.values | length) } +
			    (if ($refs | has("ioctl_getparam")) then
				{ reference: { name: "ioctl_getparam", form: "value/reference",
					       value: $refs.ioctl_getparam.stats.median,
					       ratio: ((.values | stats.median) / $refs.ioctl_getparam.stats.median) } }
			     else {} end)],
		  series: [] }'
}
for side in ours igt; do
	for engine in rcs bcs; do
		grep -q "^$side $engine sample " "$samples" || continue
		write_side "$side" "$engine" >"$out/$side-exec-nop-$engine.json" || failed=1
	done
done

echo "results in $out:"
grep -h -E '^(exec_nop|ioctl_getparam)' "$out"/ours-exec-nop-*.txt 2>/dev/null
awk '$1 == "igt" { n = 0; for (i = 7; i <= NF; i++) v[++n] = $i; printf "igt gem_exec_nop %s: %d runs, ns per batch:", $2, n;
	for (i = 1; i <= n; i++) printf " %s", v[i]; printf "\n" }' "$samples"
exit $failed
