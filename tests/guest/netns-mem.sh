#!/usr/bin/env bash
# netns-mem.sh [N [SETTINGS]] - memory per network namespace that has committed one
# nf_tables batch, with nf_tables.trans_scratchpad on and off, in this one
# guest (series-test.sh boots it on the patched kernel).  Settings in the
# order 1 0 0 1 (ABBA: a drift over the boot cancels); each: N namespaces,
# each a process that added a table in its own netns and sleeps; free
# memory before and after, in kB per namespace.  Free memory counts the
# pages on the per-CPU lists too (/proc/zoneinfo "count:"), which
# nr_free_pages leaves out: they move by megabytes between two readings
# and made a single reading's difference swing by +-90 kB per namespace.
# Page cache and reclaimable slab are dropped before each reading.
# Prints "sp=S kB=K" per setting, then "cost kB=D" (mean on - mean off).
# SETTINGS (default "1 0 0 1"): a setting "-" leaves the parameter alone,
# for a kernel without it (the baseline, the kfree-bulk arm); no cost line
# then (reports/kfree-bulk).
set -uo pipefail
n=${1:-64}
settings=${2:-1 0 0 1}
param=/sys/module/nf_tables/parameters/trans_scratchpad
free_kb() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
	awk -v ps="$(getconf PAGESIZE)" '
		FILENAME ~ /vmstat/ && $1 == "nr_free_pages" { f += $2 }
		FILENAME ~ /zoneinfo/ && $1 == "count:" { f += $2 }
		END { print int(f * ps / 1024) }' /proc/vmstat /proc/zoneinfo
}
# one SETTING: prints kB per namespace
one() {
	local f0 f1 pids= d i t=0
	[ "$1" = - ] || echo "$1" >$param || return 1
	d=$(mktemp -d)
	f0=$(free_kb)
	for i in $(seq "$n"); do
		unshare -n sh -c "nft add table inet fbmem && touch $d/$i && exec sleep 600" &
		pids="$pids $!"
	done
	while [ "$(ls "$d" | wc -l)" -lt "$n" ] && [ $t -lt 240 ]; do sleep 1; t=$((t + 1)); done
	sleep 3	# the batches' destroy work (after a grace period) leaves the spare
	f1=$(free_kb)
	kill $pids 2>/dev/null
	wait 2>/dev/null
	rm -r "$d"
	sleep 5	# the namespaces go away asynchronously (cleanup_net)
	echo $(((f0 - f1) / n))
}
for sp in $settings; do
	case $sp in
	0|1|-) ;;
	*) echo "netns-mem: a setting is 0, 1 or -, not '$sp'" >&2; exit 2 ;;
	esac
done
sum1=0 sum0=0
for sp in $settings; do
	k=$(one "$sp") || { echo "netns-mem: cannot set $param" >&2; exit 1; }
	echo "sp=$sp kB=$k"
	case $sp in 1) sum1=$((sum1 + k)) ;; 0) sum0=$((sum0 + k)) ;; esac
done
[ "$settings" != "1 0 0 1" ] || echo "cost kB=$(((sum1 - sum0) / 2))"
