#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# rdma_doctor --peer against rdma_doctor --serve, on a healthy pair and with a fault
# planted at each layer in turn. Each walk stops at the layer the fault lives in, says
# so in the conclusion and in JSON, and ends within its stated bound:
#   healthy       every layer ok; the fabric step's packet count within what rxe
#                 itself counted around the run (a counter the tool did not compute)
#   no server     oob, within --oob-timeout
#   MTU mismatch  the server's netdev at 1500 (port MTU 1024) against 9000: path warns
#                 with both MTUs, the WRITEs run and are verified at 1024
#   5 % loss      netem on both netdevs: fabric fails, naming the retransmission counters
#   GID subnets   IPv4 addresses on different subnets (no route): path warns that they
#                 differ, and qp fails: no 64 B WRITE completes
#   port down     the netdevs down: hosts fails, naming the port's state on both sides
#   serve killed  during the sustained run: fabric fails at once, naming the peer's side
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
DR=$RB_BUILD/src/rdma_doctor
fabric_guard
# The planted IPv4 addresses go too, however the test ends.
rb_exit_trap 'ip addr del 10.71.1.1/24 dev "$RB_NETDEV" 2>/dev/null; ip addr del 10.71.2.1/24 dev "$RB_NETDEV_PEER" 2>/dev/null; fabric_restore; rb_cleanup'

serve() {
	P=$((P + 3))
	timeout 300 "$DR" --serve -d "$RB_DEV" -p "$P" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	wait_for "$T/srv.out" "serving triage on port $P" 20 || fail "the serve did not start: $(cat "$T/srv.err")"
}

# walk NAME EXPECTED_RC ARGS...: the triage as JSON into $T/NAME.json, text into $T/NAME.out.
walk() {
	local name=$1 want=$2 start took bound
	shift 2
	start=$(now_ms)
	timeout 200 "$DR" --peer 127.0.0.1 -d "$RB_DEV_PEER" -p "$P" "$@" --json >"$T/$name.json" 2>"$T/$name.err"
	expect_rc "triage ($name)" $? "$want"
	took=$(($(now_ms) - start))
	bound=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bound_s"])' "$T/$name.json") ||
		fail "$name: no document: $(cat "$T/$name.err")"
	expect_took "the $name triage" "$took" "$bound"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print("  %-5s %-10s %s" % (s["verdict"], s["layer"], s["text"])) for s in d["steps"]]; print("  ->", d["conclusion"])' "$T/$name.json"
}

# layer NAME LAYER [PYTHON]: the walk failed at LAYER (or "" for healthy), and PYTHON holds of d, steps.
layer() {
	python3 - "$T/$1.json" "$2" "${3:-True}" <<'PY' || fail "$1: $(cat "$T/$1.json")"
import json, re, sys
d = json.load(open(sys.argv[1]))
steps = {}
for s in d["steps"]:
    steps.setdefault(s["layer"], []).append(s)
want = sys.argv[2] or None
assert d["schema"] == "rdma_doctor/2" and d["mode"] == "triage", d
assert d["failed_layer"] == want and d["healthy"] == (want is None), (d["failed_layer"], want)
if want:
    assert d["steps"][-1]["layer"] == want and d["steps"][-1]["verdict"] == "fail", d["steps"][-1]
    assert d["conclusion"].startswith(want + ": ") and d["next"] and "check next: " in d["conclusion"], d
assert eval(sys.argv[3]), sys.argv[3]
PY
}

serve
# No server on the port: the OOB layer, within --oob-timeout.
start=$(now_ms)
walk none 1 -p $((P + 100)) --oob-timeout 3
expect_took "no server" $(($(now_ms) - start)) 10
layer none oob '"Connection refused" in d["conclusion"]'

# Healthy: every layer, in order.
counters "$RB_DEV_PEER" "$T/c0"
walk healthy 0 --tclass 106
counters "$RB_DEV_PEER" "$T/c1"
sent=$(counter_delta "$T/c0" "$T/c1" sent_pkts)
# (rxe on a busy emulated guest retries now and then: the fabric may warn, below its bound.)
layer healthy "" "[s['layer'] for s in d['steps']] == ['oob', 'hosts', 'path', 'path', 'qp', 'writes', 'fabric', 'bandwidth']"
# Where -T lands at both ends: rxe's netdevs offer no DCB (netlink's EOPNOTSUPP), so both are lossy;
# the serve judged the asker's class, which its HELLO carried.
layer healthy "" 'any(s["check"] == "lossless" and s["verdict"] == "ok" and s["tclass"] == 106 and (s["here_dcb_state"], s["peer_dcb_state"]) == (0, 0) and s["text"].startswith("-T 106: lossy at both ends, no PFC") for s in steps["path"])'

python3 - "$T/healthy.json" "$sent" <<'PY' || fail "the fabric step's packets disagree with rxe's count"
import json, re, sys
d = json.load(open(sys.argv[1]))
fab = [s for s in d["steps"] if s["layer"] == "fabric"][-1]
n = fab["packets_sent"]
assert isinstance(n, (int, float)) and 0 < n <= int(sys.argv[2]), (n, sys.argv[2])
assert "%d packets sent" % n in fab["text"] and fab["check"] == "sustained" and fab["loss_percent"] < fab["bound_percent"], fab
assert fab["retransmission_events"] == sum(c["delta"] for c in fab["counters"] if c["side"] == "here"), fab
w = [s for s in d["steps"] if s["layer"] == "writes"][-1]
assert "verified" in w["text"] and w["sizes_bytes"][-1] == 1 << 20, w
b = [s for s in d["steps"] if s["layer"] == "bandwidth"][-1]
assert b["rdma_gbps"] > 0 and b["software"] is True and b["link_gbps"] > 0, b
print(f"fabric step: {n} packets sent; rxe counted {sys.argv[2]} around the whole triage")
PY
# The text form says the same, a line per step and the conclusion.
timeout 200 "$DR" --peer 127.0.0.1 -d "$RB_DEV_PEER" -p "$P" -D 1 >"$T/text.out" 2>"$T/text.err"
expect_rc "triage (text)" $? 0
expect_grep "$T/text.out" "^Triage with 127\.0\.0\.1:$P, layer by layer \(bounded: at most [0-9]+ s\)"
expect_grep "$T/text.out" "^  ok    qp +QPs INIT -> RTR -> RTS"
expect_grep "$T/text.out" "^Conclusion: healthy: every layer passed"
expect_grep "$T/srv.out" "facts sent to 127\.0\.0\.1:[0-9]+ \($RB_DEV ACTIVE\)"

# SIGINT during a run: the walk says it was interrupted (exit 130), and blames no layer.
timeout 200 "$DR" --peer 127.0.0.1 -d "$RB_DEV_PEER" -p "$P" -D 5 >"$T/int.out" 2>"$T/int.err" &
W=$!
wait_for "$T/int.out" "^  ok    writes " 60 || fail "the walk did not reach the sustained run: $(cat "$T/int.out")"
kill -INT "$W"
wait "$W"
expect_rc "interrupted triage" $? 130
expect_grep "$T/int.out" "^  FAIL  interrupted +interrupted by Interrupt$"
grep -E "^  FAIL  (fabric|bandwidth) " "$T/int.out" && fail "the interrupt was blamed on a layer"
echo "ok: SIGINT during the sustained run: $(tail -n 1 "$T/int.out")"

# The server's netdev at 1500: its port MTU falls to 1024; the path says so and the runs use it.
ip link set "$RB_NETDEV" mtu 1500
for ((i = 0; i < 50; i++)); do
	ibv_devinfo -d "$RB_DEV" | grep -q "active_mtu:.*1024" && break
	sleep 0.1
done
walk mtu 0
layer mtu "" 'any(s["verdict"] == "warn" and s["check"] == "port_mtu" and (s["here_mtu_bytes"], s["peer_mtu_bytes"], s["used_mtu_bytes"]) == (4096, 1024, 1024) and "port MTUs differ: 4096 here, 1024 there: runs use 1024" in s["text"] for s in steps["path"]) and "1024 B and 1 MiB WRITEs verified at path MTU 1024 B" in steps["writes"][-1]["text"] and steps["writes"][-1]["path_mtu_bytes"] == 1024'
ip link set "$RB_NETDEV" mtu "$MTU_SRV"
link_restore

# 5 % loss each way: the fabric layer, with the counters that moved.
for n in "$RB_NETDEV" "$RB_NETDEV_PEER"; do
	tc qdisc add dev "$n" root netem loss 5% || fail "cannot add netem to $n"
done
walk loss 1
layer loss fabric '"correct but slow: every WRITE verified" in d["conclusion"] and any(k in d["conclusion"] for k in ("completer_retry_err", "duplicate_request", "out_of_seq_request", "rcvd_seq_err")) and steps["fabric"][-1]["loss_percent"] >= steps["fabric"][-1]["bound_percent"] and steps["fabric"][-1]["counters"]'
for n in "$RB_NETDEV" "$RB_NETDEV_PEER"; do tc qdisc del dev "$n" root; done

# IPv4 GIDs on two subnets with no route between them.
ip addr add 10.71.1.1/24 dev "$RB_NETDEV"
ip addr add 10.71.2.1/24 dev "$RB_NETDEV_PEER"
for ((i = 0; i < 50; i++)); do
	grep -qs "0000:0000:0000:0000:0000:ffff:0a47:0" /sys/class/infiniband/"$RB_DEV"/ports/1/gids/* &&
		grep -qs "0000:0000:0000:0000:0000:ffff:0a47:0" /sys/class/infiniband/"$RB_DEV_PEER"/ports/1/gids/* && break
	sleep 0.1
done
walk subnet 1
layer subnet qp '"ip route" in d["next"] and any(s["check"] == "subnet" and (s["here_subnet"], s["peer_subnet"], s["routed"]) == ("10.71.2.1/24", "10.71.1.1/24", True) and "subnets differ: 10.71.2.1/24 here, 10.71.1.1/24 there" in s["text"] for s in steps["path"])'
ip addr del 10.71.1.1/24 dev "$RB_NETDEV"
ip addr del 10.71.2.1/24 dev "$RB_NETDEV_PEER"

# The link down: both ports leave ACTIVE (a veth's peer loses its carrier), and the hosts
# layer names the state of each, the peer's included.
ip link set "$RB_NETDEV" down
for ((i = 0; i < 50; i++)); do
	grep -q ACTIVE "/sys/class/infiniband/$RB_DEV_PEER/ports/1/state" || break
	sleep 0.1
done
walk down 1
layer down hosts 're.search(r"this host: \S+ port 1 DOWN.*; peer \S+: \S+ port 1 DOWN", d["conclusion"]) and (steps["hosts"][-1]["here_usable"], steps["hosts"][-1]["peer_usable"], steps["hosts"][-1]["here_state"], steps["hosts"][-1]["peer_state"]) == (False, False, "DOWN", "DOWN")'
link_restore

# The serve vanishes (SIGKILL) during the sustained run: its rc_write_bw dies with it, the
# walk ends at once (exit 1) and says the peer's side ended, not the fabric; no server of
# the serve's is left behind.
timeout 200 "$DR" --peer 127.0.0.1 -d "$RB_DEV_PEER" -p "$P" -D 5 >"$T/gone.out" 2>"$T/gone.err" &
W=$!
wait_for "$T/gone.out" "^  ok    writes " 60 || fail "the walk did not reach the sustained run: $(cat "$T/gone.out")"
sleep 1
pkill -9 -P "$SRV"
start=$(now_ms)
wait "$W"
expect_rc "triage whose serve vanished" $? 1
expect_took "the walk after its serve vanished" $(($(now_ms) - start)) 15
expect_grep "$T/gone.out" "^Conclusion: fabric: the sustained 5 s run failed: .*; check next: the peer's rdma_doctor --serve: it, or its server, ended during the run$"
wait "$SRV"
SRV=
sleep 0.5
[ -z "$(pgrep -f -- "--persist -p $((P + 1))")" ] || fail "the vanished serve's rc_write_bw is still running"
echo "ok: serve killed mid-run: $(tail -n 1 "$T/gone.out")"
pass "rdma_doctor --peer: healthy, and each planted fault named at its layer within the bound"
