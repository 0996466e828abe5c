#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/vs_reference: the table's arithmetic on a CSV whose answer is known (ratio of the
# medians, paired ratio, both processes' CPU per Gb/s), then a real two-round run of
# socket_bw against iperf3 over loopback whose CSV carries both sides' CPU, and bad
# input exiting 2.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CMP=$ROOT/bench/vs_reference
export RB_BUILD_DIR=$RB_BUILD RB_RESULTS=$T/res

cat >"$T/t.cmp" <<'DEF'
name    t
ours    socket_bw
anchor  iperf3
metric  bw_avg_gbps
rounds  2
case 64K 65536 ; -D 1 --nsocks 1 ; -t 1 -P 1 -N
DEF
# Anchor 10/20/30, ours 12/18/60: medians 20 and 18 (ratio 0.90), rounds 1.2/0.9/2.0
# (paired 1.20; their mean would be 1.37). CPU per Gb/s: anchor 100/10, 100/20,
# 100/30 (median 5.00), ours 100/12, 100/18, 135/60 (median 5.56, ratio 1.11).
cat >"$T/known.csv" <<'CSV'
def,case,size,round,tool,metric,value,cpu_pct,cpu_peer_pct,settings,error
t,64K,65536,1,iperf3,bw_avg_gbps,10,50,50,,
t,64K,65536,1,socket_bw,bw_avg_gbps,12,90,10,,
t,64K,65536,2,socket_bw,bw_avg_gbps,18,90,10,,
t,64K,65536,2,iperf3,bw_avg_gbps,20,60,40,,
t,64K,65536,3,iperf3,bw_avg_gbps,30,70,30,,
t,64K,65536,3,socket_bw,bw_avg_gbps,60,90,45,,
CSV
"$CMP" --table "$T/known.csv" "$T/t.cmp" >"$T/k.out" 2>&1
expect_rc "--table on a known CSV" $? 0
expect_grep "$T/k.out" "^  64K +65536 +20 \\[10-30\\] +18 \\[12-60\\] +0\\.90 +1\\.20$"
expect_grep "$T/k.out" "CPU % client\\+server \\(per Gb/s\\): iperf3 60\\+40 \\(5\\.00\\), socket_bw 90\\+10 \\(5\\.56\\) \\(ratio 1\\.11\\)"

"$CMP" --rounds 2 "$T/t.cmp" >"$T/r.out" 2>&1
expect_rc "a two-round socket_bw / iperf3 run" $? 0
csv=$(sed -n 's/^raw: //p' "$T/r.out")
expect_rc "the run names its CSV" "$([[ -f $csv ]] && echo 0 || echo 1)" 0
# Two recorded runs per tool (the warm-up is not recorded), each with both sides' CPU.
n=$(python3 - "$csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["value"] and r["cpu_pct"] and r["cpu_peer_pct"] and float(r["cpu_pct"]) > 0
        and float(r["cpu_peer_pct"]) > 0 and not r["error"]]
print(sum(r["tool"] == "socket_bw" for r in rows), sum(r["tool"] == "iperf3" for r in rows))
PY
)
[ "$n" = "2 2" ] || fail "recorded runs with client and server CPU (socket_bw, iperf3): $n, expected 2 2"
expect_grep "$T/r.out" "warm-up socket_bw: done"
expect_grep "$T/r.out" "^      CPU % client\\+server \\(per Gb/s\\): iperf3 [0-9]+\\+[0-9]+ \\([0-9.]+\\), socket_bw [0-9]+\\+[0-9]+"
expect_rc "the CSV is in RB_RESULTS" "$([[ $csv == "$T"/res/compare-t-*.csv && -f ${csv%.csv}.txt ]] && echo 0 || echo 1)" 0

"$CMP" --rounds 0 "$T/t.cmp" >"$T/b.out" 2>&1
expect_rc "--rounds 0" $? 2
expect_grep "$T/b.out" "invalid value '0' for --rounds \\(allowed: an integer >= 1\\)"
"$CMP" --table "$T/nope.csv" "$T/t.cmp" >"$T/b.out" 2>&1
expect_rc "--table with no such CSV" $? 2
expect_grep "$T/b.out" "invalid value '.*nope.csv' for --table"
pass "bench/vs_reference: known table, a socket_bw / iperf3 run with both sides' CPU, bad input"
