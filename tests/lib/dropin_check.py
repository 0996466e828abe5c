#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""dropin_check.py NAME THEIRS OURS DOC WANT TOL LINE: one drop-in case (tests/dropin/).
THEIRS and OURS are what a user's parsing read from the reference tool's output and from
ours; DOC is our own JSON document of the same run, WANT the figure of its size's row the
parsing must have read (KEY or KEY*FACTOR). Ours must equal it within TOL (relative, plus
what a table's rounding leaves), the reference's must be of the same magnitude: two runs
differ, a unit or a column does not (within a factor of 4, or WANT's /WITHIN). Prints the case's table line
(LINE: its command and parsing), or exits non-zero naming what differs."""
import json, sys

name, theirs, ours, doc, want, tol, line = sys.argv[1:]
want, _, within = want.partition("/")
within = float(within) if within else 4.0
key, _, k = want.partition("*")
rows = [r for r in json.load(open(doc))["results"]
        if r.get("interval") in (None, "total") and r.get("stream") in (None, "", "sum")]
truth = rows[-1][key] * (float(k) if k else 1)
try:
    theirs, ours = float(theirs), float(ours)
except ValueError:
    sys.exit(f"{name}: the parsing read {theirs!r} from the reference and {ours!r} from ours")
if abs(ours - truth) > float(tol) * abs(truth) + (0.006 if float(tol) > 1e-6 else 1e-9):
    sys.exit(f"{name}: read {ours} from ours, where its document holds {key} = {truth}")
if not (truth > 0 and 1 / within <= theirs / ours <= within):
    sys.exit(f"{name}: read {theirs} from the reference and {ours} from ours: not one quantity")
print(f"{name:12} | {line} | {theirs:>14g} | {ours:>14g}")
