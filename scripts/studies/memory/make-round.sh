#!/usr/bin/env bash
# scripts/studies/memory/make-round.sh MB OUT [PROBES] - a bucket-heavy results file
# of about MB megabytes for the memory benchmark (reports/memory/README.md)
# and tests/results-memory.sh.  Not committed: made on demand.
#
# Starts from an archived real round (reports/gate/data/aa-1/patched/
# round-1.json), gives it PROBES probes (default: the round's own; more than
# 48 makes a file the reader must refuse), and repeats [value, 1] bucket
# pairs in every stat, count raised to match, until the file is MB MB.
# Written compact, as a worst case: the most pairs per byte.
set -euo pipefail
mb=${1:?MB}; out=${2:?OUT}; probes=${3:-0}
src=${FB_REPO:-$(cd "$(dirname "$0")/../../.." && pwd)}/reports/gate/data/aa-1/patched/round-1.json
python3 - "$src" "$out" "$mb" "$probes" <<'PY'
import copy, json, sys
src, out, mb, nprobes = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
r = json.load(open(src))
base = r["probes"]
if nprobes:
    r["probes"] = [dict(copy.deepcopy(base[i % len(base)]),
                        name="%s_%d" % (base[i % len(base)]["name"], i))
                   for i in range(nprobes)]
stats = [s for p in r["probes"] for s in p["stats"]]
size = len(json.dumps(r, separators=(",", ":")))
per_pair = len("[1536,1],")
pairs = max(0, int((mb * 1e6 - size) / per_pair / max(1, len(stats))))
vals = [1536 + 32 * k for k in range(64)]
for s in stats:
    s["buckets"] = s["buckets"] + [[vals[k % 64], 1] for k in range(pairs)]
    s["count"] = sum(c for _, c in s["buckets"])
    s["sum"] = sum(v * c for v, c in s["buckets"])
with open(out, "w") as f:
    json.dump(r, f, separators=(",", ":"))
PY
