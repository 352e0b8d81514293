#!/usr/bin/env bash
# kernel-build.sh - build one arm/flavour of the foliobench guest kernel.
#
# Usage: scripts/kernel-build.sh [--print] ARM FLAVOUR
#   ARM      a row of kernel-patches/arms.conf (baseline, patched, ...), or
#            SERIES@N: the base plus the first N patches of
#            kernel-patches/SERIES/series (a prefix, for `ab --per-patch`)
#   FLAVOUR  perf | lockstat | drm (kernel-patches/configs/FLAVOUR.flavour;
#            drm is test-only: perf plus DRM, for folio-pool 4/9's KUnit suite)
#
# Prints the directory holding bzImage, vmlinux (debug info stripped, BTF
# kept), System.map and .config.  Results are cached under $FB_CACHE
# (default /var/cache/foliobench) keyed by base, series content, config
# fragments and compiler, so a second call with nothing changed returns at
# once.  --print only prints that directory (built or not) and exits.
#
# All arms share one git worktree and one out-of-tree build directory per
# flavour (a flavour file may name another's: "builddir: perf"), so
# switching arms recompiles only what the series touch; ccache (with a
# fixed base directory) catches the rest.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
kp=$here/kernel-patches
cache=${FB_CACHE:-/var/cache/foliobench}
jobs=${JOBS:-$(($(nproc) + 1))}

die() { echo "kernel-build: error: $*" >&2; exit 1; }
log() { echo "kernel-build: $*" >&2; }

print_only=0
[ "${1:-}" = "--print" ] && { print_only=1; shift; }
[ $# -eq 2 ] || die "usage: kernel-build.sh [--print] ARM FLAVOUR"
arm=$1 flavour=$2

flav=$kp/configs/$flavour.flavour
[ -f "$flav" ] || die "unknown flavour '$flavour' (see kernel-patches/configs/*.flavour)"
mapfile -t frags < <(grep -v -e '^#' -e '^builddir:' "$flav" | sed '/^$/d;s|^|'"$kp"'/configs/|')
# "builddir: F" in a flavour file: build in flavour F's build directory.
# The objects carry debug info, so ccache hashes the directory they are
# compiled in: a flavour that only adds a little to F's config (drm: perf
# plus DRM) would compile every object anew in a directory of its own,
# and in F's it recompiles only what the config change touches (kbuild
# tracks config symbols per object), ccache hits for the rest, and the
# same going back to F.
bdir=$(sed -n 's/^builddir: *\([A-Za-z0-9_-]*\) *$/\1/p' "$flav" | head -1)

# Patches of a series, in order, appended to patches[]; at most $2 of them.
series_patches() {
	local s=$1 max=$2 p n=0
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		[ "$n" -lt "$max" ] || break
		[ -f "$kp/$s/$p" ] || die "$s/series names $p, which does not exist"
		patches+=("$kp/$s/$p")
		n=$((n + 1))
	done <"$kp/$s/series"
}

# Patches of the arm, in order; a series may bring a config fragment
# (kernel-patches/configs/SERIES.config, e.g. its KUnit suites), and one
# for a flavour only (configs/SERIES.FLAVOUR.config): for options that
# depend on what that flavour enables (a lockdep test needs the lockstat
# flavour's PROVE_LOCKING), which could not stick in the other flavours.
# A prefix SERIES@N never gets that fragment, not even for N = all: every
# prefix of a per-patch run must have the base's config, or the first step
# would be charged with the config change (and the fragment's symbols may
# only arrive with a later patch, so they could not stick anyway).
patches=()
if [[ $arm =~ ^([A-Za-z0-9_.-]+)@([0-9]+)$ ]]; then
	s=${BASH_REMATCH[1]} want=$((10#${BASH_REMATCH[2]}))
	[ -f "$kp/$s/series" ] || die "unknown series '$s' in '$arm' (kernel-patches/$s/series)"
	series_patches "$s" "$want"
	[ "${#patches[@]}" -eq "$want" ] ||
		die "$arm: the $s series has only ${#patches[@]} patches"
	[ "$want" -gt 0 ] || die "$arm: a prefix needs at least one patch (the base is 'baseline')"
	[ $print_only = 0 ] && { [ -f "$kp/configs/$s.config" ] || [ -f "$kp/configs/$s.$flavour.config" ]; } &&
		log "$arm: prefix of $s, built without configs/$s.config or $s.$flavour.config (same config as the base)"
else
	line=$(grep -E "^$arm:" "$kp/arms.conf" || true)
	[ -n "$line" ] || die "unknown arm '$arm' (see kernel-patches/arms.conf, or SERIES@N)"
	read -r -a series <<<"${line#*:}"
	for s in "${series[@]}"; do
		[ -f "$kp/$s/series" ] || continue	# a series not written yet
		[ -f "$kp/configs/$s.config" ] && frags+=("$kp/configs/$s.config")
		[ -f "$kp/configs/$s.$flavour.config" ] && frags+=("$kp/configs/$s.$flavour.config")
		series_patches "$s" 1000000
	done
fi

key=$( {
	cat "$kp/base.env" "${frags[@]}"
	[ ${#patches[@]} -eq 0 ] || cat "${patches[@]}"
	gcc --version | head -1
	echo "${KSRC:-}"
} | sha256sum | cut -c1-12)
dest=$cache/kernels/$arm-$flavour-$key
if [ $print_only = 1 ] || [ -f "$dest/bzImage" ]; then
	echo "$dest"
	exit 0
fi

src=$("$here/scripts/kernel-src.sh")
git -C "$src" rev-parse -q --verify HEAD >/dev/null || die "$src is not a git tree (KSRC must be one)"
work=$cache/work
mkdir -p "$work" "$cache/kernels" "$cache/ccache"
exec 9>"$work/.lock"
flock 9
# Another build (a second `ab`, a shard) may have made it while we waited.
if [ -f "$dest/bzImage" ]; then
	echo "$dest"
	exit 0
fi

wt=$work/linux
if [ ! -e "$wt/.git" ]; then
	log "creating worktree $wt"
	git -C "$src" worktree prune
	git -C "$src" worktree add -q --detach "$wt" "$(git -C "$src" rev-parse HEAD)"
fi
base=$(git -C "$src" rev-parse "$(git -C "$src" tag -l base | head -1 || true)^{commit}" 2>/dev/null ||
	git -C "$src" rev-parse HEAD)

# Check out the arm: base plus its patches, remembered as branch arm-KEY.
branch=arm-${arm//@/-p}-$key
git() { command git -c user.name=foliobench -c user.email=foliobench@localhost "$@"; }
if git -C "$wt" rev-parse -q --verify "$branch" >/dev/null; then
	git -C "$wt" checkout -q --detach "$branch"
else
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" checkout -q -f --detach "$base"
	for p in "${patches[@]}"; do
		if ! out=$(git -C "$wt" am -q --3way "$p" 2>&1); then
			git -C "$wt" am --abort >/dev/null 2>&1 || true
			echo "$out" | grep -E 'error|patch failed|conflict' | head -5 >&2
			die "${p#"$kp"/} does not apply to Linux base ($arm arm)"
		fi
	done
	git -C "$wt" branch -q -f "$branch"
	log "$arm: ${#patches[@]} patches applied"
fi

obj=$work/build-${bdir:-$flavour}
mkdir -p "$obj"
export CCACHE_DIR=$cache/ccache CCACHE_BASEDIR=$work CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_COMPILERCHECK=content
mk=(make -C "$wt" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" -j"$jobs")

# Config: tinyconfig + fragments; fail if a requested option did not stick.
"${mk[@]}" -s tinyconfig >/dev/null
"$wt/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}" >"$obj/merge.log" 2>&1
"${mk[@]}" -s olddefconfig >/dev/null
missing=$(cat "${frags[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=[ym]$' | while read -r opt; do
	grep -qx "$opt" "$obj/.config" || echo "$opt"
done)
[ -z "$missing" ] || die "config options did not stick (dependencies?): $(echo $missing)"

# One progress line: objects n/N (p%) with an ETA when N is known.
progress() {
	local n el eta
	n=$(grep -c '^[0-9]*   CC ' "$obj/build.log" || true)
	el=$(( $(date +%s) - start ))
	if [ "$full" = 1 ] && [ "$total" -gt 0 ] && [ "$n" -gt 0 ] && [ "$n" -lt "$total" ]; then
		eta=$(( el * (total - n) / n ))
		log "$arm/$flavour: objects $n/$total ($(( 100 * n / total ))%), ${el}s, ETA $((eta / 60))m$((eta % 60))s"
	else
		log "$arm/$flavour: $n objects compiled, ${el}s"
	fi
}

# N for the progress line: the object count of this flavour's last full
# build, else the count measured on a cold build and kept in the repo.
# An incremental build (an arm switch) compiles far fewer: no N then.
nfile=$work/build-$flavour.objects
total=$(cat "$nfile" 2>/dev/null || cat "$kp/configs/$flavour.objects" 2>/dev/null || echo 0)
full=1
[ -f "$obj/vmlinux" ] && full=0
log "building $arm/$flavour ($key) in $obj, -j$jobs, log $obj/build.log"
start=$(date +%s)
# Every line of build.log starts with its wall-clock time in ms,
# so scripts/kernel-build-profile.sh can say where a build spends its time.
( "${mk[@]}" bzImage 2>&1 | while IFS= read -r l; do
	printf '%s %s\n' "$(( ${EPOCHREALTIME/./} / 1000 ))" "$l"
done >"$obj/build.log"; exit "${PIPESTATUS[0]}" ) &
mkpid=$!
trap 'kill $mkpid 2>/dev/null; pkill -P $mkpid 2>/dev/null; exit 130' INT TERM
every=${FB_PROGRESS_SECS:-30}	# FB_QUIET=1 (foliobench --quiet): every 5 minutes
[ "${FB_QUIET:-0}" = 0 ] || every=${FB_PROGRESS_SECS:-300}
# (a second at a time, so the end of the build is seen at once)
last=$(date +%s)
while kill -0 $mkpid 2>/dev/null; do
	sleep 1
	[ $(( $(date +%s) - last )) -ge "$every" ] || continue
	kill -0 $mkpid 2>/dev/null || break
	progress
	last=$(date +%s)
done
if ! wait $mkpid; then
	grep -E 'error|Error' "$obj/build.log" | head -20 >&2
	die "build of $arm/$flavour failed, see $obj/build.log"
fi
n=$(grep -c '^[0-9]*   CC ' "$obj/build.log" || true)
[ $full = 0 ] || echo "$n" >"$nfile"	# N for the next full build
secs=$(( $(date +%s) - start ))

tmp=$dest.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
cp "$obj/arch/x86/boot/bzImage" "$obj/System.map" "$obj/.config" "$tmp/"
objcopy --strip-debug "$obj/vmlinux" "$tmp/vmlinux"
git -C "$wt" log --oneline "$base..HEAD" >"$tmp/patches.txt"
echo "$secs" >"$tmp/build-seconds"
rm -rf "$dest"
mv "$tmp" "$dest"
log "$arm/$flavour built in ${secs}s -> $dest"
echo "$dest"
