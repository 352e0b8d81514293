#!/usr/bin/env bash
# scripts/studies/stock-kernels/run.sh [V...] - the attach table of README.md.
# scripts/studies/stock-kernels/run.sh --table  - only table.md, from the JSON files here.
#
# For each Debian stock kernel V (default: 7.3 6.12 6.1), one guest
# (`foliobench vm --kernel debian:V --clock icount`, one vCPU) runs
# `foliobench run --workload nft --workload sysfs`; its table goes to
# debian-V.txt, its results to debian-V.json, then table.md is made from the
# JSON files: kernel x row -> status/method (or the reason), calls and mean
# per call (instruction-paced ns).  Run from the repository, as root.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=reports/stock-kernels
vers=("$@")
[ ${#vers[@]} -gt 0 ] || vers=(7.3 6.12 6.1)
[ "${1:-}" = --table ] && vers=()
for v in ${vers[@]+"${vers[@]}"}; do
	echo "# $(date -u +%FT%TZ) debian:$v, host load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$here/debian-$v.txt"
	./foliobench vm --kernel "debian:$v" --clock icount --results "$PWD/$here" --log "/tmp/fb-stock-$v.log" -- \
		./foliobench run --workload nft --workload sysfs --out "$PWD/$here/debian-$v.json" \
		>>"$here/debian-$v.txt" 2>&1
	rm -f "/tmp/fb-stock-$v.log"
done

# the matrix, from every debian-*.json here
cell() {	# JSON ROW [STAT]: "method: calls x mean" or "unavailable"
	jq -r --arg n "$2" --argjson s "${3:-0}" '.probes[] | select(.name==$n) |
		if .status != "attached" then "unavailable"
		elif (.stats | length) == 0 then .method + ": attached"
		else .method + ": " + (.stats[$s].count|tostring) +
			(if .stats[$s].count > 0 and .stats[$s].name != "size"
			 then " x " + ((.stats[$s].sum / .stats[$s].count) | floor | tostring) + " ns"
			 elif .stats[$s].count > 0 then " x " + ((.stats[$s].sum / .stats[$s].count) | floor | tostring) + " B"
			 else "" end) end' "$1"
}
files=()
for f in "$here"/debian-7.3.json "$here"/debian-6.12.json "$here"/debian-6.1.json; do
	[ -f "$f" ] && files+=("$f")
done
{
	printf '| row |'
	for f in "${files[@]}"; do printf ' %s |' "$(jq -r .host.kernel_release "$f")"; done
	printf '\n|---|'
	for f in "${files[@]}"; do printf -- '---|'; done
	printf '\n'
	for r in nft_trans_alloc nft_trans_alloc.kmalloc nf_tables_trans_destroy_work push_stack \
		generic_map_update_batch lockdep_list_entry_alloc kernfs_new_node kernfs_add_one \
		kernfs_activate get_device_parent kernfs_rwsem:0 kernfs_rwsem:2 kernfs_idr_lock:0 \
		gdp_mutex:0 getppid contention; do
		n=${r%%:*} s=0
		[ "$n" != "$r" ] && s=${r#*:}
		label=$n
		[ "$n" != "$r" ] && label="$n.$(jq -r --arg n "$n" --argjson s "$s" '.probes[] | select(.name==$n) | .stats[$s].name' "${files[0]}")"
		printf '| `%s` |' "$label"
		for f in "${files[@]}"; do printf ' %s |' "$(cell "$f" "$n" "$s")"; done
		printf '\n'
	done
	printf '| workload nft |'
	for f in "${files[@]}"; do printf ' %s |' "$(jq -r '.workloads[] | select(.name=="nft") | .status + ", " + (.ops.trans_objects|tostring) + " transaction objects, " + (.ops.destroy_passes|tostring) + " teardown passes"' "$f")"; done
	printf '\n| workload sysfs |'
	for f in "${files[@]}"; do printf ' %s |' "$(jq -r '.workloads[] | select(.name=="sysfs") | .status + ": " + .reason' "$f")"; done
	printf '\n'
} >"$here/table.md"
{
	echo
	echo "Reasons of the unavailable rows:"
	echo
	for f in "${files[@]}"; do
		jq -r '.host.kernel_release as $k | .probes[] | select(.status != "attached") |
			"- " + $k + " `" + .name + "`: " + .reason' "$f"
	done
} >>"$here/table.md"
cat "$here/table.md"
