#!/usr/bin/env bash
# pool-fixes-test.sh RESULTS_DIR LOCKSTAT_KERNEL_DIR [ONLY] - the folio-pool
# fixes of issue 43 (items 5-7) on a lockstat-flavour kernel of the series
# (configs/folio-pool.lockstat.config: fail_page_alloc, the
# lockdep_graph_test workloads of 9/9).  ONLY: verifier, boot or zap.
#   verifier (3/9): with fail_page_alloc failing every order >= 2
#     allocation of the workload's tasks, the verifier workload makes
#     about as many failed attempts with bpf.verifier_folio_pool=1 as
#     with =0: one failed chunk per verification, not one per push_stack()
#     (fail_page_alloc's "times" counts the failures it injected).
#   boot (9/9): lockdep.folio_pool=0 with a boot graph past
#     MAX_LOCKDEP_ENTRIES - LOCKDEP_BOOT_ENTRIES entries at late_initcall
#     (lockdep_graph_test.boot_deps): the bootstrap entries are moved and
#     lockdep stays on (debug_locks: 1), as on the base.
#   zap (6/9): /proc/lockdep readers on 2 vCPUs while a class with 512
#     dependencies is made and zapped (lockdep_unregister_key()) again and
#     again ($POOL_ZAP_ROUNDS times, default 2000): no oops, every reader
#     ends normally.  The old 6/9 oopsed in l_show() 10 s into 2000 rounds
#     (NULL ->entry.next), and not in 40.
# Called by tests/guest/run.sh with the patched lockstat kernel; run it on
# an older kernel to see the bugs (reports/kernel-review/README.md).
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
res=$1 k=$2 only=${3:-all}
fb=$PWD/foliobench
. tests/guest/lib.sh
mkdir -p "$res"
want() { [ "$only" = all ] || [ "$only" = "$1" ]; }
# graph NAME: the kernel has 9/9's lockdep_graph_test (else a SKIP line)
graph() {
	grep -q '^CONFIG_LOCKDEP_GRAPH_TEST=y' "$k/.config" 2>/dev/null && return 0
	echo "# SKIP pool-fixes-test $1: $k has no CONFIG_LOCKDEP_GRAPH_TEST"
	return 1
}

if want verifier; then
	fpa=/sys/kernel/debug/fail_page_alloc vp=/sys/module/bpf/parameters/verifier_folio_pool
	progs=2 branches=2000
	"$fb" vm --kernel "$k" --results "$res" --log "$res/pool-verifier.log" --timeout 900 -- \
		sh -c "echo N > $fpa/ignore-gfp-wait && echo 2 > $fpa/min-order && echo 0 > $fpa/verbose &&
			echo Y > $fpa/task-filter && echo 100000000 > $fpa/times && echo 100 > $fpa/probability &&
			for p in 0 1; do echo \$p > $vp; t0=\$(cat $fpa/times);
				sh -c 'echo 1 > /proc/self/make-it-fail && exec ./foliobench run --workload verifier \
					--param verifier.progs=$progs --param verifier.branches=$branches \
					--out $res/pool-verifier-\$0.json' \$p || exit 1;
				echo \"pool=\$p failed=\$((t0 - \$(cat $fpa/times)))\"; done > $res/pool-verifier.txt;
			rc=\$?; echo 0 > $fpa/probability; echo 1 > $vp; exit \$rc" \
		>"$res/pool-verifier.out" 2>&1
	rc=$?
	f0=$(sed -n 's/^pool=0 failed=\([0-9]*\)$/\1/p' "$res/pool-verifier.txt" 2>/dev/null)
	f1=$(sed -n 's/^pool=1 failed=\([0-9]*\)$/\1/p' "$res/pool-verifier.txt" 2>/dev/null)
	n=$(op "$res/pool-verifier-1.json" verifier cond_branches 2>/dev/null)
	# $progs verifications: at least one failed chunk each with the pool
	# on, and no more than a few dozen failures beyond the pool-off run
	# (a retry per push would add about $n)
	t "3/9: order >= 2 allocations failing, pool on: ${f1:-?} failed attempts, pool off: ${f0:-?}, for $progs programs and ${n:-?} push_stack() (vm rc=$rc)" \
		bash -c "[ $rc = 0 ] && [ '${n:-0}' -ge $((progs * branches)) ] && [ '${f1:-0}' -ge $progs ] &&
			[ '${f1:-0}' -le $(( ${f0:-0} + 50 )) ]"
fi

if want boot && graph boot; then
	deps=14000
	"$fb" vm --kernel "$k" --results "$res" --log "$res/pool-boot.log" --timeout 900 \
		--append "lockdep.folio_pool=0 lockdep_graph_test.boot_deps=$deps" -- \
		sh -c "cat /proc/lockdep_stats > $res/pool-boot-stats.txt" >"$res/pool-boot.out" 2>&1
	rc=$?
	line=$(grep -oE 'lockdep_graph_test: [0-9]+ x [0-9]+ dependencies, [0-9]+ list entries, debug_locks [0-9]' "$res/pool-boot.log" | head -1)
	ents=$(echo "$line" | sed -n 's/.*, \([0-9]*\) list entries.*/\1/p')
	mv=$(grep -oE 'lockdep: moved [0-9]+ bootstrap list entries' "$res/pool-boot.log" | grep -oE '[0-9]+')
	max=$(awk -F= '$1 == "CONFIG_LOCKDEP_BITS" { print 2 ^ $2 }' "$k/.config")
	# the case: more than MAX_LOCKDEP_ENTRIES - LOCKDEP_BOOT_ENTRIES (4096)
	# entries at device_initcall, fewer than MAX_LOCKDEP_ENTRIES
	t "9/9: lockdep.folio_pool=0, ${ents:-?} list entries at boot (of $max): bootstrap entries moved (${mv:-none}), debug_locks still 1 (vm rc=$rc)" \
		bash -c "[ $rc = 0 ] && [ '${ents:-0}' -gt $((max - 4096)) ] && [ '${ents:-0}' -lt $max ] &&
			[ '${mv:-0}' -gt 0 ] && grep -Eq '^ *debug_locks: +1$' '$res/pool-boot-stats.txt'"
fi

if want zap && graph zap; then
	rounds=${POOL_ZAP_ROUNDS:-2000} stop=$res/pool-zap.stop
	rm -f "$stop"
	"$fb" vm --smp 2 --kernel "$k" --results "$res" --log "$res/pool-zap.log" --timeout 600 -- \
		sh -c "pids=; for i in 1 2 3; do (n=0; while [ ! -e $stop ]; do cat /proc/lockdep > /dev/null || exit 1;
				n=\$((n + 1)); done; echo \$n > $res/pool-zap-reader\$i) & pids=\"\$pids \$!\"; done;
			echo $rounds > /sys/module/lockdep_graph_test/parameters/zap_rounds; rc=\$?;
			touch $stop; for p in \$pids; do wait \$p || rc=1; done;
			cat /proc/lockdep_stats > $res/pool-zap-stats.txt; exit \$rc" \
		>"$res/pool-zap.out" 2>&1
	rc=$?
	reads=$(cat "$res"/pool-zap-reader[123] 2>/dev/null | paste -sd+ | bc)
	t "6/9: 3 /proc/lockdep readers ($reads reads) against $rounds zaps of a class with 512 dependencies: no oops, readers done, debug_locks 1 (vm rc=$rc)" \
		bash -c "[ $rc = 0 ] && [ '${reads:-0}' -ge 3 ] && grep -Eq '^ *debug_locks: +1$' '$res/pool-zap-stats.txt'"
	rm -f "$stop"
fi
