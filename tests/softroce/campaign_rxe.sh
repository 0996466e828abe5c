#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tools/campaign on the rxe pair against rdma_doctor --serve --perftest: the triage is
# healthy, perftest's ib_write_bw gives the baseline (-a, 20 iterations per size), and
# two verified rc_write_bw cases of 2 repeats each complete. Every row is verified,
# its messages x size are its bytes, the rows' packet counts add up to no more than rxe
# counted around the whole campaign (a counter the campaign did not compute), and the
# report puts ib_write_bw's rate and the ratio beside each case and names
# baseline-HOST.csv. Its last line is the verdict, in verdict.txt and atop the report
# too: ACCEPT (exit 0), or REJECT (exit 1) only for cases that need a look (a busy
# guest may make a case unstable); never a triage, a skipped or a failed case.
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
command -v ib_write_bw >/dev/null || { echo "SKIP: no ib_write_bw (perftest)"; exit 77; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
P=$((P + 3))
timeout 600 "$RB_BUILD/src/rdma_doctor" --serve --perftest --perftest-iters 20 -d "$RB_DEV" -p "$P" \
	>"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
wait_for "$T/srv.out" "serving triage on port $P \(rc_write_bw on $((P + 1)), socket_bw on $((P + 2)), ib_write_bw on $((P + 3));" 20 ||
	fail "the serve did not start all three: $(cat "$T/srv.out" "$T/srv.err")"
cat >"$T/r.plan" <<'PLAN'
repeat = 2
duration = 1
[rc_write_bw]
sizes = 4K 64K
PLAN
counters "$RB_DEV_PEER" "$T/c0"
cd "$T" || fail "no scratch directory"
timeout 500 "$ROOT/tools/campaign" r.plan 127.0.0.1 --port "$P" -d "$RB_DEV_PEER" --baseline-iters 20 --out rep \
	>"$T/camp.out" 2>&1
crc=$?
line=$(tail -n 1 "$T/camp.out")
case $crc in
0) [ "$line" = "campaign: ACCEPT" ] || fail "campaign: exit 0 after '$line'" ;;
1) echo "$line" | grep -qE '^campaign: REJECT: [0-9]+ cases? needs? a look \([^)]*\)$' ||
	fail "campaign: rejected for more than a look: '$line'" ;;
*) fail "campaign: exit code $crc: '$line'" ;;
esac
[ "$(cat rep/verdict.txt)" = "$line" ] || fail "verdict.txt: $(cat rep/verdict.txt), not the last line '$line'"
counters "$RB_DEV_PEER" "$T/c1"
around=$(counter_delta "$T/c0" "$T/c1" sent_pkts)
cat "$T/camp.out"
python3 - rep "$around" <<'PY' || fail "the campaign's documents are wrong"
import csv, json, re, sys
out, around = sys.argv[1], int(sys.argv[2])
t = json.load(open(f"{out}/triage-127.0.0.1.json"))
assert t["healthy"], t["conclusion"]
base = {int(r["size_bytes"]): float(r["bw_avg_gbps"]) for r in csv.DictReader(open(f"{out}/baseline-127.0.0.1.csv"))}
assert 4096 in base and 65536 in base and all(v > 0 for v in base.values()), base
rows = list(csv.DictReader(open(f"{out}/cases.csv")))
assert len(rows) == 6 and [r["repeat"] for r in rows] == ["1", "2", "all"] * 2, [r["repeat"] for r in rows]
for r in rows:
    assert r["verify"] == "1" and int(r["msgs"]) * int(r["size_bytes"]) == int(r["bytes"]), r
sent = sum(int(r["ctr_sent_pkts"]) for r in rows if r["repeat"] != "all")
assert 0 < sent <= around, (sent, around)
page = open(f"{out}/report.html").read()
assert "<li><code>baseline-127.0.0.1.csv</code>" in page, "the report does not name baseline-127.0.0.1.csv"
assert "skipped: " not in open(f"{out}/status.csv").read(), "a case skipped after a healthy triage"
for size, label in ((4096, "4 KiB"), (65536, "64 KiB")):
    m = re.search(r"<tr><td>rc_write_bw 127\.0\.0\.1 -s %s</td><td>%s</td>(.*?)</tr>" % ({4096: "4K", 65536: "64K"}[size], label), page)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", m.group(1))
    assert abs(float(cells[4]) - base[size]) < 1e-3 and cells[5], cells  # ib_write_bw and the ratio
print(f"baseline at {len(base)} sizes; rows' packets {sent} <= rxe's {around} around the campaign")
PY
kill -TERM "$SRV"
wait "$SRV"
expect_rc serve $? 0
SRV=
pass "tools/campaign on rxe: healthy triage, ib_write_bw baseline beside each verified case"
