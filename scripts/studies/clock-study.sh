#!/usr/bin/env bash
# clock-study.sh - host-clock vs instruction-paced (icount) guests, side by
# side: the numbers behind reports/clock/README.md.
#
#   scripts/studies/clock-study.sh aa MODE LOAD ROUNDS OUT
#       A/A: `ab --clock MODE` baseline vs baseline, nft + sysfs, ROUNDS
#       per arm, into OUT/aa-MODE-LOAD.  LOAD is "hog" (two busy loops, one
#       per host CPU, for the whole run) or "asis" (whatever the host does).
#   scripts/studies/clock-study.sh aanft MODE LOAD ROUNDS OUT
#       A/A with the gate study's rows (reports/gate/): nft workload,
#       probes nft_trans_alloc* and nf_tables_trans_destroy_work, into
#       OUT/aanft-MODE-LOAD; the A/A pool for `inject`'s detection pool.
#   scripts/studies/clock-study.sh inject MODE LOAD ROUNDS LOOPS OUT
#       baseline vs the testing `regress` kernel with
#       nf_tables.foliobench_inject_loops=LOOPS (inject_ns=0) into
#       OUT/inj-MODE-LOAD-LOOPS.
#   scripts/studies/clock-study.sh cv DIR...
#       per-metric CV over all rounds of each DIR (both arms of an A/A run
#       are one kernel: pooled), from `foliobench compare --format csv`.
#
# Every run records the load average before and after in OUT/*.load.
set -euo pipefail
cd "$(dirname "$0")/../.."
fb=$PWD/foliobench

hog_pids=()
hog_start() {
	for _ in $(seq "$(nproc)"); do
		sh -c 'while :; do :; done' &
		hog_pids+=($!)
	done
}
hog_stop() {
	[ ${#hog_pids[@]} -eq 0 ] || kill "${hog_pids[@]}" 2>/dev/null || true
	hog_pids=()
}
trap hog_stop EXIT INT TERM

die() { echo "clock-study.sh: $*" >&2; exit 2; }
# the MODE, LOAD, ROUNDS and LOOPS words, before anything runs
check_args() {	# MODE LOAD ROUNDS [LOOPS]
	case "$1" in host|icount) ;; *) die "MODE is host or icount, not '$1'" ;; esac
	case "$2" in hog|asis) ;; *) die "LOAD is hog or asis, not '$2'" ;; esac
	[[ $3 =~ ^[1-9][0-9]{0,2}$ ]] || die "ROUNDS is a whole number from 1 to 999, not '$3'"
	[ $# -lt 4 ] || [[ $4 =~ ^[0-9]{1,4}$ ]] || die "LOOPS is a whole number from 0 to 9999, not '$4'"
}

run_ab() {	# run_ab LOAD DIR ARGS...
	local load=$1 dir=$2
	shift 2
	[ "$load" = hog ] && hog_start
	echo "before: $(cut -d' ' -f1-3 /proc/loadavg)" >"$dir.load"
	"$fb" ab "$@" --out "$dir" >"$dir.log" 2>&1 || echo "ab exit $? (see $dir.log)" >&2
	echo "after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$dir.load"
	hog_stop
}

cv() {	# CV in % of every metric over the rounds of both arms
	local d
	for d in "$@"; do
		mkdir -p "$d/.pool"
		rm -f "$d/.pool"/*.json
		for f in "$d"/*/round-*.json; do
			ln -sf "$(realpath "$f")" "$d/.pool/$(basename "$(dirname "$f")")-$(basename "$f")"
		done
		"$fb" compare "$d/.pool" "$d/.pool" --format csv 2>/dev/null |
			awk -F, -v d="$(basename "$d")" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
				{ print d "," $c["kind"] ":" $c["name"] ":" $c["metric"] "," $c["base_cv_pct"] }'
		rm -rf "$d/.pool"
	done
}

case "${1:-}" in
aa)
	[ $# -eq 5 ] || die "usage: clock-study.sh aa MODE LOAD ROUNDS OUT"
	mode=$2 load=$3 rounds=$4 out=$5
	check_args "$mode" "$load" "$rounds"
	mkdir -p "$out"
	run_ab "$load" "$out/aa-$mode-$load" --clock "$mode" --baseline baseline \
		--patched baseline --workload nft --workload sysfs --rounds "$rounds"
	;;
aanft)
	[ $# -eq 5 ] || die "usage: clock-study.sh aanft MODE LOAD ROUNDS OUT"
	mode=$2 load=$3 rounds=$4 out=$5
	check_args "$mode" "$load" "$rounds"
	mkdir -p "$out"
	run_ab "$load" "$out/aanft-$mode-$load" --clock "$mode" --baseline baseline \
		--patched baseline --workload nft --probes 'nft_trans_alloc*' \
		--probes nf_tables_trans_destroy_work --rounds "$rounds"
	;;
inject)
	[ $# -eq 6 ] || die "usage: clock-study.sh inject MODE LOAD ROUNDS LOOPS OUT"
	mode=$2 load=$3 rounds=$4 loops=$5 out=$6
	check_args "$mode" "$load" "$rounds" "$loops"
	mkdir -p "$out"
	run_ab "$load" "$out/inj-$mode-$load-$loops" --clock "$mode" --baseline baseline \
		--patched regress --workload nft --probes 'nft_trans_alloc*' \
		--probes nf_tables_trans_destroy_work --rounds "$rounds" \
		--append "nf_tables.foliobench_inject_ns=0 nf_tables.foliobench_inject_loops=$loops"
	;;
cv)
	shift
	cv "$@"
	;;
*)
	sed -n '2,24p' "$0"
	exit 2
	;;
esac
