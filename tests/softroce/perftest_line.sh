#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# An ib_write_bw command line, unchanged but for the tool's name, runs: -c RC, -q, -s, -n,
# --report_gbits, --out_json/--out_json_file, -W, -L, --retry_count, --perform_warm_up,
# --mr_per_qp and --source_ip with the client's RoCE address (IPv4, else IPv6), and means
# what it means in perftest: the table in MB/sec (MiB/s) by default and Gb/sec with
# --report_gbits under perftest's header strings, #iterations over every QP, and perftest's
# JSON layout where --out_json_file says (results.BW_average in the table's unit);
# --source_ip picked the GID carrying it.
source "$(dirname "$0")/lib.sh"
# The client's RoCE address: an IPv4 one where its netdev has one, else its IPv6 link-local (the
# harness's veths carry only that, and the GID table with it).
addr=$(ip -4 -o addr show dev "$RB_NETDEV_PEER" 2>/dev/null | awk '{print $4}' | cut -d/ -f1 | head -n 1)
[ -n "$addr" ] || addr=$(ip -6 -o addr show dev "$RB_NETDEV_PEER" scope link | awk '{print $4}' | cut -d/ -f1 | head -n 1)
[ -n "$addr" ] || fail "no address on $RB_DEV_PEER's netdev $RB_NETDEV_PEER"
line=(-c RC -q 2 -s 65536 -n 2000 -W counters/port_xmit_data -L 64 --retry_count 7
	--perform_warm_up --mr_per_qp)
# The server's table in ib_write_bw's default unit; the client's with --report_gbits, its
# perftest JSON beside our own document.
start_server "$BW" "${line[@]}"
run_client "$BW" "${line[@]}" --report_gbits --source_ip "$addr" --out_json --out_json_file "$T/perftest.json" \
	--json "$T/ours.json"
wait_server
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
expect_grep "$T/srv.out" "#bytes +#iterations +BW peak\[MB/sec\] +BW average\[MB/sec\] +MsgRate\[Mpps\]"
expect_grep "$T/cli.out" "#bytes +#iterations +BW peak\[Gb/sec\] +BW average\[Gb/sec\] +MsgRate\[Mpps\]"
python3 - "$T/ours.json" "$T/perftest.json" "$T/cli.out" "$T/srv.out" "$addr" <<'PY' || fail "the perftest line's results are wrong"
import json, re, sys
d = json.load(open(sys.argv[1]))
pt = json.load(open(sys.argv[2]))
assert d["complete"] and d["meta"]["mr_per_qp"] is True and d["meta"]["qps"] == 2, d["meta"]
assert d["meta"]["gid"].endswith(sys.argv[5]), (d["meta"]["gid"], sys.argv[5])
r = d["results"]
assert len(r) == 1 and r[0]["size_bytes"] == 65536 and r[0]["msgs"] == 4000, r  # the warm-up is not a row
gbps = r[0]["bw_avg_gbps"]
def row(path):
    return [l.split() for l in open(path) if re.match(r"^ +65536 ", l)][0]
cli, srv = row(sys.argv[3]), row(sys.argv[4])
# perftest's #iterations counts every QP's messages: -q 2 -n 2000 is 4000.
assert cli[1] == srv[1] == "4000", (cli, srv)
# Column 4, BW average: Gb/sec (10^9 bits) with --report_gbits, MB/sec (MiB/s) without.
assert abs(float(cli[3]) - gbps) <= 0.0015 * gbps + 0.001, (cli, gbps)
mb = gbps * 1e9 / 8 / 2**20
assert abs(float(srv[3]) - mb) <= 0.0015 * mb + 0.001, (srv, mb)
# perftest's JSON layout: what its users read (results.BW_average, in the table's unit).
res = pt["results"]
assert pt["complete"] is True and pt["test_info"]["Number_of_qps"] == 2, pt["test_info"]
assert res["MsgSize"] == 65536 and res["n_iterations"] == 4000, res
assert abs(res["BW_average"] - gbps) <= 1e-9 * gbps and abs(res["MsgRate"] - r[0]["msg_rate_mpps"]) < 1e-9, res
print(f"perftest line: client {cli[3]} Gb/sec, server {srv[3]} MB/sec (MiB/s) = {gbps:.4f} Gb/s; "
      f"results.BW_average {res['BW_average']:.4f}; GID {d['meta']['gid']}")
PY

# --reversed: the server's device sends the data (its rxe counter says so, not ours), both
# ends print the agreed row; -w above what ran fails naming it, -y below passes.
counters "$RB_DEV" "$T/s0"
counters "$RB_DEV_PEER" "$T/c0"
start_server "$BW" -s 65536 -n 500
run_client "$BW" -s 65536 -n 500 --reversed --report_gbits -w 100000 -y 0.000001 --json "$T/rev.json"
wait_server
counters "$RB_DEV" "$T/s1"
counters "$RB_DEV_PEER" "$T/c1"
expect_rc "client (-w 100000 Gb/sec is above any rxe run)" "$CRC" 1
expect_rc "server (its client judged the run failed)" "$SRC" 1
expect_grep "$T/cli.err" "gate -w/--limit_bw 100000 failed at 65536 bytes: bandwidth [0-9.]+ Gb/sec \(1 size failed\)"
expect_grep "$T/srv.err" "judged the run failed: gate -w/--limit_bw 100000"
grep -q "limit_msgrate" "$T/cli.err" && fail "-y below the rate failed: $(cat "$T/cli.err")"
expect_grep "$T/srv.out" "Role +: server \(sends, --reversed\)"
expect_grep "$T/cli.out" "Role +: client \(receives, --reversed\)"
srv_sent=$(counter_delta "$T/s0" "$T/s1" sent_pkts)
cli_sent=$(counter_delta "$T/c0" "$T/c1" sent_pkts)
bytes=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert r["measured_by"] == "peer", r; print(r["bytes"])' "$T/rev.json") ||
	fail "--reversed's row is wrong: $(head -c 600 "$T/rev.json")"
((bytes == 500 * 65536 && srv_sent >= bytes / 4096 && cli_sent < srv_sent / 4)) ||
	fail "--reversed: $bytes bytes in the row, the server's device sent $srv_sent packets, the client's $cli_sent"
echo "reversed: $bytes B; packets sent by the server's device $srv_sent, by the client's $cli_sent"
pass "an ib_write_bw command line runs with perftest's meaning: its units, #iterations, JSON, --reversed, -w and -y"
