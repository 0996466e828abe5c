#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""no_result.py JSON...: each document says complete: false and holds no result row
(a step that failed on either side is written by neither); prints the last one's error."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "lib"))
from rbdoc import read  # noqa: E402

for path in sys.argv[1:]:
    d = read(path)
    assert d.complete is False and not d.rows, (path, d.complete, d.rows)
print("incomplete, no row:", d.error)
