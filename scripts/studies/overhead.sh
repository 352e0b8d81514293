#!/usr/bin/env bash
# overhead.sh OUTDIR [options] - the probe overhead benchmark (#17 item 2).
#
# Runs INSIDE a guest, as root, from the repository root, with ./foliobench
# built; OUTDIR must be writable there (the vm's --results directory):
#
#   ./foliobench vm --clock icount --kernel DIR --results OUTDIR -- \
#       bash scripts/studies/overhead.sh OUTDIR
#
# scripts/studies/overhead-report.sh does exactly that and writes
# reports/overhead/README.md from OUTDIR.  Under --clock icount guest time is
# an instruction count, so every figure below is in instructions and a few
# repetitions suffice; only busy loops are timed, never sleeps.
#
# Parts (--parts, default "events ablate diag workloads"; "peers" on request):
#   events     per rep, interleaved: the trigger workload's getppid loop
#              (`trigger.calls` calls, op loop_ns) with no probe, with
#              foliobench's getppid row forced to fentry/fexit and to
#              kprobe/kretprobe (run --attach), and with the bpftrace
#              one-liners kfunc/kretfunc and kprobe/kretprobe building the
#              same latency histogram while a probe-less foliobench runs the
#              same loop.  -> events.tsv
#   ablate     foliobench fentry with parts of its programs off or swapped
#              (FB_ABLATE: empty, hash, tidhash, stats, hist, hash+stats+hist),
#              kprobe empty and tidhash, and bpftrace with empty programs and
#              with the stash but no histogram.  -> events.tsv
#   diag       with kernel.bpf_stats_enabled: run_time_ns / run_cnt of each
#              program while the loop runs (the programs' own instructions,
#              without the trampoline or kprobe path), their xlated and
#              jited sizes and the maps bpftrace made.  -> bpfstats.tsv, diag/
#   peers      per rep, interleaved: none, foliobench fentry and kprobe rows,
#              and libbpf-tools funclatency (kprobe/kretprobe, its only
#              method) on the same function while a probe-less foliobench
#              runs the loop (issue #27 item 4).  -> events.tsv
#   lockevents (not in the default --parts) per rep, interleaved: the loop
#              with a lock row's acquire-side program on the getppid handler
#              (FB_LOCKFN; the row's lock is never taken there): fexit+hash,
#              fentry+hash, fentry+task storage (the methods before), the
#              shipped method of a mutex row (fexit) and of a spinlock row
#              (fentry), and both trampolines with empty programs.
#              -> events.tsv
#   workloads  nft and sysfs (defaults), all catalogue probes against none,
#              alternating order per rep.  -> workloads.tsv
# Options: --reps N (events, 3), --ablate-reps N (1), --wl-reps N (3),
#          --calls N (trigger.calls, 200000), --parts "LIST",
#          --wl "LIST" (workloads, "nft sysfs"), --wl-sets "LIST" (row sets,
#          "none nolocks all"; also: locks = the lock rows alone, and
#          all-fexit / all-fentryhash / all-task / locks-fexit / locks-task =
#          every row or the lock rows with FB_LOCKHOOK=fexit, fentry-hash or
#          fentry-task, the lock-row methods before; nolocks-pair /
#          all-before = FB_FUNCHOOK=pair (function rows as fentry/fexit with
#          task storage), all-before also FB_LOCKHOOK=fentry-task;
#          locks-stats = the lock rows with bpf_stats, run_cnt/run_time_ns
#          per program into bpfstats.tsv; locks:ABL = the lock rows with
#          FB_ABLATE=ABL (e.g. locks:empty, the trampolines with empty programs;
#          locks:nomatch; locks:hash,clock,stats,hist);
#          the order is reversed on even reps).
# Every foliobench results file and bpftrace output is kept in OUTDIR/raw/.
set -uo pipefail
cd "$(dirname "$0")/../.."
fb=$PWD/foliobench
out=${1:?usage: overhead.sh OUTDIR [--reps N] [--calls N] [--parts LIST]}
shift
reps=3 areps=1 wlreps=3 calls=200000 parts="events ablate diag workloads"
wls="nft sysfs" wlsets="none nolocks all"
while [ $# -gt 0 ]; do
	case "$1" in --*) [ $# -ge 2 ] || { echo "overhead.sh: $1 needs a value" >&2; exit 2; } ;; esac
	case "$1" in
	--reps) reps=$2; shift 2 ;;
	--ablate-reps) areps=$2; shift 2 ;;
	--wl-reps) wlreps=$2; shift 2 ;;
	--calls) calls=$2; shift 2 ;;
	--parts) parts=$2; shift 2 ;;
	--wl) wls=$2; shift 2 ;;
	--wl-sets) wlsets=$2; shift 2 ;;
	*) echo "overhead.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
# count NAME VALUE MAX: a whole number from 1 to MAX, else one line and exit 2
count() {
	[[ $2 =~ ^[1-9][0-9]{0,9}$ ]] && [ "$2" -le "$3" ] ||
		{ echo "overhead.sh: $1 takes a whole number from 1 to $3, not '$2'" >&2; exit 2; }
}
count --reps "$reps" 100
count --ablate-reps "$areps" 100
count --wl-reps "$wlreps" 100
for set in $wlsets; do
	case "$set" in
	none|nolocks|nolocks-pair|all|locks|all-fexit|all-fentryhash|all-task|all-before|locks-fexit|locks-task|locks-stats) ;;
	locks:*) [[ ${set#locks:} =~ ^(stats|hist|hash|empty|clock|nomatch)(,(stats|hist|hash|empty|clock|nomatch))*$ ]] ||
		{ echo "overhead.sh: --wl-sets: $set: FB_ABLATE words are stats hist hash empty clock nomatch" >&2; exit 2; } ;;
	*) echo "overhead.sh: --wl-sets: unknown row set '$set'" >&2; exit 2 ;;
	esac
done
count --calls "$calls" 100000000
for p in $parts; do
	case "$p" in events|ablate|diag|workloads|lockevents|peers) ;;
	*) echo "overhead.sh: --parts: unknown part '$p' (events ablate diag workloads lockevents peers)" >&2; exit 2 ;;
	esac
done
raw=$out/raw
mkdir -p "$raw" "$out/diag" || exit 1
NONE=__no_probe__	# a --probes pattern no catalogue row matches
say() { echo "# $(date -u +%T) $*" >&2; }
has_part() { [[ " $parts " == *" $1 "* ]]; }

# bpftrace reads available_filter_functions for kfunc probes
[ -r /sys/kernel/tracing/available_filter_functions ] ||
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
ulimit -l unlimited 2>/dev/null
{
	echo "kernel	$(uname -r)"
	echo "version	$(cat /proc/version)"
	echo "cmdline	$(cat /proc/cmdline)"
	echo "cpus	$(nproc)"
	echo "bpftrace	$(bpftrace --version 2>&1)"
	echo "bpftool	$(bpftool version 2>&1 | head -1)"
	echo "libbpf-tools	$(dpkg-query -W -f='${Version}' libbpf-tools 2>/dev/null || echo absent)"
	echo "calls	$calls"
	echo "reps	$reps"
	echo "parts	$parts"
	echo "started	$(date -u +%FT%TZ)"
} >"$out/env.tsv"
grep -q 'foliobench.clock=icount' /proc/cmdline ||
	say "WARNING: not an icount guest: times are host-clock nanoseconds, not instructions"

jqf() { jq -r "$2" "$1" 2>/dev/null; }
# fbrun NAME ARGS...: foliobench run with results in raw/NAME.json
fbrun() {
	local name=$1; shift
	"$fb" run --out "$raw/$name.json" "$@" >"$raw/$name.log" 2>&1
}
# trig NAME ARGS...: the trigger loop; prints "loop_ns events method symbol rc"
trig() {
	local name=$1 rc; shift
	fbrun "$name" --workload trigger --param "trigger.calls=$calls" "$@"; rc=$?
	jqf "$raw/$name.json" '[(.workloads[] | select(.name=="trigger") | .ops.loop_ns // 0),
		((.probes[] | select(.name=="getppid") | .stats[0].count) // 0),
		((.probes[] | select(.name=="getppid") | .method) // "-"),
		((.probes[] | select(.name=="getppid") | .symbol) // "-")] | map(tostring) | join(" ")' |
		sed "s/\$/ $rc/" | grep . || echo "0 0 - - $rc"
}

bt_pid=
# bt_start NAME PROGRAM: bpftrace in the background, 0 once every probe is
# attached (bpftrace prints __BPFTRACE_NOTIFY_PROBES_ATTACHED then; BEGIN
# runs before the other probes attach)
bt_start() {
	local log=$raw/$1.bt.log i
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 setsid bpftrace -e "$2" >"$log" 2>&1 &
	bt_pid=$!
	for i in $(seq 1 1200); do
		grep -q __BPFTRACE_NOTIFY_PROBES_ATTACHED "$log" && return 0
		kill -0 "$bt_pid" 2>/dev/null || break
		sleep 0.5
	done
	say "bpftrace $1 did not attach: $(grep -m1 -i error "$log")"
	bt_stop
	return 1
}
. scripts/lib/bpftrace.sh	# bt_stop
trap 'bt_stop' EXIT
# hist_sum LOG: events in the bpftrace histogram(s) printed at exit
# ("[1K, 2K)   393 |@@@|" or "[0]   5 |@|": the count ends the text before "|")
hist_sum() { awk -F'|' '/^\[/ { k = split($1, f, " "); n += f[k] } END { print n + 0 }' "$1"; }
# bt_trig NAME PROGRAM: the loop with PROGRAM attached by bpftrace
bt_trig() {
	local name=$1 r
	if ! bt_start "$name" "$2"; then
		echo "0 0 - - 1"
		return
	fi
	r=$(trig "$name" --probes "$NONE")
	bt_stop
	set -- $r
	echo "$1 $(hist_sum "$raw/$name.bt.log") bpftrace $sym $5"
}

# lt_trig NAME: the loop under libbpf-tools funclatency (a C peer; kprobe/
# kretprobe, log2 histogram), ready once it prints "Tracing"; its events are
# the histogram's total, printed at SIGINT
lt_trig() {
	local name=$1 log=$raw/$1.lt.log pid r i
	setsid stdbuf -oL funclatency "$sym" >"$log" 2>&1 &	# else "Tracing" waits in stdio
	pid=$!
	for i in $(seq 1 1200); do
		grep -q '^Tracing ' "$log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.5
	done
	if ! grep -q '^Tracing ' "$log"; then
		say "funclatency $name did not attach: $(head -3 "$log" | tr '\n' ' ')"
		kill -INT "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
		echo "0 0 - - 1"
		return
	fi
	r=$(trig "$name" --probes "$NONE")
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	set -- $r
	echo "$1 $(awk '$2 == "->" && $4 == ":" { n += $5 } END { print n + 0 }' "$log") funclatency $sym $5"
}

# The getppid handler foliobench attaches to here (the same one for bpftrace).
sym=$(trig probe-sym --probes getppid --param trigger.calls=1 | awk '{ print $4 }')
case "$sym" in ''|-) say "getppid row unavailable: $(jqf "$raw/probe-sym.json" '.probes[0].reason')"
	sym=__x64_sys_getppid ;; esac
echo "symbol	$sym" >>"$out/env.tsv"
say "kernel $(uname -r), hooked function $sym, $calls calls per loop"
# lockevents' target: a function getppid() calls once that takes an argument,
# as every lock function does (the program reads it from the context; on
# the handler, which takes none, it would need bpf_get_func_arg())
lksym=$sym
grep -qw __task_pid_nr_ns /proc/kallsyms && lksym=__task_pid_nr_ns
echo "lock_symbol	$lksym" >>"$out/env.tsv"

# bpftrace one-liners: the README's shape (start time by tid, hist of the delta)
BT_KFUNC="kfunc:$sym { @s[tid] = nsecs; } kretfunc:$sym /@s[tid]/ { @ns = hist(nsecs - @s[tid]); delete(@s[tid]); }"
BT_KPROBE="kprobe:$sym { @s[tid] = nsecs; } kretprobe:$sym /@s[tid]/ { @ns = hist(nsecs - @s[tid]); delete(@s[tid]); }"

tsv=$out/events.tsv
[ -s "$tsv" ] || echo "rep	variant	loop_ns	events	method	symbol	rc" >"$tsv"
# variant NAME REP: one loop of that variant, appended to events.tsv
variant() {
	local v=$1 rep=$2 r name=$1-$2
	case "$v" in
	none)		r=$(trig "$name" --probes "$NONE") ;;
	fb-fentry)	r=$(trig "$name" --probes getppid --attach fentry) ;;
	fb-kprobe)	r=$(trig "$name" --probes getppid --attach kprobe) ;;
	fb-pair)	r=$(FB_FUNCHOOK=pair trig "$name" --probes getppid --attach fentry) ;;
	fb-fentry-*)	r=$(FB_ABLATE=${v#fb-fentry-} trig "$name" --probes getppid --attach fentry) ;;
	fb-kprobe-*)	r=$(FB_ABLATE=${v#fb-kprobe-} trig "$name" --probes getppid --attach kprobe) ;;
	lt-funclatency)	r=$(lt_trig "$name") ;;
	bt-kfunc)	r=$(bt_trig "$name" "$BT_KFUNC") ;;
	bt-kprobe)	r=$(bt_trig "$name" "$BT_KPROBE") ;;
	bt-kfunc-empty)	r=$(bt_trig "$name" "kfunc:$sym { } kretfunc:$sym { }") ;;
	bt-kprobe-empty) r=$(bt_trig "$name" "kprobe:$sym { } kretprobe:$sym { }") ;;
	bt-kfunc-stash)	r=$(bt_trig "$name" "kfunc:$sym { @s[tid] = nsecs; } kretfunc:$sym /@s[tid]/ { delete(@s[tid]); }") ;;
	# a lock row's acquire-side program on the getppid handler (FB_LOCKFN):
	# what one acquisition of a lock it does not watch costs, per method
	lk-fexit)	r=$(FB_LOCKFN=$lksym FB_LOCKHOOK=fexit trig "$name" --probes gdp_mutex) ;;
	lk-fentryhash)	r=$(FB_LOCKFN=$lksym FB_LOCKHOOK=fentry-hash trig "$name" --probes gdp_mutex) ;;
	lk-fentry)	r=$(FB_LOCKFN=$lksym FB_LOCKHOOK=fentry-task trig "$name" --probes gdp_mutex) ;;
	lk-fexit-empty)	r=$(FB_LOCKFN=$lksym FB_LOCKHOOK=fexit FB_ABLATE=empty trig "$name" --probes gdp_mutex) ;;
	lk-fentry-empty) r=$(FB_LOCKFN=$lksym FB_LOCKHOOK=fentry-task FB_ABLATE=empty trig "$name" --probes gdp_mutex) ;;
	# the shipped method: a mutex row's fexit (lock slot), a spinlock row's fentry (CPU slot)
	lk-mutex)	r=$(FB_LOCKFN=$lksym trig "$name" --probes gdp_mutex) ;;
	lk-spin)	r=$(FB_LOCKFN=$lksym trig "$name" --probes kernfs_idr_lock) ;;
	esac
	set -- $r
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rep" "$v" "$1" "$2" "$3" "$4" "$5" >>"$tsv"
	say "$v rep $rep: loop $1 ns, $2 events ($3 $4), rc $5"
}

if has_part events; then
	for rep in $(seq 1 "$reps"); do
		for v in none fb-fentry fb-pair fb-kprobe bt-kfunc bt-kprobe; do
			variant "$v" "$rep"
		done
	done
fi
if has_part peers; then
	command -v funclatency >/dev/null || say "WARNING: funclatency not installed (libbpf-tools; make deps)"
	for rep in $(seq 1 "$reps"); do
		for v in none fb-fentry lt-funclatency fb-kprobe; do
			variant "$v" "p$rep"
		done
	done
fi
if has_part lockevents; then
	for rep in $(seq 1 "$reps"); do
		for v in none lk-fexit lk-fentryhash lk-fentry lk-mutex lk-spin lk-fexit-empty \
			 lk-fentry-empty; do
			variant "$v" "l$rep"
		done
	done
fi
if has_part ablate; then
	for rep in $(seq 1 "$areps"); do
		for v in none fb-fentry-empty fb-fentry-hash fb-fentry-tidhash fb-fentry-stats \
			 fb-fentry-hist fb-fentry-hash,stats,hist fb-kprobe-empty fb-kprobe-tidhash \
			 bt-kfunc-empty bt-kprobe-empty bt-kfunc-stash; do
			variant "$v" "a$rep"
		done
	done
fi

# ---- diag: the programs' own cost (bpf_stats) and size, while a loop runs ----
# wait_for FILE REGEX: up to 10 minutes
wait_for() {
	for _ in $(seq 1 3000); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}
stats_tsv=$out/bpfstats.tsv
# diag_one VARIANT: a long loop under VARIANT; once it runs, every program
# that has run is recorded (run_cnt, run_time_ns: the program alone, with
# bpf_stats' clock reads around it) and dumped; then everything is stopped
diag_one() {
	local v=$1 log=$raw/diag-$1.log pid ids args=(--probes "$NONE") abl=
	sysctl -qw kernel.bpf_stats_enabled=1
	case "$v" in
	fb-fentry*) args=(--probes getppid --attach fentry); abl=${v#fb-fentry} ;;
	fb-kprobe*) args=(--probes getppid --attach kprobe); abl=${v#fb-kprobe} ;;
	bt-kfunc) bt_start "diag-$v" "$BT_KFUNC" || return ;;
	bt-kprobe) bt_start "diag-$v" "$BT_KPROBE" || return ;;
	esac
	FB_ABLATE=${abl#-} "$fb" run --out "$raw/diag-$v.json" --workload trigger \
		--param trigger.calls=100000000 "${args[@]}" >"$log" 2>&1 &
	pid=$!
	if wait_for "$log" 'workload trigger: running'; then
		sleep 0.2
		bpftool -j prog show >"$out/diag/$v-progs.json"
		bpftool -j map show >"$out/diag/$v-maps.json"
		ids=$(jq -r '.[] | select((.run_cnt // 0) > 1000) | .id' "$out/diag/$v-progs.json")
		for id in $ids; do
			bpftool prog dump xlated id "$id" >"$out/diag/$v-prog-$id.xlated.txt" 2>&1
			bpftool prog dump jited id "$id" >"$out/diag/$v-prog-$id.jited.txt" 2>&1
			jq -r --arg v "$v" --argjson id "$id" --arg j \
				"$(grep -cE '^ *[0-9a-f]+:' "$out/diag/$v-prog-$id.jited.txt")" \
				'.[] | select(.id == $id) | [$v, .id, .type, .name, .run_cnt, .run_time_ns,
				 (.bytes_xlated / 8), .bytes_jited, $j] | map(tostring) | join("\t")' \
				"$out/diag/$v-progs.json" >>"$stats_tsv"
		done
	else
		say "diag $v: the loop did not start"
	fi
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	bt_stop
	sysctl -qw kernel.bpf_stats_enabled=0
}
if has_part diag; then
	[ -s "$stats_tsv" ] ||
		echo "variant	id	type	name	run_cnt	run_time_ns	xlated_insns	jited_bytes	jited_insns" >"$stats_tsv"
	for v in fb-fentry fb-kprobe fb-fentry-tidhash bt-kfunc bt-kprobe; do
		diag_one "$v"
		say "diag $v: $(awk -F'\t' -v v="$v" '$1 == v { printf "%s %s/%s ns; ", $4, $6, $5 }' "$stats_tsv")"
	done
fi

# ---- workloads: all catalogue probes, function and tracepoint rows only, none ----
cpu_stat() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
# the rows that are not lock rows, from a short run with every row
nolock=() locks=()
fbrun rows --workload trigger --param trigger.calls=1
for name in $(jqf "$raw/rows.json" '.probes[] | select(.kind != "lock") | .name'); do
	nolock+=(--probes "$name")
done
for name in $(jqf "$raw/rows.json" '.probes[] | select(.kind == "lock") | .name'); do
	locks+=(--probes "$name")
done
[ ${#nolock[@]} -gt 0 ] || say "WARNING: no row list (raw/rows.log): nolocks = all"
wl_tsv=$out/workloads.tsv
# locks-stats: kernel.bpf_stats_enabled during the run and the programs'
# run_cnt / run_time_ns sampled while they are attached (the last sample
# with foliobench's lock programs in it) -> diag/NAME-progs.json, bpfstats.tsv
wl_stats_pid=
wl_stats_start() {
	local f=$out/diag/$1-progs.json
	sysctl -qw kernel.bpf_stats_enabled=1
	( while :; do
		bpftool -j prog show >"$f.new" 2>/dev/null &&
			jq -e 'any(.[]; .name == "fb_acq_fentry")' "$f.new" >/dev/null 2>&1 &&
			mv "$f.new" "$f"
		sleep 0.1
	done ) &
	wl_stats_pid=$!
}
wl_stats_stop() {
	local f=$out/diag/$1-progs.json
	kill "$wl_stats_pid" 2>/dev/null; wait "$wl_stats_pid" 2>/dev/null
	rm -f "$f.new"
	sysctl -qw kernel.bpf_stats_enabled=0
	[ -s "$stats_tsv" ] ||
		echo "variant	id	type	name	run_cnt	run_time_ns	xlated_insns	jited_bytes	jited_insns" >"$stats_tsv"
	[ -s "$f" ] && jq -r --arg v "$1" '.[] | select(.name | startswith("fb_")) |
		[$v, .id, .type, .name, (.run_cnt // 0), (.run_time_ns // 0), "-", (.bytes_jited // 0), "-"] |
		map(tostring) | join("\t")' "$f" >>"$stats_tsv"
}
# wl_one REP WORKLOAD SET: one run, appended to workloads.tsv
wl_one() {
	local rep=$1 wl=$2 set=$3 name=wl-$2-$3-$1 a b rc args=() hook= abl= fh=
	case "$set" in
	none) args=(--probes "$NONE") ;;
	nolocks) args=("${nolock[@]}") ;;
	nolocks-pair) args=("${nolock[@]}") fh=pair ;;
	locks) args=("${locks[@]}") ;;
	locks-fexit) args=("${locks[@]}") hook=fexit ;;
	locks-task) args=("${locks[@]}") hook=fentry-task ;;
	locks-stats) args=("${locks[@]}") ;;
	locks:*) args=("${locks[@]}") abl=${set#locks:} ;;
	all-fexit) hook=fexit ;;
	all-fentryhash) hook=fentry-hash ;;
	all-task) hook=fentry-task ;;
	all-before) hook=fentry-task fh=pair ;;
	esac
	[ "$set" = locks-stats ] && wl_stats_start "$name"
	a=$(cpu_stat)
	FB_ABLATE=$abl FB_LOCKHOOK=$hook FB_FUNCHOOK=$fh fbrun "$name" --workload "$wl" "${args[@]}"; rc=$?
	b=$(cpu_stat)
	[ "$set" = locks-stats ] && wl_stats_stop "$name"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rep" "$wl" "$set" \
		"$(jqf "$raw/$name.json" ".workloads[] | select(.name==\"$wl\") | .wall_ns")" \
		"$(jqf "$raw/$name.json" '[.probes[] | select(.status=="attached")] | length')" "$rc" \
		"$(echo "$a $b" | awk '{ print $3 - $1, $4 - $2 }' | tr ' ' '\t')" \
		"$(jqf "$raw/$name.json" ".workloads[] | select(.name==\"$wl\") | .ops |
			[.create_wall_us, .remove_wall_us, .create_busy_us, .remove_busy_us] |
			map(. // \"-\" | tostring) | join(\"\t\")")" >>"$wl_tsv"
	say "$wl $set rep $rep: $(tail -1 "$wl_tsv" | cut -f4-)"
	sleep 2	# the private netns and devices go away asynchronously: not in the next run
}
if has_part workloads; then
	[ -s "$wl_tsv" ] ||
		echo "rep	workload	probes	wall_ns	attached	rc	run_busy_cs	run_idle_cs	create_wall_us	remove_wall_us	create_busy_us	remove_busy_us" >"$wl_tsv"
	for rep in $(seq 1 "$wlreps"); do
		for wl in $wls; do
			sets=$wlsets
			[ $((rep % 2)) = 1 ] || sets=$(echo "$wlsets" | tr ' ' '\n' | tac | tr '\n' ' ')
			for set in $sets; do
				wl_one "$rep" "$wl" "$set"
			done
		done
	done
fi
echo "finished	$(date -u +%FT%TZ)" >>"$out/env.tsv"
say "done: $out"
