#!/usr/bin/env python3
"""no_result.py JSON...: each document says complete: false and holds no result row
(a step that failed on either side is written by neither); prints the last one's error."""
import json, sys

for path in sys.argv[1:]:
    d = json.load(open(path))
    assert d["complete"] is False and not d["results"], (path, d["complete"], d["results"])
print("incomplete, no row:", d["error"])
