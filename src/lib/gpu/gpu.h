/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The gpu room's face: the one header other rooms and the tools include.
 * Owns: GPU memory for the RDMA tools: the CUDA driver API loaded at run time (cuda),
 * allocation and the write-order and flush plan (gpumem), dma-buf export (dmabuf), mlx5
 * Data Direct (datadirect).
 *
 * Uses: base, host.
 */
#ifndef RB_GPU_FACE_H
#define RB_GPU_FACE_H

#include "cuda.h"
#include "datadirect.h"
#include "dmabuf.h"
#include "gpumem.h"

#endif
