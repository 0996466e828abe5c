"""The one reader of the documents rdmabench writes, and of the scripts' own CSV tables.

A run document is what a tool writes with --json FILE or --csv FILE (a persistent
server's run N writes FILE-N.json / FILE-N.csv, read the same way):

  JSON  an object: "meta", "results" (one object per row), "complete" and, when the
        run did not complete, "error".
  CSV   a header, one row per result, each ending in an empty "error" cell; a run
        that did not complete ends with one more row whose only cell is its error
        (a file of "error" and the cause alone when no row was measured).

read() and parse() give either as a Document: the measured rows, complete and error
the same way for both. read_table() reads a plain CSV table: a sweep's, a bench
harness's results/ file.
"""
import csv
import io
import json
import math


class DocumentError(ValueError):
    """A file that cannot be read, or is not an rdmabench document."""


class Document:
    """One run document.

    rows: the measured rows, in order, as dicts: JSON values keep their types (a
    number, true/false, null as None), CSV cells are strings.
    complete: whether the run completed. error: why not (None when it did).
    meta: the JSON document's meta object (None for a CSV, which has none).
    """

    def __init__(self, rows, complete, error=None, meta=None):
        self.rows = rows
        self.complete = complete
        self.error = error
        self.meta = meta


def read(path):
    """The run document at PATH, JSON or CSV, told apart by its first character."""
    return parse(_text(path), path)


def parse(text, name="-"):
    """The run document in TEXT (a file's contents, a tool's --csv - output); NAME
    says where it came from in errors."""
    if text.lstrip().startswith("{"):
        try:
            d = json.loads(text)
            rows = d["results"]
        except (ValueError, KeyError, TypeError):
            raise DocumentError("%s is not an rdmabench JSON document (no results)" % name) from None
        return Document(rows, d.get("complete"), d.get("error"), d.get("meta"))
    rows, error = [], None
    for r in _csv_rows(text)[0]:
        if r.get("error"):
            error = r["error"]
        else:
            rows.append(r)
    return Document(rows, error is None, error)


def read_table(path):
    """A CSV table with a header: (its rows as dicts of strings, the header's names)."""
    return _csv_rows(_text(path))


def size_rows(doc):
    """The document's rows of one whole size each (interval rows left out), every value
    a string: a number as Python writes it, null as ""."""
    rows = [{k: ("" if v is None else str(v)) for k, v in r.items()} for r in doc.rows]
    return [r for r in rows if r.get("interval", "total") in ("total", "")]


def number(s):
    """A cell as a finite float, or None (empty, not a number, inf, nan)."""
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _text(path):
    try:
        with open(path, newline="") as f:
            return f.read()
    except OSError as e:
        raise DocumentError("cannot read %s: %s" % (path, e.strerror)) from None


def _csv_rows(text):
    r = csv.DictReader(io.StringIO(text, newline=""))
    return list(r), list(r.fieldnames or [])
