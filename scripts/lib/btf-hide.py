#!/usr/bin/python3
"""btf-hide.py IN OUT NAME... - a copy of the raw BTF IN (e.g.
/sys/kernel/btf/vmlinux) in which no BTF FUNC called NAME can be found by
name, everything else byte for byte the same.

Used by scripts/studies/peers.sh to run libbpf-tools klockstat in its kprobe
mode: klockstat takes fentry/fexit when libbpf finds the FUNC mutex_lock (or
mutex_lock_nested) in the vmlinux BTF, kprobes otherwise.

Method: the FUNC's name string is rewritten in place to a string of the
same length found nowhere in the string section (its first letter made
upper case, or '_' tried next), so every type ID, every offset and every
other name stay as they were (CO-RE relocations and attach_btf_id keep
working).  Refused (exit 2) unless that string is used by the FUNC(s) of
that name only: every name_off of every type, member, enum value and
parameter is read, none other may point into the string, and the string
must not be the tail of a longer one.  A NAME with no FUNC is reported and
left alone.  One line per NAME on stdout; exit 2 on bad input."""
import struct
import sys

BTF_MAGIC = 0xEB9F
FUNC = 12
# bytes after struct btf_type, per kind: fixed, per vlen entry, and the
# offsets of name_off inside one entry
EXTRA = {1: (4, 0, ()), 2: (0, 0, ()), 3: (12, 0, ()), 4: (0, 12, (0,)),
	 5: (0, 12, (0,)), 6: (0, 8, (0,)), 7: (0, 0, ()), 8: (0, 0, ()),
	 9: (0, 0, ()), 10: (0, 0, ()), 11: (0, 0, ()), 12: (0, 0, ()),
	 13: (0, 8, (0,)), 14: (4, 0, ()), 15: (0, 12, ()), 16: (0, 0, ()),
	 17: (4, 0, ()), 18: (0, 0, ()), 19: (0, 12, (0,))}


def die(msg):
	print("btf-hide: " + msg, file=sys.stderr)
	sys.exit(2)


def parse(buf):
	"""(strings offset, strings length, refs): refs = [(name_off, id, kind)]
	for every name_off in the type section; kind -1 for a member, enum
	value or parameter name of type id"""
	if len(buf) < 24:
		die("input too short for a BTF header")
	magic, _ver, _flags, hlen = struct.unpack_from("<HBBI", buf, 0)
	if magic != BTF_MAGIC:
		die("not raw little-endian BTF (magic 0x%04x)" % magic)
	toff, tlen, soff, slen = struct.unpack_from("<IIII", buf, 8)
	toff, soff = hlen + toff, hlen + soff
	if toff + tlen > len(buf) or soff + slen > len(buf):
		die("section beyond the end of the input")
	refs, pos, tid = [], toff, 0
	while pos < toff + tlen:
		tid += 1
		name, info, _sz = struct.unpack_from("<III", buf, pos)
		kind, vlen = (info >> 24) & 0x1F, info & 0xFFFF
		if kind not in EXTRA:
			die("type [%d]: unknown kind %d" % (tid, kind))
		refs.append((name, tid, kind))
		fixed, per, names = EXTRA[kind]
		pos += 12 + fixed
		for _ in range(vlen if per else 0):
			for o in names:
				refs.append((struct.unpack_from("<I", buf, pos + o)[0], tid, -1))
			pos += per
	if pos != toff + tlen:
		die("type section does not end on a type")
	return soff, slen, refs


def hide(buf, soff, slen, refs, name):
	strs = bytes(buf[soff:soff + slen])
	want = name.encode()
	funcs = [r for r in refs if r[2] == FUNC and
		 strs[r[0]:r[0] + len(want) + 1] == want + b"\0"]
	if not funcs:
		return "no FUNC '%s': nothing to hide" % name
	offs = {r[0] for r in funcs}
	if len(offs) != 1:
		die("FUNC '%s': %d name strings, expected one" % (name, len(offs)))
	off = offs.pop()
	if off == 0 or strs[off - 1] != 0:
		die("FUNC '%s': its name is the tail of a longer string" % name)
	others = [r for r in refs if off <= r[0] < off + len(want) and r not in funcs]
	if others:
		o = others[0]
		die("FUNC '%s': its string is also the name of %d other(s), e.g. %s [%d]" %
		    (name, len(others), "a member/value/parameter of type" if o[2] < 0 else
		     "kind %d type" % o[2], o[1]))
	for new in (want[:1].upper() + want[1:], b"_" + want[1:]):
		if new != want and b"\0" + new + b"\0" not in strs:
			break
	else:
		die("FUNC '%s': no unused replacement name" % name)
	buf[soff + off:soff + off + len(want)] = new
	return "FUNC '%s' %s: name string at offset %d, used by nothing else, now '%s'" % (
		name, " ".join("[%d]" % r[1] for r in funcs), off, new.decode())


def main():
	if len(sys.argv) < 4:
		die("usage: btf-hide.py IN OUT NAME...")
	try:
		with open(sys.argv[1], "rb") as f:
			buf = bytearray(f.read())
	except OSError as e:
		die("%s: %s" % (sys.argv[1], e.strerror))
	soff, slen, refs = parse(buf)
	for name in sys.argv[3:]:
		print("btf-hide: " + hide(buf, soff, slen, refs, name))
	try:
		with open(sys.argv[2], "wb") as f:
			f.write(buf)
	except OSError as e:
		die("%s: %s" % (sys.argv[2], e.strerror))


main()
