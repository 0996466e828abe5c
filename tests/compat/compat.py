#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""tests/compat: what the tools print, exit with and write, normalized, against goldens.

    compat.py capture [--only cli|socket|rxe] BUILD OUTDIR
    compat.py check   [--only cli|socket|rxe] BUILD
    compat.py check   [--only cli|socket|rxe] --against OLD_BUILD NEW_BUILD

capture runs every case of cases.txt with BUILD/src/<tool> and writes OUTDIR/<case>.txt:
the exit code, stdout, stderr and every file the case wrote, normalized (README.md).
check captures into a scratch directory and compares with golden/ (or with a capture of
OLD_BUILD), a unified diff per differing case, then 'compat: N cases, M differ'.
The rxe cases run only where tools/softroce set RB_DEV and RB_DEV_PEER: elsewhere they
are left out (with --only rxe: a SKIP line and exit 77, as tests/softroce/lib.sh).
The standard library only.
"""
import argparse
import concurrent.futures
import difflib
import ipaddress
import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases.txt")
GOLDEN = os.path.join(HERE, "golden")
TOOLS = ("rc_write_bw", "rc_write_lat", "fifo_pingpong", "socket_bw", "rdma_doctor")
SUITES = {"cli": ("cli",), "socket": ("net", "pair"), "rxe": ("rxe",)}
VERBS_TOOLS = ("rc_write_bw", "rc_write_lat", "fifo_pingpong")

CLI_TIMEOUT = 15  # one process that needs no peer: all of them end in well under a second
NET_TIMEOUT = 20  # bounded by the case's own --oob-timeout
LISTEN_TIMEOUT = 15  # a pair's server, until it listens
CLIENT_TIMEOUT = 60
SERVER_TIMEOUT = 20  # a pair's server, once its client is done
# An rxe pair under emulation (tools/softroce's TCG guest): a tool's start alone is a
# fraction of a second there, a device's set-up more.
RXE_LISTEN_TIMEOUT = 30
RXE_CLIENT_TIMEOUT = 90
RXE_SERVER_TIMEOUT = 30
RXE_SKIP = ("SKIP: no rxe device (RB_DEV unset): run the rxe cases through tools/softroce, e.g. "
            "./tools/softroce --topology pair -- tests/compat/check --only rxe BUILD")


# --------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------
class Case:
    def __init__(self, kind, name, rhs, lineno):
        self.kind, self.name, self.rhs, self.lineno = kind, name, rhs.strip(), lineno
        if kind == "pair":
            if "||" in self.rhs:
                s, c = self.rhs.split("||", 1)
                self.server = split_env(shlex.split(s))
                self.client = split_env(shlex.split(c))
            else:
                env, args = split_env(shlex.split(self.rhs))
                self.server = (env, args)
                self.client = (dict(env), args + ["127.0.0.1"])
        elif kind == "rxe":
            env, words = split_env(shlex.split(self.rhs.split("||", 1)[0]))
            if not words or words[0] not in VERBS_TOOLS:
                raise SystemExit(f"cases.txt:{lineno}: {name}: an rxe case starts with one of {', '.join(VERBS_TOOLS)}")
            self.tool = words[0]
            if "||" in self.rhs:
                self.server = (env, words[1:])
                self.client = (dict(env), shlex.split(self.rhs.split("||", 1)[1]))
            else:
                self.server = (env, words[1:])
                self.client = (dict(env), words[1:] + ["127.0.0.1"])
        else:
            env, words = split_env(shlex.split(self.rhs))
            if not words or words[0] not in TOOLS:
                raise SystemExit(f"cases.txt:{lineno}: {name}: the command must start with one of {', '.join(TOOLS)}")
            self.env, self.tool, self.args = env, words[0], words[1:]

    @property
    def suite(self):
        return {"cli": "cli", "rxe": "rxe"}.get(self.kind, "socket")

    def all_args(self):
        if self.kind in ("pair", "rxe"):
            return self.server[1] + self.client[1]
        return self.args


def split_env(words):
    """Leading 'env VAR=VAL ...' (or bare VAR=VAL words): the variables and the rest."""
    env = {}
    i = 0
    if words and words[0] == "env":
        i = 1
    while i < len(words) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[i]):
        k, v = words[i].split("=", 1)
        env[k] = v
        i += 1
    return env, words[i:]


def load_cases(path=CASES):
    cases, seen = [], set()
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            m = re.match(r"^(?:(pair|net|rxe)\s+)?([A-Za-z0-9_.-]+)\s*\|(.*)$", line)
            if not m:
                raise SystemExit(f"{path}:{n}: not a case: {line}")
            kind, name, rhs = m.group(1) or "cli", m.group(2), m.group(3)
            if name in seen:
                raise SystemExit(f"{path}:{n}: case {name} named twice")
            seen.add(name)
            cases.append(Case(kind, name, rhs, n))
    return cases


def rxe_devices():
    """tools/softroce's devices (server end, client end), or None outside it."""
    dev = os.environ.get("RB_DEV")
    if not dev:
        return None
    return dev, os.environ.get("RB_DEV_PEER") or dev


def select(cases, only):
    """The cases to run: one suite's, or all; the rxe cases only where there is a device."""
    if only:
        cases = [c for c in cases if c.kind in SUITES[only]]
    if not rxe_devices():
        cases = [c for c in cases if c.kind != "rxe"]
    return cases


# --------------------------------------------------------------------------------------
# Fixtures: fabricated host trees for rdma_doctor (as tests/native/doctor_trees.sh makes
# them), auth-key files, a named pipe.
# --------------------------------------------------------------------------------------
class Tree:
    BUS = "devices/pci0000:00/0000:00:01.0"

    def __init__(self, base):
        self.S, self.D, self.V = (os.path.join(base, x) for x in ("sys", "dev", "prov"))
        for d in (os.path.join(self.S, "class"), os.path.join(self.S, "bus/pci/devices"), self.D, self.V):
            os.makedirs(d, exist_ok=True)

    def put(self, rel, text, root=None):
        p = os.path.join(root or self.S, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text + "\n")

    def pci(self, bdf, vendor, cls, driver=None):
        d = f"{self.BUS}/{bdf}"
        for k, v in (("vendor", vendor), ("device", "0x1017"), ("class", cls), ("numa_node", "0")):
            self.put(f"{d}/{k}", v)
        os.symlink(f"../../../{d}", os.path.join(self.S, "bus/pci/devices", bdf))
        if driver:
            os.makedirs(os.path.join(self.S, "bus/pci/drivers", driver), exist_ok=True)
            os.symlink(f"../../../../bus/pci/drivers/{driver}", os.path.join(self.S, d, "driver"))

    def ibdev(self, name, bdf, n):
        os.makedirs(os.path.join(self.S, "class/infiniband"), exist_ok=True)
        os.makedirs(os.path.join(self.S, f"{self.BUS}/{bdf}/infiniband/{name}"), exist_ok=True)
        os.symlink(f"../../{self.BUS}/{bdf}/infiniband/{name}", os.path.join(self.S, "class/infiniband", name))
        os.symlink("../..", os.path.join(self.S, f"{self.BUS}/{bdf}/infiniband/{name}/device"))
        self.put(f"class/infiniband_verbs/uverbs{n}/ibdev", name)

    def port(self, dev, n, state, phys, link, lid):
        p = f"class/infiniband/{dev}/ports/{n}"
        self.put(f"{p}/state", state)
        self.put(f"{p}/phys_state", phys)
        self.put(f"{p}/link_layer", link)
        self.put(f"{p}/rate", "100 Gb/sec (4X EDR)")
        self.put(f"{p}/lid", lid)

    def gid(self, dev, port, idx, gid, typ, ndev):
        p = f"class/infiniband/{dev}/ports/{port}"
        self.put(f"{p}/gids/{idx}", gid)
        self.put(f"{p}/gid_attrs/types/{idx}", typ)
        self.put(f"{p}/gid_attrs/ndevs/{idx}", ndev)

    def node(self, n):
        self.put(f"infiniband/uverbs{n}", "", self.D)

    def provider(self, name):
        self.put(f"lib{name}-rdmav34.so", "", self.V)

    def link(self, bdf, cur_gts, cur_w, max_gts, max_w):
        d = f"{self.BUS}/{bdf}"
        self.put(f"{d}/current_link_speed", f"{cur_gts} GT/s PCIe")
        self.put(f"{d}/current_link_width", cur_w)
        self.put(f"{d}/max_link_speed", f"{max_gts} GT/s PCIe")
        self.put(f"{d}/max_link_width", max_w)

    def healthy(self):
        self.pci("0000:3b:00.0", "0x15b3", "0x020000", "mlx5_core")
        self.ibdev("mlx5_0", "0000:3b:00.0", 0)
        self.node(0)
        self.provider("mlx5")
        self.port("mlx5_0", 1, "4: ACTIVE", "5: LinkUp", "Ethernet", "0x0")
        self.gid("mlx5_0", 1, 0, "fe80:0000:0000:0000:0e42:a1ff:fe00:0001", "IB/RoCE v1", "eth2")
        self.gid("mlx5_0", 1, 1, "fe80:0000:0000:0000:0e42:a1ff:fe00:0001", "RoCE v2", "eth2")
        self.gid("mlx5_0", 1, 2, "0000:0000:0000:0000:0000:ffff:0a00:0005", "IB/RoCE v1", "eth2")
        self.gid("mlx5_0", 1, 3, "0000:0000:0000:0000:0000:ffff:0a00:0005", "RoCE v2", "eth2")
        self.gid("mlx5_0", 1, 4, "fd00:0000:0000:0000:0000:0000:0000:0005", "RoCE v2", "eth2")
        self.put("class/net/eth2/mtu", "4200")


def make_trees(root):
    def tree(name, build):
        t = Tree(os.path.join(root, name))
        build(t)

    tree("empty", lambda t: None)
    tree("pci_only", lambda t: t.pci("0000:3b:00.0", "0x15b3", "0x020000", "mlx5_core"))
    tree("healthy", Tree.healthy)

    def no_dev(t):
        t.healthy()
        shutil.rmtree(os.path.join(t.D, "infiniband"))

    def no_provider(t):
        t.healthy()
        for f in os.listdir(t.V):
            os.remove(os.path.join(t.V, f))

    def no_uverbs(t):
        t.healthy()
        shutil.rmtree(os.path.join(t.S, "class/infiniband_verbs"))

    def port_down(t):
        t.healthy()
        t.put("class/infiniband/mlx5_0/ports/1/state", "1: DOWN")
        t.put("class/infiniband/mlx5_0/ports/1/phys_state", "3: Disabled")

    def ib_two(t):
        port_down(t)
        t.port("mlx5_0", 2, "4: ACTIVE", "5: LinkUp", "InfiniBand", "0x12")
        t.gid("mlx5_0", 2, 0, "fe80:0000:0000:0000:0002:c903:0000:0001", "IB/RoCE v1", "")
        t.pci("0000:3c:00.0", "0x10de", "0x030200", "nvidia")
        t.put("module/nvidia_peermem/version", "1.0")
        t.link("0000:3b:00.0", "8.0", "8", "32.0", "16")
        t.link("0000:3c:00.0", "16.0", "16", "16.0", "16")

    def evidence(t):
        t.healthy()
        t.pci("0000:3c:00.0", "0x10de", "0x030200", "nvidia")
        t.put(f"{Tree.BUS}/0000:3b:00.0/iommu_group/type", "DMA-FQ")
        t.put("class/net/eth2/ecn/roce_np/enable/3", "1")
        t.put("class/net/eth2/ecn/roce_np/enable/4", "0")
        t.put("class/net/eth2/ecn/roce_rp/enable/3", "1")
        t.put("devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave")
        t.put("devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance")
        cfg = bytearray(512)
        cfg[0x100:0x108] = struct.pack("<IHH", 0x0001000D, 0x005F, 0x001D)
        with open(os.path.join(t.S, Tree.BUS, "config"), "wb") as f:
            f.write(bytes(cfg))
        t.put("kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "8")
        t.put("kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "6")

    for name, fn in (("no_dev", no_dev), ("no_provider", no_provider), ("no_uverbs", no_uverbs),
                     ("port_down", port_down), ("ib_two", ib_two), ("evidence", evidence)):
        tree(name, fn)


def make_fixtures(root):
    os.makedirs(root)
    for name, mode in (("key600", 0o600), ("key644", 0o644)):
        p = os.path.join(root, name)
        with open(p, "w") as f:
            f.write("compat-test-secret-0123456789\n")
        os.chmod(p, mode)
    os.mkfifo(os.path.join(root, "fifo"))


# --------------------------------------------------------------------------------------
# Ports: base 14000 + random, as tests/native/lib.sh; free ones only, never a power of two
# or a number the tools print for themselves (default ports), so masking a port cannot
# mask a figure.
# --------------------------------------------------------------------------------------
class Ports:
    def __init__(self):
        # A sanitizer build's test setup moves the base (RB_PORT_BASE=22000), so that
        # tools/test can run both builds' suites at once without sharing a port.
        self.base = int(os.environ.get("RB_PORT_BASE") or 14000)
        self.p = self.base + random.randrange(9000)
        self.lock = threading.Lock()

    @staticmethod
    def free(p):
        for fam, addr in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
            s = socket.socket(fam, socket.SOCK_STREAM)
            try:
                s.bind((addr, p))
            except OSError as e:
                if fam == socket.AF_INET6 and e.errno == 97:  # no IPv6 here
                    continue
                return False
            finally:
                s.close()
        return True

    def next(self):
        with self.lock:
            while True:
                self.p += 1
                if self.p > self.base + 9999:
                    self.p = self.base + 1
                if self.p & (self.p - 1) == 0 or self.p in (18515, 18520, 18521, 18522, 18523):
                    continue
                if self.free(self.p):
                    return self.p


def listening(port):
    want = ":%04X" % port
    for f in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(f) as fh:
                next(fh)
                for line in fh:
                    x = line.split()
                    if x[1].endswith(want) and x[3] == "0A":
                        return True
        except OSError:
            pass
    return False


# --------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------
def base_env(home):
    """A clean environment (no NCCL_*, RB_* or locale of the caller's), the sanitizers' settings kept."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "LC_ALL": "C", "TZ": "UTC", "TMPDIR": home}
    for k, v in os.environ.items():
        if re.fullmatch(r"[A-Z]+SAN_OPTIONS", k):
            env[k] = v
    return env


def expand(words, ctx, port):
    out = []
    for w in words:
        m = re.fullmatch(r"\{TREE:([a-z_0-9]+)\}", w)
        if m:
            t = os.path.join(ctx["root"], "trees", m.group(1))
            if not os.path.isdir(t):
                raise SystemExit(f"no tree {m.group(1)}")
            out += ["--sysfs-root", t + "/sys", "--dev-root", t + "/dev", "--provider-dir", t + "/prov"]
            continue
        w = w.replace("{FIX}", os.path.join(ctx["root"], "fix"))
        if "{PORT}" in w:
            w = w.replace("{PORT}", str(port))
        out.append(w)
    return out


LIVE = set()  # the process groups started and not yet reaped: ended if capture is stopped
LIVE_LOCK = threading.Lock()
SCRATCH = []  # scratch directories, removed if capture is stopped


def spawn(argv, **kw):
    with LIVE_LOCK:
        p = subprocess.Popen(argv, start_new_session=True, **kw)
        LIVE.add(p)
    return p


def reaped(p):
    with LIVE_LOCK:
        LIVE.discard(p)


def on_signal(sig, frame):
    """meson's timeout (SIGTERM) or ^C: no server or client of ours outlives the check."""
    with LIVE_LOCK:
        for p in list(LIVE):
            kill_group(p)
    for d in SCRATCH:
        shutil.rmtree(d, ignore_errors=True)
    sys.stderr.write(f"compat: stopped by signal {sig}; every process it started was killed\n")
    os._exit(128 + sig)


def kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def exit_text(rc):
    if rc is None:
        return "not run"
    if isinstance(rc, str):
        return rc
    if rc < 0:
        try:
            return f"signal {-rc} ({signal.Signals(-rc).name})"
        except ValueError:
            return f"signal {-rc}"
    return str(rc)


def run_one(case, ctx):
    """A cli or net case: (exit, stdout, stderr, {file: bytes})."""
    cwd = os.path.join(ctx["root"], "cases", case.name)
    os.makedirs(cwd)
    port = ctx["ports"].next() if "{PORT}" in case.rhs else None
    if port:
        ctx["case_ports"][case.name] = [port]
    argv = [os.path.join(ctx["build"], "src", case.tool)] + expand(case.args, ctx, port)
    env = base_env(cwd)
    env.update(case.env)
    p = spawn(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=CLI_TIMEOUT if case.kind == "cli" else NET_TIMEOUT)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        kill_group(p)
        out, err = p.communicate()
        rc = "timeout (killed)"
    reaped(p)
    return {"": (rc, out, err, collect(cwd))}


def collect(d):
    files = {}
    for base, dirs, names in os.walk(d):
        dirs.sort()
        for n in sorted(names):
            p = os.path.join(base, n)
            rel = os.path.relpath(p, d)
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    files[rel] = f.read()
            else:
                files[rel] = b"(not a regular file)\n"
    return files


def run_pair(case, ctx):
    """A server and, once it listens, its client: socket_bw over loopback, or (rxe) a verbs
    tool with the server on RB_DEV and the client on RB_DEV_PEER."""
    port = ctx["ports"].next()
    ctx["case_ports"][case.name] = [port]
    if case.kind == "rxe":
        tool = os.path.join(ctx["build"], "src", case.tool)
        dev, peer = rxe_devices()
        pre = {"server": [tool, "-d", dev, "-p", str(port)], "client": [tool, "-d", peer, "-p", str(port)]}
        listen_to, client_to, server_to = RXE_LISTEN_TIMEOUT, RXE_CLIENT_TIMEOUT, RXE_SERVER_TIMEOUT
    else:
        sb = os.path.join(ctx["build"], "src", "socket_bw")
        pre = {"server": [sb, "-p", str(port)], "client": [sb, "-p", str(port)]}
        listen_to, client_to, server_to = LISTEN_TIMEOUT, CLIENT_TIMEOUT, SERVER_TIMEOUT
    sides = {}
    procs = {}
    dirs = {}
    for side in ("server", "client"):
        dirs[side] = os.path.join(ctx["root"], "cases", case.name, side)
        os.makedirs(dirs[side])

    def start(side, env_args):
        env = base_env(dirs[side])
        env.update(env_args[0])
        argv = pre[side] + expand(env_args[1], ctx, port)
        out = open(os.path.join(ctx["root"], "cases", case.name, side + ".stdout"), "wb")
        err = open(os.path.join(ctx["root"], "cases", case.name, side + ".stderr"), "wb")
        p = spawn(argv, cwd=dirs[side], env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        out.close()
        err.close()
        return p

    srv = procs["server"] = start("server", case.server)
    end = time.monotonic() + listen_to
    while not listening(port) and srv.poll() is None and time.monotonic() < end:
        time.sleep(0.01)
    cli_rc = None
    if srv.poll() is None and listening(port):
        cli = start("client", case.client)
        try:
            cli_rc = cli.wait(timeout=client_to)
        except subprocess.TimeoutExpired:
            kill_group(cli)
            cli.wait()
            cli_rc = "timeout (killed)"
        reaped(cli)
    elif srv.poll() is None:
        cli_rc = "not run: the server did not listen within %d s" % listen_to
    else:
        cli_rc = "not run: the server exited first"
    try:
        srv_rc = srv.wait(timeout=server_to)
    except subprocess.TimeoutExpired:
        kill_group(srv)
        srv.wait()
        srv_rc = "timeout (killed)"
    reaped(srv)
    for side, rc in (("server", srv_rc), ("client", cli_rc)):
        base = os.path.join(ctx["root"], "cases", case.name, side)
        streams = []
        for s in ("stdout", "stderr"):
            try:
                with open(base + "." + s, "rb") as f:
                    streams.append(f.read())
            except OSError:
                streams.append(b"")
        sides[side] = (rc, streams[0], streams[1], collect(dirs[side]))
    return sides


# --------------------------------------------------------------------------------------
# Normalization
# --------------------------------------------------------------------------------------
HOSTY = {"date", "epoch_s", "host", "peer_host", "kernel", "git_rev"}
MEASURED = re.compile(
    r"^(elapsed_s|tps|tcp_retrans|tcp_rtt_us|tcp_cwnd|tcp_cc|unstable|t_start_s|t_end_s|latency_us|answered_ms)$"
    r"|^(bw|msg_rate|lat|cpu)_|_(gbps|mpps)(_|$)|_pct$"
    # perftest's --out_json and iperf3's -J layouts (their keys, measured)
    r"|^(BW_peak|BW_average|MsgRate|t_min|t_max|t_typical|t_avg|t_stdev|percentile_99(\.9)?)$"
    r"|^(bits_per_second|seconds|start|end|retransmits|host_total|remote_total|sender_tcp_congestion)$")
COUNTS = {"iterations", "msgs", "bytes"}
ISO_DATE = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b")
TIMED = re.compile(r"^(-D|-t|--duration|--time|--run-infinitely|--run_infinitely)(=.*|\d.*)?$")
# rxe cases (README.md): what a verbs run measures beyond the names above (times in us,
# set-up phases, port counters, wake-ups, the load's messages), and what it counts only in
# a timed run or an interval's row.
RXE_MEASURED = re.compile(r"(^|_)us(_|$)|^setup_\w+_s$|^ctr_|_wakeups$|^load_msgs$")
RXE_COUNTS = {"bytes_tx", "bytes_rx", "registrations", "idle_iterations"}
HEX = re.compile(r"\b0x[0-9a-fA-F]+\b")
IPV6 = re.compile(r"(?<![\w:.%])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])")


def gid_out(m):
    try:
        ipaddress.IPv6Address(m.group(0))
    except ValueError:
        return m.group(0)
    return "<GID>"


def rxe_masks():
    """tools/softroce's device and interface names, and what they read as in the goldens."""
    out = []
    for var, mask in (("RB_DEV", "<DEV>"), ("RB_DEV_PEER", "<DEV_PEER>"), ("RB_NETDEV", "<NETDEV>"),
                      ("RB_NETDEV_PEER", "<NETDEV_PEER>")):
        v = os.environ.get(var)
        if v and v not in (n for n, _ in out):
            out.append((v, mask))
    return sorted(out, key=lambda x: len(x[0]), reverse=True)


class Ctx:
    def __init__(self, root, build, ports, timed, measured, rxe=None):
        self.root, self.build, self.ports, self.timed, self.measured = root, build, ports, timed, measured
        self.rxe = rxe  # an rxe case: [(device or interface name, its mask)]
        self.paths = sorted({root, os.path.realpath(root)}, key=len, reverse=True)
        self.builds = sorted({build, os.path.realpath(build)}, key=len, reverse=True)

    def paths_out(self, s):
        for b in self.builds:
            s = s.replace(b, "<BUILD>")
        for r in self.paths:
            s = s.replace(r, "<TMP>")
        return s

    def text_out(self, s):
        """Substitutions for any text, a JSON string or a CSV cell included."""
        s = self.paths_out(s)
        s = re.sub(r"\brevision [^\s,;)]+", "revision <REV>", s)
        s = ISO_DATE.sub("<DATE>", s)
        for p in self.ports:
            s = re.sub(r"(?<![\d.])%d(?![\d])" % p, "<PORT>", s)
        s = re.sub(r"\b127\.0\.0\.1:\d+", "127.0.0.1:<PORT>", s)
        s = re.sub(r"\(available: [^)]*\)", "(available: <INTERFACES>)", s)
        if self.rxe is not None:
            for name, mask in self.rxe:
                s = re.sub(r"(?<![\w])%s(?![\w])" % re.escape(name), mask, s)
            s = IPV6.sub(gid_out, s)  # GIDs: from the interfaces' MAC addresses, new each boot
            s = HEX.sub("0x<HEX>", s)  # QPNs, PSNs: the device's and random
        return s


def masked_key(ctx, path, key, value, row):
    """Whether a document's value at path (its key, and its results row if any) is masked."""
    if key in HOSTY or MEASURED.search(key or ""):
        return True
    if any(p == "memlock" for p in path):  # this host's limit and capabilities (root or not)
        return True
    if ctx.rxe is not None and RXE_MEASURED.search(key or ""):
        return True
    if row is not None:
        interval_row = row.get("interval") not in (None, "total")
        if key in COUNTS and (ctx.timed or interval_row):
            return True
        if ctx.rxe is not None and key in RXE_COUNTS and (ctx.timed or interval_row):
            return True
        if key == "interval" and interval_row:
            return True
    return False


def mask_token(tok):
    if tok == "null":
        return tok
    if tok.startswith('"'):
        return '"<str>"'
    if tok in ("true", "false"):
        return "<bool>"
    return "<num>"


JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[{}\[\],:]|\s+')


def norm_json(text, ctx):
    """Masks values in place, the document's layout and key order kept as printed."""
    if ctx.measured:  # a sweep's model fit: there only when the figures fit it
        text = MODEL_JSON.sub("", text)
    doc = json.loads(text)
    out, stack, pos = [], [], 0
    # stack entries: [kind, key or index, expecting_key]
    while pos < len(text):
        m = JSON_TOKEN.match(text, pos)
        if not m:
            return None
        tok = m.group(0)
        pos = m.end()
        if tok.isspace():
            out.append(tok)
            continue
        top = stack[-1] if stack else None
        if tok in "{[":
            stack.append(["obj" if tok == "{" else "arr", 0 if tok == "[" else None, tok == "{"])
            out.append(tok)
        elif tok in "}]":
            stack.pop()
            out.append(tok)
        elif tok == ",":
            if top[0] == "arr":
                top[1] += 1
            else:
                top[2] = True
            out.append(tok)
        elif tok == ":":
            top[2] = False
            out.append(tok)
        elif top and top[0] == "obj" and top[2]:
            top[1] = json.loads(tok)
            out.append(tok)
        else:
            path = [e[1] for e in stack]
            row = None
            if len(path) >= 3 and path[0] == "results" and isinstance(path[1], int):
                try:
                    row = doc["results"][path[1]]
                except (KeyError, IndexError, TypeError):
                    row = None
                if len(path) > 3:
                    row = None
            key = path[-1] if path and isinstance(path[-1], str) else (
                next((p for p in reversed(path) if isinstance(p, str)), None))
            if masked_key(ctx, path[:-1], key, tok, row):
                out.append(mask_token(tok))
            elif tok.startswith('"'):
                s = json.loads(tok)
                t = ctx.text_out(s)
                out.append(tok if t == s else json.dumps(t))
            elif ctx.ports and tok.isdigit() and int(tok) in ctx.ports:
                out.append("<PORT>")
            else:
                out.append(tok)
    if ctx.rxe is not None or ctx.timed:
        return collapse_json_intervals("".join(out))
    return "".join(out)


def collapse_json_intervals(text):
    """rxe, and any timed run: a run of interval rows (objects of "results", their "interval"
    masked) as one. How many intervals a timed size has depends on the emulator's or the
    host's timing (a step that ends late has one more), not on the tool."""
    lines = text.split("\n")
    out, i, prev = [], 0, None
    while i < len(lines):
        if lines[i] != "    {":
            out.append(lines[i])
            prev = None
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("    }"):
            j += 1
        block = lines[i:j]
        interval = '      "interval": "<str>",' in block or '      "interval": "<str>"' in block
        if interval and block == prev and j < len(lines):
            out[-1] = lines[j]  # the run's last row ends it (its comma, or none)
        else:
            out += lines[i:j + 1]
        prev = block if interval else None
        i = j + 1
    return "\n".join(out)


CSV_CELL = re.compile(r'"(?:[^"]|"")*"|[^,]*')


def csv_cells(line):
    cells, pos = [], 0
    while True:
        m = CSV_CELL.match(line, pos)
        cells.append(m.group(0))
        pos = m.end()
        if pos >= len(line) or line[pos] != ",":
            break
        pos += 1
    return cells


def csv_value(cell):
    return cell[1:-1].replace('""', '"') if cell.startswith('"') else cell


def norm_csv(text, ctx):
    lines = text.split("\n")
    if not lines or not lines[0]:
        return ctx.text_out(text)
    header = [csv_value(c) for c in csv_cells(lines[0])]
    out = [ctx.text_out(lines[0])]
    for line in lines[1:]:
        if not line:
            out.append(line)
            continue
        cells = csv_cells(line)
        row = {h: csv_value(c) for h, c in zip(header, cells)}
        if "interval" in row and row["interval"] == "":
            row["interval"] = None
        res = []
        for i, c in enumerate(cells):
            key = header[i] if i < len(header) else None
            if c != "" and key is not None and masked_key(ctx, [], key, c, row):
                res.append("<M>")
            else:
                res.append(ctx.text_out(c))
        line = ",".join(res)
        # rxe: a run of interval rows as one (collapse_json_intervals)
        if (ctx.rxe is not None or ctx.timed) and row.get("interval") not in (None, "total") and out[-1] == line:
            continue
        out.append(line)
    return "\n".join(out)


TABLE_HEAD = re.compile(r"^\s*(stream\s+)?#bytes\s")
LABEL = re.compile(r"\S+(?: \S+)*")
BARE_NUMBER = re.compile(r"^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$")
UNIT_FIGURE = re.compile(r"(?<![\w.])\d+(\.\d+)?(?= (Gb/s|Gb/sec|MB/sec|Mpps|us|usec)\b)")
TCP_LINE = re.compile(r"^  TCP \(.*\): \d+ segments retransmitted")
MODEL_LINE = re.compile(r"^ Model T = t_lat \+ N / B_eff\b")
MODEL_JSON = re.compile(r',\s*"model": \{[^{}]*\}')


# rxe cases: lines that come and go with the emulator's timing, not with the tool: the port
# counters that moved under a row (rxe retries now and then), the clock not judged because
# this host stalled, the progress line of a size that lasted 10 s.
RXE_DROP = re.compile(r"^  fabric \(this side's port counters\): |stalled [\d.]+ ms for a CPU meanwhile"
                      r"|^(rc_write_bw|rc_write_lat|fifo_pingpong): size \d+ B( \(\d+/\d+\))?: \d+ s")
HIST_HEAD = re.compile(r"^ histogram \((\d+) samples, log2 buckets\):$")
HIST_BUCKET = re.compile(r"^  \[ *[\d.]+, *[\d.]+\) us ")
WAKEUPS = re.compile(r"^ Wake-ups +: ")


def table_row_iv(labels, line, timed):
    """A row of the table as kept (None: not a row), and whether it is an interval's."""
    toks = line.split()
    if len(toks) != len(labels) or not re.fullmatch(r"\d+|sum", toks[0]):
        return None, False
    names = [lab for lab, _ in labels]
    interval_row = "interval[s]" in names and toks[names.index("interval[s]")] != "total"
    out = ""
    for (lab, end), tok in zip(labels, toks):
        keep = lab in ("#bytes", "stream") or (lab == "#iterations" and not timed and not interval_row) or \
            (lab == "interval[s]" and tok == "total") or tok == "-"
        t = tok if keep else "*"
        out += " " * max(1, end - len(out) - len(t)) + t
    return out, interval_row


def table_row(labels, line, timed):
    return table_row_iv(labels, line, timed)[0]


def norm_text(text, ctx):
    text = ctx.text_out(text)
    lines, out, labels = text.split("\n"), [], None
    rxe = ctx.rxe is not None
    last_iv, in_hist = None, False
    for line in lines:
        if line.startswith("RLIMIT_MEMLOCK "):
            line = "RLIMIT_MEMLOCK <this host's>"
        if rxe:
            if RXE_DROP.search(line):
                continue
            # --histogram: which buckets hold samples, and how many, is measured
            m = HIST_HEAD.match(line)
            if m:
                out.append(" histogram (%s samples, log2 buckets):" % ("*" if ctx.timed else m.group(1)))
                out.append("  <its buckets>")
                in_hist = True
                continue
            if in_hist and HIST_BUCKET.match(line):
                continue
            in_hist = False
            if WAKEUPS.match(line):  # --event: how often this side woke, and for nothing
                line = re.sub(r"\d+(?= (on this side|empty|late)\b)", "*", line)
        if ctx.measured:
            # printed only when a segment was retransmitted, under a row: dropped before the
            # table sees it, so the next row is still a row
            if TCP_LINE.match(line):
                continue
            if TABLE_HEAD.match(line):
                labels = [(m.group(0), m.end()) for m in LABEL.finditer(line)]
                out.append(line)
                last_iv = None
                continue
            if labels is not None:
                r, interval_row = table_row_iv(labels, line, ctx.timed)
                if r is not None:
                    # rxe: a run of interval rows as one (collapse_json_intervals)
                    if (rxe or ctx.timed) and interval_row and r == last_iv:
                        continue
                    last_iv = r if interval_row else None
                    out.append(r)
                    continue
                # rxe: lines under a row (a histogram, ...) do not end the table; its rule does
                if not rxe or not line.strip() or line.startswith("---"):
                    labels = None
            if MODEL_LINE.match(line):  # the sweep's fit, that it does not fit, or no line: measured
                continue
            if BARE_NUMBER.match(line):  # --output: one figure a line
                line = "*"
            line = UNIT_FIGURE.sub("*", line)
        out.append(line)
    return "\n".join(out)


def normalize(data, name, ctx):
    text = data.decode("utf-8", errors="replace")
    s = text.strip()
    if s.startswith("{"):
        try:
            r = norm_json(text, ctx)
            if r is not None:
                return r
        except ValueError:
            pass
    first = text.split("\n", 1)[0]
    if name.endswith(".csv") or re.fullmatch(r"[a-z_][a-z0-9_]*(,[a-z0-9_]+){2,}", first):
        return norm_csv(text, ctx)
    return norm_text(text, ctx)


def section(title, data, name, ctx):
    if not data:
        return [f"--- {title}: empty"]
    body = normalize(data, name, ctx)
    lines = [f"--- {title}"] + body.split("\n")
    if body.endswith("\n"):
        lines.pop()
    else:
        lines.append("(no newline at end)")
    return lines


def render(case, result, ctx):
    lines = [f"case: {case.name}", f"kind: {case.kind}"]
    if case.kind == "pair":
        env, args = case.server
        lines.append("server: " + shlex.join([f"{k}={v}" for k, v in env.items()] + ["socket_bw", "-p", "PORT"] + args))
        env, args = case.client
        lines.append("client: " + shlex.join([f"{k}={v}" for k, v in env.items()] + ["socket_bw", "-p", "PORT"] + args))
    elif case.kind == "rxe":
        for side, dev in (("server", "DEV"), ("client", "DEV_PEER")):
            env, args = getattr(case, side)
            lines.append(f"{side}: " + shlex.join([f"{k}={v}" for k, v in env.items()] +
                                                  [case.tool, "-d", dev, "-p", "PORT"] + args))
    else:
        lines.append("command: " + case.rhs)
    for side, (rc, out, err, files) in result.items():
        pre = side + " " if side else ""
        lines.append(f"{pre}exit: {ctx.text_out(exit_text(rc))}")
        lines += section(pre + "stdout", out, "stdout", ctx)
        lines += section(pre + "stderr", err, "stderr", ctx)
        for fn, data in files.items():
            lines += section(f"{pre}file {fn}", data, fn, ctx)
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------
# capture, check
# --------------------------------------------------------------------------------------
def capture(build, outdir, only=None, jobs=4, quiet=False):
    build = os.path.abspath(build)
    for t in TOOLS:
        if not os.access(os.path.join(build, "src", t), os.X_OK):
            raise SystemExit(f"capture: no {t} under {build}/src (build it first)")
    every = load_cases()
    cases = select(every, only)
    root = tempfile.mkdtemp(prefix="rbcompat.")
    SCRATCH.append(root)
    try:
        if any(c.kind != "rxe" for c in cases):
            make_trees(os.path.join(root, "trees"))
            make_fixtures(os.path.join(root, "fix"))
        ctx = {"root": root, "build": build, "ports": Ports(), "case_ports": {}}
        os.makedirs(outdir, exist_ok=True)
        if not only:  # stale files go; an rxe case's stays where it did not run (no device here)
            names = {c.name + ".txt" for c in every}
            runs = {c.name + ".txt" for c in cases}
            for f in os.listdir(outdir):
                if f.endswith(".txt") and (f not in names or f in runs):
                    os.remove(os.path.join(outdir, f))
        masks = rxe_masks()

        def one(c):
            r = run_pair(c, ctx) if c.kind in ("pair", "rxe") else run_one(c, ctx)
            timed = any(TIMED.match(a) for a in c.all_args())
            nc = Ctx(root, build, ctx["case_ports"].get(c.name, []), timed, c.kind != "cli",
                     masks if c.kind == "rxe" else None)
            text = render(c, r, nc)
            with open(os.path.join(outdir, c.name + ".txt"), "w") as f:
                f.write(text)
            return c.name

        clis = [c for c in cases if c.kind == "cli"]
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
            for _ in ex.map(one, clis):
                pass
        for c in cases:  # the others one at a time: a pair has the host (or the device) to itself
            if c.kind != "cli":
                t0 = time.monotonic()
                one(c)
                if not quiet:
                    print(f"capture: {c.name} ({time.monotonic() - t0:.1f} s)", file=sys.stderr)
        return cases
    finally:
        shutil.rmtree(root, ignore_errors=True)


def compare(cases, want_dir, got_dir, want_label, got_label):
    differ = 0
    for c in cases:
        fn = c.name + ".txt"
        try:
            with open(os.path.join(want_dir, fn)) as f:
                want = f.read().splitlines(keepends=True)
        except OSError:
            want = None
        with open(os.path.join(got_dir, fn)) as f:
            got = f.read().splitlines(keepends=True)
        if want is None:
            differ += 1
            print(f"=== {c.name}: no golden ({os.path.join(want_dir, fn)}); record it with tests/compat/capture")
            continue
        if want != got:
            differ += 1
            print(f"=== {c.name} differs (cases.txt:{c.lineno})")
            sys.stdout.writelines(difflib.unified_diff(want, got, f"{want_label}/{fn}", f"{got_label}/{fn}"))
    return differ


def main():
    ap = argparse.ArgumentParser(prog="compat.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("capture")
    a.add_argument("--only", choices=sorted(SUITES))
    a.add_argument("-j", "--jobs", type=int, default=4)
    a.add_argument("build")
    a.add_argument("outdir")
    b = sub.add_parser("check")
    b.add_argument("--only", choices=sorted(SUITES))
    b.add_argument("-j", "--jobs", type=int, default=4)
    b.add_argument("--against", metavar="OLD_BUILD")
    b.add_argument("--golden", default=GOLDEN)
    b.add_argument("build")
    o = ap.parse_args()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    if o.only == "rxe" and not rxe_devices():
        print(RXE_SKIP)
        return 77
    if o.cmd == "capture":
        cases = capture(o.build, o.outdir, o.only, o.jobs)
        print(f"capture: {len(cases)} cases written to {o.outdir}")
        return 0
    t0 = time.monotonic()
    scratch = tempfile.mkdtemp(prefix="rbcompat-check.")
    SCRATCH.append(scratch)
    try:
        got = os.path.join(scratch, "new")
        if o.against:
            want = os.path.join(scratch, "old")
            capture(o.against, want, o.only, o.jobs, quiet=True)
            labels = ("old", "new")
        else:
            want = o.golden
            labels = ("golden", "got")
        cases = capture(o.build, got, o.only, o.jobs, quiet=True)
        if not o.only and not o.against:
            names = {c.name + ".txt" for c in load_cases()}
            for f in sorted(os.listdir(want)):
                if f.endswith(".txt") and f not in names:
                    print(f"note: golden/{f} has no case in cases.txt (stale)")
        n = compare(cases, want, got, *labels)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"check: {o.only or 'all'} cases of {o.build}{' against ' + o.against if o.against else ''}"
          f" in {time.monotonic() - t0:.1f} s")
    print(f"compat: {len(cases)} cases, {n} differ")
    return 1 if n else 0


if __name__ == "__main__":
    sys.exit(main())
