#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# probe_order.sh GPU_PROBE STANDIN_DIR STANDIN_OLD_DIR: gpu_probe against the stand-in
# libcuda.so.1, no RDMA device needed. The flush comes before every copy that reads
# GPU memory back where the GPU says the NIC's writes are not ordered (both answers of
# GPU_DIRECT_RDMA_WRITES_ORDERING, and a driver without the flush); the dma-buf export
# of an allocation that does not start on a page stays inside it; the PCIe mapping
# type is asked for and, where the driver refuses it, the default one is taken.
set -u
PROBE=$1 STANDIN=$2 OLD=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# probe NAME ARGS... (environment before): runs gpu_probe with a fresh trace, T/NAME.{out,trace}.
probe() {
	local name=$1 rc
	shift
	RB_STANDIN_CUDA_TRACE=$T/$name.trace "$PROBE" "$@" >"$T/$name.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { cat "$T/$name.out"; fail "gpu_probe $* exited $rc"; }
	touch "$T/$name.trace"
}

# Not ordered (the stand-in's default): a flush, then the copy that checks.
LD_LIBRARY_PATH=$STANDIN probe none 0
grep -q "WRITES_ORDERING none; flush cuFlushGPUDirectRDMAWrites before each check" "$T/none.out" ||
	fail "ordering none: the header does not say the flush is made: $(grep 'write order' "$T/none.out")"
awk '/^flush /{f++} /^dtoh /{n++; if (f == 0 || $4 != f || $4 == last) bad = 1; last = $4} END {exit !(n > 0 && !bad)}' "$T/none.trace" ||
	fail "ordering none: a copy out of GPU memory came without a flush before it: $(tr '\n' ';' <"$T/none.trace")"
echo "ordering none: $(grep -c '^flush' "$T/none.trace") flush(es), each copy after one: $(tr '\n' ';' <"$T/none.trace")"

# Ordered for the owner: no flush, and the header says why.
RB_STANDIN_CUDA_ORDERING=100 LD_LIBRARY_PATH=$STANDIN probe owner 0
grep -q "WRITES_ORDERING owner; flush not needed" "$T/owner.out" || fail "ordering owner: $(grep 'write order' "$T/owner.out")"
! grep -q '^flush' "$T/owner.trace" || fail "ordering owner: flushed anyway"
grep -q '^dtoh .* 0$' "$T/owner.trace" || fail "ordering owner: no copy traced"
echo "ordering owner: no flush, the copy straight away"

# A driver without cuFlushGPUDirectRDMAWrites: named as unable, not silently skipped.
LD_LIBRARY_PATH=$OLD probe old 0
grep -q "flush needed but the driver cannot" "$T/old.out" || fail "old driver: $(grep 'write order' "$T/old.out")"

# cuMemAlloc 256 bytes past a page: the export starts at the next page and stays inside
# (the stand-in refuses anything else, as the driver does); PCIe mapping refused -> default.
RB_STANDIN_CUDA_UNALIGNED=256 LD_LIBRARY_PATH=$STANDIN probe unaligned 0 pcie
grep -q "dma-buf export : default mapping: the driver refused the PCIe mapping type" "$T/unaligned.out" ||
	fail "unaligned: $(grep -E 'dma-buf' "$T/unaligned.out")"
[ "$(grep -c '^export ' "$T/unaligned.trace")" -eq 2 ] && grep -q '^export 0x[0-9a-f]*000 67108864 1$' "$T/unaligned.trace" &&
	grep -q '^export 0x[0-9a-f]*000 67108864 0$' "$T/unaligned.trace" ||
	fail "unaligned: the exports were not a page-aligned 64 MiB, PCIe then default: $(grep export "$T/unaligned.trace")"
grep -q "allocation at 0x[0-9a-f]*100 " "$T/unaligned.out" || fail "unaligned: the allocation was not unaligned"
echo "unaligned allocation: $(grep '^dma-buf: exported' "$T/unaligned.out")"

# A driver that takes the PCIe mapping type.
RB_STANDIN_CUDA_PCIE_MAPPING=1 LD_LIBRARY_PATH=$STANDIN probe pcie 0 pcie
grep -q "dma-buf export : PCIe mapping type (--dmabuf-mapping)" "$T/pcie.out" || fail "pcie: $(grep 'dma-buf export' "$T/pcie.out")"
[ "$(grep -c '^export ' "$T/pcie.trace")" -eq 1 ] || fail "pcie: exported more than once"
echo "PASS: flush before the checking copy, aligned dma-buf ranges, PCIe mapping with its fallback"
