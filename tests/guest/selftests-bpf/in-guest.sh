#!/usr/bin/env bash
# in-guest.sh BINDIR OUTDIR full|quick - run in a guest by
# scripts/studies/selftests-bpf.sh (full) and tests/guest/selftests-bpf.sh
# (quick): the bpf selftests built by scripts/selftests-bpf-build.sh.
#   full:  test_verifier_fb, upstream test_maps, test_maps_each (all tests)
#   quick: test_verifier_fb, test_maps_each '*batch_ops*'
# Each binary's output goes to OUTDIR/NAME.out (line-buffered: a timeout
# keeps what ran), its exit status to OUTDIR/NAME.rc.  test_maps opens its
# .bpf.o from ./: run in BINDIR.  OUTDIR/params: the patched arm's switches
# for 3/9 and 5/9 (bpf.verifier_folio_pool, bpf.map_batch_scratchpad), if
# the kernel has them.  (test_verifier skips its unprivileged /u runs on
# this kernel whatever the sysctl says: CONFIG_CPU_MITIGATIONS=n.)
set -u
bin=$1 out=$2 mode=$3
cd "$bin" || exit 2
run() {	# run NAME CMD...
	local name=$1
	shift
	stdbuf -oL "$@" >"$out/$name.out" 2>&1
	echo $? >"$out/$name.rc"
}
uname -r >"$out/uname"
cat /proc/sys/kernel/unprivileged_bpf_disabled >"$out/unprivileged_bpf_disabled" 2>&1
for p in verifier_folio_pool map_batch_scratchpad; do
	f=/sys/module/bpf/parameters/$p
	[ -r "$f" ] && echo "$p=$(cat "$f")"
done >"$out/params"
run test_verifier ./test_verifier_fb
case $mode in
full)
	run test_maps ./test_maps
	run test_maps_each ./test_maps_each
	;;
quick)
	run test_maps_each ./test_maps_each '*batch_ops*' ;;
*)	echo "in-guest.sh: mode must be full or quick" >&2; exit 2 ;;
esac
