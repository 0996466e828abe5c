# SPDX-License-Identifier: BSD-2-Clause
"""The one reader of the documents rdmabench writes, and of the scripts' own CSV tables.

A run document is what a tool writes with --json FILE or --csv FILE (a persistent
server's run N writes FILE-N.json / FILE-N.csv, read the same way):

  JSON  an object: "meta", "results" (one object per row), "complete", when the run
        did not complete "error", and, for a sweep the tool fitted, "model" (below).
  CSV   a header, one row per result, each ending in an empty "error" cell; a run
        that did not complete ends with one more row whose only cell is its error
        (a file of "error" and the cause alone when no row was measured). The tools
        write no comment lines (csv.DictReader would read one as a row), so a CSV has
        no model: model.py fits the same one from its rows. A line a person added
        that starts with '#' is no row, and one of the form "# model: metric=...
        t_lat_us=1.25 b_eff_gbps=9.87 eta=0.987 n_half_bytes=1543
        rel_rms_residual=0.012 sizes=23" (eta=nan: link unknown) is read as the model.

A run with --repeat N measures every size N times: each repeat's own row has the
column repeat = "1".."N", then comes the size's summary row, repeat = "all", whose
numbers are the medians of the repeats and which adds K_p5, K_p95, K_min, K_max and
K_cv_pct for each headline metric K (bw_avg_gbps, msg_rate_mpps, lat_p50_us,
lat_p99_us) and unstable. Every row of such a run has repeats = N; a run without
--repeat has none of these columns.

read() and parse() give either format as a Document: the measured rows, complete,
error and model the same way for both. size_rows() keeps one row per size (the
summary of its repeats); repeat_rows() gives the repeats' own rows; interval_rows()
the --interval rows within each size (interval "0.00-0.25", t_start_s and t_end_s
from the size's start; the size's own row is interval "total"). read_table()
reads a plain CSV table: a sweep's, a bench harness's results/ file.
"""
import csv
import io
import json
import math
import os


class DocumentError(ValueError):
    """A file that cannot be read, or is not an rdmabench document."""


class Document:
    """One run document.

    rows: the measured rows, in order, as dicts: JSON values keep their types (a
    number, true/false, null as None), CSV cells are strings.
    complete: whether the run completed. error: why not (None when it did).
    meta: the JSON document's meta object (None for a CSV, which has none).
    model: the tool's fit of the sweep, a dict with metric, t_lat_us, b_eff_gbps, eta,
    n_half_bytes, rel_rms_residual and sizes (a number that is unknown is None), or
    None when the document has none (see model.py for what the fit is).
    """

    def __init__(self, rows, complete, error=None, meta=None, model=None):
        self.rows = rows
        self.complete = complete
        self.error = error
        self.meta = meta
        self.model = model


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
        model = d.get("model")
        if model is not None and not isinstance(model, dict):
            raise DocumentError("%s: \"model\" is not an object" % name)
        if model is not None:
            model = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in model.items()}
        return Document(rows, d.get("complete"), d.get("error"), d.get("meta"), model)
    table, _, comments = _csv_table(text)
    rows, error, model = [], None, None
    for r in table:
        if r.get("error"):
            error = r["error"]
        else:
            rows.append(r)
    for c in comments:
        if c.startswith("# model:"):
            model = _model_line(c, name)
    return Document(rows, error is None, error, None, model)


def read_table(path, missing_ok=False):
    """A CSV table with a header: (its rows as dicts of strings, the header's names);
    with MISSING_OK, a table not there (yet) reads as ([], [])."""
    if missing_ok and not os.path.exists(path):
        return [], []
    rows, fields, _ = _csv_table(_text(path), comments=False)
    return rows, fields


def size_rows(doc):
    """The document's rows of one whole size each, every value a string: a number as
    Python writes it, true/false as "1"/"0" (as in a CSV), null as "". Interval rows
    are left out, and so are the repeats' own rows of a --repeat run: its size's row
    is the summary (repeat "all")."""
    return [r for r in _strings(doc.rows) if _whole(r) and r.get("repeat", "") in ("", "all")]


def repeat_rows(doc):
    """The repeats' own rows of a --repeat run (repeat "1".."N"), strings as in
    size_rows(), in the document's order; [] for a run without --repeat."""
    return [r for r in _strings(doc.rows) if _whole(r) and r.get("repeat", "") not in ("", "all")]


def interval_rows(doc):
    """The rows of a run with --interval that cover a part of a size (interval
    "0.00-0.25", not "total"), strings as in size_rows(), in the document's order; []
    for a run without --interval."""
    return [r for r in _strings(doc.rows) if not _whole(r)]


def number(s):
    """A cell as a finite float, or None (empty, not a number, inf, nan)."""
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _strings(rows):
    return [{k: _cell(v) for k, v in r.items()} for r in rows]


def _cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "1" if v else "0"
    return str(v)


def _whole(r):
    """A size's own row: not an interval's, not one --streams stream's (their sum is)."""
    return r.get("interval", "total") in ("total", "") and r.get("stream", "") in ("", "sum")


def _model_line(line, name):
    """'# model: k=v ...' as a dict: metric a string, sizes an int, the rest floats
    (nan, inf or empty: None)."""
    model = {}
    for word in line[len("# model:"):].split():
        k, eq, v = word.partition("=")
        if not eq or not k:
            raise DocumentError("%s: cannot read '%s' in its model line (expected KEY=VALUE)" % (name, word))
        if k == "metric":
            model[k] = v
            continue
        try:
            x = float(v)
        except ValueError:
            raise DocumentError("%s: model line: %s=%s is not a number" % (name, k, v)) from None
        if not math.isfinite(x):
            model[k] = None
        elif k == "sizes" and x == int(x):
            model[k] = int(x)
        else:
            model[k] = x
    return model


def _text(path):
    try:
        with open(path, newline="") as f:
            return f.read()
    except OSError as e:
        raise DocumentError("cannot read %s: %s" % (path, e.strerror)) from None


def _csv_table(text, comments=True):
    """(rows as dicts, the header's names, the comment lines): a record of one cell
    that starts with '#' is a comment when COMMENTS, never a row or the header. A row
    shorter than the header has None for the missing cells (as csv.DictReader)."""
    header, rows, notes = None, [], []
    for rec in csv.reader(io.StringIO(text, newline="")):
        if comments and len(rec) == 1 and rec[0].startswith("#"):
            notes.append(rec[0])
        elif header is None:
            header = rec
        elif rec:
            row = dict(zip(header, rec + [None] * (len(header) - len(rec))))
            if len(rec) > len(header):
                row[None] = rec[len(header):]
            rows.append(row)
    return rows, list(header or []), notes
