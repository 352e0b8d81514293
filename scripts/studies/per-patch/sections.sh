#!/usr/bin/env bash
# sections.sh DIR - .bss and .init.data of every kernel of a per-patch run
# (`ab --per-patch`, DIR/per-patch.json), and where lockdep's list_entries
# array lives: the footprint folio-pool 8/9 and 9/9 claim to shrink
# (list_entries 1.75 MB of .bss -> 224 kB -> __initdata, freed after boot).
# Reads each kernel's vmlinux (debug info stripped, symbols kept) with
# `size -A` and `nm -S`; prints a Markdown table, bytes.
set -euo pipefail
dir=${1:?usage: sections.sh DIR (an ab --per-patch directory)}
pp=$dir/per-patch.json
[ -f "$pp" ] || { echo "sections.sh: error: $pp: no such file" >&2; exit 2; }

sec() { size -A "$1" | awk -v s="$2" '$1 == s { print $2 }'; }
# sym VMLINUX NAME: "bytes section" of a symbol (objdump -t), or "-"
sym() {
	local hex sec
	read -r hex sec < <(objdump -t "$1" | awk -v n="$2" '$NF == n && !f { print $(NF-1), $(NF-2); f = 1 }')
	if [ -n "${hex:-}" ]; then echo "$((16#$hex)) $sec"; else echo "-"; fi
}

echo "| kernel | patch | .bss | .init.data | list_entries (bytes, type) | lockdep_list_pool |"
echo "|:---|:---|---:|---:|---:|:---|"
# "|"-separated: a tab is whitespace to read, so an empty patch field would vanish
jq -r '.prefixes[] | [.dir, (.patch // ""), .kernel] | join("|")' "$pp" |
while IFS='|' read -r name patch bz; do
	v=$(dirname "$bz")/vmlinux
	[ -f "$v" ] || { echo "| $name | ${patch:0:40} | (no $v) | | | |"; continue; }
	le=$(sym "$v" list_entries)
	# awk reads to the end: an early exit would SIGPIPE nm, fatal under pipefail
	pool=$(nm "$v" | awk '$NF == "lockdep_list_pool" { f = 1 } END { print f ? "yes" : "no" }')
	echo "| $name | ${patch:0:40} | $(sec "$v" .bss) | $(sec "$v" .init.data) | $le | $pool |"
done
