# SPDX-License-Identifier: BSD-2-Clause
"""What the command-line scripts share: one way to fail, and a document's size rows
or that failure."""
import os
import sys

from .document import DocumentError, read, size_rows


def fail(msg, code=2):
    """MSG on stderr after the script's name, then exit CODE (2: bad input)."""
    print("%s: %s" % (os.path.basename(sys.argv[0]), msg), file=sys.stderr)
    sys.exit(code)


def load_doc(path):
    """(the document at PATH, its size rows (see size_rows)), or exit 2 saying why
    there are none."""
    try:
        doc = read(path)
    except DocumentError as e:
        fail(str(e))
    rows = size_rows(doc)
    if not rows or "size_bytes" not in rows[0]:
        fail("%s has no rows with size_bytes (not an rdmabench document?)" % path)
    return doc, rows


def load(path):
    """The size rows of the document at PATH, or exit 2 saying why there are none."""
    return load_doc(path)[1]
