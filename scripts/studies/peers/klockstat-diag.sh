#!/bin/bash
# klockstat-diag.sh [1|2] [OUTDIR] - inside a guest of the perf kernel: where
# klockstat's extra lock acquisitions come from (reports/peers/README.md).
# Set 1 (default): foliobench's lock rows, then klockstat -P / -s 8 on the
# sysfs workload's kernfs_rwsem and gdp_mutex instances, and on a verifier
# run that takes neither; set 2: the verifier baselines first, for both
# instances.  OUTDIR defaults to results/klockstat-diagN of this checkout.
set -u
cd "$(dirname "$0")/../../.."
set_no=${1:-1}
case $set_no in 1 | 2) ;; *) echo "usage: $0 [1|2] [OUTDIR]" >&2; exit 2 ;; esac
out=${2:-$PWD/results/klockstat-diag$set_no}
mkdir -p "$out"
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
ulimit -l unlimited
scripts/lib/btf-hide.py /sys/kernel/btf/vmlinux /tmp/v.btf mutex_lock mutex_lock_nested
P="--param sysfs.devices=8"
fbr() { local n=$1; shift; echo "$(date +%T) fb $n $*"; ./foliobench run $P --out "$out/$n.json" "$@" >"$out/$n.log" 2>&1; }
addr() { jq -r --arg r "$2" '.probes[] | select(.name==$r) | .reason' "$out/$1.json" | grep -oE 'instance 0x[0-9a-f]+' | cut -d' ' -f2; }
cnt() { jq -r --arg r "$2" '[.probes[] | select(.name==$r) | .stats[] | select(.name=="hold" or .name=="hold_read") | .count] | add' "$out/$1.json"; }
pid=
kl() {
	local n=$1
	shift
	setsid stdbuf -oL unshare -m --propagation private sh -c 'mount --bind /tmp/v.btf /sys/kernel/btf/vmlinux && exec "$@"' sh klockstat "$@" >"$out/$n.log" 2>&1 &
	pid=$!
	until grep -q ^Tracing "$out/$n.log"; do sleep 0.5; done
	sleep 1
	echo "$(date +%T) kl $n attached: $*"
}
klstop() { kill -INT $pid; wait $pid; echo "$(date +%T) kl stopped"; }
fbr fb0 --workload sysfs --probes kernfs_rwsem --probes gdp_mutex
R=$(addr fb0 kernfs_rwsem) G=$(addr fb0 gdp_mutex)
echo "addr rwsem $R gdp $G; fb0 rwsem $(cnt fb0 kernfs_rwsem) gdp $(cnt fb0 gdp_mutex)"
fbr fb1 --workload sysfs --probes kernfs_rwsem --probes gdp_mutex
echo "fb1 rwsem $(cnt fb1 kernfs_rwsem) gdp $(cnt fb1 gdp_mutex)"
if [ "$set_no" = 2 ]; then
	P=
	kl klbase-rwsem -P -L "$R"; fbr n4 --workload verifier --param verifier.progs=1 --probes __none__; klstop
	kl klbase-gdp -P -L "$G"; fbr n7 --workload verifier --param verifier.progs=1 --probes __none__; klstop
	P="--param sysfs.devices=8"
	kl klP-rwsem -P -L "$R"; fbr n1 --workload sysfs --probes __none__; klstop
	echo done
	exit 0
fi
kl klP-rwsem -P -L "$R"; fbr n1 --workload sysfs --probes __none__; klstop
kl klP-gdp -P -L "$G"; fbr n2 --workload sysfs --probes __none__; klstop
kl kls-rwsem -s 8 -L "$R"; fbr n3 --workload sysfs --probes __none__; klstop
kl klbase-rwsem -P -L "$R"; fbr n4 --workload verifier --param verifier.progs=1 --probes __none__; klstop
kl klwait-rwsem -P -L "$R"; fbr n5 --workload sysfs --probes __none__; sleep 10; klstop
kl kls-gdp -s 8 -L "$G"; fbr n6 --workload sysfs --probes __none__; klstop
fbr fb2 --workload sysfs --probes kernfs_rwsem --probes gdp_mutex
echo "fb2 rwsem $(cnt fb2 kernfs_rwsem) gdp $(cnt fb2 gdp_mutex)"
echo done
