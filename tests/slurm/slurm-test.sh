#!/usr/bin/env bash
# tests/slurm/slurm-test.sh - scripts/slurm/ on a real single-node Slurm: munged,
# slurmctld and slurmd from Debian (scripts/deps.sh), started here with a
# throw-away configuration and key under a temporary directory (loopback
# ports only), and stopped again, whatever happens (trap).
#
# scripts/slurm/submit.sh --skip-build -n 2 -p 1 -- --rounds 4 --workload nft
# --baseline baseline --patched baseline: an array of 2 shards, each
# booting 2 rounds of each arm (8 icount guests, one shard at a time), then
# the dependent merge + gate job.  Checks: both shards completed, each with
# its own rounds; the merged directory holds exactly the shards' rounds,
# byte for byte; the kernel build id in ab.json is the vmlinux's and the one
# the guests report; the rounds name the machine; gate on the merge gives
# the verdict (lines and exit code) of gate on one directory of the same
# rounds, and the merge job's exit code is that verdict; nothing we started
# is left running.  Needs the baseline perf kernel in the cache: this test
# never builds one.
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
repo=$PWD
export FB=$repo/foliobench FB_REPO=$repo
. tests/host/lib-rounds.sh

ok() { echo "ok - slurm: $*"; }
nok() { echo "not ok - slurm: $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; fi; }

for b in munged mungekey slurmctld slurmd sbatch scontrol squeue scancel sinfo jq readelf; do
	if ! command -v "$b" >/dev/null; then
		nok "$b not installed (make deps)"
		exit 0
	fi
done
kdir=$(scripts/kernel-build.sh --print baseline perf)
if [ ! -f "$kdir/bzImage" ]; then
	nok "no baseline perf kernel in $kdir (the guest group builds it; this test does not)"
	exit 0
fi

T=$(mktemp -d /tmp/fb-slurm-test.XXXXXX)
chmod 755 "$T"
export SLURM_CONF=$T/slurm.conf
jobs="" stopped=0

pid_of() { cat "$T/$1.pid" 2>/dev/null; }
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

# Processes started under this test's Slurm (jobs, ab, qemu, slurmstepd): they
# carry our SLURM_CONF in their environment.  Not this shell.
ours() {
	local p e
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" = $$ ] || [ "$p" = "$BASHPID" ] && continue
		# builtins only: a child of ours would carry SLURM_CONF too
		while IFS= read -r -d '' e; do
			[ "$e" = "SLURM_CONF=$SLURM_CONF" ] && echo "$p" && break
		done 2>/dev/null <"/proc/$p/environ"
	done
}

stop_all() {
	local i p
	[ $stopped = 1 ] && return
	stopped=1
	if [ -n "$jobs" ]; then
		scancel $jobs 2>/dev/null
		for ((i = 0; i < 60 && $(squeue -h 2>/dev/null | wc -l) > 0; i++)); do sleep 1; done
	fi
	alive "$(pid_of slurmctld)" && scontrol shutdown >/dev/null 2>&1
	for ((i = 0; i < 30; i++)); do
		alive "$(pid_of slurmctld)" || alive "$(pid_of slurmd)" || break
		sleep 1
	done
	for p in slurmctld slurmd munged; do alive "$(pid_of $p)" && kill "$(pid_of $p)"; done
	sleep 1
	for p in $(ours); do kill -TERM "$p" 2>/dev/null; done
	sleep 2
	for p in slurmctld slurmd munged; do alive "$(pid_of $p)" && kill -KILL "$(pid_of $p)"; done
	for p in $(ours); do kill -KILL "$p" 2>/dev/null; done
}
trap 'stop_all; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP

# Two free loopback ports for slurmctld and slurmd.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 20000))
		[ -z "$(ss -Hltn "sport = :$p" 2>/dev/null)" ] && [ "$p" != "${1:-}" ] && echo $p && return
	done
}
cport=$(free_port) dport=$(free_port "$cport")
host=$(hostname -s)
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/results"
cat >"$SLURM_CONF" <<EOF
ClusterName=fbtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.socket.2
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MinJobAge=3600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=fbtest Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

mungekey --create --keyfile="$T/munge.key" &&
	munged -f --key-file="$T/munge.key" --socket="$T/munge/munge.socket.2" \
		--pid-file="$T/munged.pid" --log-file="$T/munged.log" --seed-file="$T/munged.seed" &&
	slurmctld -f "$SLURM_CONF" && slurmd -f "$SLURM_CONF"
for ((i = 0; i < 60; i++)); do
	[ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && break
	sleep 1
done
if [ "$(sinfo -h -o %T 2>/dev/null)" != idle ]; then
	nok "single-node Slurm did not come up: $(tail -2 "$T/slurmctld.log" "$T/slurmd.log" 2>&1 | tr '\n' ' ')"
	exit 0
fi
ok "munged, slurmctld and slurmd up on 127.0.0.1:$cport/$dport (node $host idle)"

res=$T/results
line=$(scripts/slurm/submit.sh --skip-build -n 2 -p 1 -o "$res" -- --rounds 4 --workload nft \
	--baseline baseline --patched baseline 2>&1)
sid=$(sed -n 's/.*shards=\([0-9]*\).*/\1/p' <<<"$line")
mid=$(sed -n 's/.*merge=\([0-9]*\).*/\1/p' <<<"$line")
jobs="$sid $mid"
check "submit.sh: array + dependent merge job ($line)" test -n "$sid" -a -n "$mid"

# scontrol's view of a job: "STATE EXIT" (exit code N of N:signal)
job_state() {
	scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' |
		sed -n 's/^JobState=//p; s/^ExitCode=\([0-9]*\):.*/\1/p' | tr '\n' ' '
}
deadline=$((SECONDS + ${FB_SLURM_TIMEOUT:-2700}))
while [ -n "$mid" ] && [ $SECONDS -lt $deadline ]; do
	case $(job_state "$mid") in
	COMPLETED*|FAILED*|CANCELLED*|TIMEOUT*|NODE_FAIL*|OUT_OF_MEMORY*) break ;;
	esac
	sleep 10
done
mstate=$(job_state "$mid")
check "merge job finished ($mstate) within ${FB_SLURM_TIMEOUT:-2700}s" \
	grep -qE '^(COMPLETED|FAILED) [0-9]+ $' <<<"$mstate"
for i in 1 2; do
	st=$(job_state "${sid}_$i")
	check "shard task $i: $st" test "$st" = "COMPLETED 0 "
done

# each shard: its own rounds, ab.json with its identity and the kernel's build id
bid=$(readelf -n "$kdir/vmlinux" 2>/dev/null | sed -n 's/.*Build ID: *//p' | head -1)
for i in 1 2; do
	d=$res/shard-$i
	got=$(cd "$d" 2>/dev/null && find . -name 'round-*.json' | sort | tr '\n' ' ')
	want="./baseline/round-$i.json ./baseline/round-$((i + 2)).json "
	want+="./patched/round-$i.json ./patched/round-$((i + 2)).json "
	check "shard $i wrote rounds $i and $((i + 2)) of each arm (${got:-none})" test "$got" = "$want"
	check "shard $i ab.json: shard $i/2, host $host, kernel build id ${bid:0:12}.." test \
		"$(jq -r '"\(.shard.index)/\(.shard.count) \(.host) \(.arms[0].build_id)"' \
			"$d/ab.json" 2>/dev/null)" = "$i/2 $host $bid"
done
ids=$(cat "$res"/shard-*/*/round-*.json 2>/dev/null | jq -r '"\(.host.build_id) \(.host.hostname)"' |
	sort -u | tr '\n' ' ')
check "every guest reported that build id and the machine ($ids)" test "$ids" = "$bid $host "

# the merge: exactly the shards' rounds; the gate as on one directory
m=$res/merged
mkdir -p "$T/one"
for i in 1 2; do cp -r "$res/shard-$i/baseline" "$res/shard-$i/patched" "$T/one/" 2>/dev/null; done
# the rounds alone (no ab.json): each names its kernel's cache entry on its
# cmdline, so the gate finds the same shipped noise here as on the merge
want=$(cd "$T/one" && find . -name 'round-*.json' | sort)
got=$(cd "$m" 2>/dev/null && find . -name 'round-*.json' | sort)
same=1
for f in $want; do cmp -s "$T/one/$f" "$m/$f" || same=0; done
check "merged rounds = the shards' rounds, byte for byte ($(grep -c . <<<"$got") files)" \
	test "$want" = "$got" -a "$same" = 1 -a "$(grep -c . <<<"$got")" = 8
vm=$(verdict "$m") vo=$(verdict "$T/one")
check "gate on the merge = gate on one directory ($(grep -m1 '^gate: [A-Z]' <<<"$vm" | cut -c1-60); $(tail -1 <<<"$vm"))" \
	test "$vm" = "$vo" -a -n "$(grep '^gate: ' <<<"$vm")"
check "the merge job's exit code is the gate's ($mstate)" \
	test "${mstate#* }" = "$(tail -1 <<<"$vm" | sed 's/exit //') "
check "the merge job's gate printed that verdict" \
	test -s "$res/gate.txt" -a "$(cat "$res/gate.txt" 2>/dev/null)" = "$(sed '$d' <<<"$vm")"

# for docs/scale-out.md: what the boots cost here (not a check: timing)
echo "# slurm: boots $(cat "$res"/shard-*/ab.json 2>/dev/null | jq -rs '[.[].runs[].total_s] |
	"\(length), mean \(add / length | floor) s (qemu start to qemu gone)"' 2>/dev/null), load $(cut -d' ' -f1-3 /proc/loadavg)"

stop_all
left=$(ours)		# no pipe: a child of this shell carries SLURM_CONF
left=${left//$'\n'/ }
for p in slurmctld slurmd munged; do alive "$(pid_of $p)" && left+="$p "; done
check "nothing left running (daemons, job steps, guests): ${left:-none}" test -z "$left"
