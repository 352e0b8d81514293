#!/usr/bin/env bash
# core-test.sh RESULTS_DIR - issue 2's guest acceptance on $FB_KERNEL:
# every named function probe attaches; nft_trans_alloc == descriptors the
# nft workload submitted; teardown passes counted; kernfs_new_node and
# get_device_parent non-zero and scaling with the device count; lock rows
# attached and counting.
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
res=$1
fb=$PWD/foliobench
. tests/guest/lib.sh

small=20 large=60
"$fb" vm --kernel "$FB_KERNEL" --results "$res" --log "$res/core-console.log" -- sh -c "
	./foliobench run --workload nft --out $res/nft.json >$res/nft.out 2>&1 &&
	./foliobench run --workload sysfs --param sysfs.devices=$small --out $res/sysfs-$small.json >$res/s1.out 2>&1 &&
	./foliobench run --workload sysfs --param sysfs.devices=$large --out $res/sysfs-$large.json >$res/s2.out 2>&1 &&
	./foliobench run --workload nft --probes none --func vfs_read --func 'nf_tables_newtab*' \
		--out $res/adhoc.json >$res/adhoc.out 2>&1"
rc=$?
t "guest runs nft and sysfs workloads under all probes, no splat (vm rc=$rc)" test $rc = 0
if [ $rc != 0 ]; then
	tail -30 "$res"/*.out 2>/dev/null | sed 's/^/#   /'
	return 0 2>/dev/null || exit 0
fi
n=$res/nft.json a=$res/sysfs-$small.json b=$res/sysfs-$large.json
for p in nft_trans_alloc nf_tables_trans_destroy_work; do
	t "$p attaches in the guest ($(status "$n" $p))" bash -c "[[ '$(status "$n" $p)' == attached/fsession || '$(status "$n" $p)' == attached/fentry ]]"
done
for p in kernfs_new_node get_device_parent kernfs_add_one; do
	t "$p attaches in the guest ($(status "$a" $p))" bash -c "[[ '$(status "$a" $p)' == attached/* ]]"
done
trans=$(op "$n" nft trans_objects) cnt=$(probe "$n" nft_trans_alloc)
t "nft_trans_alloc count ($cnt) == transaction objects submitted ($trans)" test "$cnt" = "$trans"
passes=$(op "$n" nft destroy_passes) cnt=$(probe "$n" nf_tables_trans_destroy_work)
t "nf_tables_trans_destroy_work count ($cnt) == teardown passes ($passes)" test "$cnt" = "$passes"
# ad-hoc rows (issue 17): run --func SYMBOL and a glob, beside the catalogue
ah=$res/adhoc.json
for p in vfs_read nf_tables_newtable; do
	t "run --func: $p row attached ($(status "$ah" $p)), marked adhoc, $(probe "$ah" $p) calls" \
		bash -c "[[ '$(status "$ah" $p)' == attached/* ]] &&
			 [ \"\$(jq -r '.probes[] | select(.name==\"$p\") | .adhoc' '$ah')\" = true ] &&
			 [ $(probe "$ah" $p) -gt 0 ]"
done
t "nf_tables_newtable calls ($(probe "$ah" nf_tables_newtable)) >= tables the nft workload added ($(op "$ah" nft tables_added))" \
	test "$(probe "$ah" nf_tables_newtable)" -ge "$(op "$ah" nft tables_added)"
for p in kernfs_new_node get_device_parent; do
	x=$(probe "$a" $p) y=$(probe "$b" $p)
	t "$p: $x calls for $small devices, $y for $large (non-zero, scales ~${large}/${small})" \
		bash -c "[ ${x:-0} -gt 0 ] && [ $((y * small)) -ge $((x * large * 7 / 10)) ] && [ $((y * small)) -le $((x * large * 13 / 10)) ]"
done
# lock rows read /proc/lock_stat: counting on a CONFIG_LOCK_STAT kernel,
# unavailable with that reason elsewhere
lockdep=$(grep -c "^CONFIG_LOCK_STAT=y" "$FB_KERNEL/.config" 2>/dev/null)
for l in kernfs_rwsem kernfs_idr_lock gdp_mutex; do
	w=$(probe "$b" $l 0) h=$(probe "$b" $l 1)
	if [ "${lockdep:-0}" = 1 ]; then
		t "$l lock row attached and counting ($(status "$b" $l): $w write acquisitions)" \
			bash -c "[[ '$(status "$b" $l)' == attached/lock_stat ]] && [ ${w:-0} -gt 0 ]"
	else
		why=$(jq -r --arg n $l '.probes[] | select(.name==$n) | .reason' "$b")
		t "$l lock row unavailable without lock_stat, and says why ($why)" \
			bash -c "[[ '$(status "$b" $l)' == unavailable/- ]] && [[ '$why' == *CONFIG_LOCK_STAT* ]]"
	fi
done
