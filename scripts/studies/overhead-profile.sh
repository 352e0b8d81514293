#!/usr/bin/env bash
# overhead-profile.sh OUTDIR [--wl W] [--sets "LIST"] [--freq HZ] - where the
# observer's cost goes: the kernel's own profile of one workload run per row
# set, sampled by perf (cpu-clock, every CPU, no BPF), so that the time the
# lock rows add (reports/overhead/lock-rows.md) can be found by function.
#
# Runs INSIDE a guest, as root, from the repository root (./foliobench built):
#
#   ./foliobench vm --clock icount --kernel DIR --results OUTDIR -- \
#       bash scripts/studies/overhead-profile.sh OUTDIR
#
# Under --clock icount the cpu-clock samples fall every 1/HZ of guest time,
# that is every N instructions, so the sample counts per function are
# instruction shares and do not move with the host's load.
# Sets (--sets, default "none locks locks-empty"): none = no row attached,
# locks = the three lock rows, locks-empty = the same with empty programs
# (FB_ABLATE=empty), all = every row.  Per set: OUTDIR/SET.perf.data,
# OUTDIR/SET.syms.txt and SET.comms.txt (samples by symbol and by task),
# OUTDIR/SET.json (foliobench's results, with the workload's phases).
# FB=path overrides ./foliobench.
set -uo pipefail
cd "$(dirname "$0")/../.."
fb=${FB:-$PWD/foliobench}
out=${1:?usage: overhead-profile.sh OUTDIR [--wl W] [--sets LIST] [--freq HZ]}
shift
wl=sysfs sets="none locks locks-empty" freq=10000
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || { echo "overhead-profile.sh: $1 needs a value" >&2; exit 2; }
	case "$1" in
	--wl) wl=$2 ;;
	--sets) sets=$2 ;;
	--freq) freq=$2 ;;
	*) echo "overhead-profile.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift 2
done
[[ $freq =~ ^[1-9][0-9]{1,5}$ ]] || { echo "overhead-profile.sh: --freq takes 10-999999, not '$freq'" >&2; exit 2; }
for s in $sets; do
	case "$s" in none|locks|locks-empty|all) ;;
	*) echo "overhead-profile.sh: unknown set '$s' (none locks locks-empty all)" >&2; exit 2 ;;
	esac
done
command -v perf >/dev/null || { echo "overhead-profile.sh: perf not found (linux-perf)" >&2; exit 2; }
mkdir -p "$out" || exit 1
sysctl -qw kernel.kptr_restrict=0 kernel.perf_event_paranoid=-1
locks=(--probes kernfs_rwsem --probes kernfs_idr_lock --probes gdp_mutex)
for s in $sets; do
	args=() abl=
	case "$s" in
	none) args=(--probes __no_probe__) ;;
	locks) args=("${locks[@]}") ;;
	locks-empty) args=("${locks[@]}") abl=empty ;;
	esac
	# perf samples the workload's window only: from "running" (every row
	# attached, programs verified) to the run's end
	FB_ABLATE=$abl "$fb" run --workload "$wl" --out "$out/$s.json" "${args[@]}" >"$out/$s.log" 2>&1 &
	fbpid=$!
	until grep -q "workload $wl: running" "$out/$s.log" || ! kill -0 $fbpid 2>/dev/null; do
		sleep 0.02
	done
	# recorded on the guest's own /tmp (perf rewrites its header at the
	# end, which the 9p results share did not keep), copied after
	perf record -a -e cpu-clock -F "$freq" -o "/tmp/$s.perf.data" 2>"$out/$s.perf.log" &
	perfpid=$!
	until grep -q "workload $wl: [a-z]* in " "$out/$s.log" || ! kill -0 $fbpid 2>/dev/null; do
		sleep 0.02
	done
	kill -INT $perfpid; wait $perfpid
	wait $fbpid
	echo "# $s: rc $?, wall $(jq -r ".workloads[] | select(.name==\"$wl\") | .wall_ns" "$out/$s.json" 2>/dev/null) ns" >&2
	perf report -q -i "/tmp/$s.perf.data" --stdio --sort sym 2>>"$out/$s.perf.log" |
		sed 's/^ *//' | head -80 >"$out/$s.syms.txt"
	perf report -q -i "/tmp/$s.perf.data" --stdio --sort comm 2>>"$out/$s.perf.log" |
		sed 's/^ *//' | head -20 >"$out/$s.comms.txt"
	cp "/tmp/$s.perf.data" "$out/" && rm -f "/tmp/$s.perf.data"
	sleep 2
done
