#!/usr/bin/env bash
# peers.sh - foliobench's rows beside the tools kernel developers already use
# for the same job (issue #27 item 3): libbpf-tools funclatency and klockstat,
# bcc's funclatency, perf (kprobe events counted by `perf stat`, `perf lock`),
# and our own scripts/bpftrace/*.bt, one at a time, on the same workload, in
# the same guest.
#
#   peers.sh run OUTDIR [options]      INSIDE a guest, as root, from the
#                                      repository root (./foliobench built)
#   peers.sh vm KERNEL OUTDIR [options] on the host: one guest (1 vCPU) that
#                                      does `run`; KERNEL as for `foliobench vm`
#   peers.sh report OUTDIR             the markdown table of OUTDIR/peers.tsv
#
# Per row, every tool gets its own run of the workload (`foliobench run
# --workload W`, with no probe of its own, --probes __none__, while the peer
# is attached), so no two tools' programs are on one function at once (a
# kprobe next to a trampoline, or a second trampoline program on a busy lock
# function, oopsed our TCG guests).  One exception, the "same window" pair:
# funclatency and foliobench's row forced to kprobe/kretprobe (`run
# --attach kprobe`), both kprobes on the same function in the same run, so
# that their counts are of the same calls.
#
# Tools (--peers, default all):
#   fb          foliobench run --workload W --probes ROW (its default attach:
#               fentry/fexit for functions, fblock for locks)
#   funclatency libbpf-tools funclatency ROW (kprobe/kretprobe, log2 ns hist)
#   same        funclatency ROW and foliobench --attach kprobe, one window
#   bcc         funclatency-bpfcc ROW (bcc 0.26; compiles at runtime: needs
#               the kernel's headers)
#   bpftrace    scripts/bpftrace/<script>.bt (kfunc/kretfunc)
#   perfstat    perf probe -a ROW; perf stat -a -e probe:ROW (an ftrace
#               kprobe event, no BPF), count only
#   klockstat   libbpf-tools klockstat -L <lock address> -P (mutex and rwsem
#               only), forced to its kprobe/kretprobe mode (below)
#   perflock    perf lock record -a (lock:contention_begin/end; Debian's perf
#               has no BPF skeletons, so no `perf lock contention -b`),
#               contended acquisitions of the lock's address, from perf script
# klockstat in kprobe mode: klockstat picks fentry/fexit on mutex_lock,
# down_write, ... when libbpf finds the BTF FUNC mutex_lock (or
# mutex_lock_nested) in /sys/kernel/btf/vmlinux, kprobes otherwise; it has no
# option for it.  Its fentry mode oopses our 7.3.4 guests: attaching the
# second trampoline program to mutex_lock (bpf_trampoline_update ->
# modify_fentry -> update_ftrace_direct_mod in the trace) ends in an
# instruction fetch from a non-executable page (reports/peers/
# klockstat-oops.txt).  So it runs in a private mount namespace (unshare -m)
# where /sys/kernel/btf/vmlinux is a bind-mounted copy made by
# scripts/lib/btf-hide.py: the FUNC's name
# string, used by that FUNC and nothing else (checked), rewritten to
# "Mutex_lock"; every type, ID and other name unchanged, so its CO-RE
# relocations resolve as before.  The method column is read back from the
# kernel: kprobe/kretprobe when /sys/kernel/debug/kprobes/list has the
# kretprobe on mutex_lock and the kprobe on mutex_unlock while it is
# attached (raw/klockstat-ROW.kprobes).  -P (a line per task): its own
# opens of sysfs files while attaching take kernfs_rwsem (139 times in each
# of our guest runs), left out of its count as foliobench's setup is left
# out of foliobench's window; and its window (attach to SIGINT) holds
# foliobench's whole run and the private netns's asynchronous teardown
# (kworkers), foliobench's (the workload) only the workload's forked child
# and its threads whole, the rest in part: the extra column splits the count
# so (peers-test checks child <= foliobench <= klockstat).
# Rows (--rows, default all): nft_trans_alloc nf_tables_trans_destroy_work
#   (workload nft), kernfs_new_node kernfs_add_one kernfs_activate
#   get_device_parent (sysfs) and the lock rows kernfs_rwsem gdp_mutex
#   kernfs_idr_lock (sysfs).
# Options: --rows "LIST", --peers "LIST", --descriptors N (nft, 1000),
#   --devices N (sysfs, 16), --timeout S (each peer's lifetime, 900);
#   vm only: --clock host|icount (default host; icount: instruction-paced,
#   so the quantiles do not move with the host's load)
#
# OUTDIR/peers.tsv, one line per row and tool:
#   row tool method count p50 p99 hold_ns wait_count wait_ns extra rc
# count: calls (functions) or acquisitions released (locks; for an rwsem
# write + read); p50/p99: "lo-hi" ns of the log2 bucket the quantile falls
# in (foliobench's own buckets are log-linear: its exact bucket's lower
# bound is given, "lo"); hold_ns/wait_ns totals; extra: tool-specific.
# Raw outputs in OUTDIR/raw/.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
fb=$repo/foliobench
NONE=__none__
ALL_ROWS="nft_trans_alloc nf_tables_trans_destroy_work kernfs_new_node kernfs_add_one kernfs_activate get_device_parent kernfs_rwsem gdp_mutex kernfs_idr_lock"
ALL_PEERS="fb funclatency same bcc bpftrace perfstat klockstat perflock"
die2() { echo "peers.sh: $*" >&2; exit 2; }
say() { echo "# $(date -u +%T) $*" >&2; }
# shellcheck source=../lib/bpftrace.sh
. "$repo/scripts/lib/bpftrace.sh"	# sigint_stop

mode=${1:-}
[ $# -gt 0 ] && shift
case "$mode" in
run|report) out=${1:?usage: peers.sh $mode OUTDIR}; shift ;;
vm) kernel=${1:?usage: peers.sh vm KERNEL OUTDIR [options]}; out=${2:?usage: peers.sh vm KERNEL OUTDIR}; shift 2 ;;
-h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
*) die2 "unknown mode '$mode' (run, vm, report)" ;;
esac
rows=$ALL_ROWS peers=$ALL_PEERS descriptors=1000 devices=16 tmo=900 pass=() clock=host
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || die2 "$1 needs a value"
	case "$1" in
	--clock)
		[ "$mode" = vm ] || die2 "--clock is for 'vm' only"
		case "$2" in host|icount) clock=$2 ;; *) die2 "--clock: want host or icount, not '$2'" ;; esac
		shift 2; continue ;;
	--rows) rows=$2 ;;
	--peers) peers=$2 ;;
	--descriptors) descriptors=$2 ;;
	--devices) devices=$2 ;;
	--timeout) tmo=$2 ;;
	*) die2 "unknown argument '$1'" ;;
	esac
	pass+=("$1" "$2")
	shift 2
done
for r in $rows; do [[ " $ALL_ROWS " == *" $r "* ]] || die2 "--rows: unknown row '$r' ($ALL_ROWS)"; done
for p in $peers; do [[ " $ALL_PEERS " == *" $p "* ]] || die2 "--peers: unknown tool '$p' ($ALL_PEERS)"; done
for v in descriptors:$descriptors devices:$devices timeout:$tmo; do
	[[ ${v#*:} =~ ^[1-9][0-9]{0,6}$ ]] || die2 "--${v%%:*} takes a whole number from 1 to 9999999, not '${v#*:}'"
done

# ---- report: the table ----
if [ "$mode" = report ]; then
	tsv=$out/peers.tsv
	[ -s "$tsv" ] || die2 "$tsv: missing or empty"
	echo "| row | tool | method | count | p50 (ns) | p99 (ns) | hold total (ns) | waits | wait total (ns) | notes |"
	echo "|---|---|---|---:|---|---|---:|---:|---:|---|"
	awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%s |\n",
		$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, ($11 != 0 ? " (rc " $11 ")" : "") }' "$tsv"
	exit 0
fi

# ---- vm: one guest that runs `run` ----
if [ "$mode" = vm ]; then
	mkdir -p "$out" || exit 1
	out=$(cd "$out" && pwd)
	cmd=("$fb" vm --smp 1 --clock "$clock" --kernel "$kernel" --results "$out" --timeout $((tmo * 6))
		--log "$out/console.log" -- bash "$repo/scripts/studies/peers.sh" run "$out" "${pass[@]}")
	{
		echo "command	${cmd[*]}"
		echo "host	$(uname -nr), $(nproc) CPUs"
		echo "load_before	$(cut -d' ' -f1-3 /proc/loadavg)"
		echo "started	$(date -u +%FT%TZ)"
	} >"$out/host.tsv"
	t0=$SECONDS
	"${cmd[@]}"
	rc=$?
	{
		echo "load_after	$(cut -d' ' -f1-3 /proc/loadavg)"
		echo "elapsed_s	$((SECONDS - t0))"
		echo "vm_exit	$rc"
	} >>"$out/host.tsv"
	exit $rc
fi

# ---- run: inside the guest ----
[ "$(id -u)" = 0 ] || die2 "run: must be root (inside a guest)"
raw=$out/raw
mkdir -p "$raw" || exit 1
tsv=$out/peers.tsv
[ -s "$tsv" ] || printf 'row\ttool\tmethod\tcount\tp50\tp99\thold_ns\twait_count\twait_ns\textra\trc\n' >"$tsv"
[ -r /sys/kernel/tracing/available_filter_functions ] ||
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
[ -d /sys/kernel/debug/tracing ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
ulimit -l unlimited 2>/dev/null
{
	echo "kernel	$(uname -r)"
	echo "cmdline	$(cat /proc/cmdline)"
	echo "cpus	$(nproc)"
	for p in libbpf-tools bpfcc-tools linux-perf bpftrace; do
		echo "$p	$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || echo absent)"
	done
	echo "descriptors	$descriptors"
	echo "devices	$devices"
	echo "started	$(date -u +%FT%TZ)"
} >>"$out/env.tsv"

workload() { case "$1" in nft_*|nf_*) echo nft ;; *) echo sysfs ;; esac; }
is_lock() { case "$1" in kernfs_rwsem|gdp_mutex|kernfs_idr_lock) return 0 ;; esac; return 1; }
params() { [ "$1" = nft ] && echo "nft.descriptors=$descriptors" || echo "sysfs.devices=$devices"; }
# the bpftrace script of a row, and the key of its histogram
bt_script() {
	case "$1" in
	nf_tables_trans_destroy_work) echo nft_trans_destroy ;;
	gdp_mutex) echo get_device_parent ;;
	*) echo "$1" ;;
	esac
}
# emit ROW TOOL METHOD COUNT P50 P99 HOLD WAITC WAITNS EXTRA RC
emit() {
	local IFS=$'\t'
	settle
	echo "$*" >>"$tsv"
	say "$1 $2: method $3 count $4 p50 $5 p99 $6 hold $7 waits $8/$9 ${10} rc ${11}"
}

# fbrun NAME WORKLOAD ARGS...: foliobench with results in raw/NAME.json
# (fb_pid: its process id, i.e. its main thread's, for klockstat's per-task lines)
fbrun() {
	local name=$1 wl=$2; shift 2
	local rc
	"$fb" run --workload "$wl" --param "$(params "$wl")" --out "$raw/$name.json" "$@" \
		>"$raw/$name.log" 2>&1 &
	fb_pid=$!
	wait "$fb_pid"
	rc=$?
	return $rc
}
# the private netns and its devices go away asynchronously after a run:
# not in the next tool's window (emit, the end of every tool's turn, waits)
settle() { sleep 2; }

# log2 quantiles of "lo hi count" lines on stdin -> "p50 p99" as lo-hi
log2_q() {
	awk '{ lo[NR] = $1; hi[NR] = $2; c[NR] = $3; n += $3 }
	END {
		if (!n) { print "- -"; exit }
		split("0.5 0.99", q, " ")
		for (k = 1; k <= 2; k++) {
			t = q[k] * n; s = 0
			for (i = 1; i <= NR; i++) { s += c[i]; if (s >= t) break }
			printf "%s%s-%s", (k > 1 ? " " : ""), lo[i], hi[i]
		}
		print ""
	}'
}
# fb_stat JSON ROW STAT: "count sum p50lo p99lo" of one stat (log-linear buckets)
fb_stat() {
	jq -r --arg r "$2" --arg s "$3" '
	  [.probes[] | select(.name == $r) | .stats[]? | select(.name == $s)] | first //
	    {count: 0, sum: 0, buckets: []} |
	  . as $st | ($st.buckets // []) as $b |
	  def q(f): ($st.count * f) as $t |
	    reduce $b[] as $x ({s: 0, v: null};
	      if .v == null then .s += $x[1] | (if .s >= $t then .v = $x[0] else . end) else . end) | .v;
	  [$st.count, $st.sum, (q(0.5) // "-"), (q(0.99) // "-")] | map(tostring) | join(" ")' "$1"
}
# lo of the log2 bucket (funclatency's: [2^k, 2^(k+1)-1]) holding V
l2() { awk -v v="$1" 'BEGIN { if (v == "-" || v < 2) { print (v == "-" ? "-" : "0-1"); exit }
	k = int(log(v) / log(2)); while (2 ^ (k + 1) <= v) k++; while (2 ^ k > v) k--
	printf "%d-%d\n", 2 ^ k, 2 ^ (k + 1) - 1 }'; }

# ---- peers in the background ----
peer_pid=
# peer_start LOG READY_REGEX CMD...: started; 0 once READY_REGEX is in LOG
peer_start() {
	local log=$1 ready=$2 i; shift 2
	# stdbuf: the tools printf their "Tracing ..." line into a file, which
	# stdio buffers until exit; line-buffered, it says when they attached
	PYTHONUNBUFFERED=1 setsid timeout -s INT "$tmo" stdbuf -oL "$@" >"$log" 2>&1 &
	peer_pid=$!
	for i in $(seq 1 1200); do
		if grep -qE "$ready" "$log"; then
			sleep 1
			kill -0 "$peer_pid" 2>/dev/null && return 0
			say "$1: exited right after attaching"
			break
		fi
		kill -0 "$peer_pid" 2>/dev/null || break
		sleep 0.5
	done
	say "$1: not attached: $(grep -m1 -iE 'error|fail|not|unable' "$log")"
	peer_stop
	return 1
}
# peer_stop: the peer in peer_pid stopped by SIGINT (the tools print their
# maps then), killed after 600 s (scripts/lib/bpftrace.sh)
peer_stop() {
	[ -n "$peer_pid" ] || return 0
	sigint_stop "$peer_pid" peer || true
	peer_pid=
}
cleanup() {
	peer_stop
	rm -f "$kl_btf"
	perf probe -q -d 'probe:*' >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# funclatency-format histogram ("lo -> hi : count |...|") -> "lo hi count"
fl_hist() { awk '$2 == "->" && $4 == ":" { print $1, $3, $5 }' "$1"; }
# bpftrace histogram KEY of LOG ("[2K, 4K)  814 |@@|", "[0]  3 |") -> "lo hi count"
bt_hist() {
	awk -v key="$2" '
	function num(s,  m) { m = 1; if (s ~ /K$/) m = 1024; else if (s ~ /M$/) m = 1048576;
		else if (s ~ /G$/) m = 1073741824; sub(/[KMG]$/, "", s); return s * m }
	index($0, key) == 1 { on = 1; next }
	on && /^$/ { on = 0 }
	on && /^\[/ { split($0, a, "|"); n = split(a[1], f, " "); s = a[1]; sub(/[\)\]].*/, "", s); sub(/^\[/, "", s)
		split(s, r, ", *"); lo = num(r[1]); hi = (r[2] == "" ? lo : num(r[2]) - 1)
		print lo, hi, f[n] }' "$1"
}
hist_count() { awk '{ n += $3 } END { print n + 0 }'; }

# ---- function rows ----
func_fb() {	# ROW WL
	local r=$1 wl=$2 s rc
	fbrun "fb-$r" "$wl" --probes "$r"; rc=$?
	s=($(fb_stat "$raw/fb-$r.json" "$r" latency))
	emit "$r" foliobench "$(jq -r --arg r "$r" '.probes[] | select(.name==$r) | .method' "$raw/fb-$r.json")" \
		"${s[0]}" "${s[2]}..($(l2 "${s[2]}"))" "${s[3]}..($(l2 "${s[3]}"))" - - - "sum ${s[1]} ns" "$rc"
}
func_fl() {	# ROW WL: funclatency alone, foliobench drives the workload
	local r=$1 wl=$2 log=$raw/funclatency-$r.log h rc=1
	if peer_start "$log" '^Tracing ' funclatency "$r"; then
		fbrun "fl-$r" "$wl" --probes "$NONE"; rc=$?
		peer_stop
	fi
	h=$(fl_hist "$log")
	emit "$r" funclatency kprobe "$(hist_count <<<"$h")" $(log2_q <<<"$h") - - - "log2 buckets" "$rc"
}
func_same() {	# ROW WL: funclatency and foliobench --attach kprobe in one window
	local r=$1 wl=$2 log=$raw/same-funclatency-$r.log h s rc=1
	if peer_start "$log" '^Tracing ' funclatency "$r"; then
		fbrun "same-$r" "$wl" --probes "$r" --attach kprobe; rc=$?
		peer_stop
	fi
	h=$(fl_hist "$log")
	emit "$r" "funclatency, same window" kprobe "$(hist_count <<<"$h")" $(log2_q <<<"$h") - - - "log2 buckets" "$rc"
	s=($(fb_stat "$raw/same-$r.json" "$r" latency))
	emit "$r" "foliobench, same window" "$(jq -r --arg r "$r" '.probes[] | select(.name==$r) | .method' "$raw/same-$r.json" 2>/dev/null)" \
		"${s[0]}" "${s[2]}..($(l2 "${s[2]}"))" "${s[3]}..($(l2 "${s[3]}"))" - - - "sum ${s[1]} ns" "$rc"
}
bcc_failed=
func_bcc() {	# ROW WL; after one failure to attach, the reason is repeated
	local r=$1 wl=$2 log=$raw/bcc-$r.log h rc=1 why=
	if [ -n "$bcc_failed" ]; then
		emit "$r" "bcc funclatency" - - - - - - - "not run: $bcc_failed" 1
		return
	fi
	if peer_start "$log" '^Tracing ' funclatency-bpfcc "$r"; then
		fbrun "bcc-$r" "$wl" --probes "$NONE"; rc=$?
		peer_stop
		h=$(fl_hist "$log")
		emit "$r" "bcc funclatency" kprobe "$(hist_count <<<"$h")" $(log2_q <<<"$h") - - - "log2 buckets" "$rc"
	else
		why=$(grep -m1 -iE 'error|unable|fail|no such' "$log" | tr '\t' ' ' | cut -c1-160)
		bcc_failed="did not attach on $r: ${why:-see raw/bcc-$r.log}"
		emit "$r" "bcc funclatency" - - - - - - - "$bcc_failed" 1
	fi
}
# bpftrace ROW WL KIND: the row's script alone; KIND latency or hold
run_bpftrace() {
	local r=$1 wl=$2 kind=$3 sc log h c rc=1
	sc=$(bt_script "$r") log=$raw/bpftrace-$r.log
	if peer_start "$log" '^Tracing ' bpftrace "scripts/bpftrace/$sc.bt"; then
		fbrun "bt-$r" "$wl" --probes "$NONE"; rc=$?
		peer_stop
	fi
	h=$(bt_hist "$log" "@${kind}_ns[$r]:")
	c=$(sed -n "s/^@count\[$r\]: //p" "$log")
	emit "$r" "bpftrace $sc.bt" kfunc "${c:--}" $(log2_q <<<"$h") - - - \
		"hist total $(hist_count <<<"$h")$([ "$r" = kernfs_rwsem ] && echo "; write acquisitions only")" "$rc"
}
func_perf() {	# ROW WL: an ftrace kprobe event counted by perf stat
	local r=$1 wl=$2 log=$raw/perfstat-$r.log c rc
	perf probe -q -d "probe:$r" >/dev/null 2>&1
	if ! perf probe -q -a "$r" >"$raw/perfprobe-$r.log" 2>&1; then
		emit "$r" "perf stat" kprobe_events - - - - - - "perf probe failed: $(head -1 "$raw/perfprobe-$r.log")" 1
		return
	fi
	perf stat -a -x, -e "probe:$r" -o "$log" -- \
		"$fb" run --workload "$wl" --param "$(params "$wl")" --probes "$NONE" \
		--out "$raw/perf-$r.json" >"$raw/perf-$r.out" 2>&1; rc=$?
	perf probe -q -d "probe:$r" >/dev/null 2>&1
	c=$(awk -F, -v e="probe:$r" '$3 == e { print $1 }' "$log")
	emit "$r" "perf stat" "kprobe event" "${c:--}" - - - - - "entries, no BPF" "$rc"
}

# ---- lock rows ----
# fb_lock ROW: foliobench's lock row alone; sets lock_addr (its instance)
lock_addr=
lock_fb() {
	local r=$1 f=$raw/fb-$1.json w wr h hr wt rc
	fbrun "fb-$r" sysfs --probes "$r"; rc=$?
	lock_addr=$(jq -r --arg r "$r" '.probes[] | select(.name==$r) | .reason' "$f" |
		grep -oE 'instance 0x[0-9a-f]+' | head -1 | cut -d' ' -f2)
	h=($(fb_stat "$f" "$r" hold)) hr=($(fb_stat "$f" "$r" hold_read))
	w=($(fb_stat "$f" "$r" wait)) wr=($(fb_stat "$f" "$r" wait_read))
	emit "$r" foliobench "$(jq -r --arg r "$r" '.probes[] | select(.name==$r) | .method' "$f")" \
		$((h[0] + hr[0])) "${h[2]}..($(l2 "${h[2]}"))" "${h[3]}..($(l2 "${h[3]}"))" \
		$((h[1] + hr[1])) $((w[0] + wr[0])) $((w[1] + wr[1])) \
		"write ${h[0]} read ${hr[0]}; foliobench child $(jq -r --arg k "child_holds.$r" \
			'.extra[$k] // "?"' "$f"); p50/p99 of write holds; instance ${lock_addr:-?}" "$rc"
}
# klockstat -P's tables, a line per task: "tid comm avg unit count max unit
# total unit" -> "count total_ns child main kworkers own": count and total
# of every task but klockstat itself (own: its opens of sysfs files while
# it attaches its kprobes; foliobench's setup is outside its window too);
# child: the foliobench tasks but its main thread (tid MAIN_PID: fbrun's
# fb_pid), i.e. the workload's forked child and its threads, whose whole
# life is in foliobench's window; main: MAIN_PID's; kworkers: comm kworker/*
kl_table() {	# LOG HEADER_WORD (Wait or Hold) MAIN_PID
	awk -v hdr="Avg $2" -v main="$3" '
	function ns(v, u) {	# mawk: no line break inside ?: chains
		if (u == "ns") return v; if (u == "us") return v * 1e3; if (u == "ms") return v * 1e6
		if (u == "s") return v * 1e9; if (u == "m") return v * 6e10; return v * 3.6e12
	}
	index($0, hdr) { on = 1; next }
	on && /Avg (Wait|Hold)/ { on = 0 }
	on && NF >= 9 && $(NF - 4) ~ /^[0-9]+$/ {
		c = $(NF - 4)
		if ($2 == "klockstat") { own += c; next }
		n += c; t += ns($(NF - 1), $NF)
		if ($2 ~ /^kworker\//) kw += c
		if ($2 == "foliobench") { fb += c; if ($1 + 0 == main + 0) m = c }
	}
	END { printf "%d %.0f %d %d %d %d\n", n, t, fb - m, m, kw, own }' "$1"
}
kl_tasks() { awk '/Avg Hold/ { on = 1; next } on && NF >= 9 && $2 != "klockstat" { n++ } END { print n + 0 }' "$1"; }
# the BTF copy klockstat runs with, its FUNC mutex_lock renamed (the head
# says why); kl_method reads the mode it took back from the kernel
kl_btf=/tmp/peers-vmlinux.btf
kl_hide() {
	[ -s "$kl_btf" ] && return 0
	"$repo/scripts/lib/btf-hide.py" /sys/kernel/btf/vmlinux "$kl_btf" \
		mutex_lock mutex_lock_nested >"$raw/btf-hide.log" 2>&1 && return 0
	say "btf-hide: $(tail -1 "$raw/btf-hide.log")"
	rm -f "$kl_btf"
	return 1
}
# kl_method FD FILE: the lock functions' kprobes while klockstat is attached
# (kprobes/list, opened as FD before it attached: a path walk through /sys
# now would take kernfs_rwsem in its window; "k" entry, "r" return), saved
# in FILE -> kprobe/kretprobe, or "fentry/fexit (no kprobes)" if none
kl_method() {
	if [ -z "$1" ]; then
		echo "unknown (no /sys/kernel/debug/kprobes/list)"
		return
	fi
	grep -E ' (mutex_lock|mutex_unlock|down_write|up_write|down_read|up_read)\+' <&"$1" >"$2"
	if grep -q ' r  *mutex_lock+' "$2" && grep -q ' k  *mutex_unlock+' "$2"; then
		echo kprobe/kretprobe
	else
		echo "fentry/fexit (no kprobes)"
	fi
}
lock_kl() {	# ROW
	local r=$1 log=$raw/klockstat-$1.log rc=1 h a m=- kp
	if [ -z "$lock_addr" ]; then
		emit "$r" klockstat - - - - - - - "no instance address from foliobench" 1
		return
	fi
	if ! kl_hide; then
		emit "$r" klockstat - - - - - - - "not run: btf-hide failed (raw/btf-hide.log)" 1
		return
	fi
	exec {kp}</sys/kernel/debug/kprobes/list || kp=
	# shellcheck disable=SC2016 # $1, $@: the inner sh's
	if peer_start "$log" '^Tracing ' unshare -m --propagation private \
		sh -c 'mount --bind "$1" /sys/kernel/btf/vmlinux && shift && exec "$@"' sh \
		"$kl_btf" klockstat -L "$lock_addr" -P; then
		m=$(kl_method "$kp" "$raw/klockstat-$r.kprobes")
		fbrun "kl-$r" sysfs --probes "$NONE"; rc=$?
		peer_stop
	fi
	[ -z "$kp" ] || exec {kp}<&-
	h=($(kl_table "$log" Hold "${fb_pid:-0}")) a=($(kl_table "$log" Wait "${fb_pid:-0}"))
	emit "$r" klockstat "$m" "${h[0]}" - - "${h[1]}" "${a[0]}" "${a[1]}" \
		"$(kl_tasks "$log") tasks: foliobench child ${h[2]}, main ${h[3]}, kworkers ${h[4]}; klockstat's own ${h[5]} not counted; wait = time in the lock call, every acquisition; totals from 0.1-unit rounding" "$rc"
}
# perf lock record once for all lock rows; perf script -> contended per address
perflock_done=
perflock_record() {
	# perf record cannot write to the 9p results share ("failed to write
	# perf data, error: Bad address"): the guest's tmpfs, then copied
	local data=/tmp/peers-perf-lock.data
	perflock_done=1
	perf lock record -a -o "$data" -- "$fb" run --workload sysfs --param "sysfs.devices=$devices" \
		--probes "$NONE" --out "$raw/perflock.json" >"$raw/perflock-record.log" 2>&1
	perflock_rc=$?
	perf script -i "$data" -F tid,time,event,trace >"$raw/perf-lock.script" 2>"$raw/perf-lock.script.err"
	perf lock contention -i "$data" -E 50 >"$raw/perf-lock-contention.txt" 2>&1
	cp "$data" "$raw/perf-lock.data" 2>/dev/null
	rm -f "$data" "$data.old"
}
lock_perf() {	# ROW
	local r=$1 c
	[ -n "$perflock_done" ] || perflock_record
	if [ -z "$lock_addr" ]; then
		emit "$r" "perf lock" - - - - - - - "no instance address from foliobench" 1
		return
	fi
	# contention_begin: "tid time: lock:contention_begin: 0xADDR (flags=...)"
	c=($(awk -v a="$lock_addr" '
		$3 ~ /contention_begin/ && $4 == a { n++; t0[$1] = $2 + 0 }
		$3 ~ /contention_end/ && $4 == a && ($1 in t0) { w += ($2 - t0[$1]) * 1e9; delete t0[$1] }
		END { printf "%d %.0f\n", n, w }' "$raw/perf-lock.script"))
	emit "$r" "perf lock record" "tracepoints" - - - - "${c[0]}" "${c[1]}" \
		"contended only; wait from us timestamps; $(grep -c contention_begin "$raw/perf-lock.script") contention_begin events in all" "$perflock_rc"
}

say "kernel $(uname -r); rows: $rows; tools: $peers"
has() { [[ " $peers " == *" $1 "* ]]; }
for r in $rows; do
	wl=$(workload "$r")
	if is_lock "$r"; then
		lock_addr=
		lock_fb "$r"	# always: the other tools need the lock's address
		if has klockstat; then
			if [ "$r" = kernfs_idr_lock ]; then
				emit "$r" klockstat - - - - - - - "not covered: klockstat traces mutexes and rwsems, not spinlocks" 0
			else
				lock_kl "$r"
			fi
		fi
		if has bpftrace && [ "$r" != kernfs_idr_lock ]; then run_bpftrace "$r" sysfs hold; fi
		if has perflock; then lock_perf "$r"; fi
		continue
	fi
	if has fb; then func_fb "$r" "$wl"; fi
	if has funclatency; then func_fl "$r" "$wl"; fi
	if has same; then func_same "$r" "$wl"; fi
	if has bcc; then func_bcc "$r" "$wl"; fi
	if has bpftrace; then run_bpftrace "$r" "$wl" latency; fi
	if has perfstat; then func_perf "$r" "$wl"; fi
done
echo "finished	$(date -u +%FT%TZ)" >>"$out/env.tsv"
say "done: $tsv"
