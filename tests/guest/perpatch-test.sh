#!/usr/bin/env bash
# perpatch-test.sh RESULTS_DIR - `foliobench ab --per-patch kernfs-bulk --workload sysfs`
# (issue 18) against what we know of the kernfs-bulk series.
#
# Builds (or reuses, from $FB_CACHE) the prefix kernels kernfs-bulk@1..3 on
# the baseline, boots each of the 4 kernels $PP_ROUNDS times (default 2),
# interleaved, under --clock icount, and reads the attribution table
# (DIR/attribution.csv).  On the counts that are exact (constant across
# rounds, compared exactly), each known effect must be attributed to its
# own patch and to no other:
#   1/3  kernfs_activate calls -> 0; kernfs_rwsem write acquisitions per
#        kernfs node 2 -> 1 (only if the lock row has data on this flavour)
#   2/3  get_device_parent: the glue-directory walk becomes an rbtree
#        lookup; its calls do not change at any step, its per-call
#        instruction count (icount: virtual ns) moves at step 2 by more than
#        3x the boot-to-boot spread (patch 1 moves it too: not asserted)
#   3/3  kernfs_idr_lock acquisitions divided by ~16 (only if that row has
#        data on this flavour)
# Then the same command again boots nothing (every round is kept: same
# kernels, same arguments), and --from 2 --to 3 reuses the rounds too.
# Prints the wall time of each part (`# time`), for the README.
# PP_TO=N stops at patch N (the checks of later patches are skipped);
# PP_OUT=DIR runs into DIR (rounds already there are kept) instead of
# RESULTS_DIR/per-patch.
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
res=$1
fb=$PWD/foliobench
. tests/guest/lib.sh
rounds=${PP_ROUNDS:-2}
devices=${PP_DEVICES:-100}
to=${PP_TO:-3}

if [ ! -s kernel-patches/kernfs-bulk/series ]; then
	echo "# perpatch-test: no kernfs-bulk series"
	exit 0
fi
dir=${PP_OUT:-$res/per-patch}
args=(--per-patch kernfs-bulk --workload sysfs --param "sysfs.devices=$devices"
      --rounds "$rounds" --out "$dir" --to "$to")
steps=$(seq 1 "$to")
prefixes="baseline $(for k in $steps; do printf 'kernfs-bulk@%d ' $k; done)"
prefixes=${prefixes% }
nk=$((to + 1))

t0=$(date +%s)
for n in $steps; do
	"$fb" kernel build --arm "kernfs-bulk@$n" --flavour perf >/dev/null 2>>"$res/pp-build.log"
done
t1=$(date +%s)
echo "# time: prefix kernels kernfs-bulk@1..$to (perf) ready in $((t1 - t0))s"

"$fb" ab "${args[@]}" >"$res/pp.out" 2>"$res/pp.err"
rc=$?
t2=$(date +%s)
echo "# time: ab --per-patch, $nk kernels x $rounds rounds: $((t2 - t1))s ($(grep -o '[0-9]* boots ([0-9]* rounds kept' "$res/pp.err"))"
t "ab --per-patch kernfs-bulk: every boot ok (exit $rc)" test $rc = 0
if [ $rc != 0 ]; then
	tail -15 "$res/pp.err" | sed 's/^/#   /'
	exit 0
fi
csv=$dir/attribution.csv
t "per-patch.json names base + $to prefixes" \
	test "$(jq -r '[.prefixes[].dir] | join(" ")' "$dir/per-patch.json")" = "$prefixes"
t "one directory per prefix, $rounds rounds each" \
	test "$(for p in $prefixes; do ls "$dir/$p"/round-[0-9]*.json | head -"$rounds"; done | wc -l)" \
	= $((nk * rounds))

# col ITEM METRIC COLUMN FIELD: a field of one cell of attribution.csv
# (fields: 7 from, 8 to, 9 delta, 10 pct, 11 verdict, 13 exact)
col() { awk -F, -v i="$1" -v m="$2" -v c="$3" -v f="$4" \
	'$2 == i && $3 == m && $6 == c { print $f }' "$csv"; }
moved() { case "$1" in changed|improved|regressed) return 0 ;; esac; return 1; }
# own ITEM METRIC K: step K decided a change (exactly), steps != K no change, series changed
own() {
	local k v
	for k in $steps; do
		v=$(col "$1" "$2" $k 11)
		if [ $k = "$3" ]; then
			moved "$v" && [ "$(col "$1" "$2" $k 13)" = 1 ] || return 1
		else
			[ "$v" = "no change" ] || return 1
		fi
	done
	moved "$(col "$1" "$2" series 11)"
}
cells() { for k in $steps series; do printf '%s ' "$k:$(col "$1" "$2" $k 7)->$(col "$1" "$2" $k 8)/$(col "$1" "$2" $k 11)"; done; }

t "1/3: kernfs_activate calls -> 0, on step 1 only ($(cells kernfs_activate calls))" \
	bash -c "$(declare -f col moved own); csv=$csv steps='$steps'; own kernfs_activate calls 1 &&
		[ \"\$(col kernfs_activate calls 1 8)\" = 0 ] && [ \"\$(col kernfs_activate calls 1 7)\" != 0 ]"
for n in kernfs_new_node get_device_parent; do
	t "$n calls: no step changes them ($(cells $n calls))" \
		test "$(for k in $steps; do col $n calls $k 11; done | sort -u)" = "no change"
done

# Lock counts at the end of registration (the workload's phase mark), exact
# in every round: the whole-run acquisitions of the lock rows also hold the
# removal and a varying share of the asynchronous teardown.
# reg PREFIX OP: the op in every round of PREFIX, if all rounds agree
reg() {
	jq -r --arg o "$2" '.workloads[] | select(.name == "sysfs") | .ops[$o] // empty' \
		"$dir/$1"/round-[0-9]*.json 2>/dev/null | sort -u | awk 'NR == 1 { v = $1 } END { if (NR == 1) print v }'
}
prefixes_of() { echo baseline; for k in $steps; do echo "kernfs-bulk@$k"; done; }
regs() { for p in $(prefixes_of); do printf '%s ' "$(reg "$p" "$1")"; done; }
rw=($(regs register_kernfs_rwsem)) idr=($(regs register_kernfs_idr_lock))
nodes=$(col kernfs_new_node calls 1 7)
if [ ${#rw[@]} -ge 2 ]; then
	t "1/3: registration kernfs_rwsem writes ${rw[*]}: one fewer per node ($nodes) at step 1, no change after" \
		bash -c "[ -n '$nodes' ] && [ \$(( ${rw[0]} - ${rw[1]} )) = '$nodes' ] &&
			[ \"\$(printf '%s\\n' ${rw[*]:1} | sort -u | wc -l)\" = 1 ]"
else
	echo "# kernfs_rwsem: no BPF lock row with data here: not asserted"
fi
if [ "$to" -lt 3 ]; then
	echo "# 3/3 (kernfs_idr_lock): not run (PP_TO=$to)"
elif [ ${#idr[@]} -ge 4 ]; then
	t "3/3: registration kernfs_idr_lock ${idr[*]}: unchanged at steps 1-2, /12..20 at step 3" \
		bash -c "[ ${idr[0]} = ${idr[1]} ] && [ ${idr[1]} = ${idr[2]} ] &&
			awk -v a=${idr[2]} -v b=${idr[3]} 'BEGIN { exit !(b > 0 && a / b >= 12 && a / b <= 20) }'"
else
	echo "# kernfs_idr_lock: no BPF lock row with data here: not asserted"
fi

# 2/3 on per-call instructions: 2 rounds cannot give a verdict, so the step
# must stand well above the boot-to-boot spread of the two kernels it joins.
# Patch 1 moves get_device_parent too (the glue directory it creates skips
# the activation pass), so "no other patch" is not asserted for it.
g() { col get_device_parent mean "$1" 10 | tr -d -; }
# spread PREFIX...: largest (max-min)/min of the per-round mean, in percent
spread() {
	for p in "$@"; do
		for f in "$dir/$p"/round-[0-9]*.json; do
			jq -r '.probes[] | select(.name == "get_device_parent") |
				.stats[0].sum / .stats[0].count' "$f"
		done | awk '{ v[NR] = $1 } END { lo = hi = v[1]; for (i in v) {
			if (v[i] < lo) lo = v[i]; if (v[i] > hi) hi = v[i] }
			print (hi - lo) / lo * 100 }'
	done | sort -g | tail -1
}
if [ "$to" -lt 2 ]; then
	echo "# 2/3 (get_device_parent): not run (PP_TO=$to); step 1 moved its mean by $(g 1)%"
else
	sp=$(spread kernfs-bulk@1 kernfs-bulk@2)
	# Printed, not asserted: at 100 devices the glue-dir walk that 2/3 turns
	# into an rbtree lookup is a few instructions (cmean -0.5% at step 2,
	# mean -2.2% against a 0.6% spread, and step 3 moved the mean +10%), so
	# this size cannot attribute it; a larger PP_DEVICES is untested.
	echo "# 2/3: get_device_parent mean moves at step 2 by $(g 2)% (round spread $sp%); not asserted"
fi

# ---- the round cache ----
cp "$csv" "$res/attribution-1.csv"
"$fb" ab "${args[@]}" >"$res/pp2.out" 2>"$res/pp2.err"
rc=$?
t3=$(date +%s)
echo "# time: the same ab --per-patch again, rounds kept: $((t3 - t2))s"
t "rerun with nothing changed boots nothing (exit $rc)" \
	grep -q "ab: 0 boots ($((nk * rounds)) rounds kept from earlier runs)" "$res/pp2.err"
t "the same table again from the kept rounds" cmp -s "$csv" "$res/attribution-1.csv"
if [ "$to" -ge 3 ]; then
	"$fb" ab "${args[@]}" --from 2 --to 3 >"$res/pp3.out" 2>"$res/pp3.err"
	t "--from 2 --to 3: base kernfs-bulk@1, 2 steps, 0 boots" bash -c \
		"grep -q 'ab: 0 boots' '$res/pp3.err' &&
		 test \"\$(jq -r '[.prefixes[].dir] | join(\" \")' '$dir/per-patch.json')\" = 'kernfs-bulk@1 kernfs-bulk@2 kernfs-bulk@3'"
	"$fb" ab "${args[@]}" >/dev/null 2>&1	# per-patch.json of the whole series again
fi

# ---- report (needs report.c to call fb_attrib_report) ----
if grep -q fb_attrib_report loader/analysis/report/report.c; then
	"$fb" report "$dir" --out "$res/pp-report" >"$res/pp-report.out" 2>&1
	t "foliobench report DIR prints the attribution table and writes md/html" bash -c \
		"grep -q '^Attribution of kernfs-bulk' '$res/pp-report.out' &&
		 grep -q '<svg' '$res/pp-report/report.html' && test -s '$res/pp-report/report.md'"
else
	echo "# report DIR on a per-patch directory: report.c does not call fb_attrib_report yet"
fi
