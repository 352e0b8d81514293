#!/usr/bin/env bash
# peers-test.sh - foliobench's counts against libbpf-tools funclatency and
# klockstat (issue #27 item 3), one guest boot.
#
# Boots KERNEL once (one vCPU) and runs scripts/studies/peers.sh there:
#   nft_trans_alloc (nft) and kernfs_new_node (sysfs): foliobench's row
#     alone, funclatency alone, and funclatency with foliobench's row forced
#     to kprobe/kretprobe in the same window;
#   gdp_mutex and kernfs_rwsem (sysfs): foliobench's lock row alone, then
#     klockstat -L <that lock's address>;
# each tool with its own run of the workload.  Checks:
#   - the guest exits 0 (no oops, splat or hang) and every tool attached;
#   - the call counts are equal, exactly: funclatency = foliobench in the same
#     window (the same calls), and funclatency alone = foliobench alone (the
#     workload makes the same calls every run);
#   - klockstat ran in its kprobe mode (kretprobe on mutex_lock in the
#     kernel's kprobes/list while it was attached), and foliobench's
#     acquisitions released (hold + hold_read) lie between klockstat's of the
#     workload's forked child (all inside foliobench's window) and klockstat's
#     of every task (its own attach not counted; its window, attach to
#     SIGINT, holds foliobench's whole run and the netns's asynchronous
#     teardown): reports/peers/README.md;
#   - and exactly equal on the tasks both windows hold whole: the holds
#     released by the workload's forked child and its threads (klockstat
#     -P's foliobench tasks but the main thread; foliobench's own count of
#     them, extra child_holds.ROW).
# klockstat's own choice, fentry/fexit, oopses our 7.3.4 perf kernel when it
# puts the second trampoline program on mutex_lock (reports/peers/
# klockstat-oops.txt); peers.sh runs it with the BTF FUNC mutex_lock hidden
# from it, so it takes kprobes (scripts/studies/peers.sh, head).
#
# Usage: tests/guest/peers-test.sh KERNEL_DIR [RESULTS_DIR]
# Output: ok/not ok lines; exit 1 if anything failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/guest/lib.sh
kernel=${1:?usage: peers-test.sh KERNEL_DIR [RESULTS_DIR]}
res=${2:-$PWD/results}/peers-test-$$
mkdir -p "$res"
trap 'rm -rf "$res"' EXIT
fails=0
check() { if "${@:2}"; then ok "$1"; else nok "$1"; fails=$((fails + 1)); fi; }
tools="funclatency klockstat"
rows="nft_trans_alloc kernfs_new_node gdp_mutex kernfs_rwsem" peers="fb funclatency same klockstat"
for t in $tools; do
	command -v "$t" >/dev/null || { nok "peers: $t installed (libbpf-tools; make deps)"; exit 1; }
done

start=$SECONDS
scripts/studies/peers.sh vm "$kernel" "$res" --timeout 600 \
	--rows "$rows" --peers "$peers" --descriptors 200 --devices 8 \
	>"$res/peers.log" 2>&1
rc=$?
check "peers: one guest, $tools beside foliobench, no oops/splat/hang (vm rc=$rc)" \
	test $rc = 0
tsv=$res/peers.tsv
if [ $rc != 0 ]; then
	grep -m1 -B2 -A8 -E 'Oops|BUG:|WARNING:' "$res/console.log" | sed 's/^/#   /'
fi
if [ ! -s "$tsv" ]; then
	nok "peers: peers.tsv written"
	tail -20 "$res/peers.log" | sed 's/^/#   /'
	exit 1
fi
# col ROW TOOL N: column N of that line ("" if absent)
col() { awk -F'\t' -v r="$1" -v t="$2" -v n="$3" '$1 == r && $2 == t { print $n; exit }' "$tsv"; }
# rc of every line 0
bad=$(awk -F'\t' 'NR > 1 && $11 != 0 { print $1 "/" $2 " rc " $11 }' "$tsv" | tr '\n' ' ')
check "peers: every tool and run exited 0 ${bad:+($bad)}" test -z "$bad"
# same ROW TOOL_A TOOL_B WHAT: counts equal and > 0
same() {
	local a b
	a=$(col "$1" "$2" 4) b=$(col "$1" "$3" 4)
	echo "# $1: $2 $a, $3 $b"
	check "peers: $1 $4: $2 $a = $3 $b" test -n "$a" -a -n "$b" -a "${a:-0}" != - -a "${a:-0}" -gt 0 -a "$a" = "$b"
}
for r in nft_trans_alloc kernfs_new_node; do
	same "$r" "funclatency, same window" "foliobench, same window" "calls (one window, both kprobes)"
	same "$r" funclatency foliobench "calls (separate runs)"
done
# between C and KL: klockstat counts every task (KL; its own attach not
# counted) from its attach to SIGINT, a superset of foliobench's window (F:
# the workload only); C, the workload's forked child and its threads, all
# of whose life is inside foliobench's window.  The rest (foliobench's main
# thread, the private netns's asynchronous teardown in kworkers) falls in
# that window in part.  Counted per task, C is the same in both tools
# (foliobench: the holds its children released, extra child_holds.ROW;
# klockstat -P: every foliobench task but the main thread), exactly.
child() { col "$1" "$2" 10 | sed -n 's/.*foliobench child \([0-9]*\).*/\1/p'; }	# ROW TOOL
between() {	# C F KL
	[[ $1 =~ ^[0-9]+$ && $2 =~ ^[1-9][0-9]*$ && $3 =~ ^[0-9]+$ ]] &&
		[ "$1" -le "$2" ] && [ "$2" -le "$3" ]
}
for r in gdp_mutex kernfs_rwsem; do
	m=$(col "$r" klockstat 3)
	check "peers: $r klockstat in kprobe mode (method '$m')" test "$m" = kprobe/kretprobe
	k=$(col "$r" klockstat 4) f=$(col "$r" foliobench 4)
	c=$(child "$r" klockstat)
	echo "# $r foliobench: $(col "$r" foliobench 10)"
	echo "# $r klockstat: $(col "$r" klockstat 10)"
	check "peers: $r acquisitions released (separate runs): klockstat's workload child ${c:-?} <= foliobench $f <= klockstat $k" \
		between "${c:-x}" "$f" "$k"
	fc=$(child "$r" foliobench)
	check "peers: $r holds released by the workload's child and its threads (the tasks both windows hold whole): klockstat ${c:-?} = foliobench ${fc:-?}" \
		test -n "$c" -a -n "$fc" -a "${c:-x}" = "${fc:-y}"
done
echo "# peers-test: $((SECONDS - start)) s, one boot"
[ $fails = 0 ]
