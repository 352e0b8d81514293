#!/usr/bin/env bash
# build-spread.sh - how far apart BUILDS of the same kernel source land on
# each gated row, beside the boot-to-boot spread within one build.  The
# gate's shipped noise (kernel-patches/noise/) is calibrated on A/A rounds
# of ONE build; an A/B pair whose arms are two builds (two machines, or
# a comment-only patch) also carries each build's own offset.
#
#   scripts/studies/build-spread.sh [--row ID]... [--noise FILE] AB_DIR...
#
# The rounds of every arm of every AB_DIR (its ab.json: runs with exit 0)
# are grouped by the arm's kernel build id, so one build measured in two
# directories is one group.  Each round's value of a row is the one
# `foliobench compare` computes (ROUND against itself, its csv `base`
# column): cmean, hold_p50, register_hold_cmean as the gate reads them.
# Rows (--row kind:name:metric, repeatable): default the rows the gate
# decides on (compare's gate_verdict column set and not "untested").
#
# One-way random-effects ANOVA of log(value) by build:
#   within  = sqrt(MS_within), the pooled boot-to-boot SD (as the noise
#             file's "spread")
#   tau     = sqrt(max(0, (MS_between - MS_within) / n0)), the SD of the
#             builds' own offsets, n0 = (N - sum n_i^2 / N) / (k - 1)
#   F, p    = MS_between / MS_within on (k - 1, N - k) degrees of freedom
#   tau90   = a one-sided 90% upper bound of tau: tau^2 / within^2 is at
#             most (F / q - 1) / n0, q the F(k - 1, N - k) distribution's
#             10% quantile (exact for equal rounds per build)
# All in percent of the value (100 x log units).  Per build: its id (8
# hex), rounds, and its geometric mean's offset from the grand mean (%).
# --noise FILE adds the row's calibrated spread from that file ("cal").
set -euo pipefail

die() { echo "build-spread: $*" >&2; exit 2; }
rows=() noise='' dirs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--row) [ $# -ge 2 ] || die "--row needs kind:name:metric"; rows+=("$2"); shift 2 ;;
	--noise) [ $# -ge 2 ] || die "--noise needs a file"; noise=$2; shift 2 ;;
	-h|--help) sed -n '2,28p' "$0"; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) [ -f "$1/ab.json" ] || die "$1: not an ab directory (no ab.json)"; dirs+=("$1"); shift ;;
	esac
done
[ ${#dirs[@]} -gt 0 ] || die "give one or more ab directories"
[ -z "$noise" ] || jq -e '.schema == "foliobench-noise"' "$noise" >/dev/null 2>&1 ||
	die "$noise: not a foliobench noise file"
for r in "${rows[@]}"; do
	[[ $r =~ ^[a-z]+:[^:,]+:[A-Za-z0-9_]+$ ]] || die "--row '$r': want kind:name:metric"
done
here=$(cd "$(dirname "$0")/../.." && pwd)
fb=$here/foliobench
work=$(mktemp -d /tmp/build-spread.XXXXXX)
trap 'rm -rf "$work"' EXIT

# "build_id round-file" for every completed round of every arm.
for d in "${dirs[@]}"; do
	jq -r --arg d "$d" '(.arms | map({(.name): .build_id}) | add) as $b
		| .runs[] | select(.exit == 0 and (.result // "") != "")
		| "\($b[.arm] // "unknown") \($d)/\(.result)"' "$d/ab.json" 2>/dev/null ||
		die "$d/ab.json: cannot read its arms and runs"
done >"$work/rounds"
[ -s "$work/rounds" ] || die "no completed rounds in ${dirs[*]}"

# Every round's values: "build row value" (compare's csv: kind,name,metric
# in columns 1-3, base in 8, gate_verdict in 21).
while read -r id f; do
	[ -f "$f" ] || die "$f: listed in ab.json but missing"
	"$fb" compare -f csv "$f" "$f" >"$work/csv" || die "$f: compare failed"
	awk -F, -v id="$id" 'NR > 1 && $8 != "" {
		print id, $1 ":" $2 ":" $3, $8, ($21 != "" && $21 != "untested") }' "$work/csv"
done <"$work/rounds" >"$work/values"
if [ ${#rows[@]} -eq 0 ]; then
	mapfile -t rows < <(awk '$4 == 1 && !s[$2]++ { print $2 }' "$work/values")
	[ ${#rows[@]} -gt 0 ] || die "no gated rows in the rounds (give --row)"
fi
if [ -n "$noise" ]; then
	jq -r '.metrics | to_entries[] | "\(.key) \(.value.spread)"' "$noise"
fi >"$work/cal"

printf '%s\n' "${rows[@]}" >"$work/rows"
awk -v noisef="$work/cal" -v rowsf="$work/rows" -v hasnoise="${noise:+1}" '
# Regularised incomplete beta I_x(a, b) (Numerical Recipes betacf).
function betacf(a, b, x,    m, m2, aa, c, d, del, h, qab, qap, qam) {
	qab = a + b; qap = a + 1; qam = a - 1; c = 1; d = 1 - qab * x / qap
	if (d < 1e-300 && d > -1e-300) d = 1e-300
	d = 1 / d; h = d
	for (m = 1; m <= 300; m++) {
		m2 = 2 * m
		aa = m * (b - m) * x / ((qam + m2) * (a + m2))
		d = 1 + aa * d; if (d < 1e-300 && d > -1e-300) d = 1e-300
		c = 1 + aa / c; if (c < 1e-300 && c > -1e-300) c = 1e-300
		d = 1 / d; h *= d * c
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
		d = 1 + aa * d; if (d < 1e-300 && d > -1e-300) d = 1e-300
		c = 1 + aa / c; if (c < 1e-300 && c > -1e-300) c = 1e-300
		d = 1 / d; del = d * c; h *= del
		if (del - 1 < 3e-12 && 1 - del < 3e-12) break
	}
	return h
}
function lgam(z,    s) {	# Stirling with shift, enough for p values
	s = 0
	while (z < 8) { s -= log(z); z++ }
	return s + (z - 0.5) * log(z) - z + 0.5 * log(2 * 3.141592653589793) \
		+ 1 / (12 * z) - 1 / (360 * z ^ 3) + 1 / (1260 * z ^ 5)
}
function ibeta(a, b, x,    bt) {
	if (x <= 0) return 0
	if (x >= 1) return 1
	bt = exp(lgam(a + b) - lgam(a) - lgam(b) + a * log(x) + b * log(1 - x))
	if (x < (a + 1) / (a + b + 2)) return bt * betacf(a, b, x) / a
	return 1 - bt * betacf(b, a, 1 - x) / b
}
function fsf(f, d1, d2) {	# P(F > f)
	if (f <= 0) return 1
	return ibeta(d2 / 2, d1 / 2, d2 / (d2 + d1 * f))
}
function fq(a, d1, d2,    lo, hi, mid, i) {	# the F value with P(F > f) = 1 - a
	lo = -30; hi = 30
	for (i = 0; i < 100; i++) {
		mid = (lo + hi) / 2
		if (fsf(exp(mid), d1, d2) > 1 - a) lo = mid; else hi = mid
	}
	return exp((lo + hi) / 2)
}
FILENAME == noisef { cal[$1] = $2; next }
FILENAME == rowsf { want[$1] = ++nw; order[nw] = $1; next }
($2 in want) && $3 > 0 {
	r = $2; g = $1
	if (!((r, g) in n)) { ng[r]++; gid[r, ng[r]] = g }
	n[r, g]++; s[r, g] += log($3); ss[r, g] += log($3) ^ 2
}
END {
	printf "%-44s %6s %6s %9s %9s %9s %13s %8s", "row", "builds", "rounds", "within%", "tau%",
		"tau90%", "F(df1,df2)", "p"
	if (hasnoise) printf " %6s", "cal%"
	printf "  per build: id rounds offset%%\n"
	for (i = 1; i <= nw; i++) {
		r = order[i]; k = ng[r]; N = 0; S = 0; SW = 0; S2n = 0
		for (j = 1; j <= k; j++) {
			g = gid[r, j]; N += n[r, g]; S += s[r, g]; S2n += n[r, g] ^ 2
			SW += ss[r, g] - s[r, g] ^ 2 / n[r, g]
		}
		if (k < 2 || N - k < 1) {
			printf "%-44s %6d %6d  (needs 2 builds and more rounds than builds)\n", r, k, N
			continue
		}
		gm = S / N; SB = 0
		for (j = 1; j <= k; j++) { g = gid[r, j]; SB += n[r, g] * (s[r, g] / n[r, g] - gm) ^ 2 }
		if (SW < 0) SW = 0
		msb = SB / (k - 1); msw = SW / (N - k); n0 = (N - S2n / N) / (k - 1)
		t2 = (msb - msw) / n0; if (t2 < 0) t2 = 0
		F = msw > 0 ? msb / msw : (msb > 0 ? 1e99 : 0)
		p = msw > 0 ? fsf(F, k - 1, N - k) : (msb > 0 ? 0 : 1)
		up = msw > 0 ? (F / fq(0.1, k - 1, N - k) - 1) * msw / n0 : t2
		if (up < 0) up = 0
		printf "%-44s %6d %6d %9.4f %9.4f %9.4f %7.2f(%d,%d) %8.2g", r, k, N, 100 * sqrt(msw),
			100 * sqrt(t2), 100 * sqrt(up), F, k - 1, N - k, p
		if (hasnoise) printf " %6s", (r in cal) ? sprintf("%.4f", 100 * cal[r]) : "-"
		printf " "
		for (j = 1; j <= k; j++) {
			g = gid[r, j]
			printf " %s %d %+.4f", substr(g, 1, 8), n[r, g], 100 * (exp(s[r, g] / n[r, g] - gm) - 1)
		}
		printf "\n"
	}
}' "$work/cal" "$work/rows" "$work/values"
