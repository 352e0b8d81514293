#!/bin/bash
cd /work/dev
fb=./foliobench
P="--param sysfs.devices=8 --param sysfs.threads=1"
$fb run --workload sysfs $P --probes kernfs_rwsem --out /tmp/a.json >/dev/null 2>&1
addr=$(jq -r '.probes[]|select(.name=="kernfs_rwsem")|.reason' /tmp/a.json | grep -oE 'instance 0x[0-9a-f]+' | cut -d' ' -f2)
echo "addr $addr; foliobench child_holds $(jq '.extra["child_holds.kernfs_rwsem"]' /tmp/a.json)"
for probes in __none__ kernfs_idr_lock __none__ kernfs_idr_lock; do
bpftrace -e "kfunc:up_read /(uint64)args->sem == $addr && comm == \"foliobench\"/ { @r[tid] = count(); } kfunc:up_write /(uint64)args->sem == $addr && comm == \"foliobench\"/ { @w[tid] = count(); } kfunc:up_read,kfunc:up_write /(uint64)args->sem == $addr/ { @all[comm] = count(); }" > /tmp/bt.out 2>&1 &
bt=$!
for t in $(seq 1 60); do grep -q Attaching /tmp/bt.out && break; sleep 0.5; done
sleep 1
$fb run --workload sysfs $P --probes $probes --out /tmp/b.json >/dev/null 2>&1 & p=$!
wait $p
sleep 3; kill -INT $bt; wait $bt
echo "== foliobench --probes $probes: main pid $p"; grep -v "WARNING\|~\|kfunc" /tmp/bt.out | grep "@" | awk -v m="$p" '{ print } /^@[rw]\[/ { split($1, a, /[][]/); if (a[2] != m) c += $2 } END { print "child total", c }'
done
