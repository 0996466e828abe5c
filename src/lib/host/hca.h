/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NCCL_IB_HCA-style device filters, as pure functions: "mlx5_0:1,mlx5_1" selects by
 * prefix (mlx5_1 also matches mlx5_10), a leading '=' makes every entry exact, a
 * leading '^' turns the list into an exclusion list ("^=mlx5_3"). ":PORT" limits an
 * entry to one port.
 */
#ifndef RB_HCA_H
#define RB_HCA_H

#include <stdbool.h>

#define RB_HCA_MAX  32
#define RB_HCA_NAME 64

struct rb_hca_filter {
	bool exclude, exact;
	unsigned n;
	struct {
		char name[RB_HCA_NAME];
		int port; /* 0 = any port */
	} e[RB_HCA_MAX];
};

/* Returns 0 or -EINVAL (empty entry, bad port, too many entries). NULL/"" = all. */
int rb_hca_filter_parse(const char *spec, struct rb_hca_filter *f);
bool rb_hca_filter_match(const struct rb_hca_filter *f, const char *dev, int port);

#endif
