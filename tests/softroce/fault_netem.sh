#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# 10 % loss and 5 ms delay on both netdevs (netem): RC's retransmissions carry the run
# through. rc_write_bw --verify and rc_write_lat complete, exit 0 on both sides, every
# payload checked, and the retransmissions show in rxe's counters: the client retried
# (completer_retry_err), sent more packets than the data needs, and the server saw
# duplicates or out-of-sequence packets.
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
fabric_guard
for n in "$RB_NETDEV" "$RB_NETDEV_PEER"; do
	tc qdisc add dev "$n" root netem loss 10% delay 5ms || fail "cannot add netem to $n"
done

# lossy TOOL ARGS...: one run through the lossy link; asserts completion and that
# retransmissions were counted. Sets SENT (packets the client's rxe sent).
lossy() {
	local tool=$1 name start took retries dup oos
	shift
	name=$(basename "$tool")
	counters "$RB_DEV" "$T/srv0"
	counters "$RB_DEV_PEER" "$T/cli0"
	start=$(now_ms)
	pair_json "$tool" "$@" --timeout 10
	took=$(($(now_ms) - start))
	counters "$RB_DEV" "$T/srv1"
	counters "$RB_DEV_PEER" "$T/cli1"
	expect_rc "client ($name)" "$CRC" 0
	expect_rc "server ($name)" "$SRC" 0
	expect_took "$name through 10 % loss" "$took" 90
	SENT=$(counter_delta "$T/cli0" "$T/cli1" sent_pkts)
	retries=$(counter_delta "$T/cli0" "$T/cli1" completer_retry_err)
	dup=$(counter_delta "$T/srv0" "$T/srv1" duplicate_request)
	oos=$(counter_delta "$T/srv0" "$T/srv1" out_of_seq_request)
	[ "$retries" -gt 0 ] || fail "$name: no retransmission counted through 10 % loss"
	[ $((dup + oos)) -gt 0 ] || fail "$name: the server saw no duplicate or out-of-sequence packet"
	# The tool's own report of it: the size's counter deltas in its rows (within what the test
	# read around the whole run), and a line under the text table.
	python3 - "$T/cli.json" "$T/srv.json" "$retries" "$((dup + oos))" <<'PY' || fail "$name: the rows do not show the retransmissions"
import json, sys
cli = json.load(open(sys.argv[1]))["results"]
srv = json.load(open(sys.argv[2]))["results"]
retries, dupoos = int(sys.argv[3]), int(sys.argv[4])
r = sum(row["ctr_completer_retry_err"] for row in cli)
d = sum(row["ctr_duplicate_request"] + row["ctr_out_of_seq_request"] for row in srv)
assert 0 < r <= retries, (r, retries)
assert 0 < d <= dupoos, (d, dupoos)
print("rows: client ctr_completer_retry_err %d (of %d around the run), server duplicates + out of sequence %d (of %d)" % (r, retries, d, dupoos))
PY
	expect_grep "$T/cli.out" "^  fabric \(this side's port counters\): .*completer_retry_err \+[0-9]+"
	echo "$name: $((took / 1000)).$((took % 1000 / 100)) s; client: $SENT packets sent," \
		"$retries retry sequences; server: $dup duplicates, $oos out of sequence"
}

lossy "$BW" -s 16K -n 200 --verify
expect_grep "$T/cli.out" "Mode .*verify"
python3 - "$T/cli.json" "$T/srv.json" "$SENT" <<'PY' || fail "rc_write_bw through loss: wrong result"
import json, sys
for p in sys.argv[1:3]:
    d = json.load(open(p))
    r = d["results"][0]
    assert d["complete"] and r["msgs"] == 200 and r["bytes"] == 200 * 16384 and r["verify"], (p, r)
E = 200 * -(-16384 // d["meta"]["mtu_bytes"])
assert int(sys.argv[3]) > E, f"{sys.argv[3]} packets sent: no more than the {E} the data needs"
PY

# 5 ms each way: no half round trip can be shorter than 5 ms.
lossy "$LAT" -s 4K -n 100
python3 - "$T/cli.json" "$T/srv.json" <<'PY' || fail "rc_write_lat through loss: wrong result"
import json, sys
for p in sys.argv[1:3]:
    d = json.load(open(p))
    r = d["results"][0]
    assert d["complete"] and r["iterations"] == 100 and r["lat_min_us"] >= 5000, (p, r)
PY
pass "10 % loss + 5 ms delay: both tools complete, verified, retransmissions counted"
