#!/usr/bin/env bash
# lockstat-test.sh RESULTS_DIR BASELINE_DIR PATCHED_DIR - the series on the
# lockstat flavour (lockdep + lock_stat), baseline and patched kernels:
#   - lock rows (from /proc/lock_stat) count: kernfs_rwsem write
#     acquisitions per kernfs node (kernfs_new_node, counted by fentry):
#     ~2 baseline, ~1 patched; kernfs_idr_lock acquisitions down >= 10x;
#   - lockdep (folio-pool 6-9), lockdep workload: baseline turns lockdep
#     off (MAX_LOCKDEP_ENTRIES); patched with lockdep.folio_pool=1 stays on
#     past that many entries, with =0 stops there like the baseline; the
#     list-entry row counts chunk refills; with fail_page_alloc failing
#     every refill (smaller run, 300 devices) lockdep stays on;
#   - KUnit suite lockdep_zap_class (folio-pool 7/9, zap_class() and
#     lockdep_unregister_key(); configs/folio-pool.lockstat.config) on the
#     patched kernel: passes, nothing skipped, debug_locks stays 1, no splat.
# tests/guest/run.sh runs it when the lockstat kernels are there
# (FB_LOCKSTAT, see run.sh).
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
res=$1
fb=$PWD/foliobench
. tests/guest/lib.sh
# stat_field FILE NAME: the number after "NAME: " in /proc/lockdep_stats (0 if absent)
stat_field() {
	local v
	v=$(grep -oE "(\[|, )$2: [0-9]+" "$1" 2>/dev/null | head -1 | grep -oE '[0-9]+$')
	echo "${v:-0}"
}
# refills FILE: chunk allocations lockdep attempted (refills + failed refills)
refills() { echo $(( $(stat_field "$1" refills) + $(stat_field "$1" 'failed refills') )); }
# slots KERNEL_DIR: list entries per 64 kB chunk: (65536 - 16-byte chunk
# header) / sizeof(struct lock_list), the size from the kernel's BTF
slots() {
	local sz
	sz=$(bpftool btf dump file "$1/vmlinux" 2>/dev/null |
		sed -n "s/^\[[0-9]*\] STRUCT 'lock_list' size=\([0-9]*\) .*/\1/p" | head -1)
	echo $(( (65536 - 16) / ${sz:-65536} ))
}

declare -A lk
lk[baseline]=$2 lk[patched]=$3
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
	# 7/9: KUnit suite lockdep_zap_class, one vCPU.  A dynamic key's two
	# subclasses with dependencies to and from static classes and between
	# each other, unregistered twice (the same key registered again); the
	# suite checks every entry is gone and debug_locks is still 1, and
	# says how many list entries each round added and removed.
	if [ -f kernel-patches/configs/folio-pool.lockstat.config ]; then
		"$fb" vm --smp 1 --kernel "${lk[patched]}" --results "$res" --log "$res/kunit-lockdep.log" \
			--append "kunit.enable=1 kunit.filter_glob=lockdep_zap_class" -- \
			sh -c "cat /proc/lockdep_stats > $res/lockdep_stats-kunit.txt" >"$res/kunit-lockdep.out" 2>&1
		rc=$?
		line=$(suite "$res/kunit-lockdep.log" lockdep_zap_class)
		r2=$(grep -oE 'round 2: list entries [0-9]+ -> [0-9]+ -> [0-9]+' "$res/kunit-lockdep.log" | head -1)
		t "patched lockstat: KUnit suite lockdep_zap_class: ${line:-not run}, nothing skipped, no splat (${r2:-no round 2}; vm rc=$rc)" \
			bash -c "[ $rc = 0 ] && [[ '$line' =~ ^pass:[1-9][0-9]*\ fail:0\ skip:0$ ]]"
		t "patched lockstat: debug_locks still 1 after the lockdep_zap_class boot" \
			grep -Eq '^ *debug_locks: +1$' "$res/lockdep_stats-kunit.txt"
	fi
	# lockdep.folio_pool (6/9), both settings on one kernel: =0 keeps the
	# baseline's MAX_LOCKDEP_ENTRIES limit (lockdep turns off under this
	# workload, as on the baseline), =1 (default) grows the graph past it
	# and lockdep stays on.  The list-entry row counts lockdep's 64 kB chunk
	# refills (folio_scratchpad_alloc_chunk(), run without the graph lock;
	# nothing under the lock is traceable); /proc/lockdep_stats counts them
	# too ("refills", "failed refills").
	max=$(awk -F= '$1 == "CONFIG_LOCKDEP_BITS" { print 2 ^ $2 }' "${lk[patched]}/.config")
	for fp in 1 0; do
		tag=patched-fp$fp allow=()
		[ $fp = 0 ] && allow=(--allow "MAX_LOCKDEP_ENTRIES too low"
			--allow "turning off the locking correctness validator")
		"$fb" vm --kernel "${lk[patched]}" --results "$res" --log "$res/lockdep-$tag.log" \
			--timeout 1800 --append "lockdep.folio_pool=$fp" "${allow[@]}" -- \
			sh -c "cat /proc/lockdep_stats > $res/lockdep_stats-$tag-before.txt &&
				./foliobench run --workload lockdep --probes lockdep_list_entry_alloc \
				--out $res/lockdep-$tag.json && cat /proc/lockdep_stats > $res/lockdep_stats-$tag.txt" \
			>"$res/lockdep-$tag.out" 2>&1
		rc=$?
		off=$(op "$res/lockdep-$tag.json" lockdep lockdep_off)
		peak=$(op "$res/lockdep-$tag.json" lockdep lockdep_deps_peak)
		n=$(probe "$res/lockdep-$tag.json" lockdep_list_entry_alloc)
		d=$(( $(refills "$res/lockdep_stats-$tag.txt") - $(refills "$res/lockdep_stats-$tag-before.txt") ))
		if [ $fp = 1 ]; then
			t "patched, lockdep.folio_pool=1: lockdep stays on, graph past MAX_LOCKDEP_ENTRIES ($peak > $max entries), no splat (lockdep_off=$off, vm rc=$rc)" \
				test "$rc" = 0 -a "$off" = 0 -a "${peak:-0}" -gt "${max:-0}"
			t "patched: /proc/lockdep_stats shows the dynamic folio lines" \
				grep -q 'dynamic:' "$res/lockdep_stats-$tag.txt"
			# 9/9: every bootstrap entry moved at late_initcall (a WARN
			# fires for one left behind, which fails vm rc above)
			mv=$(grep -oE 'lockdep: moved [0-9]+ bootstrap list entries' "$res/lockdep-$tag.log" | grep -oE '[0-9]+')
			t "patched: bootstrap list entries moved into the pool at late_initcall (${mv:-none})" \
				test "${mv:-0}" -gt 0
		else
			t "patched, lockdep.folio_pool=0: the baseline's limit, MAX_LOCKDEP_ENTRIES too low at $peak/$max entries (lockdep_off=$off, vm rc=$rc)" \
				bash -c "[ '$rc' = 0 ] && [ '$off' = 1 ] && [ '${peak:-0}' -le '${max:-0}' ] &&
					grep -q 'BUG: MAX_LOCKDEP_ENTRIES too low' '$res/lockdep-$tag.log'"
		fi
		# with =0 the boot-time reserve already covers MAX_LOCKDEP_ENTRIES:
		# no refill is needed, so only =1 has chunk refills to count
		[ $fp = 1 ] && t "patched: list-entry row counts chunk refills outside the graph lock ($n calls, <= $d in /proc/lockdep_stats over the boot's run, ~$((n * $(slots "${lk[patched]}"))) entries)" \
			test "${n:-0}" -gt 0 -a "${n:-0}" -le "$d"
	done

	# 6/9's reserve: with every chunk refill failing (fail_page_alloc on
	# order >= 4 from before the workload to its end) lockdep must stay on
	# below MAX_LOCKDEP_ENTRIES, as the baseline does, and lose no entry.
	# The reserve holds MAX_LOCKDEP_ENTRIES' worth of slots plus two spare
	# chunks, so refills are only wanted once the graph is within about a
	# chunk (~1,100 entries) of MAX_LOCKDEP_ENTRIES: 920 devices take it
	# there (33,248 entries, 2 failed refills, spare chunks 26 -> 0, on
	# 2026-12-02; 300 devices gave 13,124 entries and no refill at all).
	fpa=/sys/kernel/debug/fail_page_alloc
	"$fb" vm --kernel "${lk[patched]}" --results "$res" --log "$res/lockdep-fault.log" --timeout 1800 -- \
		sh -c "echo N > $fpa/ignore-gfp-wait && echo 4 > $fpa/min-order && echo 0 > $fpa/verbose &&
			{ echo -1 > $fpa/times || echo 1000000000 > $fpa/times; } && echo 100 > $fpa/probability &&
			cat /proc/lockdep_stats > $res/lockdep_stats-fault-before.txt &&
			./foliobench run --workload lockdep --param lockdep.devices=920 --out $res/lockdep-fault.json;
			rc=\$?; echo 0 > $fpa/probability; cat /proc/lockdep_stats > $res/lockdep_stats-fault.txt; exit \$rc" \
		>"$res/lockdep-fault.out" 2>&1
	rc=$?
	off=$(op "$res/lockdep-fault.json" lockdep lockdep_off)
	peak=$(op "$res/lockdep-fault.json" lockdep lockdep_deps_peak)
	f=$(( $(stat_field "$res/lockdep_stats-fault.txt" 'failed refills') - $(stat_field "$res/lockdep_stats-fault-before.txt" 'failed refills') ))
	ok_=$(( $(stat_field "$res/lockdep_stats-fault.txt" 'refills') - $(stat_field "$res/lockdep_stats-fault-before.txt" 'refills') ))
	sb=$(stat_field "$res/lockdep_stats-fault-before.txt" 'spare chunks') sa=$(stat_field "$res/lockdep_stats-fault.txt" 'spare chunks')
	t "patched, every chunk refill failing ($f failed, $ok_ succeeded): lockdep stays on at $peak entries, spare chunks $sb -> $sa (lockdep_off=$off, vm rc=$rc)" \
		test "$rc" = 0 -a "$off" = 0 -a "$f" -gt 0 -a "${sa:-0}" -lt "${sb:-0}"
	t "patched, refills failing: debug_locks still 1 after the run" \
		grep -Eq '^ *debug_locks: +1$' "$res/lockdep_stats-fault.txt"
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
