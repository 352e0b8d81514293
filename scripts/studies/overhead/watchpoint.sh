#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# watchpoint.sh OUT: lock rows by hardware watchpoint instead of by lock
# function, measured (reports/overhead/lock-rows.md, "Fourth pass").
# A data watchpoint (perf breakpoint event) on the lock word traps only
# when that one instance is written, so it costs nothing on every other
# acquisition of every other lock, where the lock-function trampolines
# cost +17% of the sysfs run.  It costs a debug exception per write of the
# watched word instead.  Run in an icount guest from the repository root:
#
#   ./foliobench vm --smp 1 --clock icount --kernel KERNEL --results OUT \
#       --timeout 3000 -- bash scripts/studies/overhead/watchpoint.sh OUT
#
# Sets, interleaved, 2 reps: no probe; bpftrace watchpoints on the three
# lock words with a count-only program (the floor of any watchpoint
# method: the trap and the dispatch); the same with a program that reads
# the word and keeps a start time per task (what a hold needs); foliobench's
# lock rows; the same with empty programs (FB_ABLATE=empty, the trampolines
# alone).  Prints one line per run: wall_ns, create/remove wall and busy
# (us), the registration's acquisitions, and the bpftrace maps.
set -u
out=${1:?usage: watchpoint.sh OUT}
mkdir -p "$out" || exit 2
fb=./foliobench NONE=__no_probe__
say() { echo "watchpoint: $*"; }
# the sysfs root's kernfs_root (offsets from this kernel's BTF) and gdp_mutex
off() { bpftool btf dump file /sys/kernel/btf/vmlinux format raw |
	awk -v m="'$1'" '/STRUCT .kernfs_root. /{ s = 1; next } s && /^\[/{ exit }
		s && $1 == m { sub("bits_offset=", "", $3); print $3 / 8; exit }'; }
root=$(bpftrace -e 'BEGIN { printf("R %lx\n", *(uint64 *)kaddr("sysfs_root")); exit(); }' 2>&1 |
	awk '/^R / { print $2 }')
gdp=$(awk '$3 == "gdp_mutex" { print $1 }' /proc/kallsyms)
rwo=$(off kernfs_rwsem) idro=$(off kernfs_idr_lock)
[ -n "$root" ] && [ -n "$gdp" ] && [ -n "$rwo" ] && [ -n "$idro" ] ||
	{ say "cannot resolve the lock addresses (root '$root' gdp '$gdp')"; exit 1; }
rw=$(printf '%x' $((0x$root + rwo))) idr=$(printf '%x' $((0x$root + idro)))
say "kernfs_rwsem $rw kernfs_idr_lock $idr gdp_mutex $gdp"
bt=
trap '[ -n "$bt" ] && kill -INT $bt 2>/dev/null' EXIT
run() {	# NAME PROGRAM-or-"" FOLIOBENCH-RUN-ARGS...
	local name=$1 prog=$2 i
	shift 2
	bt=
	if [ -n "$prog" ]; then
		__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 setsid bpftrace -e "$prog" >"$out/$name.bt" 2>&1 &
		bt=$!
		for i in $(seq 1 600); do
			grep -q ATTACHED "$out/$name.bt" && break
			kill -0 $bt 2>/dev/null || break
			sleep 0.5
		done
		grep -q ATTACHED "$out/$name.bt" ||
			{ say "$name: bpftrace did not attach: $(head -3 "$out/$name.bt")"; return; }
	fi
	$fb run --out "$out/$name.json" --workload sysfs "$@" >"$out/$name.log" 2>&1
	[ -n "$bt" ] && { kill -INT $bt; wait $bt; }
	bt=
	say "$name: $(jq -r '.workloads[] | select(.name=="sysfs") | [.wall_ns,
		.ops.create_wall_us, .ops.remove_wall_us, .ops.create_busy_us, .ops.remove_busy_us,
		.ops.register_kernfs_rwsem, .ops.register_kernfs_idr_lock, .ops.register_gdp_mutex] |
		map(tostring) | join(" ")' "$out/$name.json") $(grep -h '^@' "$out/$name.bt" 2>/dev/null | tr '\n' ' ')"
	sleep 2	# the private netns goes away asynchronously
}
count="watchpoint:0x$rw:8:w { @rw = count(); } watchpoint:0x$idr:4:w { @idr = count(); }
	watchpoint:0x$gdp:8:w { @gdp = count(); }"
# the word after the write says acquire or release (rwsem bit 0: writer;
# qspinlock byte 0: locked; mutex: an owner); a start time per task
hold="watchpoint:0x$rw:8:w { @rw[*(uint64 *)0x$rw & 1] = count(); @t[tid] = nsecs; }
	watchpoint:0x$idr:4:w { @idr[*(uint32 *)0x$idr & 0xff] = count(); @t[tid] = nsecs; }
	watchpoint:0x$gdp:8:w { @gdp[*(uint64 *)0x$gdp != 0] = count(); @t[tid] = nsecs; }"
locks=(--probes kernfs_rwsem --probes kernfs_idr_lock --probes gdp_mutex)
for rep in 1 2; do
	run none-$rep "" --probes $NONE
	run wp-count-$rep "$count" --probes $NONE
	run wp-hold-$rep "$hold" --probes $NONE
	run locks-$rep "" "${locks[@]}"
	FB_ABLATE=empty run locks-empty-$rep "" "${locks[@]}"
done
say "done: $out"
