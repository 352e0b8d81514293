#!/bin/sh
# guest-init.sh - PID 1 of a `foliobench vm` guest (see loader/vm.c).
#
# The kernel mounts the host's root read-only over 9p (tag fbroot) and runs
# this script as init.  It mounts the usual pseudo filesystems and tmpfs
# /tmp, /run, /var/tmp, the control share (tag fbctl) and the results share
# (tag fbres, at the same absolute path as on the host), then runs the
# command of $ctl/job with stdout/stderr on the virtio-serial ports fb.out
# and fb.err (relayed by the host), writes its exit status to $ctl/rc and
# powers the guest off.  Everything it says goes to the console (ttyS0),
# which the host keeps as the console log.  It must never exit: init
# exiting panics the kernel.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TERM=dumb
umask 022
ctl=/run/foliobench/ctl
host=/run/foliobench/host
p9="trans=virtio,version=9p2000.L,msize=512000"

say() {
	local up
	read -r up _ </proc/uptime 2>/dev/null
	echo "guest-init: [${up:-?}] $*"
}

# Power off (ACPI) or reboot (qemu runs with -no-reboot, so either ends
# it).  The sysrq trigger is immediate; poweroff/reboot -ff are fallbacks.
off() {
	sync
	if [ -d /sys/firmware/acpi ]; then
		echo o >/proc/sysrq-trigger 2>/dev/null
		{ sleep 3; poweroff -ff; } >/dev/null 2>&1
	fi
	echo b >/proc/sysrq-trigger 2>/dev/null
	{ sleep 1; reboot -ff; } >/dev/null 2>&1
	while :; do { sleep 60; } 2>/dev/null; done
}

# Setup failed: tell the host (if the control share is there) and stop.
fail() {
	say "error: $*"
	[ -d "$ctl" ] && echo "$*" >"$ctl/setup-error" 2>/dev/null
	off
}

# Shell builtins only where it is cheap: every exec costs ~60 ms under TCG.
mounted() {
	local _d m _r
	while read -r _d m _r; do
		[ "$m" = "$1" ] && return 0
	done </proc/mounts
	return 1
}

mount -t proc proc /proc || fail "cannot mount /proc"
mounted /sys || mount -t sysfs sysfs /sys || fail "cannot mount /sys"
mounted /dev || mount -t devtmpfs devtmpfs /dev || fail "cannot mount /dev"
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
mount -t tmpfs -o mode=755 run /run || fail "cannot mount /run"
mkdir -p "$ctl" "$host/tmp" "$host/var/tmp"
# Keep the host's /tmp and /var/tmp reachable (read-only) before hiding
# them under tmpfs: the caller's cwd may be there.
mount --bind /tmp "$host/tmp"
mount --bind /var/tmp "$host/var/tmp"
mount -t tmpfs -o mode=1777 tmp /tmp || fail "cannot mount /tmp"
mount -t tmpfs -o mode=1777 vartmp /var/tmp || fail "cannot mount /var/tmp"
mounted /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mounted /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t bpf -o mode=700 bpf /sys/fs/bpf 2>/dev/null
[ -d /sys/fs/cgroup ] && mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
ip link set lo up 2>/dev/null

say "mounted pseudo filesystems"
mount -t 9p -o "$p9" fbctl "$ctl" || fail "cannot mount the control share"
[ -r "$ctl/job" ] || fail "no job file in the control share"
# job sets FB_CWD, FB_RESULTS, exports FB_* and sets the positional args.
. "$ctl/job"

# A host path hidden by one of our tmpfs mounts: recreate it and bind the
# host's copy over it.
unhide() {
	[ -d "$1" ] && return 0
	case $1 in
	/tmp/* | /var/tmp/*)
		mkdir -p "$1" && mount --bind "$host$1" "$1" ;;
	*) return 1 ;;
	esac
}

case $FB_RESULTS in
/tmp/* | /var/tmp/*) mkdir -p "$FB_RESULTS" ;;
esac
mount -t 9p -o "$p9,cache=none" fbres "$FB_RESULTS" ||
	fail "cannot mount the results share at $FB_RESULTS"
unhide "$FB_CWD" || fail "working directory $FB_CWD does not exist in the guest"
cd "$FB_CWD" || fail "cannot cd to $FB_CWD"
export RESULTS="$FB_RESULTS" FB_RESULTS

say "mounted shares"
# The relay ports; they can show up a little after init starts.
out= err= i=0
while [ $i -lt 100 ]; do
	for p in /sys/class/virtio-ports/*; do
		[ -r "$p/name" ] || continue
		case $(cat "$p/name") in
		fb.out) out=/dev/${p##*/} ;;
		fb.err) err=/dev/${p##*/} ;;
		esac
	done
	[ -c "$out" ] && [ -c "$err" ] && break
	sleep 0.1
	i=$((i + 1))
done
[ -c "$out" ] && [ -c "$err" ] || fail "virtio-serial ports fb.out/fb.err not found"

read -r up _ </proc/uptime
echo "$up" >"$ctl/started"
say "command started at ${up}s"
"$@" <"/dev/null" >"$out" 2>"$err"
rc=$?
read -r up _ </proc/uptime
say "command exited $rc at ${up}s"
echo "$rc" >"$ctl/rc.tmp" && mv "$ctl/rc.tmp" "$ctl/rc"
off
