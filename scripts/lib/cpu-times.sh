# cpu-times.sh - sourced: the CPU-seconds (user + system) of this shell's
# children so far, from bash's `times` (its second line).  Call it in the
# shell whose children count, not in a $(...) subshell, which has none of
# its own yet; FILE is scratch space for `times`' output.
#   cpu_children_s FILE   prints whole seconds
cpu_children_s() {
	times >"$1"
	awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] }
		printf "%d\n", t + 0.5 }' "$1"
}
