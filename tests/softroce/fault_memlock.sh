#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# `ulimit -l` below what the buffers need: ibv_reg_mr fails with ENOMEM. That is the
# host's configuration, so the tool exits 2 with one line saying how many bytes it was
# registering, the limit, what the run needs, and how to raise it. The peer, never
# connected, gives up at its --oob-timeout with exit 1.
#
# root has CAP_IPC_LOCK, which lifts the limit: the limited side runs without it.
source "$(dirname "$0")/lib.sh"

# limited KIB TOOL ARGS...: TOOL ARGS with RLIMIT_MEMLOCK at KIB KiB and no CAP_IPC_LOCK.
limited() {
	local kib=$1
	shift
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock -- \
			bash -c 'ulimit -l "$0" && exec "$@"' "$kib" timeout 60 "$@"
	else
		bash -c 'ulimit -l "$0" && exec "$@"' "$kib" timeout 60 "$@"
	fi
}

want() { # BYTES LIMIT NEED BEFORE: the message for a refused registration
	echo "cannot register $1 bytes \(access [A-Z_|a-z]+\): the locked-memory limit RLIMIT_MEMLOCK is $2 bytes, this run needs at least $3 \($4 registered before\); raise it with 'ulimit -l $(($3 / 1024))' \(KiB\) or 'ulimit -l unlimited', a memlock line in /etc/security/limits.conf, or LimitMEMLOCK=infinity"
}

# The client's 1 MiB source buffer under a 64 KiB limit; the server is fine.
start=$(now_ms)
start_server "$BW" -s 1M -n 10 --oob-timeout 3
limited 64 "$BW" -d "$RB_DEV_PEER" -p "$P" -s 1M -n 10 --oob-timeout 3 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
CRC=$?
wait_server
took=$(($(now_ms) - start))
expect_rc "client (ulimit -l 64)" "$CRC" 2
expect_rc server "$SRC" 1
expect_grep "$T/cli.err" "$(want 1048576 65536 1048576 0)"
expect_grep "$T/srv.err" "no client connected to port $P within 3 s"
expect_took "both sides" "$took" 20
echo "client: $(head -n 1 "$T/cli.err")"

# The server's 2 MiB target buffer; the client gives up connecting.
P=$((P + 1))
limited 1024 "$BW" -d "$RB_DEV" -p "$P" -s 2M -n 10 --oob-timeout 3 >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
run_client "$BW" -s 2M -n 10 --oob-timeout 3
wait_server
expect_rc "server (ulimit -l 1024)" "$SRC" 2
expect_rc client "$CRC" 1
expect_grep "$T/srv.err" "$(want 2097152 1048576 2097152 0)"
expect_grep "$T/srv.err" "access LOCAL_WRITE\|REMOTE_WRITE"
expect_grep "$T/cli.err" "cannot connect to 127.0.0.1 port $P within 3 s"

# Bidirectional: the source (1 MiB) fits in 1.5 MiB, the target does not; the need
# counts both. Refused before any connection, so no peer is needed.
limited 1536 "$BW" -d "$RB_DEV_PEER" -p "$P" -s 1M -n 10 -b --oob-timeout 3 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "bidirectional client (ulimit -l 1536)" "$?" 2
expect_grep "$T/cli.err" "$(want 1048576 1572864 2097152 1048576)"
pass "a too small ulimit -l is refused with exit 2, the bytes needed and how to raise it"
