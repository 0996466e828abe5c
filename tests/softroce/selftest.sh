#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Harness self-test: the rxe devices are ACTIVE and perftest's ib_write_bw runs over them.
source "$(dirname "$0")/lib.sh"
for d in "$RB_DEV" "$RB_DEV_PEER"; do
	ibv_devinfo -d "$d" >"$T/devinfo.out" 2>&1 || fail "ibv_devinfo -d $d failed"
	expect_grep "$T/devinfo.out" PORT_ACTIVE
	grep -E 'hca_id|state|active_mtu|link_layer' "$T/devinfo.out"
done
P=$((P + 1))
timeout 120 ib_write_bw -d "$RB_DEV" -x 0 -s 65536 -n 100 -p "$P" -F >"$T/srv.out" 2>&1 &
SRV=$!
sleep 1
timeout 120 ib_write_bw -d "$RB_DEV_PEER" -x 0 -s 65536 -n 100 -p "$P" -F 127.0.0.1 >"$T/cli.out" 2>&1
CRC=$?
wait_server
expect_rc "ib_write_bw client" "$CRC" 0
expect_rc "ib_write_bw server" "$SRC" 0
grep -A1 '#bytes' "$T/cli.out"
pass "rxe devices $RB_DEV/$RB_DEV_PEER active, ib_write_bw completed"
