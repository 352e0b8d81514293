#!/usr/bin/env bash
# lockdep-objects.sh - .bss/.init.data of kernel/locking/lockdep.o for the
# folio-pool prefixes 5..9 (lockstat flavour config: tinyconfig + perf.config
# + lockstat.config, no series fragment, as kernel-build.sh builds prefixes).
# Object-level, for when the per-patch lockstat vmlinux files are not built:
# a throw-away clone (git clone --shared) of the base source tree and one
# object per prefix, in a temporary directory removed at the end.  Prints
# `size -A` sections and `nm -S` of the lockdep arrays per prefix.
set -euo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
src=$("$here/scripts/kernel-src.sh")
W=$(mktemp -d /tmp/fb-lockdep-obj.XXXXXX)
trap 'rm -rf "$W"' EXIT
kp=$here/kernel-patches
git clone -q --shared -n "$src" "$W/linux"
cd "$W/linux"
git checkout -q -f --detach base
echo "checkout done $(date -u +%T), $(uptime)"
O=$W/obj; mkdir -p "$O"
mk=(make -C "$W/linux" O="$O" ARCH=x86_64 -j2)
"${mk[@]}" -s tinyconfig >/dev/null
scripts/kconfig/merge_config.sh -m -O "$O" "$O/.config" "$kp/configs/perf.config" "$kp/configs/lockstat.config" >"$O/merge.log" 2>&1
"${mk[@]}" -s olddefconfig >/dev/null
grep -E 'CONFIG_PROVE_LOCKING|CONFIG_LOCKDEP_BITS|CONFIG_LOCK_STAT=' "$O/.config"
mapfile -t P < <(grep -v '^#' "$kp/folio-pool/series" | sed '/^$/d')
n=0
for k in 5 6 7 8 9; do
	while [ $n -lt $k ]; do
		git -c user.name=t -c user.email=t@t am -q --3way "$kp/folio-pool/${P[$n]}"
		n=$((n + 1))
	done
	echo "== folio-pool@$k $(git log --oneline -1 | cut -c1-60) $(date -u +%T)"
	"${mk[@]}" kernel/locking/lockdep.o >"$W/make-$k.log" 2>&1
	cp "$O/kernel/locking/lockdep.o" "$W/lockdep-$k.o"
	size -A "$W/lockdep-$k.o" | grep -E '^\.(bss|init\.data|data|ref\.data) '
	nm -S "$W/lockdep-$k.o" | grep -E ' (list_entries|list_entries_in_use|lockdep_boot_list|lockdep_list_pool)' || true
done
echo "done $(date -u +%T)"
