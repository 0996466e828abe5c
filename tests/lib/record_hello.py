#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""record_hello.py PORT OUT READY [FROM TO]: listen on PORT (touching READY once
listening), take one connection, and write its first frame (a client's HELLO) to OUT,
with the bytes FROM replaced by TO when given (a HELLO of another tool)."""
import socket, struct, sys

port, out, ready = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port))
ls.listen(1)
ls.settimeout(120)
open(ready, "w").close()
c, _ = ls.accept()
c.settimeout(30)
buf = b""
while len(buf) < 12 or len(buf) < 12 + struct.unpack(">I", buf[8:12])[0]:
    d = c.recv(65536)
    if not d:
        break
    buf += d
frame = buf[:12 + struct.unpack(">I", buf[8:12])[0]]
if len(sys.argv) > 5:
    frame = frame.replace(sys.argv[4].encode(), sys.argv[5].encode())
open(out, "wb").write(frame)
