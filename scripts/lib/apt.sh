# shellcheck shell=bash
# scripts/lib/apt.sh - sourced by scripts/kernel-src.sh and
# scripts/stock-kernel.sh: a private, throw-away apt configuration for
# `apt-get download` of one suite, with the mirror read from this machine's
# own apt sources (never a hard-coded host).  Nothing is installed and the
# machine's apt state is not touched.  The caller defines log() and die().

# First main-archive URI of the machine's apt sources (deb822 or one-line).
apt_mirror() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		uri=$(awk 'BEGIN{IGNORECASE=1}
			/^URIs:/ { u=$2 }
			/^Suites:/ { if ($0 !~ /security/ && u !~ /security/) { print u; exit } }' "$f")
		[ -n "$uri" ] && { echo "$uri"; return; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		uri=$(awk '$1=="deb" && $0 !~ /security/ {
			for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' "$f")
		[ -n "$uri" ] && { echo "$uri"; return; }
	done
}

# apt_private DIR SUITE KEYRING [TYPE]: lists for SUITE (main) under DIR, and
# the apt-get options that use them in the array apt_opts.  TYPE is deb (the
# default) or deb-src (`apt-get source`: scripts/qemu-plugin-h.sh).
apt_private() {
	local dir=$1 suite=$2 keyring=$3 type=${4:-deb} mirror
	mirror=$(apt_mirror)
	[ -n "$mirror" ] || die "no Debian mirror found in /etc/apt/sources*"
	mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/etc/preferences.d"
	echo "$type [signed-by=$keyring] $mirror $suite main" >"$dir/etc/sources.list"
	apt_opts=(-o "Dir::Etc::SourceList=$dir/etc/sources.list"
		-o "Dir::Etc::SourceParts=-"
		-o "Dir::Etc::PreferencesParts=$dir/etc/preferences.d"
		-o "Dir::State::Lists=$dir/lists"
		-o "Dir::Cache=$dir" -o "Dir::Cache::archives=$dir/archives"
		-o "Dir::State::status=/dev/null" -o "APT::Get::List-Cleanup=0"
		-o "APT::Sandbox::User=root")
	log "apt-get update ($suite from $mirror, private lists)"
	apt-get -q "${apt_opts[@]}" update >"$dir/update.log" 2>&1 ||
		{ tail -5 "$dir/update.log" >&2; die "apt-get update for $suite failed"; }
}
