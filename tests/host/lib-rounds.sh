# tests/host/lib-rounds.sh - synthetic rounds for the host tests (sourced by
# tests/host/bad-input.sh and tests/host/merge-test.sh, from the repository root).
# The functions are exported, so that `bash -c` setups can call them.

# round FILE [STARTED] [LATENCY_NS]: a valid results file with one func row
# whose 100 calls all fall in the bucket of LATENCY_NS
round() {
	local f=$1 started=${2:-2026-12-01T08:00:00Z} lat=${3:-1000}
	mkdir -p "$(dirname "$f")"
	cat >"$f" <<JSON
{"schema": "foliobench-results", "schema_version": 1, "tool_version": "0.1",
 "label": "t", "started": "$started",
 "host": {"kernel_release": "7.3.4", "kernel_version": "#1", "build_id": "b1d",
          "config_sha256": "", "cmdline": "", "cpu_model": "", "ncpus": 1, "arm": ""},
 "params": ["nft.descriptors=10025"],
 "probes": [{"name": "nft_trans_alloc", "series": "folio-pool", "kind": "func",
   "status": "attached", "method": "fentry", "symbol": "nft_trans_alloc", "reason": "",
   "stats": [{"name": "latency", "unit": "ns", "count": 100, "sum": $((lat * 100)),
              "min": $lat, "max": $lat, "buckets": [[$lat, 100]]}]}],
 "workloads": [{"name": "nft", "status": "ok", "reason": "", "wall_ns": 2800000000,
                "ops": {"trans_objects": 10025}}],
 "contention": [],
 "extra": {"lockdep_stats.after.direct dependencies": 2324.5}}
JSON
}

# arm DIR N [LATENCY_NS]: N rounds a second apart, latencies LATENCY_NS + i
arm() {
	local d=$1 n=$2 lat=${3:-1000} i
	for ((i = 1; i <= n; i++)); do
		round "$d/round-$i.json" "2026-12-01T08:00:$(printf %02d "$i")Z" $((lat + i * 7))
	done
}

# edit FILE FROM TO: replace the first literal FROM
edit() {
	local f=$1 from=$2 to=$3
	python3 -c 'import sys; p, a, b = sys.argv[1:]; s = open(p).read(); assert a in s, a
open(p, "w").write(s.replace(a, b, 1))' "$f" "$from" "$to"
}

# shard DIR I N ROUNDS [BASE_NS] [NEW_NS] [BUILD_ID] [PARAM] [HOST]: what
# `ab --shard I/N --rounds ROUNDS` leaves in DIR: ab.json and the rounds
# r with (r - 1) % N = I - 1 of arms baseline and patched, whose latencies
# are BASE_NS + 7 r and NEW_NS + 7 r, measured on kernel BUILD_ID (both arms;
# the rounds carry it too) with workload parameter PARAM, on machine HOST.
shard() {
	local d=$1 i=$2 n=$3 rounds=$4 lb=${5:-1000} ln=${6:-1000} id=${7:-b1d}
	local param=${8:-nft.descriptors=10025} host=${9:-node$2} r a lat list="" runs=""
	mkdir -p "$d"
	for ((r = 1; r <= rounds; r++)); do
		[ $(((r - 1) % n)) = $((i - 1)) ] || continue
		list+="${list:+, }$r"
		for a in baseline patched; do
			lat=$lb
			[ $a = patched ] && lat=$ln
			round "$d/$a/round-$r.json" "2026-12-01T08:$(printf %02d $((r / 60))):$(printf %02d $((r % 60)))Z" \
				$((lat + 7 * r))
			sed -i "s/\"build_id\": \"b1d\"/\"build_id\": \"$id\"/; s/\"arm\": \"\"/\"arm\": \"$a\", \"hostname\": \"$host\"/; s/nft.descriptors=10025/$param/" \
				"$d/$a/round-$r.json"
			runs+="${runs:+,}{\"round\": $r, \"arm\": \"$a\", \"exit\": 0, \"result\": \"$a/round-$r.json\"}"
		done
	done
	cat >"$d/ab.json" <<JSON
{"schema": "foliobench-ab", "schema_version": 1, "tool_version": "0.1",
 "started": "2026-12-01T08:00:00Z", "flavour": "perf", "rounds": $rounds, "clock": "icount",
 "icount_shift": 0, "smp": 1,
 "arms": [{"name": "baseline", "spec": "baseline", "kernel": "/k/b/bzImage", "build_id": "$id",
           "config_sha256": "c0f", "append": ""},
          {"name": "patched", "spec": "patched", "kernel": "/k/b/bzImage", "build_id": "$id",
           "config_sha256": "c0f", "append": ""}],
 "append": "", "workloads": ["nft"], "params": ["$param"], "probes": [], "mem": "",
 "shard": {"index": $i, "count": $n, "rounds": [$list]}, "host": "$host",
 "runs": [$runs]}
JSON
}
export -f round arm edit shard

# verdict DIR: what `foliobench gate DIR` decides: its stdout (the verdict
# lines; the rounds it read, with their paths, go to stderr) and exit code.
verdict() {
	local out rc
	out=$("$FB" gate "$1" 2>/dev/null)
	rc=$?
	printf '%s\nexit %s\n' "$out" "$rc"
}
export -f verdict
