#!/bin/bash
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
# result KEY FILE: a field of the document's first result row.
result() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[2]))["results"][0][sys.argv[1]])' "$1" "$2"
}

# Both sides in GPU memory, every payload checked; the server in perftest's spelling.
start_server "$BW" --use_cuda=0 --json "$T/srv.json"
run_client "$BW" --use-cuda -s 64,64K,1M -n 100 -q 2 --verify --json "$T/cli.json"
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

# Each layer's failure, named, exit 2, before the peer is contacted.
B=(-d "$RB_DEV_PEER" --oob-timeout 1 127.0.0.1)
expect_usage "$BW" "NIC $RB_DEV_PEER does not support dma-buf registration \(EOPNOTSUPP\): use --use-cuda" \
	--use-cuda-dmabuf "${B[@]}"
RB_STANDIN_CUDA_DMABUF=0 expect_usage "$BW" "GPU 0 \(0000:E0:00.0\) does not support dma-buf" \
	--use_cuda=0 --use_cuda_dmabuf "${B[@]}"
LD_LIBRARY_PATH=$STANDIN/old expect_usage "$BW" "libcuda.so.1 has no cuMemGetHandleForAddressRange" \
	--use_cuda_dmabuf --use_cuda=0 "${B[@]}"
RB_STANDIN_CUDA_GPUS=2 expect_usage "$BW" "GPU 3 does not exist \(2 GPUs\)" --use-cuda=3 "${B[@]}"
RB_STANDIN_CUDA_GPUS=2 expect_usage "$BW" "no GPU at PCI bus id '0000:e9:00.0' \(2 GPUs here\)" \
	--use_cuda_bus_id=0000:e9:00.0 "${B[@]}"
RB_STANDIN_CUDA_FAIL=cuMemAlloc_v2 expect_usage "$BW" "cannot allocate [0-9]+ bytes on GPU 0: CUDA_ERROR_OUT_OF_MEMORY" \
	--use-cuda "${B[@]}"
RB_STANDIN_CUDA_FAIL=cuInit expect_usage "$BW" "cuInit failed: CUDA_ERROR_NO_DEVICE" --use-cuda "${B[@]}"
RB_STANDIN_CUDA_NOPEER=1 expect_usage "$BW" "ibv_reg_mr on GPU memory failed .*nvidia_peermem not loaded" \
	--use-cuda "${B[@]}"
expect_usage "$BW" "-I 64 with --mem cuda: inline data is read by the CPU" --use-cuda -I 64 "${B[@]}"
if ldconfig -p | grep -q 'libcuda\.so\.1 '; then
	echo "skip: this host has a real libcuda.so.1"
else
	LD_LIBRARY_PATH=/nonexistent expect_usage "$BW" "libcuda.so.1 not found" --use-cuda "${B[@]}"
fi

# The GPU by PCI address.
RB_STANDIN_CUDA_GPUS=2 pair_json "$BW" --use_cuda_bus_id=0000:E1:00.0 -s 4K -n 50 --verify
expect_rc "--use_cuda_bus_id" "$CRC" 0
[ "$(meta gpu_index "$T/cli.json")" = 1 ] || fail "--use_cuda_bus_id 0000:E1:00.0 is not GPU 1"
pass "GPU memory through the stand-in driver: verified data, registration times, every layer's error named"
