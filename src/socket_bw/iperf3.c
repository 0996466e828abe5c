/* SPDX-License-Identifier: BSD-2-Clause */
/* iperf3's command lines for socket_bw: its words translated or refused before parsing. */
#include "iperf3.h"

#include "bw.h"
#include "data.h"
#include "pp.h"

#include "measure/measure.h"
#include "base/base.h"
#include "host/host.h"
#include "oob/oob.h"
#include "rb_config.h"
#include "report/report.h"
#include "xfer.h"
#include "fabric/fabric.h"
#include "run/run.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---------------------------------------------------------------- iperf3's command lines */

/*
 * iperf3's options socket_bw has none of (none is a letter of its own), and what to do
 * instead: a command line written for iperf3 learns it from the error. NULL: nothing.
 */
static const struct {
	char letter;
	const char *name, *hint;
} iperf3_only[] = {
    {'u', "udp", "socket_bw measures TCP only"},
    {'f', "format", "every row is in Gb/s (bw_avg_gbps); --output bandwidth prints one number a row"},
    {'O', "omit",
     "each size's clock starts after a barrier, buffers and threads ready; a longer -D dilutes slow start"},
    {'C', "congestion", "the kernel's default is used, named in each row's tcp_cc"},
    {'M', "set-mss", NULL},
    {'T', "title", NULL},
    {'F', "file", NULL},
    {'A', "affinity", "pin the process with taskset(1) or numactl(8)"},
    {'B', NULL, "use --bind ADDR (server) or --ifname NAME (the data sockets' interface)"},
    {'d', "debug", "use -v"},
    {'I', "pidfile", NULL},
    {'4', "version4", "use --family 4"},
    {'6', "version6", "use --family 6"},
    {'S', "tos", NULL},
    {'L', "flowlabel", NULL},
    {0, "server", "a server is socket_bw without SERVER"},
    {0, "daemon", "run it under nohup(1) or a service manager; --persist serves one client after another"},
    {0, "bitrate", "socket_bw always sends as fast as it can"},
    {0, "bandwidth", "socket_bw always sends as fast as it can"},
    {0, "bytes", "-n counts messages of -s SIZE here: -n BYTES/SIZE"},
    {0, "logfile", "use --csv FILE or --json FILE (messages go to stderr)"},
    {0, "get-server-output", "the client's rows carry the server's CPU and, with -R, its TCP figures"},
    {0, "connect-timeout", "use --oob-timeout SEC"},
    {0, "username", "use --auth-key FILE"},
    {0, "cport", NULL},
};

/* The word iperf3's -b takes: a rate such as 10G, 100M/100 or 0 (not an address). */
static bool looks_like_rate(const char *w)
{
	size_t n = strspn(w, "0123456789.");
	const char *dot = strchr(w, '.');

	if (!n || (dot && strchr(dot + 1, '.')))
		return false;
	w += n;
	if (*w && strchr("KMGTkmgt", *w))
		w++;
	if (*w == '/' && strspn(w + 1, "0123456789"))
		w += 1 + strspn(w + 1, "0123456789");
	return !*w;
}

/* An iperf3 option word that is none of socket_bw's: the hint, said; false when it is not one. */
static bool iperf3_unknown(const char *w)
{
	for (size_t i = 0; i < sizeof(iperf3_only) / sizeof(iperf3_only[0]); i++) {
		const char *name = iperf3_only[i].name, *hint = iperf3_only[i].hint;
		size_t len = name ? strlen(name) : 0;
		bool hit = w[1] == '-'
		               ? name && !strncmp(w + 2, name, len) && (!w[2 + len] || w[2 + len] == '=')
		               : iperf3_only[i].letter && w[1] == iperf3_only[i].letter;

		/* A letter's value may follow it in the word (-fm): the letter is the option. */
		if (hit) {
			rb_usage_err("unknown option '%.*s' (iperf3's; %s)",
			             w[1] == '-' ? (int)strcspn(w, "=") : 2, w,
			             hint ? hint : "socket_bw has no such thing");
			return true;
		}
	}
	return false;
}

/*
 * iperf3's command lines, before the options are parsed: -c HOST becomes the SERVER
 * argument where it stood; an iperf3 option socket_bw lacks, or a letter iperf3 uses
 * for something else (-s, -b, -D, -V, --json) used as iperf3 uses it, is said in
 * iperf3's words. Updates *argc. Returns -1 to go on, else the exit code.
 */
int sock_iperf3_words(int *argc, char **argv)
{
	int w = 1, n = *argc;
	bool version = false;

	for (int k = 1; k < n; k++) {
		char *a = argv[k], *next = k + 1 < n ? argv[k + 1] : NULL;
		/* No value follows: the end, or another option ("-" alone is stdout, a value). */
		bool bare = !next || (next[0] == '-' && next[1]);

		if (!strcmp(a, "--")) {
			while (k < n)
				argv[w++] = argv[k++];
			break;
		}
		if (a[0] != '-' || !a[1]) {
			argv[w++] = a;
			continue;
		}
		/* -c HOST, -cHOST, --client HOST, --client=HOST. */
		if (!strncmp(a, "-c", 2) || (!strncmp(a, "--client", 8) && (!a[8] || a[8] == '='))) {
			bool lng = a[1] == '-', eq = lng && a[8] == '=';
			char *host = lng ? a + 8 + eq : a + 2;

			if (!*host && !eq && !bare)
				host = argv[++k];
			if (!*host) {
				rb_usage_err("%s needs HOST, the server to connect to", a);
				return RB_EXIT_USAGE;
			}
			argv[w++] = host;
			continue;
		}
		if (!strcmp(a, "-b") && next && looks_like_rate(next)) {
			rb_usage_err(
			    "-b %s: -b is --bidirectional here and takes no value (iperf3's -b, a target "
			    "bitrate: socket_bw always sends as fast as it can)",
			    next);
			return RB_EXIT_USAGE;
		}
		if (!strcmp(a, "-s") && bare) {
			rb_usage_err(
			    "-s needs SIZES here: it is the message size (iperf3's -s, the server, is "
			    "socket_bw without a SERVER argument; drop -s)");
			return RB_EXIT_USAGE;
		}
		if (!strcmp(a, "-D") && bare) {
			rb_usage_err(
			    "-D needs SEC here: it is the duration of each size (iperf3's -D, a daemon: run "
			    "socket_bw under nohup(1); --persist serves one client after another)");
			return RB_EXIT_USAGE;
		}
		if (!strcmp(a, "--json") && bare) {
			rb_usage_err("--json needs FILE here ('-' = stdout; iperf3's --json is -J)");
			return RB_EXIT_USAGE;
		}
		if (iperf3_unknown(a))
			return RB_EXIT_USAGE;
		version |= !strcmp(a, "-V");
		argv[w++] = a;
	}
	argv[w] = NULL;
	*argc = w;
	/* Kept: -V prints the version and exits; with a run's options it was iperf3's -V. */
	if (version && w > 2)
		rb_warn("-V is --version here (iperf3's -V, more output, is -v): nothing runs");
	return -1;
}
