#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# -R: the QPs connected through rdma_cm over the rxe netdev's link-local IPv6 address
# (with its scope), for rc_write_bw (2 QPs, payloads verified), rc_write_lat and
# fifo_pingpong (its CTS QP too). Through 127.0.0.1 the out-of-band channel connects
# but rdma_cm finds no RDMA route: both sides exit 1 within the timeout, the client
# naming the CM step that failed.
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
ll=$(ip -6 -o addr show dev "$RB_NETDEV" scope link | awk '{print $4}' | cut -d/ -f1 | head -n 1)
[ -n "$ll" ] || fail "$RB_NETDEV has no link-local IPv6 address"
SERVER="$ll%$RB_NETDEV_PEER"
echo "server address: $SERVER"

# cm_pair TOOL ARGS...: server and client with -R, the client to $SERVER.
cm_pair() {
	local tool=$1 flag=${CM_FLAG:--R}
	shift
	start_server "$tool" "$flag" "$@"
	timeout 120 "$tool" -d "$RB_DEV_PEER" -p "$P" "$flag" "$@" "$SERVER" >"$T/cli.out" 2>"$T/cli.err"
	CRC=$?
	wait_server
}

cm_pair "$BW" -q 2 -s 4K,64K -n 300 --verify --json "$T/r.json"
expect_rc "rc_write_bw -R client" "$CRC" 0
expect_rc "rc_write_bw -R server" "$SRC" 0
expect_grep "$T/cli.out" "Role +: client \\(sends\\), peer \\[?fe80"
cm_pair "$LAT" -s 8,4K -n 300 --verify
expect_rc "rc_write_lat -R client" "$CRC" 0
expect_rc "rc_write_lat -R server" "$SRC" 0
# --cm: the spelling the issue asked for, an alias of -R
CM_FLAG=--cm cm_pair "$FP" --window 4 -s 64K -n 100 --verify
expect_rc "fifo_pingpong -R client" "$CRC" 0
expect_rc "fifo_pingpong -R server" "$SRC" 0
echo "rc_write_bw (2 QPs), rc_write_lat, fifo_pingpong connected through rdma_cm, payloads verified"

# 127.0.0.1: the TCP channel works, but rdma_cm routes it through the other rxe device
# (the kernel's loopback route): a configuration error naming both devices (exit 2);
# the server gives up at --oob-timeout.
start_server "$BW" -R --oob-timeout 5
start=$(now_ms)
run_client "$BW" -R -s 64 -n 10 --oob-timeout 5
wait_server
took=$(($(now_ms) - start))
expect_rc "client -R to 127.0.0.1" "$CRC" 2
expect_rc "server" "$SRC" 1
expect_grep "$T/cli.err" "rdma_cm: 127.0.0.1 goes through $RB_DEV, but this side uses $RB_DEV_PEER \(-d $RB_DEV\)"
expect_grep "$T/srv.err" "rdma_cm: no CONNECT_REQUEST \(0 of 1 QPs connected\) within the timeout"
expect_took "the failed rdma_cm connection" "$took" 20
echo "127.0.0.1 (exit $CRC after $took ms): $(head -n 1 "$T/cli.err")"
# No server at all: the client gives up within --oob-timeout, saying so.
P=$((P + 1))
start=$(now_ms)
timeout 60 "$BW" -d "$RB_DEV_PEER" -p "$P" -R --oob-timeout 3 "$SERVER" >"$T/cli.out" 2>"$T/cli.err"
CRC=$?
took=$(($(now_ms) - start))
expect_rc "client -R, no server" "$CRC" 1
expect_grep "$T/cli.err" "cannot connect to fe80.* port $P within 3 s"
expect_took "no listener" "$took" 10
echo "no listener (exit $CRC after $took ms): $(head -n 1 "$T/cli.err")"
pass "rdma_cm connections over link-local IPv6; no route and no listener named in bounded time"
