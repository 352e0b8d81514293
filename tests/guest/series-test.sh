#!/usr/bin/env bash
# series-test.sh RESULTS_DIR - the patch series on their kernels, in qemu.
#
# For the `patched` arm (every series in kernel-patches/arms.conf that has
# a series file), perf flavour:
#   - the series' KUnit suites pass (one boot with kunit.enable=1);
#   - the folio-pool workloads (nft with nf_tables.trans_scratchpad=1 and
#     =0, verifier, mapbatch) and the kernfs-bulk one (sysfs) run with no
#     WARN/BUG/lockdep splat, probe counts still equal the workloads' own;
# lockstat flavour, baseline and patched:
#   - lock rows (from /proc/lock_stat) count: kernfs_rwsem write
#     acquisitions per kernfs node (kernfs_new_node, counted by fentry):
#     ~2 baseline, ~1 patched; kernfs_idr_lock acquisitions down >= 10x.
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
res=$1
fb=$PWD/foliobench
. tests/guest/lib.sh
have() { [ -s "kernel-patches/$1/series" ]; }

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
"$fb" vm --kernel "$patched" --results "$res" --log "$res/kunit.log" \
	--append "kunit.enable=1" -- true >"$res/kunit.out" 2>&1
rc=$?
t "KUnit boot of the patched kernel: no splat (vm rc=$rc)" test $rc = 0
suites() { grep -oE '# [a-z0-9_-]+: pass:[0-9]+ fail:[0-9]+' "$res/kunit.log"; }
for s in $(have folio-pool && echo folio_pool) $(have kernfs-bulk && echo driver-core-glue-dir driver-core-root-device); do
	line=$(suites | grep -m1 "# $s: ")
	t "KUnit suite $s: ${line:-not run}" bash -c "[[ '$line' =~ pass:[1-9][0-9]*\ fail:0$ ]]"
done

# ---- workloads on the patched kernel ----
wl="--workload sysfs"
have folio-pool && wl="--workload nft --workload verifier --workload mapbatch $wl"
for sp in 1 0; do
	"$fb" vm --kernel "$patched" --results "$res" --log "$res/patched-$sp.log" \
		--append "nf_tables.trans_scratchpad=$sp" -- \
		./foliobench run $wl --out "$res/patched-$sp.json" >"$res/patched-$sp.out" 2>&1
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

# ---- lockstat flavour: lock counts (kernfs-bulk), lockdep (folio-pool 6-9) ----
declare -A lk
for arm in baseline patched; do
	lk[$arm]=$("$fb" kernel build --arm $arm --flavour lockstat 2>"$res/build-$arm-lockstat.log" | tail -1)
	[ -f "${lk[$arm]}/bzImage" ] || nok "$arm lockstat kernel builds"
done
if have folio-pool && [ -f "${lk[patched]}/bzImage" ] && [ -f "${lk[baseline]}/bzImage" ] &&
	grep -q '^0006-' kernel-patches/folio-pool/series; then
	sec() { objdump -t "$1/vmlinux" | awk '$NF == "list_entries" { print $(NF-2) " " $(NF-1) }'; }
	b=$(sec "${lk[baseline]}") p=$(sec "${lk[patched]}")
	t "list_entries: baseline in .bss ($b), patched only in .init.data ($p)" \
		bash -c "[[ '$b' == .bss\ * ]] && [[ '$p' == .init.data\ * ]]"
	"$fb" vm --kernel "${lk[baseline]}" --results "$res" --log "$res/lockdep-baseline.log" \
		--timeout 1800 --allow "MAX_LOCKDEP_ENTRIES too low" \
		--allow "turning off the locking correctness validator" -- \
		./foliobench run --workload lockdep --probes lockdep_list_entry_alloc \
		--out "$res/lockdep-baseline.json" >"$res/lockdep-baseline.out" 2>&1
	rc=$?
	off=$(op "$res/lockdep-baseline.json" lockdep lockdep_off)
	t "baseline: lockdep workload exhausts MAX_LOCKDEP_ENTRIES, reported as lockdep_off=$off (vm rc=$rc)" \
		test "$rc" = 0 -a "$off" = 1
	why=$(jq -r '.probes[] | select(.name=="lockdep_list_entry_alloc") | .status + ": " + .reason' "$res/lockdep-baseline.json")
	t "baseline: list-entry row says why it cannot attach ($why)" bash -c "[[ '$why' == unavailable:*alloc_list_entry* ]]"
	"$fb" vm --kernel "${lk[patched]}" --results "$res" --log "$res/lockdep-patched.log" --timeout 1800 -- \
		sh -c "./foliobench run --workload lockdep --probes lockdep_list_entry_alloc \
			--out $res/lockdep-patched.json && cat /proc/lockdep_stats > $res/lockdep_stats-patched.txt" \
		>"$res/lockdep-patched.out" 2>&1
	rc=$?
	off=$(op "$res/lockdep-patched.json" lockdep lockdep_off)
	n=$(probe "$res/lockdep-patched.json" lockdep_list_entry_alloc)
	t "patched: lockdep stays on under the same workload, no splat (lockdep_off=$off, vm rc=$rc)" \
		test "$rc" = 0 -a "$off" = 0
	t "patched: list-entry row attached and counting ($n allocations from lockdep's pool)" test "${n:-0}" -gt 0
	t "patched: /proc/lockdep_stats shows the dynamic folio lines" grep -q 'dynamic:' "$res/lockdep_stats-patched.txt"
fi
have kernfs-bulk || exit 0
for arm in baseline patched; do
	k=${lk[$arm]}
	[ -f "$k/bzImage" ] || continue
	"$fb" vm --kernel "$k" --results "$res" --log "$res/lock-$arm.log" -- \
		./foliobench run --workload sysfs --param sysfs.devices=100 \
		--out "$res/lock-$arm.json" >"$res/lock-$arm.out" 2>&1
	rc=$?
	t "$arm lockstat: sysfs workload under lock rows, no lockdep splat (vm rc=$rc)" test $rc = 0
done
B=$res/lock-baseline.json P=$res/lock-patched.json
[ -s "$B" ] && [ -s "$P" ] || exit 0
# Registration alone (the sysfs workload snapshots lock_stat between its
# create and remove phases): baseline takes the root rwsem twice per node
# (link, activate), patch 1 once; patch 3 takes the idr lock once per 16.
per_node() { echo "scale=2; $(op "$1" sysfs register_kernfs_rwsem) / $(probe "$1" kernfs_new_node)" | bc; }
bn=$(per_node "$B") pn=$(per_node "$P")
t "kernfs_rwsem write acquisitions per kernfs node at registration: baseline $bn (~2)" \
	bash -c "[ \$(echo '$bn >= 1.7 && $bn <= 2.5' | bc) = 1 ]"
t "kernfs_rwsem write acquisitions per kernfs node at registration: patched $pn (~1)" \
	bash -c "[ \$(echo '$pn >= 0.8 && $pn <= 1.4' | bc) = 1 ]"
bi=$(op "$B" sysfs register_kernfs_idr_lock) pi=$(op "$P" sysfs register_kernfs_idr_lock)
t "kernfs_idr_lock acquisitions at registration down >= 10x ($bi -> $pi)" test "$pi" -gt 0 -a $((pi * 10)) -le "$bi"
