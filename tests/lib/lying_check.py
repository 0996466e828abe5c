#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""lying_check.py LABEL SERVER_JSON SERVER_RC CLIENT_JSON CLIENT_RC MITM_OUT: after a run
with a man in the middle rewriting one figure (oob_mitm.py lie:...), no side exits 0
with a complete document whose row carries a figure more than 2x the other side's for
the same quantity. A side that completed must have a peer that completed too (the
closing agreement), and both rows are compared figure by figure. Prints one line:
what each side did."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "lib"))
from rbdoc import number, read  # noqa: E402

label, srv_json, srv_rc, cli_json, cli_rc, mitm_out = sys.argv[1:7]
rewrote = open(mitm_out).read().strip().splitlines()
# Figures both rows take from one source (the sender's count, a side's CPU, the senders'
# kernel), and the rates where one row is the peer's own (rc_write_bw's receiver,
# measured_by "peer"); each side's own clock differs by scheduling, more than 2x on a
# busy host in a step of a few ms, so rates from two clocks are not compared.
FIGURES = ["msgs", "bytes", "cpu_client_pct", "cpu_server_pct", "tcp_retrans", "tcp_rtt_us", "tcp_cwnd"]
RATES = ["bw_avg_gbps", "bw_peak_gbps", "msg_rate_mpps"]


def side(path, rc):
    try:
        d = read(path)
    except Exception:  # no document (a run refused before it began): nothing reported
        return None, int(rc)
    return (d if d.complete and int(rc) == 0 else None), int(rc)


srv, src = side(srv_json, srv_rc)
cli, crc = side(cli_json, cli_rc)
if srv or cli:
    assert srv and cli, f"{label}: one side completed alone (server rc {src}, client rc {crc})"
    assert len(srv.rows) == len(cli.rows), (label, len(srv.rows), len(cli.rows))
    for a, b in zip(srv.rows, cli.rows):
        same_clock = "peer" in (a.get("measured_by"), b.get("measured_by"))
        for k in FIGURES + (RATES if same_clock else []):
            x, y = number(a.get(k)), number(b.get(k))
            if x is None or y is None or max(x, y) < 1e-9:
                continue
            assert max(x, y) <= 2 * min(x, y) + 1e-9, f"{label}: {k} is {x} on the server, {y} on the client"
print(f"{label}: {'rewrote' if rewrote else 'nothing to rewrite'}; server rc {src}"
      f"{' complete' if srv else ''}, client rc {crc}{' complete' if cli else ''}")
