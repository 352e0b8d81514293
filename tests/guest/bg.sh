# shellcheck shell=bash
# tests/guest/bg.sh - kernels built in the background; sourced by
# tests/guest/run.sh (from the repository root; logs in $res/bg-NAME.log).
# An icount guest is one TCG thread, so during most guest phases one of
# CI's 2 CPUs idles.  bg_build NAME NICE ARM:FLAVOUR... builds those kernels
# there, one after the other (nice 19 beside the guests; kernel-build.sh
# gives each build directory its own worktree and lock, so a lockstat
# build does not hold up the perf arm switches), bg_wait NAME joins it
# (its kernels are then cached, or the foreground build says why not),
# bg_stop NAME stops it (the budget said no, or this script ends).
# tests/host/bg-test.sh checks these with a stub kernel-build.sh.
# FB_BG_BUILD=0: no background builds (each flavour builds when it starts).
declare -A bg_pid
bg_build() {	# bg_build NAME NICE ARM:FLAVOUR...
	local name=$1 n=$2
	shift 2
	[ "${FB_BG_BUILD:-1}" = 1 ] || return 0
	bg_job "$n" "$@" >/dev/null 2>"$res/bg-$name.log" </dev/null &
	bg_pid[$name]=$!
	echo "# time: $(date -u +%T), building the $name kernels in the background (nice $n): $*"
}
# (a subshell; on SIGTERM it stops the build in progress: kernel-build.sh
# stops its make and compilers)
bg_job() {
	local n=$1 spec child=
	shift
	trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; wait; exit 143' TERM
	for spec; do
		nice -n "$n" scripts/kernel-build.sh "${spec%%:*}" "${spec#*:}" >/dev/null &
		child=$!
		wait "$child" || exit
	done
}
bg_wait() {
	local pid=${bg_pid[$1]:-} t0=$SECONDS rc
	[ -n "$pid" ] || return 0
	kill -0 "$pid" 2>/dev/null && echo "# time: $(date -u +%T), waiting for the $1 kernels' background build"
	wait "$pid"
	rc=$?
	unset "bg_pid[$1]"
	echo "# time: $(date -u +%T), the $1 kernels' background build done (exit $rc, waited $((SECONDS - t0)) s)"
	[ $rc = 0 ] || tail -5 "$res/bg-$1.log" | sed 's/^/#   /'
	return $rc
}
bg_stop() {
	local pid=${bg_pid[$1]:-}
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	unset "bg_pid[$1]"
	echo "# time: $(date -u +%T), the $1 kernels' background build stopped"
}
# bg_eta NAME: seconds left of its build in progress (its last ETA), or nothing
bg_eta() {
	[ -n "${bg_pid[$1]:-}" ] || return 0
	sed -n 's/.* ETA \([0-9]*\)m\([0-9]*\)s$/\1 * 60 + \2/p' "$res/bg-$1.log" 2>/dev/null |
		tail -1 | { read -r e && echo $(( e )); }
}
# bg_stop_all: every build still running (on exit)
bg_stop_all() {
	local n
	for n in "${!bg_pid[@]}"; do bg_stop "$n" >/dev/null; done
}
