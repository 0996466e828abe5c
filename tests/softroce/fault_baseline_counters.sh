#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Baseline for the fault suite: with no fault, rxe's own port counters (kept by the
# kernel, not computed by the tool) agree with what rc_write_bw says it moved.
#
# rxe has no ports/1/counters/port_xmit_data; its hw_counters count packets. At path
# MTU M, a message of S bytes is ceil(S/M) packets, so the client's rxe must have sent
# at least E = msgs * ceil(S/M) data packets, and the server's must have accepted E new
# ones (received minus duplicate_request). Anything sent beyond E is retransmission:
# each retry sequence (completer_retry_err) resends at most the outstanding window,
# tx depth x ceil(S/M) packets, so sent - E <= retries x that; with no retry, exactly E.
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
counters "$RB_DEV" "$T/srv0"
counters "$RB_DEV_PEER" "$T/cli0"
pair_json "$BW" -s 65536 -n 500
counters "$RB_DEV" "$T/srv1"
counters "$RB_DEV_PEER" "$T/cli1"
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
sent=$(counter_delta "$T/cli0" "$T/cli1" sent_pkts)
retries=$(counter_delta "$T/cli0" "$T/cli1" completer_retry_err)
rcvd=$(counter_delta "$T/srv0" "$T/srv1" rcvd_pkts)
dup=$(counter_delta "$T/srv0" "$T/srv1" duplicate_request)
python3 - "$T/cli.json" "$T/srv.json" "$sent" "$retries" "$rcvd" "$dup" <<'PY' || fail "rxe counters disagree with the tool"
import json, sys
d, s = (json.load(open(p)) for p in sys.argv[1:3])
sent, retries, rcvd, dup = map(int, sys.argv[3:])
r, mtu, depth = d["results"][0], d["meta"]["mtu_bytes"], d["meta"]["tx_depth"]
assert d["complete"] and r["size_bytes"] == 65536 and r["msgs"] == 500, r
assert r["bytes"] == r["msgs"] * r["size_bytes"], r
assert (s["results"][0]["msgs"], s["results"][0]["bytes"]) == (r["msgs"], r["bytes"]), s["results"]
per_msg = -(-r["size_bytes"] // mtu)
E = r["msgs"] * per_msg
print(f"tool: {r['msgs']} x {r['size_bytes']} B = {r['bytes']} B at MTU {mtu} -> {E} data packets")
print(f"rxe: client sent {sent} ({retries} retry sequences), server received {rcvd}, {dup} duplicates")
assert sent >= E, f"the client's rxe sent {sent} packets, fewer than the {E} the bytes need"
assert sent - E <= retries * depth * per_msg, f"{sent - E} packets beyond {E} with {retries} retries"
assert rcvd - dup >= E, f"the server's rxe accepted {rcvd - dup} new packets, {E} expected"
assert rcvd - dup <= sent, (rcvd, dup, sent)
PY
pass "rxe counters match the bytes the tool reports"
