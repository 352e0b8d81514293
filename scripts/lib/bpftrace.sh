# shellcheck shell=bash
# scripts/lib/bpftrace.sh - sourced by scripts/studies/overhead.sh and
# tests/guest/bpftrace-test.sh: stopping a bpftrace started in the
# background (its pid in bt_pid).  The caller defines say().

# bt_stop: SIGINT, then wait: detaching and printing the maps can take
# minutes under TCG on a busy host; killed after 600 s, with a line, and
# then bt_killed=1 (its maps were not printed)
bt_stop() {
	local i
	bt_killed=0
	[ -n "${bt_pid:-}" ] || return 0
	kill -INT "$bt_pid" 2>/dev/null
	for i in $(seq 1 1200); do
		kill -0 "$bt_pid" 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 "$bt_pid" 2>/dev/null; then
		say "bpftrace did not exit 600 s after SIGINT: killed"
		bt_killed=1
		pkill -KILL -P "$bt_pid" 2>/dev/null	# bpftrace, child of timeout
		kill -KILL "$bt_pid" 2>/dev/null
	fi
	wait "$bt_pid" 2>/dev/null
	bt_pid=
}
