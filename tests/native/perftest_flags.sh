#!/bin/bash
# A command line written for ib_write_bw: perftest's options these tools do not take are
# refused (exit 2) with perftest's meaning and what to use here, before any device is
# opened (so no RDMA is needed), in every verbs tool. socket_bw, whose users come from
# iperf3, gives no perftest hint.
source "$(dirname "$0")/lib.sh"
for tool in rc_write_bw rc_write_lat fifo_pingpong; do
	X=$RB_BUILD/src/$tool
	expect_usage "$X" "unknown option '--out_json' \(perftest's option; use --json FILE\)" --out_json 127.0.0.1
	expect_usage "$X" "unknown option '--out_json_file' \(perftest's option; use --json FILE\)" --out_json_file=r.json 127.0.0.1
	expect_usage "$X" "unknown option '-W' \(perftest's option; not needed: every row carries the port counters" -W port_xmit_data 127.0.0.1
	expect_usage "$X" "unknown option '--report-counters' \(perftest's option; not needed" --report-counters=x 127.0.0.1
	expect_usage "$X" "unknown option '-c' \(perftest's option; not needed: these tools run RC QPs only\)" -c RC 127.0.0.1
	expect_usage "$X" "unknown option '-L' \(perftest's option; use --hop-limit N\)" -L 3 127.0.0.1
	expect_usage "$X" "unknown option '--ipv6' \(perftest's option; use -x IDX" --ipv6 127.0.0.1
	expect_usage "$X" "unknown option '--source_ip' \(perftest's option; use --gid-range ADDR/32" --source_ip 10.0.0.1 127.0.0.1
	expect_usage "$X" "unknown option '--retry_count' \(perftest's option; not needed" --retry_count=3 127.0.0.1
	expect_usage "$X" "unknown option '--perform_warm_up' \(perftest's option; use --repeat N" --perform_warm_up 127.0.0.1
	expect_usage "$X" "unknown option '--mr_per_qp' \(perftest's option; not supported" --mr_per_qp 127.0.0.1
	expect_usage "$X" "unknown option '--odp' \(perftest's option; not supported" --odp 127.0.0.1
done
# Not a perftest name: the nearest spelling, as before.
expect_usage "$RB_BUILD/src/rc_write_bw" "unknown option '--sizee' \(did you mean --size\?\)" --sizee 4K
expect_usage "$SB" "unknown option -c$" -c 127.0.0.1
pass "perftest's options: refused with perftest's meaning and what to use here"
