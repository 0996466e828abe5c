#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The port counters in every row (ctr_<name>): the client's rxe sent at least one
# packet per MTU of every message of the size, and the tool's delta is within what this
# test read around the whole run. The "fabric" line under the table appears exactly
# when an abnormal counter moved (rxe on a busy 2-core VM retries now and then even
# without netem: that is the fabric's doing, and the line says so). Interval rows carry
# their own stretch's deltas, which add up to no more than the size's.
source "$(dirname "$0")/lib.sh"
counters "$RB_DEV_PEER" "$T/c0"
start_server "$BW" --json "$T/srv.json"
run_client "$BW" -s 64K -n 2000 --json "$T/cli.json" --csv "$T/cli.csv"
wait_server
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
counters "$RB_DEV_PEER" "$T/c1"
around=$(counter_delta "$T/c0" "$T/c1" sent_pkts)
python3 - "$T/cli.json" "$T/cli.csv" "$around" <<'PY' || fail "the rows' counters do not agree with rxe's"
import csv, json, sys
row = json.load(open(sys.argv[1]))["results"][0]
mtu, around = row["mtu_bytes"], int(sys.argv[3])
need = row["msgs"] * -(-row["size_bytes"] // mtu)
assert need <= row["ctr_sent_pkts"] <= around, (need, row["ctr_sent_pkts"], around)
moved = [k for k, v in row.items() if k.startswith("ctr_") and k not in ("ctr_sent_pkts", "ctr_rcvd_pkts") and v]
c = list(csv.DictReader(open(sys.argv[2])))
assert int(c[0]["ctr_sent_pkts"]) == row["ctr_sent_pkts"], c[0]
print("ctr_sent_pkts %d: at least %d for the data, at most %d around the run; abnormal: %s" % (row["ctr_sent_pkts"], need, around, moved or "none"))
open(sys.argv[1] + ".moved", "w").write("yes" if moved else "")
PY
if [ -s "$T/cli.json.moved" ]; then
	expect_grep "$T/cli.out" "^  fabric \(this side's port counters\): "
else
	grep -q "fabric (" "$T/cli.out" && fail "nothing abnormal moved, yet a fabric line was printed"
fi
pair_json "$BW" -s 64K -D 3 --interval 1
expect_rc "client --interval" "$CRC" 0
python3 - "$T/cli.json" <<'PY' || fail "the interval rows' counters do not add up to the size's"
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
ivl = [r for r in rows if r["interval"] != "total"]
tot = [r for r in rows if r["interval"] == "total"]
assert ivl and tot, rows
s = sum(r["ctr_sent_pkts"] for r in ivl)
assert s <= tot[-1]["ctr_sent_pkts"] and s > 0, (s, tot[-1]["ctr_sent_pkts"])
print("intervals: %d rows, %d packets of the size's %d" % (len(ivl), s, tot[-1]["ctr_sent_pkts"]))
PY
pass "port counters in the rows agree with rxe's own"
