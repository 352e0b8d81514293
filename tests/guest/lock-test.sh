#!/usr/bin/env bash
# lock-test.sh - BPF lock rows (fblock: fentry on _raw_spin_lock, fexit on
# mutex_lock and down_write, fentry on down_read and on every release
# function; waits from lock:contention_begin/end) under the sysfs workload.
#
# Boots each kernel BOOTS times in a row, one vCPU (the `ab` default), runs
#   foliobench run --workload sysfs --param sysfs.devices=N
# with every probe attached (function rows and all three lock rows), and
# checks per boot:
#   - the guest exits 0: no oops, WARN/BUG splat, panic or hang (`vm` turns
#     those into 124/125), so attach and detach of the lock programs are safe;
#   - kernfs_rwsem, kernfs_idr_lock and gdp_mutex are attached with BPF
#     (fexit+fentry/lock, fentry/cpu, fexit+fentry/lock), not the lock_stat fallback;
#   - kernfs_rwsem write holds >= kernfs_add_one + kernfs_activate calls:
#     each of those takes the sysfs root's rwsem for write exactly once, and
#     sysfs is the only kernfs root the workload touches;
#   - kernfs_idr_lock holds >= kernfs_new_node calls on the baseline (one ID
#     allocation each) and <= 1/4 of them on the patched kernel (batches of
#     16 IDs per acquisition, series patch 3/3);
#   - gdp_mutex holds >= the glue dirs the workload made (get_device_parent
#     takes it for each class device) and <= 2x get_device_parent calls;
#     its stat hold@register holds exactly the registration's holds (the
#     phase hook's count), and the row declares register_hold_cmean gated;
#   - the VF shape (issue 28): every device its own parent with its own glue
#     directory under the one class `net` (glue dirs = devices), and the
#     registration takes gdp_mutex once per port: devices x ports, plus at
#     most 4 for the private netns' own virtual devices (lo, sit0, ...).
#     Boot 2 and later run sysfs.ports=2: the second port finds its
#     device's glue dir (a lookup without a creation), so the count doubles
#     and the glue dirs do not;
# and across kernels, from the first boot of each: during registration the
# baseline takes the sysfs rwsem for write exactly once more per node than
# the patched kernel (2 -> 1: activation moves into the linking hold, series
# patch 1/3), i.e. baseline - patched = kernfs_new_node calls, exactly.
#
# With -l LOCKSTAT_DIR (a PROVE_LOCKING + LOCK_STAT kernel), one more boot
# checks exactness against /proc/lock_stat in the same guest and window:
# the workload's "register" phase hook snapshots both at the same instant
# (/proc/lock_stat is zeroed when recording is first enabled, at the start
# of the workload, the BPF programs' enabled flag set right after), and for each lock the BPF write acquisitions
# (register_<lock>) must equal lock_stat's class count
# (register_<lock>_lockstat).  Allowed difference: none.  The class covers
# every instance (every kernfs root), the row only sysfs's; in this guest
# only sysfs is busy during registration, so a difference is a bug.
#
# Usage: tests/guest/lock-test.sh BASELINE_DIR [PATCHED_DIR] [-n BOOTS] [-d DEVICES]
#            [-l LOCKSTAT_DIR]
# Output: ok/not ok lines; exit 1 if anything failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/guest/lib.sh
fb=$PWD/foliobench
boots=3 devices=100 lockstat=
kernels=()
while [ $# -gt 0 ]; do
	case "$1" in
	-n) boots=$2; shift 2 ;;
	-d) devices=$2; shift 2 ;;
	-l) lockstat=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "lock-test: unknown option $1" >&2; exit 2 ;;
	*) kernels+=("$1"); shift ;;
	esac
done
[ ${#kernels[@]} -ge 1 ] || [ -n "$lockstat" ] || { echo "lock-test: need a kernel directory" >&2; exit 2; }
res=$PWD/results/lock-test-$$
mkdir -p "$res"
trap 'rm -rf "$res"' EXIT
fails=0
check() { if "${@:2}"; then ok "$1"; else nok "$1"; fails=$((fails + 1)); fi; }
# a lock row's BPF method: a spinlock's hold starts at fentry, a mutex's and a
# write hold's at fexit (loader/measure/locks.c)
bpf_method() { case $1 in kernfs_idr_lock) echo attached/fentry/cpu ;; *) echo attached/fexit+fentry/lock ;; esac; }

boot() {	# boot KERNEL OUT [PORTS]: one guest, the sysfs workload under every probe
	"$fb" vm --smp 1 --kernel "$1" --results "$res" --timeout 600 \
		--log "$2.console" -- "$fb" run --workload sysfs \
		--param "sysfs.devices=$devices" --param "sysfs.ports=${3:-1}" \
		--out "$2" >"$2.log" 2>&1
}

check_vf() {	# check_vf FILE ARM N PORTS: the VF shape's structure
	local f=$1 arm=$2 n=$3 ports=$4 made glue rg
	made=$(op "$f" sysfs devices_created) glue=$(op "$f" sysfs glue_dirs)
	rg=$(op "$f" sysfs register_gdp_mutex)
	check "$arm boot $n: VF shape: $made devices, each its own glue dir ($glue)" \
		test "$made" = "$devices" -a "$glue" = "$made"
	check "$arm boot $n: VF shape: registration gdp_mutex $rg = devices x ports ($made x $ports) + <= 4" \
		test "$rg" -ge $((made * ports)) -a "$rg" -le $((made * ports + 4))
}

check_counts() {	# check_counts FILE ARM N
	local f=$1 arm=$2 n=$3 w a act idr nn gdp gcalls glue
	w=$(probe "$f" kernfs_rwsem 0) a=$(probe "$f" kernfs_add_one)
	act=$(probe "$f" kernfs_activate) idr=$(op "$f" sysfs register_kernfs_idr_lock)
	nn=$(probe "$f" kernfs_new_node) gdp=$(probe "$f" gdp_mutex 0)
	gcalls=$(probe "$f" get_device_parent) glue=$(op "$f" sysfs glue_dirs)
	echo "# $arm boot $n: rwsem write=$w read=$(probe "$f" kernfs_rwsem 2)" \
		"add_one=$a activate=$act idr=$idr new_node=$nn gdp=$gdp gdp_calls=$gcalls"
	for l in kernfs_rwsem kernfs_idr_lock gdp_mutex; do
		check "$arm boot $n: $l attached with BPF" \
			test "$(status "$f" $l)" = "$(bpf_method $l)"
	done
	check "$arm boot $n: rwsem write holds $w >= add_one $a + activate $act" \
		test "$a" -gt 0 -a "$w" -ge $((a + act))
	if [ "$arm" = baseline ]; then
		check "$arm boot $n: idr lock holds in registration $idr >= new_node $nn" \
			test "$nn" -gt 0 -a "$idr" -ge "$nn"
	else
		check "$arm boot $n: idr lock holds in registration $idr <= new_node $nn / 4 (batched)" \
			test "$nn" -gt 0 -a $((idr * 4)) -le "$nn"
	fi
	check "$arm boot $n: gdp_mutex holds $gdp in [glue dirs $glue, 2 x calls $gcalls]" \
		test "$glue" -gt 0 -a "$gdp" -ge "$glue" -a "$gdp" -le $((2 * gcalls))
	check_phase "$f" "$arm" "$n"
}

check_phase() {	# check_phase FILE ARM N: the registration's own hold histogram
	local f=$1 arm=$2 n=$3 ph rg gate
	ph=$(jq -r '.probes[] | select(.name=="gdp_mutex") | .stats[] |
		select(.name=="hold@register") | .count' "$f")
	rg=$(op "$f" sysfs register_gdp_mutex)
	gate=$(jq -r '.probes[] | select(.name=="gdp_mutex") | .gate // ""' "$f")
	check "$arm boot $n: gdp_mutex hold@register holds ${ph:-none} = registration's $rg, gated on '$gate'" \
		test -n "$ph" -a "$ph" = "$rg" -a "$rg" -gt 0 -a "$gate" = register_hold_cmean
}

arms=(baseline patched)
start=$SECONDS
for k in "${!kernels[@]}"; do
	arm=${arms[$k]}
	for n in $(seq 1 "$boots"); do
		f=$res/$arm-$n.json
		ports=1
		[ "$n" -lt 2 ] || ports=2
		boot "${kernels[$k]}" "$f" "$ports"
		rc=$?
		check "$arm boot $n: sysfs under all lock rows, no oops/splat/hang (vm rc=$rc)" \
			test $rc = 0
		if [ $rc != 0 ] || [ ! -s "$f" ]; then
			tail -20 "$f.log" | sed 's/^/#   /'
			continue
		fi
		check_counts "$f" "$arm" "$n"
		check_vf "$f" "$arm" "$n" "$ports"
	done
done
if [ ${#kernels[@]} -ge 2 ] && [ -s "$res/baseline-1.json" ] && [ -s "$res/patched-1.json" ]; then
	bw=$(op "$res/baseline-1.json" sysfs register_kernfs_rwsem)
	pw=$(op "$res/patched-1.json" sysfs register_kernfs_rwsem)
	nn=$(probe "$res/baseline-1.json" kernfs_new_node)
	check "registration: rwsem write acquisitions baseline $bw - patched $pw = one per node ($nn)" \
		test "$nn" -gt 0 -a $((bw - pw)) = "$nn"
fi
if [ -n "$lockstat" ]; then
	f=$res/lockstat.json
	boot "$lockstat" "$f"
	rc=$?
	check "lockstat kernel: sysfs under all lock rows, no oops/splat/hang (vm rc=$rc)" test $rc = 0
	for l in kernfs_rwsem kernfs_idr_lock gdp_mutex; do
		[ $rc = 0 ] && [ -s "$f" ] || break
		b=$(op "$f" sysfs "register_$l") ls=$(op "$f" sysfs "register_${l}_lockstat")
		check "lockstat kernel: $l attached with BPF" \
			test "$(status "$f" $l)" = "$(bpf_method $l)"
		check "lockstat kernel: $l BPF acquisitions $b = /proc/lock_stat $ls (registration)" \
			test "$b" -gt 0 -a "$b" = "$ls"
	done
fi
echo "# lock-test: $((SECONDS - start)) s for ${#kernels[@]} kernel(s) x $boots boot(s)," \
	"sysfs.devices=$devices"
[ $fails = 0 ]
