#!/bin/bash
# sysfs under the lock rows alone: what part of their cost is the trampolines
out=$1; cd /work/wt-obs; fb=./foliobench
cpu() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
L="--probes kernfs_rwsem --probes kernfs_idr_lock --probes gdp_mutex"
one() {	# one NAME ENV PROBES...
	local name=$1 e=$2; shift 2; local a b
	a=$(cpu)
	env $e $fb run --workload sysfs --out $out/$name.json "$@" > $out/$name.log 2>&1; rc=$?
	b=$(cpu)
	w=$(jq -r '.workloads[0].wall_ns' $out/$name.json)
	echo "$name	$w	$rc	$(echo $a $b | awk '{print $3-$1, $4-$2}')" | tee -a $out/diag.tsv
	sleep 2
}
for rep in 1 2; do
	one none-$rep FB_X=1 --probes __no_probe__
	one locks-$rep FB_X=1 $L
	one locks-empty-$rep FB_ABLATE=empty $L
	one locks-fexit-empty-$rep FB_ABLATE=empty FB_LOCKHOOK=fexit $L
	one locks-fexit-$rep FB_LOCKHOOK=fexit $L
done
