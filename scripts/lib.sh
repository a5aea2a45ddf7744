# SPDX-License-Identifier: MIT
# Shared by the scripts: install missing Debian packages, configure and build.
# Source it; it defines functions only.

TTM_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Packages every build needs. intel-gpu-tools is only useful with an Intel GPU
# and is installed by scripts/compare-igt.sh, not here.
TTM_PACKAGES=(muon-meson ninja-build pkg-config gcc clang libclang-rt-14-dev
	libdrm-dev libudev-dev libkmod-dev libhwloc-dev hwloc libjson-c-dev gnuplot-nox systemtap-sdt-dev
	valgrind linux-perf git jq libsqlite3-dev libpq-dev postgresql cppcheck clang-format clang-tidy)

ttm_log() { printf '==> %s\n' "$*" >&2; }

# ttm_ensure_packages [pkg...]: apt-get install whatever is missing.
ttm_ensure_packages() {
	local want=("$@") missing=() p
	[ ${#want[@]} -gt 0 ] || want=("${TTM_PACKAGES[@]}")
	for p in "${want[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	ttm_log "installing Debian packages: ${missing[*]}"
	local sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq || return 1
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null || return 1
}

# ttm_configure DIR [meson options...]: set up DIR once (again if options changed).
ttm_configure() {
	local dir=$1
	shift
	local stamp="$dir/.ttm-options"
	local want="$*"
	if [ -f "$dir/build.ninja" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		return 0
	fi
	rm -rf "$dir"
	ttm_log "configuring $dir ($want)"
	(cd "$TTM_TOP" && muon-meson setup "$@" "$dir") >"$TTM_TOP/.configure.log" 2>&1 || {
		cat "$TTM_TOP/.configure.log" >&2
		return 1
	}
	echo "$want" >"$stamp"
}

# ttm_build DIR: compile everything in DIR.
ttm_build() {
	ttm_log "building $1"
	ninja -C "$1" >"$1/.build.log" 2>&1 || {
		tail -n 80 "$1/.build.log" >&2
		return 1
	}
}
