#!/usr/bin/env bash
# vf-table.sh - the seed's gdp_mutex line ("avg hold 18 -> 7 us (2040 acq.
# both arms)") from `foliobench ab` rounds of the VF-shaped sysfs workload,
# registration only, with the breakdown of the hold.
#
# Usage: scripts/studies/kernfs-bulk/vf-table.sh AB_DIR   (AB_DIR/{baseline,patched}/round-*.json)
#
# Every number is a phase snapshot the workload takes when all devices are
# registered, before it removes them (the "register_*" ops: lockrows.c
# fb_lock_stat_snapshot): acquisitions, hold sum, p50/p99 of the holds so
# far, and each function row's calls and time.  The breakdown per
# acquisition: the glue directory's creation is class_dir_create_and_add()
# (only called by get_device_parent() under gdp_mutex; kobject + sysfs), its
# sysfs part sysfs_create_dir_ns() per call (every kobject's directory, so a
# per-call mean, not a sum inside the hold), and the lookup is the rest of
# the hold: the list walk (baseline) or the rbtree (patched), the spinlock
# around it and mutex_unlock's share.  Needs jq.
set -euo pipefail
dir=${1:?usage: vf-table.sh AB_DIR}

jqlib='
def op($o): [.workloads[] | select(.name == "sysfs") | .ops[$o]] | first;
def us: if . == null then "-" else (. / 1000 * 100 | round / 100 | tostring) end;
def n: if . == null then "-" else tostring end;
def per($a; $b): if op($a) == null or (op($b) // 0) == 0 then null else op($a) / op($b) end;
'

vals() {	# vals ARM JQ-EXPR: one value per round
	local f
	for f in "$dir/$1"/round-*.json; do
		jq -r "$jqlib $2" "$f"
	done
}

cell() {	# cell ARM JQ-EXPR: every round's value, " / " between them
	vals "$1" "$2" | paste -sd/ | sed 's|/| / |g'
}

mean() {	# mean ARM JQ-EXPR: the rounds' mean (numbers only)
	vals "$1" "$2" | awk '$1 != "-" { s += $1; n++ } END { if (n) printf "%.6g", s / n; else print "-" }'
}

row() {	# row LABEL JQ-EXPR [SEED_BEFORE SEED_AFTER]: with baseline/patched of the means
	local b p r
	b=$(mean baseline "$2") p=$(mean patched "$2")
	r=$(awk -v b="$b" -v p="$p" 'BEGIN { if (b != "-" && p != "-" && p > 0) printf "%.2fx", b / p; else print "" }')
	echo "| $1 | $(cell baseline "$2") | $(cell patched "$2") | $r | ${3:-} | ${4:-} |"
}

echo "| gdp_mutex, registration (round 1 / round 2 / ...) | baseline | patched | baseline / patched | seed before | seed after |"
echo "|---|---:|---:|---:|---:|---:|"
row "devices registered" 'op("devices_created") | n'
row "class glue dirs made (\`net\`, one per device)" 'op("glue_dirs") | n'
row "\`gdp_mutex\` acquisitions" 'op("register_gdp_mutex") | n' "2,040" "2,040"
row "\`gdp_mutex\` **avg hold** (us)" 'per("register_gdp_mutex_hold_ns"; "register_gdp_mutex") | us' 18 7
row "\`gdp_mutex\` hold p50 (us)" 'op("register_gdp_mutex_p50_ns") | us'
row "\`gdp_mutex\` hold p99 (us)" 'op("register_gdp_mutex_p99_ns") | us'
row "\`get_device_parent\` calls" 'op("register_get_device_parent_calls") | n'
row "\`get_device_parent\` mean (us)" 'per("register_get_device_parent_ns"; "register_get_device_parent_calls") | us'
row "glue dir creation per acquisition (us): \`class_dir_create_and_add\` time / acquisitions" 'per("register_class_dir_create_and_add_ns"; "register_gdp_mutex") | us'
row "... its calls" 'op("register_class_dir_create_and_add_calls") | n'
row "... sysfs part: \`sysfs_create_dir_ns\` mean per call (us)" 'per("register_sysfs_create_dir_ns_ns"; "register_sysfs_create_dir_ns_calls") | us'
row "lookup per acquisition (us): avg hold - creation" '(per("register_gdp_mutex_hold_ns"; "register_gdp_mutex")) as $h | (per("register_class_dir_create_and_add_ns"; "register_gdp_mutex")) as $c | if $h == null or $c == null then null else $h - $c end | us'
