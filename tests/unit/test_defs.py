#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The definition-file reader, tools/lib/rbdoc/defs.py (suite unit).

usage: test_defs.py SOURCE_ROOT

  lexical   what all four formats share: comments ('#' anywhere, inside quotes too),
            blank lines, stripping, line numbers, a file that cannot be read
  sweep     KEY = VALUE: lists that add up, vary's (OPTION, [VALUES]), shell quoting
  plan      [TOOL] sections, the top's defaults and ranges, a section's own keys
  cmp       KEY VALUE: the key ends at the first space, the last line wins, cases
  scale     KEY=VALUE, one shell word each, the optional keys' defaults, and
            python3 -m rbdoc.defs scale FILE's shell assignments
  tree      every definition in bench/ reads

Every error names the file and line (or the file alone for a missing key), the bad
value and what is allowed.
"""
import glob
import os
import shlex
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "lib"))
from rbdoc import defs  # noqa: E402
from rbdoc.defs import DefError  # noqa: E402


class Files(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def file(self, text, name="t.def", mode="w"):
        path = os.path.join(self.dir.name, name)
        with open(path, mode) as f:
            f.write(text)
        return path

    def fails(self, fmt, text, *words):
        """Reading TEXT as FMT raises DefError whose message holds each of WORDS
        (PATH stands for the file's path)."""
        path = self.file(text)
        with self.assertRaises(DefError) as e:
            defs.read(fmt, path)
        for w in words:
            self.assertIn(w.replace("PATH", path), str(e.exception))
        return str(e.exception)


class Lexical(Files):
    def test_lines(self):
        path = self.file("# a comment\n\n  tools = a   # after\r\nargs = '#x' \"y # z\"\n\t\n   # indented\nx=1")
        self.assertEqual(list(defs.lines(path)), [(3, "tools = a"), (4, "args = '"), (7, "x=1")])

    def test_unreadable(self):
        with self.assertRaisesRegex(DefError, "^cannot read .*/nope: No such file or directory$"):
            defs.read("sweep", os.path.join(self.dir.name, "nope"))
        path = self.file(b"tools = \xff\xfe\n", mode="wb")
        with self.assertRaisesRegex(DefError, "^cannot read .*t.def: not text$"):
            defs.read("sweep", path)

    def test_no_separator(self):
        self.fails("sweep", "tools = a\nsizes 4K\n", "PATH:2: expected 'KEY = VALUE', got 'sizes 4K'")
        self.fails("sweep", "= 5\n", "PATH:1: expected 'KEY = VALUE', got '= 5'")
        self.fails("plan", "[rc_write_bw]\nsizes\n", "PATH:2: expected 'KEY = VALUE' or '[TOOL]', got 'sizes'")

    def test_empty_value(self):
        self.fails("sweep", "tools = a\nsizes =   # none\n",
                   "PATH:2: invalid sizes '' (allowed: sizes separated by spaces or commas)")
        self.fails("cmp", "rounds\n", "PATH:1: invalid rounds '' (allowed: an integer >= 1)")


class Sweep(Files):
    def test_read(self):
        d = defs.read("sweep", self.file(
            "tools = socket_bw rc_write_bw\ntools = fifo_pingpong\nsizes = 4K, 8K ,,16K\nsizes = 1M\n"
            "vary = --nsocks 1 2\nvary = -q '1' 4\nflag = -b\nflag = --x --y\nargs = -n 5 --name 'a b'\n"
            "args = --opt=v\n"))
        self.assertEqual(d, {"tools": ["socket_bw", "rc_write_bw", "fifo_pingpong"], "sizes": ["4K", "8K", "16K", "1M"],
                             "vary": [("--nsocks", ["1", "2"]), ("-q", ["1", "4"])], "flag": ["-b", "--x", "--y"],
                             "args": ["-n", "5", "--name", "a b", "--opt=v"]})

    def test_errors(self):
        ok = "tools = socket_bw\nsizes = 4K\n"
        self.fails("sweep", ok + "bogus = 1\n", "PATH:3: unknown key 'bogus' (allowed: tools, sizes, vary, flag, args)")
        self.fails("sweep", "tools = socket_bw\n", "PATH: no 'sizes' line")
        self.fails("sweep", "sizes = 4K\n", "PATH: no 'tools' line")
        self.fails("sweep", ok + "vary = --nsocks\n",
                   "PATH:3: invalid vary '--nsocks' (allowed: an option, then one value or more)")
        self.fails("sweep", ok + "args = \"-n 5\n", "PATH:3: invalid args '\"-n 5' (allowed: arguments, quoted as in a shell;"
                   " No closing quotation)")
        self.fails("sweep", ok + "sizes = ,\n", "PATH:3: invalid sizes ','")


class Plan(Files):
    def test_read(self):
        d = defs.read("plan", self.file(
            "repeat = 3\n[rc_write_bw]\nsizes = 4K,64K 1M\nvary = -q 1 2\nvary = -t 64 128\nflag = -b\n"
            "args = --timeout 10\nverify = off\n[socket_bw]\nsizes = 1M\n[rc_write_bw]\nsizes = 8K\nverify = on\n"))
        self.assertEqual(d["repeat"], 3)
        self.assertEqual(d["duration"], 2)
        self.assertEqual(d["sections"], [
            {"tool": "rc_write_bw", "sizes": ["4K", "64K", "1M"], "vary": [("-q", ["1", "2"]), ("-t", ["64", "128"])],
             "flag": ["-b"], "args": ["--timeout", "10"], "verify": False},
            {"tool": "socket_bw", "sizes": ["1M"], "vary": [], "flag": [], "args": [], "verify": True},
            {"tool": "rc_write_bw", "sizes": ["8K"], "vary": [], "flag": [], "args": [], "verify": True}])
        self.assertEqual(defs.read("plan", self.file("[socket_bw]\nsizes = 4K\n"))["repeat"], 1)

    def test_errors(self):
        sec = "[rc_write_bw]\nsizes = 4K\n"
        for bad in ("x", "0", "101", "-1", "1.5"):
            self.fails("plan", "repeat = %s\n" % bad + sec, "PATH:1: invalid repeat '%s' (allowed: an integer 1..100)" % bad)
        self.fails("plan", "duration = 7\nbogus = 1\n" + sec,
                   "PATH:2: unknown key 'bogus' before the first [TOOL] (allowed: repeat, duration)")
        self.fails("plan", sec + "repeat = 3\n",
                   "PATH:3: unknown key 'repeat' in [rc_write_bw] (allowed: sizes, vary, flag, args, verify)")
        self.fails("plan", sec + "verify = maybe\n", "PATH:3: invalid verify 'maybe' (allowed: on, off)")
        self.fails("plan", "[fifo_pingpong]\nsizes = 4K\n",
                   "PATH:1: invalid tool 'fifo_pingpong' (allowed: rc_write_bw, socket_bw: the tools rdma_doctor")
        self.fails("plan", sec + "[socket_bw]\nvary = --nsocks 1 2\n", "PATH:3: no 'sizes' line in [socket_bw]")
        self.fails("plan", "repeat = 2\n", "PATH: no [TOOL] section (allowed: rc_write_bw, socket_bw")


class Cmp(Files):
    HEAD = "name x\nours socket_bw\nanchor iperf3\nmetric bw_avg_gbps\n"

    def test_read(self):
        d = defs.read("cmp", self.file(
            "name  my cmp  # a comment\nours   rc_write_bw\nanchor rc_write_bw\nmetric msg_rate_mpps\nrounds 7\n"
            "rounds 3\ncase a 1 ; -x \"a b\" ; -y\n  case  b   2 ;; \n"))
        self.assertEqual(d, {"name": "my cmp", "ours": "rc_write_bw", "anchor": "rc_write_bw", "metric": "msg_rate_mpps",
                             "rounds": 3, "case": [{"label": "a", "size": "1", "ours": ["-x", "a b"], "anchor": ["-y"]},
                                                   {"label": "b", "size": "2", "ours": [], "anchor": []}]})
        self.assertEqual(defs.read("cmp", self.file(self.HEAD + "case a 1 ; ; \n"))["rounds"], 5)

    def test_errors(self):
        case = "case a 1 ; -x ; -y\n"
        self.fails("cmp", self.HEAD + "bogus 1\n" + case, "PATH:5: unknown directive 'bogus' (allowed: name, ours, anchor,"
                   " metric, rounds, case)")
        # The key ends at the first space, not at a tab (as before the reader was shared).
        self.fails("cmp", "name\tx\n", "PATH:1: unknown directive 'name\tx'")
        self.fails("cmp", self.HEAD.replace("metric bw_avg_gbps\n", "") + case, "PATH: no 'metric' line")
        self.fails("cmp", self.HEAD, "PATH: no 'case' line")
        self.fails("cmp", self.HEAD.replace("socket_bw", "nope") + case, "PATH:2: invalid ours 'nope' (allowed: rc_write_bw,"
                   " rc_write_lat, socket_bw, fifo_pingpong)")
        self.fails("cmp", self.HEAD.replace("iperf3", "nope") + case, "PATH:3: invalid anchor 'nope' (allowed: ib_write_bw,")
        self.fails("cmp", self.HEAD.replace("bw_avg_gbps", "nope") + case,
                   "PATH:4: invalid metric 'nope' (allowed: bw_avg_gbps, msg_rate_mpps, lat_p50_us)")
        self.fails("cmp", self.HEAD + "rounds 0\n" + case, "PATH:5: invalid rounds '0' (allowed: an integer >= 1)")
        for bad in ("a 1 ; -x", "a 1 2 ; -x ; -y", "a ; -x ; -y"):
            self.fails("cmp", self.HEAD + "case %s\n" % bad,
                       "PATH:5: invalid case '%s' (allowed: LABEL SIZE ; OURS ARGS ; ANCHOR ARGS)" % bad)


class Scale(Files):
    BASE = 'name=x\nsize=64\niters=10\nqps="1 16"\ndepths="128"\nqps_depth=1\ndepth_sweep="" # none\nrepeats=1\n'

    def test_read(self):
        d = defs.read("scale", self.file(self.BASE + "lat_points='64Kx1 64Kx64'\nfifo_points=\"1x1 64x16\"\n"
                                         "rc_args=\"--oob-timeout 300\"\nrepeats=2\n"))
        self.assertEqual(d, {"name": "x", "size": "64", "iters": "10", "qps": "1 16", "depths": "128", "qps_depth": "1",
                             "depth_sweep": "", "repeats": "2", "rc_args": "--oob-timeout 300",
                             "fifo_points": "1x1 64x16", "lat_points": "64Kx1 64Kx64"})
        self.assertEqual(defs.read("scale", self.file(self.BASE))["rc_args"], "")

    def test_errors(self):
        self.fails("scale", self.BASE + "bogus=1\n", "PATH:9: unknown key 'bogus' (allowed: name, size, iters, qps,")
        self.fails("scale", self.BASE.replace("repeats=1\n", ""), "PATH: no 'repeats' line")
        self.fails("scale", self.BASE.replace("size=64", "size=abc"), "PATH:2: invalid size 'abc' (allowed: an integer)")
        self.fails("scale", self.BASE.replace("size=64", 'size=""'), "PATH:2: invalid size '\"\"' (allowed: an integer)")
        self.fails("scale", self.BASE.replace('qps="1 16"', "qps=1 16"),
                   "PATH:4: invalid qps '1 16' (allowed: integers separated by spaces; one shell word: quote it)")
        self.fails("scale", self.BASE.replace("name=x", "name='a b'"), "PATH:1: invalid name ''a b''")
        self.fails("scale", self.BASE + 'rc_args="--x $(reboot)"\n', "PATH:9: invalid rc_args '\"--x $(reboot)\"'")
        self.fails("scale", self.BASE + 'fifo_points="1x"\n', "PATH:9: invalid fifo_points '\"1x\"' (allowed: QxT")

    def test_shell(self):
        """python3 -m rbdoc.defs scale FILE: assignments the shell reads back as the
        values; a bad file: the reason on stderr, exit 2."""
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tools", "lib"))
        path = self.file(self.BASE + "rc_args=\"--oob-timeout 300\"\n")
        r = subprocess.run([sys.executable, "-m", "rbdoc.defs", "scale", path], capture_output=True, text=True, env=env)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        self.assertEqual(r.stdout.splitlines()[:4], ["name=x", "size=64", "iters=10", "qps='1 16'"])
        d = defs.read("scale", path)
        back = subprocess.run(["bash", "-c", 'eval "$1"; for k in "${@:2}"; do printf "%s\\n" "${!k}"; done', "-",
                               r.stdout] + list(d), capture_output=True, text=True)
        self.assertEqual(back.stdout.splitlines(), list(d.values()))
        bad = self.file("size=x\n", "bad.def")
        r = subprocess.run([sys.executable, "-m", "rbdoc.defs", "scale", bad], capture_output=True, text=True, env=env)
        self.assertEqual((r.returncode, r.stdout), (2, ""))
        self.assertEqual(r.stderr, "bench/scale: %s:1: invalid size 'x' (allowed: an integer)\n" % bad)
        r = subprocess.run([sys.executable, "-m", "rbdoc.defs", "plan", bad], capture_output=True, text=True, env=env)
        self.assertEqual((r.returncode, r.stderr), (2, "usage: python3 -m rbdoc.defs scale FILE\n"))


class Tree(unittest.TestCase):
    def test_bench(self):
        """Every definition in bench/ reads, as its format."""
        where = {"sweep": "bench/sweeps/*.sweep", "plan": "bench/campaign/*.plan", "cmp": "bench/defs/*.cmp",
                 "scale": "bench/defs/scale*.def"}
        for fmt, pattern in where.items():
            paths = sorted(glob.glob(os.path.join(ROOT, pattern)))
            self.assertTrue(paths, pattern)
            for p in paths:
                with self.subTest(p):
                    defs.read(fmt, p)
        d = defs.read("scale", os.path.join(ROOT, "bench/defs/scale.def"))
        self.assertEqual((d["qps"], d["depth_sweep"], d["rc_args"]), ("1 4 16 64 256 1024", "16 64 256 1024 4096", ""))
        self.assertEqual(shlex.quote(d["qps"]), "'1 4 16 64 256 1024'")


if __name__ == "__main__":
    unittest.main(verbosity=1)
