#!/usr/bin/env bash
# report-html-test.sh - report.html of real archived rounds
# (reports/main-job/rounds.tar.xz) rendered in headless Chromium (Debian's
# chromium, scripts/deps.sh) at 1440x900, issue 40 item 4:
#   - a screenshot (results/report-html.png, for a human to look at);
#   - the page's own layout, measured by a script in the rendered page:
#     the verdict and the claims start on the first screen, and the
#     histograms sit two to a row;
#   - the rendered DOM (--dump-dom): the verdict first, then the claims,
#     and the verdict's exit code is `foliobench gate`'s on the same rounds;
#     every plot has a title, x and y axis titles and at least two tick
#     labels on each axis, x ticks in the statistic's unit (bytes for a
#     kmalloc size, time for latencies); legends count at most the rounds
#     the arm has; no literal markdown (**, `, |---|, ](..)) in the text.
set -uo pipefail
. "$(dirname "$0")/lib.sh" report-html
chrome=$(command -v chromium || true)
if [ -z "$chrome" ]; then
	nok "report-html: chromium installed (make deps)"
	exit 0
fi
tar -C "$tmp" -xf reports/main-job/rounds.tar.xz
dir=$tmp/main-job
$fb report "$dir" >/dev/null 2>&1
t "report-html: report on the main job's rounds writes report.html" test -s "$dir/report.html"
$fb gate "$dir" >/dev/null 2>&1
grc=$?

# chromium as root needs --no-sandbox; a private profile, nothing left behind
run_chrome() {
	timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$tmp/profile" --window-size=1440,900 "$@" 2>>"$tmp/chrome.err"
}
mkdir -p results
rm -f results/report-html.png
(cd "$tmp" && run_chrome --screenshot="$tmp/shot.png" "file://$dir/report.html" >/dev/null)
size=$(python3 -c 'import struct,sys
d=open(sys.argv[1],"rb").read(24)
print("%dx%d" % struct.unpack(">II", d[16:24]) if d[:8] == b"\x89PNG\r\n\x1a\n" else "none")' \
	"$tmp/shot.png" 2>/dev/null)
cp "$tmp/shot.png" results/report-html.png 2>/dev/null
t "report-html: headless Chromium screenshot, 1440x900 PNG (${size:-none}, results/report-html.png)" \
	test "${size:-none}" = 1440x900

# the layout, measured where it is rendered: a copy of the page with a script
# that writes the positions into the DOM that --dump-dom prints
sed 's|</body>|<script>const r = s => document.querySelector(s).getBoundingClientRect();\
const svg = [...document.querySelectorAll(".hists svg")].map(e => e.getBoundingClientRect());\
document.body.setAttribute("data-layout", [r("#verdict").top, r("#claims").top,\
svg.length > 1 ? svg[0].top : -1, svg.length > 1 ? svg[1].top : -1].map(Math.round).join(" "));\
</script></body>|' "$dir/report.html" >"$dir/layout.html"
run_chrome --dump-dom "file://$dir/layout.html" >"$tmp/layout.dom"
read -r vtop ctop s0 s1 < <(grep -o 'data-layout="[^"]*"' "$tmp/layout.dom" | tr -d '"' | cut -d= -f2)
t "report-html: verdict (top ${vtop:-?} px) and claims (top ${ctop:-?} px) on the first screen (900 px)" \
	bash -c "[ -n '${ctop:-}' ] && [ '${vtop:-999}' -lt '${ctop:-0}' ] && [ '${ctop:-999}' -lt 800 ]"
t "report-html: histograms two to a row at 1440 px (first two at top ${s0:-?} and ${s1:-?} px)" \
	test -n "${s0:-}" -a "${s0:-x}" = "${s1:-y}"

run_chrome --dump-dom "file://$dir/report.html" >"$tmp/dom.html"
python3 - "$tmp/dom.html" "$grc" "$dir" >"$tmp/checks" 2>&1 <<'PY'
import json, re, sys
from html.parser import HTMLParser

dom, grc, d = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.h2, self.text, self.svgs = [], [], [], []
        self.in_style = False
    def handle_starttag(self, tag, a):
        a = dict(a)
        self.stack.append((tag, a.get("class", ""), a.get("id", "")))
        if tag == "svg":
            self.svgs.append({"title": "", "x": [], "y": [], "xl": "", "yl": "", "leg": []})
        if tag == "h2":
            self.h2.append([a.get("id", ""), ""])
        self.in_style = tag in ("style", "script")
    def handle_endtag(self, tag):
        while self.stack and self.stack.pop()[0] != tag:
            pass
        self.in_style = False
    def handle_data(self, s):
        if self.in_style:
            return
        cls = [c for _, c, _ in self.stack]
        if self.stack and self.stack[-1][0] == "h2" and self.h2:
            self.h2[-1][1] += s
        if "svg" not in [t for t, _, _ in self.stack]:
            self.text.append(s)
            return
        g, me = self.svgs[-1], self.stack[-1][1]
        ax = "x" if "x-axis" in cls else "y" if "y-axis" in cls else ""
        if me == "tick" and ax:
            g[ax].append(s)
        elif me == "label" and ax:
            g[ax + "l"] += s
        elif me == "title":
            g["title"] += s
        elif me == "legend":
            g["leg"].append(s)

p = P()
p.feed(dom)
def check(ok, what):
    print(("ok - " if ok else "not ok - ") + "report-html: " + what)

heads = [h for h in p.h2]
check(len(heads) > 2 and heads[0][0] == "verdict" and heads[1][0] == "claims",
      "the rendered page's first sections are the verdict, then the claims (%s)"
      % ", ".join(t.split(":")[0] for _, t in heads[:3]))
m = re.search(r"on these rounds \(no options\) exits (\d)", "".join(p.text))
check(m is not None and m.group(1) == grc,
      "the verdict's exit code (%s) is foliobench gate's on the same rounds (%s)"
      % (m.group(1) if m else "none", grc))
text = "".join(p.text)
md = [t for t in ("**", "`", "|---", "|:---", "](") if t in text]
check(not md, "no literal markdown in the rendered text (found: %s)" % (" ".join(md) or "none"))
bad = [g["title"] for g in p.svgs
       if len(g["x"]) < 2 or len(g["y"]) < 2 or not g["xl"] or not g["yl"] or not g["title"]]
check(p.svgs and not bad, "all %d plots have a title, x and y axis titles and >= 2 tick labels "
      "on each axis (without: %s)" % (len(p.svgs), ", ".join(bad) or "none"))
units = {}
for side in ("baseline", "patched"):
    r = json.load(open("%s/%s/round-1.json" % (d, side)))
    for pr in r["probes"]:
        for st in pr.get("stats", []):
            units["%s \u2014 %s" % (pr["name"], st["name"])] = st["unit"]
wrong = []
for g in p.svgs:
    u = units.get(g["title"], "?")
    want = r"^[0-9.]+(B|kB|MB)$" if u == "B" else r"^[0-9.]+(ns|us|ms|s)$"
    if u not in ("B", "ns") or any(not re.match(want, t) for t in g["x"]) or \
            ("bytes" if u == "B" else u) not in g["xl"]:
        wrong.append("%s (%s: %s)" % (g["title"], u, " ".join(g["x"])))
check(not wrong, "x ticks and axis titles in each statistic's unit (wrong: %s)"
      % ("; ".join(wrong) or "none"))
rounds = max(int(x) for x in re.findall(r"<tr><td class=\"l\">rounds</td><td class=\"l\">(\d+)</td><td class=\"l\">(\d+)", dom)[0])
over = [g["title"] for g in p.svgs for l in g["leg"]
        if int(re.search(r"in (\d+) rounds?", l).group(1)) > rounds]
nolegend = [g["title"] for g in p.svgs if not g["leg"]]
check(not over and not nolegend, "plot legends count at most the %d rounds per arm (over: %s; "
      "without a legend: %s)" % (rounds, ", ".join(over) or "none", ", ".join(nolegend) or "none"))
PY
cat "$tmp/checks"
grep -q '^ok - report-html: plot legends' "$tmp/checks" ||
	nok "report-html: the DOM checks ran ($(tail -1 "$tmp/checks"))"
