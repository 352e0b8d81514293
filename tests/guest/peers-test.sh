#!/usr/bin/env bash
# peers-test.sh - foliobench's counts against libbpf-tools funclatency and
# klockstat (issue #27 item 3), one guest boot.
#
# Boots KERNEL once (one vCPU) and runs scripts/studies/peers.sh there:
#   nft_trans_alloc (nft) and kernfs_new_node (sysfs): foliobench's row
#     alone, funclatency alone, and funclatency with foliobench's row forced
#     to kprobe/kretprobe in the same window;
# each tool with its own run of the workload.  Checks:
#   - the guest exits 0 (no oops, splat or hang) and every tool attached;
#   - the call counts are equal, exactly: funclatency = foliobench in the same
#     window (the same calls), and funclatency alone = foliobench alone (the
#     workload makes the same calls every run).
# klockstat is not run: on our 7.3.4 perf kernel, attaching it oopses the
# guest, one vCPU or not (instruction fetch from a stale trampoline page,
# Comm: klockstat, while it puts fentry and fexit programs on mutex_lock,
# down_write, ...: reports/peers/); PEERS_KLOCKSTAT=1 adds its lock checks
# (gdp_mutex and kernfs_rwsem: klockstat's hold count, every caller's, read +
# write, = foliobench's hold + hold_read, exactly) for a kernel where it works.
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
kl=${PEERS_KLOCKSTAT:-0}
case "$kl" in 0|1) ;; *) echo "not ok - PEERS_KLOCKSTAT must be 0 or 1, not '$kl'"; exit 2 ;; esac
tools=funclatency rows="nft_trans_alloc kernfs_new_node" peers="fb funclatency same"
[ "$kl" = 1 ] && tools="$tools klockstat" rows="$rows gdp_mutex kernfs_rwsem" peers="$peers klockstat"
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
for r in $([ "$kl" = 1 ] && echo gdp_mutex kernfs_rwsem); do
	echo "# $r foliobench: $(col "$r" foliobench 10)"
	same "$r" klockstat foliobench "acquisitions released (separate runs)"
done
echo "# peers-test: $((SECONDS - start)) s, one boot"
[ $fails = 0 ]
