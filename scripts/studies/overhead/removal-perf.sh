#!/bin/bash
# cpu profile of the sysfs workload under lock-row variants
out=$1; cd "${FB_REPO:-$PWD}"
for v in empty nomatch; do
  perf record -o /tmp/perf-$v.data -e cpu-clock -F 20000 -a -g -- env FB_ABLATE=$v ./foliobench run --workload sysfs --probes kernfs_rwsem --probes kernfs_idr_lock --probes gdp_mutex --out $out/r-$v.json > $out/run-$v.log 2>&1
  echo "$v rc $?" >> $out/sum.txt
  perf report -i /tmp/perf-$v.data --no-children --sort sym --stdio -g none 2>/dev/null | head -60 > $out/rep-$v.txt
  perf report -i /tmp/perf-$v.data --no-children --sort comm --stdio -g none 2>/dev/null | head -30 > $out/comm-$v.txt
  sleep 2
done
