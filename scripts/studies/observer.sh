#!/usr/bin/env bash
# observer.sh OUTDIR [REPS] [KERNEL] - what each observer costs the measured
# kernel (issue 39): the nft and sysfs workloads' virtual-time wall (icount:
# guest instructions) with no observer, with the TCG plugin, and with every
# BPF row attached, boots interleaved (the order rotates each rep), plus the
# host's wall time per boot.  Runs on the host, from the repository root,
# with ./foliobench and the plugin built (make).
#
#   none    vm --clock icount -- run --probes none        (no row at all)
#   plugin  vm --clock icount --observer plugin -- run    (catalogue function rows)
#   bpf     vm --clock icount -- run                      (every catalogue row)
#
# REPS (default 3) boots per observer; KERNEL defaults to the baseline perf
# kernel.  Writes OUTDIR/raw/<obs>-<rep>.json, OUTDIR/boots.tsv (observer, rep,
# host wall s, per-workload virtual wall ns) and prints the summary table
# (medians; slowdown against none) that reports/observer/README.md quotes.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: observer.sh OUTDIR [REPS] [KERNEL]}
reps=${2:-3}
k=${3:-$(scripts/kernel-build.sh --print baseline perf)}
fb=$PWD/foliobench
[[ $reps =~ ^[1-9][0-9]?$ ]] || { echo "observer.sh: REPS is 1..99, not '$reps'" >&2; exit 2; }
[ -f "$k/bzImage" ] || { echo "observer.sh: no kernel at $k" >&2; exit 2; }
mkdir -p "$out/raw"
out=$(cd "$out" && pwd)
wl=(--workload nft --workload sysfs)
boots=$out/boots.tsv
[ -f "$boots" ] || printf 'observer\trep\thost_s\tnft_ns\tsysfs_ns\n' >"$boots"

boot() {	# boot OBS REP
	local obs=$1 rep=$2 f=$out/raw/$1-$2.json args=() t0 t1
	case $obs in
	none) args=(-- ./foliobench run "${wl[@]}" --probes none --out "$f") ;;
	plugin) args=(--observer plugin --observer-into "$f" -- ./foliobench run "${wl[@]}" --out "$f") ;;
	bpf) args=(-- ./foliobench run "${wl[@]}" --out "$f") ;;
	esac
	t0=$(date +%s.%N)
	nice -n 10 "$fb" vm --clock icount --kernel "$k" --results "$out" \
		--log "$out/raw/$obs-$rep.log" "${args[@]}" >"$out/raw/$obs-$rep.out" 2>&1
	local rc=$?
	t1=$(date +%s.%N)
	if [ $rc != 0 ]; then
		echo "observer.sh: $obs rep $rep: exit $rc (see $out/raw/$obs-$rep.out)" >&2
		return
	fi
	printf '%s\t%s\t%.2f\t%s\t%s\n' "$obs" "$rep" "$(echo "$t1 - $t0" | bc)" \
		"$(jq -r '.workloads[] | select(.name=="nft") | .wall_ns' "$f")" \
		"$(jq -r '.workloads[] | select(.name=="sysfs") | .wall_ns' "$f")" >>"$boots"
	echo "# $obs rep $rep: $(tail -1 "$boots" | cut -f3-)"
}

order=(none plugin bpf)
for ((r = 1; r <= reps; r++)); do
	for ((i = 0; i < 3; i++)); do
		boot "${order[(i + r - 1) % 3]}" "$r"
	done
done

echo "# host: $(nproc) CPUs, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -F'\t' 'NR > 1 { n[$1]++; h[$1, n[$1]] = $3; a[$1, n[$1]] = $4; s[$1, n[$1]] = $5 }
function med(arr, o, k,   v, i, j, t) {
	for (i = 1; i <= k; i++) v[i] = arr[o, i]
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
}
END {
	printf "%-8s %5s %14s %8s %14s %8s %10s %8s\n", "observer", "boots", "nft ns", "vs none",
	       "sysfs ns", "vs none", "host s", "factor"
	split("none plugin bpf", obs, " ")
	for (o = 1; o <= 3; o++) {
		x = obs[o]
		if (!n[x]) continue
		A[x] = med(a, x, n[x]); S[x] = med(s, x, n[x]); H[x] = med(h, x, n[x])
	}
	for (o = 1; o <= 3; o++) {
		x = obs[o]
		if (!n[x]) continue
		printf "%-8s %5d %14.0f %+7.2f%% %14.0f %+7.2f%% %10.1f %7.2fx\n", x, n[x], A[x],
		       (A[x] / A["none"] - 1) * 100, S[x], (S[x] / S["none"] - 1) * 100, H[x],
		       H[x] / H["none"]
	}
}' "$boots"
