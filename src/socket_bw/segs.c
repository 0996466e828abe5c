/* SPDX-License-Identifier: BSD-2-Clause */
/* tcpi_segs_in from the kernel's own struct tcp_info (segs.h): this file alone includes it. */
#include "segs.h"

#include <errno.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

int sock_segs_in(int fd, uint32_t *segs)
{
	struct tcp_info ti = {0};
	socklen_t len = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return -errno;
	if (len < offsetof(struct tcp_info, tcpi_segs_in) + sizeof(ti.tcpi_segs_in))
		return -ENOTSUP; /* a kernel before 4.2 */
	*segs = ti.tcpi_segs_in;
	return 0;
}
