#!/usr/bin/env bash
# tests/host/build-spread-test.sh - scripts/studies/build-spread.sh on
# synthetic ab directories (tests/host/lib-rounds.sh), no guest: rounds are
# grouped by the arm's build id across directories, and the random-effects
# ANOVA's within SD, tau, F and p match an independent computation from the
# rounds' known values (latency BASE + 7 r, all calls in one bucket).
# The refusals are rows of tests/host/bad-input.tsv.
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}" || exit 1
export FB=$PWD/foliobench
here=$PWD
. tests/host/lib-rounds.sh
top=$(mktemp -d /tmp/fb-build-spread-test.XXXXXX)
trap 'rm -rf "$top"' EXIT
cd "$top" || exit 1

ok() { echo "ok - build-spread: $*"; }
nok() { echo "not ok - build-spread: $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; fi; }
# setid DIR ARM ID: the build id of one arm in DIR's ab.json
setid() { jq --arg a "$2" --arg id "$3" '(.arms[] | select(.name == $a) | .build_id) = $id' \
	"$1/ab.json" >"$1/ab.tmp" && mv "$1/ab.tmp" "$1/ab.json"; }

# build A in two directories (8 rounds), B and C 4 rounds each
shard a 1 1 4 1000 1100 idA >/dev/null && setid a patched idB
shard b 1 1 4 1000 1050 idA >/dev/null && setid b patched idC
row=func:nft_trans_alloc:cmean
out=$(bash "$here/scripts/studies/build-spread.sh" --row $row a b 2>&1)
rc=$?
check "exit 0 on two ab directories (exit $rc)" test $rc = 0
line=$(grep "^$row " <<<"$out")
read -r _ k n within tau tau90 f p ga na _ gb nb _ gc nc _ <<<"$line"
check "3 builds, 16 rounds; idA's 8 rounds pooled from both directories ($k, $n, $ga $na)" \
	test "$k $n $ga $na $gb $nb $gc $nc" = "3 16 idA 8 idB 4 idC 4"
want=$(python3 - <<'PY'
import math
g = {"A": [1000 + 7 * r for r in range(1, 5)] * 2,
     "B": [1100 + 7 * r for r in range(1, 5)], "C": [1050 + 7 * r for r in range(1, 5)]}
x = {k: [math.log(v) for v in vs] for k, vs in g.items()}
N = sum(len(v) for v in x.values()); k = len(x)
m = sum(sum(v) for v in x.values()) / N
ssb = sum(len(v) * (sum(v) / len(v) - m) ** 2 for v in x.values())
ssw = sum(sum((u - sum(v) / len(v)) ** 2 for u in v) for v in x.values())
msb, msw = ssb / (k - 1), ssw / (N - k)
n0 = (N - sum(len(v) ** 2 for v in x.values()) / N) / (k - 1)
tau = math.sqrt(max(0, (msb - msw) / n0))
F = msb / msw
d2 = N - k	# F(2, d2): P(F > f) = (1 + 2 f / d2) ^ (-d2 / 2)
p = (1 + 2 * F / d2) ** (-d2 / 2)
q = d2 / 2 * (0.9 ** (-2 / d2) - 1)	# its 10% quantile
up = math.sqrt(max(0, (F / q - 1) * msw / n0))
print("%.4f %.4f %.4f %.2f(2,13) %.2g" % (100 * math.sqrt(msw), 100 * tau, 100 * up, F, p))
PY
)
check "within SD, tau, its 90% bound, F and p as computed independently ($within $tau $tau90 $f $p; want $want)" \
	test "$within $tau $tau90 $f $p" = "$want"

# two builds whose rounds are the same values: no spread between builds
shard c 1 1 5 1000 1000 idD >/dev/null && setid c patched idE
line=$(bash "$here/scripts/studies/build-spread.sh" --row $row c 2>/dev/null | grep "^$row ")
read -r _ k n within tau tau90 f p _ <<<"$line"
check "identical builds: tau 0 and its bound 0, F 0, p 1 ($tau $tau90 $f $p)" \
	test "$k $n $tau $tau90 $f $p" = "2 10 0.0000 0.0000 0.00(1,8) 1"

# one build: no between-build spread to estimate, said on the row
setid b patched idA
line=$(bash "$here/scripts/studies/build-spread.sh" --row $row b 2>/dev/null | grep "^$row ")
check "one build: the row says it needs 2 builds" grep -q "needs 2 builds" <<<"$line"

# the default rows: those the gate decides on (host-clock rounds: p50, p90)
rows=$(bash "$here/scripts/studies/build-spread.sh" a 2>/dev/null | awk 'NR > 1 { print $1 }' | tr '\n' ' ')
check "default rows are the gate's ($rows)" test "$rows" = \
	"func:nft_trans_alloc:p50 func:nft_trans_alloc:p90 workload:nft:wall "
