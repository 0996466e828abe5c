/* SPDX-License-Identifier: BSD-2-Clause */
#include "grid.h"

uint64_t rb_grid_next(uint64_t every, uint64_t to)
{
	return every ? (to / every + 1) * every : 0;
}
