#!/usr/bin/env bash
# in-guest.sh BINDIR OUTDIR full|quick - run in a guest by
# scripts/studies/selftests-bpf.sh (full) and tests/guest/selftests-bpf.sh
# (quick): the bpf selftests built by scripts/selftests-bpf-build.sh.
#   full:  test_verifier_fb, upstream test_maps, test_maps_each (all tests)
#   quick: test_verifier_fb, test_maps_each '*batch_ops*'
# Each binary's output goes to OUTDIR/NAME.out (line-buffered: a timeout
# keeps what ran), its exit status to OUTDIR/NAME.rc.  test_maps opens its
# .bpf.o from ./: run in BINDIR.  kernel.unprivileged_bpf_disabled is set
# to 0 first (the guest's kernel boots with 2, BPF_UNPRIV_DEFAULT_OFF): else
# test_verifier skips every unprivileged (/u) run of its tests.
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
echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled
cat /proc/sys/kernel/unprivileged_bpf_disabled >"$out/unprivileged_bpf_disabled" 2>&1
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
