#!/bin/bash
# diagnostic, not committed: where klockstat's extra acquisitions come from
set -u
cd /work/h-kl
out=/work/h-kl/results/diag; mkdir -p $out
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null; mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
ulimit -l unlimited
scripts/lib/btf-hide.py /sys/kernel/btf/vmlinux /tmp/v.btf mutex_lock mutex_lock_nested
P="--param sysfs.devices=8"
fbr() { local n=$1; shift; echo "$(date +%T) fb $n $*"; ./foliobench run $P --out $out/$n.json "$@" > $out/$n.log 2>&1; }
addr() { jq -r --arg r "$2" '.probes[] | select(.name==$r) | .reason' $out/$1.json | grep -oE 'instance 0x[0-9a-f]+' | cut -d' ' -f2; }
cnt() { jq -r --arg r "$2" '[.probes[] | select(.name==$r) | .stats[] | select(.name=="hold" or .name=="hold_read") | .count] | add' $out/$1.json; }
pid=
kl() { local n=$1; shift
	setsid stdbuf -oL unshare -m --propagation private sh -c 'mount --bind /tmp/v.btf /sys/kernel/btf/vmlinux && exec "$@"' sh klockstat "$@" > $out/$n.log 2>&1 &
	pid=$!
	until grep -q ^Tracing $out/$n.log; do sleep 0.5; done; sleep 1
	echo "$(date +%T) kl $n attached: $*"
}
klstop() { kill -INT $pid; wait $pid; echo "$(date +%T) kl stopped"; }
fbr fb0 --workload sysfs --probes kernfs_rwsem --probes gdp_mutex
R=$(addr fb0 kernfs_rwsem) G=$(addr fb0 gdp_mutex)
echo "addr rwsem $R gdp $G; fb0 rwsem $(cnt fb0 kernfs_rwsem) gdp $(cnt fb0 gdp_mutex)"
fbr fb1 --workload sysfs --probes kernfs_rwsem --probes gdp_mutex
echo "fb1 rwsem $(cnt fb1 kernfs_rwsem) gdp $(cnt fb1 gdp_mutex)"
kl klP-rwsem -P -L $R; fbr n1 --workload sysfs --probes __none__; klstop
kl klP-gdp -P -L $G; fbr n2 --workload sysfs --probes __none__; klstop
kl kls-rwsem -s 8 -L $R; fbr n3 --workload sysfs --probes __none__; klstop
kl klbase-rwsem -P -L $R; fbr n4 --workload verifier --param verifier.progs=1 --probes __none__; klstop
kl klwait-rwsem -P -L $R; fbr n5 --workload sysfs --probes __none__; sleep 10; klstop
kl kls-gdp -s 8 -L $G; fbr n6 --workload sysfs --probes __none__; klstop
fbr fb2 --workload sysfs --probes kernfs_rwsem --probes gdp_mutex
echo "fb2 rwsem $(cnt fb2 kernfs_rwsem) gdp $(cnt fb2 gdp_mutex)"
echo done
