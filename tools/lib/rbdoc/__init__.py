# SPDX-License-Identifier: BSD-2-Clause
"""rdmabench's Python package: the one reader of the result documents the tools
write (--json, --csv) and of the CSV tables the scripts keep, the model of a sweep
(T = t_lat + N / B_eff), and what the command-line scripts share. A script finds it
by putting its folder's lib/ (tools/lib) first on sys.path."""
from . import model
from .cli import fail, load, load_doc
from .files import write_table, write_text
from .document import Document, DocumentError, number, parse, read, read_table, repeat_rows, size_rows

__all__ = ["Document", "DocumentError", "fail", "load", "load_doc", "model", "number", "parse", "read",
           "read_table", "repeat_rows", "size_rows", "write_table", "write_text"]
