#!/usr/bin/env bash
# measure-sysfs.sh [ROUNDS] [DEVICES...] - the kernfs-bulk seed's lock
# counts, measured here on the lockstat flavour (lockdep's lock tracepoints
# feed foliobench's lock rows; /proc/lock_stat is the cross-check).
#
# For each device count and round, baseline and patched kernels boot in
# turn and run `foliobench run --workload sysfs --param sysfs.devices=N`.
# Results: $OUT/<arm>-<N>/round-<i>.json and `foliobench compare` tables.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
shift || true
devices=${*:-100 400}
out=${OUT:-results/sysfs-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
fb=./foliobench
declare -A k
k[baseline]=$($fb kernel build --arm baseline --flavour lockstat | tail -1)
k[patched]=$($fb kernel build --arm patched --flavour lockstat | tail -1)

for n in $devices; do
	for i in $(seq 1 "$rounds"); do
		for arm in baseline patched; do
			d=$out/$arm-$n
			mkdir -p "$d"
			echo "measure-sysfs: $n devices, round $i/$rounds, $arm" >&2
			$fb vm --kernel "${k[$arm]}" --results "$out" --log "$d/console-$i.log" \
				--timeout 1800 --append "foliobench.arm=$arm" -- \
				./foliobench run --workload sysfs --param sysfs.devices="$n" \
				--label "$arm" --out "$d/round-$i.json" >"$d/run-$i.out" 2>&1
		done
	done
	$fb compare "$out/baseline-$n" "$out/patched-$n" --format md >"$out/compare-$n.md"
done
echo "$out"
