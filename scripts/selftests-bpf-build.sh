#!/usr/bin/env bash
# selftests-bpf-build.sh [--print] - build the bpf selftests test_verifier
# and test_maps of the pinned tree (issue 42) into the cache; print the
# directory.  Cached under $FB_CACHE/selftests-bpf/KEY, KEY from the base
# tree, the kernel whose BTF gives vmlinux.h, this script, the driver
# sources and the compilers: a second call prints the directory at once.
#
# How (the full `make -C tools/testing/selftests/bpf` is impossible with
# Debian 12's toolchain: its libarena, remade before any target, makes
# clang 19 crash on 32-bit arena atomics, and hundreds of progs/ need
# newer kfuncs or a newer clang): a copy of the base tree's files the
# selftests need (git archive of tag base: the cached source stays
# untouched), then the selftests Makefile itself with OUTPUT=, clang 19
# (Debian's clang-19) first in PATH for the BPF objects, gcc for the rest,
# for these targets only, libarena and the map tests' .d files marked
# old (make -o) so that make does not remake them:
#   test_verifier      upstream's rule, as is
#   map_tests/tests.h, test_maps.o, map_tests/*.test.o, testing_helpers.o,
#   map_percpu_stats.skel.h and the .bpf.o test_maps opens at run time
# and links, with the Makefile's own CFLAGS and LDLIBS (printed by make):
#   test_maps          upstream's test_maps.o + map_tests/*.test.o (its
#                      runner's link rule also waits for every progs/ object)
#   test_maps_each     tests/guest/selftests-bpf/test_maps_each.c: the same
#                      tests, one child each, PASS/SKIP/FAIL per test
#   test_verifier_fb   test_verifier + testmod_shim.c: runs on a kernel
#                      without module support (no bpf_testmod.ko)
# Kept: those binaries, the .bpf.o, build.log and build-seconds.
set -euo pipefail
if [ $# -gt 1 ] || { [ $# = 1 ] && [ "$1" != --print ]; }; then
	echo "usage: selftests-bpf-build.sh [--print]" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${FB_CACHE:-/var/cache/foliobench}
die() { echo "selftests-bpf-build: error: $*" >&2; exit 1; }
llvm=/usr/lib/llvm-19/bin
[ -x "$llvm/clang" ] || die "no $llvm/clang (Debian package clang-19: make deps)"
src=$("$here/scripts/kernel-src.sh")
btf=$("$here/scripts/kernel-build.sh" --print baseline perf)/vmlinux
drv=$here/tests/guest/selftests-bpf
key=$( {
	git -C "$src" rev-parse 'base^{tree}'
	echo "$btf"
	cat "$0" "$drv"/*.c
	gcc --version | head -1
	"$llvm/clang" --version | head -1
} | sha256sum | cut -c1-12)
dest=$cache/selftests-bpf/$key
if [ "${1:-}" = --print ]; then
	echo "$dest"
	exit 0
fi
bins="test_verifier test_verifier_fb test_maps test_maps_each"
done_() { for b in $bins; do [ -x "$dest/$b" ] || return 1; done; }
if done_; then
	echo "$dest"
	exit 0
fi
[ -f "$btf" ] || die "no $btf: build the baseline perf kernel first (foliobench kernel build --arm baseline --flavour perf)"
mkdir -p "$cache/selftests-bpf"
exec 9>"$cache/selftests-bpf/.lock-$key"
flock 9
if done_; then
	echo "$dest"
	exit 0
fi
t0=$SECONDS
tmp=$(mktemp -d "$cache/selftests-bpf/.build-$key.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src" "$tmp/out" "$tmp/dest"
log=$tmp/dest/build.log
git -C "$src" archive base Makefile tools include kernel/bpf arch/x86/include scripts |
	tar -x -C "$tmp/src"
sd=$tmp/src/tools/testing/selftests/bpf
o=$tmp/out
tests=$(cd "$sd/map_tests" && ls -- *.c | sed 's/\.c$//')
objs=
old=(-o libarena/libarena.skel.h)
for t in $tests; do
	objs="$objs $o/$t.test.o"
	old+=(-o "$o/$t.test.d")
done
mk() { PATH=$llvm:$PATH make -C "$sd" "${old[@]}" OUTPUT="$o" VMLINUX_BTF="$btf" "$@"; }
jobs=$(nproc)
{
	mk -j"$jobs" "$o/test_verifier" map_tests/tests.h "$o/test_maps.o" \
		"$o/map_percpu_stats.skel.h" "$o/sockmap_parse_prog.bpf.o" \
		"$o/sockmap_verdict_prog.bpf.o" "$o/sockmap_tcp_msg_prog.bpf.o" \
		"$o/test_map_in_map.bpf.o" "$o/test_map_in_map_invalid.bpf.o"
	# shellcheck disable=SC2086
	mk -j"$jobs" $objs
} >"$log" 2>&1 || { tail -20 "$log" >&2; die "selftests make failed (log above)"; }
cflags=$(mk -s --eval 'fb-print-cflags: ; @echo $(CFLAGS)' fb-print-cflags 2>/dev/null | tail -1)
ldlibs=$(mk -s --eval 'fb-print-ldlibs: ; @echo $(LDLIBS)' fb-print-ldlibs 2>/dev/null | tail -1)
[ -n "$cflags" ] && [ -n "$ldlibs" ] || die "could not read CFLAGS/LDLIBS from the selftests Makefile"
lib="$o/tools/build/libbpf/libbpf.a $o/testing_helpers.o"
# shellcheck disable=SC2086
(
	set -x
	gcc $cflags $objs "$o/test_maps.o" $lib $ldlibs -o "$o/test_maps"
	gcc $cflags -I"$sd" -c "$drv/test_maps_each.c" -o "$o/test_maps_each.o"
	gcc $cflags "$o/test_maps_each.o" $objs $lib $ldlibs -o "$o/test_maps_each"
	gcc $cflags "$sd/test_verifier.c" "$drv/testmod_shim.c" $lib \
		"$o/cap_helpers.o" "$o/unpriv_helpers.o" -Wl,--wrap=load_bpf_testmod \
		$ldlibs -o "$o/test_verifier_fb"
) >>"$log" 2>&1 || { tail -20 "$log" >&2; die "link failed (log above)"; }
for b in $bins; do cp "$o/$b" "$tmp/dest/"; done
cp "$o"/sockmap_*.bpf.o "$o"/test_map_in_map*.bpf.o "$tmp/dest/"
echo $((SECONDS - t0)) >"$tmp/dest/build-seconds"
rm -rf "$dest"
mv "$tmp/dest" "$dest"
echo "$dest"
