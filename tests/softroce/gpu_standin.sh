#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# GPU memory without a GPU: the tools' whole CUDA path (libcuda.so.1 loaded at run
# time, GPU choice, allocation with SYNC_MEMOPS, registration, the copies --verify
# makes) over the real rxe pair, against the test suite's stand-in libcuda.so.1. The
# stand-in stores device bytes scrambled, so a payload that reached GPU memory other
# than through the copy calls fails --verify here, as it would crash on a GPU. Then
# each layer's failure: no driver, an old driver, no such GPU, allocation, no
# peer-memory client, a GPU or NIC without dma-buf.
source "$(dirname "$0")/lib.sh"
STANDIN=$RB_BUILD/tests/standin_cuda
export LD_LIBRARY_PATH=$STANDIN

# meta KEY FILE: a field of a document's meta block.
meta() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[2]))["meta"][sys.argv[1]])' "$1" "$2"
}
# flushed_before_copies TRACE WHAT: in the stand-in's trace, every copy out of GPU
# memory came right after a flush of its own (its line carries the flush count the
# copy saw: the count so far, and more than the copy before it saw).
flushed_before_copies() {
	awk '/^flush /{f++} /^dtoh /{n++; if (f == 0 || $4 != f || $4 == last) bad = NR; last = $4} END {exit !(n > 0 && !bad)}' "$1" ||
		fail "$2: a copy out of GPU memory without a flush before it: $(head -c 600 "$1" | tr '\n' ';')"
	echo "$2: $(grep -c '^dtoh' "$1") checking copies, each after a flush ($(grep -c '^flush' "$1") flushes)"
}
# result KEY FILE: a field of the document's first result row.
result() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[2]))["results"][0][sys.argv[1]])' "$1" "$2"
}

# Both sides in GPU memory, every payload checked; the server in perftest's spelling.
start_server "$BW" --use_cuda=0 --json "$T/srv.json"
run_client "$BW" --use-cuda -s 64,64K,1M -n 30 -q 2 --verify --json "$T/cli.json"
wait_server
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
expect_grep "$T/cli.out" "GPU            : 0 of 1, rdmabench stand-in GPU 0, PCI 0000:E0:00.0"
expect_grep "$T/cli.out" "stand-in libcuda.so.1"
# rxe takes no dma-buf MR: the probe (a registration with fd -1) says so before any registration.
expect_grep "$T/cli.out" "GPUDirect      : peermem not loaded, GPU dma-buf yes, GPU RDMA attribute yes, NIC dma-buf no"
expect_grep "$T/cli.out" "Source buffer  : [0-9]+ B GPU memory at 0x[0-9a-f]+ \(ibv_reg_mr, peermem\)"
expect_grep "$T/srv.out" "Target buffer  : [0-9]+ B GPU memory"
expect_grep "$T/cli.out" "GPU-NIC PCIe   : $RB_DEV_PEER has no PCI device in /sys/class/infiniband/$RB_DEV_PEER/device"
[ "$(meta mem "$T/cli.json")" = cuda ] || fail "the client's document does not say mem cuda"
[ "$(meta mem "$T/srv.json")" = cuda ] || fail "the server's document does not say mem cuda"
[ "$(meta cuda_standin "$T/cli.json")" = True ] || fail "the document hides the stand-in"
echo "rc_write_bw GPU to GPU, 64 B to 1 MiB over 2 QPs: every payload verified"

# The order (issue 28): the stand-in plays a GPU whose RDMA writes are not ordered
# (WRITES_ORDERING 0), so the receiver must flush before each copy that verifies, and
# its header and document say so. Its allocations start 256 bytes past a page
# (cuMemAlloc promises no more): the buffers the NIC sees start on the next page.
RB_STANDIN_CUDA_TRACE=$T/srv.trace RB_STANDIN_CUDA_UNALIGNED=256 start_server "$BW" --use-cuda --json "$T/srv.json"
RB_STANDIN_CUDA_UNALIGNED=256 run_client "$BW" --use-cuda -s 4K,64K -n 50 --verify
wait_server
expect_rc "client, ordering none" "$CRC" 0
expect_rc "server, ordering none" "$SRC" 0
flushed_before_copies "$T/srv.trace" "rc_write_bw receiver"
expect_grep "$T/srv.out" "GPU write order: WRITES_ORDERING none; flush cuFlushGPUDirectRDMAWrites before each check"
expect_grep "$T/srv.out" "Target buffer  : [0-9]+ B GPU memory at 0x[0-9a-f]*000 "
[ "$(meta gpu_flush "$T/srv.json")" = cuFlushGPUDirectRDMAWrites ] || fail "the server's document does not name the flush"
[ "$(meta gpu_rdma_writes_ordering "$T/srv.json")" = none ] || fail "the server's document does not say ordering none"
# Ordered for the owner: no flush at all, and the header says it is not needed.
RB_STANDIN_CUDA_ORDERING=100 RB_STANDIN_CUDA_TRACE=$T/own.trace start_server "$BW" --use-cuda
RB_STANDIN_CUDA_ORDERING=100 run_client "$BW" --use-cuda -s 4K -n 50 --verify
wait_server
expect_rc "server, ordering owner" "$SRC" 0
! grep -q '^flush' "$T/own.trace" || fail "ordering owner: flushed anyway"
grep -q '^dtoh' "$T/own.trace" || fail "ordering owner: the receiver made no checking copy"
expect_grep "$T/srv.out" "GPU write order: WRITES_ORDERING owner; flush not needed"
# A driver that cannot flush (FLUSH_WRITES_OPTIONS without HOST): the NIC flushes instead,
# a 1-byte RDMA READ of the region on a QP connected to itself before each checking copy,
# and the target region grants REMOTE_READ for it; rc_write_lat alike. The READs are
# counted by rxe, not by the tool: the server's device receives every packet the client's
# sends (retransmissions too) and, with the NIC's flush, two more per checking copy (the
# loopback READ request and its response); with the driver's flush, none more.
# nic_run OPTIONS_VALUE TRACE: the transfer, the server's rxe counters around it.
nic_run() {
	counters "$RB_DEV" "$T/c0"
	counters "$RB_DEV_PEER" "$T/p0"
	RB_STANDIN_CUDA_FLUSH_OPTIONS=$1 RB_STANDIN_CUDA_TRACE=$2 start_server "$BW" --use-cuda -v --json "$T/srv.json"
	RB_STANDIN_CUDA_FLUSH_OPTIONS=$1 run_client "$BW" --use-cuda -s 4K,64K -n 50 -q 2 --verify
	wait_server
	counters "$RB_DEV" "$T/c1"
	counters "$RB_DEV_PEER" "$T/p1"
	expect_rc "client, FLUSH_WRITES_OPTIONS $1" "$CRC" 0
	expect_rc "server, FLUSH_WRITES_OPTIONS $1" "$SRC" 0
	LOOP=$(($(counter_delta "$T/c0" "$T/c1" rcvd_pkts) - $(counter_delta "$T/p0" "$T/p1" sent_pkts)))
}
nic_run 1 "$T/drv.trace"
[ "$LOOP" -eq 0 ] || fail "rxe, the driver's flush: the server received $LOOP packets the client did not send"
grep -q '^flush' "$T/drv.trace" || fail "a driver that can flush: no cuFlushGPUDirectRDMAWrites"
nic_run 0 "$T/nic.trace"
expect_grep "$T/srv.out" "GPU write order: WRITES_ORDERING none; flush by the NIC \\(the driver cannot\\); a 1-byte RDMA READ through the NIC \\(a QP to itself\\) before each check"
expect_grep "$T/srv.out" "Target buffer  : .*REMOTE_READ"
[ "$(meta gpu_flush "$T/srv.json")" = nic_read ] || fail "the server's document does not name the NIC's flush"
! grep -q '^flush' "$T/nic.trace" || fail "driver cannot flush: cuFlushGPUDirectRDMAWrites called anyway"
copies=$(grep -c '^dtoh' "$T/nic.trace")
reads=$(grep -c 'flush READ of the target region at +[0-9]* complete' "$T/srv.err")
[ "$copies" -gt 0 ] && [ "$reads" -eq "$copies" ] || fail "driver cannot flush: $reads NIC flush READs logged for $copies checking copies"
[ "$LOOP" -eq $((2 * copies)) ] || fail "rxe, the NIC's flush: the server received $LOOP packets beyond the client's, expected $((2 * copies)) for $copies checking copies"
RB_STANDIN_CUDA_FLUSH_OPTIONS=0 start_server "$LAT" --use-cuda --write-with-imm -v
RB_STANDIN_CUDA_FLUSH_OPTIONS=0 RB_STANDIN_CUDA_TRACE=$T/nlat.trace run_client "$LAT" --use-cuda --write-with-imm -s 64 -n 40 --verify -v
wait_server
expect_rc "rc_write_lat client, driver cannot flush" "$CRC" 0
expect_rc "rc_write_lat server, driver cannot flush" "$SRC" 0
lcopies=$(grep -c '^dtoh' "$T/nlat.trace")
lreads=$(grep -c 'flush READ of the target region at +[0-9]* complete' "$T/cli.err")
[ "$lcopies" -gt 0 ] && [ "$lreads" -eq "$lcopies" ] || fail "rc_write_lat, driver cannot flush: $lreads NIC flush READs for $lcopies checking copies"
echo "driver cannot flush: the NIC's flush READ before each of $copies (rc_write_bw; rxe received $LOOP loopback packets) and $lcopies (rc_write_lat) checking copies"
# rc_write_lat: both sides check what arrives.
RB_STANDIN_CUDA_TRACE=$T/lsrv.trace start_server "$LAT" --use-cuda --write-with-imm
RB_STANDIN_CUDA_TRACE=$T/lcli.trace run_client "$LAT" --use-cuda --write-with-imm -s 64 -n 100 --verify
wait_server
expect_rc "rc_write_lat client, traced" "$CRC" 0
expect_rc "rc_write_lat server, traced" "$SRC" 0
flushed_before_copies "$T/lsrv.trace" "rc_write_lat server"
flushed_before_copies "$T/lcli.trace" "rc_write_lat client"
# fifo_pingpong: the flush READ completes before the check reads the message (-v logs both).
RB_STANDIN_CUDA_TRACE=$T/fsrv.trace start_server "$FP" --use-cuda -v
run_client "$FP" --use-cuda -v --window 1 -s 4K -n 50 --verify --flush
wait_server
expect_rc "fifo_pingpong client, --flush --verify" "$CRC" 0
expect_rc "fifo_pingpong server, --flush --verify" "$SRC" 0
for side in srv cli; do
	awk '!match($0, /message [0-9]+:/) {next} {k = substr($0, RSTART, RLENGTH)}
	     /flush READ complete/ {f[k] = 1} /payload checked/ {n++; if (!f[k]) bad = k}
	     END {exit !(n > 0 && !bad)}' "$T/$side.err" ||
		fail "fifo_pingpong $side: a payload was checked before its flush READ completed: $(grep -m 4 -E 'flush READ|payload checked' "$T/$side.err" | tr '\n' ';')"
done
flushed_before_copies "$T/fsrv.trace" "fifo_pingpong server"
echo "flush before every verifying copy: rc_write_bw, rc_write_lat, fifo_pingpong (READ flush and driver flush)"

# One side in GPU memory, the other in host memory: the run works; verified, it must
# FAIL, because the stand-in's device bytes are scrambled and only the copy calls
# translate. A side that wrote or read GPU memory with the CPU would pass here.
start_server "$BW"
run_client "$BW" --use_cuda 0 -s 4K -n 200 --write-with-imm
wait_server
expect_rc "GPU client, host server" "$CRC" 0
expect_rc "host server" "$SRC" 0
start_server "$BW"
run_client "$BW" --use_cuda 0 -s 4K -n 20 --verify
wait_server
expect_rc "GPU client, host server, verified (scrambled bytes must show)" "$CRC" 1
expect_grep "$T/srv.err" "verify: [0-9]+ message\(s\) of 4096-byte window 0 arrived wrong"
start_server "$BW" --use-cuda
run_client "$BW" -s 4K -n 20 --verify
wait_server
expect_rc "host client, GPU server, verified (the receiver's copy must translate)" "$SRC" 1
expect_grep "$T/srv.err" "verify: [0-9]+ message\(s\) of 4096-byte window 0 arrived wrong"
echo "mixed pairs: the bytes crossed through the copy calls on the GPU side (sender and receiver)"

# Latency: arrival must be a completion (the CPU cannot poll GPU memory).
pair "$LAT" --use-cuda --write-with-imm -s 8,4K -n 200 --verify
expect_rc "rc_write_lat client" "$CRC" 0
expect_rc "rc_write_lat server" "$SRC" 0
expect_grep "$T/cli.out" "GPU memory at 0x"
expect_usage "$LAT" "--mem cuda: the CPU cannot poll GPU memory for the last byte; add --write-with-imm" \
	--use-cuda 127.0.0.1
echo "rc_write_lat GPU to GPU, verified"

# fifo_pingpong: payloads in GPU memory, its FIFOs in host memory (the CPU polls them),
# the flush READ from a GPU receive buffer into host memory.
pair "$FP" --use-cuda --window 1 -s 64,4K -n 100 --verify --flush
expect_rc "fifo_pingpong ping-pong client" "$CRC" 0
expect_rc "fifo_pingpong ping-pong server" "$SRC" 0
pair "$FP" --use-cuda --window 8 --multi-recv 2 --qps-per-conn 2 --split-data-on-qps -s 64K -n 200 --verify
expect_rc "fifo_pingpong bandwidth client" "$CRC" 0
expect_rc "fifo_pingpong bandwidth server" "$SRC" 0
expect_grep "$T/cli.out" "GPU memory at 0x"
echo "fifo_pingpong GPU to GPU, ping-pong with --flush and 8-deep multi-recv bandwidth, verified"

# --reg-per-iter: the source MR made anew for every -t messages per QP, both times reported.
# regs MEM_ARGS...: a 512-message run at -t 128; sets n to its registrations.
regs() {
	pair_json "$BW" "$@" -s 64K -n 512 -t 128 --reg-per-iter
	expect_rc "--reg-per-iter $*" "$CRC" 0
	expect_rc "--reg-per-iter $* (server)" "$SRC" 0
	n=$(result registrations "$T/cli.json")
	python3 -c 'import sys; v = float(sys.argv[1]); assert v > 0, v' "$(result reg_us_p50 "$T/cli.json")" ||
		fail "reg_us_p50 is not a time"
	echo "--reg-per-iter $*: $n registrations, p50 $(result reg_us_p50 "$T/cli.json") us, dereg p50 $(result dereg_us_p50 "$T/cli.json") us"
}
regs --use-cuda
[ "$n" -eq 4 ] || fail "512 messages at -t 128 on GPU memory made $n registrations, expected 4"
regs
[ "$n" -eq 4 ] || fail "512 messages at -t 128 on host memory made $n registrations, expected 4"
expect_grep "$T/cli.out" "Reg p50\[us\]"

# The GPU by PCI address.
RB_STANDIN_CUDA_GPUS=2 pair_json "$BW" --use_cuda_bus_id=0000:E1:00.0 -s 4K -n 50 --verify
expect_rc "--use_cuda_bus_id" "$CRC" 0
[ "$(meta gpu_index "$T/cli.json")" = 1 ] || fail "--use_cuda_bus_id 0000:E1:00.0 is not GPU 1"
pass "GPU memory through the stand-in driver: verified data, the flush before every check, registration times"
