#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The server takes its test parameters from the client, as an iperf3 server does: a
# server started with none runs the client's; one it was given explicitly and that
# differs is still a mismatch on both sides (exit 2). Local options never travel.
source "$(dirname "$0")/lib.sh"

# serve SRV_ARGS -- CLI_ARGS: one run, documents srv.json / cli.json; sets SRC and CRC.
serve() {
	local srv=() cli=()
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	P=$((P + 1))
	rm -f "$T/srv.json" "$T/cli.json"
	"$SB" -p "$P" "${srv[@]}" --json "$T/srv.json" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	timeout 60 "$SB" -p "$P" "${cli[@]}" --json "$T/cli.json" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
	CRC=$?
	reap "$SRV" 30 "the server"
	SRC=$REAPED
	SRV=
}

# The README's example: the server names only its interface.
serve --ifname lo -- --ifname lo -s 1M -D 2 --nsocks 4 --nthreads 2
expect_rc "client" "$CRC" 0
expect_rc "server without test parameters" "$SRC" 0
python3 - "$T/srv.json" "$T/cli.json" <<'PY' || fail "the server did not run the client's parameters"
import json, sys
s, c = (json.load(open(p)) for p in sys.argv[1:])
for d in (s, c):
    m, r = d["meta"], d["results"]
    assert m["nsocks"] == 4 and m["nthreads"] == 2 and m["duration_s"] == 2, m
    assert len(r) == 1 and r[0]["size_bytes"] == 1 << 20 and r[0]["nsocks"] == 4, r
print("server ran -s 1M -D 2 --nsocks 4 --nthreads 2 from its client")
PY

# Ping-pong with a warm-up given on the client only.
serve -- --ping-pong -s 64 -n 300 --warmup 7
expect_rc "client" "$CRC" 0
expect_rc "server" "$SRC" 0
python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["results"][0]; assert r["warmup"] == 7 and r["iterations"] == 300, r' \
	"$T/srv.json" || fail "the server did not take --ping-pong -n 300 --warmup 7"

# Given on both sides and different: the client names the mismatch and exits 2; the
# server refuses it as a stranger (one line, no run of its own) and waits on for its
# peer until --oob-timeout.
serve -s 4K -n 100 --oob-timeout 3 -- -s 4K -n 200
expect_rc "client" "$CRC" 2
expect_rc "server (no client of its parameters came)" "$SRC" 1
expect_grep "$T/srv.err" "refused a connection from 127.0.0.1:[0-9]+: param iters mismatch: local=100 remote=200"
expect_grep "$T/srv.err" "no rdmabench client connected to port [0-9]+ within 3 s .*refused 1 other connection\(s\), the last from .*: param iters mismatch"
expect_grep "$T/cli.err" "param iters mismatch: local=200 remote=100"
[ "$(grep -c . "$T/srv.err")" -eq 2 ] || fail "the server said more than the refusal and its timeout: $(cat "$T/srv.err")"

# One choice: a server given -s takes neither --sizes nor -a from its client.
serve -s 4K --oob-timeout 3 -- --sizes 1K:2K
expect_rc "client" "$CRC" 2
expect_rc "server" "$SRC" 1
expect_grep "$T/srv.err" "refused a connection from .*: param sizes mismatch: local=4K remote=1K,2K"

# Local options stay local: a different --timeout on each side is no mismatch.
serve --timeout 30 -- -s 4K -n 50 --timeout 5
expect_rc "client" "$CRC" 0
expect_rc "server" "$SRC" 0
# NCCL's variables set a server's defaults, no more: it takes its client's --nthreads.
NCCL_SOCKET_NTHREADS=2 serve --oob-timeout 10 -- -s 4K -n 50 --nthreads 4
expect_rc "client of a server with NCCL_SOCKET_NTHREADS=2" "$CRC" 0
expect_rc "server with NCCL_SOCKET_NTHREADS=2" "$SRC" 0
pass "the server takes the client's test parameters; explicit differences are mismatches, refused"
