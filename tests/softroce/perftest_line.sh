#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# An ib_write_bw command line, unchanged but for the tool's name, runs: -c RC, -q, -s, -n,
# --report_gbits, --out_json/--out_json_file, -W, -L, --retry_count, --perform_warm_up,
# --mr_per_qp and --source_ip with the client's RoCE address (IPv4, else IPv6); --units MB/sec gives
# perftest's table header with MiB/s figures that match the JSON's Gb/s, and the JSON
# document lands where --out_json_file says; --source_ip picked the GID carrying it.
source "$(dirname "$0")/lib.sh"
# The client's RoCE address: an IPv4 one where its netdev has one, else its IPv6 link-local (the
# harness's veths carry only that, and the GID table with it).
addr=$(ip -4 -o addr show dev "$RB_NETDEV_PEER" 2>/dev/null | awk '{print $4}' | cut -d/ -f1 | head -n 1)
[ -n "$addr" ] || addr=$(ip -6 -o addr show dev "$RB_NETDEV_PEER" scope link | awk '{print $4}' | cut -d/ -f1 | head -n 1)
[ -n "$addr" ] || fail "no address on $RB_DEV_PEER's netdev $RB_NETDEV_PEER"
line=(-c RC -q 2 -s 65536 -n 2000 --report_gbits -W counters/port_xmit_data -L 64 --retry_count 7
	--perform_warm_up --mr_per_qp)
start_server "$BW" "${line[@]}"
run_client "$BW" "${line[@]}" --source_ip "$addr" --out_json --out_json_file "$T/perftest.json" --units MB/sec
wait_server
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
expect_grep "$T/cli.out" "#bytes +#iterations +BW peak\[MB/sec\] +BW average\[MB/sec\] +MsgRate\[Mpps\]"
python3 - "$T/perftest.json" "$T/cli.out" "$addr" <<'PY' || fail "the perftest line's results are wrong"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] and d["meta"]["mr_per_qp"] is True and d["meta"]["qps"] == 2, d["meta"]
assert d["meta"]["gid"].endswith(sys.argv[3]), (d["meta"]["gid"], sys.argv[3])
r = d["results"]
assert len(r) == 1 and r[0]["size_bytes"] == 65536 and r[0]["msgs"] == 4000, r  # the warm-up is not a row
row = [l.split() for l in open(sys.argv[2]) if re.match(r"^ +65536 ", l)][0]
mb = float(row[3])  # BW average[MB/sec]: perftest's MiB/s
want = r[0]["bw_avg_gbps"] * 1e9 / 8 / 2**20
assert abs(mb - want) <= 0.0015 * want + 0.001, (mb, want)
print(f"perftest line: {mb} MB/sec (MiB/s) = {r[0]['bw_avg_gbps']:.4f} Gb/s, GID {d['meta']['gid']}")
PY
pass "an ib_write_bw command line runs with perftest's meaning, MB/sec table included"
