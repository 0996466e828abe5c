#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The kernel's TCP figures in every row (tcp_retrans, tcp_rtt_us, tcp_cwnd, tcp_cc): there,
# plausible, the same in both sides' documents, and the senders' (with -R the server's,
# which the client learns over the control connection). tcp_retrans is held against a
# counter socket_bw does not compute, the kernel's RetransSegs (/proc/net/snmp): over the
# host it bounds ours from above. In a network namespace of its own that counter is this
# test's alone, and a token bucket on its lo (tc tbf) drops what overflows it: then the
# run retransmits for certain, and RetransSegs less ours is the control connection's few.
if [ -z "${RB_NETNS:-}" ] && unshare -n true 2>/dev/null; then
	RB_NETNS=1 exec unshare -n bash "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"
[ -n "${RB_NETNS:-}" ] && { ip link set lo up || fail "cannot bring lo up in the namespace"; }
cc=$(cat /proc/sys/net/ipv4/tcp_congestion_control)

# RetransSegs so far (/proc/net/snmp: a "Tcp:" header line, then its values).
retrans() {
	awk '$1 == "Tcp:" { if (col) print $col; else for (i = 2; i <= NF; i++) if ($i == "RetransSegs") col = i }' /proc/net/snmp
}

# run SERVER_ARGS -- CLIENT_ARGS...: each side with its own documents ($T/srv.*, $T/cli.*:
# csv and json); RESENT is RetransSegs' growth over the run.
run() {
	local srv=() r0
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	P=$((P + 1))
	r0=$(retrans)
	"$SB" -p "$P" "${srv[@]}" --json "$T/srv.json" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	timeout 60 "$SB" -p "$P" "$@" --json "$T/cli.json" --csv "$T/cli.csv" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
	CRC=$?
	expect_rc "client [$*]" "$CRC" 0 # (first: a client that failed leaves its server waiting)
	wait_server
	RESENT=$(($(retrans) - r0))
	expect_rc "server [$*]" "$SRC" 0
}

# check EXACT [MIN]: the client's rows against the kernel's count, and the server's rows
# against the client's. EXACT 1: RetransSegs is this run's alone; MIN: retransmits at least.
check() {
	python3 - "$T" "$cc" "$RESENT" "$@" <<'PY' || fail "tcp_* fields wrong"
import csv, json, sys
t, cc, resent, exact = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
least = int(sys.argv[5]) if len(sys.argv) > 5 else 0
keys = ("tcp_retrans", "tcp_rtt_us", "tcp_cwnd", "tcp_cc")
cli, srv = json.load(open(t + "/cli.json")), json.load(open(t + "/srv.json"))
rows = [r for r in cli["results"] if r.get("interval") in (None, "total")]
assert rows and cli["complete"], cli
for r in rows:
    assert isinstance(r["tcp_retrans"], int) and r["tcp_retrans"] >= 0, r
    assert isinstance(r["tcp_cwnd"], int) and 1 <= r["tcp_cwnd"] < 2**31, r
    assert 0 < r["tcp_rtt_us"] < 10**7, r
    assert r["tcp_cc"] == cc, (r["tcp_cc"], cc)
# The CSV carries the same, as numbers.
for r, c in zip(rows, [c for c in csv.DictReader(open(t + "/cli.csv")) if c.get("interval") in (None, "", "total")]):
    assert [str(r[k]) for k in keys] == [c[k] for k in keys], (r, c)
# A bandwidth run's figures are the senders': both sides' rows say the same.
if rows[0]["mode"] != "ping_pong":
    srows = [r for r in srv["results"] if r.get("interval") in (None, "total")]
    assert [[r[k] for k in keys] for r in rows] == [[r[k] for k in keys] for r in srows], (rows, srows)
ours = sum(r["tcp_retrans"] for r in rows)
print("%s: tcp_retrans %d, RetransSegs %+d; RTT %s us, cwnd %s, %s" % (rows[0]["mode"], ours, resent,
      [r["tcp_rtt_us"] for r in rows], [r["tcp_cwnd"] for r in rows], cc))
assert ours <= resent, "more retransmits than the kernel counted"
assert ours >= least, "no retransmits where the link drops"
# Besides the data sockets, only the control connection resends (a few small frames).
assert not exact or resent - ours <= 5 + resent // 10, "the kernel resent far more than the rows say"
PY
}

# The client sends (its data sockets' figures, in both sides' rows).
run -- -s 64K,1M -n 300 --nsocks 2
check "${RB_NETNS:-0}"
# -R: the server's senders', which the client's rows carry; --bidir: both ways'.
run -- -s 1M -n 300 -R
check "${RB_NETNS:-0}"
expect_grep "$T/cli.json" '"mode": "reverse"'
run -- -s 1M -n 300 --bidir
check "${RB_NETNS:-0}"
# Ping-pong: each side's own socket.
run -- --ping-pong -s 8,4K -n 2000
check "${RB_NETNS:-0}"
# An interval row has none (TCP_INFO is read outside the clock); its size's row has them.
run -- -s 64K -D 1 --interval 0.5
python3 - "$T/cli.csv" "$T/cli.json" <<'PY' || fail "tcp_* of interval rows"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) >= 3 and rows[-1]["interval"] == "total", rows
for r in rows[:-1]:
    assert [r[k] for k in ("tcp_retrans", "tcp_rtt_us", "tcp_cwnd", "tcp_cc")] == ["", "", "", ""], r
assert rows[-1]["tcp_cc"] and float(rows[-1]["tcp_rtt_us"]) > 0, rows[-1]
j = json.load(open(sys.argv[2]))["results"]
assert j[0]["tcp_retrans"] is None and j[0]["tcp_rtt_us"] is None and j[0]["tcp_cc"] == "", j[0]
PY

# A link that drops: every mode's rows count the retransmits, and the text says so under the row.
if [ -n "${RB_NETNS:-}" ] && tc qdisc add dev lo root tbf rate 2gbit burst 128kb limit 256kb 2>/dev/null; then
	for mode in "" -R --bidir; do
		# shellcheck disable=SC2086
		run -- -s 64K -D 1 --nsocks 2 $mode
		check 1 1
		expect_grep "$T/cli.out" "^  TCP \\((the client's|the server's|both sides') senders\\): [1-9][0-9]* segments retransmitted, RTT [0-9.]+ us \\(mean\\), cwnd [0-9]+ segments \\(smallest\\), $cc$"
	done
	tc qdisc del dev lo root
else
	echo "note: no network namespace or no tc tbf here: retransmits on a lossy link not exercised"
fi
pass "the kernel's TCP figures in every row"
