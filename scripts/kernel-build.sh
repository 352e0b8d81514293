#!/usr/bin/env bash
# kernel-build.sh - build one arm/flavour of the foliobench guest kernel.
#
# Usage: scripts/kernel-build.sh [--print|--check] ARM FLAVOUR
#   ARM      a row of kernel-patches/arms.conf (baseline, patched, ...), or
#            SERIES@N: the base plus the first N patches of
#            kernel-patches/SERIES/series (a prefix, for `ab --per-patch`),
#            or the user's own (`ab --arm`; user_arm() below):
#            NAME=DIR          a `git format-patch` directory (its *.patch
#                              in name order, a 0000-cover-letter skipped)
#                              or a directory with a `series` file (one
#                              patch a line, quilt style), over the base
#            NAME=GITDIR@REV   a kernel git tree at a revision (any
#                              `git rev-parse` revision), built as is
#            Both are cached by the source tree's hash (plus config and
#            compiler), in kernels/tree-FLAVOUR-KEY: a patch directory and
#            a git revision with the same tree share one build.  NAME only
#            names the arm (letters, digits, _ and -; not an arms.conf row).
#   FLAVOUR  perf | lockstat | kunit (kernel-patches/configs/FLAVOUR.flavour;
#            kunit is test-only: the series' KUnit suites that need
#            DEBUG_KOBJECT_RELEASE or DRM)
#
# Prints the directory holding bzImage, vmlinux (debug info stripped, BTF
# kept), System.map and .config.  Results are cached under $FB_CACHE
# (default /var/cache/foliobench) keyed by base, series content, config
# fragments and compiler, so a second call with nothing changed returns at
# once.  --print only prints that directory (built or not) and exits.
# --check only checks the arm (for the user's own: the directory exists and
# has patches, each applies to the base in order; the revision exists) and
# exits 0, or 2 with one line naming the bad input; it builds nothing and
# changes nothing in the cache (the patches are applied to a throw-away
# index of the base tree).  The build itself runs the same check first.
#
# All arms share one git worktree and one out-of-tree build directory per
# flavour (a flavour file may name another's: "builddir: perf"), so
# switching arms recompiles only what the series touch; ccache (with a
# fixed base directory) catches the rest.  Builds in one build directory
# take turns (a lock); two build directories build at once.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
kp=$here/kernel-patches
cache=${FB_CACHE:-/var/cache/foliobench}
jobs=${JOBS:-$(($(nproc) + 1))}

die() { echo "kernel-build: error: $*" >&2; exit 1; }
# Bad input to the user's own arm: exit 2; --check prints the reason alone
# on stdout (the caller names the arm), else one error line on stderr.
die2() {
	if [ "$check_only" = 1 ]; then echo "$*"; else echo "kernel-build: error: $arm: $*" >&2; fi
	exit 2
}
log() { echo "kernel-build: $*" >&2; }

print_only=0 check_only=0
case "${1:-}" in
--print) print_only=1; shift ;;
--check) check_only=1; shift ;;
esac
[ $# -eq 2 ] || die "usage: kernel-build.sh [--print|--check] ARM FLAVOUR"
arm=$1 flavour=$2

flav=$kp/configs/$flavour.flavour
[ -f "$flav" ] || die "unknown flavour '$flavour' (see kernel-patches/configs/*.flavour)"
mapfile -t frags < <(grep -v -e '^#' -e '^builddir:' "$flav" | sed '/^$/d;s|^|'"$kp"'/configs/|')
# "builddir: F" in a flavour file: build in flavour F's build directory.
# The objects carry debug info, so ccache hashes the directory they are
# compiled in: a flavour that only adds a little to F's config (say perf
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

# The base commit of the source tree (tag base of kernel-src.sh's tree).
base_commit() {
	git -C "$src" rev-parse -q --verify "refs/tags/base^{commit}" ||
		die "$src has no tag 'base' (the commit the series apply to; scripts/kernel-src.sh)"
}

# A mail (git format-patch, git am) rather than a plain diff (quilt)?
is_mail() { awk '/^Subject:/ { s = 1 } /^$/ { exit } END { exit !s }' "$1"; }

# The patches of a user's directory into patches[]: its series file's, or
# its *.patch in name order; exit 2 naming what is wrong.
user_patches() {
	local d=$1 p opt n=0 f LC_COLLATE=C
	if [ -f "$d/series" ]; then
		while read -r p opt; do
			n=$((n + 1))
			case "$p" in ''|'#'*) continue ;; esac
			case "${opt:--p1}" in -p1|'-p 1') ;; *)
				die2 "$d/series:$n: '$opt': only -p1 patches are supported" ;;
			esac
			[ -f "$d/$p" ] || die2 "$d/series:$n: $p does not exist"
			patches+=("$d/$p")
		done <"$d/series"
		[ ${#patches[@]} -gt 0 ] || die2 "$d/series names no patch"
		return
	fi
	for f in "$d"/*.patch; do
		[ -f "$f" ] || continue
		[ "${f##*/}" = 0000-cover-letter.patch ] || patches+=("$f")
	done
	[ ${#patches[@]} -gt 0 ] || die2 "no patches in the directory (neither a series file nor *.patch)"
}

# The tree of the base plus patches[], into $tree; exit 2 naming the first
# patch that does not apply.  A throw-away index: the cache's worktree,
# branches and kernels are not touched (git apply only adds objects).
apply_check() {
	local p out
	tmpidx=$(mktemp -d /tmp/fb-kb.XXXXXX)
	trap 'rm -rf "$tmpidx"' EXIT
	export GIT_INDEX_FILE=$tmpidx/index
	git -C "$src" read-tree "$base"
	for p in "${patches[@]}"; do
		out=$(git -C "$src" apply --cached --3way "$p" 2>&1) ||
			die2 "${p##*/} does not apply to Linux $BASE_VERSION ($(echo "$out" |
				grep -m1 -E '^error|conflict|^U ' | sed 's/^error: //'))"
	done
	tree=$(git -C "$src" write-tree)
	unset GIT_INDEX_FILE
	rm -rf "$tmpidx"
}

# NAME=DIR or NAME=GITDIR@REV: sets kind (patches|git), tree, and patches[]
# or gitdir and commit; exit 2 on bad input, before anything is built.
user_arm() {
	local name=$1 s=$2 rev
	grep -q -E "^$name:" "$kp/arms.conf" &&
		die2 "'$name' is an arm of kernel-patches/arms.conf; choose another name"
	# shellcheck source=/dev/null
	. "$kp/base.env"
	if [ -d "$s" ]; then
		kind=patches
		user_patches "$s"
		src=$("$here/scripts/kernel-src.sh")
		base=$(base_commit)
		apply_check
	elif [[ $s =~ ^(.+)@([^@]+)$ ]] && [ -d "${BASH_REMATCH[1]}" ]; then
		kind=git gitdir=$(cd "${BASH_REMATCH[1]}" && pwd) rev=${BASH_REMATCH[2]}
		git -C "$gitdir" rev-parse --git-dir >/dev/null 2>&1 || die2 "$gitdir is not a git tree"
		commit=$(git -C "$gitdir" rev-parse -q --verify "$rev^{commit}") ||
			die2 "unknown revision '$rev' in the git tree"
		git -C "$gitdir" cat-file -e "$commit:Makefile" 2>/dev/null &&
			git -C "$gitdir" cat-file -e "$commit:kernel/fork.c" 2>/dev/null ||
			die2 "not a Linux tree at '$rev' (no Makefile and kernel/fork.c)"
		tree=$(git -C "$gitdir" rev-parse "$commit^{tree}")
	elif [ -e "$s" ]; then
		die2 "not a directory (want a patch directory or GITDIR@REV)"
	else
		die2 "no such directory (want a patch directory or GITDIR@REV)"
	fi
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
kind=conf
if [[ $arm =~ ^([A-Za-z0-9_-]+)=(.+)$ ]]; then
	user_arm "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
elif [[ $arm =~ ^([A-Za-z0-9_.-]+)@([0-9]+)$ ]]; then
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

[ $check_only = 0 ] || exit 0

if [ "$kind" = conf ]; then
	key=$( {
		cat "$kp/base.env" "${frags[@]}"
		[ ${#patches[@]} -eq 0 ] || cat "${patches[@]}"
		gcc --version | head -1
		echo "${KSRC:-}"
	} | sha256sum | cut -c1-12)
	dest=$cache/kernels/$arm-$flavour-$key
	branch=arm-${arm//@/-p}-$key
else	# the user's own: by source tree, whatever it came from
	key=$( { echo "tree $tree"; cat "${frags[@]}"; gcc --version | head -1; } |
		sha256sum | cut -c1-12)
	dest=$cache/kernels/tree-$flavour-$key
	branch=arm-tree-$key
fi
if [ $print_only = 1 ] || [ -f "$dest/bzImage" ]; then
	echo "$dest"
	exit 0
fi

src=${src:-$("$here/scripts/kernel-src.sh")}
git -C "$src" rev-parse -q --verify HEAD >/dev/null || die "$src is not a git tree (KSRC must be one)"
work=$cache/work
mkdir -p "$work" "$cache/kernels" "$cache/ccache"
# One source worktree, build directory and lock per build directory: the
# perf flavour's are work/linux, work/build-perf and
# work/.lock, as before; another (lockstat) has work/linux-lockstat,
# work/build-lockstat and work/.lock-lockstat, so it builds while perf arms
# are switched and built beside it (tests/guest/run.sh builds the lockstat
# kernels in the background during the perf flavour's guests).
bd=${bdir:-$flavour}
wt=$work/linux lock=$work/.lock
[ "$bd" = perf ] || wt=$work/linux-$bd lock=$work/.lock-$bd
exec 9>"$lock"
flock 9
# Another build (a second `ab`, a shard) may have made it while we waited.
if [ -f "$dest/bzImage" ]; then
	echo "$dest"
	exit 0
fi

if [ ! -e "$wt/.git" ]; then
	log "creating worktree $wt"
	git -C "$src" worktree prune
	git -C "$src" worktree add -q --detach "$wt" "$(git -C "$src" rev-parse HEAD)"
fi
base=$(base_commit)

# One patch onto the worktree: git am for a mail, else git apply and a
# commit named after the file.  On failure the worktree goes back to the
# base (no am session, no half-applied files) and the build stops.
apply_one() {
	local p=$1 out
	if is_mail "$p"; then
		out=$(git -C "$wt" am -q --3way "$p" 2>&1) && return 0
	else
		out=$(git -C "$wt" apply --index --3way "$p" 2>&1) &&
			out=$(git -C "$wt" commit -q -m "${p##*/}" 2>&1) && return 0
	fi
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" checkout -q -f --detach "$base"
	echo "$out" | grep -E 'error|patch failed|conflict' | head -5 >&2
	die "${p#"$kp"/} does not apply to Linux base ($arm arm)"
}

# Check out the arm: base plus its patches (or the user's revision),
# remembered as branch arm-KEY.
git() { command git -c user.name=foliobench -c user.email=foliobench@localhost "$@"; }
if git -C "$wt" rev-parse -q --verify "$branch" >/dev/null; then
	git -C "$wt" checkout -q --detach "$branch"
elif [ "$kind" = git ]; then
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$src" fetch -q --no-tags "$gitdir" "$commit" ||
		die "cannot fetch $commit from $gitdir"
	git -C "$wt" checkout -q -f --detach "$commit"
	git -C "$wt" branch -q -f "$branch"
	log "$arm: $commit (tree ${tree:0:12}) checked out"
else
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" checkout -q -f --detach "$base"
	for p in "${patches[@]}"; do
		apply_one "$p"
	done
	if [ "$kind" = patches ] && [ "$(git -C "$wt" rev-parse 'HEAD^{tree}')" != "$tree" ]; then
		git -C "$wt" checkout -q -f --detach "$base"
		die "$arm: the applied tree is not the checked one ($tree)"
	fi
	git -C "$wt" branch -q -f "$branch"
	log "$arm: ${#patches[@]} patches applied"
fi

obj=$work/build-$bd
mkdir -p "$obj"
export CCACHE_DIR=$cache/ccache CCACHE_BASEDIR=$work CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_COMPILERCHECK=content
mk=(make -C "$wt" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" -j"$jobs")

# Config: tinyconfig + fragments; fail if a requested option did not stick.
"${mk[@]}" -s tinyconfig >/dev/null
"$wt/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}" >"$obj/merge.log" 2>&1
"${mk[@]}" -s olddefconfig >/dev/null
# The last value of each option counts: a later fragment may turn off what
# an earlier one asked for (kunit.config: perf.config's debug info).
missing=$(cat "${frags[@]}" | sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=\(.*\)$/\1 \1=\2/p;
	s/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1 \1=n/p' |
	awk '{ v[$1] = $2; if (!($1 in o)) o[$1] = n++ } END { for (k in v) print o[k], v[k] }' |
	sort -n | cut -d' ' -f2 | grep -E '^CONFIG_[A-Z0-9_]+=[ym]$' | while read -r opt; do
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
# cpu_s: the CPU seconds (user + system) of this script's waited-for
# children so far (bash `times`, second line; run in this shell, not in a
# $(...) subshell, which has no children of its own yet); the build's is
# the difference, kept beside its wall time (docs/costs.md: a cold CI run
# is bounded by CPU-seconds over 2 CPUs, not by wall alone).
. "$here/scripts/lib/cpu-times.sh"
cpu_s() { cpu_children_s "$obj/.times"; }
cpu_s >"$obj/.cpu0"
start=$(date +%s)
# Every line of build.log starts with its wall-clock time in ms,
# so scripts/kernel-build-profile.sh can say where a build spends its time.
( "${mk[@]}" bzImage 2>&1 | while IFS= read -r l; do
	printf '%s %s\n' "$(( ${EPOCHREALTIME/./} / 1000 ))" "$l"
done >"$obj/build.log"; exit "${PIPESTATUS[0]}" ) &
mkpid=$!
# Ctrl-C/SIGTERM: stop the whole tree under the build (make, its sub-makes,
# compilers, the log's timestamp loop).  The tree is listed before anything
# is killed: a child whose parent died is reparented and no longer found.
descendants() { local c; for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done; }
stop_build() {
	local i pids
	for i in 1 2; do
		pids=$(descendants $mkpid)
		kill $mkpid $pids 2>/dev/null
		sleep 0.2
	done
	exit 130
}
trap stop_build INT TERM
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
cpu_s >"$obj/.cpu1"
cpu=$(( $(cat "$obj/.cpu1") - $(cat "$obj/.cpu0") ))

tmp=$dest.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
cp "$obj/arch/x86/boot/bzImage" "$obj/System.map" "$obj/.config" "$tmp/"
objcopy --strip-debug "$obj/vmlinux" "$tmp/vmlinux"
if git -C "$wt" merge-base --is-ancestor "$base" HEAD; then
	git -C "$wt" log --oneline "$base..HEAD" >"$tmp/patches.txt"
else
	echo "$(git -C "$wt" log --oneline -1 HEAD) (not on the pinned base)" >"$tmp/patches.txt"
fi
[ "$kind" = conf ] || echo "$arm tree $tree" >"$tmp/source"
echo "$secs" >"$tmp/build-seconds"
echo "$cpu" >"$tmp/build-cpu-seconds"
rm -rf "$dest"
mv "$tmp" "$dest"
log "$arm/$flavour built in ${secs}s ($cpu CPU-s, $n objects compiled) -> $dest"
echo "$dest"
