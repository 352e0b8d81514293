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
#   observer-test.sh    the TCG plugin observer counts what BPF counts (#39);
#                       -l in the lockstat flavour: its lock holds = /proc/lock_stat
#   bpftrace-test.sh    one-liners agree with foliobench
#   peers-test.sh       counts equal to funclatency; klockstat (kprobe mode) brackets the lock counts (#27)
#   selftests-bpf.sh    bpf test_verifier + test_maps batch ops, equal outcomes on both arms (#42)
#   series tests        KUnit suites and workloads on the patched kernels
#   lockstat flavour    lock rows, lockdep patches, pool-fixes-test.sh (issue 43
#                       items 5-7: 3/9, 6/9, 9/9), the netfilter selftests and
#                       the locking API self-tests (#42) (FB_LOCKSTAT, below)
#   kunit flavour       glue-dir KUnit suite under DEBUG_KOBJECT_RELEASE,
#                       kernfs-bulk 2/3; drm_gpuvm KUnit suite, folio-pool
#                       4/9 (FB_KUNIT, below)
# Prints ok/not ok lines; tests/run.sh counts them.
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
repo=$PWD
fb=$repo/foliobench
res=$repo/results/tests-$$
mkdir -p "$res"
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; }
# mark WHAT: a time line with the seconds since the previous one, so a
# run's log says where its guest group spent its time (docs/costs.md)
mark_t=$SECONDS
mark() { echo "# time: $(date -u +%T), $1 done (+$((SECONDS - mark_t)) s)"; mark_t=$SECONDS; }

# fits NAME EST: a perf-flavour test of EST seconds (an estimate for a slow
# machine, cold: its builds and guests) still fits FB_CI_START +
# FB_CI_BUDGET, when a budget is set (.ci/run); else it says "# SKIP" why.
# Without FB_CI_BUDGET (make test by hand) every test runs.
fits() {
	local now
	[ -n "${FB_CI_BUDGET:-}" ] || return 0
	now=$(date +%s)
	[ $(( now + $2 )) -le $(( ${FB_CI_START:-$now} + FB_CI_BUDGET )) ] && return 0
	echo "# SKIP $1: about $2 s would pass the CI budget (${FB_CI_BUDGET}s, $(( now - ${FB_CI_START:-$now} ))s used)"
	return 1
}

# kernels built in the background, beside the guests (bg_build, bg_wait,
# bg_stop, bg_eta; FB_BG_BUILD=0 turns them off)
. tests/guest/bg.sh
trap 'bg_stop_all; rm -rf "$res"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

kernel() {	# kernel ARM FLAVOUR: build (cached) and print the directory
	"$fb" kernel build --arm "$1" --flavour "$2" 2>"$res/build-$1-$2.log" | tail -1
}
lockstat_cached() {
	[ -f "$(scripts/kernel-build.sh --print baseline lockstat)/bzImage" ] &&
		[ -f "$(scripts/kernel-build.sh --print patched lockstat)/bzImage" ]
}

# the baseline perf kernel (cold: the longest build) while the stock
# kernels are fetched and booted; at full priority: everything waits for it
[ -f "$(scripts/kernel-build.sh --print baseline perf)/bzImage" ] || bg_build perf 0 baseline:perf
bash tests/guest/stock-test.sh "$res"
mark "the stock-kernel checks"

bg_wait perf
base=$(kernel baseline perf)
mark "baseline perf kernel"
if [ -f "$base/bzImage" ]; then
	ok "baseline perf kernel built ($(cat "$base/build-seconds" 2>/dev/null)s when built)"
else
	nok "baseline perf kernel built"
	tail -20 "$res/build-baseline-perf.log" | sed 's/^/#   /'
	exit 0
fi

# the lockstat kernels (a second config: a cold build) while the perf
# flavour's guests run; joined before the lockstat flavour's checks
lockstat_cached || [ "${FB_LOCKSTAT:-1}" = 0 ] || bg_build lockstat 19 baseline:lockstat patched:lockstat

bash tests/guest/vm-test.sh "$base"
mark vm-test
FB_KERNEL=$base bash tests/guest/core-test.sh "$res"
mark core-test
bash tests/guest/gate-test.sh "$res"
mark gate-test
# ab --arm: a patch directory and a git tree at a revision, made by the
# test from the base source tree, built (arm switches) and gated
bash tests/guest/arms-test.sh "$res"
mark arms-test
# docs/ci/.gitlab-ci.yml run by gitlab-ci-local on a merge request of a
# user's tree (base, a comment-only head): its exit code = its gate's
fits "ci-gitlab-test" 600 && bash tests/guest/ci-gitlab-test.sh "$res"
mark ci-gitlab-test
bash tests/guest/clock-test.sh "$res"
mark clock-test
# the TCG plugin observer: its counts = the BPF rows' = the workloads' (#39)
bash tests/guest/observer-test.sh "$res" "$base"
mark observer-test
# BPF lock rows: sysfs with every lock row attached, 2 boots per kernel (no
# oops, hang or splat; exact per-node counts)
patched=$(kernel patched perf)
mark "patched perf kernel"
bash tests/guest/lock-test.sh "$base" "$patched" -n 2 | grep -E '^(not )?ok|^#'
mark lock-test
bash tests/guest/perpatch-test.sh "$res"
mark perpatch-test
# the peers: counts equal to libbpf-tools funclatency, klockstat brackets the lock counts, one boot
bash tests/guest/peers-test.sh "$base" "$res" | grep -E '^(not )?ok|^#'
mark peers-test
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
mark bpftrace-test
bash tests/guest/series-test.sh "$res"
mark series-test
# the bpf subsystem's own suites (issue 42): test_verifier and test_maps'
# batch-op tests, built from the pinned tree (cached), one boot per arm
fits "selftests-bpf" 700 && bash tests/guest/selftests-bpf.sh "$res" "$base" "$patched"
mark selftests-bpf

# ---- the lockstat flavour (lockdep + lock_stat) ----
# Two more kernels, one of them a cold build of a second config (no object
# is shared with the perf flavour: ~1.3x the perf build, docs/costs.md),
# built in the background since the baseline perf kernel was (above).
# FB_LOCKSTAT: 1 (default) builds them if needed and runs their tests; 0
# skips them; auto (for a machine slower than ours) runs them when both are cached, or
# when the rest of their build still fits the CI budget: FB_CI_START (epoch s) +
# FB_CI_BUDGET (s) against the background build's ETA, else 1.75x this
# machine's baseline perf build time, plus 25 minutes of arm switch and
# guests; when it does not, the background build is stopped.
# budget_go NAME SETTING EST CACHED VAR: the FB_LOCKSTAT / FB_KUNIT decision.
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
	local b est cached=0 eta
	b=$(scripts/kernel-build.sh --print baseline lockstat)
	lockstat_cached && cached=1
	# the checks: 15 min, + 4 for pool-fixes-test.sh (210 s measured), + 5
	# for selftests-nft.sh (#42; 166 s measured at load 7-12, both arms at
	# once); the config (nftselftest.config, locking API self-tests)
	# compiles ~1,590 objects
	# cold, 1.34x the 1,188 of before: 1.3x -> 1.75x the perf build
	est=$(( $(cat "$base/build-seconds" 2>/dev/null || echo 1800) * 175 / 100 + 1440 ))
	eta=$(bg_eta lockstat)
	[ -n "$eta" ] && est=$(( eta + 1440 ))
	[ -f "$b/bzImage" ] && est=1440
	budget_go "lockstat flavour" "${FB_LOCKSTAT:-1}" "$est" "$cached" FB_LOCKSTAT
}
lockstat_flavour() {
	bls=$(kernel baseline lockstat)
	pls=$(kernel patched lockstat)
	for k in baseline:$bls patched:$pls; do
		[ -f "${k#*:}/bzImage" ] || { nok "${k%%:*} lockstat kernel builds"; tail -20 "$res/build-${k%%:*}-lockstat.log" | sed 's/^/#   /'; }
	done
	[ -f "$pls/bzImage" ] || return 0
	mark "lockstat kernels"
	# BPF lock rows against /proc/lock_stat, exactly, on the patched lockstat kernel
	bash tests/guest/lock-test.sh -l "$pls" | grep -E '^(not )?ok|^#'
	mark "lock-test -l"
	# the plugin's lock rows against the same, in one --observer both boot (#39)
	bash tests/guest/observer-test.sh -l "$pls" "$res"
	mark "observer-test -l"
	# the lockdep list-entry one-liner needs the patched lockstat kernel; the
	# lock one-liners are checked against /proc/lock_stat there
	if grep -q '^0006-' kernel-patches/folio-pool/series; then
		"$fb" vm --smp 1 --kernel "$pls" --results "$res" --timeout 1800 --log "$res/bpftrace-lockdep.log" -- \
			sh -c 'bash tests/guest/bpftrace-test.sh --only lockdep_list_entry 2>&1;
				bash tests/guest/bpftrace-test.sh --lock-stat --only kernfs_rwsem \
					--only kernfs_idr_lock --only get_device_parent 2>&1' |
			grep -E '^(not )?ok|SKIP|^#' || nok "bpftrace-test (lockdep) ran"
		mark "bpftrace-test (lockdep)"
	fi
	[ -f "$bls/bzImage" ] && bash tests/guest/lockstat-test.sh "$res" "$bls" "$pls"
	# folio-pool's issue-43 fixes (3/9's exhausted pool, 9/9 with
	# lockdep.folio_pool=0 and a big boot graph, 6/9's /proc/lockdep
	# readers against zap_class()): three boots of the patched kernel
	bash tests/guest/pool-fixes-test.sh "$res/pool-fixes" "$pls" | grep -E '^(not )?ok|^#'
	mark "pool-fixes-test"
	# the subsystems' own suites on both arms (#42): lockdep's locking API
	# self-tests at boot, the netfilter transaction and set selftests
	[ -f "$bls/bzImage" ] && bash tests/guest/selftests-nft.sh "$res" "$bls" "$pls"
	mark selftests-nft
	echo "# time: $(date -u +%T), the lockstat-flavour checks done"
}

# The kunit kernel (below) builds in the background once the lockstat
# kernels are there: while they are still building, both CPUs are busy
# and the lockstat checks wait for them.
kunit_bg() {
	[ -f "$(scripts/kernel-build.sh --print patched kunit)/bzImage" ] || [ "${FB_KUNIT:-1}" = 0 ] ||
		bg_build kunit 19 patched:kunit
}

mark "the perf-flavour checks"
if lockstat_go; then
	bg_wait lockstat
	kunit_bg
	lockstat_flavour
else
	bg_stop lockstat
	kunit_bg
fi

# ---- the kunit flavour (test-only: a small kernel with DEBUG_KOBJECT_RELEASE and DRM) ----
# One more kernel, patched arm only, a cold build of its own config
# (kernel-patches/configs/kunit.flavour: ~1,350 objects without debug info,
# the perf flavour 1,592 with), built in the background during the
# lockstat flavour's guests (kunit_bg above), and two boots of ~10 s: the
# glue-dir suites under DEBUG_KOBJECT_RELEASE (kernfs-bulk 2/3) and
# drm_gpuvm (folio-pool 4/9; kunit.filter_glob takes one glob, so one boot
# each).  DRM lives here, not in a perf-plus-DRM flavour of its own: that
# one recompiled ~480 perf objects (docs/costs.md).  KUNIT_EST_PCT
# (percent of this machine's baseline perf build) is a guess on the safe
# side: 1,219 s at nice 10 beside a cold CI run (load 8-16), whose
# baseline perf build took 1,810 s then.  FB_KUNIT: 1 (default) builds it
# if needed and boots it; 0 skips it; auto boots it when cached or when
# building it (or the rest of its background build) still fits the CI
# budget.
KUNIT_EST_PCT=80
kunit_go() {
	local d cached=0 est eta
	d=$(scripts/kernel-build.sh --print patched kunit)
	[ -f "$d/bzImage" ] && cached=1
	est=$(( $(cat "$base/build-seconds" 2>/dev/null || echo 1800) * KUNIT_EST_PCT / 100 + 90 ))
	eta=$(bg_eta kunit)
	[ -n "$eta" ] && est=$(( eta + 90 ))
	budget_go "kunit flavour" "${FB_KUNIT:-1}" "$est" "$cached" FB_KUNIT
}
if kunit_go; then
	bg_wait kunit
	bash tests/guest/kunit-test.sh "$res"
	bash tests/guest/drm-test.sh "$res"
	echo "# time: $(date -u +%T), the kunit-flavour checks done"
else
	bg_stop kunit
fi
