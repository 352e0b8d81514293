#!/usr/bin/env bash
# lock-rows.sh OUTDIR - the lock-row methods side by side, from one
# scripts/overhead.sh boot run with --wl-sets including the methods:
#
#   bash scripts/overhead.sh OUTDIR --parts workloads --wl-reps N \
#       --wl-sets 'none nolocks all-task all locks-task locks'
#
# Prints a markdown table: per workload and row set the median workload
# wall time (virtual ms under --clock icount), every rep, the change
# against `none` of the same boot, and for sysfs each phase's median wall
# and busy time (create = registration, remove).  Sets: none = no row;
# nolocks = every row but the lock rows; locks = the lock rows alone; all =
# every row; suffixes: -fexit = FB_LOCKHOOK=fexit (fexit on every acquire
# function, holds in the (tid, slot) hash), -task = FB_LOCKHOOK=fentry-task
# (fentry on every acquire function, holds in task storage); no suffix =
# the shipped method (loader/measure/locks.c: a spinlock's hold in this
# CPU's slot from fentry, a mutex's or write hold's in the lock's slot from
# fexit, a read hold in task storage); :ABL = FB_ABLATE=ABL.  Needs awk.
#
# With --parts lockevents (events.tsv rows lk-*), first a table of what one
# call of a function that a lock row's acquire-side program sits on costs
# (FB_LOCKFN: the getppid handler; the row's lock is never taken there, so
# this is the price every unwatched acquisition pays): added instructions
# per call against `none` of the same boot, medians over the reps.
set -euo pipefail
out=${1:?usage: lock-rows.sh OUTDIR}
tsv=$out/workloads.tsv
ev=$out/events.tsv
calls=$(awk -F'\t' '$1 == "calls" { print $2 }' "$out/env.tsv" 2>/dev/null)
[ -s "$tsv" ] || [ -s "$ev" ] || { echo "lock-rows.sh: no $tsv or $ev" >&2; exit 2; }

# the median of a comma-separated list, for both tables' awk
median='function median(list,    a, m, i, j, t) {
	m = split(list, a, ",")
	for (i = 1; i <= m; i++)
		for (j = i + 1; j <= m; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
'

if [ -s "$ev" ] && grep -q $'\tlk-' "$ev"; then
	lksym=$(awk -F'\t' '$1 == "lock_symbol" { print $2 }' "$out/env.tsv" 2>/dev/null)
	lksym=${lksym:+\`$lksym\`}
	echo "| acquire-side program (FB_LOCKFN on ${lksym:-the getppid handler}) | added per call (instr.) | each rep (loop, virtual ns) | reps |"
	echo "|---|---:|---|---:|"
	awk -F'\t' -v calls="${calls:-200000}" "$median"'
	NR == 1 || $1 !~ /^l/ { next }
	{ if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } l[$2] = l[$2] (l[$2] == "" ? "" : ",") $3; c[$2]++ }
	END {
		label["none"] = "none (no program)"
		label["lk-fexit"] = "fexit, (tid, slot) hash (round 2)"
		label["lk-fentryhash"] = "fentry, (tid, slot) hash"
		label["lk-fentry"] = "fentry, task storage (before)"
		label["lk-mutex"] = "mutex row: fexit, lock slot (now)"
		label["lk-spin"] = "spinlock row: fentry, CPU slot (now)"
		label["lk-fexit-empty"] = "fexit trampoline, empty program (FB_ABLATE=empty)"
		label["lk-fentry-empty"] = "fentry trampoline, empty program (FB_ABLATE=empty)"
		base = median(l["none"])
		for (i = 1; i <= n; i++) {
			v = order[i]; reps = l[v]; gsub(/,/, ", ", reps)
			add = v == "none" ? sprintf("(%.1f per call)", base / calls) : sprintf("%.1f", (median(l[v]) - base) / calls)
			printf "| %s | %s | %s | %d |\n", label[v] ? label[v] : v, add, reps, c[v]
		}
	}' "$ev"
	echo
fi
[ -s "$tsv" ] || exit 0

echo "| workload | rows | method of the lock rows | rows attached | median wall (virtual ms) | each rep | vs none | create: wall / busy (ms) | remove: wall / busy (ms) | runs failed |"
echo "|---|---|---|---:|---:|---|---:|---|---|---:|"
awk -F'\t' "$median"'
function ms(list) { return list ~ /^[0-9,.]+$/ ? sprintf("%.1f", median(list) / 1000) : "-" }
NR == 1 { next }
{
	k = $2 SUBSEP $3
	if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	w[k] = w[k] (w[k] == "" ? "" : ",") $4
	for (f = 9; f <= 12; f++) ph[k, f] = ph[k, f] (ph[k, f] == "" ? "" : ",") $f
	att[k] = $5
	if ($6 != 0) bad[k]++
}
END {
	for (i = 1; i <= n; i++) {
		split(order[i], p, SUBSEP)
		wl = p[1]; set = p[2]
		rows = set; method = ""
		sub(/-fexit$/, "", rows); sub(/-fentryhash$/, "", rows); sub(/-task$/, "", rows)
		sub(/-pair$/, "", rows); sub(/-before$/, "", rows)
		if (set == "nolocks-pair") method = "- (function rows: fentry/fexit, task storage: before)"
		else if (set ~ /-before$/) method = "fentry on acquire, task storage; function rows fentry/fexit (before)"
		else if (rows == "none" || rows == "nolocks") method = "-"
		else if (set ~ /-fexit$/) method = "fexit on acquire, (tid, slot) hash (round 2)"
		else if (set ~ /-fentryhash$/) method = "fentry on acquire, (tid, slot) hash"
		else if (set ~ /-task$/) method = "fentry on acquire, task storage (before)"
		else if (set ~ /:/) method = "slots, FB_ABLATE=" substr(set, index(set, ":") + 1)
		else method = "slots: spinlock per CPU, mutex/write per lock (now)"
		med = median(w[order[i]])
		base = median(w[wl SUBSEP "none"])
		reps = w[order[i]]; gsub(/,/, ", ", reps)
		m = split(w[order[i]], r, ",")
		each = ""
		for (j = 1; j <= m; j++) each = each (j > 1 ? ", " : "") sprintf("%.1f", r[j] / 1e6)
		vs = (rows == "none" || base == 0) ? "" : sprintf("%+.2f%%", (med / base - 1) * 100)
		k = order[i]
		cr = ms(ph[k, 9]) " / " ms(ph[k, 11]); rm = ms(ph[k, 10]) " / " ms(ph[k, 12])
		if (cr == "- / -") cr = "-"
		if (rm == "- / -") rm = "-"
		printf "| %s | %s | %s | %s | %.1f | %s | %s | %s | %s | %d |\n", wl, rows, method, att[k],
			med / 1e6, each, vs, cr, rm, bad[k] + 0
	}
}' "$tsv"
