#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""schema_check.py CSV PAGE TOOL: the CSV's header is TOOL's columns as
rdmabench-documents(7) (PAGE) writes them down, then the tail, then error. In the
page's lists "ctr_*" stands for the COUNTERS section's columns and "K_*" for K's five
--repeat spreads. Exit 1 naming the first difference."""
import csv
import re
import sys

path, page_path, tool = sys.argv[1:4]
page = open(page_path).read().replace("\\-", "-")


def items(text):
    return [x.strip().rstrip(".") for x in text.replace("\n", " ").split(",") if x.strip()]


own = re.search(r"^\.SS %s\n(.*?)^\." % re.escape(tool), page, re.S | re.M).group(1)
counters = re.search(r"^\.SH COUNTERS\nThe ctr_ columns, in order: (.*?)\. The first", page, re.S | re.M).group(1)
tail = re.search(r"^\.SH THE TAIL\n.*?(?=^\.SH )", page, re.S | re.M).group(0)
tail = [c for b in re.findall(r"^\.B (.*)$", tail, re.M) for c in items(b)]
cols = []
for c in items(own):
    if c == "ctr_*":
        cols += items(counters)
    elif c.endswith("_*"):
        cols += [c[:-1] + s for s in ("p5", "p95", "min", "max", "cv_pct")]
    else:
        cols.append(c)
want = cols + tail + ["error"]
header = next(csv.reader(open(path)))
if header != want:
    at = next((i for i, (a, b) in enumerate(zip(header, want)) if a != b), min(len(header), len(want)))
    sys.exit("%s: column %d is %r, the page says %r (%d columns, the page %d)" % (
        tool, at, header[at] if at < len(header) else None, want[at] if at < len(want) else None,
        len(header), len(want)))
print("%s: %d columns, as rdmabench-documents(7) lists them" % (tool, len(header)))
