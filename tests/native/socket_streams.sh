#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --streams (iperf3's -P): N independent streams, each its socket and its own messages.
# Each stream's row on the server (what arrived on its socket, counted there) equals the
# client's (what it sent), their bytes add up to the sum, and the loopback device's own
# byte counter saw at least that much. A man in the middle that rewrites the SRUN frames
# (a stream index out of range, counts tripled) or the receiver's word on what arrived
# on each stream (SRXDONE) fails the run on both sides, bounded by --timeout, with no
# complete document.
source "$(dirname "$0")/lib.sh"
lo_bytes() { awk '$1 == "lo:" { print $2 }' /proc/net/dev; }

b0=$(lo_bytes)
pair --streams 3 -s 64K -n 400 --json "$T/doc.json"
b1=$(lo_bytes)
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
P=$((P + 1))
"$SB" -p "$P" --json "$T/srv.json" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
timeout 60 "$SB" -p "$P" -P 3 -s 64K -n 400 -R --json "$T/cli.json" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
CRC=$?
wait_server
expect_rc "client (-R)" "$CRC" 0
expect_rc "server (-R)" "$SRC" 0
python3 - "$T/srv.json" "$T/cli.json" "$((b1 - b0))" <<'PY' || fail "the streams' rows are wrong"
import json, sys
srv, cli = (json.load(open(p))["results"] for p in sys.argv[1:3])
lo = int(sys.argv[3])
for name, rows in (("server", srv), ("client", cli)):
    assert [r["stream"] for r in rows] == ["1", "2", "3", "sum"], (name, rows)
    assert all(r["msgs"] == 400 and r["bytes"] == 400 * 65536 for r in rows[:3]), (name, rows)
    assert sum(r["bytes"] for r in rows[:3]) == rows[3]["bytes"], (name, rows)
    assert all(0 < r["elapsed_s"] <= rows[3]["elapsed_s"] for r in rows[:3]), (name, rows)
# -R: the server sent, the client counted what arrived on each socket: the same per stream.
assert [r["bytes"] for r in srv[:3]] == [r["bytes"] for r in cli[:3]], (srv, cli)
print(f"3 streams x 400 x 64 KiB each way; the first run's loopback bytes {lo} >= {3 * 400 * 65536}")
assert lo >= 3 * 400 * 65536, lo
PY
expect_grep "$T/cli.out" "Streams +: 3 independent TCP streams"

for what in srun:stream srun:count srxd; do
	rm -f "$T/srv.json" "$T/cli.json"
	mitm "$what" --timeout 3 --json "$T/srv.json" -- --streams 2 -s 64K -n 200 --timeout 3 --json "$T/cli.json"
	expect_grep "$T/mitm.out" "^rewrote (SRUN|SRXDONE)"
	[ "$CRC" != 0 ] && [ "$SRC" != 0 ] || fail "$what: server rc $SRC, client rc $CRC"
	for d in srv cli; do
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if not d["complete"] else 1)' "$T/$d.json" ||
			fail "$what: the $d document says complete"
	done
	[ "$what" = srun:stream ] && expect_grep "$T/srv.err" "malformed SRUN frame"
	[ "$what" = srxd ] && expect_grep "$T/cli.err" "stream 1: 127.0.0.1:[0-9]+ says 201 messages arrived on it, where we sent 200"
	echo "ok: $what -> server: $(head -n 1 "$T/srv.err"); client: $(head -n 1 "$T/cli.err")"
done
pass "independent streams: each its row, both sides agree; a rewritten SRUN fails the run"
