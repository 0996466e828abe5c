#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --verify can fail: the test-only fault hook (RB_TEST_FAULT, see src/lib/base/fault.h;
# inert unless set) makes the sending side flip one byte of message N on data socket
# S after the pattern was written. Both sides exit 1, the message names the socket,
# the message, the byte, what was expected and what was received, and both --json
# documents say the run is incomplete.
source "$(dirname "$0")/lib.sh"

# faulty FAULT ARGS...: the client sends with RB_TEST_FAULT=FAULT.
faulty() {
	local fault=$1
	shift
	P=$((P + 1))
	"$SB" -p "$P" "$@" --json "$T/srv.json" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	RB_TEST_FAULT=$fault timeout 120 "$SB" -p "$P" "$@" --json "$T/cli.json" 127.0.0.1 \
		>"$T/cli.out" 2>"$T/cli.err"
	CRC=$?
	reap "$SRV" 30 "the server"
	SRC=$REAPED
	SRV=
}

# check DETECTOR_ERR PEER_ERR SOCKET MESSAGE BYTE: exit codes, message, documents.
check() {
	local re="verify: socket $3, message $4 \([^)]*\), byte $5: expected 0x([0-9a-f]{2}), received 0x([0-9a-f]{2})"
	expect_rc client "$CRC" 1
	expect_rc server "$SRC" 1
	expect_grep "$T/$1" "^socket_bw: $re"
	expect_grep "$T/$2" "^socket_bw: peer .* failed: $re"
	python3 - "$T/cli.json" "$T/srv.json" "$re" <<'PY' || fail "documents or bytes wrong"
import json, re, sys
for path in sys.argv[1:3]:
    d = json.load(open(path))
    assert d["complete"] is False, (path, d["complete"])
    m = re.search(sys.argv[3], d["error"])
    assert m, (path, d["error"])
    # the received byte is the expected one with every bit flipped
    assert int(m.group(1), 16) ^ 0xff == int(m.group(2), 16), m.group(0)
PY
	echo "ok: $(grep -m 1 "verify:" "$T/$1")"
}

# One socket: message 3 of 1 MiB goes whole to socket 0; the flipped byte is its middle.
faulty corrupt:qp=0:msg=3 -s 1M -n 20 --verify
check srv.err cli.err 0 3 524288
expect_grep "$T/cli.err" "test fault injection active: RB_TEST_FAULT=corrupt:qp=0:msg=3"

# 2 sockets x 2 threads: 256 KiB chunks, message 3 (m=2) puts chunk 0 on socket 2, so
# the flipped byte is 131072 of the message, found by the receiving thread of socket 2.
faulty corrupt:qp=2:msg=3 -s 1M -n 20 --verify --nsocks 2 --nthreads 2
check srv.err cli.err 2 3 131072

# Bidirectional: the client's direction is corrupted, the server's is clean.
faulty corrupt:qp=1:msg=5 -s 256K -n 20 --verify --nsocks 2 -b
check srv.err cli.err 1 5 196608

# Ping-pong: the client's round trip 5 (warm-up included) comes back with the flipped byte.
faulty corrupt:msg=5 --ping-pong -s 4K -n 50 --warmup 2 --verify
check cli.err srv.err 0 5 2048

# Inert unless set: the same runs pass without it.
pair -s 1M -n 20 --verify --nsocks 2 --nthreads 2
expect_rc "client (no fault)" "$CRC" 0
expect_rc "server (no fault)" "$SRC" 0
pass "verify failures detected and reported by both sides"
