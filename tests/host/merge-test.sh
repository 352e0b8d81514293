#!/usr/bin/env bash
# tests/host/merge-test.sh - `foliobench merge` on synthetic shard directories
# (tests/host/lib-rounds.sh), no guest: the merged directory holds exactly the
# rounds the shards wrote, byte for byte; compare and gate on it say what
# they say on one directory holding the same rounds; ab.json keeps every
# run with its shard and machine; the one-machine-differs warning.  The
# refusals (mixed kernels, duplicated rounds, a missing shard, ...) are
# rows of tests/host/bad-input.tsv.
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
export FB=$PWD/foliobench
. tests/host/lib-rounds.sh
top=$(mktemp -d /tmp/fb-merge-test.XXXXXX)
trap 'rm -rf "$top"' EXIT
cd "$top" || exit 1

ok() { echo "ok - merge: $*"; }
nok() { echo "not ok - merge: $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; fi; }

# 7 rounds in 3 shards (3, 2 and 2 rounds), patched 10% slower (the host
# clock's threshold is +5%: a fail needs the estimate beyond it)
for i in 1 2 3; do shard s$i $i 3 7 1000 1100; done
"$FB" merge m s3 s1 s2 2>err
rc=$?
check "3 shards of 7 rounds merge (exit $rc), in any order" test "$rc" = 0

# the same rounds in one directory, as one ab run would have left them
mkdir -p one
for i in 1 2 3; do cp -r s$i/baseline s$i/patched one/; done
cp s1/ab.json one/
want=$(cd one && find . -name 'round-*.json' | sort)
got=$(cd m && find . -name 'round-*.json' | sort)
check "merged rounds are the shards' rounds ($(wc -l <<<"$got") files)" \
	test "$want" = "$got" -a "$(wc -l <<<"$got")" = 14
same=1
for f in $want; do cmp -s "one/$f" "m/$f" || same=0; done
check "every merged round is byte-identical to its shard's" test $same = 1
check "no file but the rounds and ab.json in the merged directory" \
	test "$(find m -type f | wc -l)" = 15

# ab.json: every run once, in round order, tagged with its shard and machine
runs=$(jq -r '.runs[] | "\(.round) \(.arm) \(.shard) \(.host)"' m/ab.json | tr '\n' ,)
check "ab.json lists the 14 runs in round order with shard and host" test "$runs" = \
"1 baseline 1 node1,1 patched 1 node1,2 baseline 2 node2,2 patched 2 node2,3 baseline 3 node3,\
3 patched 3 node3,4 baseline 1 node1,4 patched 1 node1,5 baseline 2 node2,5 patched 2 node2,\
6 baseline 3 node3,6 patched 3 node3,7 baseline 1 node1,7 patched 1 node1,"
check "ab.json names the 3 shards it came from and all 7 rounds" test \
	"$(jq -c '[.shard.merged_from[].index, .shard.rounds]' m/ab.json)" = '[1,2,3,[1,2,3,4,5,6,7]]'

# the readers: same verdicts, same tables
vm=$(verdict m); vo=$(verdict one)
check "gate on the merge = gate on one directory ($(tail -1 <<<"$vm"))" test "$vm" = "$vo"
check "the gate decides a 10% regression on the merged rounds" grep -q '^exit 1$' <<<"$vm"
check "compare on the merge = compare on one directory (but the directory's name)" \
	test "$("$FB" compare m 2>/dev/null | sed 's# m/# DIR/#')" = \
	"$("$FB" compare one 2>/dev/null | sed 's# one/# DIR/#')"
check "report reads the merged directory" "$FB" report m >/dev/null 2>&1
check "no machine warning when the machines agree" \
	test "$("$FB" gate m 2>&1 >/dev/null | grep -c warning)" = 0

# one machine 10% slower on both arms: one warning line naming it
mkdir w
shard w/s1 1 2 6 1000 1000; shard w/s2 2 2 6 1100 1100
"$FB" merge w/m w/s1 w/s2 2>/dev/null
warn=$("$FB" gate w/m 2>&1 >/dev/null | grep warning)
check "gate warns once about the machine that differs ($warn)" \
	test "$(grep -c . <<<"$warn")" = 1 -a -n "$(grep "host 'node2' differ.*+10\.5%" <<<"$warn")"

# an ab directory without --shard is shard 1/1
shard plain 1 1 3
jq 'del(.shard)' plain/ab.json >plain/ab.json.new && mv plain/ab.json.new plain/ab.json
check "an ab run without --shard merges as shard 1/1" "$FB" merge pm plain 2>/dev/null
