#!/usr/bin/env bash
# observer-test.sh RESULTS_DIR [KERNEL] - the TCG plugin observer (issue 39)
# on KERNEL (default: the baseline perf kernel), instruction-paced guests.
#
# 1. One boot, --observer both, nft then sysfs: the plugin's rows (method
#    plugin, named NAME@plugin beside the BPF row NAME) count what the BPF
#    rows count, exactly: nft_trans_alloc = BPF = the nft workload's
#    transaction objects, nf_tables_trans_destroy_work = BPF = its teardown
#    passes, kernfs_new_node = BPF (> 0); one window per workload; every
#    call is timed to its return (latency count = calls); and for
#    kernfs_rwsem, kernfs_idr_lock and gdp_mutex, the plugin's lock rows
#    find BPF's instance (kernfs_root's members without reading sysfs_root),
#    and their acquisitions and holds (whole run and the registration
#    phase's hold@register) = BPF's write holds, every hold closed.
# 2. ab --observer plugin (one round, the kernel against itself): no BPF row
#    in the guest, the plugin's rows under the catalogue's names, counts =
#    the workload's own; the three lock rows attached, every hold closed.
# -l LOCKSTAT_DIR: instead, one --observer both boot of sysfs on the
#    lockstat kernel: for the three locks the registration's holds by the
#    plugin = BPF's = /proc/lock_stat's class count, exactly.
# 3. Bad input: a System.map that is not the kernel's (one address moved,
#    in a copy) and --system-map of another kernel -> exit 2, one line, no
#    boot; a plugin that does not load -> exit 126, one line.  Nothing of
#    ours left running or on disk after any of them.
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
res=$1
fb=$PWD/foliobench
. tests/guest/lib.sh
lockstat=
if [ "${1:-}" = -l ]; then
	lockstat=$2
	shift 2
fi
res=$1
k=${2:-$(scripts/kernel-build.sh --print baseline perf)}
[ -n "$lockstat" ] && k=$lockstat
[ -f "$k/bzImage" ] || { nok "observer-test: a kernel at $k"; exit 0; }
[ -f build/plugin/fbobs.so ] || { nok "observer-test: the plugin is built (make)"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/fb-observer-test.XXXXXX")
ctl=$work/tmp
mkdir -p "$ctl"
ours() { pgrep -f "path=($res|$work/r)," 2>/dev/null; }
trap 'for p in $(ours); do kill -KILL "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
# left: "" if nothing of ours survives (qemu on $res, a control dir)
left() { [ -z "$(ours)" ] && [ -z "$(ls -A "$ctl")" ]; }

# ---- -l: the lockstat kernel, the plugin = BPF = /proc/lock_stat ----
if [ -n "$lockstat" ]; then
	f=$res/observer-lockstat.json
	rm -f "$f"
	TMPDIR=$ctl nice -n 10 "$fb" vm --clock icount --observer both --kernel "$k" --results "$res" \
		--timeout 900 --log "$res/observer-lockstat.log" --observer-into "$f" -- \
		./foliobench run --workload sysfs --param sysfs.devices=40 --out "$f" \
		>"$res/observer-lockstat.out" 2>&1
	rc=$?
	t "lockstat kernel, --observer both: sysfs ran, plugin rows merged (exit $rc)" test $rc = 0
	for l in kernfs_rwsem kernfs_idr_lock gdp_mutex; do
		x=$(probe "$f" "$l@plugin" 2) y=$(op "$f" sysfs "register_$l")
		z=$(op "$f" sysfs "register_${l}_lockstat")
		t "lockstat kernel: $l registration holds: plugin $x = BPF $y = /proc/lock_stat $z" \
			bash -c "[ '$x' = '$y' ] && [ '$y' = '$z' ] && [ '${z:-0}' -gt 0 ] &&
				 [ '$(status "$f" "$l@plugin")' = attached/plugin ]"
	done
	t "lockstat kernel: nothing of ours left running" left
	exit 0
fi

# ---- 1. both observers in one boot ----
b=$res/observer-both.json
rm -f "$b"
TMPDIR=$ctl nice -n 10 "$fb" vm --clock icount --observer both --kernel "$k" --results "$res" \
	--log "$res/observer-both.log" --observer-into "$b" -- \
	./foliobench run --workload nft --workload sysfs --param sysfs.devices=40 --out "$b" \
	>"$res/observer-both.out" 2>&1
rc=$?
t "vm --observer both: nft and sysfs ran, plugin rows merged (exit $rc)" test $rc = 0
[ $rc = 0 ] || sed 's/^/#   /' "$res/observer-both.out" | tail -15
meth() { jq -r --arg n "$2" '.probes[] | select(.name==$n) | .method' "$1"; }
for p in nft_trans_alloc nf_tables_trans_destroy_work kernfs_new_node; do
	t "$p@plugin: attached, method plugin ($(status "$b" "$p@plugin"))" \
		test "$(status "$b" "$p@plugin")" = attached/plugin
done
trans=$(op "$b" nft trans_objects) passes=$(op "$b" nft destroy_passes)
# the plugin's rows: stat 0 latency (calls timed to their return), stat 1 calls
x=$(probe "$b" nft_trans_alloc@plugin 1) y=$(probe "$b" nft_trans_alloc)
t "nft_trans_alloc: plugin $x = BPF $y = transaction objects $trans" \
	bash -c "[ '$x' = '$y' ] && [ '$y' = '$trans' ] && [ '${trans:-0}' -gt 0 ]"
x=$(probe "$b" nf_tables_trans_destroy_work@plugin 1) y=$(probe "$b" nf_tables_trans_destroy_work)
t "nf_tables_trans_destroy_work: plugin $x = BPF $y = teardown passes $passes" \
	bash -c "[ '$x' = '$y' ] && [ '$y' = '$passes' ] && [ '${passes:-0}' -gt 0 ]"
x=$(probe "$b" kernfs_new_node@plugin 1) y=$(probe "$b" kernfs_new_node)
t "kernfs_new_node: plugin $x = BPF $y (> 0)" bash -c "[ '$x' = '$y' ] && [ '${y:-0}' -gt 0 ]"
for p in get_device_parent kernfs_add_one kernfs_activate; do
	x=$(probe "$b" "$p@plugin" 1) y=$(probe "$b" "$p")
	t "$p: plugin $x = BPF $y" test "$x" = "$y"
done
for p in nft_trans_alloc kernfs_new_node kernfs_add_one get_device_parent; do
	x=$(probe "$b" "$p@plugin" 1) y=$(probe "$b" "$p@plugin" 0)
	t "$p@plugin: every call timed to its return ($y of $x)" bash -c "[ '$x' = '$y' ] && [ '${y:-0}' -gt 0 ]"
done
# a lock row's instance, as its reason says
inst() { jq -r --arg n "$2" '.probes[] | select(.name==$n) | .reason' "$1" | grep -oE '^instance 0x[0-9a-f]+'; }
# a stat's count by name
stat() { jq -r --arg n "$2" --arg s "$3" '.probes[] | select(.name==$n) | .stats[] | select(.name==$s) | .count' "$1"; }
for l in kernfs_rwsem kernfs_idr_lock gdp_mutex; do
	x=$(inst "$b" "$l@plugin") y=$(inst "$b" "$l")
	t "$l: the plugin's ${x:-no instance} = BPF's ($(status "$b" "$l@plugin"))" \
		bash -c "[ -n '$x' ] && [ '$x' = '$y' ] && [ '$(status "$b" "$l@plugin")' = attached/plugin ]"
	acq=$(stat "$b" "$l@plugin" acquire) x=$(stat "$b" "$l@plugin" hold) y=$(stat "$b" "$l" hold)
	t "$l: plugin acquisitions $acq = holds $x = BPF write holds $y (> 0)" \
		bash -c "[ '$acq' = '$x' ] && [ '$x' = '$y' ] && [ '${y:-0}' -gt 0 ]"
	x=$(stat "$b" "$l@plugin" hold@register) y=$(stat "$b" "$l" hold@register)
	t "$l: registration holds, plugin $x = BPF $y (> 0)" \
		bash -c "[ '$x' = '$y' ] && [ '${y:-0}' -gt 0 ]"
done
marks=$(jq -r '.extra["plugin.marks_on"]' "$b")
t "the plugin saw one window per workload ($marks)" test "$marks" = 2

# ---- 2. ab, the plugin alone ----
a=$res/observer-ab
rm -rf "$a"
TMPDIR=$ctl nice -n 10 "$fb" ab --baseline "$k" --patched "$k" --rounds 1 --workload nft \
	--workload sysfs --param sysfs.devices=40 \
	--observer plugin --out "$a" >"$res/observer-ab.out" 2>&1
rc=$?
t "ab --observer plugin: both boots ok (exit $rc)" test $rc = 0
for arm in baseline patched; do
	f=$a/$arm/round-1.json
	bpf=$(jq '[.probes[] | select(.method != "plugin")] | length' "$f" 2>/dev/null)
	x=$(probe "$f" nft_trans_alloc 1) trans=$(op "$f" nft trans_objects)
	t "ab $arm: no BPF row ($bpf), nft_trans_alloc ($(status "$f" nft_trans_alloc)) $x = transaction objects $trans" \
		bash -c "[ '$bpf' = 0 ] && [ '$(status "$f" nft_trans_alloc)' = attached/plugin ] &&
			 [ '$x' = '$trans' ] && [ '${trans:-0}' -gt 0 ]"
	# alone, the plugin finds every lock's instance, and every hold closes
	for l in kernfs_rwsem kernfs_idr_lock gdp_mutex; do
		acq=$(stat "$f" "$l" acquire) x=$(stat "$f" "$l" hold)
		t "ab $arm: $l $(status "$f" $l), acquisitions $acq = holds $x" \
			bash -c "[ '$(status "$f" $l)' = attached/plugin ] && [ '$acq' = '$x' ] && [ '${x:-0}' -gt 0 ]"
	done
done
t "ab.json says observer plugin" test "$(jq -r .observer "$a/ab.json" 2>/dev/null)" = plugin

# ---- 3. bad input ----
# bad NAME RC REGEX ARGS...: vm with ARGS exits RC, one error line matching
# REGEX, no console log written, nothing left
bad() {
	local name=$1 want=$2 re=$3 out n
	shift 3
	out=$(cd "$work" && TMPDIR=$ctl "$fb" vm --clock icount --kernel "$k" --results "$work/r" \
		--log "$work/con.log" "$@" -- true 2>&1)
	rc=$?
	n=$(grep -c 'foliobench: error:' <<<"$out")
	t "$name: exit $rc, $n error line ($(grep -m1 'error:' <<<"$out" | cut -c1-150))" \
		bash -c "[ $rc = $want ] && [ $n = 1 ] && grep -qE -- '$re' <<<'$out'"
	t "$name: nothing left running or in the control dir" left
	rm -rf "${ctl:?}"/* "$work/r" "$work/con.log"
}
mkdir -p "$work/moved"
ln -s "$k/bzImage" "$work/moved/bzImage"
ln -s "$k/vmlinux" "$work/moved/vmlinux"
addr=$(awk '$3 == "kernfs_new_node" { print $1 }' "$k/System.map")
awk -v a="$addr" -v b="$(printf '%016x' $((0x$addr + 16)))" \
	'$1 == a && $3 == "kernfs_new_node" { $1 = b } 1' "$k/System.map" >"$work/moved/System.map"
bad "a System.map with kernfs_new_node moved" 2 \
	"is not the System.map of .*kernfs_new_node at 0x" --observer plugin \
	--system-map "$work/moved/System.map"
bad "a System.map of no kernel" 2 "hostname: no __x64_sys_sched_get_priority_max" --observer plugin \
	--system-map /etc/hostname
other=$(scripts/kernel-build.sh --print patched perf)
if [ -f "$other/System.map" ] && ! cmp -s "$other/System.map" "$k/System.map"; then
	bad "the patched kernel's System.map" 2 "is not the System.map of" --observer both \
		--system-map "$other/System.map"
fi
printf 'not an ELF object\n' >"$work/bad.so"
FB_PLUGIN=$work/bad.so bad "a plugin that does not load" 126 "qemu failed.*plugin" \
	--observer plugin
