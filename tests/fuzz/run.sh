#!/usr/bin/env bash
# tests/fuzz/run.sh [SECONDS] - build the fuzzers (libFuzzer + ASan + UBSan,
# clang) and run them for a bounded time on a seed corpus generated here:
# the results reader (fuzz_results.c) for SECONDS (default 60, or
# $FUZZ_SECONDS), then the comparison model (fuzz_compare.c) and the arm
# directory loader (fuzz_rounds.c: FIFOs, sockets, symlinks, hard links,
# copies built on disk) for half that each.
# Prints `ok - fuzz ...` or `not ok - fuzz ...` per target; exits non-zero
# on a crash, leak, UB or build failure.
# Needs clang and its fuzzer runtime (Debian: clang, libclang-rt-14-dev).
set -u
cd "$(dirname "$0")/../.."
secs=${1:-${FUZZ_SECONDS:-60}}
out=build/fuzz
CLANG=${CLANG:-clang}
name="fuzz fb_result_parse"

rm -rf "$out/obj" "$out/seeds" "$out/seeds-bad" "$out/seeds-compare" "$out/seeds-rounds" "$out/artifacts"
mkdir -p "$out/corpus" "$out/seeds" "$out/seeds-bad" "$out/artifacts"

cc=("$CLANG" -g -O1 -std=gnu11 -D_GNU_SOURCE -Iloader -Ibpf -Ibuild
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
# Each fuzzer's sources come from make (print-fuzz-srcs: the floors its unit
# tests link), so a file split off one of them needs no edit here; each
# source is compiled once, however many fuzzers link it.
build_fuzzers() {
	local line name s o lists ldlibs=() objs
	local -A built=()
	mapfile -t lists < <(MAKEFLAGS= make -s --no-print-directory print-fuzz-srcs)
	for line in "${lists[@]}"; do
		[ "${line%%:*}" = ldlibs ] && read -r -a ldlibs <<<"${line#*:}"
	done
	[ ${#ldlibs[@]} -gt 0 ] || { echo "make print-fuzz-srcs printed no ldlibs line"; return 1; }
	mkdir -p "$out/obj"
	for line in "${lists[@]}"; do
		[ "${line%%:*}" = ldlibs ] || for s in ${line#*:}; do built[$s]=1; done
	done
	# the union, once, as many at a time as there are CPUs
	printf '%s\n' "${!built[@]}" | xargs -P "$(nproc)" -I{} sh -c \
		's=$2 o=$1/$(echo "$2" | tr / _); shift 2; exec "$@" -c "$s" -o "${o%.c}.o"' \
		- "$out/obj" {} "${cc[@]}" || return 1
	for line in "${lists[@]}"; do
		name=${line%%:*} objs=()
		[ "$name" = ldlibs ] && continue
		for s in ${line#*:}; do
			o=$out/obj/${s//\//_}
			objs+=("${o%.c}.o")
		done
		"${cc[@]}" "tests/fuzz/$name.c" "${objs[@]}" "${ldlibs[@]}" -o "$out/$name" || return 1
	done
	for name in fuzz_results fuzz_compare fuzz_rounds; do
		[ -x "$out/$name" ] || { echo "$name: not built (no tests/fuzz/$name.c?)"; return 1; }
	done
}
if ! build_fuzzers >"$out/build.log" 2>&1; then
	echo "not ok - $name: build failed (clang + libclang-rt-14-dev installed?); see $out/build.log"
	grep -m5 -E 'error|not built|no ldlibs' "$out/build.log" | sed 's/^/# /'
	exit 1
fi

# ---- seed corpus: valid files of the current schema (docs/results-schema.md) ----
hist='{"name": "latency", "unit": "ns", "count": 10025, "sum": 11366530, "min": 410, "max": 95000,
       "buckets": [[416, 3], [1024, 9000], [1056, 1000], [65536, 21], [94208, 1]]}'
cat > "$out/seeds/full.json" <<JSON
{
  "schema": "foliobench-results", "schema_version": 1, "tool_version": "0.1",
  "label": "baseline", "started": "2026-11-30T10:00:00Z",
  "host": {"kernel_release": "7.3.4-foliobench", "kernel_version": "#1 SMP",
           "build_id": "abcdef", "config_sha256": "0123", "cmdline": "console=ttyS0 foliobench.arm=baseline",
           "cpu_model": "QEMU Virtual CPU", "ncpus": 2, "arm": "baseline"},
  "params": ["nft.descriptors=10025"],
  "probes": [
    {"name": "nft_trans_alloc", "series": "folio-pool", "kind": "func", "status": "attached",
     "method": "fentry", "symbol": "nft_trans_alloc", "reason": "", "stats": [$hist]},
    {"name": "gdp_mutex", "series": "kernfs-bulk", "kind": "lock", "status": "attached",
     "method": "fentry", "symbol": "get_device_parent", "reason": "addr 0xffff",
     "stats": [{"name": "wait", "unit": "ns", "count": 2040, "sum": 14680000, "min": 310, "max": 190000,
                "buckets": [[310, 40], [7168, 2000]]},
               {"name": "hold", "unit": "ns", "count": 2040, "sum": 36720000, "min": 900, "max": 60000,
                "buckets": [[896, 40], [18432, 2000]]}]},
    {"name": "folio_scratchpad_alloc", "series": "folio-pool", "kind": "callsite", "status": "unavailable",
     "method": "-", "symbol": "", "reason": "no such symbol", "stats": []},
    {"name": "vfs_read", "series": "-", "kind": "func", "status": "attached", "adhoc": true,
     "method": "kprobe", "symbol": "vfs_read", "reason": "", "stats": [$hist]},
    {"name": "rtnl_mutex", "series": "-", "kind": "lock", "status": "unavailable", "adhoc": false,
     "method": "-", "symbol": "-", "reason": "EPERM", "stats": []}
  ],
  "workloads": [
    {"name": "nft", "status": "ok", "reason": "", "wall_ns": 2800000000,
     "ops": {"trans_objects": 10025, "destroy_passes": 5}},
    {"name": "sysfs", "status": "failed", "reason": "no vfio", "wall_ns": 0, "ops": {}}
  ],
  "contention": [{"lock": "&root->kernfs_rwsem", "addr": 18446612682335232000, "count": 116316,
                  "wait_ns": 1834000000, "max_ns": 900000}],
  "extra": {"lockdep_stats.after.direct dependencies": 2324, "ratio": 0.5}
}
JSON
cat > "$out/seeds/minimal.json" <<'JSON'
{"schema": "foliobench-results", "schema_version": 1, "tool_version": "0.1", "label": "",
 "started": "", "host": {"kernel_release": "", "kernel_version": "", "build_id": "",
 "config_sha256": "", "cmdline": "", "cpu_model": "", "ncpus": 0, "arm": ""},
 "params": [], "probes": [], "workloads": [], "contention": [], "extra": {}}
JSON

# the seeds must be accepted, or the fuzzer only explores the error paths
if ! FB_FUZZ_EXPECT_VALID=1 "$out/fuzz_results" -runs=0 -artifact_prefix="$out/artifacts/" "$out/seeds" >"$out/seeds.log" 2>&1; then
	echo "not ok - $name: a seed file is rejected by the reader (schema changed?)"
	grep -m3 -E 'seed does not parse|ERROR' "$out/seeds.log" | sed 's/^/# /'
	exit 1
fi

cat > "$out/results.dict" <<'EOF2'
"\"schema\""
"\"schema_version\""
"\"foliobench-results\""
"\"host\""
"\"probes\""
"\"stats\""
"\"buckets\""
"\"workloads\""
"\"ops\""
"\"contention\""
"\"extra\""
"\"count\""
"\"sum\""
"\"min\""
"\"max\""
"\"wall_ns\""
"\"params\""
"\"adhoc\""
"true"
"1e308"
"-1"
"18446744073709551615"
"9223372036854775808"
"\"\\u0000\""
"NaN"
"Infinity"
"-Infinity"
"1e999"
"18446744073709551616"
"-9223372036854775809"
EOF2

# numbers json-c accepts and the reader must refuse: a starting point for them
for v in NaN Infinity -Infinity 1e999 -99999999999999999999; do
	sed "s/\"ratio\": 0.5/\"ratio\": $v/" "$out/seeds/full.json" >"$out/seeds-bad/extra-$v.json"
done
sed 's/\[65536, 21\]/[65536, -21]/' "$out/seeds/full.json" >"$out/seeds-bad/negative-bucket.json"
sed 's/"sum": 11366530/"sum": 18446744073709551616/' "$out/seeds/full.json" >"$out/seeds-bad/beyond-2-64.json"
sed 's/"adhoc": true/"adhoc": 1/' "$out/seeds/full.json" >"$out/seeds-bad/adhoc-not-boolean.json"

"$out/fuzz_results" -max_total_time="$secs" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
	-artifact_prefix="$out/artifacts/" -dict="$out/results.dict" -print_final_stats=1 \
	"$out/corpus" "$out/seeds" "$out/seeds-bad" >"$out/fuzz.log" 2>&1
rc=$?
report() {	# name log rc secs
	local execs
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$2" | tail -1)
	if [ "$3" -eq 0 ]; then
		echo "ok - $1: ${execs:-?} inputs in $4 s under ASan+UBSan, no crash"
		return 0
	fi
	echo "not ok - $1: exit $3 after ${execs:-?} inputs; log $2"
	grep -m2 -E '^SUMMARY|runtime error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)' "$2" |
		sed 's/^/# /'
	ls "$out/artifacts" 2>/dev/null | sed "s|^|# reproducer: $out/artifacts/|"
	return 1
}
report "$name" "$out/fuzz.log" $rc "$secs" || exit 1

# the comparison model on whatever the reader accepts: half the time
csecs=$(( secs / 2 > 5 ? secs / 2 : 5 ))
mkdir -p "$out/corpus-compare" "$out/seeds-compare"
cp "$out/seeds/"*.json "$out/seeds-compare/"
{ cat "$out/seeds/full.json"; echo "----"; cat "$out/seeds/minimal.json"; } >"$out/seeds-compare/pair.json"
sed 's/"count": 10025/"count": 0/; s/"sum": 11366530/"sum": 18446744073709551615/' \
	"$out/seeds/full.json" >"$out/seeds-compare/extreme.json"
{ cat "$out/seeds/full.json"; echo "----"; cat "$out/seeds-compare/extreme.json"; } \
	>"$out/seeds-compare/pair-extreme.json"
"$out/fuzz_compare" -max_total_time="$csecs" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
	-artifact_prefix="$out/artifacts/" -dict="$out/results.dict" -print_final_stats=1 \
	"$out/corpus-compare" "$out/seeds-compare" >"$out/fuzz-compare.log" 2>&1
report "fuzz compare model" "$out/fuzz-compare.log" $? "$csecs" || exit 1

# arm directories built from a recipe (see fuzz_rounds.c: 3 bytes a step,
# op % 10: 0-1 round, 2 round with an odd extra value, 3 FIFO, 4 symlink to
# a name or ".", 5 hard link, 6 directory, 7 dangling or ".." symlink,
# 8 socket, 9 raw bytes)
mkdir -p "$out/corpus-rounds" "$out/seeds-rounds"
printf '\000\000\001\000\001\002\004\005\001\005\004\000\003\007\000' >"$out/seeds-rounds/fifo"
printf '\000\000\001\000\001\002\004\005\001\005\004\000\000\002\001\007\012\000\006\007\000' \
	>"$out/seeds-rounds/dups"
printf '\000\000\001\007\005\002\002\001\003\004\006\001\010\002\000\011\011\000{"schema"' >"$out/seeds-rounds/odd"
ftmp=$(mktemp -d /tmp/fb-fuzz.XXXXXX)	# the arm directories, removed below
FB_FUZZ_TMP=$ftmp "$out/fuzz_rounds" -max_total_time="$csecs" -max_len=512 -timeout=10 -rss_limit_mb=2048 \
	-artifact_prefix="$out/artifacts/" -print_final_stats=1 \
	"$out/corpus-rounds" "$out/seeds-rounds" >"$out/fuzz-rounds.log" 2>&1
rc=$?
rm -rf "$ftmp"
(exit $rc)
report "fuzz arm directories (FIFOs, symlinks, links, copies)" "$out/fuzz-rounds.log" $? "$csecs" || exit 1
exit 0
