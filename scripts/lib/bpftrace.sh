# shellcheck shell=bash
# scripts/lib/bpftrace.sh - sourced by scripts/studies/overhead.sh,
# scripts/studies/peers.sh and tests/guest/bpftrace-test.sh: stopping a
# tracing tool started in the background (bpftrace: its pid in bt_pid).
# The caller defines say().

# sigint_stop PID WHAT: SIGINT, then wait: detaching and printing the maps
# can take minutes under TCG on a busy host; killed after 600 s, with a
# line; returns 1 then (the maps were not printed), 0 otherwise
sigint_stop() {
	local pid=$1 what=$2 i rc=0
	kill -INT "$pid" 2>/dev/null	# timeout passes it on to the tool
	for i in $(seq 1 1200); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 "$pid" 2>/dev/null; then
		say "$what did not exit 600 s after SIGINT: killed (its maps were not printed)"
		rc=1
		pkill -KILL -P "$pid" 2>/dev/null	# the tool, child of timeout
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	return $rc
}

# bt_stop: sigint_stop of the bpftrace in bt_pid; bt_killed=1 if it had to
# be killed
bt_stop() {
	bt_killed=0
	[ -n "${bt_pid:-}" ] || return 0
	sigint_stop "$bt_pid" bpftrace || bt_killed=1
	bt_pid=
}
