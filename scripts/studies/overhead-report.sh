#!/usr/bin/env bash
# overhead-report.sh - the probe overhead benchmark (#17 item 2), host side.
#
#   scripts/studies/overhead-report.sh [--kernel DIR] [--out DIR] [-- OVERHEAD_ARGS...]
#       boots DIR (default: the baseline perf kernel, never built here) once
#       in an instruction-paced guest,
#         ./foliobench vm --clock icount --kernel DIR --results RAW -- \
#             bash scripts/studies/overhead.sh RAW OVERHEAD_ARGS...
#       with RAW = results/overhead-<UTC time>, records the host's load
#       before and after, then renders as below.
#   scripts/studies/overhead-report.sh --raw RAW [--out DIR]
#       renders an existing RAW only.
#
# Writes DIR/README.md (default reports/overhead): per-event cost of each
# probe method (foliobench fentry/fexit and kprobe/kretprobe rows,
# bpftrace kfunc and kprobe one-liners), the ratios against the goal
# (foliobench <= 0.7x bpftrace per attach type), the ablation variants and
# program-level costs (where the time goes), and the nft and sysfs
# slowdowns with every catalogue probe (goal <= 5%); RAW's tables are
# copied to DIR/raw/.  Times are guest instructions (icount shift 0:
# 1 ns = 1 instruction).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
kernel= raw= outdir=reports/overhead
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--raw) raw=$2; shift 2 ;;
	--out) outdir=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "overhead-report: unknown argument $1" >&2; exit 2 ;;
	esac
done

boot() {
	local t0 rc=0
	[ -n "$kernel" ] || kernel=$(scripts/kernel-build.sh --print baseline perf)
	[ -f "$kernel/bzImage" ] || [ -f "$kernel" ] ||
		{ echo "overhead-report: no kernel at $kernel (build it with make kernels)" >&2; exit 2; }
	raw=$repo/results/overhead-$(date -u +%Y%m%d-%H%M%S)
	mkdir -p "$raw"
	local cmd=(./foliobench vm --clock icount --kernel "$kernel" --results "$raw" --timeout 10800
		   --log "$raw/console.log" -- bash scripts/studies/overhead.sh "$raw" "$@")
	{
		echo "command	${cmd[*]}"
		echo "kernel_dir	$(realpath "$kernel")"
		echo "host	$(uname -nr) $(nproc) CPUs, $(qemu-system-x86_64 --version | head -1)"
		echo "load_before	$(cut -d' ' -f1-3 /proc/loadavg)"
		echo "started	$(date -u +%FT%TZ)"
	} >"$raw/host.tsv"
	t0=$(date +%s)
	"${cmd[@]}" || rc=$?
	{
		echo "load_after	$(cut -d' ' -f1-3 /proc/loadavg)"
		echo "elapsed_s	$(($(date +%s) - t0))"
		echo "vm_exit	$rc"
	} >>"$raw/host.tsv"
	[ "$rc" = 0 ] || echo "overhead-report: the guest exited $rc; rendering what it wrote" >&2
}

[ -n "$raw" ] || boot "$@"
[ -s "$raw/events.tsv" ] || { echo "overhead-report: $raw/events.tsv missing" >&2; exit 2; }
mkdir -p "$outdir/raw"
for f in env.tsv host.tsv events.tsv bpfstats.tsv workloads.tsv; do
	[ -f "$raw/$f" ] && cp "$raw/$f" "$outdir/raw/$f"
done
kv() { awk -F'\t' -v k="$2" '$1 == k { sub(/^[^\t]*\t/, ""); print; exit }' "$1" 2>/dev/null; }
calls=$(kv "$raw/env.tsv" calls)

# per_event: "variant median min max reps events_per_call" per variant:
# (loop - the same rep's probe-less loop) / calls, over the reps
per_event() {
	awk -F'\t' -v calls="$calls" '
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	NR > 1 && $7 == 0 && $3 > 0 { loop[$1, $2] = $3; ev[$1, $2] = $4; reps[$1] = 1
		if (!($2 in seen)) { seen[$2] = 1; order[++nv] = $2 } }
	END {
		for (k = 1; k <= nv; k++) {
			v = order[k]; n = 0; e = 0
			if (v == "none") continue
			for (r in reps) if ((r, v) in loop && (r, "none") in loop) {
				d[++n] = (loop[r, v] - loop[r, "none"]) / calls
				e += ev[r, v] / calls
			}
			if (!n) continue
			lo = hi = d[1]; for (i = 2; i <= n; i++) { if (d[i] < lo) lo = d[i]; if (d[i] > hi) hi = d[i] }
			printf "%s %.1f %.1f %.1f %d %.3f\n", v, med(d, n), lo, hi, n, e / n
		}
		n = 0; for (r in reps) if ((r, "none") in loop) d[++n] = loop[r, "none"] / calls
		if (n) printf "none %.1f %.1f %.1f %d 0\n", med(d, n), 0, 0, n
	}' "$raw/events.tsv"
}
pe=$(per_event)
# meth VARIANT: the method the row reported (events.tsv column 5)
meth() { awk -F'\t' -v v="$1" '$2 == v && $5 != "" { print $5; exit }' "$raw/events.tsv"; }
cost() { echo "$pe" | awk -v v="$1" -v f="${2:-2}" '$1 == v { print $f }'; }
ratio() { awk -v a="$(cost "$1")" -v b="$(cost "$2")" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
goal() { awk -v r="$1" 'BEGIN { print (r == "n/a" ? "not measured" : (r <= 0.7 ? "**met**" : "**not met**")) }'; }

events_table() {
	local v label
	echo "| probe | what runs per event | added per event (instr.) | min..max | reps | events per call |"
	echo "|---|---|---:|---|---:|---:|"
	for v in fb-fentry fb-pair fb-kprobe bt-kfunc bt-kprobe; do
		case "$v" in
		fb-fentry) label="foliobench \`getppid\` row, \`run --attach fentry\` | $(meth fb-fentry) (the first method tried; fentry + fexit where the kernel has no fsession)" ;;
		fb-pair) label="foliobench \`getppid\` row, \`FB_FUNCHOOK=pair run --attach fentry\` | fentry + fexit (task storage)" ;;
		fb-kprobe) label="foliobench \`getppid\` row, \`run --attach kprobe\` | kprobe + kretprobe" ;;
		bt-kfunc) label="bpftrace kfunc/kretfunc one-liner | fentry + fexit" ;;
		bt-kprobe) label="bpftrace kprobe/kretprobe one-liner | kprobe + kretprobe" ;;
		esac
		[ -n "$(cost "$v")" ] || { echo "| $label | not measured | | | |"; continue; }
		echo "| $label | $(cost "$v") | $(cost "$v" 3)..$(cost "$v" 4) | $(cost "$v" 5) | $(cost "$v" 6) |"
	done
}

ablation_table() {
	local v what full
	full=$(cost fb-fentry)
	echo "| variant | what it leaves out or swaps | added per event (instr.) | vs the full fentry row |"
	echo "|---|---|---:|---:|"
	for v in fb-fentry fb-pair fb-fentry-empty fb-fentry-hash fb-fentry-tidhash fb-fentry-stats \
		 fb-fentry-hist fb-fentry-hash,stats,hist fb-kprobe fb-kprobe-empty fb-kprobe-tidhash \
		 bt-kfunc bt-kfunc-empty bt-kfunc-stash bt-kprobe bt-kprobe-empty; do
		[ -n "$(cost "$v")" ] || continue
		case "$v" in
		fb-fentry|fb-kprobe|bt-kfunc|bt-kprobe) what="nothing (as above)" ;;
		fb-pair) what="fentry + fexit, start in task storage: the pair the fb-fentry-* variants take apart" ;;
		*-empty) what="everything: both programs return at once (the attach path alone)" ;;
		*-hash,stats,hist) what="task storage (per-CPU slot instead), per-CPU stats, histogram" ;;
		*-hash) what="start time in a per-CPU slot instead of task storage" ;;
		*-tidhash) what="start time in the (tid, slot) hash instead of task storage (the stash before this measurement)" ;;
		*-stats) what="per-CPU count/sum/min/max" ;;
		*-hist) what="histogram bucket add" ;;
		bt-kfunc-stash) what="the histogram (stash by tid and delete only)" ;;
		esac
		echo "| $v | $what | $(cost "$v") | $(awk -v a="$(cost "$v")" -v b="$full" \
			'BEGIN { if (b > 0) printf "%+.1f", a - b; else print "" }') |"
	done
}

# peers_section: foliobench's rows against libbpf-tools funclatency, from the
# "peers" part's reps (p1, p2, ...: none, fb-fentry, lt-funclatency,
# fb-kprobe interleaved); per rep, added cost = (loop - that rep's none) / calls
peers_section() {
	grep -q '	lt-funclatency	' "$raw/events.tsv" || return 0
	cat <<MD
## Against libbpf-tools funclatency (issue #27 item 4)

Part \`peers\` of \`scripts/overhead.sh\`: in each rep, interleaved in the same
boot, the loop without a probe, with foliobench's row (fentry/fexit), under
libbpf-tools $(kv "$raw/env.tsv" libbpf-tools) \`funclatency $(kv "$raw/env.tsv" symbol)\`
(its BPF programs are a kprobe and a kretprobe, the only method it has: a
(pid) hash for the start time, a log2 histogram in .bss) while a probe-less
foliobench runs the loop, and with foliobench's row forced to
kprobe/kretprobe. Per rep: added per event, and foliobench / funclatency.

| rep | foliobench fentry (instr.) | funclatency (instr.) | foliobench kprobe (instr.) | fentry / funclatency | kprobe / funclatency | events per call (fb fentry, funclatency) |
|---|---:|---:|---:|---:|---:|---|
MD
	awk -F'\t' -v calls="$calls" '
	NR > 1 && $1 ~ /^p/ && $7 == 0 && $3 > 0 { loop[$1, $2] = $3; ev[$1, $2] = $4; if (!($1 in seen)) { seen[$1] = 1; reps[++n] = $1 } }
	END {
		for (i = 1; i <= n; i++) {
			r = reps[i]; if (!((r, "none") in loop)) continue
			f = ((r, "fb-fentry") in loop) ? (loop[r, "fb-fentry"] - loop[r, "none"]) / calls : -1
			l = ((r, "lt-funclatency") in loop) ? (loop[r, "lt-funclatency"] - loop[r, "none"]) / calls : -1
			k = ((r, "fb-kprobe") in loop) ? (loop[r, "fb-kprobe"] - loop[r, "none"]) / calls : -1
			printf "| %s | %.1f | %.1f | %.1f | %s | %s | %.3f, %.3f |\n", r, f, l, k,
				(f >= 0 && l > 0) ? sprintf("%.2f", f / l) : "n/a",
				(k >= 0 && l > 0) ? sprintf("%.2f", k / l) : "n/a",
				ev[r, "fb-fentry"] / calls, ev[r, "lt-funclatency"] / calls
		}
	}' "$raw/events.tsv"
	echo
}

progs_table() {
	[ -s "$raw/bpfstats.tsv" ] || { echo "(not measured)"; return; }
	echo "| run | program | type | run_cnt | instr. per run (bpf_stats) | xlated insns | jited insns |"
	echo "|---|---|---|---:|---:|---:|---:|"
	awk -F'\t' 'NR > 1 && $5 > 0 { printf "| %s | %s | %s | %d | %.1f | %d | %s |\n",
		$1, $4, $3, $5, $6 / $5, $7, $9 }' "$raw/bpfstats.tsv"
}

wl_rows() {
	[ -s "$raw/workloads.tsv" ] || return 0
	awk -F'\t' '
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	NR > 1 && $6 == 0 && $4 > 0 { k = $2 SUBSEP $3; n[k]++; w[k, n[k]] = $4; at[k] = $5
		all[k] = all[k] (all[k] == "" ? "" : ", ") sprintf("%.1f", $4 / 1e6)
		busy[k] += $7; idle[k] += $8 }
	END {
		split("nft sysfs", wls, " "); split("none nolocks all", sets, " ")
		for (i = 1; i <= 2; i++) {
			k0 = wls[i] SUBSEP "none"
			if (!(k0 in n)) continue
			for (m = 1; m <= n[k0]; m++) a[m] = w[k0, m]; base = med(a, n[k0])
			for (j = 1; j <= 3; j++) {
				k = wls[i] SUBSEP sets[j]; if (!(k in n)) continue
				for (m = 1; m <= n[k]; m++) a[m] = w[k, m]; v = med(a, n[k])
				printf "| %s | %s | %d | %.1f | %s | %s | %.0f%% |\n", wls[i], sets[j], at[k],
					v / 1e6, all[k], sets[j] == "none" ? "" : sprintf("%+.2f%%", (v / base - 1) * 100),
					100 * idle[k] / (busy[k] + idle[k] > 0 ? busy[k] + idle[k] : 1)
			}
		}
	}' "$raw/workloads.tsv"
}

render() {
	local rf rk
	rf=$(ratio fb-fentry bt-kfunc) rk=$(ratio fb-kprobe bt-kprobe)
	cat <<MD
# Probe overhead: foliobench against bpftrace (issue #17 item 2)

Generated by \`scripts/studies/overhead-report.sh\` from \`$(basename "$raw")\` (tables in
\`raw/\`); guest driver \`scripts/studies/overhead.sh\`. One boot of an
instruction-paced guest (\`--clock icount\`, shift 0, one vCPU): every time
below is a count of guest instructions (1 ns = 1 instruction), independent of
the host's load.

## Per-event cost

The \`trigger\` workload calls getppid(2) $calls times in a tight loop
(op \`loop_ns\`); the catalogue's \`getppid\` row hooks its handler,
\`$(kv "$raw/env.tsv" symbol)\`. Added per event = (loop with the probe -
loop without, same rep) / calls; reps interleaved in the same boot (none,
foliobench fentry, foliobench kprobe, bpftrace kfunc, bpftrace kprobe).
Without any probe one getppid() call costs **$(cost none) instructions**.

$(events_table)

"events per call": foliobench's count for the row, or the total of
bpftrace's histogram, divided by the calls (1.000 = every call seen).

bpftrace one-liners, the README's shape (start time by tid, histogram of the
delta):

    $(kv "$raw/env.tsv" symbol | sed 's/.*/bpftrace -e '"'"'kfunc:& { @s[tid] = nsecs; } kretfunc:& \/@s[tid]\/ { @ns = hist(nsecs - @s[tid]); delete(@s[tid]); }'"'"'/')
    (the kprobe one: kprobe:/kretprobe: in place of kfunc:/kretfunc:)

| attach type | foliobench / bpftrace | goal <= 0.7 |
|---|---:|---|
| fentry/fexit (kfunc) | $rf | $(goal "$rf") |
| kprobe/kretprobe | $rk | $(goal "$rk") |

$(peers_section)

## Where the time goes

Variants, same boot: foliobench's fentry row with parts of its BPF programs
switched off (\`FB_ABLATE\`, see \`foliobench run --help\`), and bpftrace with
empty programs and without the histogram.

$(ablation_table)

Per program, with \`kernel.bpf_stats_enabled=1\` while a long loop ran
(\`run_time_ns / run_cnt\`: the program's own instructions, plus the two
clock reads bpf_stats puts around it; the rest of the added cost is the
trampoline or kprobe path around the programs):

$(progs_table)

MD
	[ -f "$outdir/notes.md" ] && { cat "$outdir/notes.md"; echo; }
	cat <<MD
## Whole-workload slowdown

Default parameters; \`all\` = every catalogue row, \`nolocks\` = all but the
lock rows, \`none\` = no row; the order alternates per rep. Wall = the
workload's own wall time as \`foliobench run\` reports it (virtual ms: the
instructions it ran plus idle time warped to the next timer). "idle" = idle
share of the whole \`run\` (attach included) in /proc/stat. Goal: at most +5%.

| workload | probes | rows attached | median wall (virtual ms) | each rep | vs none | idle |
|---|---|---:|---:|---|---:|---:|
$(wl_rows)

\`all\` minus \`nolocks\` is the lock rows' share. A lock row cannot hook its
one lock: it puts a program on the lock function itself (\`down_write\`,
\`_raw_spin_lock\`, ...) and keeps only the acquisitions of its lock's
address, so it runs on every acquisition of every lock of that kind in the
kernel while it is attached; the sysfs workload takes spinlocks and rwsems
far more often than it calls the kernfs functions. The function rows cost
per call of the hooked function only (the per-event table above). Where a
workload sleeps (sysfs waits for netdevsim), idle time is warped to the
next timer, so its wall moves by tens of virtual ms from rep to rep.

## Commands and environment

    $(kv "$raw/host.tsv" command)
    scripts/studies/overhead-report.sh --raw $(basename "$raw")   # this file

| | |
|---|---|
| guest kernel | $(kv "$raw/env.tsv" kernel) ($(kv "$raw/host.tsv" kernel_dir)) |
| guest command line | \`$(kv "$raw/env.tsv" cmdline)\` |
| bpftrace, bpftool | $(kv "$raw/env.tsv" bpftrace), $(kv "$raw/env.tsv" bpftool) |
| host | $(kv "$raw/host.tsv" host) |
| host load (1/5/15 min) | before $(kv "$raw/host.tsv" load_before), after $(kv "$raw/host.tsv" load_after) |
| boot | started $(kv "$raw/host.tsv" started), $(kv "$raw/host.tsv" elapsed_s) s, exit $(kv "$raw/host.tsv" vm_exit) |
MD
}
render >"$outdir/README.md"
echo "wrote $outdir/README.md" >&2
