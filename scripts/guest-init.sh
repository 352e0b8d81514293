#!/bin/sh
# guest-init.sh - PID 1 of a `foliobench vm` guest (see loader/guest/vm.c).
#
# The kernel mounts the host's root read-only over 9p (tag fbroot) and runs
# this script as init (init=/bin/sh -- <this file>).  It mounts the usual
# pseudo filesystems and tmpfs /tmp, /run, /var/tmp, the control share (tag
# fbctl) and the results share (tag fbres, at the same absolute path as on
# the host), then runs the command of $ctl/job with stdout/stderr on the
# virtio-serial ports fb.out and fb.err (relayed by the host), writes its
# exit status to $ctl/rc and powers the guest off.  Everything it says goes
# to the console (ttyS0), which the host keeps as the console log.  It must
# never exit: init exiting panics the kernel.
#
# Every exec costs 0.1-0.5 s under TCG (binaries and libraries come over
# 9p), so this uses shell builtins where it can and one `mount -a` for all
# the fixed mounts.
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

mounted() {
	local _d m _r
	while read -r _d m _r; do
		[ "$m" = "$1" ] && return 0
	done </proc/mounts
	return 1
}

mount -t proc proc /proc || fail "cannot mount /proc"
mount -t tmpfs -o mode=755 run /run || fail "cannot mount /run"
# The rest in one exec, in order; already mounted ones (devtmpfs) are
# skipped.  The host's /tmp and /var/tmp stay reachable under $host before
# tmpfs hides them: the caller's cwd may be there.  (libmount cannot read
# an fstab from a pipe, hence the file.)
cat_fstab() {
	echo "sysfs    /sys                sysfs    nosuid,nodev,noexec 0 0"
	echo "devtmpfs /dev                devtmpfs nosuid 0 0"
	echo "devpts   /dev/pts            devpts   X-mount.mkdir,gid=5,mode=620,ptmxmode=666 0 0"
	echo "shm      /dev/shm            tmpfs    X-mount.mkdir,mode=1777 0 0"
	echo "/tmp     $host/tmp           none     bind,X-mount.mkdir 0 0"
	echo "/var/tmp $host/var/tmp       none     bind,X-mount.mkdir 0 0"
	echo "tmp      /tmp                tmpfs    mode=1777 0 0"
	echo "vartmp   /var/tmp            tmpfs    mode=1777 0 0"
	echo "tracefs  /sys/kernel/tracing tracefs  defaults 0 0"
	echo "debugfs  /sys/kernel/debug   debugfs  defaults 0 0"
	echo "bpf      /sys/fs/bpf         bpf      mode=700 0 0"
	echo "cgroup2  /sys/fs/cgroup      cgroup2  defaults 0 0"
	echo "fbctl    $ctl                9p       X-mount.mkdir,$p9 0 0"
}
cat_fstab >/run/foliobench.fstab
mount -a -T /run/foliobench.fstab
for m in /sys /dev /run /tmp /var/tmp "$ctl"; do
	mounted "$m" || fail "cannot mount $m"
done
say "mounted pseudo filesystems and the control share"
ip link set lo up 2>/dev/null

[ -r "$ctl/job" ] || fail "no job file in the control share"
# job sets FB_CWD, FB_RESULTS, exports FB_* and sets the positional args.
. "$ctl/job"

# A directory hidden by one of our tmpfs mounts: bind the host's copy,
# before the results share, which may lie inside it (a clone under /tmp
# writing to its own results/); unless it is inside the results share.
# Two can be: this checkout (its foliobench, which `ab` runs in the guest)
# and the cwd, which need not be inside it (`ab --arm` from a user's tree
# under /tmp, as the GitLab job of docs/ci does).
hidden() {
	case $1/ in
	"$FB_RESULTS"/*) return 1 ;;
	/tmp/* | /var/tmp/*) return 0 ;;
	esac
	return 1
}
unhide() {
	mount --bind -o X-mount.mkdir "$host$1" "$1" || fail "cannot bind the host's $1"
}
repo=${0%/scripts/guest-init.sh}
[ "$repo" != "$0" ] && hidden "$repo" && unhide "$repo"
case $FB_CWD/ in
"$repo"/*) [ "$repo" != "$0" ] || { hidden "$FB_CWD" && unhide "$FB_CWD"; } ;;
*) hidden "$FB_CWD" && unhide "$FB_CWD" ;;
esac
mount -t 9p -o "X-mount.mkdir,$p9,cache=none" fbres "$FB_RESULTS" ||
	fail "cannot mount the results share at $FB_RESULTS"
cd "$FB_CWD" || fail "working directory $FB_CWD does not exist in the guest"
export RESULTS="$FB_RESULTS" FB_RESULTS

# The relay ports; they can show up a little after init starts.
out= err= i=0
while [ $i -lt 100 ]; do
	for p in /sys/class/virtio-ports/*; do
		[ -r "$p/name" ] || continue
		read -r name <"$p/name"
		case $name in
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
say "command started"
"$@" <"/dev/null" >"$out" 2>"$err"
rc=$?
say "command exited $rc"
# The host reads rc only once qemu is gone: no need for a rename.
echo "$rc" >"$ctl/rc"
off
