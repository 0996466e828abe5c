#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Duration mode (-D): the link under the server goes down mid-step. Both sides exit 1
# within a bound, each with the cause: the port's async event (rxe reports the link
# going down), a completion error, or silence past --timeout; the side that did not
# see it first is told by its peer.
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
start_server "$LAT" -s 64 -D 60 --timeout 3 --json "$T/srv.json"
# Only once the run is established: never after this test gave up (the link would stay down).
( wait_for "$T/srv.out" "QP timeout" 60 || exit 0; sleep 2; [ -d "$T" ] || exit 0
  now_ms >"$T/down"; ip link set "$RB_NETDEV" down ) &
downer=$!
rb_exit_trap 'kill $downer 2>/dev/null; wait $downer 2>/dev/null; link_restore; rb_cleanup'
run_client "$LAT" -s 64 -D 60 --timeout 3 --json "$T/cli.json"
wait_server
[ -s "$T/down" ] || fail "the link was never taken down"
took=$(($(now_ms) - $(cat "$T/down")))
expect_rc client "$CRC" 1
expect_rc server "$SRC" 1
cause="async event on .*port error on port [0-9]+ \(the link went down\)|no message from the peer for 3 s at iteration [0-9]+, 64-byte|completion error"
expect_grep "$T/cli.err" "$cause"
expect_grep "$T/srv.err" "$cause"
expect_port_named
python3 - "$T/cli.json" "$T/srv.json" <<'PY' || fail "documents claim completion"
import json, sys
for p in sys.argv[1:]:
    assert json.load(open(p))["complete"] is False, p
PY
expect_took "both sides after the link went down" "$took" 20
echo "client: $(head -n 1 "$T/cli.err")"
echo "server: $(head -n 1 "$T/srv.err")"
pass "link down in duration mode ends both sides within ${took} ms"
