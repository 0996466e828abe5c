#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The server is SIGSTOPped mid-run: alive (its TCP socket and its rxe QP still answer in
# the kernel) but silent. The client must not wait forever: it exits 1 saying the peer
# went silent, within its bound. Then the server is continued: it finds the client's
# cause on the out-of-band channel and exits 1 too.
#
# rc_write_lat: the client's next arrival never comes; bound: --timeout.
# rc_write_bw: the receiver takes no part in the transfer (rxe answers the WRITEs), so
# the client finishes the size it is on and then waits for the server's next frame
# (DONE or the next size's barrier); bound: the rest of that size + --timeout or
# --oob-timeout. Each size lasts -D 2 s, so the sweep (40 s) is still running when the
# server stops, however fast the machine, and the rest of a size is at most 2 s.
source "$(dirname "$0")/lib.sh"
fabric_guard

# stop_server_mid_run TOOL ARGS...: both ends, SIGSTOP to the server 2 s after the
# run is established (the client's rxe sending); waits for the client (CRC, TOOK ms
# since the stop), then SIGCONT and waits for the server (SRC). Continued, the server reads the client's
# cause, or first notices that its own wait ran out while it was stopped, or that the
# client is gone: exit 1 either way.
stop_server_mid_run() {
	local tool=$1 name stopped spid
	shift
	name=$(basename "$tool")
	start_server "$tool" "$@"
	start_client "$tool" "$@"
	wait_for "$T/srv.out" "QP timeout" 60 || fail "$name: the run never got established"
	sleep 2
	moving "$RB_DEV_PEER" || fail "$name: the run was not moving"
	spid=$(tool_pid "$SRV")
	[ -n "$spid" ] || fail "$name: the server is gone"
	kill -STOP "$spid"
	stopped=$(now_ms)
	wait_client
	TOOK=$(($(now_ms) - stopped))
	kill -CONT "$spid"
	wait_server
}

stop_server_mid_run "$LAT" -s 64 -n 10000000 --timeout 3
expect_took "rc_write_lat client after the stop" "$TOOK" 15
expect_ends 1 1 "no message from the peer for 3 s at iteration [0-9]+ of 10000100" \
	"peer .* failed: no message from the peer|no message from the peer for 3 s"
echo "rc_write_lat: the client exited $TOOK ms after the stop"

stop_server_mid_run "$BW" --sizes 2:1M -D 2 --timeout 4 --oob-timeout 4
expect_took "rc_write_bw client after the stop" "$TOOK" 15
expect_ends 1 1 "peer .* (sent nothing for 4000 ms|silent for 4 s)" \
	"peer .* (failed: peer .* (sent nothing|silent)|(sent nothing|silent) for|closed the connection)"
echo "rc_write_bw: the client exited $TOOK ms after the stop"
pass "a stopped server is noticed within the timeouts; both sides exit 1"
