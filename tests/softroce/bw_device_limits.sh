#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Device limits (issues 8 and 18), read from `ibv_devinfo -v`: -t at the device's
# max_qp_wr runs (or is refused with exit 2 naming the limit), and configurations
# past a limit are refused up front, before any peer is needed, with exit 2 and a
# message naming the limit and the numbers. The CQs are sized from what the run can
# have pending (send: the planner's bound per QP; receive: every posted receive),
# not from tx depth x QPs, so -q 256 at the default depth fits rxe's max_cqe.
source "$(dirname "$0")/lib.sh"
info=$(ibv_devinfo -v -d "$RB_DEV") || fail "ibv_devinfo -v -d $RB_DEV failed"
attr() { sed -nE "s/^[[:space:]]*$1:[[:space:]]*([0-9]+).*/\1/p" <<<"$info" | head -n 1; }
maxwr=$(attr max_qp_wr) maxcqe=$(attr max_cqe)
[ -n "$maxwr" ] && [ -n "$maxcqe" ] || fail "no max_qp_wr / max_cqe in ibv_devinfo -v"
echo "$RB_DEV: max_qp_wr $maxwr, max_cqe $maxcqe"

# -t at the device maximum.
t=$maxwr n=$((maxwr < 20000 ? 2 * maxwr : 20000))
start_server "$BW" -t $t -s 64 -n $n --timeout 30
run_client "$BW" -t $t -s 64 -n $n --timeout 30
if [ "$CRC" -eq 2 ]; then
	expect_grep "$T/cli.err" "max_qp_wr"
	kill_server
	echo "ok: -t $t refused: $(head -n 1 "$T/cli.err")"
else
	wait_server
	expect_rc "client (-t $t)" "$CRC" 0
	expect_rc "server (-t $t)" "$SRC" 0
	echo "ok: -t $t ran: $(table_rows "$T/cli.out")"
fi

# Past a limit: refused at once (no server is running), exit 2, the limit named.
expect_usage "$BW" "queue depth $((maxwr + 1)) exceeds the $maxwr work requests per queue $RB_DEV_PEER allows \(max_qp_wr\)" \
	-d "$RB_DEV_PEER" -t $((maxwr + 1)) --oob-timeout 1 127.0.0.1
# WRITE_WITH_IMM: the receiver (server) keeps the sender's depth + 16 receives per QP.
expect_usage "$BW" "queue depth $(((maxwr + 15) / 16 * 16 + 16)) exceeds the $maxwr work requests per queue $RB_DEV allows \(max_qp_wr\)" \
	-d "$RB_DEV" -p "$P" --write-with-imm -t $maxwr --oob-timeout 1
# The send CQ: at -Q 1 every WR can be pending.
q=$((maxcqe / 128 + 1))
expect_usage "$BW" "send CQ needs $((q * 128)) entries \($q QPs x 128 outstanding\) but $RB_DEV_PEER allows $maxcqe per CQ \(max_cqe\)" \
	-d "$RB_DEV_PEER" -q $q -Q 1 --oob-timeout 1 127.0.0.1
# The receive CQ of a WRITE_WITH_IMM receiver: 144 receives per QP at the default depth.
q=$((maxcqe / 144 + 1))
expect_usage "$BW" "receive CQ needs $((q * 144)) entries \($q QPs x 144 outstanding\) but $RB_DEV allows $maxcqe per CQ \(max_cqe\)" \
	-d "$RB_DEV" -p "$P" --write-with-imm -q $q --oob-timeout 1
pass "-t at the device maximum handled; limits refused with exit 2 and named"
