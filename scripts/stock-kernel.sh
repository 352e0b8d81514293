#!/usr/bin/env bash
# stock-kernel.sh - a Debian stock kernel for `foliobench vm --kernel debian:V`.
#
# Usage: scripts/stock-kernel.sh debian:V      print the kernel's directory
#   V  6.1 (bookworm), 6.12 (bookworm-backports), 7.3 (trixie-backports), or
#      a longer prefix of the upstream version (7.3.4): the newest
#      linux-image-<V>*-amd64 of that suite.
#
# The image package is fetched with `apt-get download` under a throw-away
# apt configuration whose mirror is read from this machine's own apt
# sources (as scripts/kernel-src.sh does); nothing is installed.  Its size
# and sha256 are checked against the Packages index (kept beside the .deb
# in $FB_CACHE/stock/dl/).  The package is unpacked, its modules indexed
# (depmod -b) and an initramfs built with the kernel's own 9p/virtio
# modules (decompressed) and a static /init (scripts/stock-init.c) that
# mounts the host's root over 9p.  Everything is made in a temporary
# directory renamed to $FB_CACHE/stock/debian-V at the end, so a killed or
# failed run never leaves a directory that a later run would use.
#
# The directory holds bzImage, initrd.cpio (loader/guest/vm.c boots with it
# when it is there), config, System.map, lib/modules/<release>/ and
# package (name, version, sha256).
#
# Exit: 0; 2 bad input (unknown version, package without BTF, a download
# whose size or sha256 is not the index's: the file is removed), one line;
# 1 other failures (network, tools).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cache=${FB_CACHE:-/var/cache/foliobench}
stock=$cache/stock
dl=$stock/dl
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
# modules the initramfs loads (with their dependencies), in this order
want=(virtio_pci virtio_console 9pnet_virtio 9p)

log() { echo "stock-kernel: $*" >&2; }
die() { echo "stock-kernel: error: $*" >&2; exit 1; }
bad() { echo "stock-kernel: $*" >&2; exit 2; }

[ $# -eq 1 ] || bad "usage: stock-kernel.sh debian:VERSION (6.1, 6.12, 7.3)"
spec=$1
case $spec in
debian:*) ver=${spec#debian:} ;;
*) bad "'$spec' is not debian:VERSION" ;;
esac
case $ver in
6.1 | 6.1.*) suite=bookworm pat='6\.1\.0-[0-9]+-amd64' ;;
6.12 | 6.12.*) suite=bookworm-backports pat="${ver//./\\.}(\.[0-9]+)*\+deb12-amd64" ;;
7.3 | 7.3.*) suite=trixie-backports pat="${ver//./\\.}(\.[0-9]+)*\+deb13-amd64" ;;
*) bad "unknown Debian kernel version '$ver' in '$spec' (known: debian:6.1, debian:6.12, debian:7.3)" ;;
esac
[[ $ver =~ ^[0-9]+(\.[0-9]+)*$ ]] || bad "unknown Debian kernel version '$ver' in '$spec' (known: debian:6.1, debian:6.12, debian:7.3)"
name=debian-$ver
out=$stock/$name
# what the directory is made by: a change to either rebuilds it (not the download)
key=$(cat "$here/scripts/stock-kernel.sh" "$here/scripts/stock-init.c" | sha256sum | cut -c1-16)
ready() { [ "$(cat "$out/.ready" 2>/dev/null)" = "$key" ]; }
if ready; then
	echo "$out"
	exit 0
fi
mkdir -p "$dl"
exec 9>"$stock/.lock"
flock 9
ready && { echo "$out"; exit 0; }
rm -rf "$out" "$stock"/.tmp-"$name".*	# a run killed before its rename

# The same private apt setup as kernel-src.sh (mirror from this machine).
# shellcheck source=lib/apt.sh
. "$here/scripts/lib/apt.sh"

tmp=$(mktemp -d "$stock/.tmp-$name.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

apt_setup() {
	apt_private "$tmp/apt" "$suite" "$keyring"
	opts=("${apt_opts[@]}")
}

# One "package version size sha256" line of the index.
pkg_line() {
	apt-cache "${opts[@]}" show "$1${2:+=$2}" | awk -v p="$1" '
		/^Version:/ { v = $2 } /^Size:/ { s = $2 } /^SHA256:/ { h = $2 }
		/^$/ { if (v && !d) { print p, v, s, h; d = 1 } } END { if (v && !d) print p, v, s, h }'
}

# dl/debian-V.pkg: the newest linux-image-<V>*-amd64, then the packages of
# the same release it depends on (trixie splits the image into
# linux-binary-, linux-modules-, linux-base-<release>; bookworm's holds all).
resolve() {
	local pkg rel img dep v
	pkg=$(apt-cache "${opts[@]}" pkgnames linux-image- | grep -E "^linux-image-$pat\$" |
		sort -V | tail -1) || true
	[ -n "$pkg" ] || bad "no linux-image-$ver*-amd64 package in $suite (debian:$ver)"
	rel=${pkg#linux-image-}
	img=$(pkg_line "$pkg")
	[ "$(echo "$img" | wc -w)" = 4 ] || die "no Version/Size/SHA256 for $pkg in the $suite index"
	echo "$img" >"$tmp/pkg"
	apt-cache "${opts[@]}" show "$pkg=$(echo "$img" | cut -d' ' -f2)" |
		sed -n 's/^\(Pre-\)\?Depends: //p' | tr ',|' '\n\n' |
		sed -n "s/^ *\(linux-[a-z]*-$rel\) *(= *\([^)]*\)).*/\1 \2/p" |
		while read -r dep v; do
			pkg_line "$dep" "$v" >>"$tmp/pkg"
		done
	mv "$tmp/pkg" "$dl/$name.pkg"
}

opts=()
if [ ! -f "$dl/$name.pkg" ]; then
	apt_setup
	resolve
fi
# Fetches and checks one package of the .pkg file; sets deb.
fetch_one() {
	local p=$1 pv=$2 psize=$3 psum=$4 size sum
	deb=$dl/${p}_${pv}.deb
	if [ ! -f "$deb" ]; then
		[ ${#opts[@]} -gt 0 ] || apt_setup
		log "apt-get download $p=$pv ($((psize / 1048576)) MiB)"
		(cd "$tmp/apt" && apt-get -q "${opts[@]}" download "$p=$pv") >&2 ||
			die "apt-get download $p=$pv failed"
		mv "$tmp/apt/${p}_"*.deb "$deb"
	fi
	size=$(stat -c %s "$deb")
	sum=$(sha256sum "$deb" | cut -d' ' -f1)
	if [ "$size" != "$psize" ] || [ "$sum" != "$psum" ]; then
		rm -f "$deb"
		bad "$deb: $size bytes, sha256 $sum; the $suite index says $psize bytes, sha256 $psum (truncated or corrupt download removed; run again to fetch it anew)"
	fi
}

debs=()
pkgs=()
while read -r p pv psize psum; do
	fetch_one "$p" "$pv" "$psize" "$psum"
	debs+=("$deb")
	pkgs+=("$p $pv $psum")
done <"$dl/$name.pkg"
pkg=${pkgs[0]%% *}
[ ${#debs[@]} -gt 0 ] || bad "$dl/$name.pkg names no package; remove it and run again"

# (quietly: a package refused below gets its one line and nothing else)
for d in "${debs[@]}"; do
	dpkg-deb -x "$d" "$tmp/x"
done
mods=$tmp/x/lib/modules
[ -d "$tmp/x/usr/lib/modules" ] && mods=$tmp/x/usr/lib/modules
kver=$(ls "$mods" 2>/dev/null | head -1)
# bookworm: /boot/{vmlinuz,config,System.map}-<release>; trixie: in the modules directory
kfile() {
	local f
	for f in "$tmp/x/boot/$1-$kver" "$mods/$kver/$1"; do
		[ -f "$f" ] && { echo "$f"; return; }
	done
}
[ -n "$kver" ] && [ -n "$(kfile vmlinuz)" ] && [ -n "$(kfile config)" ] ||
	bad "$pkg: no vmlinuz and config with a /lib/modules/<release> in ${debs[*]##*/}"
grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$(kfile config)" ||
	bad "$pkg ($spec): no BTF (CONFIG_DEBUG_INFO_BTF is not set in its config, so /sys/kernel/btf/vmlinux would be absent): foliobench's CO-RE programs cannot load on it"
log "unpacked ${debs[*]##*/} ($kver)"
mkdir -p "$tmp/k/lib/modules"
mv "$(kfile vmlinuz)" "$tmp/k/bzImage"
mv "$(kfile config)" "$tmp/k/config"
f=$(kfile System.map) && [ -n "$f" ] && mv "$f" "$tmp/k/System.map"
mv "$mods/$kver" "$tmp/k/lib/modules/"
rm -rf "$tmp/x"
depmod -b "$tmp/k" "$kver"

log "initramfs: ${want[*]} and their dependencies from $kver"
ird=$tmp/initrd
mkdir -p "$ird/m"
modprobe -a -d "$tmp/k" -S "$kver" --show-depends "${want[@]}" >"$tmp/deps" ||
	die "$pkg: modprobe --show-depends ${want[*]} failed"
while read -r what path _; do
	[ "$what" = insmod ] || continue
	b=$(basename "$path")
	b=${b%.xz} b=${b%.zst} b=${b%.gz}
	[ -f "$ird/m/$b" ] && continue
	case $path in
	*.xz) xz -dc "$path" >"$ird/m/$b" ;;
	*.zst) zstd -qdc "$path" >"$ird/m/$b" ;;
	*.gz) gzip -dc "$path" >"$ird/m/$b" ;;
	*) cp "$path" "$ird/m/$b" ;;
	esac
	echo "/m/$b" >>"$ird/modules.list"
done <"$tmp/deps"
[ -s "$ird/modules.list" ] || log "every one of ${want[*]} is built in"
touch "$ird/modules.list"
echo "$out/modprobe" >"$ird/modprobe.path"
cat >"$tmp/k/modprobe" <<EOF
#!/bin/sh
# The guest kernel's modprobe (/proc/sys/kernel/modprobe, set by /init):
# this package's modules.  Under /tmp or /var/tmp the guest sees the host's
# copy below /run/foliobench/host (scripts/guest-init.sh).
d=$out
[ -d "\$d" ] || d=/run/foliobench/host\$d
exec /sbin/modprobe -d "\$d" "\$@"
EOF
chmod 755 "$tmp/k/modprobe"
gcc -static -Os -Wall -Werror -o "$ird/init" "$here/scripts/stock-init.c" ||
	die "cannot build the static /init (gcc -static, libc6-dev)"
strip "$ird/init"
(cd "$ird" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$tmp/k/initrd.cpio"
printf "%s\n" "${pkgs[@]}" >"$tmp/k/package"
echo "$kver" >"$tmp/k/release"
echo "$key" >"$tmp/k/.ready"
rm -rf "$out"
mv "$tmp/k" "$out"
log "$spec: ${pkgs[*]%% *} ($kver) in $out"
echo "$out"
