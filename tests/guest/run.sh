#!/usr/bin/env bash
# tests/guest/run.sh - everything that needs our own kernels, under qemu.
#
# Builds (or reuses, from $FB_CACHE) the baseline and patched kernels, then:
#   stock-test.sh       Debian stock kernels (issue 27): bad input offline,
#                       then debian:7.3 fetched, booted, its attach table
#                       (needs no kernel of ours: runs first)
#   vm-test.sh          the harness itself (exit codes, panic, timeout)
#   core                probes attach in the guest; probe counts equal the
#                       workloads' own op counts; counts scale with devices
#   gate-test.sh        ab + gate on real rounds: A/A decides, an injected
#                       regression fails naming its metric
#   arms-test.sh        ab --arm from a patch directory and from a git tree
#                       at a revision: bad input refused, built, gated
#   bpftrace-test.sh    one-liners agree with foliobench
#   peers-test.sh       counts equal to funclatency; klockstat (kprobe mode) brackets the lock counts (#27)
#   series tests        KUnit suites and workloads on the patched kernels
#   lockstat flavour    lock rows, lockdep patches (FB_LOCKSTAT, below)
#   drm flavour         drm_gpuvm KUnit suite, folio-pool 4/9 (FB_DRM, below)
#   kunit flavour       glue-dir KUnit suite under DEBUG_KOBJECT_RELEASE,
#                       kernfs-bulk 2/3 (FB_KUNIT, below)
# Prints ok/not ok lines; tests/run.sh counts them.
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
repo=$PWD
fb=$repo/foliobench
res=$repo/results/tests-$$
mkdir -p "$res"
trap 'rm -rf "$res"' EXIT
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; }

kernel() {	# kernel ARM FLAVOUR: build (cached) and print the directory
	"$fb" kernel build --arm "$1" --flavour "$2" 2>"$res/build-$1-$2.log" | tail -1
}

bash tests/guest/stock-test.sh "$res"
echo "# time: $(date -u +%T), the stock-kernel checks done"

base=$(kernel baseline perf)
if [ -f "$base/bzImage" ]; then
	ok "baseline perf kernel built ($(cat "$base/build-seconds" 2>/dev/null)s when built)"
else
	nok "baseline perf kernel built"
	tail -20 "$res/build-baseline-perf.log" | sed 's/^/#   /'
	exit 0
fi

bash tests/guest/vm-test.sh "$base"
FB_KERNEL=$base bash tests/guest/core-test.sh "$res"
bash tests/guest/gate-test.sh "$res"
# ab --arm: a patch directory and a git tree at a revision, made by the
# test from the base source tree, built (arm switches) and gated
bash tests/guest/arms-test.sh "$res"
bash tests/guest/clock-test.sh "$res"
# BPF lock rows: sysfs with every lock row attached, 2 boots per kernel (no
# oops, hang or splat; exact per-node counts)
patched=$(kernel patched perf)
bash tests/guest/lock-test.sh "$base" "$patched" -n 2 | grep -E '^(not )?ok|^#'
bash tests/guest/perpatch-test.sh "$res"
# the peers: counts equal to libbpf-tools funclatency, klockstat brackets the lock counts, one boot
bash tests/guest/peers-test.sh "$base" "$res" | grep -E '^(not )?ok|^#'
# the one-liners, inside a guest, against foliobench's counts.  One vCPU:
# some scripts put trampolines on busy lock functions (mutex_lock*,
# down_write, _raw_spin_lock), and under TCG with 2 vCPUs attaching them
# sometimes oopsed the guest ("Oops: int3" in mutex_lock_killable while
# the other vCPU ran it): cross-vCPU text poking, absent with one vCPU.
# The lock one-liners run only on the lockstat kernel below: here foliobench
# has no lock rows to compare them with, and a trampoline on the spinlock
# path once left bpftrace hung after SIGINT in this TCG guest.
"$fb" vm --smp 1 --kernel "$base" --results "$res" --timeout 1800 --log "$res/bpftrace.log" -- \
	sh -c 'bash tests/guest/bpftrace-test.sh --only nft_trans_alloc --only nft_trans_destroy \
		--only kernfs_new_node --only kernfs_add_one --only kernfs_activate \
		--only lockdep_list_entry --only get_device_parent 2>&1' | grep -E '^(not )?ok|SKIP|^#' ||
	nok "bpftrace-test ran"
bash tests/guest/series-test.sh "$res"

# ---- the lockstat flavour (lockdep + lock_stat) ----
# Two more kernels, one of them a cold build of a second config (no object
# is shared with the perf flavour: ~1.3x the perf build, README "Cost").
# FB_LOCKSTAT: 1 (default) builds them if needed and runs their tests; 0
# skips them; auto (for a machine slower than ours) runs them when both are cached, or
# when building them still fits the CI budget: FB_CI_START (epoch s) +
# FB_CI_BUDGET (s) against 1.3x this machine's baseline perf build time
# plus 15 minutes of arm switch and guests.
# budget_go NAME SETTING EST CACHED VAR: the FB_LOCKSTAT / FB_DRM decision.
# SETTING 0 skips, 1 runs, auto runs when CACHED is 1 or when EST seconds
# of building still fit FB_CI_START + FB_CI_BUDGET; says why when it skips.
budget_go() {
	local name=$1 setting=$2 est=$3 cached=$4 var=$5 now
	case "$setting" in
	0) echo "# SKIP $name: $var=0"; return 1 ;;
	1) return 0 ;;
	auto) ;;
	*) echo "not ok - $var must be 0, 1 or auto, not '$setting'"; exit 2 ;;
	esac
	[ "$cached" = 1 ] && return 0
	now=$(date +%s)
	if [ $(( now + est )) -le $(( ${FB_CI_START:-$now} + ${FB_CI_BUDGET:-3600} )) ]; then
		echo "# $name: building (about ${est}s; $(( now - ${FB_CI_START:-$now} ))s of the ${FB_CI_BUDGET:-3600}s budget used)"
		return 0
	fi
	echo "# SKIP $name: not cached, and building it (about ${est}s) would pass the CI budget" \
		"(${FB_CI_BUDGET:-3600}s, $(( now - ${FB_CI_START:-$now} ))s used); $var=1 make test runs it"
	return 1
}
lockstat_go() {
	local b p est cached=0
	b=$(scripts/kernel-build.sh --print baseline lockstat) p=$(scripts/kernel-build.sh --print patched lockstat)
	[ -f "$b/bzImage" ] && [ -f "$p/bzImage" ] && cached=1
	est=$(( $(cat "$base/build-seconds" 2>/dev/null || echo 1800) * 13 / 10 + 900 ))
	[ -f "$b/bzImage" ] && est=900
	budget_go "lockstat flavour" "${FB_LOCKSTAT:-1}" "$est" "$cached" FB_LOCKSTAT
}
lockstat_flavour() {
	bls=$(kernel baseline lockstat)
	pls=$(kernel patched lockstat)
	for k in baseline:$bls patched:$pls; do
		[ -f "${k#*:}/bzImage" ] || { nok "${k%%:*} lockstat kernel builds"; tail -20 "$res/build-${k%%:*}-lockstat.log" | sed 's/^/#   /'; }
	done
	[ -f "$pls/bzImage" ] || return 0
	# BPF lock rows against /proc/lock_stat, exactly, on the patched lockstat kernel
	bash tests/guest/lock-test.sh -l "$pls" | grep -E '^(not )?ok|^#'
	# the lockdep list-entry one-liner needs the patched lockstat kernel; the
	# lock one-liners are checked against /proc/lock_stat there
	if grep -q '^0006-' kernel-patches/folio-pool/series; then
		"$fb" vm --smp 1 --kernel "$pls" --results "$res" --timeout 1800 --log "$res/bpftrace-lockdep.log" -- \
			sh -c 'bash tests/guest/bpftrace-test.sh --only lockdep_list_entry 2>&1;
				bash tests/guest/bpftrace-test.sh --lock-stat --only kernfs_rwsem \
					--only kernfs_idr_lock --only get_device_parent 2>&1' |
			grep -E '^(not )?ok|SKIP|^#' || nok "bpftrace-test (lockdep) ran"
	fi
	[ -f "$bls/bzImage" ] && bash tests/guest/lockstat-test.sh "$res" "$bls" "$pls"
	echo "# time: $(date -u +%T), the lockstat-flavour checks done"
}

# ---- the drm flavour (test-only: perf + DRM, folio-pool 4/9's KUnit suite) ----
# One more kernel, patched arm only, built in the perf flavour's build
# directory (kernel-build.sh "builddir:"), so that ccache reuses the perf
# objects: a config and arm switch, not a cold build.  FB_DRM: 1 (default)
# builds it if needed and boots it; 0 skips it; auto (a slower machine)
# boots it when it is cached, or when building it still fits the CI
# budget: 0.5x this machine's baseline perf build plus 2 minutes for the
# boot (483 objects recompiled, a third of a cold build; README "Cost").
drm_go() {
	local d cached=0
	d=$(scripts/kernel-build.sh --print patched drm)
	[ -f "$d/bzImage" ] && cached=1
	budget_go "drm flavour" "${FB_DRM:-1}" \
		$(( $(cat "$base/build-seconds" 2>/dev/null || echo 1800) / 2 + 120 )) "$cached" FB_DRM
}

echo "# time: $(date -u +%T), the perf-flavour checks done"
lockstat_go && lockstat_flavour
# after the lockstat flavour: that one has more checks, and the budget
# goes to it first
if drm_go; then
	bash tests/guest/drm-test.sh "$res"
	echo "# time: $(date -u +%T), the drm-flavour checks done"
fi

# ---- the kunit flavour (test-only: a small kernel with DEBUG_KOBJECT_RELEASE) ----
# One more kernel, patched arm only, a cold build of its own config
# (kernel-patches/configs/kunit.flavour: 1,252 objects without debug info,
# the perf flavour 1,592 with), and one boot of ~10 s.  Not measured on an
# idle machine: 1,219 s at nice 10 beside a cold CI run (load 8-16), whose
# baseline perf build took 1,810 s then; KUNIT_EST_PCT (percent of
# this machine's baseline perf build) is a guess on the safe side.
# FB_KUNIT: 1 (default) builds it if needed and boots it; 0 skips it; auto
# boots it when cached or when building it still fits the CI budget.
KUNIT_EST_PCT=80
kunit_go() {
	local d cached=0
	d=$(scripts/kernel-build.sh --print patched kunit)
	[ -f "$d/bzImage" ] && cached=1
	budget_go "kunit flavour" "${FB_KUNIT:-1}" \
		$(( $(cat "$base/build-seconds" 2>/dev/null || echo 1800) * KUNIT_EST_PCT / 100 + 60 )) "$cached" FB_KUNIT
}
if kunit_go; then
	bash tests/guest/kunit-test.sh "$res"
	echo "# time: $(date -u +%T), the kunit-flavour checks done"
fi
