#!/usr/bin/env bash
# history-import-reports.sh - import every round archived in reports/ into
# a history DB and write the history report of it.
#
#   scripts/studies/history-import-reports.sh [DB [OUT]]
#       DB   default results/history.db
#       OUT  default reports/history
#
# Unpacked ab directories are added in place; each *.tar.xz is unpacked
# under a temporary directory at its own path, so a round's source reads
# reports/gate/data/defaults.tar.xz/aa-4/patched/round-1.json.  A round in
# both a directory and an archive is stored once.  Safe to run twice.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
db=${1:-results/history.db}
db_abs=$(realpath -m "$db")
out=${2:-reports/history}
fb=$repo/foliobench
tmp=$(mktemp -d /tmp/fb-history-import.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

dirs=()
for d in reports/*/data; do
	[ -d "$d" ] && dirs+=("$d")
done
"$fb" history add --db "$db" "${dirs[@]}"

archives=()
while IFS= read -r a; do
	mkdir -p "$tmp/$a"
	tar -xJf "$a" -C "$tmp/$a"
	archives+=("$a")
done < <(find reports -name '*.tar.xz' | sort)
(cd "$tmp" && "$fb" history add --db "$db_abs" "${archives[@]}")

"$fb" history list --db "$db" | tail -1
"$fb" history report --db "$db" --out "$out"
