#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --event: the receiver arms the CQ, polls again, and only then sleeps on the
# completion channel. Every wake-up must find its completion (no empty ones) and no
# completion may wait out the bounded sleep (no late ones), on both sides; each
# round trip wakes each side at most once.
source "$(dirname "$0")/lib.sh"
args=(-s 8,4K,64K -n 300 --warmup 20 --event --verify)
start_server "$LAT" "${args[@]}" --json "$T/srv.json"
run_client "$LAT" "${args[@]}" --json "$T/cli.json"
wait_server
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
diff <(table_rows "$T/cli.out") <(table_rows "$T/srv.out") >/dev/null || fail "client and server rows differ"
expect_grep "$T/cli.out" "Wake-ups +: [0-9]+ on this side, 0 empty .*, 0 late "
expect_grep "$T/srv.out" "Wake-ups +: [0-9]+ on this side, 0 empty .*, 0 late "
python3 - "$T/cli.json" "$T/srv.json" <<'PY' || fail "wake-up counts wrong"
import json, sys
for side, path in zip(("client", "server"), sys.argv[1:]):
    d = json.load(open(path))
    assert d["complete"] and d["meta"]["event"] and len(d["results"]) == 3, d
    for r in d["results"]:
        assert r["arrival"] == "event" and r["verify"], r
        rounds = r["iterations"] + r["warmup"]
        assert 0 < r["event_wakeups"] <= rounds, (side, r)
        assert r["empty_wakeups"] == 0 and r["late_wakeups"] == 0, (side, r)
    print(side, [(r["size_bytes"], r["event_wakeups"], r["empty_wakeups"], r["late_wakeups"]) for r in d["results"]])
PY
pass "event mode: every wake-up found its completion, none came late"
