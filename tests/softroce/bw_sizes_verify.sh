#!/bin/bash
# Several sizes with every payload checked; both sides print the same numbers.
source "$(dirname "$0")/lib.sh"
pair "$BW" -s 2,64,4K,64K,1M -n 40 --verify
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
[ "$(table_rows "$T/cli.out" | wc -l)" -eq 5 ] || fail "expected 5 result rows"
diff <(table_rows "$T/cli.out") <(table_rows "$T/srv.out") >/dev/null || fail "client and server rows differ"
table_rows "$T/cli.out"
pass "5 sizes verified, identical rows on both sides"
