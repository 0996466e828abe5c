#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Each layer of the CUDA path failing, through the test suite's stand-in libcuda.so.1:
# named, exit 2, before the peer is contacted: a NIC or GPU without dma-buf, an old
# driver, no such GPU, allocation, cuInit, no peer-memory client, a GPU without
# GPUDirect RDMA (that cause named, not peermem), options that need another memory
# kind, no libcuda at all. (gpu_standin moves the data; this is its arguments and
# environment, which the sanitizer guest need not re-run.)
source "$(dirname "$0")/lib.sh"
STANDIN=$RB_BUILD/tests/standin_cuda
export LD_LIBRARY_PATH=$STANDIN

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
# A GPU that says it has no GPUDirect RDMA: that is the cause named, not peermem.
RB_STANDIN_CUDA_GDR=0 RB_STANDIN_CUDA_NOPEER=1 expect_usage "$BW" \
	"ibv_reg_mr on GPU memory failed .*GPU_DIRECT_RDMA_SUPPORTED is 0" --use-cuda "${B[@]}"
! grep -q "modprobe nvidia_peermem" "$T/o.err" 2>/dev/null || fail "GDR 0: the hint still blames peermem"
expect_usage "$BW" "--dmabuf-mapping is for GPU memory exported as a dma-buf" --use-cuda --dmabuf-mapping pcie "${B[@]}"
expect_usage "$BW" "-I 64 with --mem cuda: inline data is read by the CPU" --use-cuda -I 64 "${B[@]}"
if ldconfig -p | grep -q 'libcuda\.so\.1 '; then
	echo "skip: this host has a real libcuda.so.1"
else
	LD_LIBRARY_PATH=/nonexistent expect_usage "$BW" "libcuda.so.1 not found" --use-cuda "${B[@]}"
fi
pass "every layer of the CUDA path fails with its cause named"
