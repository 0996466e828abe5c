#!/bin/bash
# RDMA_WRITE_WITH_IMM: the receiver consumes one receive completion per message
# and checks the immediate sequence and the payload.
source "$(dirname "$0")/lib.sh"
pair "$BW" -s 64,8K,256K -n 60 -q 2 --write-with-imm --verify
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
expect_grep "$T/cli.out" "RDMA_Write_with_imm"
[ "$(table_rows "$T/srv.out" | wc -l)" -eq 3 ] || fail "expected 3 rows on the server"
pass "write-with-imm verified over 2 QPs"
