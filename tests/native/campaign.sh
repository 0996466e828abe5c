#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tools/campaign against rdma_doctor --serve over loopback, no RDMA needed: a plan of
# socket_bw cases (2 sizes x 2 --nsocks, 2 repeats) on a served host and on one with
# no serve. The reachable host's triage verdict is in the report; the unreachable
# one's cases are failed at once ("unreachable"), not run. Interrupted after its first
# completed case (SIGINT: exit 130), the campaign resumes: it skips what completed and
# runs again what failed; then every reachable case is in cases.csv once, its repeats and summary rows, and the report's
# figures are cases.csv's. The report opens in a headless browser: the verdicts, the
# failed cases first, a plot, every case; nothing outside the page is fetched.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DR=$RB_BUILD/src/rdma_doctor
command -v chromium >/dev/null || { echo "SKIP: no chromium (tools/bootstrap --test installs it)"; exit 77; }
mkdir -p "$T/empty/sys"
P=$((P + 3))
"$DR" --serve -p "$P" --bind 127.0.0.1 --sysfs-root "$T/empty/sys" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
wait_for "$T/srv.out" "serving triage on port $P" 20 || fail "the serve did not start: $(cat "$T/srv.err")"
cat >"$T/t.plan" <<'PLAN'
# two sizes x two --nsocks, each twice, 1 s each: some seconds a case
repeat = 2
duration = 1
[socket_bw]
sizes = 64K 1M
vary = --nsocks 1 2
PLAN
cd "$T" || fail "no scratch directory"
# 127.0.0.2 is this host too, but the serve listens on 127.0.0.1 alone: none there.
args=(t.plan 127.0.0.1 127.0.0.2 --port "$P" --out rep --no-baseline --oob-timeout 2)
"$ROOT/tools/campaign" "${args[@]}" >"$T/c1.out" 2>&1 &
C=$!
# Interrupted once a case completed (a case that failed before it, on a host that
# stalled, is what a resume must run again).
wait_for "$T/c1.out" "^campaign: \[[1-8]/8\] .*: ok" 120 || fail "no completed case within 120 s: $(cat "$T/c1.out")"
kill -INT "$C"
wait "$C"
expect_rc "interrupted campaign" $? 130
expect_grep "$T/c1.out" "interrupted: run it again to resume"
cp rep/status.csv "$T/status1.csv"
first=$(python3 -c 'import csv, sys; print(sum(r["rc"] == "0" for r in csv.DictReader(open(sys.argv[1]))))' "$T/status1.csv")
[ "$first" -ge 1 ] && [ "$first" -lt 4 ] || fail "the interrupted campaign completed $first cases (expected 1 to 3)"
"$ROOT/tools/campaign" "${args[@]}" >"$T/c2.out" 2>&1
expect_rc "resumed campaign" $? 1
expect_grep "$T/c2.out" "127\.0\.0\.2: oob: no triage with 127\.0\.0\.2:$P"
expect_grep "$T/c2.out" "8 of 8 cases run, 4 failed"
# What completed before the SIGINT is not run again; what failed is.
python3 - "$T/status1.csv" "$T/c2.out" <<'PY' || fail "the resumed campaign's choice of cases is wrong"
import csv, re, sys
before = list(csv.DictReader(open(sys.argv[1])))
ran = re.findall(r"^campaign: \[\d+/8\] (.*?): ", open(sys.argv[2]).read(), re.M)
again = [r["case"] for r in before if r["rc"] == "0" and r["case"] in ran]
assert not again, "completed before the SIGINT, run again: %s" % again
skipped = [r["case"] for r in before if r["rc"] != "0" and r["case"] not in ran]
assert not skipped, "failed before the SIGINT, not run again: %s" % skipped
PY
python3 - rep "$first" <<'PY' || fail "the campaign's files disagree"
import csv, json, sys
out, first = sys.argv[1], int(sys.argv[2])
status = list(csv.DictReader(open(f"{out}/status.csv")))
rows = list(csv.DictReader(open(f"{out}/cases.csv")))
ok = [s for s in status if s["rc"] == "0"]
bad = [s for s in status if s["rc"] != "0"]
assert len(status) == 8 and len(ok) == 4 and len(bad) == 4, [(s["case"], s["rc"]) for s in status]
assert all(s["host"] == "127.0.0.2" and s["error"].startswith("not run: 127.0.0.2 is unreachable") and
           s["seconds"] == "0" for s in bad), bad
assert all(s["host"] == "127.0.0.1" for s in ok)
for s in ok:
    mine = [r for r in rows if r["case"] == s["case"]]
    assert [r["repeat"] for r in mine] == ["1", "2", "all"], (s["case"], [r["repeat"] for r in mine])
    d = json.load(open(f"{out}/docs/{s['doc']}"))
    assert d["complete"] and d["results"][-1]["bw_avg_gbps"] == float(mine[-1]["bw_avg_gbps"]), s["case"]
t = json.load(open(f"{out}/triage-127.0.0.1.json"))
assert t["steps"][0]["layer"] == "oob" and t["steps"][0]["verdict"] == "ok", t
print(f"{first} case(s) before SIGINT; 4 ran, 4 refused as unreachable at once; the documents agree")
PY
# Opened in a headless browser: what it renders.
timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$T/rep/report.html" >"$T/dom.html" 2>"$T/chromium.err" ||
	fail "chromium could not open the report: $(tail -n 3 "$T/chromium.err")"
python3 - "$T/dom.html" rep/cases.csv <<'PY' || fail "the rendered report is wrong"
import csv, re, sys
from html.parser import HTMLParser
dom = open(sys.argv[1]).read()
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.svgs, self.refs, self.cell, self.row = [], 0, [], None, None
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
p = P(); p.feed(dom)
assert not p.refs, p.refs  # self-contained: no script, style or image fetched
assert not re.search(r"<(script|link|img|iframe|object|embed)\b|url\(|@import", dom, re.I), "a fetch in the page"
assert p.svgs == 1, p.svgs
assert dom.index("Triage verdict") < dom.index("Needs a look") < dom.index("Bandwidth over message size") < dom.index("Every case")
assert "127.0.0.1</b>: hosts: this host: no RDMA device" in dom and "127.0.0.2</b>: oob: no triage" in dom
look, every = p.tables[-2], p.tables[-1]
assert sum(1 for r in look[1:] if "unreachable" in r[2]) == 4, look
rows = {r["case"]: r for r in csv.DictReader(open(sys.argv[2])) if r["repeat"] == "all"}
assert len(every) - 1 == len(rows) == 4, (len(every), len(rows))
for r in every[1:]:
    assert abs(float(r[2]) - float(rows[r[0]]["bw_avg_gbps"])) < 1e-3, (r, rows[r[0]]["bw_avg_gbps"])
print("rendered:", len(look) - 1, "cases need a look,", len(every) - 1, "measured, one plot; figures as in cases.csv")
PY
kill -TERM "$SRV"
wait "$SRV"
SRV=
pass "tools/campaign: triage first, unreachable hosts' cases refused at once, SIGINT then resume, a self-contained report"
