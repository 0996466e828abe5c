"""rdmabench's Python package: the one reader of the result documents the tools
write (--json, --csv) and of the CSV tables the scripts keep, the alpha-beta fit of a
sweep, and what the command-line scripts share. A script finds it by putting its
folder's lib/ (tools/lib) first on sys.path."""
from .cli import fail, load
from .document import Document, DocumentError, number, parse, read, read_table, size_rows
from .fit import fit, fit_line

__all__ = ["Document", "DocumentError", "fail", "fit", "fit_line", "load", "number", "parse", "read", "read_table",
           "size_rows"]
