#!/usr/bin/env bash
# nft-txn.sh - nf_tables batches on the transaction scratchpad (folio-pool
# 2/9), run inside a guest booted with nf_tables.trans_scratchpad=1 by
# series-test.sh.  Each batch is one `nft -f` file:
#   commit   a table with 2 chains, 51 rules and a set of $NFT_ELEMS
#            elements; then a batch that replaces half of it
#   abort    a batch that fails half way in the kernel (a rule naming a
#            chain that does not exist, after and before objects of the
#            same batch), once creating a new table, once deleting from
#            and adding to the committed one: the ruleset is as before
#   switch   trans_scratchpad off right after a commit (its destroy work
#            still pending) and on again, with batches in between
#   netns    namespaces deleted right after a commit, an abort and a
#            commit; one while a loop of batches still runs in it (killed
#            with SIGKILL); every nf_tables_exit_net() call is waited for
#            (function tracer), and the init netns' ruleset is unchanged
# Splats (WARN, BUG, KASAN, lockdep) are caught by foliobench vm from the
# console.  Prints "# plan N", then N ok/not ok lines.
set -uo pipefail
cd "${FB_REPO:-$(dirname "$0")/../..}"
. tests/guest/lib.sh
elems=${NFT_ELEMS:-2000}
param=/sys/module/nf_tables/parameters/trans_scratchpad
trc=/sys/kernel/tracing
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
echo "# plan 10"

# addrs N OCTET: N addresses 10.OCTET.x.y
addrs() { seq 0 $(($1 - 1)) | awk -v o="$2" '{ printf "%s10.%d.%d.%d", (NR > 1 ? ", " : ""), o, $1 / 256, $1 % 256 }'; }
{
	echo "add table inet fbt"
	echo "add chain inet fbt c1 { type filter hook input priority 0; }"
	echo "add chain inet fbt c2"
	echo "add set inet fbt s1 { type ipv4_addr; }"
	echo "add element inet fbt s1 { $(addrs "$elems" 1) }"
	echo "add rule inet fbt c1 ip saddr @s1 jump c2"
	for i in $(seq 50); do echo "add rule inet fbt c2 ip daddr 10.9.0.$i counter"; done
} >"$d/commit.nft"
# the same into a new table, failing at a rule in the middle
sed 's/inet fbt/inet fbf/' "$d/commit.nft" | awk 'NR == 30 { print "add rule inet fbf nochain counter" } { print }' \
	>"$d/abort-new.nft"
{
	echo "flush chain inet fbt c2"
	echo "delete element inet fbt s1 { $(addrs 100 1) }"
	echo "add element inet fbt s1 { $(addrs "$elems" 2) }"
	echo "add rule inet fbt nochain counter"
	echo "add chain inet fbt c3"
} >"$d/abort-old.nft"
{
	echo "flush set inet fbt s1"
	echo "add element inet fbt s1 { $(addrs $((elems / 2)) 3) }"
	echo "flush chain inet fbt c2"
	for i in $(seq 25); do echo "add rule inet fbt c2 ip daddr 10.8.0.$i drop"; done
} >"$d/replace.nft"

# counts: "chains rules elements" of table fbt (in the current netns)
counts() {
	nft -j list table inet fbt 2>/dev/null | jq -r '[.nftables[] | select(.chain)] | length' | tr '\n' ' '
	nft -j list table inet fbt 2>/dev/null | jq -r '[.nftables[] | select(.rule)] | length' | tr '\n' ' '
	nft -j list set inet fbt s1 2>/dev/null | jq -r '[.nftables[] | select(.set) | .set.elem // [] | length] | add'
}
# aborts FILE: the batch fails in the kernel and leaves the ruleset as it was
aborts() {
	local before
	before=$(nft list ruleset)
	! nft -f "$1" 2>"$d/err" && grep -q 'Could not process rule' "$d/err" &&
		[ "$(nft list ruleset)" = "$before" ]
}

nft add table inet keep && nft add chain inet keep in '{ type filter hook input priority 10; }' &&
	nft add rule inet keep in tcp dport 22 accept
keep=$(nft list ruleset)
t "trans_scratchpad is on ($(cat $param 2>&1))" test "$(cat $param)" = Y
nft -f "$d/commit.nft"
t "commit: table with 2 chains, 51 rules, $elems set elements ($(counts))" \
	test "$(counts)" = "2 51 $elems"
t "abort half way, new table: kernel error, ruleset as before" aborts "$d/abort-new.nft"
t "abort half way, deletions and additions in the committed table: ruleset as before" aborts "$d/abort-old.nft"
nft -f "$d/replace.nft"
t "commit replacing the set and a chain: 2 chains, 26 rules, $((elems / 2)) elements ($(counts))" \
	test "$(counts)" = "2 26 $((elems / 2))"

# off right after a commit, while its transactions wait for the destroy work
nft delete table inet fbt && nft -f "$d/commit.nft" && echo 0 >$param
a=$(counts)
aborts "$d/abort-old.nft"; b=$?
nft -f "$d/replace.nft" && echo 1 >$param && nft -f "$d/replace.nft"
t "trans_scratchpad switched off and on between batches: $a, abort $b, then $(counts), param $(cat $param)" \
	test "$a" = "2 51 $elems" -a $b = 0 -a "$(counts)" = "2 26 $((elems / 2))" -a "$(cat $param)" = Y
nft delete table inet fbt
t "delete table committed: the ruleset is the one from before" test "$(nft list ruleset)" = "$keep"

# ---- network namespaces ----
echo nf_tables_exit_net >$trc/set_ftrace_filter && echo function >$trc/current_tracer &&
	echo >$trc/trace && echo 1 >$trc/tracing_on
bad=0 n=8
for i in $(seq $n); do
	ip netns add "fbtx$i" || bad=$((bad + 1))
	ip netns exec "fbtx$i" bash -c "$(declare -f counts aborts); d=$d
		nft -f $d/commit.nft && [ \"\$(counts)\" = '2 51 $elems' ] &&
		aborts $d/abort-old.nft && nft -f $d/replace.nft" || bad=$((bad + 1))
	ip netns del "fbtx$i" || bad=$((bad + 1))
done
t "$n namespaces deleted right after commit, abort, commit: every batch as expected ($bad failures)" test $bad = 0
ip netns add fbtxl
setsid ip netns exec fbtxl sh -c "while :; do nft -f $d/commit.nft; nft -f $d/abort-new.nft; nft flush ruleset; done" \
	>/dev/null 2>&1 &
pg=$!
sleep 5
ip netns del fbtxl
kill -9 -- -$pg
wait $pg 2>/dev/null
# (the ring buffer is cleared when the tracer is switched back to nop)
exits() { grep -c 'nf_tables_exit_net' $trc/trace; }
w=0
while [ "$(exits)" -lt $((n + 1)) ] && [ $w -lt 120 ]; do sleep 1; w=$((w + 1)); done
e=$(exits)
echo 0 >$trc/tracing_on && echo nop >$trc/current_tracer && echo >$trc/set_ftrace_filter
t "netns with a batch loop killed and deleted: nf_tables_exit_net ran for all $((n + 1)) namespaces ($e calls, ${w}s)" \
	test "$e" -ge $((n + 1))
t "init netns ruleset unchanged by the namespaces" test "$(nft list ruleset)" = "$keep"
nft delete table inet keep
