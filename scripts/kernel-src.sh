#!/usr/bin/env bash
# kernel-src.sh - fetch the pinned Linux base into the foliobench cache.
#
# Usage: scripts/kernel-src.sh            print the path of an unpacked tree
#
# KSRC=/path/to/linux wins: it is used as is (nothing is downloaded); it
# must be a git tree with a tag `base` on the commit the series apply to.
# Otherwise the Debian package linux-source-7.3 is fetched with
# `apt-get download` under a throw-away apt configuration whose mirror is
# read from this machine's own apt sources (suite trixie-backports).  Nothing
# is installed into the system.  The tarball is unpacked once under
# $FB_CACHE/src/ and made into a git tree (git add -f: Debian's top-level
# .gitignore ignores everything) so that series can be applied with git am.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=/dev/null
. "$here/kernel-patches/base.env"
cache=${FB_CACHE:-/var/cache/foliobench}

log() { echo "kernel-src: $*" >&2; }
die() { echo "kernel-src: error: $*" >&2; exit 1; }

if [ -n "${KSRC:-}" ]; then
	[ -f "$KSRC/Makefile" ] && [ -d "$KSRC/kernel" ] || die "KSRC=$KSRC is not a kernel tree"
	# the series apply to the tree's tag base, as this script tags the pinned base
	git -C "$KSRC" rev-parse -q --verify "refs/tags/base^{commit}" >/dev/null 2>&1 ||
		die "KSRC=$KSRC has no tag 'base': tag the commit the series apply to (Linux $BASE_VERSION): git -C $KSRC tag base COMMIT"
	echo "$KSRC"
	exit 0
fi

# shellcheck source=lib/apt.sh
. "$here/scripts/lib/apt.sh"

fetch_deb() {
	local tmp
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	apt_private "$tmp" "$BASE_SUITE" "$BASE_KEYRING"
	local opts=("${apt_opts[@]}")
	log "apt-get download $BASE_PACKAGE=$BASE_DEB_VERSION"
	(cd "$tmp" && apt-get -q "${opts[@]}" download "$BASE_PACKAGE=$BASE_DEB_VERSION") >&2 ||
		die "apt-get download $BASE_PACKAGE=$BASE_DEB_VERSION failed (is the pin in kernel-patches/base.env still served?)"
	local deb sum
	deb=$(echo "$tmp"/"${BASE_PACKAGE}"_*.deb)
	sum=$(sha256sum "$deb" | cut -d' ' -f1)
	[ "$sum" = "$BASE_DEB_SHA256" ] || die "$deb: sha256 $sum, expected $BASE_DEB_SHA256"
	mkdir -p "$cache/dl"
	mv "$deb" "$cache/dl/$BASE_PACKAGE.deb"
}

tree=$cache/src/linux-$BASE_VERSION
if [ -f "$tree/.foliobench-ready" ]; then
	echo "$tree"
	exit 0
fi

tarball=$cache/dl/linux-source-$BASE_VERSION.tar.xz
if [ ! -f "$tarball" ]; then
	[ -f "$cache/dl/$BASE_PACKAGE.deb" ] || fetch_deb
	log "unpacking $BASE_PACKAGE.deb"
	x=$(mktemp -d)
	dpkg-deb -x "$cache/dl/$BASE_PACKAGE.deb" "$x"
	mv "$x"/usr/src/linux-source-*.tar.xz "$tarball"
	rm -rf "$x"
fi

sum=$(sha256sum "$tarball" | cut -d' ' -f1)
[ "$sum" = "$BASE_TARBALL_SHA256" ] ||
	die "$tarball: sha256 $sum, expected $BASE_TARBALL_SHA256 (pinned in kernel-patches/base.env)"

log "unpacking $(basename "$tarball") into $tree"
rm -rf "$tree" "$tree.tmp"
mkdir -p "$tree.tmp"
tar -C "$tree.tmp" --strip-components=1 -xJf "$tarball"
(
	cd "$tree.tmp"
	git init -q
	# No automatic repack after the commit: on a cold machine it ran
	# beside the first kernel build for minutes (a CPU of two), to pack
	# objects that are only ever checked out.
	git config gc.auto 0
	git add -f . >/dev/null
	# Fixed identity and dates: the base commit's id is then the same on
	# every machine, so the series' base-commit: trailers can name it.
	GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
		git -c user.name=foliobench -c user.email=foliobench@localhost \
		-c core.autocrlf=false -c core.fileMode=true \
		commit -q -m "Linux $BASE_VERSION (Debian $BASE_PACKAGE $BASE_DEB_VERSION)"
	git tag base
)
mv "$tree.tmp" "$tree"
touch "$tree/.foliobench-ready"
echo "$tree"
