"""Formatting findings for people and machines: text, grouped, json, github, sarif.

Front ends only format and filter; every format reads the same
:class:`~winspawn_lint.finding.Finding` records and the rule catalogue.
"""

from __future__ import annotations

import json
import os
from typing import Callable, Sequence, TextIO

from ..finding import Finding
from ..rules import RULES, FixSafety

#: (path, finding, fixable-now) triples, sorted by path then position
Rows = Sequence[tuple[str, Finding]]
FORMATS = ("text", "grouped", "json", "github", "sarif")


def fix_marker(finding: Finding, unsafe: bool) -> str:
    return " [*]" if finding.safety.applies(unsafe) else ""


def place(path: str, f: Finding) -> str:
    """``path:line:col``, or in a notebook ruff's ``path:cell N:line:col`` (the line counted in the cell)."""
    cell = f"cell {f.cell}:" if f.cell is not None else ""
    return f"{path}:{cell}{f.line}:{f.col + 1}"


def text(rows: Rows, out: TextIO, unsafe: bool = False, **_: object) -> None:
    for path, f in rows:
        out.write(f"{place(path, f)}: {f.code}{fix_marker(f, unsafe)} {f.message}{f.platform_suffix}\n")


def _json_row(path: str, f: Finding) -> dict:
    row = {
        "path": path, "line": f.line, "col": f.col + 1, "end_line": f.end_line, "end_col": f.end_col + 1,
        "code": f.code, "name": f.name, "message": f.message, "fix_safety": f.safety.value,
        "platforms": list(f.platforms) if f.platforms is not None else None,
    }
    if f.cell is not None:  # a notebook: lines count within this cell
        row["cell"] = f.cell
    return row


def as_json(rows: Rows, out: TextIO, **_: object) -> None:
    data = [_json_row(path, f) for path, f in rows]
    json.dump(data, out, indent=2, ensure_ascii=False)
    out.write("\n")


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(rows: Rows, out: TextIO, **_: object) -> None:
    """GitHub Actions workflow commands (annotations on the pull request)."""
    for path, f in rows:
        # GitHub places an annotation by line of the file as stored, which for a notebook is a line of JSON:
        # the cell and its line go in the title and the message instead (as ruff does).
        cell = f"cell {f.cell}:{f.line}:{f.col + 1}: " if f.cell is not None else ""
        props = ",".join([
            f"file={_escape_property(path)}", f"line={f.line}", f"col={f.col + 1}",
            f"endLine={f.end_line}", f"endColumn={f.end_col + 1}",
            f"title={_escape_property(cell + f.code + ' ' + f.name)}",
        ])
        out.write(f"::error {props}::{_escape_data(cell + f.code + ' ' + f.message)}\n")


def _use_colour(out: TextIO) -> bool:
    # https://no-color.org: NO_COLOR set to a non-empty value turns colour off.
    return hasattr(out, "isatty") and out.isatty() and not os.environ.get("NO_COLOR") \
        and os.environ.get("TERM") != "dumb"


def grouped(rows: Rows, out: TextIO, sources: dict[str, list[str]] | None = None, unsafe: bool = False,
            **_: object) -> None:
    """Per file, each finding with its source line and a caret (colour only on a TTY, never with NO_COLOR)."""
    colour = _use_colour(out)

    def paint(code: str, value: str) -> str:
        return f"\033[{code}m{value}\033[0m" if colour else value

    current = None
    for path, f in rows:
        if path != current:
            if current is not None:
                out.write("\n")
            out.write(paint("1", path) + ":\n")
            current = path
        marker = fix_marker(f, unsafe)
        cell = f"cell {f.cell}:" if f.cell is not None else ""
        out.write(f"  {cell}{f.line}:{f.col + 1} {paint('1;31', f.code)}{marker} {f.message}\n")
        lines = (sources or {}).get(path)
        if isinstance(lines, dict):  # a notebook's lines, per cell
            lines = lines.get(f.cell)
        if lines and 1 <= f.line <= len(lines):
            # Columns count code points; the terminal counts cells (a CJK character takes two, a
            # combining accent none) and tab stops: measure both in the line as printed.
            line = lines[f.line - 1].rstrip()
            end = f.end_col if f.end_line == f.line else len(line)
            start_cells = _cells(line[: f.col].expandtabs(4))
            width = max(1, _cells(line[:end].expandtabs(4)) - start_cells)
            out.write(f"    {line.expandtabs(4)}\n")
            out.write("    " + " " * start_cells + paint("31", "^" * width) + "\n")


def _cells(text: str) -> int:
    """Terminal cells *text* takes (East Asian wide/fullwidth: 2, combining marks: 0)."""
    import unicodedata

    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def sarif(rows: Rows, out: TextIO, root: str | None = None, with_statistics: bool = False, unsafe: bool = False,
          **_: object) -> None:
    """SARIF 2.1.0; *with_statistics*: the per-code counts in the run's property bag (the document stays one
    valid SARIF log)."""
    from . import sarif as sarif_module

    document = sarif_module.document(rows, root)
    if with_statistics:
        document["runs"][0]["properties"] = {"statistics": statistics_entries(rows, unsafe)}
    json.dump(document, out, indent=2, ensure_ascii=False)
    out.write("\n")


FORMATTERS: dict[str, Callable[..., None]] = {
    "text": text, "grouped": grouped, "json": as_json, "github": github, "sarif": sarif,
}


def statistics(rows: Rows, out: TextIO, **_: object) -> None:
    """``--statistics`` as a table, after the findings: count, code, rule name."""
    for entry in statistics_entries(rows):
        out.write(f"{entry['count']:<6} {entry['code']} {entry['name']}\n")


def statistics_entries(rows: Rows, unsafe: bool = False) -> list[dict]:
    """Per code, as ruff's ``--statistics --output-format json`` has it: code, name, count, and whether
    ``--fix`` (with ``--unsafe-fixes`` when *unsafe*) fixes any of them."""
    counts: dict[str, list[Finding]] = {}
    for _, f in rows:
        counts.setdefault(f.code, []).append(f)
    return [{"code": code, "name": RULES[code].name, "count": len(found),
             "fixable": any(f.safety.applies(unsafe) for f in found)} for code, found in sorted(counts.items())]


def statistics_json(rows: Rows, out: TextIO, unsafe: bool = False, **_: object) -> None:
    """``--statistics`` in ``json``: the per-code list instead of the findings (one JSON document)."""
    json.dump(statistics_entries(rows, unsafe), out, indent=2, ensure_ascii=False)
    out.write("\n")


def _plural(count: int, word: str, plural: str = "") -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def summary(rows: Rows, fixed: int, out: TextIO, fix: bool = False, diff: bool = False,
            unsafe: bool = False) -> None:
    """The closing lines, worded as ruff words them: what was found (and fixed), what ``--fix`` would fix,
    and how many fixes ``--unsafe-fixes`` would enable."""
    fixable = sum(1 for _, f in rows if f.safety.applies(unsafe))
    hidden = 0 if unsafe else sum(1 for _, f in rows if f.safety is FixSafety.UNSAFE)
    if diff:
        if fixed:
            more = f" ({_plural(hidden, 'additional fix', 'additional fixes')} available with `--unsafe-fixes`)" \
                if hidden else ""
            out.write(f"Would fix {_plural(fixed, 'error')}{more}.\n")
        elif hidden:
            available = _plural(hidden, 'fix', 'fixes')
            out.write(f"No errors would be fixed ({available} available with `--unsafe-fixes`).\n")
        return
    total = len(rows) + fixed
    if not total:
        return
    out.write(f"Found {_plural(total, 'error')}" + (f" ({fixed} fixed, {len(rows)} remaining)." if fix else ".") + "\n")
    unsafe_line = f"{_plural(hidden, 'unsafe fix', 'unsafe fixes')} available with `--fix --unsafe-fixes`"
    if fixable:
        out.write(f"[*] {fixable} fixable with `--fix`" + (f" ({unsafe_line})." if hidden else ".") + "\n")
    elif hidden:
        out.write(f"{unsafe_line}.\n")


def show_fixes(fixed: Rows, out: TextIO) -> None:
    """``--show-fixes``: per file, how many findings of each rule ``--fix`` fixed."""
    if not fixed:
        return
    out.write(f"\nFixed {_plural(len(fixed), 'error')}:\n")
    by_path: dict[str, dict[str, int]] = {}
    for path, f in fixed:
        counts = by_path.setdefault(path, {})
        counts[f.code] = counts.get(f.code, 0) + 1
    for path in sorted(by_path):
        out.write(f"- {path}:\n")
        for code, count in sorted(by_path[path].items()):
            out.write(f"    {count} × {code} ({RULES[code].name})\n")
    out.write("\n")
