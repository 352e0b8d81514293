#!/usr/bin/env bash
# measure-teardown.sh - the nf_tables teardown pass without its RCU grace
# period, baseline against patched, in instruction-paced guests (#16 item 8).
#
#   scripts/studies/measure-teardown.sh [--boots N] [--out DIR] BASE_KERNEL NEW_KERNEL
#
# Boots each kernel N times (default 3), interleaved, under
# `foliobench vm --clock icount` (one vCPU, guest ns = instructions).  In
# each guest, scripts/bpftrace/nft_trans_destroy_net.bt traces while the
# nft workload runs (foliobench attaches only its tracepoint row, so no
# second trampoline shares nf_tables_trans_destroy_work()), and reports per
# teardown pass the time minus the synchronize_rcu() wait inside it.
# Prints one line per boot and the medians; DIR keeps the raw outputs.
# (--guest OUT is the in-guest half.)
set -uo pipefail
cd "$(dirname "$0")/../.."
fb=$PWD/foliobench
die() { echo "measure-teardown: error: $*" >&2; exit 2; }

if [ "${1:-}" = --guest ]; then
	out=$2
	# bpftrace reads available_filter_functions for kfunc probes
	[ -r /sys/kernel/tracing/available_filter_functions ] ||
		mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/debug/tracing ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	ulimit -l unlimited 2>/dev/null
	# No timeout in here: under icount, time jumps while the guest idles
	# (waiting for 9p reads), so virtual seconds say nothing about how long
	# bpftrace took to start.  vm --timeout (host time) bounds the boot.
	setsid bpftrace scripts/bpftrace/nft_trans_destroy_net.bt >"$out.bt" 2>&1 &
	bt=$!
	while :; do
		grep -q '^Tracing ' "$out.bt" && break
		kill -0 $bt 2>/dev/null || { echo "bpftrace exited before tracing:"; cat "$out.bt"; exit 1; }
		sleep 0.5
	done
	"$fb" run --workload nft --probes nft_trans_alloc.kmalloc --out "$out.json" >"$out.run" 2>&1
	rc=$?
	sleep 1
	kill -INT $bt
	wait $bt
	exit $rc
fi

boots=3 out=
while [ $# -gt 0 ]; do
	case "$1" in
	--boots) [[ ${2:-} =~ ^[1-9][0-9]?$ ]] || die "--boots wants 1-99"; boots=$2; shift 2 ;;
	--out) [ -n "${2:-}" ] || die "--out wants a directory"; out=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# = 2 ] || die "want BASE_KERNEL NEW_KERNEL (kernel directories or bzImages)"
out=${out:-results/teardown-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" && out=$(cd "$out" && pwd) || die "cannot create $out"
field() { sed -n "s/^@$2: \([0-9]*\)$/\1/p" "$1" | head -1; }
passes() { sed -n 's/^@count\[nf_tables_trans_destroy_work\]: \([0-9]*\)$/\1/p' "$1" | head -1; }

for i in $(seq 1 "$boots"); do
	for arm in base new; do
		k=$1; [ $arm = new ] && k=$2
		f=$out/$arm-$i
		"$fb" vm --clock icount --kernel "$k" --results "$out" --timeout 1800 \
			--log "$f.console" -- bash scripts/studies/measure-teardown.sh --guest "$f" >"$f.vm" 2>&1
		rc=$?
		n=$(passes "$f.bt") ns=$(field "$f.bt" net_sum) gs=$(field "$f.bt" gp_sum)
		if [ $rc != 0 ] || [ -z "$n" ] || [ "${n:-0}" = 0 ]; then
			echo "$arm boot $i: failed (vm exit $rc, passes ${n:-none}); see $f.vm" >&2
			continue
		fi
		printf '%s boot %d: %d passes, per pass %.1f us without the grace period, %.1f us waiting in it\n' \
			$arm "$i" "$n" "$(echo "$ns / $n / 1000" | bc -l)" "$(echo "$gs / $n / 1000" | bc -l)" |
			tee -a "$out/summary.txt"
	done
done
med() { grep "^$1 " "$out/summary.txt" | awk -v c="$2" '{ print $c }' | sort -g |
	awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
b=$(med base 8) n=$(med new 8) bg=$(med base 14) ng=$(med new 14)
[ -n "$b" ] && [ -n "$n" ] || die "no boot of one of the kernels gave a result (see $out)"
printf 'median per pass without the grace period: %s -> %s us (%+.1f%%); grace-period wait: %s -> %s us\n' \
	"$b" "$n" "$(echo "($n - $b) / $b * 100" | bc -l)" "$bg" "$ng" | tee -a "$out/summary.txt"
