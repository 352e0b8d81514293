#!/usr/bin/env bash
# tests/host/stop-test.sh WORKLOAD - stopping a run (issue 14): SIGTERM, SIGHUP and
# SIGINT to the parent, SIGKILL of the parent, and `timeout 5` as the issue
# ran it, each on a long run of WORKLOAD (nft: 1,000,000 descriptors in 2,001
# batches, 27 s on a loaded host; 750,000 in 11 batches took 4.8 s on an
# idle one, inside `timeout 5`; sysfs: 3,000 netdevsim devices, needs netdevsim: a guest).  Each
# must exit 128 + the signal (124 from timeout), write results that say
# "interrupted" (not after SIGKILL), and leave no process, netns, nft table,
# BPF program or netdevsim device of its own within STOP_WAIT s (default 5).
# The BPF programs are found through the parent's fds (/proc/PID/fdinfo
# prog_id) and the netns through the child's /proc/PID/ns/net, so other
# foliobench runs on the same host do not disturb the checks.
set -uo pipefail
. "$(dirname "$0")/lib.sh" stop
wl=${1:-nft}
export STOP_WAIT=${STOP_WAIT:-5}
first=$((60000 + $$ % 1000 * 4000))	# netdevsim ids of this test only
case $wl in
nft)	long=(--workload nft --param nft.descriptors=1000000 --param nft.passes=1000
		--param nft.aborts=1000); pstr=nft.descriptors=1000000 ;;
sysfs)	long=(--workload sysfs --param sysfs.devices=3000 --param sysfs.first_id=$first)
	pstr=sysfs.devices=3000 ;;
*)	echo "usage: stop-test.sh nft|sysfs" >&2; exit 2 ;;
esac
# A long nft run (1,000,000 descriptors: ~27 s here) is stopped while its
# workload child is inside the private netns.  The BPF programs are found
# through the parent's fds (/proc/PID/fdinfo prog_id), the netns through
# the child's /proc/PID/ns/net, so other foliobench runs on this host do not
# disturb the checks.  netdevsim is not in this host kernel: the sysfs
# workload's devices are checked by the guest variant.
bpf_ids() { grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u; }
# waits until the run labelled $1 has a workload child; prints "PARENT CHILD".
# Parent and child by their parent PIDs, not by number: PIDs wrap (pid_max
# 32768 here, and a kernel build forks tens of thousands of processes), and a
# child numbered below its parent was once signalled as "the parent".
wait_child() {
	local i p pp pids parent child
	for ((i = 0; i < 600; i++)); do
		pids=$(pgrep -f -- "^$fb run .*--label $1( |$)" | tr '\n' ' ')
		parent= child=
		for p in $pids; do
			pp=$(awk '{print $4}' /proc/"$p"/stat 2>/dev/null)
			case " $pids " in *" $pp "*) child=$p ;; *) parent=$p ;; esac
		done
		[ -n "$parent" ] && [ -n "$child" ] && { echo "$parent $child"; return 0; }
		sleep 0.1
	done
	return 1
}
# gone LABEL NETNS IDS...: within STOP_WAIT s nothing of the run is left
gone() {
	local label=$1 ns=$2 i left
	shift 2
	for ((i = 0; i < STOP_WAIT * 10; i++)); do
		left=""
		pgrep -f -- "^$fb run .*--label $label( |$)" >/dev/null && left="$left process"
		[ -n "$ns" ] && lsns -t net -n -o NS | grep -qx "$ns" && left="$left netns"
		for id in "$@"; do
			bpftool prog show id "$id" >/dev/null 2>&1 && left="$left bpf-prog-$id"
		done
		nft list tables 2>/dev/null | grep -q ' fb_[ac][0-9]' && left="$left nft-table"
		ls /sys/bus/netdevsim/devices 2>/dev/null | awk -v f="$first" \
			'{ sub("netdevsim", ""); if ($1 >= f && $1 < f + 4000) n++ } END { exit !n }' &&
			left="$left netdevsim"
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "# left behind:$left"
	return 1
}
stop_test() {	# NAME SIGNAL RC: send SIGNAL to the parent only, expect RC
	local name=$wl-$1 sig=$2 want=$3 label=fbsig-$$-$1 pids parent child ns ids rc
	$fb run "${long[@]}" --label "$label" --out "$tmp/$name.json" >"$tmp/$name.out" 2>&1 &
	if ! pids=$(wait_child "$label"); then
		nok "$name: the workload child never started"
		wait
		return
	fi
	read -r parent child <<<"$pids"
	ns=$(readlink /proc/"$child"/ns/net | tr -dc 0-9)
	sleep "${STOP_AFTER:-1}"
	ids=$(bpf_ids "$parent")
	kill -"$sig" "$parent"
	{ wait "$!"; } 2>/dev/null
	rc=$?
	t "$name: exits $want (got $rc); no process, netns, nft table or BPF program ($(wc -w <<<"$ids") held) left within $STOP_WAIT s" \
		bash -c "fb=$fb first=$first; $(declare -f gone); [ $rc = $want ] && gone $label '$ns' $(echo $ids)"
	if [ "$sig" != KILL ]; then
		t "$name: results written, workload 'interrupted', parameters recorded" \
			test "$(jq -r --arg p "$pstr" '[.workloads[0].status, (.params | index($p) != null)] | @tsv' \
				"$tmp/$name.json" 2>/dev/null)" = "interrupted	true"
	fi
}
# STOP_CASES picks cases (default all); STOP_TIMEOUT the timeout(1) length
cases=${STOP_CASES:-sigterm sighup sigint parent-sigkill timeout}
case " $cases " in *" sigterm "*) stop_test sigterm TERM 143 ;; esac
case " $cases " in *" sighup "*) stop_test sighup HUP 129 ;; esac
case " $cases " in *" sigint "*) stop_test sigint INT 130 ;; esac
case " $cases " in *" parent-sigkill "*) stop_test parent-sigkill KILL 137 ;; esac
case " $cases " in *" timeout "*) ;; *) exit 0 ;; esac

# `timeout 5`, as the issue ran it: SIGTERM to the whole process group.
# The workload runs four times over so that the run outlasts the timeout
# on a fast idle machine too (in a CI run on a new machine one nft run
# finished inside `timeout 5`); the netns checked is the one of the last
# workload child seen before the timeout, the results' last workload is
# the one that must say interrupted.
label=fbsig-$$-$wl-timeout
timeout "${STOP_TIMEOUT:-5}" $fb run "${long[@]}" "${long[@]:0:2}" "${long[@]:0:2}" "${long[@]:0:2}" \
	--label "$label" --out "$tmp/timeout.json" >"$tmp/timeout.out" 2>&1 &
tpid=$!
pids=$(wait_child "$label")
read -r parent child <<<"$pids"
ids=$(bpf_ids "${parent:-0}")
# (a child just forked is still in the host's netns until it unshares:
# only a netns other than the host's is the workload's)
ns= hostns=$(readlink /proc/$$/ns/net | tr -dc 0-9)
while kill -0 "$tpid" 2>/dev/null; do
	for c in $(pgrep -f -- "^$fb run .*--label $label( |$)"); do	# any of them, PIDs wrap
		n=$(readlink /proc/"$c"/ns/net 2>/dev/null | tr -dc 0-9)
		[ -n "$n" ] && [ "$n" != "$hostns" ] && ns=$n
	done
	sleep 0.1
done
wait $tpid
rc=$?
t "$wl: timeout ${STOP_TIMEOUT:-5} foliobench run (rc $rc): stopped, nothing left within $STOP_WAIT s, results say interrupted ($(jq -r '[.workloads[].status] | join(",")' "$tmp/timeout.json" 2>/dev/null))" \
	bash -c "fb=$fb first=$first; $(declare -f gone); [ $rc = 124 ] && [ -n '$ns' ] && gone $label '$ns' $(echo $ids) &&
		 [ \"\$(jq -r '.workloads[-1].status' $tmp/timeout.json)\" = interrupted ]"
