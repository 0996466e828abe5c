# SPDX-License-Identifier: BSD-2-Clause
"""What the scripts write: every file under a temporary name first, renamed into place
when whole, so a reader (or an interrupted script's next run) never sees half of one."""
import csv
import os


def write_text(path, text):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write_table(path, rows, fields):
    """A CSV table: the header, then each row's cells for fields (other keys left out)."""
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)
