#!/usr/bin/env bash
# lock-rows.sh OUTDIR - the lock-row methods side by side, from one
# scripts/overhead.sh boot run with --wl-sets including the methods:
#
#   bash scripts/overhead.sh OUTDIR --parts workloads --wl-reps N \
#       --wl-sets 'none nolocks all-fexit all locks-fexit locks'
#
# Prints a markdown table: per workload and row set the median workload
# wall time (virtual ms under --clock icount), every rep, and the change
# against `none` of the same boot.  Sets: none = no row; nolocks = every row
# but the lock rows; locks = the lock rows alone; all = every row; a
# -fexit suffix = FB_LOCKHOOK=fexit (the lock-row method before: fexit on
# the acquire function, holds in the (tid, slot) hash); no suffix = fentry
# on the acquire function, holds in task storage.  Needs awk.
set -euo pipefail
out=${1:?usage: lock-rows.sh OUTDIR}
tsv=$out/workloads.tsv
[ -s "$tsv" ] || { echo "lock-rows.sh: no $tsv" >&2; exit 2; }

echo "| workload | rows | method of the lock rows | rows attached | median wall (virtual ms) | each rep | vs none | runs failed |"
echo "|---|---|---|---:|---:|---|---:|---:|"
awk -F'\t' '
NR == 1 { next }
{
	k = $2 SUBSEP $3
	if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	w[k] = w[k] (w[k] == "" ? "" : ",") $4
	att[k] = $5
	if ($6 != 0) bad[k]++
}
function median(list,    a, m, i, j, t) {
	m = split(list, a, ",")
	for (i = 1; i <= m; i++)
		for (j = i + 1; j <= m; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
	for (i = 1; i <= n; i++) {
		split(order[i], p, SUBSEP)
		wl = p[1]; set = p[2]
		rows = set; method = ""
		sub(/-fexit$/, "", rows); sub(/-fentryhash$/, "", rows)
		if (rows == "none" || rows == "nolocks") method = "-"
		else if (set ~ /-fexit$/) method = "fexit on acquire, (tid, slot) hash (before)"
		else if (set ~ /-fentryhash$/) method = "fentry on acquire, (tid, slot) hash"
		else method = "fentry on acquire, task storage (now)"
		med = median(w[order[i]])
		base = median(w[wl SUBSEP "none"])
		reps = w[order[i]]; gsub(/,/, ", ", reps)
		m = split(w[order[i]], r, ",")
		each = ""
		for (j = 1; j <= m; j++) each = each (j > 1 ? ", " : "") sprintf("%.1f", r[j] / 1e6)
		vs = (rows == "none" || base == 0) ? "" : sprintf("%+.2f%%", (med / base - 1) * 100)
		printf "| %s | %s | %s | %s | %.1f | %s | %s | %d |\n", wl, rows, method, att[order[i]],
			med / 1e6, each, vs, bad[order[i]] + 0
	}
}' "$tsv"
