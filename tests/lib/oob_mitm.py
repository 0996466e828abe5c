#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""oob_mitm.py LISTEN SERVER HEADERS READY MODE: a man in the middle of one tool's
control connection (socket_bw, rc_write_bw: any rdmabench tool). Listens on 127.0.0.1:LISTEN (touching READY once listening), takes
one client, connects it to 127.0.0.1:SERVER and forwards every frame both ways, parsed
(12-byte big-endian header: magic u32, version u16, type u16, length u32; payload).
The message numbers come from the headers that define them (HEADERS, colon-separated:
the library's wire.h, socket_bw's guard.h), never from a copy here. MODE:

  lie-done  the client's DONE frames say the step took 1 ns (elapsed_ns, the third u64)
  flip-done the client's first DONE has one bit flipped (the lowest of its byte count)
  garble-done the client's first DONE payload is random bytes of the same length
  lie:TYPE:FIELD:DIR
            every TYPE frame (DONE or TCPINFO) going DIR (c2s: client to server, s2c) has
            FIELD rewritten by a factor of 3 where a 2x check would pass it: DONE's msgs,
            bytes (x3, 1 when 0), elapsed (/3: a faster rate), peak, cpu (x3, 1 when 0 or NaN);
            TCPINFO's retrans (+2^25: the issue's one flipped bit), rtt (x1000), cwnd (x3)
  forge:TYPE:FIELD:DIR
            the same, and each closing agreement's chains of the figures (figures.h) and its
            MAC rewritten to match, as a relay that knows the (zero) key of a connection
            without --auth-key can: only what the receiver checks itself stops the lie, as
            for a lying peer
  srun:WHAT the client's SRUN frames (socket_bw --streams: u32 stream, u64 size, u32 count)
            rewritten: stream (an index past any stream), swap (stream 0's runs announced
            on stream 1 and the other way round), count (each run's count x3, at most 1024)
  srxd      the server's SRXDONE (what arrived on each stream) says one message more on stream 1
  hijack    when the server's DATAPORT passes, a third party first opens connections to
            that port (the fixed greeting socket_bw used to accept, garbage, nothing,
            half a greeting, a close), waits until the server has taken them, then lets
            DATAPORT through; the connections stay open until the run ends

One line per action on stdout ("rewrote DONE", "hijacked N"), for the test to check."""
import hashlib, hmac, os, re, socket, struct, sys, threading, time

listen_port, server_port, headers, ready, mode = sys.argv[1:6]


def msg_types(paths):
    """Every NAME_MSG_X = N of the headers: {'DONE': 5, 'DATAPORT': 11, ...}."""
    types = {}
    for path in paths.split(":"):
        for name, val in re.findall(r"\b[A-Z]+_MSG_(\w+)\s*=\s*(\d+)", open(path).read()):
            types[name] = int(val)
    return types


TYPES = msg_types(headers)
DONE, DATAPORT = TYPES["DONE"], TYPES["DATAPORT"]
hold = []  # the hijacker's sockets, open until the end
done_hit = []  # flip-done, garble-done: the first DONE only
lock = threading.RLock()


def say(line):
    with lock:
        print(line, flush=True)


def read_exact(s, n):
    buf = b""
    while len(buf) < n:
        d = s.recv(n - len(buf))
        if not d:
            return None
        buf += d
    return buf


def hijack(port):
    """Connections a stranger opens on the data port before the real client knows it."""
    old = b"RB\x00\x00"  # socket_bw's fixed greeting before the token: stream c2s 0
    tries = [
        old + b"\x00" * 14 + b"\x00\x00" + os.urandom(65536),  # claims c2s 0 either way, then payload
        os.urandom(18),  # garbage
        b"\x00" * 18,  # an all-zero "token"
        old[:2],  # half a greeting, then silence
        b"",  # nothing at all, held open
        None,  # connect and close at once
    ]
    for data in tries:
        c = socket.create_connection(("127.0.0.1", port), timeout=10)
        if data is None:
            c.close()
            continue
        if data:
            try:
                c.sendall(data)
            except OSError:
                pass  # the server refused it already: as it should
        hold.append(c)
    say(f"hijacked {len(tries)}")
    time.sleep(0.5)  # the server accepts and refuses them before ours arrive


# Each figure's offset and kind in its payload (stepend.c, guard.c's sock_tcp_encode).
FIELDS = {
    "DONE": {"msgs": (0, "Q"), "bytes": (8, "Q"), "elapsed": (16, "Q"), "peak": (24, "d"), "cpu": (32, "d")},
    "TCPINFO": {"retrans": (4, "Q"), "rtt": (12, "d"), "cwnd": (20, "Q")},
}


def lie(payload, field):
    """The payload with one figure rewritten (lie:TYPE:FIELD:DIR)."""
    typ_name = mode.split(":")[1]
    off, kind = FIELDS[typ_name][field]
    (v,) = struct.unpack_from(">" + kind, payload, off)
    if field == "elapsed":
        v = max(v // 3, 1)
    elif field == "retrans":
        v += 1 << 25
    elif field == "rtt":
        v = v * 1000 if v > 0 else 1e6
    elif kind == "d":
        v = v * 3 if v == v and v > 0 else 1.0
    else:
        v = v * 3 if v else 1
    return payload[:off] + struct.pack(">" + kind, v) + payload[off + struct.calcsize(kind):]


FIGURE_TYPES = {"DONE", "LATSTATS", "RXDONE", "TCPINFO"}  # wire.c's and guard.c's figures: true
chains = {"c2s": [bytes(32), bytes(32)], "s2c": [bytes(32), bytes(32)]}  # per direction: as sent, as passed on
agrees = []  # the directions whose AGREE of this step passed


def link(prev, typ, payload):
    return hmac.new(bytes(32), prev + struct.pack(">HI", typ, len(payload)) + payload, hashlib.sha256).digest()


def pump(src, dst, name):
    try:
        while True:
            hdr = read_exact(src, 12)
            if hdr is None:
                break
            magic, ver, typ, ln = struct.unpack(">IHHI", hdr)
            payload = read_exact(src, ln) if ln else b""
            if payload is None:
                break
            if mode == "lie-done" and name == "c2s" and typ == DONE and ln >= 24:
                payload = payload[:16] + struct.pack(">Q", 1) + payload[24:]
                say("rewrote DONE")
            if mode in ("flip-done", "garble-done") and name == "c2s" and typ == DONE and ln >= 16 and not done_hit:
                done_hit.append(1)
                if mode == "flip-done":
                    payload = payload[:15] + bytes([payload[15] ^ 1]) + payload[16:]
                else:
                    payload = os.urandom(ln)
                say("flipped DONE" if mode == "flip-done" else "garbled DONE")
            sent = payload
            if mode.startswith(("lie:", "forge:")):
                _, tname, field, direction = mode.split(":")
                if name == direction and typ == TYPES[tname] and ln >= FIELDS[tname][field][0] + 8:
                    payload = lie(payload, field)
                    say(f"rewrote {tname} {field}")
            if mode.startswith("forge:"):
                other = "s2c" if name == "c2s" else "c2s"
                if typ in {TYPES[t] for t in FIGURE_TYPES if t in TYPES}:
                    with lock:
                        chains[name] = [link(chains[name][0], typ, sent), link(chains[name][1], typ, payload)]
                if typ == TYPES["AGREE"] and ln >= 96:
                    with lock:  # its chains: what its sender sent (this way) and took (the other way)
                        forged = payload[:-96] + chains[name][1] + chains[other][0]
                        if forged != payload[:-32]:
                            say("forged echo")
                        payload = forged + hmac.new(bytes(32), b"AGREE" + forged, hashlib.sha256).digest()
                        agrees.append(name)
                        if len(agrees) == 2:  # both verdicts passed: both sides start their chains anew
                            agrees.clear()
                            for d in chains:
                                chains[d] = [bytes(32), bytes(32)]
            if mode.startswith("srun:") and name == "c2s" and typ == TYPES.get("SRUN") and ln == 16:
                stream, size, count = struct.unpack(">IQI", payload)
                what = mode.split(":")[1]
                if what == "stream":
                    stream = 1000
                elif what == "swap" and stream < 2:
                    stream ^= 1
                elif what == "count" and count:
                    count = min(count * 3, 1024)
                payload = struct.pack(">IQI", stream, size, count)
                say(f"rewrote SRUN {what}")
            if mode == "srxd" and name == "s2c" and typ == TYPES.get("SRXDONE") and ln >= 12:
                (first,) = struct.unpack_from(">Q", payload, 4)
                payload = payload[:4] + struct.pack(">Q", first + 1) + payload[12:]
                say("rewrote SRXDONE")
            if mode == "hijack" and name == "s2c" and typ == DATAPORT and ln >= 8:
                hijack(struct.unpack(">Q", payload[:8])[0])
            dst.sendall(hdr + payload)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", int(listen_port)))
ls.listen(1)
ls.settimeout(60)
open(ready, "w").close()
cli, _ = ls.accept()
srv = socket.create_connection(("127.0.0.1", int(server_port)), timeout=60)
for s in (cli, srv):
    s.settimeout(120)
threads = [
    threading.Thread(target=pump, args=(cli, srv, "c2s")),
    threading.Thread(target=pump, args=(srv, cli, "s2c")),
]
for t in threads:
    t.start()
for t in threads:
    t.join()
for c in hold:
    c.close()
