#!/usr/bin/env bash
# series-test.sh RESULTS_DIR - the patch series on their kernels, in qemu.
#
# For the `patched` arm (every series in kernel-patches/arms.conf that has
# a series file), perf flavour:
#   - the series' KUnit suites pass (one boot with kunit.enable=1, 1 vCPU;
#     kernfs-ino-batch also alone on 2 vCPUs);
#   - nf_tables batches with trans_scratchpad=1 (tests/guest/nft-txn.sh):
#     commit, abort half way, netns exit, ruleset as expected, no splat;
#   - the folio-pool workloads (nft with nf_tables.trans_scratchpad=1 and
#     =0, verifier, mapbatch) and the kernfs-bulk one (sysfs) run with no
#     WARN/BUG/lockdep splat, probe counts still equal the workloads' own;
# The lockstat flavour's checks are in lockstat-test.sh.
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
res=$1
fb=$PWD/foliobench
. tests/guest/lib.sh
if ! have folio-pool && ! have kernfs-bulk; then
	echo "# series-test: no series written yet"
	exit 0
fi
patched=$("$fb" kernel build --arm patched --flavour perf 2>"$res/build-patched-perf.log" | tail -1)
if [ ! -f "$patched/bzImage" ]; then
	nok "patched perf kernel builds (all series applied)"
	grep -E 'error|does not apply' "$res/build-patched-perf.log" | head -10 | sed 's/^/#   /'
	exit 0
fi
ok "patched perf kernel builds ($(wc -l <"$patched/patches.txt") patches applied)"

# ---- KUnit ----
# Every suite on one vCPU; then kernfs-ino-batch (kernfs-bulk 3/3) alone on
# two, where it creates nodes from one kthread per CPU and takes a CPU
# offline: no case may be skipped there, and on one vCPU only its
# hot-unplug case is.  kernfs-add-activate (1/3) puts a kprobe on
# down_write() to count write holds: that text poke stays on the 1-vCPU
# boot (cross-vCPU text poking on busy functions oopsed TCG guests).
"$fb" vm --smp 1 --kernel "$patched" --results "$res" --log "$res/kunit.log" \
	--append "kunit.enable=1" -- true >"$res/kunit.out" 2>&1
rc=$?
t "KUnit boot of the patched kernel, 1 vCPU: no splat (vm rc=$rc)" test $rc = 0
for s in $(have folio-pool && echo folio_pool) $(have kernfs-bulk && echo driver-core-glue-dir driver-core-root-device); do
	line=$(suite "$res/kunit.log" "$s")
	t "KUnit suite $s: ${line:-not run}" bash -c "[[ '$line' =~ ^pass:[1-9][0-9]*\ fail:0\  ]]"
done
if have kernfs-bulk; then
	line=$(suite "$res/kunit.log" kernfs-add-activate)
	t "KUnit suite kernfs-add-activate: ${line:-not run}, nothing skipped" \
		bash -c "[[ '$line' =~ ^pass:[1-9][0-9]*\ fail:0\ skip:0$ ]]"
	line=$(suite "$res/kunit.log" kernfs-ino-batch)
	t "KUnit suite kernfs-ino-batch, 1 vCPU: ${line:-not run}, only the hot-unplug case skipped" \
		bash -c "[[ '$line' =~ ^pass:[1-9][0-9]*\ fail:0\ skip:1$ ]]"
	"$fb" vm --smp 2 --kernel "$patched" --results "$res" --log "$res/kunit-2cpu.log" \
		--append "kunit.enable=1 kunit.filter_glob=kernfs-ino-batch" -- true >"$res/kunit-2cpu.out" 2>&1
	rc=$?
	line=$(suite "$res/kunit-2cpu.log" kernfs-ino-batch)
	t "KUnit suite kernfs-ino-batch, 2 vCPUs: ${line:-not run}, nothing skipped (vm rc=$rc)" \
		bash -c "[ $rc = 0 ] && [[ '$line' =~ ^pass:[1-9][0-9]*\ fail:0\ skip:0$ ]]"
fi

# ---- nf_tables batches on the scratchpad (folio-pool 2/9) ----
# tests/guest/nft-txn.sh in the guest: commit, abort half way, the
# parameter switched between batches, netns exit after and during batches;
# its ok/not ok lines are ours, and their number must be its plan.
if have folio-pool; then
	"$fb" vm --kernel "$patched" --results "$res" --log "$res/nft-txn.log" \
		--append "nf_tables.trans_scratchpad=1" -- bash tests/guest/nft-txn.sh >"$res/nft-txn.out" 2>&1
	rc=$?
	grep -E '^(not )?ok - ' "$res/nft-txn.out" | sed 's/^\(\(not \)\?ok - \)/\1nft-txn: /'
	plan=$(sed -n 's/^# plan //p' "$res/nft-txn.out")
	t "nft-txn (trans_scratchpad=1): all ${plan:-?} checks ran, no splat (vm rc=$rc)" \
		bash -c "[ $rc = 0 ] && [ -n '$plan' ] && [ \$(grep -cE '^(not )?ok - ' '$res/nft-txn.out') = '$plan' ]"
fi

# ---- workloads on the patched kernel ----
wl="--workload sysfs"
have folio-pool && wl="--workload nft --workload verifier --workload mapbatch $wl"
for sp in 1 0; do
	"$fb" vm --kernel "$patched" --results "$res" --log "$res/patched-$sp.log" \
		--append "nf_tables.trans_scratchpad=$sp" -- \
		./foliobench run $wl --out "$res/patched-$sp.json" \
		>"$res/patched-$sp.out" 2>&1
	rc=$?
	t "patched kernel, trans_scratchpad=$sp: $(echo $wl | sed 's/--workload //g') ran, no splat (vm rc=$rc)" test $rc = 0
	[ $rc = 0 ] || { tail -15 "$res/patched-$sp.out" | sed 's/^/#   /'; continue; }
	if have folio-pool; then
		a=$(probe "$res/patched-$sp.json" nft_trans_alloc) b=$(op "$res/patched-$sp.json" nft trans_objects)
		t "scratchpad=$sp: nft_trans_alloc count ($a) == descriptors ($b)" test "$a" = "$b"
		k=$(probe "$res/patched-$sp.json" nft_trans_alloc.kmalloc)
		if [ $sp = 1 ]; then
			t "scratchpad on: no SLUB allocations from nft_trans_alloc ($k)" test "$k" -lt $((b / 100 + 1))
		else
			t "scratchpad off: one SLUB allocation per descriptor ($k for $b)" test "$k" -ge $((b * 9 / 10))
		fi
		c=$(op "$res/patched-$sp.json" mapbatch batch_calls) p=$(probe "$res/patched-$sp.json" generic_map_update_batch)
		t "generic_map_update_batch count ($p) == batch calls ($c)" test "$p" = "$c" -a "$c" -gt 0
		p=$(probe "$res/patched-$sp.json" push_stack)
		t "push_stack counted under the verifier workload ($p)" test "$p" -gt 0
	fi
done

# Memory per network namespace with one committed batch: the spare
# scratchpad (one order-3 chunk, 32 kB) is what the series adds.  One
# boot, trans_scratchpad 1 0 0 1 (tests/guest/netns-mem.sh).  Reported,
# not asserted: free-memory counts move by more than a chunk per netns.
if have folio-pool; then
	"$fb" vm --kernel "$patched" --results "$res" --log "$res/netns-mem.log" -- \
		bash tests/guest/netns-mem.sh 64 >"$res/netns-mem.out" 2>&1
	rc=$?
	t "netns memory measured with trans_scratchpad 1 0 0 1 (vm rc=$rc): $(grep -E '^(sp=|cost )' "$res/netns-mem.out" | tr '\n' ' ')" \
		bash -c "[ $rc = 0 ] && [ \$(grep -c '^sp=[01] kB=-\?[0-9]' '$res/netns-mem.out') = 4 ] && grep -q '^cost kB=' '$res/netns-mem.out'"
fi
