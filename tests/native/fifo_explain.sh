#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# fifo_pingpong --explain needs no device and no peer: the WR plan of the issue's cases
# (the adaptive-routing boundary, 64 MiB over 4 QPs, multi-receive), NCCL_IB_* as
# defaults that flags override, and its refusals (exit 2).
source "$(dirname "$0")/lib.sh"
FP=$RB_BUILD/src/fifo_pingpong

explain() {
	timeout 10 "$FP" --explain "$@" >"$T/x.out" 2>"$T/x.err"
	expect_rc "--explain $*" $? 0
}
# wrs: the WR lines as "QP opcode len imm".
wrs() {
	awk '/^QP [0-9]+:/ {qp = $2}
	/^  RDMA_/ {len = imm = "-"; for (i = 2; i < NF; i++) { if ($i == "len") len = $(i + 1); if ($i == "imm") imm = $(i + 1) }
		printf "%s %s %s %s\n", qp, $1, len, imm}' "$T/x.out" | tr -d :
}

explain -s 8192 --adaptive-routing on
[ "$(wrs)" = "0 RDMA_WRITE_WITH_IMM 8192 8192" ] || fail "8192 B with AR on: $(wrs)"
explain -s 8193 --adaptive-routing on
[ "$(wrs | tr '\n' ';')" = "0 RDMA_WRITE 8193 -;0 RDMA_WRITE_WITH_IMM 0 8193;" ] || fail "8193 B with AR on: $(wrs)"
explain -s 8193 --adaptive-routing off
[ "$(wrs)" = "0 RDMA_WRITE_WITH_IMM 8193 8193" ] || fail "8193 B with AR off: $(wrs)"
explain -s 64M -q 4 --split-data-on-qps
expect_grep "$T/x.out" "chunk 16777216 B"
[ "$(wrs | tr '\n' ';')" = "0 RDMA_WRITE_WITH_IMM 16777216 67108864;1 RDMA_WRITE_WITH_IMM 16777216 67108864;2 RDMA_WRITE_WITH_IMM 16777216 67108864;3 RDMA_WRITE_WITH_IMM 16777216 67108864;" ] ||
	fail "64 MiB over 4 QPs: $(wrs)"
explain -s 1000 -q 2 --split-data-on-qps --multi-recv 3
[ "$(wrs | grep -c RDMA_WRITE_WITH_IMM)" = 2 ] || fail "multi-receive: one WRITE_WITH_IMM per QP"
expect_grep "$T/x.out" "RDMA_WRITE_WITH_IMM +sizes FIFO slot +len 12 +signaled +imm 0"

# NCCL_IB_* set the defaults; a flag overrides its variable.
NCCL_IB_QPS_PER_CONNECTION=4 NCCL_IB_SPLIT_DATA_ON_QPS=1 explain -s 64M
[ "$(wrs | wc -l)" = 4 ] || fail "NCCL_IB_QPS_PER_CONNECTION=4 NCCL_IB_SPLIT_DATA_ON_QPS=1: $(wrs)"
NCCL_IB_QPS_PER_CONNECTION=4 NCCL_IB_SPLIT_DATA_ON_QPS=1 explain -s 64M -q 2
[ "$(wrs | wc -l)" = 2 ] || fail "-q 2 over NCCL_IB_QPS_PER_CONNECTION=4: $(wrs)"
NCCL_IB_ADAPTIVE_ROUTING=1 NCCL_IB_AR_THRESHOLD=100 explain -s 101
[ "$(wrs | wc -l)" = 2 ] || fail "NCCL_IB_ADAPTIVE_ROUTING=1 NCCL_IB_AR_THRESHOLD=100 at 101 B: $(wrs)"
NCCL_IB_SL=x expect_usage "$FP" "invalid NCCL_IB_SL='x', the default of --sl \(allowed: an integer from 0 to 15\)" --explain

expect_usage "$FP" "--histogram is for --window 1" --window 4 --histogram 127.0.0.1
expect_usage "$FP" "--interval is for --window 1" --window 4 --interval 1 127.0.0.1
expect_usage "$FP" "invalid value '9' for --multi-recv" --multi-recv 9
expect_usage "$FP" "invalid value 'maybe' for --adaptive-routing" --adaptive-routing maybe
expect_usage "$FP" "invalid value '0' for --window" --window 0
# --threads: 1..64 channels, pipelined only, never --verify of GPU memory; the buffers' bound counts them.
expect_usage "$FP" "invalid value '0' for --threads" --threads 0
expect_usage "$FP" "invalid value '65' for --threads" --threads 65
expect_usage "$FP" "--threads 2 with --window 1: a ping-pong moves one message at a time" --threads 2 --window 1 127.0.0.1
expect_usage "$FP" "--threads 2 with --verify of GPU memory" --threads 2 --verify --mem cuda 127.0.0.1
expect_usage "$FP" "--threads 64 x --window 256 x --multi-recv 1 x 1048576 B needs more than 2 GiB" --threads 64 --window 256 -s 1M 127.0.0.1
NCCL_IB_SPLIT_DATA_ON_QPS=yes expect_usage "$FP" "invalid NCCL_IB_SPLIT_DATA_ON_QPS='yes', the default of --split-data-on-qps \(allowed: an integer, 0 for off\)" --explain
# NCCL's settings of its protocol are fifo_pingpong's; a perftest-style tool takes only the device choice.
NCCL_IB_SL=x expect_usage "$RB_BUILD/src/rc_write_bw" "invalid value '0' for --qps" -q 0
NCCL_IB_HCA='mlx5_0:x' expect_usage "$RB_BUILD/src/rc_write_bw" "invalid NCCL_IB_HCA='mlx5_0:x', the default of --hca" 127.0.0.1
pass "--explain plans the issue's cases; NCCL_IB_* defaults, flags override; bad input refused"
