#!/usr/bin/env bash
# vm-test.sh - acceptance checks of the `foliobench vm` harness.
#
# Usage: bash tests/guest/vm-test.sh [KERNEL]
#   KERNEL  bzImage or kernel directory (default: the baseline perf kernel,
#           scripts/kernel-build.sh --print baseline perf)
# Env: FOLIOBENCH (default ./foliobench of this repo), FB_VM_ARGS (extra
# `vm` options, e.g. "--accel tcg").
#
# Boots the kernel once per check (about 15 s each under TCG) and prints
# `ok - NAME` / `not ok - NAME`, then `N passed, N failed`; exits 1 if any
# check failed.  Asserts behaviour only, never timing.
set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
fb=${FOLIOBENCH:-$here/foliobench}
kernel=${1:-$("$here/scripts/kernel-build.sh" --print baseline perf)}
read -r -a extra <<<"${FB_VM_ARGS:-}"

[ -x "$fb" ] || { echo "vm-test: $fb not built (make)" >&2; exit 2; }
[ -e "$kernel" ] || { echo "vm-test: no kernel at $kernel" >&2; exit 2; }
[ -d "$kernel" ] && [ ! -f "$kernel/bzImage" ] &&
	{ echo "vm-test: no bzImage in $kernel" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/fb-vm-test.XXXXXX")
res=$work/results	# shared with the guest; under /tmp on purpose
ctl=$work/tmp		# TMPDIR of foliobench: its control dirs go here
mkdir -p "$res" "$ctl"
# Our qemus are the ones serving $res (a fresh mktemp path): kill by pid.
ours() { pgrep -f "path=$res," 2>/dev/null; }
kill_ours() {
	local p
	for p in $(ours); do kill -KILL "$p" 2>/dev/null; done
}
trap 'kill_ours; rm -rf "$work"' EXIT

pass=0 fail=0
out=$work/out err=$work/err

ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() {
	echo "not ok - $1: $2"
	sed 's/^/#   /' "$err" | tail -30
	fail=$((fail + 1))
}

# vm ARGS... : runs foliobench vm, stdout/stderr to $out/$err, status in $rc
vm() {
	(cd "$here" && TMPDIR=$ctl "$fb" vm --kernel "$kernel" --results "$res" \
		"${extra[@]}" "$@") >"$out" 2>"$err"
	rc=$?
}

# Nothing of ours may survive a run: no qemu on our results dir and no
# control directory.
leftovers() {
	local l=""
	[ -n "$(ours)" ] && l="qemu still running"
	[ -z "$(ls -A "$ctl")" ] || l="$l control dir left: $(ls "$ctl")"
	echo "$l"
}

check() {	# NAME CONDITION-DESCRIPTION: evaluates $cond
	local name=$1 why=$2 left
	left=$(leftovers)
	if [ -n "$left" ]; then
		nok "$name" "$left"
		kill_ours
		rm -rf "${ctl:?}"/*
	elif eval "$cond"; then
		ok "$name"
	else
		nok "$name" "$why (exit $rc)"
	fi
}

vm -- true
cond='[ $rc -eq 0 ]'
check "vm -- true exits 0" "expected exit 0"

vm -- sh -c 'exit 3'
cond='[ $rc -eq 3 ]'
check "guest exit 3 is our exit 3" "expected exit 3"

vm -- sh -c 'echo to-stdout; echo to-stderr >&2; printf "%s|" "$@"' x 'a b' "it's" '$HOME'
expect='a b|it'"'"'s|$HOME|'
cond='[ $rc -eq 0 ] && grep -qx "to-stdout" "$out" && grep -qxF -- "$expect" "$out" && grep -qx "to-stderr" "$err"'
check "stdout/stderr relayed, argv passed verbatim" "output not as expected: $(head -c 300 "$out")"

export FB_VMTEST_TOKEN="tok $$"
vm -- sh -c 'echo hi > "$RESULTS/x"; pwd > "$RESULTS/cwd"; echo "$FB_VMTEST_TOKEN" > "$RESULTS/env"; [ "$HOME" = /tmp ] && touch /tmp/w && ! touch /etc/fb-ro 2>/dev/null'
cond='[ $rc -eq 0 ] && [ "$(cat "$res/x" 2>/dev/null)" = hi ] && [ "$(cat "$res/cwd" 2>/dev/null)" = "$here" ] && [ "$(cat "$res/env" 2>/dev/null)" = "$FB_VMTEST_TOKEN" ]'
check "results dir shared back, cwd and FB_* env kept, root read-only, tmpfs /tmp" "expected $res/x = hi, cwd $here, FB_VMTEST_TOKEN"

vm -- sh -c 'echo c > /proc/sysrq-trigger'
cond='[ $rc -eq 125 ] && grep -q "Kernel panic" "$err" && grep -q "console excerpt" "$err"'
check "guest panic fails with an excerpt" "expected exit 125 and the panic excerpt"

vm -- sh -c 'echo "WARNING: CPU: 0 PID: 1 at foliobench-test" > /dev/kmsg'
cond='[ $rc -eq 125 ] && grep -q "foliobench-test" "$err"'
check "WARNING in the kernel log fails" "expected exit 125"

vm --allow 'foliobench-test' -- sh -c 'echo "WARNING: CPU: 0 PID: 1 at foliobench-test" > /dev/kmsg'
cond='[ $rc -eq 0 ]'
check "--allow tolerates a matching splat" "expected exit 0"

vm --timeout 20 -- sleep 1000
cond='[ $rc -eq 124 ] && grep -qi "timeout" "$err"'
check "hang past --timeout is killed and reported" "expected exit 124 and a timeout message"

# SIGTERM to foliobench: qemu must go too.
(cd "$here" && TMPDIR=$ctl exec "$fb" vm --kernel "$kernel" --results "$res" \
	"${extra[@]}" -- sleep 1000) >"$out" 2>"$err" &
fbpid=$!
for _ in $(seq 100); do
	[ -n "$(ours)" ] && break
	sleep 0.1
done
sleep 2
kill -TERM $fbpid
wait $fbpid
rc=$?
cond='[ $rc -eq 130 ]'
check "SIGTERM kills the guest" "expected exit 130"

vm --kernel /nonexistent/bzImage -- true
cond='[ $rc -eq 126 ]'
check "a missing kernel is exit 126" "expected exit 126"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
