/* SPDX-License-Identifier: BSD-2-Clause */
/* iperf3's command lines for socket_bw (iperf3.c). */
#ifndef RB_SOCKET_BW_IPERF3_H
#define RB_SOCKET_BW_IPERF3_H

/*
 * Before parsing: iperf3's words rewritten in place (argc updated), or refused with
 * what to use instead. -1 to go on, else the exit code (a refusal, -V).
 */
int sock_iperf3_words(int *argc, char **argv);

#endif
