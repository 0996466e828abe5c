#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# rdma_doctor on the live rxe pair: every layer ok, each port ACTIVE, RoCE v2, usable,
# its GID table and the GID the tools pick — the same GID rc_write_bw then uses; the
# netdev's DCB read from the kernel (rxe's veth or virtio netdev has none: lossy).
source "$(dirname "$0")/lib.sh"
DR=$RB_BUILD/src/rdma_doctor
timeout 30 "$DR" >"$T/d.out" 2>"$T/d.err"
expect_rc "rdma_doctor" $? 0
expect_grep "$T/d.out" "^$RB_DEV \(software\)"
expect_grep "$T/d.out" "pci +ok +software RDMA device over netdev $RB_NETDEV"
expect_grep "$T/d.out" "driver +ok +kernel module rdma_rxe loaded"
expect_grep "$T/d.out" "uverbs +ok +/dev/infiniband/uverbs[0-9]+ for $RB_DEV"
expect_grep "$T/d.out" "provider +ok +libibverbs lists $RB_DEV \(.*librxe-rdmav[0-9]+\.so\)"
expect_grep "$T/d.out" "access +ok +ibv_open_device\($RB_DEV\) works"
expect_grep "$T/d.out" "=> $RB_DEV port 1 ACTIVE, RoCE v2, usable"
expect_grep "$T/d.out" "=> $RB_DEV_PEER port 1 ACTIVE, RoCE v2, usable"
expect_grep "$T/d.out" "port 1: ACTIVE \(LinkUp\), Ethernet, .*, active MTU [0-9]+"
expect_grep "$T/d.out" "dma-buf registration \(GPU memory without peermem\): not supported"
expect_grep "$T/d.out" "^NCCL would use NET/IB over "
expect_grep "$T/d.out" "^  DCB on [^ ]+: (its driver offers none \(no PFC: RoCE here is lossy|PFC on )"
timeout 30 "$DR" --json --tclass 106 >"$T/d.json" 2>>"$T/d.err"
expect_rc "rdma_doctor --json" $? 0
# The chosen GID is the one rc_write_bw picks on its own.
chosen=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
dev = [x for x in d["devices"] if x["name"] == sys.argv[2]][0]
p = dev["ports"][0]
assert d["schema"] == "rdma_doctor/2" and d["verdict"] in ("ok", "warn") and dev["software"], d
assert p["usable"] and p["verdict"] == "ok" and p["transport"] == "roce_v2" and d["usable_ports"] >= 2, p
assert isinstance(p["active_mtu_bytes"], int) and dev["dmabuf"]["supported"] is False, (p, dev["dmabuf"])
c = p["chosen_gid"]
b = dev["dcb"]
assert b["source"] == "netlink RTM_GETDCB" and b["netdev"] == c["netdev"], (b, c)
assert (b["offered"] is False and "offers none" in b["text"]) or (b["offered"] and b["tclass"] == 106), b
g = [x for x in p["gids"] if x["index"] == c["index"]][0]
assert (g["gid"], g["type"]) == (c["gid"], c["type"]), (g, c)
print(g["index"], g["gid"])
' "$T/d.json" "$RB_DEV") || fail "the JSON does not hold a usable $RB_DEV with its chosen GID"
pair_json "$BW" -s 64 -n 10
expect_rc "rc_write_bw" "$CRC" 0
used=$(python3 -c 'import json,sys; m = json.load(open(sys.argv[1]))["meta"]; print(m["gid_index"], m["gid"])' "$T/srv.json")
[ "$chosen" = "$used" ] || fail "rdma_doctor chose GID '$chosen', rc_write_bw used '$used'"
echo "chosen GID on $RB_DEV: $chosen (rc_write_bw's too)"
pass "rdma_doctor: both rxe ports usable, with the GID the tools use"
