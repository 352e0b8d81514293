#!/usr/bin/env bash
# qemu-plugin-h.sh - fetch qemu's TCG plugin API header into the foliobench
# cache, checksum-pinned like the kernel source (scripts/kernel-src.sh).
#
# Usage: scripts/qemu-plugin-h.sh     print the directory holding qemu-plugin.h
#
# The header is include/qemu/qemu-plugin.h of Debian 12's source package
# qemu 7.2+dfsg (plugin API version 1, the qemu-system-x86 this project boots
# guests with).  `apt-get source --download-only qemu` runs under a throw-away
# apt configuration whose deb-src line names this machine's own mirror
# (scripts/lib/apt.sh) and suite bookworm; the upstream tarball must have the
# pinned sha256, and only the header is extracted (under $FB_CACHE/qemu-plugin/,
# by rename, so a killed run leaves nothing a later one uses).  Nothing is
# installed and nothing is kept in the repository.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cache=${FB_CACHE:-/var/cache/foliobench}
# The upstream tarball is the same in every Debian revision of 7.2+dfsg.
QEMU_SUITE=bookworm
QEMU_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
QEMU_ORIG=qemu_7.2+dfsg.orig.tar.xz
QEMU_ORIG_SHA256=91aca71520040edc40b8d437aa3004dae614f58e286cf653ee8996c07af2962f
QEMU_HEADER=qemu-7.2.0/include/qemu/qemu-plugin.h
QEMU_HEADER_SHA256=19f277b037d05a8bcb5069f2f81a465d177208e5903048a915c56627d4c3748e

log() { echo "qemu-plugin-h: $*" >&2; }
die() { echo "qemu-plugin-h: error: $*" >&2; exit 1; }

out=$cache/qemu-plugin/qemu-7.2.0
if [ -f "$out/qemu-plugin.h" ] &&
	[ "$(sha256sum "$out/qemu-plugin.h" | cut -d' ' -f1)" = "$QEMU_HEADER_SHA256" ]; then
	echo "$out"
	exit 0
fi

# shellcheck source=lib/apt.sh
. "$here/scripts/lib/apt.sh"
mkdir -p "$cache/qemu-plugin"
tmp=$(mktemp -d "$cache/qemu-plugin/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

apt_private "$tmp/apt" "$QEMU_SUITE" "$QEMU_KEYRING" deb-src
mkdir -p "$tmp/src"
log "apt-get source --download-only qemu ($QEMU_SUITE)"
(cd "$tmp/src" && apt-get -q "${apt_opts[@]}" source --download-only qemu) >"$tmp/get.log" 2>&1 ||
	{ tail -5 "$tmp/get.log" >&2; die "apt-get source --download-only qemu failed"; }
[ -f "$tmp/src/$QEMU_ORIG" ] || die "no $QEMU_ORIG in the source package (is bookworm's qemu still 7.2+dfsg?)"
sum=$(sha256sum "$tmp/src/$QEMU_ORIG" | cut -d' ' -f1)
[ "$sum" = "$QEMU_ORIG_SHA256" ] || die "$QEMU_ORIG: sha256 $sum, expected $QEMU_ORIG_SHA256"
tar -C "$tmp" -xJf "$tmp/src/$QEMU_ORIG" "$QEMU_HEADER"
sum=$(sha256sum "$tmp/$QEMU_HEADER" | cut -d' ' -f1)
[ "$sum" = "$QEMU_HEADER_SHA256" ] || die "$QEMU_HEADER: sha256 $sum, expected $QEMU_HEADER_SHA256"
mkdir -p "$tmp/out"
mv "$tmp/$QEMU_HEADER" "$tmp/out/qemu-plugin.h"
rm -rf "$out"
mv "$tmp/out" "$out"
log "$out/qemu-plugin.h (sha256 $QEMU_HEADER_SHA256)"
echo "$out"
