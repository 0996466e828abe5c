#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tools/campaign against rdma_doctor --serve over loopback, no RDMA needed, and its
# verdict: one last line "campaign: ACCEPT" or "campaign: REJECT: REASONS", the exit
# code that follows it (0, 1; 130 interrupted), the same line in verdict.txt and at the
# top of report.html, and every file the report names written.
#  1. A plan of socket_bw cases (2 sizes x 2 --nsocks, 2 repeats) and an rc_write_bw
#     case, on a served host and on one with no serve. The served host's triage fails
#     at "hosts" (its serve sees no RDMA device): its rc_write_bw case is skipped,
#     never started (this build's rc_write_bw records every start), its socket_bw
#     cases run. The unserved host's triage fails at "oob": all its cases are skipped.
#     Each is marked "skipped: triage of HOST failed (...)" in status.csv and the
#     report, and the verdict rejects naming both triages. Interrupted after its first
#     completed case (SIGINT: exit 130, the cases not run a reason), the campaign
#     resumes: it skips what completed and runs again what did not; then every ran
#     case is in cases.csv once, its repeats and summary rows, and the report's figures
#     are cases.csv's. The report opens in a headless browser: the verdict line, the
#     triage verdicts, the cases that need a look, a plot, every case; nothing outside
#     the page is fetched.
#  2. A healthy run (socket_bw only, no repeats): ACCEPT, exit 0, though the triage
#     failed at a layer no socket_bw case needs (the report says it rules out none).
#  3. The same run with one case made unstable and one given an abnormal counter in
#     its cases.csv: REJECT, exit 1, "2 cases need a look (1 unstable, 1 abnormal port
#     counters)".
#  4. A case that fails (a --min-bw gate no loopback reaches): REJECT, "1 case failed".
#  5. A stand-in RDMA host (rdma_doctor --peer, rc_write_bw and ib_write_bw replaced by
#     scripts that answer as a healthy pair would): baseline-HOST.csv is written and
#     named, a case under 90 % of it rejects ("below 90 % of ib_write_bw's rate"); run
#     again with --no-baseline the file goes and the report no longer names it.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DR=$RB_BUILD/src/rdma_doctor
command -v chromium >/dev/null || { echo "SKIP: no chromium (tools/bootstrap --test installs it)"; exit 77; }
mkdir -p "$T/empty/sys"
P=$((P + 3))
"$DR" --serve -p "$P" --bind 127.0.0.1 --sysfs-root "$T/empty/sys" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
wait_for "$T/srv.out" "serving triage on port $P" 20 || fail "the serve did not start: $(cat "$T/srv.err")"
# This build's rdma_doctor and socket_bw are the real ones; its rc_write_bw only
# records that it was started.
mkdir -p "$T/build/src"
ln -s "$RB_BUILD/src/rdma_doctor" "$RB_BUILD/src/socket_bw" "$T/build/src/"
printf '#!/bin/sh\necho "$*" >>"%s/rc_write_bw.started"\nexit 1\n' "$T" >"$T/build/src/rc_write_bw"
chmod +x "$T/build/src/rc_write_bw"
cat >"$T/t.plan" <<'PLAN'
# two sizes x two --nsocks, each twice, 1 s each: some seconds a case; one RDMA case
repeat = 2
duration = 1
[socket_bw]
sizes = 64K 1M
vary = --nsocks 1 2
# a CI host has held the serve's socket_bw off its CPUs for 11 s: silence is no fault here
args = --timeout 30
[rc_write_bw]
sizes = 4K
PLAN
cd "$T" || fail "no scratch directory"

# files DIR: every file DIR/report.html names (its files list, status.csv's documents)
# exists, and the verdict line is the report's first element and verdict.txt; prints it.
files() {
	python3 - "$1" <<'PY'
import csv, html, os, re, sys
out = sys.argv[1]
page = open(f"{out}/report.html").read()
named = re.findall(r"<li><code>([^<]+)</code>", page.split('<ul id="files-list">')[1])
docs = [s["doc"] for s in csv.DictReader(open(f"{out}/status.csv")) if s["doc"]]
missing = [f for f in named + ["docs/" + d for d in docs] if not os.path.exists(os.path.join(out, f))]
assert not missing, "named, not written: %s" % missing
assert {"verdict.txt", "cases.csv", "status.csv"} <= set(named), named
assert ("docs/" in named) == bool(docs), (named, docs)
line = open(f"{out}/verdict.txt").read()
assert line.count("\n") == 1 and line.startswith("campaign: "), line
body = page.split("<body>", 1)[1]
top = re.match(r'\s*<p id="campaign-verdict" class="verdict (ok|fail)"><b>([^<]*)</b></p>', body)
assert top and html.unescape(top.group(2)) == line.strip(), (body[:300], line)
assert (top.group(1) == "ok") == (line.strip() == "campaign: ACCEPT"), top.group(1)
print(line.strip())
PY
}

# 1. Two hosts, one unreachable, RDMA ruled out; 127.0.0.2 is this host too, but the
# serve listens on 127.0.0.1 alone: none there.
args=(t.plan 127.0.0.1 127.0.0.2 --port "$P" --out rep --no-baseline --oob-timeout 2)
RB_BUILD=$T/build "$ROOT/tools/campaign" "${args[@]}" >"$T/c1.out" 2>&1 &
C=$!
# Interrupted once a case completed.
wait_for "$T/c1.out" "^campaign: \[[1-9]/10\] .*: ok" 120 || fail "no completed case within 120 s: $(cat "$T/c1.out")"
kill -INT "$C"
wait "$C"
expect_rc "interrupted campaign" $? 130
expect_grep "$T/c1.out" "interrupted: run it again to resume"
tail -n 1 "$T/c1.out" | grep -qE "^campaign: REJECT: .*[0-9]+ of 10 cases not run \(interrupted\)" ||
	fail "the interrupted campaign's last line: $(tail -n 1 "$T/c1.out")"
cp rep/status.csv "$T/status1.csv"
first=$(python3 -c 'import csv, sys; print(sum(r["rc"] == "0" for r in csv.DictReader(open(sys.argv[1]))))' "$T/status1.csv")
[ "$first" -ge 1 ] && [ "$first" -lt 4 ] || fail "the interrupted campaign completed $first cases (expected 1 to 3)"
RB_BUILD=$T/build "$ROOT/tools/campaign" "${args[@]}" >"$T/c2.out" 2>&1
expect_rc "resumed campaign" $? 1
expect_grep "$T/c2.out" "127\.0\.0\.2: oob: no triage with 127\.0\.0\.2:$P"
expect_grep "$T/c2.out" "^campaign: \[9/10\] rc_write_bw 127\.0\.0\.1 -s 4K: skipped: triage of 127\.0\.0\.1 failed \(hosts: "
expect_grep "$T/c2.out" "^campaign: rep: 4 of 10 cases run, 0 failed, 6 skipped; report: rep/report\\.html$"
# The verdict, last: both triages (the socket_bw cases may also be unstable on a busy host).
tail -n 1 "$T/c2.out" >"$T/line2"
expect_grep "$T/line2" "^campaign: REJECT: triage of 127\.0\.0\.1 failed \(hosts\): 1 case skipped; triage of 127\.0\.0\.2 failed \(oob\): 5 cases skipped(; [0-9]+ cases? needs? a look \([0-9]+ unstable\))?$"
got=$(files rep 2>"$T/files.err") || fail "rep: a file the report names is missing, or its verdict line"
[ "$got" = "$(cat "$T/line2")" ] || fail "rep: verdict.txt or the report's top line ($got) is not the last line"
[ -e "$T/rc_write_bw.started" ] && fail "rc_write_bw ran after the triage failed: $(cat "$T/rc_write_bw.started")"
# What completed before the SIGINT is not run again; what did not is.
python3 - "$T/status1.csv" "$T/c2.out" <<'PY' || fail "the resumed campaign's choice of cases is wrong"
import csv, re, sys
before = list(csv.DictReader(open(sys.argv[1])))
ran = re.findall(r"^campaign: \[\d+/10\] (.*?): ", open(sys.argv[2]).read(), re.M)
again = [r["case"] for r in before if r["rc"] == "0" and r["case"] in ran]
assert not again, "completed before the SIGINT, run again: %s" % again
left = [r["case"] for r in before if r["rc"] != "0" and r["case"] not in ran]
assert not left, "not completed before the SIGINT, not tried again: %s" % left
PY
python3 - rep "$first" <<'PY' || fail "the campaign's files disagree"
import csv, json, sys
out, first = sys.argv[1], int(sys.argv[2])
status = list(csv.DictReader(open(f"{out}/status.csv")))
rows = list(csv.DictReader(open(f"{out}/cases.csv")))
ok = [s for s in status if s["outcome"] == "ok"]
skipped = [s for s in status if s["outcome"] == "skipped"]
assert len(status) == 10 and len(ok) == 4 and len(skipped) == 6, [(s["case"], s["outcome"]) for s in status]
for s in skipped:
    layer = "oob" if s["host"] == "127.0.0.2" else "hosts"
    assert s["error"].startswith("skipped: triage of %s failed (%s: " % (s["host"], layer)), s
    assert s["rc"] == "" and s["seconds"] == "0" and s["doc"] == "", s
assert sorted((s["tool"], s["host"]) for s in skipped) == sorted(
    [("socket_bw", "127.0.0.2")] * 4 + [("rc_write_bw", "127.0.0.1"), ("rc_write_bw", "127.0.0.2")]), skipped
assert all(s["host"] == "127.0.0.1" and s["tool"] == "socket_bw" and s["rc"] == "0" for s in ok)
assert not {r["case"] for r in rows} - {s["case"] for s in ok}, "rows of a case not run"
for s in ok:
    mine = [r for r in rows if r["case"] == s["case"]]
    assert [r["repeat"] for r in mine] == ["1", "2", "all"], (s["case"], [r["repeat"] for r in mine])
    d = json.load(open(f"{out}/docs/{s['doc']}"))
    assert d["complete"] and d["results"][-1]["bw_avg_gbps"] == float(mine[-1]["bw_avg_gbps"]), s["case"]
    assert mine[-1]["date"] == d["meta"]["date"], (mine[-1]["date"], d["meta"]["date"])
t = json.load(open(f"{out}/triage-127.0.0.1.json"))
assert t["steps"][0]["layer"] == "oob" and t["steps"][0]["verdict"] == "ok" and t["failed_layer"] == "hosts", t
print(f"{first} case(s) before SIGINT; 4 ran, 6 skipped by the triage (4 oob, 2 rc_write_bw); the documents agree")
PY
# Opened in a headless browser: what it renders.
timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$T/rep/report.html" >"$T/dom.html" 2>"$T/chromium.err" ||
	fail "chromium could not open the report: $(tail -n 3 "$T/chromium.err")"
python3 - "$T/dom.html" rep/cases.csv "$(cat "$T/line2")" <<'PY' || fail "the rendered report is wrong"
import csv, html, re, sys
from html.parser import HTMLParser
dom, line = open(sys.argv[1]).read(), sys.argv[3]
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.svgs, self.refs, self.cell, self.row, self.texts = [], 0, [], None, None, []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.refs += [v for k, v in attrs if k in ("src", "href") and v]
        if tag == "svg": self.svgs += 1
        if tag == "table": self.tables.append([])
        if tag == "tr": self.row = []; self.tables[-1].append(self.row)
        if tag in ("td", "th"): self.cell = ""
    def handle_endtag(self, tag):
        if tag in ("td", "th"): self.row.append(self.cell); self.cell = None
    def handle_data(self, d):
        if self.cell is not None: self.cell += d
        if d.strip(): self.texts.append(d.strip())
p = P(); p.feed(dom)
assert not p.refs, p.refs  # self-contained: no script, style or image fetched
assert not re.search(r"<(script|link|img|iframe|object|embed)\b|url\(|@import", dom, re.I), "a fetch in the page"
assert p.svgs == 1, p.svgs
top = re.search(r"<body>\s*<p id=\"campaign-verdict\" class=\"verdict fail\"><b>([^<]*)</b></p>", dom)
assert top and html.unescape(top.group(1)) == line, (dom[dom.index("<body>"):][:300], line)  # the page's first thing
assert dom.index("Triage verdict") < dom.index("Needs a look") < dom.index("Bandwidth over message size") < dom.index("Every case")
assert "127.0.0.1</b>: hosts: this host: no RDMA device" in dom and "127.0.0.2</b>: oob: no triage" in dom
assert "It rules out 1 case of this plan" in dom and "It rules out 5 cases of this plan" in dom
look, every = p.tables[-2], p.tables[-1]
assert sum(1 for r in look[1:] if r[2].startswith("skipped: triage of 127.0.0.2 failed (oob: ")) == 5, look
assert sum(1 for r in look[1:] if r[2].startswith("skipped: triage of 127.0.0.1 failed (hosts: ")) == 1, look
assert not [r for r in look[1:] if not r[2].startswith(("skipped: ", "unstable: "))], look
rows = {r["case"]: r for r in csv.DictReader(open(sys.argv[2])) if r["repeat"] == "all"}
assert len(every) - 1 == 10 and len(rows) == 4, (len(every), len(rows))
measured = [r for r in every[1:] if r[2]]
assert len(measured) == 4 and all(r[-1] == "ok" for r in measured), measured
for r in measured:
    assert abs(float(r[2]) - float(rows[r[0]]["bw_avg_gbps"])) < 1e-3, (r, rows[r[0]]["bw_avg_gbps"])
marked = [r for r in every[1:] if r[-1].startswith("skipped: triage of ")]
assert len(marked) == 6 and not any(r[2] for r in marked), marked
ticks = re.findall(r'text-anchor="end">([^<]*)</text>', dom)
step = float(ticks[1])
assert float(ticks[0]) == 0 and all(abs(float(t) - i * step) < 1e-9 for i, t in enumerate(ticks)), ticks
assert re.match(r"[125]0*$|0\.0*[125]$", ticks[1]), ticks  # 1, 2 or 5 times a power of ten
assert re.search(r">socket_bw to 127\.0\.0\.1, 20\d\d-\d\d-\d\d</text>", dom), "the plot's title"
print("rendered: the verdict first,", len(look) - 1, "rows need a look,", len(measured), "measured,",
      len(marked), "skipped, one plot with round ticks; figures as in cases.csv")
PY

# 2. A healthy run: nothing to look at, ACCEPT.
printf 'repeat = 1\nduration = 1\n[socket_bw]\nsizes = 64K 1M\nargs = --timeout 30\n' >"$T/h.plan"
"$ROOT/tools/campaign" h.plan 127.0.0.1 --port "$P" --out healthy --no-baseline >"$T/h.out" 2>&1
expect_rc "healthy campaign" $? 0
[ "$(tail -n 1 "$T/h.out")" = "campaign: ACCEPT" ] || fail "the healthy campaign's last line: $(tail -n 1 "$T/h.out")"
got=$(files healthy 2>"$T/files.err") || fail "healthy: a file the report names is missing, or its verdict line"
[ "$got" = "campaign: ACCEPT" ] || fail "healthy: verdict.txt or the report's top line: $got"
expect_grep healthy/report.html "It rules out no case of this plan: socket_bw needs only the out-of-band path"
expect_grep healthy/report.html "<h2 id=\"look\">Needs a look \\(0\\)</h2>"

# 3. The same, a case made unstable and one given a link error in cases.csv: both need
# a look. Run again, nothing runs (both completed) and the verdict is the report's.
cp -r healthy look
python3 - look/cases.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
fields = list(rows[0]) + [f for f in ("unstable", "bw_avg_gbps_cv_pct", "repeats", "ctr_symbol_error") if f not in rows[0]]
rows[0].update(unstable="1", bw_avg_gbps_cv_pct="12.5", repeats="3")
rows[1].update(ctr_symbol_error="3")
w = csv.DictWriter(open(sys.argv[1], "w", newline=""), fieldnames=fields)
w.writeheader()
w.writerows(rows)
PY
"$ROOT/tools/campaign" h.plan 127.0.0.1 --port "$P" --out look --no-baseline >"$T/l.out" 2>&1
expect_rc "campaign with cases that need a look" $? 1
[ "$(tail -n 1 "$T/l.out")" = "campaign: REJECT: 2 cases need a look (1 unstable, 1 abnormal port counters)" ] ||
	fail "the last line with cases that need a look: $(tail -n 1 "$T/l.out")"
grep -q "^campaign: \[" "$T/l.out" && fail "a completed case ran again: $(grep "^campaign: \[" "$T/l.out")"
files look >/dev/null 2>"$T/files.err" || fail "look: a file the report names is missing, or its verdict line"
expect_grep look/report.html "unstable: bandwidth CV 12\\.5 % over 3 repeats"
expect_grep look/report.html "abnormal port counters: symbol_error \\+3"

# 4. A case that fails: its gate (--min-bw) is out of loopback's reach.
printf 'repeat = 1\nduration = 1\n[socket_bw]\nsizes = 64K\nargs = --min-bw 100000\n' >"$T/f.plan"
"$ROOT/tools/campaign" f.plan 127.0.0.1 --port "$P" --out failed --no-baseline >"$T/f.out" 2>&1
expect_rc "campaign with a failed case" $? 1
[ "$(tail -n 1 "$T/f.out")" = "campaign: REJECT: 1 case failed" ] || fail "the last line with a failed case: $(tail -n 1 "$T/f.out")"
files failed >/dev/null 2>"$T/files.err" || fail "failed: a file the report names is missing, or its verdict line"
expect_grep failed/status.csv "^socket_bw 127\\.0\\.0\\.1 -s 64K,socket_bw,127\\.0\\.0\\.1,,failed,1,socket_bw: gate --min-bw 100000 failed .*,case-000\\.json"
kill -TERM "$SRV"
wait "$SRV"
SRV=

# 5. A stand-in healthy RDMA pair: rdma_doctor --peer says healthy, ib_write_bw gives
# 10 Gb/s at 4 KiB and 40 at 64 KiB, rc_write_bw 9.5 and 20 (half: slow).
mkdir -p "$T/rdma/src" "$T/bin"
cat >"$T/rdma/src/rdma_doctor" <<'SH'
#!/bin/sh
echo '{"healthy": true, "failed_layer": null, "next": null, "steps": [{"layer": "oob", "check": "connect", "verdict": "ok", "text": "stand-in"}], "conclusion": "healthy: a stand-in for rdma_doctor --peer"}'
SH
cat >"$T/rdma/src/rc_write_bw" <<PY
#!$RB_PYTHON
import json, sys
a = sys.argv[1:]
size = {"4K": 4096, "64K": 65536}[a[a.index("-s") + 1]]
row = {"tool": "rc_write_bw", "size_bytes": size, "bw_avg_gbps": {4096: 9.5, 65536: 20.0}[size], "verify": False}
json.dump({"meta": {"tool": "rc_write_bw", "host": "here", "date": "2026-01-02T03:04:05Z"}, "results": [row],
           "complete": True}, open(a[a.index("--json") + 1], "w"))
PY
cat >"$T/bin/ib_write_bw" <<'SH'
#!/bin/sh
echo " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
echo " 4096       1000           10.50              10.00                0.305"
echo " 65536      1000           41.00              40.00                0.076"
SH
chmod +x "$T/rdma/src/rdma_doctor" "$T/rdma/src/rc_write_bw" "$T/bin/ib_write_bw"
printf 'repeat = 1\nduration = 1\n[rc_write_bw]\nsizes = 4K 64K\nverify = off\n' >"$T/r.plan"
PATH=$T/bin:$PATH RB_BUILD=$T/rdma "$ROOT/tools/campaign" r.plan node-b --out rdma >"$T/r.out" 2>&1
expect_rc "campaign on a stand-in pair, one case slow" $? 1
[ "$(tail -n 1 "$T/r.out")" = "campaign: REJECT: 1 case needs a look (1 below 90 % of ib_write_bw's rate)" ] ||
	fail "the last line with a slow case: $(tail -n 1 "$T/r.out")"
files rdma >/dev/null 2>"$T/files.err" || fail "rdma: a file the report names is missing, or its verdict line"
expect_grep rdma/report.html "<li><code>baseline-node-b\\.csv</code>"
[ "$(tr -d '\r' <rdma/baseline-node-b.csv)" = "$(printf 'size_bytes,bw_avg_gbps\n4096,10.0\n65536,40.0')" ] ||
	fail "baseline-node-b.csv: $(cat rdma/baseline-node-b.csv)"
expect_grep rdma/report.html "slow: 20\\.000 Gb/s is 50 % of ib_write_bw(&#x27;|')s 40\\.000 Gb/s"
rm rdma/status.csv # all again, without the baseline: nothing to compare, the file goes
PATH=$T/bin:$PATH RB_BUILD=$T/rdma "$ROOT/tools/campaign" r.plan node-b --out rdma --no-baseline >"$T/r2.out" 2>&1
expect_rc "campaign on a stand-in pair, --no-baseline" $? 0
[ "$(tail -n 1 "$T/r2.out")" = "campaign: ACCEPT" ] || fail "the last line with no baseline: $(tail -n 1 "$T/r2.out")"
[ -e rdma/baseline-node-b.csv ] && fail "an earlier run's baseline-node-b.csv stayed"
grep -q "baseline-" rdma/report.html && fail "the report names a baseline file it did not write"
files rdma >/dev/null 2>"$T/files.err" || fail "rdma: a file the report names is missing, or its verdict line"
pass "tools/campaign: one ACCEPT/REJECT line and its exit code, failed triages skip their cases (marked, never run), every named file written, SIGINT then resume, a self-contained report"
