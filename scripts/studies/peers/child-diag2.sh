#!/bin/bash
cd /work/dev
fb=./foliobench
run() { $fb run --workload sysfs --param sysfs.devices=8 --param sysfs.threads=1 --probes "$1" --out "$2" >/dev/null 2>&1; }
run kernfs_rwsem /tmp/a.json
addr=$(jq -r '.probes[]|select(.name=="kernfs_rwsem")|.reason' /tmp/a.json | grep -oE 'instance 0x[0-9a-f]+' | cut -d' ' -f2)
echo "addr $addr; foliobench child_holds $(jq '.extra["child_holds.kernfs_rwsem"]' /tmp/a.json)"
for i in 1 2; do
bpftrace -e "kfunc:up_read /(uint64)args->sem == $addr && comm == \"foliobench\"/ { @r[tid] = count(); } kfunc:up_write /(uint64)args->sem == $addr && comm == \"foliobench\"/ { @w[tid] = count(); }" > /tmp/bt.out 2>&1 &
bt=$!
for t in $(seq 1 60); do grep -q Attaching /tmp/bt.out && break; sleep 0.5; done
sleep 1
$fb run --workload sysfs --param sysfs.devices=8 --param sysfs.threads=1 --probes __none__ --out /tmp/b.json >/dev/null 2>&1 & p=$!
wait $p
sleep 2; kill -INT $bt; wait $bt
echo "bpftrace run $i: main pid $p"; cat /tmp/bt.out
done
run kernfs_rwsem /tmp/c.json
echo "foliobench again: child_holds $(jq '.extra["child_holds.kernfs_rwsem"]' /tmp/c.json)"
