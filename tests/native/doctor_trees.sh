#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# rdma_doctor on fabricated trees (--sysfs-root, --dev-root, --provider-dir): each case
# is a host broken at one layer, and the conclusion must name that layer and what it
# read. Then the live host: on a machine without RDMA in its kernel the conclusion
# says so.
source "$(dirname "$0")/lib.sh"
DR=$RB_BUILD/src/rdma_doctor

# A fresh tree: $S (sysfs), $D (/dev), $V (providers).
fresh() {
	rm -rf "$T/tree"
	S=$T/tree/sys D=$T/tree/dev V=$T/tree/prov
	mkdir -p "$S/class" "$S/bus/pci/devices" "$D" "$V"
}
put() { # FILE TEXT
	mkdir -p "$(dirname "$1")"
	echo "$2" >"$1"
}
# pci BDF VENDOR CLASS [DRIVER]: a PCI function under one root port of pci0000:00.
pci() {
	local dir=$S/devices/pci0000:00/0000:00:01.0/$1
	mkdir -p "$dir"
	put "$dir/vendor" "$2"
	put "$dir/device" 0x1017
	put "$dir/class" "$3"
	put "$dir/numa_node" 0
	ln -s "../../../devices/pci0000:00/0000:00:01.0/$1" "$S/bus/pci/devices/$1"
	if [ -n "${4:-}" ]; then
		mkdir -p "$S/bus/pci/drivers/$4"
		ln -s "../../../../bus/pci/drivers/$4" "$dir/driver"
	fi
}
# ibdev NAME BDF N: an RDMA device on PCI function BDF with uverbsN in sysfs.
ibdev() {
	mkdir -p "$S/class/infiniband" "$S/devices/pci0000:00/0000:00:01.0/$2/infiniband/$1"
	ln -s "../../devices/pci0000:00/0000:00:01.0/$2/infiniband/$1" "$S/class/infiniband/$1"
	ln -s "../.." "$S/devices/pci0000:00/0000:00:01.0/$2/infiniband/$1/device"
	put "$S/class/infiniband_verbs/uverbs$3/ibdev" "$1"
}
# port DEV N STATE PHYS LINK LID
port() {
	local p=$S/class/infiniband/$1/ports/$2
	put "$p/state" "$3"
	put "$p/phys_state" "$4"
	put "$p/link_layer" "$5"
	put "$p/rate" "100 Gb/sec (4X EDR)"
	put "$p/lid" "$6"
}
# gid DEV PORT INDEX GID TYPE NETDEV
gid() {
	local p=$S/class/infiniband/$1/ports/$2
	put "$p/gids/$3" "$4"
	put "$p/gid_attrs/types/$3" "$5"
	put "$p/gid_attrs/ndevs/$3" "$6"
}
node() { put "$D/infiniband/uverbs$1" ""; }
provider() { put "$V/lib$1-rdmav34.so" ""; }
# doctor ARGS...: rdma_doctor on the tree; sets rc, output in $T/d.out.
doctor() {
	timeout 10 "$DR" --sysfs-root "$S" --dev-root "$D" --provider-dir "$V" "$@" >"$T/d.out" 2>"$T/d.err"
	rc=$?
}
# json PYTHON: the last --json output ($T/d.out) parses, its head is schema 2, and PYTHON's
# asserts hold of it (d: the document; dev, port: its first device and that one's first port).
json() {
	python3 -m json.tool "$T/d.out" >/dev/null || fail "rdma_doctor --json is not valid JSON"
	python3 - "$T/d.out" "$1" <<'PY' || fail "the JSON document: $(cat "$T/d.out")"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "rdma_doctor/2" and d["tool"] == "rdma_doctor" and d["mode"] == "host", d
assert re.fullmatch(r"\d+\.\d+\.\d+.*", d["version"]) and d["host"], d
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", d["date"]), d["date"]
assert d["verdict"] in ("ok", "warn", "fail") and (d["verdict"] == "fail") == (d["usable_ports"] == 0), d
num = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
dev = d["devices"][0] if d["devices"] else None
port = dev["ports"][0] if dev and dev["ports"] else None
exec(sys.argv[2])
PY
}
# conclusion RC PATTERN: the exit code and the conclusion line.
conclusion() {
	expect_rc "rdma_doctor ($2)" "$rc" "$1"
	expect_grep "$T/d.out" "^conclusion: $2"
	echo "ok: $(grep '^conclusion:' "$T/d.out")"
}
# A healthy ConnectX on RoCE: PCI, mlx5_core, uverbs0, a provider, an ACTIVE port with GIDs.
healthy() {
	fresh
	pci 0000:3b:00.0 0x15b3 0x020000 mlx5_core
	ibdev mlx5_0 0000:3b:00.0 0
	node 0
	provider mlx5
	port mlx5_0 1 "4: ACTIVE" "5: LinkUp" Ethernet 0x0
	gid mlx5_0 1 0 fe80:0000:0000:0000:0e42:a1ff:fe00:0001 "IB/RoCE v1" eth2
	gid mlx5_0 1 1 fe80:0000:0000:0000:0e42:a1ff:fe00:0001 "RoCE v2" eth2
	gid mlx5_0 1 2 0000:0000:0000:0000:0000:ffff:0a00:0005 "IB/RoCE v1" eth2
	gid mlx5_0 1 3 0000:0000:0000:0000:0000:ffff:0a00:0005 "RoCE v2" eth2
	put "$S/class/net/eth2/mtu" 4200
}

# 1. No RDMA driver at all.
fresh
doctor
conclusion 1 "no RDMA device: .*class/infiniband is absent \(no RDMA driver is loaded\)"

# 2. A Mellanox NIC bound to mlx5_core, but no RDMA device (mlx5_ib not loaded).
fresh
pci 0000:3b:00.0 0x15b3 0x020000 mlx5_core
doctor
conclusion 1 "no RDMA device: PCI 0000:3b:00.0 is bound to mlx5_core but has no RDMA device \(modprobe mlx5_ib\)"
doctor --json
json '
o = d["pci_without_rdma"][0]
assert (o["pci"], o["driver"], o["reason"], o["module"], o["vendor_id"]) == ("0000:3b:00.0", "mlx5_core", "no_rdma_module", "mlx5_ib", "0x15b3"), o
assert o["text"].startswith("PCI 0000:3b:00.0 is bound to mlx5_core") and d["first_usable"] is None and not d["devices"], d
'

# 3. sysfs shows the device, /dev/infiniband is not there (a container without it).
healthy
rm -rf "$D/infiniband"
doctor
conclusion 1 "no usable port; mlx5_0: uverbs layer: sysfs shows mlx5_0 but .*/infiniband is absent: the verbs devices are not exposed to this container"
expect_grep "$T/d.out" "provider  -     not checked"
doctor --json
json '
l = dev["layers"]
assert dev["verdict"] == "fail" and dev["failed_layer"] == "uverbs" and dev["uverbs"] is None, dev
assert [l[k]["verdict"] for k in ("pci", "driver", "uverbs", "provider", "access")] == ["ok", "ok", "fail", "unchecked", "unchecked"], l
assert l["uverbs"]["source"].endswith("/dev/infiniband") and l["pci"]["source"].endswith("/class/infiniband/mlx5_0/device"), l
assert port["usable"] is False and port["reason"] == "layer_failed" and port["verdict"] == "fail", port
'

# 4. The device node is there, the provider is not.
healthy
rm -f "$V"/*
doctor
conclusion 1 "no usable port; mlx5_0: provider layer: no userspace provider for mlx5_0 \(driver mlx5_core\)"

# 5. ib_uverbs not loaded: no uverbs entry in sysfs.
healthy
rm -rf "$S/class/infiniband_verbs"
doctor
conclusion 1 "no usable port; mlx5_0: uverbs layer: no uverbs device for mlx5_0 .*ib_uverbs is not loaded"

# 6. Port DOWN.
healthy
put "$S/class/infiniband/mlx5_0/ports/1/state" "1: DOWN"
put "$S/class/infiniband/mlx5_0/ports/1/phys_state" "3: Disabled"
doctor
conclusion 1 "no usable port; mlx5_0 port 1 DOWN \(Disabled\): not usable: the link is down"
doctor --json
json 'assert (port["state"], port["phys_state"], port["reason"], port["usable"]) == ("DOWN", "Disabled", "link_down", False), port'

# 7. Several GIDs, v1 and v2, IPv4 and IPv6: the tools (and NCCL) pick the IPv4-mapped v2 one.
healthy
doctor
conclusion 0 "1 usable port; first: mlx5_0 port 1 ACTIVE, RoCE v2, usable"
expect_grep "$T/d.out" "chosen GID: index 3: RoCE v2, IPv4-mapped"
expect_grep "$T/d.out" '\*   3  10\.0\.0\.5 +RoCE v2 +eth2'
expect_grep "$T/d.out" "netdev MTU 4200"
doctor --json
json '
p = port
assert d["usable_ports"] == 1 and d["verdict"] == "ok" and d["first_usable"] == {"device": "mlx5_0", "port": 1}, d
assert p["usable"] and p["verdict"] == "ok" and p["reason"] is None and p["transport"] == "roce_v2", p
g = p["chosen_gid"]
assert (g["index"], g["gid"], g["type"], g["netdev"], g["ipv4"], g["in_range"]) == (3, "10.0.0.5", "RoCE v2", "eth2", True, False), g
assert g["text"].startswith("index 3: RoCE v2, IPv4-mapped"), g
assert [x["index"] for x in p["gids"]] == [0, 1, 2, 3] and p["gids_total"] == 4, p["gids"]
assert p["netdev_mtu_bytes"] == 4200 and p["active_mtu_bytes"] is None and p["rate_gbps"] == 100, p
assert dev["layers"]["provider"]["verdict"] == "ok" and dev["provider_library"].endswith("/libmlx5-rdmav34.so"), dev
assert (dev["vendor_id"], dev["device_id"], dev["pci"], dev["numa_node"], dev["rdma_cm"]) == ("0x15b3", "0x1017", "0000:3b:00.0", 0, False), dev
assert dev["text"] == p["text"] == "mlx5_0 port 1 ACTIVE, RoCE v2, usable" and dev["verdict"] == "ok", dev
assert d["conclusion"] == "1 usable port; first: mlx5_0 port 1 ACTIVE, RoCE v2, usable", d["conclusion"]
n = d["nccl"]
assert n["choice"] == "ib" and n["admitted_ports"] == [{"device": "mlx5_0", "port": 1}] and n["ib_hca"] is None, n
'
echo "ok: the JSON says GID 3 of 4, usable, as fields"
# ... and inside a range, the range wins.
gid mlx5_0 1 4 fd00:0000:0000:0000:0000:0000:0000:0005 "RoCE v2" eth2
doctor --gid-range fd00::/8
expect_grep "$T/d.out" "chosen GID: index 4: RoCE v2, IPv6, inside the address range"
echo "ok: GID choice: IPv4-mapped RoCE v2 by default, the range's GID with --gid-range"

# 8. NCCL_IB_HCA that excludes every port: usable for us, NCCL falls back to Socket.
NCCL_IB_HCA=mlx5_9 doctor
conclusion 0 "1 usable port"
expect_grep "$T/d.out" "^NCCL would fall back to Socket: no usable port matches the HCA filter mlx5_9"
NCCL_IB_HCA=^mlx5_0 doctor
expect_grep "$T/d.out" "^NCCL would fall back to Socket: no usable port matches the HCA filter \^mlx5_0"
NCCL_IB_DISABLE=1 doctor
expect_grep "$T/d.out" "^NCCL would use Socket: NCCL_IB_DISABLE=1"
NCCL_IB_HCA=mlx5_9 NCCL_SOCKET_IFNAME=eth2 doctor --json
json '
n = d["nccl"]
assert (n["choice"], n["ib_hca"], n["admitted_ports"], n["socket_ifname"], n["socket_ifname_matches"]) == ("socket", "mlx5_9", [], "eth2", True), n
assert n["text"] == "NCCL would fall back to Socket: no usable port matches the HCA filter mlx5_9" and port["nccl_ib_hca_admits"] is False, n
'
echo "ok: NCCL's choice follows NCCL_IB_HCA and NCCL_IB_DISABLE"

# 9. InfiniBand without a subnet manager: ACTIVE is never reached, or LID 0.
healthy
put "$S/class/infiniband/mlx5_0/ports/1/link_layer" InfiniBand
put "$S/class/infiniband/mlx5_0/ports/1/state" "2: INIT"
doctor
conclusion 1 "no usable port; mlx5_0 port 1 INIT \(LinkUp\): not usable: the link is up but the port is not ACTIVE"
put "$S/class/infiniband/mlx5_0/ports/1/state" "4: ACTIVE"
doctor
conclusion 1 "no usable port; mlx5_0 port 1 ACTIVE \(LinkUp\): not usable: LID 0: no subnet manager"
doctor --json
json 'assert port["reason"] == "no_lid" and port["transport"] == "infiniband" and port["lid"] == 0, port'

# 10. A GPU behind the NIC's switch, peer memory loaded.
healthy
pci 0000:3c:00.0 0x10de 0x030200 nvidia
put "$S/module/nvidia_peermem/version" 1.0
doctor
expect_grep "$T/d.out" "GPU at PCI 0000:3c:00.0 \(NUMA 0\)"
expect_grep "$T/d.out" "to mlx5_0: same PCIe switch \(PIX/PXB\)"
expect_grep "$T/d.out" "GPUDirect peer memory: .*module/nvidia_peermem/version"

# 10b. PCIe links: the NIC trained down to x8 at 8 GT/s of x16 at 32 GT/s, the GPU at full width.
link() { # BDF CUR_GTS CUR_W MAX_GTS MAX_W
	local dir=$S/devices/pci0000:00/0000:00:01.0/$1
	put "$dir/current_link_speed" "$2 GT/s PCIe"
	put "$dir/current_link_width" "$3"
	put "$dir/max_link_speed" "$4 GT/s PCIe"
	put "$dir/max_link_width" "$5"
}
healthy
pci 0000:3c:00.0 0x10de 0x030200 nvidia
link 0000:3b:00.0 8.0 8 32.0 16
link 0000:3c:00.0 16.0 16 16.0 16
doctor
expect_grep "$T/d.out" "^  PCIe link x8 at 8.0 GT/s of x16 at 32.0 GT/s: DEGRADED, running below what it can .*class/infiniband/mlx5_0/device/current_link_\*\)"
expect_grep "$T/d.out" "^  PCIe link x16 at 16.0 GT/s of x16 at 16.0 GT/s \(.*bus/pci/devices/0000:3c:00.0/current_link_\*\)$"
conclusion 0 "1 usable port; first: .*; but the PCIe link of mlx5_0 is degraded \(below its own maximum\): bandwidth is capped"
doctor --json
json '
l, g = dev["pcie"], d["gpus"][0]["pcie"]
assert l["verdict"] == "degraded" and all(num(l[k]) for k in ("width", "speed_gts", "max_width", "max_speed_gts")), l
assert (l["width"], l["speed_gts"], l["max_width"], l["max_speed_gts"]) == (8, 8.0, 16, 32.0), l
assert l["source"].endswith("/class/infiniband/mlx5_0/device") and "x8 at 8.0 GT/s of x16 at 32.0 GT/s: DEGRADED" in l["text"], l
assert g["verdict"] == "ok" and (g["width"], g["speed_gts"], g["max_width"], g["max_speed_gts"]) == (16, 16.0, 16, 16.0), g
assert g["text"].startswith("PCIe link x16 at 16.0 GT/s") and g["source"].endswith("/bus/pci/devices/0000:3c:00.0"), g
assert d["verdict"] == "warn" and d["usable_ports"] == 1 and d["pcie_degraded"] == "mlx5_0" and dev["verdict"] == "warn", d
'
echo "ok: the degraded link as numbers: x8 at 8 GT/s of x16 at 32 GT/s, verdict degraded"
link 0000:3b:00.0 32.0 16 32.0 16
doctor
conclusion 0 "1 usable port; first: [^;]*$"
echo "ok: a NIC's PCIe link trained down is named, a full one is not"

# 10c. Host evidence: the NIC's IOMMU translating, RoCE ECN on priority 3, ACS redirect on the
# bridge above the GPU, CPUs on powersave; then ACS off, and a config space cut at its header.
acs_config() { # FILE CTL: a bridge's config space, an ACS capability at 0x100 with control CTL
	python3 -c '
import struct, sys
cfg = bytearray(512)
cfg[0x100:0x108] = struct.pack("<IHH", 0x0001000D, 0x005F, int(sys.argv[2], 0))
open(sys.argv[1], "wb").write(bytes(cfg))' "$1" "$2"
}
healthy
pci 0000:3c:00.0 0x10de 0x030200 nvidia
put "$S/devices/pci0000:00/0000:00:01.0/0000:3b:00.0/iommu_group/type" DMA-FQ
put "$S/class/net/eth2/ecn/roce_np/enable/3" 1
put "$S/class/net/eth2/ecn/roce_np/enable/4" 0
put "$S/class/net/eth2/ecn/roce_rp/enable/3" 1
put "$S/devices/system/cpu/cpu0/cpufreq/scaling_governor" powersave
put "$S/devices/system/cpu/cpu1/cpufreq/scaling_governor" performance
acs_config "$S/devices/pci0000:00/0000:00:01.0/config" 0x001d
put "$S/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages" 8
put "$S/kernel/mm/hugepages/hugepages-2048kB/free_hugepages" 6
doctor
expect_grep "$T/d.out" "^2 MiB huge pages \(the default size, which --hugepages uses\): 8 reserved, 6 free"
expect_grep "$T/d.out" "^  IOMMU: DMA-FQ \(translated: every DMA is looked up; iommu=pt avoids it\) \(.*/iommu_group/type\)"
expect_grep "$T/d.out" "^  RoCE ECN on eth2: notification point on priorities 3, reaction point on 3 \(.*/class/net/eth2/ecn\)"
expect_grep "$T/d.out" "^  ACS: 1 bridge above redirect peer-to-peer, the nearest 0000:00:01.0 \(ACSCtl 0x001d, request redirect, completion redirect\)"
expect_grep "$T/d.out" "^CPU frequency governor: powersave on 1 of 2 CPUs: latency moves with the clock"
conclusion 0 "1 usable port; first: .*; ACS above GPU 0000:3c:00.0 redirects peer-to-peer"
doctor --json
json '
gpu, io, ecn = d["gpus"][0], dev["iommu"], dev["roce_ecn"]
assert (io["mode"], io["group_type"]) == ("translated", "DMA-FQ") and io["source"].endswith("/iommu_group/type"), io
assert io["text"].startswith("IOMMU: DMA-FQ (translated"), io
assert (ecn["netdev"], ecn["np_priorities"], ecn["rp_priorities"]) == ("eth2", [3], [3]) and ecn["source"].endswith("/class/net/eth2/ecn"), ecn
a = gpu["acs"]
assert (a["redirect"], a["bridges"], a["nearest"], a["acs_ctl"], a["request_redirect"], a["completion_redirect"]) == (True, 1, "0000:00:01.0", 0x1D, True, True), a
assert a["text"].startswith("ACS: 1 bridge above redirect") and a["source"].endswith("/0000:00:01.0/config"), a
assert gpu["to_devices"] == [{"device": "mlx5_0", "relation": "same_switch", "text": gpu["to_devices"][0]["text"]}], gpu
g = d["cpu_governor"]
assert (g["verdict"], g["cpus"], g["performance_cpus"], g["other_governor"]) == ("warn", 2, 1, "powersave"), g
assert g["text"].startswith("CPU frequency governor: powersave on 1 of 2 CPUs") and g["source"].endswith("/devices/system/cpu"), g
h = d["hugepages"]
assert (h["page_bytes"], h["page_size"], h["reserved_pages"], h["free_pages"]) == (2 << 20, "2 MiB", 8, 6), h
assert h["source"].endswith("/kernel/mm/hugepages/hugepages-2048kB") and h["text"].startswith("2 MiB huge pages"), h
m = d["memlock"]
assert m["verdict"] in ("ok", "warn", "fail") and isinstance(m["unlimited"], bool) and isinstance(m["cap_ipc_lock"], bool), m
assert (m["limit_bytes"] is None) == (m["unlimited"] and not m["cap_ipc_lock"]) and m["default_run_bytes"] == 65536, m
assert m["text"].startswith("RLIMIT_MEMLOCK"), m
assert d["verdict"] == "warn" and d["acs_redirect_gpu"] == "0000:3c:00.0" and d["pcie_degraded"] is None, d
# Sentences live under "text" (the document: "conclusion"); elsewhere a string is a name, an
# id, a path or a value as sysfs spells it, never a sentence.
def walk(v, key=""):
    if isinstance(v, dict):
        for k, x in v.items():
            walk(x, k)
    elif isinstance(v, list):
        for x in v:
            walk(x, key)
    elif isinstance(v, str) and key not in ("text", "conclusion"):
        assert not re.search(r"[a-z]+ [a-z]+ [a-z]+|: ", v), (key, v)
walk(d)
'
echo "ok: IOMMU, ECN, ACS, governor, huge pages and memlock as fields; sentences only under text"
acs_config "$S/devices/pci0000:00/0000:00:01.0/config" 0x0001
put "$S/devices/system/cpu/cpu0/cpufreq/scaling_governor" performance
put "$S/devices/pci0000:00/0000:00:01.0/0000:3b:00.0/iommu_group/type" identity
doctor
expect_grep "$T/d.out" "^  ACS: no bridge above redirects peer-to-peer"
expect_grep "$T/d.out" "^CPU frequency governor: performance on all 2 CPUs"
expect_grep "$T/d.out" "^  IOMMU: identity \(passthrough"
conclusion 0 "1 usable port; first: [^;]*$"
head -c 256 /dev/zero >"$S/devices/pci0000:00/0000:00:01.0/config"
doctor
expect_grep "$T/d.out" "^  ACS: unknown \(the bridges' config space past its header needs root"
echo "ok: IOMMU, RoCE ECN, ACS and the governor named with their sources"

# 11. Two ports: port 1 down, port 2 an InfiniBand port with a LID: the device is usable by port 2.
healthy
put "$S/class/infiniband/mlx5_0/ports/1/state" "1: DOWN"
put "$S/class/infiniband/mlx5_0/ports/1/phys_state" "3: Disabled"
port mlx5_0 2 "4: ACTIVE" "5: LinkUp" InfiniBand 0x12
gid mlx5_0 2 0 fe80:0000:0000:0000:0002:c903:0000:0001 "IB/RoCE v1" ""
doctor --json
json '
assert [p["port"] for p in dev["ports"]] == [1, 2], dev["ports"]
assert dev["text"] == "mlx5_0 port 2 ACTIVE, InfiniBand, usable" and d["first_usable"] == {"device": "mlx5_0", "port": 2}, dev["text"]
' || fail "a device with port 2 usable is not concluded usable by port 2"
echo "ok: two ports, the device concluded by its usable port 2"

# 12. 80 IPv6 GIDs, then the IPv4-mapped RoCE v2 one at index 80: the whole table is read.
healthy
rm -rf "$S/class/infiniband/mlx5_0/ports/1/gids" "$S/class/infiniband/mlx5_0/ports/1/gid_attrs"
for i in $(seq 0 79); do
	gid mlx5_0 1 "$i" "$(printf 'fe80:0000:0000:0000:0000:0000:0000:%04x' $((i + 1)))" "IB/RoCE v1" eth2
done
gid mlx5_0 1 80 0000:0000:0000:0000:0000:ffff:0a00:0005 "RoCE v2" eth2
doctor
expect_grep "$T/d.out" "chosen GID: index 80: RoCE v2, IPv4-mapped"
expect_grep "$T/d.out" "GID table \(81 non-zero, the first shown\)"
echo "ok: an 81-entry GID table read whole, index 80 chosen"

# 13. Many devices: sorted as mlx5_2 before mlx5_10, and those past the limit counted.
healthy
for i in $(seq 1 99); do mkdir -p "$S/class/infiniband/mlx5_$i"; done
doctor
conclusion 0 "1 usable port; first: mlx5_0 port 1 ACTIVE, RoCE v2, usable"
expect_grep "$T/d.out" "^\(36 more devices not examined"
[ "$(grep -nE '^mlx5_(2|10)$' "$T/d.out" | head -n 1 | cut -d: -f2)" = mlx5_2 ] || fail "mlx5_10 listed before mlx5_2"

# 14. No link layer file (or an unknown one): not taken for InfiniBand.
healthy
rm "$S/class/infiniband/mlx5_0/ports/1/link_layer"
doctor
conclusion 1 "no usable port; mlx5_0 port 1 ACTIVE \(LinkUp\): not usable: its link layer is not one the tools know"

# 15. An Intel E810 (ice) whose RDMA device irdma needs librdma's irdma provider.
fresh
pci 0000:17:00.0 0x8086 0x020000 ice
ibdev irdma0 0000:17:00.0 0
node 0
port irdma0 1 "4: ACTIVE" "5: LinkUp" Ethernet 0x0
gid irdma0 1 0 0000:0000:0000:0000:0000:ffff:0a00:0007 "RoCE v2" ens1
doctor
conclusion 1 "no usable port; irdma0: provider layer: no userspace provider for irdma0 \(driver ice\)"
provider irdma
doctor
conclusion 0 "1 usable port; first: irdma0 port 1 ACTIVE, RoCE v2, usable"

# 16. A VF passed to a VM (vfio-pci) is not an RDMA device that went missing.
fresh
pci 0000:3b:00.2 0x15b3 0x020000 vfio-pci
doctor
conclusion 1 "no RDMA device: .*class/infiniband is absent"

# 17. JSON stays valid JSON whatever the tree's paths hold.
healthy
weird=$T/tree/$'dev\xff"\\'
mv "$D" "$weird"
D=$weird
doctor --json
python3 -m json.tool "$T/d.out" >/dev/null || fail "the JSON is not valid for a root with a non-UTF-8 byte, a quote and a backslash"
echo "ok: valid JSON for a root path with 0xff, a quote and a backslash"

# Bad input: exit 2, one line.
expect_usage "$DR" "invalid value '/nonexistent' for --sysfs-root \(allowed: an existing directory\)" --sysfs-root /nonexistent
expect_usage "$DR" "unexpected argument 'server' \(a peer is named with --peer HOST\)" server
# The two-node triage's options: one role at a time, each option where it means something.
expect_usage "$DR" "--peer with --serve: one side asks, the other serves" --peer a --serve
expect_usage "$DR" "--json with --serve: the asking side \(--peer\) writes the document" --serve --json
expect_usage "$DR" "--ib-dev, --duration, --port, --oob-timeout, --bind and --auth-key are for --peer or --serve" -d mlx5_0
expect_usage "$DR" "--ib-dev, --duration, --port, --oob-timeout, --bind and --auth-key are for --peer or --serve" -D 3
expect_usage "$DR" "invalid value '--serve' for --peer \(allowed: the host name or address" --peer --serve
expect_usage "$DR" "--bind with --peer: it is where --serve listens" --peer a --bind 127.0.0.1
expect_usage "$DR" "invalid value '10\.9\.9\.9' for --bind: no interface of this host has that address" --serve --bind 10.9.9.9 -p 1
expect_usage "$DR" "invalid value '0' for --duration" --peer a -D 0
expect_usage "$DR" "invalid value '31' for --duration" --peer a -D 31
expect_usage "$DR" "invalid value '65533' for --port \(allowed: 1..65532 with --serve" --serve -p 65533
expect_usage "$DR" "--perftest is for --serve, and --perftest-iters for --perftest" --perftest
expect_usage "$DR" "--perftest is for --serve, and --perftest-iters for --perftest" --serve --perftest-iters 5
expect_usage "$DR" "unknown option '--bogus'" --bogus
expect_usage "$DR" "invalid value 'bogus' for --gid-range \(allowed: a CIDR" --gid-range bogus
NCCL_IB_HCA=mlx5_0:x expect_usage "$DR" "invalid value 'mlx5_0:x' for NCCL_IB_HCA" 

# The live host.
timeout 20 "$DR" >"$T/live.out" 2>&1
rc=$?
if [ ! -d /sys/class/infiniband ]; then
	expect_rc "rdma_doctor on this host (no RDMA)" "$rc" 1
	expect_grep "$T/live.out" "^conclusion: no RDMA device: /sys/class/infiniband is absent"
	echo "live: $(grep '^conclusion:' "$T/live.out")"
	timeout 20 "$DR" --json >"$T/d.out" 2>"$T/live.err"
	json 'assert d["live"] and d["devices"] == [] and d["rxe_module"]["present"] in (True, False) and d["rxe_module"]["text"] in d["conclusion"], d'
else
	echo "live: this host has RDMA devices (exit $rc): $(grep '^conclusion:' "$T/live.out")"
fi
# Automatic NUMA balancing, read from this host's /proc (its hinting faults land in timed loops).
nb=$(cat /proc/sys/kernel/numa_balancing 2>/dev/null)
if [ -n "$nb" ]; then
	timeout 20 "$DR" --json >"$T/d.out" 2>"$T/live.err"
	json "n = d['numa_balancing']; assert n['mode'] == $nb and n['verdict'] == ('ok' if $nb == 0 else 'warn'), n"
	expect_grep "$T/live.out" "^automatic NUMA balancing: $([ "$nb" = 0 ] && echo off || echo on) \\(kernel.numa_balancing=$nb\\)"
fi
pass "rdma_doctor names the broken layer in every fabricated tree"
