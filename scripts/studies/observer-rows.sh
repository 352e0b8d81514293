#!/usr/bin/env bash
# observer-rows.sh OUTDIR [ROUNDS] - per row, what the BPF observer adds to
# each published time (issue 39): the main job (ab, nft + sysfs, the
# baseline and patched perf kernels, icount) once with --observer bpf and
# once with --observer plugin, ROUNDS rounds each (default 2), then per arm
# the function rows' cmean and the lock rows' hold mean, p50 and
# registration cmean by each observer (`foliobench compare DIR --format csv`:
# the median over the rounds), as the markdown table that
# reports/observer/README.md quotes (OUTDIR/{bpf,plugin}.csv: the compare
# output it reads).  ab replaces OUTDIR/{bpf,plugin}'s rounds.  Runs on the
# host from the repository root.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: observer-rows.sh OUTDIR [ROUNDS]}
rounds=${2:-2}
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "observer-rows.sh: ROUNDS is 1..99, not '$rounds'" >&2; exit 2; }
mkdir -p "$out"
for obs in bpf plugin; do
	nice -n 10 ./foliobench ab --rounds "$rounds" --observer $obs --workload nft \
		--workload sysfs --out "$out/$obs" >"$out/$obs.out" 2>&1 ||
		{ echo "observer-rows.sh: ab --observer $obs failed (see $out/$obs.out)" >&2; exit 1; }
	./foliobench compare "$out/$obs" --format csv >"$out/$obs.csv" 2>/dev/null
done
echo "# host: $(nproc) CPUs, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# kernels: $(jq -r '[.arms[] | .kernel] | join(", ")' "$out/plugin/ab.json" 2>/dev/null)"
# row metric -> base new, per observer
awk -F, '
FNR == 1 { obs = FILENAME; sub(/.*\//, "", obs); sub(/\.csv$/, "", obs); next }
($1 == "func" && $3 == "cmean") || ($1 == "lock" && ($3 == "hold_mean" || $3 == "hold_p50" ||
    $3 == "register_hold_cmean")) {
	k = $2 " " $3
	if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	v[obs, k, "b"] = $8; v[obs, k, "n"] = $9
}
function f(x) { return x == "" ? "-" : sprintf("%.1f", x) }
function add(b, p) { return b == "" || p == "" || p == 0 ? "-" : sprintf("%+.0f%%", (b / p - 1) * 100) }
END {
	print "| row | metric | baseline BPF | baseline plugin | BPF adds | patched BPF | patched plugin | BPF adds |"
	print "|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, a, " ")
		bb = v["bpf", k, "b"]; pb = v["plugin", k, "b"]; bn = v["bpf", k, "n"]; pn = v["plugin", k, "n"]
		if (bb == "" && pb == "" && bn == "" && pn == "") continue
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", a[1], a[2], f(bb), f(pb), add(bb, pb),
		       f(bn), f(pn), add(bn, pn)
	}
}' "$out/bpf.csv" "$out/plugin.csv"
