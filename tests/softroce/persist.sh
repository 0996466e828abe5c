#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --persist on both verbs tools: one server serves clients one after another, each run
# with its client's parameters (QPs, buffers and receive queues built again) and its
# own documents FILE-N.EXT. A client killed mid-run fails that run only. Between runs
# the server holds only what its own command line sets up (1 QP), never a run's QPs
# (rdma resource, a count the tool does not keep). SIGINT while it waits for the next client: exit 0, nothing written for it.
# A run that leaves a thread running ends the server (fifo_pingpong, a test fault).
source "$(dirname "$0")/lib.sh"

# server_qps: QPs the kernel holds for the persistent server's process.
server_qps() {
	rdma resource show qp 2>/dev/null | grep -c "pid $(tool_pid "$SRV") " || true
}

# stop_persistent: SIGINT to the waiting server; sets SRC.
stop_persistent() {
	kill -0 "$SRV" 2>/dev/null || fail "the persistent server exited after its runs"
	kill -INT "$SRV"
	wait_server
	expect_rc "persistent server stopped while waiting" "$SRC" 0
}

start_server "$BW" --persist --csv "$T/bw.csv" --json "$T/bw.json"
# idle_qps N: the waiting server holds 1 QP (its own -q 1 set-up), not run N's.
idle_qps() {
	local n
	sleep 0.5
	n=$(server_qps)
	[ "$n" = 1 ] || fail "the persistent server holds $n QP(s) after run $1 (its own set-up has 1)"
}
run_client "$BW" -s 4K -n 300 -q 2 --verify
expect_rc "rc_write_bw client 1" "$CRC" 0
idle_qps 1
run_client "$BW" -s 64K,1M -n 40 --write-with-imm -q 3
expect_rc "rc_write_bw client 2" "$CRC" 0
idle_qps 2
start_client "$BW" -s 64K -D 20
for ((i = 0; i < 300 && $(grep -c "QP timeout" "$T/srv.out") < 3; i++)); do sleep 0.1; done
sleep 2
moving "$RB_DEV_PEER" || fail "run 3 was not moving"
kill -KILL "$(tool_pid "$CLI")"
wait_client
run_client "$BW" -s 2,8 -n 100 -q 4
expect_rc "rc_write_bw client 4 (after a client was killed)" "$CRC" 0
stop_persistent
expect_grep "$T/srv.err" "stopped while waiting for a client, after 4 run\(s\), 1 failed"
[ -e "$T/bw-5.json" ] && fail "a document for the run that never came"
python3 - "$T" <<'PY' || fail "rc_write_bw's per-run documents are wrong"
import csv, json, sys
t = sys.argv[1]
d = [json.load(open(f"{t}/bw-{n}.json")) for n in (1, 2, 3, 4)]
c = [list(csv.DictReader(open(f"{t}/bw-{n}.csv"))) for n in (1, 2, 3, 4)]
assert d[0]["complete"] and d[0]["meta"]["qps"] == 2 and d[0]["meta"]["verify"], d[0]["meta"]
assert [r["msgs"] for r in d[0]["results"]] == [600], d[0]["results"]
assert d[1]["complete"] and d[1]["meta"]["write_with_imm"] and d[1]["meta"]["qps"] == 3, d[1]["meta"]
assert [r["size_bytes"] for r in d[1]["results"]] == [65536, 1 << 20], d[1]["results"]
assert not d[2]["complete"] and d[2]["error"], d[2]
assert c[2] and c[2][-1]["error"], c[2]
assert d[3]["complete"] and d[3]["meta"]["qps"] == 4, d[3]["meta"]
assert [r["size_bytes"] for r in d[3]["results"]] == [2, 8] and all(not r["error"] for r in c[3]), c[3]
print("rc_write_bw: 4 runs, run 3 failed:", d[2]["error"])
PY

start_server "$LAT" --persist --json "$T/lat.json"
run_client "$LAT" -s 64 -n 500 --event
expect_rc "rc_write_lat client 1" "$CRC" 0
run_client "$LAT" -s 8,4K -n 300 --verify
expect_rc "rc_write_lat client 2" "$CRC" 0
stop_persistent
python3 - "$T" <<'PY' || fail "rc_write_lat's per-run documents are wrong"
import json, sys
t = sys.argv[1]
a, b = (json.load(open(f"{t}/lat-{n}.json")) for n in (1, 2))
assert a["complete"] and a["meta"]["event"] and a["results"][0]["iterations"] == 500, a
assert b["complete"] and not b["meta"]["event"] and [r["size_bytes"] for r in b["results"]] == [8, 4096], b
print("rc_write_lat: 2 runs, --event then --verify")
PY
# A channel thread that never leaves its step (RB_TEST_FAULT=worker-deaf on the server's
# channel 1): the run fails within --timeout, the thread is left running with its QPs,
# and the persistent server ends with that run rather than serve the next one beside it.
RB_TEST_FAULT=worker-deaf:qp=1 start_server "$FP" --persist --timeout 2
run_client "$FP" --threads 2 -s 4K -n 200 --timeout 2
for ((i = 0; i < 300; i++)); do kill -0 "$SRV" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$SRV" 2>/dev/null; then
	kill_server
	fail "a persistent server whose channel thread did not stop went on waiting for clients"
fi
wait_server
expect_rc "persistent server, a thread left running" "$SRC" 1
expect_rc "client of a run whose server left a thread running" "$CRC" 1
grep -qE 'channel thread 1 of 2 is still in the step and has not made progress for [4-9]\.[0-9] s \(twice --timeout' "$T/srv.err" ||
	fail "the server did not name the thread that did not leave its step: $(head -3 "$T/srv.err")"
grep -q 'did not stop and is left running; this persistent server ends here, after 1 run(s), 1 failed' "$T/srv.err" ||
	fail "the server did not say why it ended: $(tail -3 "$T/srv.err")"
sed -n '$p' "$T/srv.err"
pass "persistent servers served their clients one after another, and end after a thread left running"
