#!/usr/bin/env bash
# render.sh - fills scripts/lava/foliobench-shard.jinja2 without Jinja2:
#   scripts/lava/render.sh shard_index=1 shard_count=4 run_id=... >job.yaml
# Every {{ name }} of the template must be given; a value may not hold '|'.
set -euo pipefail
tpl=$(dirname "$0")/foliobench-shard.jinja2
args=()
for kv in "$@"; do
	k=${kv%%=*} v=${kv#*=}
	[[ $kv == *=* && $k =~ ^[a-z_]+$ && $v != *'|'* ]] ||
		{ echo "render.sh: error: want name=value without '|', not '$kv'" >&2; exit 2; }
	args+=(-e "s|{{ $k }}|$v|g")
done
out=$(sed "${args[@]}" "$tpl")
left=$(grep -v '^#' <<<"$out" | grep -o '{{ [a-z_]* }}' | sort -u | tr '\n' ' ' || true)
[ -z "$left" ] || { echo "render.sh: error: no value for $left" >&2; exit 2; }
printf '%s\n' "$out"
