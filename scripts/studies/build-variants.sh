#!/usr/bin/env bash
# build-variants.sh - more builds of one cached perf arm, the same source and
# config, differing only as two machines' builds of it differ: the builder's
# user and host name and the build number (#N) in the version strings, the
# link's timestamp, and what pahole's BTF happens to hold.  For
# scripts/studies/build-spread.sh (reports/gate/build-spread.md).
#
#   scripts/studies/build-variants.sh [--arm ARM] [--out DIR] NAME:HOST:USER:N...
#
# ARM (baseline) must be built already (kernel-build.sh made its cache entry
# and its branch); each variant is then a relink in the shared perf build
# directory, under its lock: kbuild recompiles init/version.o and relinks.
# KBUILD_BUILD_TIMESTAMP and KBUILD_BUILD_VERSION are NOT set: they would
# also change init/version.o's placeholder banner, which no ordinary build
# does; N is the build number .version hands out (.version is put back).
# Each variant goes to DIR/buildvar-perf-NAME (DIR: $FB_CACHE/kernels), laid
# out as a cache entry (bzImage, vmlinux without debug info, System.map,
# .config, a `source` line saying how it was built); an existing one is kept.
set -euo pipefail

die() { echo "build-variants: $*" >&2; exit 2; }
arm=baseline out='' vs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--arm) [ $# -ge 2 ] || die "--arm needs an arm"; arm=$2; shift 2 ;;
	--out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
	-h|--help) sed -n '2,18p' "$0"; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) [[ $1 =~ ^[A-Za-z0-9_-]+:[A-Za-z0-9._-]+:[A-Za-z0-9._-]+:[1-9][0-9]{0,5}$ ]] ||
		die "'$1': want NAME:HOST:USER:N (N a build number from 1)"; vs+=("$1"); shift ;;
	esac
done
[ ${#vs[@]} -gt 0 ] || die "give one or more NAME:HOST:USER:N"
here=$(cd "$(dirname "$0")/../.." && pwd)
kp=$here/kernel-patches cache=${FB_CACHE:-/var/cache/foliobench}
out=${out:-$cache/kernels}
[ -d "$out" ] || die "$out: no such directory"
ref=$("$here/scripts/kernel-build.sh" --print "$arm" perf) || die "'$arm': not an arm"
[ -f "$ref/bzImage" ] || die "$ref: not built (build it first: foliobench ab --baseline $arm)"
key=${ref##*-}
branch=arm-${arm//@/-p}-$key
work=$cache/work wt=$cache/work/linux obj=$cache/work/build-perf
git -C "$wt" rev-parse -q --verify "$branch" >/dev/null || die "$wt has no branch $branch"

exec 9>"$work/.lock"
flock 9
oldver=$(cat "$obj/.version" 2>/dev/null || echo 0)
trap 'echo "$oldver" >"$obj/.version"' EXIT
git -C "$wt" checkout -q --detach "$branch"
export CCACHE_DIR=$cache/ccache CCACHE_BASEDIR=$work CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_COMPILERCHECK=content
mk=(make -C "$wt" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" -j"${JOBS:-$(($(nproc) + 1))}")
# the config as kernel-build.sh makes it; it must be the cache entry's
mapfile -t frags < <(grep -v -e '^#' -e '^builddir:' "$kp/configs/perf.flavour" |
	sed '/^$/d;s|^|'"$kp"'/configs/|')
"${mk[@]}" -s tinyconfig >/dev/null
"$wt/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}" >"$obj/merge.log" 2>&1
"${mk[@]}" -s olddefconfig >/dev/null
cmp -s "$obj/.config" "$ref/.config" || die "the config made now is not $ref/.config"

for v in "${vs[@]}"; do
	IFS=: read -r name host user n <<<"$v"
	dest=$out/buildvar-perf-$name
	[ ! -f "$dest/bzImage" ] || { echo "$dest: exists, kept"; continue; }
	echo $((n - 1)) >"$obj/.version"	# scripts/build-version hands out .version + 1
	KBUILD_BUILD_HOST=$host KBUILD_BUILD_USER=$user "${mk[@]}" bzImage >"$obj/build.log" 2>&1 ||
		{ tail -5 "$obj/build.log" >&2; echo "build-variants: $name: the build failed" >&2; exit 1; }
	rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
	cp "$obj/arch/x86/boot/bzImage" "$obj/System.map" "$obj/.config" "$dest.tmp/"
	objcopy --strip-debug "$obj/vmlinux" "$dest.tmp/vmlinux"
	: >"$dest.tmp/patches.txt"
	echo "$arm perf ($branch) relinked: KBUILD_BUILD_HOST=$host KBUILD_BUILD_USER=$user, build #$n" \
		>"$dest.tmp/source"
	mv "$dest.tmp" "$dest"
	echo "$dest: build id $(readelf -n "$dest/vmlinux" | sed -n 's/.*Build ID: //p')"
done
