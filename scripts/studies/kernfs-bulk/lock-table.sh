#!/usr/bin/env bash
# lock-table.sh - the seed's lock table from `foliobench ab` rounds with BPF
# lock rows: per arm, every round's value (" / " between rounds).
#
# Usage: scripts/studies/kernfs-bulk/lock-table.sh AB_DIR   (AB_DIR/{baseline,patched}/round-*.json)
# Percentiles are computed from the rounds' log-linear buckets exactly as
# foliobench does (fb_hist_percentile: linear inside a bucket, clamped to
# min/max).  Needs jq.
set -euo pipefail
dir=${1:?usage: lock-table.sh AB_DIR}

jqlib='
def ilog2: . as $v | [range(0; 64) | select(pow(2; .) <= $v)] | max;
def width: if . < 32 then 1 else pow(2; (ilog2) - 5) end;
def pct($p):
  . as $h | ([$h.buckets[][1]] | add // 0) as $t | ($t * $p / 100) as $rank |
  if $t == 0 then null else
  (reduce $h.buckets[] as $b ({seen: 0, v: null};
    if .v != null then .
    elif (.seen + $b[1]) < $rank then .seen += $b[1]
    else .v = ($b[0] + ($b[0] | width) * (($rank - .seen) / $b[1])) end) | .v) as $v |
  [[$v, $h.max] | min, $h.min] | max end;
def stat($p; $s): [.probes[] | select(.name == $p) | .stats[] | select(.name == $s)] | first;
def op($o): [.workloads[] | select(.name == "sysfs") | .ops[$o]] | first;
def us: if . == null then "-" else (. / 1000 * 10 | round / 10 | tostring) end;
def n: if . == null then "-" else tostring end;
'

cell() {	# cell ARM JQ-EXPR: the expression for every round of ARM
	local f out=()
	for f in "$dir/$1"/round-*.json; do
		out+=("$(jq -r "$jqlib $2" "$f")")
	done
	local IFS=/
	echo "${out[*]}" | sed 's|/| / |g'
}

row() {	# row LABEL JQ-EXPR
	echo "| $1 | $(cell baseline "$2") | $(cell patched "$2") |"
}

echo "| per round (round 1 / round 2 / ...) | baseline | patched |"
echo "|---|---:|---:|"
row "kernfs nodes created (\`kernfs_new_node\`)" 'stat("kernfs_new_node"; "latency").count | n'
row "\`kernfs_rwsem\` write acquisitions, registration" 'op("register_kernfs_rwsem") | n'
row "... per node" 'if op("register_kernfs_rwsem") == null then "-" else (op("register_kernfs_rwsem") / stat("kernfs_new_node"; "latency").count * 100 | round / 100 | tostring) end'
row "\`kernfs_rwsem\` write acquisitions, whole run" 'stat("kernfs_rwsem"; "hold").count | n'
row "\`kernfs_rwsem\` write hold p50 (us)" 'stat("kernfs_rwsem"; "hold") | pct(50) | us'
row "\`kernfs_rwsem\` write hold p99 (us)" 'stat("kernfs_rwsem"; "hold") | pct(99) | us'
row "\`kernfs_rwsem\` read acquisitions, whole run" 'stat("kernfs_rwsem"; "hold_read").count | n'
row "\`kernfs_rwsem\` contentions, write side" 'stat("kernfs_rwsem"; "wait").count | n'
row "\`kernfs_rwsem\` contentions, read side" 'stat("kernfs_rwsem"; "wait_read").count | n'
row "\`kernfs_idr_lock\` acquisitions, registration" 'op("register_kernfs_idr_lock") | n'
row "\`kernfs_idr_lock\` acquisitions, whole run" 'stat("kernfs_idr_lock"; "hold").count | n'
row "\`kernfs_idr_lock\` hold p50 (us)" 'stat("kernfs_idr_lock"; "hold") | pct(50) | us'
row "\`kernfs_idr_lock\` hold p99 (us)" 'stat("kernfs_idr_lock"; "hold") | pct(99) | us'
row "\`gdp_mutex\` acquisitions, whole run" 'stat("gdp_mutex"; "hold").count | n'
row "\`gdp_mutex\` acquisitions, registration" 'op("register_gdp_mutex") | n'
row "\`gdp_mutex\` hold mean (us)" '(stat("gdp_mutex"; "hold") | .sum / .count) | us'
row "\`gdp_mutex\` hold p50 (us)" 'stat("gdp_mutex"; "hold") | pct(50) | us'
row "\`gdp_mutex\` hold p90 (us)" 'stat("gdp_mutex"; "hold") | pct(90) | us'
row "\`gdp_mutex\` hold p99 (us)" 'stat("gdp_mutex"; "hold") | pct(99) | us'
row "\`gdp_mutex\` contentions" 'stat("gdp_mutex"; "wait").count | n'
row "\`get_device_parent\` calls" 'stat("get_device_parent"; "latency").count | n'
row "\`get_device_parent\` p50 (us)" 'stat("get_device_parent"; "latency") | pct(50) | us'
row "registration wall time (ms)" 'op("create_wall_us") / 1000 | round | n'
