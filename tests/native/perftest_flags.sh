#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A command line written for ib_write_bw: perftest's options are taken with perftest's
# meaning (the run gets past its options and fails only where this host has no RDMA
# device), the few that make no sense here are refused (exit 2) with perftest's meaning
# and what to use, and a bad value names what is allowed, before any device is opened,
# in every verbs tool. socket_bw, whose users come from iperf3, gives no perftest hint.
source "$(dirname "$0")/lib.sh"
for tool in rc_write_bw rc_write_lat fifo_pingpong; do
	X=$RB_BUILD/src/$tool
	# Accepted: parsing passes, so the first complaint is the device (none on this host).
	timeout 30 "$X" -c RC --connection=rc --out_json --out_json_file "$T/r.json" -W port_xmit_data \
		--report-counters=x --retry_count=3 -L 3 --perform_warm_up --source_ip 10.0.0.1 \
		--units MB/sec -d rbnosuch 127.0.0.1 >"$T/a.out" 2>"$T/a.err"
	grep -qE "unknown option|invalid value|usage" "$T/a.err" && fail "$tool refused a perftest option: $(cat "$T/a.err")"
	grep -qE "RDMA devices|rbnosuch|ib_uverbs" "$T/a.err" || fail "$tool: not the device's error: $(cat "$T/a.err")"
	expect_usage "$X" "invalid value 'UD' for --connection \(allowed: RC \(perftest's UC, UD, XRC and DC are not measured here\)\)" -c UD 127.0.0.1
	expect_usage "$X" "invalid value '10.0.0.300' for --source_ip \(allowed: an IPv4 or IPv6 address\)" --source_ip 10.0.0.300 127.0.0.1
	expect_usage "$X" "--source_ip 10.0.0.1 picks the GID: give it without --gid-range or -x" --source_ip 10.0.0.1 -x 3 127.0.0.1
	expect_usage "$X" "--report_gbits asks for Gb/sec, and --units another unit: give one of them" --report_gbits --units MB/sec 127.0.0.1
	expect_usage "$X" "--out_json's file $T/r.csv is also --csv's" --out_json_file "$T/r.csv" --csv "$T/r.csv" -d rbnosuch 127.0.0.1
	expect_usage "$X" "invalid value 'kb' for --units \(allowed: Gb/s, Gb/sec or MB/sec\)" --units kb 127.0.0.1
	expect_usage "$X" "unknown option '--ipv6' \(perftest's option; use --source_ip ADDR with the IPv6 address" --ipv6 127.0.0.1
	expect_usage "$X" "unknown option '--odp' \(perftest's option; not supported" --odp 127.0.0.1
done
expect_usage "$RB_BUILD/src/rc_write_lat" "unknown option '--mr_per_qp' \(perftest's option; rc_write_bw's only" --mr_per_qp 127.0.0.1
# perftest's options with no equivalent here: refused with what to do instead.
for o in --margin=2 -f --flows=2 --report-per-port -U --limit_lat=5; do
	expect_usage "$RB_BUILD/src/rc_write_bw" "unknown option '${o%%=*}' \(perftest's option; " "$o" 127.0.0.1
done
# NCCL's device variables are defaults, not what the user typed: --source_ip goes beside them,
# and a flag given makes a bad variable's value moot; --help never reads them.
NCCL_IB_ADDR_RANGE=10.0.0.0/8 timeout 30 "$RB_BUILD/src/rc_write_bw" --source_ip 10.1.2.3 -d rbnosuch 127.0.0.1 >"$T/a.out" 2>"$T/a.err"
grep -qE "RDMA devices|rbnosuch|ib_uverbs" "$T/a.err" || fail "--source_ip beside NCCL_IB_ADDR_RANGE: not the device's error: $(cat "$T/a.err")"
NCCL_IB_HCA='mlx5_0:xyz' timeout 30 "$RB_BUILD/src/rc_write_bw" --hca mlx5_1 -d rbnosuch 127.0.0.1 >"$T/a.out" 2>"$T/a.err"
grep -qE "RDMA devices|rbnosuch|ib_uverbs" "$T/a.err" || fail "--hca over a bad NCCL_IB_HCA: not the device's error: $(cat "$T/a.err")"
NCCL_IB_HCA='mlx5_0:xyz' timeout 30 "$RB_BUILD/src/rc_write_bw" --help >/dev/null 2>"$T/a.err" || fail "--help with a bad NCCL_IB_HCA: $(cat "$T/a.err")"
# perftest's -e/--events is rc_write_lat's --event: parsing passes, the device is the complaint.
for ev in -e --events; do
	timeout 30 "$RB_BUILD/src/rc_write_lat" "$ev" -d rbnosuch 127.0.0.1 >"$T/a.out" 2>"$T/a.err"
	grep -qE "RDMA devices|rbnosuch|ib_uverbs" "$T/a.err" || fail "rc_write_lat $ev: not the device's error: $(cat "$T/a.err")"
done
# Not a perftest name: the nearest spelling, as before.
expect_usage "$RB_BUILD/src/rc_write_bw" "unknown option '--sizee' \(did you mean --size\?\)" --sizee 4K
expect_usage "$SB" "unknown option '--out_json'" --out_json 127.0.0.1
# socket_bw's tables carry no perftest hints: its users come from iperf3.
expect_usage "$SB" "unknown option '--odp'" --odp 127.0.0.1
grep -q "perftest" "$T/o.err" && fail "socket_bw gave a perftest hint: $(cat "$T/o.err")"
pass "perftest's options: taken with perftest's meaning, the rest refused with what to use here"
