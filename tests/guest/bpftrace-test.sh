#!/usr/bin/env bash
# bpftrace-test.sh - cross-check scripts/bpftrace/*.bt against `foliobench run`.
#
# Runs INSIDE a guest booted on a foliobench kernel (perf or lockstat
# flavour; see `./foliobench vm`), as root, from the repository root, with
# ./foliobench already built.  For each script: start it in the background
# (bounded by a timeout), run the matching workload with
#   ./foliobench run --workload W --param ... --out F
# while it is attached, stop it with SIGINT, and check that every
# `@count[PROBE]: N` line it printed equals foliobench's count for PROBE in
# F (.probes[] | select(.name == PROBE) | .stats[].count: latency, else
# wait, then hold).  A script that fails to attach, prints no count, or disagrees
# fails.  A script whose probe foliobench itself reports unavailable on this
# kernel, and which also cannot attach, is skipped (e.g. the lockdep script
# on a kernel without the lockdep patches).
#
# Only the kfunc (fentry) scripts are run: foliobench attaches fentry to
# the same functions, and a kprobe together with a trampoline on one
# function crashed a 7.3.4 guest.  The *-kprobe.bt fallbacks are not
# exercised here.
#
# Usage: tests/guest/bpftrace-test.sh [-v] [--only SCRIPT] [--devices N]
#            [--descriptors N] [--timeout SECONDS]
#   --devices N       sysfs.devices for the sysfs workload (default 16)
#   --descriptors N   nft.descriptors for the nft workload (default 1000)
#   --only SCRIPT     run one script (name without .bt); repeatable
#   --timeout S       bound on each script's lifetime (default 600)
#   -v                show bpftrace and foliobench output
# Output: `ok - NAME` / `not ok - NAME` lines (skips as `ok - NAME # SKIP`),
# then `N passed, N failed`; exit status 1 if anything failed.
set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
bt_dir=$here/scripts/bpftrace
fb=$here/foliobench
devices=16 descriptors=1000 tmo=600 verbose=0
only=()

while [ $# -gt 0 ]; do
	case "$1" in
	--devices) devices=$2; shift 2 ;;
	--descriptors) descriptors=$2; shift 2 ;;
	--only) only+=("$2"); shift 2 ;;
	--timeout) tmo=$2; shift 2 ;;
	-v) verbose=1; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "bpftrace-test: unknown argument $1" >&2; exit 2 ;;
	esac
done

# script | workload | probes its @count lines must match
cases=(
	"nft_trans_alloc|nft|nft_trans_alloc"
	"nft_trans_destroy|nft|nf_tables_trans_destroy_work"
	"kernfs_new_node|sysfs|kernfs_new_node"
	"kernfs_add_one|sysfs|kernfs_add_one"
	"kernfs_activate|sysfs|kernfs_activate"
	"get_device_parent|sysfs|get_device_parent gdp_mutex"
	"kernfs_rwsem|sysfs|kernfs_rwsem"
	"kernfs_idr_lock|sysfs|kernfs_idr_lock"
	"lockdep_list_entry|lockdep|lockdep_list_entry_alloc"
)

pass=0 fail=0 skip=0
work=$(mktemp -d "${TMPDIR:-/tmp}/bpftrace-test.XXXXXX")
bt_pid=
cleanup() {
	[ -n "$bt_pid" ] && kill -INT "$bt_pid" 2>/dev/null && sleep 2 && kill -KILL "$bt_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { echo "# $*"; }
show() { [ $verbose = 1 ] && sed 's/^/#   /' "$1"; return 0; }

preflight() {
	local why=
	[ "$(id -u)" = 0 ] || why="not root"
	command -v bpftrace >/dev/null || why="bpftrace not installed"
	command -v jq >/dev/null || why="jq not installed"
	[ -x "$fb" ] || why="$fb not built (run make on the host first)"
	[ -r /sys/kernel/btf/vmlinux ] || why="kernel has no BTF"
	if [ -n "$why" ]; then
		echo "bpftrace-test: cannot run: $why" >&2
		exit 2
	fi
	# bpftrace reads available_filter_functions for kfunc probes.
	[ -r /sys/kernel/tracing/available_filter_functions ] ||
		mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/debug/tracing ] ||
		mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	ulimit -l unlimited 2>/dev/null
	say "kernel $(uname -r), $(bpftrace --version)"
}

params_for() {
	case "$1" in
	nft) echo "--param nft.descriptors=$descriptors" ;;
	sysfs) echo "--param sysfs.devices=$devices" ;;
	*) echo "" ;;
	esac
}

# fb_count JSON PROBE -> the probe's count: its "latency" stat for
# functions, its "wait" stat for locks (one per completed acquisition, as
# the scripts count), else "status:<status>" if it has no stats.
fb_count() {
	jq -r --arg p "$2" '
	  [.probes[] | select(.name == $p)] | first //
	    {status: "missing"} |
	  if (.stats // [] | length) > 0 then
	    ([.stats[] | select(.name == "latency")] +
	     [.stats[] | select(.name == "wait")] +
	     [.stats[] | select(.name == "hold")] + .stats) | first | .count
	  else "status:" + (.status // "none") end' "$1"
}

fb_status() {
	jq -r --arg p "$2" '[.probes[] | select(.name == $p)] | first // {} |
	  (.status // "missing") + (if .reason then " (" + .reason + ")" else "" end)' "$1"
}

run_case() {
	local script=$1 wl=$2 probes=$3
	local log=$work/$script.log out=$work/$script.json fblog=$work/$script.fb.log
	local bt=$bt_dir/$script.bt
	local attached=0 i rc msg= p bc fc st

	if [ ! -f "$bt" ]; then
		echo "not ok - $script # no $bt"; fail=$((fail + 1)); return
	fi
	say "$script: bpftrace $bt, then foliobench run --workload $wl $(params_for "$wl")"

	# setsid: a Ctrl-C at the terminal must not reach bpftrace early.
	setsid timeout -s INT -k 10 "$tmo" bpftrace "$bt" >"$log" 2>&1 &
	bt_pid=$!
	for i in $(seq 1 240); do		# attach can take a while under TCG
		grep -q '^Tracing ' "$log" && { attached=1; break; }
		kill -0 "$bt_pid" 2>/dev/null || break
		sleep 0.5
	done
	if [ $attached = 0 ]; then
		kill -INT "$bt_pid" 2>/dev/null; wait "$bt_pid" 2>/dev/null; bt_pid=
		# Not attached: fine only if foliobench cannot attach this probe either.
		"$fb" run --workload "$wl" $(params_for "$wl") --out "$out" >"$fblog" 2>&1
		st=
		for p in $probes; do
			[ -s "$out" ] && st="$st $p: $(fb_status "$out" "$p");"
		done
		show "$log"
		if [ -s "$out" ] && ! grep -q ': attached' <<<"$st"; then
			echo "ok - $script # SKIP not attachable here, and foliobench:$st"
			skip=$((skip + 1))
		else
			echo "not ok - $script # bpftrace did not attach: $(grep -m1 -i error "$log")"
			[ -n "$st" ] && say "foliobench:$st"
			fail=$((fail + 1))
		fi
		return
	fi
	sleep 1

	"$fb" run --workload "$wl" $(params_for "$wl") --out "$out" >"$fblog" 2>&1
	rc=$?
	kill -INT "$bt_pid" 2>/dev/null
	for i in $(seq 1 120); do
		kill -0 "$bt_pid" 2>/dev/null || break
		sleep 0.5
	done
	kill -KILL "$bt_pid" 2>/dev/null
	wait "$bt_pid" 2>/dev/null
	bt_pid=
	show "$log"
	[ $verbose = 1 ] && show "$fblog"

	if [ $rc != 0 ] || [ ! -s "$out" ]; then
		echo "not ok - $script # foliobench run failed (rc $rc): $(tail -n1 "$fblog")"
		fail=$((fail + 1)); return
	fi
	for p in $probes; do
		bc=$(sed -n "s/^@count\[$p\]: \([0-9][0-9]*\)$/\1/p" "$log" | tail -n1)
		fc=$(fb_count "$out" "$p")
		if [ -z "$bc" ]; then
			msg="$msg $p: no @count line from bpftrace;"
		elif [ "$bc" != "$fc" ]; then
			msg="$msg $p: bpftrace $bc, foliobench $fc;"
		else
			say "$p: bpftrace $bc = foliobench $fc"
		fi
	done
	if [ -z "$msg" ]; then
		echo "ok - $script"; pass=$((pass + 1))
	else
		echo "not ok - $script #$msg"; fail=$((fail + 1))
	fi
}

preflight
for c in "${cases[@]}"; do
	IFS='|' read -r script wl probes <<<"$c"
	if [ ${#only[@]} -gt 0 ]; then
		case " ${only[*]} " in *" $script "*) ;; *) continue ;; esac
	fi
	run_case "$script" "$wl" "$probes"
done

[ $skip -gt 0 ] && say "$skip skipped (counted as passed)"
echo "$((pass + skip)) passed, $fail failed"
[ $fail = 0 ]
