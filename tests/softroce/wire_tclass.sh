#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# What the wire shows: the RoCE v2 packets captured on the server's rxe netdev carry
# -T as their traffic class (the IPv4 TOS byte or IPv6 traffic class: DSCP and ECN)
# and --hop-limit as their TTL / hop limit, with and without -R. Through rdma_cm the
# ToS is also set on the CM id before the route is resolved: the client's CM MADs
# (BTH destination QP 1) carry it too. fifo_pingpong's CTS QP carries --fifo-tc.
# A run without -T and --hop-limit shows 0 and 64, so the capture tells them apart.
# --hop-limit itself cannot show here: over IPv6 GIDs rxe takes the packet's hop limit
# from the route, not from the address vector (seen: traffic class 96 and hop limit 64
# for -T 96 --hop-limit 7), so for those runs the test reads the hop limit the QP was
# given from the documents and prints what the wire carried.
#
# Needs the pair topology (on one device rxe loops packets back before the netdev)
# and tcpdump (tools/bootstrap --test installs it). In this topology the GIDs are
# the veths' link-local IPv6 addresses, so the packets are IPv6; the checker reads
# IPv4 as well.
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
command -v tcpdump >/dev/null || { echo "SKIP: tcpdump is not installed (tools/bootstrap --test)"; exit 77; }
ll=$(ip -6 -o addr show dev "$RB_NETDEV" scope link | awk '{print $4}' | cut -d/ -f1 | head -n 1)
[ -n "$ll" ] || fail "$RB_NETDEV has no link-local IPv6 address"
SERVER="$ll%$RB_NETDEV_PEER"
TD=
rb_exit_trap '[ -n "$TD" ] && kill "$TD" 2>/dev/null; rb_cleanup'

# capture NAME: tcpdump on the server's netdev, RoCE v2 (UDP 4791) only, until stop_capture.
capture() {
	tcpdump -i "$RB_NETDEV" -n -U --immediate-mode -s 128 -w "$T/$1.pcap" udp port 4791 2>"$T/tcpdump.log" &
	TD=$!
	wait_for "$T/tcpdump.log" "listening on" 10 || fail "tcpdump did not start: $(cat "$T/tcpdump.log")"
}
stop_capture() {
	kill -INT "$TD"
	wait "$TD"
	TD=
}

# check NAME TCLASSES HOPLIMIT MAD_TCLASS: every data packet (BTH dest QP != 1) has a
# traffic class in TCLASSES (comma-separated, all of them seen) and HOPLIMIT (- : any,
# printed); with
# MAD_TCLASS (comma-separated), every CM MAD the client sent (dest QP 1) carries one of
# them (fifo_pingpong's CTS connection has a CM id of its own, at --fifo-tc).
check() {
	python3 - "$T/$1.pcap" "$2" "$3" "${4:-}" "$ll" <<'PY' || fail "$1: the wire does not show it"
import ipaddress, struct, sys
path, want_tc, want_hop, mad_tc, server = sys.argv[1:6]
want_tc = {int(x) for x in want_tc.split(",")}
server = ipaddress.ip_address(server)
d = open(path, "rb").read()
e = "<" if d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
link = struct.unpack(e + "I", d[20:24])[0]
off, data, mads, seen, hops = 24, 0, 0, set(), set()
while off + 16 <= len(d):
    incl = struct.unpack(e + "I", d[off + 8:off + 12])[0]
    p = d[off + 16:off + 16 + incl]
    off += 16 + incl
    if link == 1:           # Ethernet, maybe one VLAN tag
        etype, p = struct.unpack(">H", p[12:14])[0], p[14:]
        if etype == 0x8100:
            etype, p = struct.unpack(">H", p[2:4])[0], p[4:]
    elif link == 113:       # Linux cooked capture
        etype, p = struct.unpack(">H", p[14:16])[0], p[16:]
    else:
        sys.exit("link type %d" % link)
    if etype == 0x0800:
        tc, hop, src, udp = p[1], p[8], ipaddress.ip_address(p[12:16]), p[(p[0] & 15) * 4:]
    elif etype == 0x86DD:
        tc, hop, src, udp = ((p[0] & 15) << 4) | (p[1] >> 4), p[7], ipaddress.ip_address(p[8:24]), p[40:]
    else:
        continue
    if len(udp) < 16 or struct.unpack(">H", udp[2:4])[0] != 4791:
        continue
    dqp = int.from_bytes(udp[8 + 5:8 + 8], "big")
    if dqp == 1:
        mads += 1
        if mad_tc and src != server:
            assert tc in {int(x) for x in mad_tc.split(",")}, ("CM MAD from the client", "tclass", tc, "want", mad_tc)
        continue
    data += 1
    seen.add(tc)
    assert tc in want_tc, ("data packet tclass", tc, "want", sorted(want_tc))
    hops.add(hop)
    assert want_hop == "-" or hop == int(want_hop), ("data packet hop limit", hop, "want", want_hop)
assert data >= 20, ("too few RoCE v2 data packets captured", data)
assert seen == want_tc, ("traffic classes seen", sorted(seen), "want", sorted(want_tc))
assert not mad_tc or mads, "no CM MAD captured"
print("  %-10s %d data packets, traffic class %s, hop limit %s; %d CM MADs" %
      (sys.argv[1].rsplit("/", 1)[1], data, sorted(seen), sorted(hops), mads))
PY
}

# Without -T / --hop-limit: 0 and 64.
capture plain
pair "$BW" -s 4K -n 100
stop_capture
expect_rc "plain client" "$CRC" 0
expect_rc "plain server" "$SRC" 0
check plain 0 64

# -T 96 --hop-limit 7 through QPINFO, given to both sides (each side's packets carry its own
# -T: the server's ACKs too).
capture qpinfo
start_server "$BW" -T 96 --hop-limit 7
run_client "$BW" -s 4K -n 100 -T 96 --hop-limit 7 --json "$T/qpinfo.json"
wait_server
stop_capture
expect_rc "-T 96 client" "$CRC" 0
expect_rc "-T 96 server" "$SRC" 0
expect_grep "$T/cli.out" "GRH \(RoCE\): traffic class 96, hop limit 7"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["meta"]; assert m["tclass"] == 96 and m["hop_limit"] == 7, m' \
	"$T/qpinfo.json" || fail "-T 96: the meta does not record TC 96, hop limit 7"
check qpinfo 96 -

# The same through rdma_cm: the QPs and the client's CM MADs.
capture cm
start_server "$BW" -R -T 96 --hop-limit 7
timeout 120 "$BW" -d "$RB_DEV_PEER" -p "$P" -R -s 4K -n 100 -T 96 --hop-limit 7 --json "$T/cm.json" \
	"$SERVER" >"$T/cli.out" 2>"$T/cli.err"
CRC=$?
wait_server
stop_capture
expect_rc "-R -T 96 client" "$CRC" 0
expect_rc "-R -T 96 server" "$SRC" 0
python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["meta"]
assert m["path_via"] == "rdma_cm" and m["grh"] and m["tclass"] == 96 and m["hop_limit"] == 7, m' \
	"$T/cm.json" || fail "-R: the meta does not record TC 96, hop limit 7"
check cm 96 - 96

# fifo_pingpong through rdma_cm: data QPs at -T, the CTS QP at --fifo-tc.
capture fifo
start_server "$FP" -R -T 96 --hop-limit 7 --fifo-tc 104
timeout 120 "$FP" -d "$RB_DEV_PEER" -p "$P" -R --window 4 -s 4K -n 100 -T 96 --fifo-tc 104 \
	--hop-limit 7 "$SERVER" >"$T/cli.out" 2>"$T/cli.err"
CRC=$?
wait_server
stop_capture
expect_rc "fifo_pingpong -R client" "$CRC" 0
expect_rc "fifo_pingpong -R server" "$SRC" 0
check fifo 96,104 - 96,104
pass "-T on the wire as the traffic class, with and without -R (and on the client's CM MADs); --fifo-tc on the CTS QP; --hop-limit in the QP's path as documented"
