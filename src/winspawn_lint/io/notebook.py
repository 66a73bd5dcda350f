"""Jupyter notebooks (``.ipynb``): read them as one Python module, map findings back to cells, put fixed cells back.

A notebook is JSON (nbformat 4, or 3: checked, not rewritten), parsed here with the stdlib ``json``
module (nbformat is never imported while checking).  Its code cells are
joined into one module, in order, each preceded by a marker line (``...``);
a line map takes every line of that module back to (cell number, line in
the cell).  Cells are numbered as ruff numbers them: 1-based, counting
every cell of the notebook, markdown and raw cells included.

IPython syntax is *masked*, not parsed: a line magic (``%matplotlib inline``), a
shell escape (``!pip ...``), help (``obj?``, ``??obj``) and the assignment
forms (``files = !ls``, ``x = %who_ls``) and a cell of one line that IPython runs as a magic without its ``%`` (its
automagic: ``cd data``, ``pip install h5py``) become a ``pass`` statement (or
``x = ...``) at the same indentation, tagged with a marker comment, so the
line count and the block structure stay as they were.  A line magic that runs the
Python after it in the kernel (``%time results = pool.map(f, files)``) becomes
``pass; results = pool.map(f, files)``, the prefix padded to its length, so
that statement is checked at its own columns.  A cell magic
(``%%bash``) masks its whole cell, except the magics whose body is Python
run in the kernel (``%%time``, ``%%capture`` ...), where only the first line
is masked.  A candidate inside a multi-line string or an open bracket is
not a magic (``(a\\n % b)`` is Python) and is left alone.

This module is the format only.  ``--fix`` (:mod:`winspawn_lint.fix.notebook`) fixes the module, and this
module splits the fixer's output back into cells at the marker lines (:func:`split_fixed`), puts the masked
lines back, and rewrites only the ``source`` of the cells that changed (:func:`rewrite`): the notebook is
re-serialised with the indentation, key order, ``ensure_ascii`` and trailing newline it had; if the file's own
formatting cannot be reproduced exactly, it is not rewritten.
"""

from __future__ import annotations

import ast
import difflib
import io
import json
import re
import tokenize
from typing import Any, Iterator, Optional

from ..finding import NOTEBOOK_LINE, Finding
from ..records import Record
from .source import SourceError, replace_lines, split_lines, split_rows

SUFFIX = ".ipynb"

#: cell magics whose body is Python executed in the kernel's namespace: the body is checked
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
#: a line magic that runs the statement after it (``%time x = f()``; not one given options: ``%timeit -n 3``)
_TIMED = re.compile(r"^(?P<indent>[ \t]*)(?P<magic>%(?:time|timeit|prun)[ \t]+)(?P<code>[^-\s].*)$")
_TIMED_MASK = "pass;"

# A statement, not a comment: code the fixer inserts before a cell's first statement then stays in that cell
# (a comment would belong to the statement after it, and the insertion would land in the cell before).
_CELL_MARKER = "...  # winspawn-lint: cell "
_CELL_MARKER_RE = re.compile(r"^\.\.\.  # winspawn-lint: cell (\d+)$")
_MAGIC_TAG = "  # winspawn-lint: ipython "
_MAGIC_TAG_RE = re.compile(r"^(?P<indent>[ \t]*).*  # winspawn-lint: ipython (?P<key>\d+)[ \t]*$")

_ESCAPE = re.compile(r"^(?P<indent>[ \t]*)(?:[%!]|\?\??[A-Za-z_%])")
_HELP = re.compile(r"^(?P<indent>[ \t]*)[A-Za-z_][\w.]*(?:\(\))?\?\??[ \t]*$")
_ASSIGN = re.compile(r"^(?P<indent>[ \t]*)(?P<names>[A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*)[ \t]*=[ \t]*[!%]")
#: line magics and shell aliases IPython runs without their ``%`` (its *automagic*, on by default: ``cd data``,
#: ``pip install h5py`` as a Colab cell), each masked only as a cell's one line that is not Python
_AUTOMAGICS = frozenset({
    "alias", "autoreload", "bookmark", "cat", "cd", "clear", "conda", "cp", "dhist", "env", "history", "less",
    "load_ext", "ls", "ll", "mamba", "matplotlib", "mkdir", "more", "mv", "pip", "popd", "pushd", "pwd",
    "reload_ext", "reset", "rm", "rmdir", "run", "store", "tensorboard", "time", "timeit", "unload_ext", "who",
    "whos"})
_AUTOMAGIC = re.compile(r"^[ \t]*(?P<name>[A-Za-z_]\w*)(?:[ \t]+(?P<rest>\S.*))?$")
#: what IPython reads as Python after a name rather than as a magic's arguments (its ``PythonOpsChecker``)
_PYTHON_AFTER_NAME = tuple("!=()<>,+*/%^&|")


def is_cell_marker(line: str) -> bool:
    """Whether a row of a notebook's module is the marker that starts a cell."""
    return _CELL_MARKER_RE.match(line) is not None


def is_notebook(path: Optional[str]) -> bool:
    return bool(path) and path.lower().endswith(SUFFIX)


class Notebook(Record):
    """A parsed notebook and the module built from its code cells."""

    __slots__ = ("data", "raw", "module", "line_map", "masked", "code_cells", "writable")

    def __init__(self, data: dict, raw: str, module: str,
                 line_map: Optional[dict[int, Optional[tuple[int, int]]]] = None,
                 masked: Optional[dict[int, list[str]]] = None,
                 code_cells: Optional[list[tuple[int, int]]] = None, writable: bool = True) -> None:
        self.data = data  # the JSON document, key order as in the file (an nbformat-3 one: its cells, as nbformat 4)
        self.raw = raw  # the file's text
        self.module = module  # the code cells joined into one Python module (magics masked)
        #: module line (1-based) -> (cell number, line in the cell), both 1-based; marker lines map to None
        self.line_map = line_map if line_map is not None else {}
        #: masked lines: key in the marker comment -> the original line(s), without the line break
        self.masked = masked if masked is not None else {}
        #: (cell number, position in data["cells"]) of each code cell, in order
        self.code_cells = code_cells if code_cells is not None else []
        #: whether fixed cells can be written back (nbformat 4; an nbformat-3 notebook is checked, not rewritten)
        self.writable = writable

    def position(self, line: int) -> Optional[tuple[int, int]]:
        return self.line_map.get(line)

    def cell_lines(self) -> dict[int, list[str]]:
        """Cell number -> the cell's original source lines (for showing a finding in context)."""
        return {number: split_lines(_source_text(self.data["cells"][index])) for number, index in self.code_cells}


def _source_text(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def loads(raw: str, check_syntax: bool = True) -> Notebook:
    """Parse a notebook's text; raises :class:`SourceError` (one line) if it is not an nbformat-4 notebook,
    or (with *check_syntax*) if a code cell is not valid Python."""
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as error:
        raise SourceError(f"not a valid notebook: invalid JSON at line {error.lineno} column {error.colno}: "
                          f"{error.msg}") from None
    except RecursionError:
        raise SourceError("not a valid notebook: JSON nested too deeply") from None
    major = data.get("nbformat") if isinstance(data, dict) else None
    if major == 3:
        data = _v3_cells(data)
    elif not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise SourceError("not a valid notebook: no `cells` list (is it a Jupyter notebook?)")
    elif major != 4:
        raise SourceError(f"not a valid notebook: nbformat {major!r} is not supported (only nbformats 3 and 4)")
    notebook = Notebook(data, raw, "", writable=major == 4)
    parts: list[str] = []
    line = 0
    for index, cell in enumerate(data["cells"]):
        if not isinstance(cell, dict):
            raise SourceError(f"not a valid notebook: cell {index + 1} is not an object")
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if not (isinstance(source, str) or (isinstance(source, list) and all(isinstance(s, str) for s in source))):
            raise SourceError(f"not a valid notebook: cell {index + 1} has a `source` that is not text")
        number = index + 1
        notebook.code_cells.append((number, index))
        parts.append(f"{_CELL_MARKER}{number}\n")
        line += 1
        notebook.line_map[line] = None
        masked = _mask(_source_text(cell), notebook.masked)
        for cell_line, text in enumerate(masked, start=1):
            parts.append(text + "\n")
            line += 1
            notebook.line_map[line] = (number, cell_line)
    notebook.module = "".join(parts)
    if check_syntax:
        check_cells(notebook)
    return notebook


def _v3_cells(data: dict) -> dict:
    """An nbformat-3 notebook (cells in ``worksheets``, a code cell's text in ``input``) as the nbformat-4 view the
    checks read: its cells in order, numbered across the worksheets, each code cell's ``input`` as its ``source``
    (Jupyter upgrades such a notebook when it opens it, and runs the same cells)."""
    worksheets = data.get("worksheets")
    if not isinstance(worksheets, list) or not all(isinstance(w, dict) for w in worksheets):
        raise SourceError("not a valid notebook: nbformat 3 without a `worksheets` list")
    cells: list = []
    for worksheet in worksheets:
        found = worksheet.get("cells", [])
        if not isinstance(found, list):
            raise SourceError("not a valid notebook: a worksheet's `cells` is not a list")
        for cell in found:
            if isinstance(cell, dict) and cell.get("cell_type") == "code":
                cell = {"cell_type": "code", "source": cell.get("input", "")}
            elif isinstance(cell, dict):
                cell = {"cell_type": cell.get("cell_type")}
            cells.append(cell)
    return {"cells": cells, "nbformat": 3}


def check_cells(notebook: Notebook) -> None:
    """Each cell runs on its own in the kernel, so each must parse on its own: say which one does not."""
    for _, _, _, error in _broken_cells(notebook):
        raise error


def broken_cells(notebook: Notebook) -> list[int]:
    """The numbers of the code cells that do not parse on their own: those :func:`without_broken_cells` leaves
    empty (what is in them is not checked)."""
    return [number for number, _, _, _ in _broken_cells(notebook)]


def without_broken_cells(notebook: Notebook) -> tuple[Notebook, Optional[SourceError]]:
    """The notebook with the cells that do not parse left empty, and the error of the first of them (None: every
    cell parses).  The kernel runs the other cells when one fails (an exercise's placeholder, a Python 2 print):
    what they hold is still checked."""
    broken = list(_broken_cells(notebook))
    if not broken:
        return notebook, None
    lines = notebook.module.split("\n")
    for _, start, end, _ in broken:
        lines[start:end] = [""] * (end - start)
    kept = Notebook(notebook.data, notebook.raw, "\n".join(lines), notebook.line_map, notebook.masked,
                    notebook.code_cells, notebook.writable)
    return kept, broken[0][3]


def _broken_cells(notebook: Notebook) -> Iterator[tuple[int, int, int, SourceError]]:
    """(its number, first and past-the-last index of its lines in the module's lines, the error) of each cell
    that does not parse on its own, in order (a caller that wants the first stops there)."""
    import ast

    start = 1
    lines = notebook.module.split("\n")
    for number, _ in notebook.code_cells:
        end = start + 1
        while end <= len(lines) and notebook.line_map.get(end) is not None:
            end += 1
        text = "\n".join(lines[start: end - 1])
        try:
            ast.parse(text)
        except SyntaxError as error:
            where = f"cell {number}" + (f", line {error.lineno}" if error.lineno else "")
            at = (number, error.lineno, error.offset or 1) if error.lineno else None
            yield number, start, end - 1, SourceError(f"syntax error at {where}: {error.msg}", at)
        except (ValueError, MemoryError, RecursionError) as error:
            yield number, start, end - 1, SourceError(f"cannot parse cell {number}: {type(error).__name__}")
        start = end


# -- masking IPython syntax ----------------------------------------------------------------------------
def _mask(text: str, store: dict[int, list[str]]) -> list[str]:
    """The cell's lines with IPython syntax replaced by tagged Python of the same indentation."""
    lines = split_lines(text)
    if not lines:
        return []
    first = lines[0].lstrip()
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        if name in PYTHON_CELL_MAGICS:
            return [_tag("", lines[0:1], store, "pass")] + _mask_lines(lines[1:], store)
        # Another language or a subprocess (%%bash, %%writefile, %%html ...): nothing here is kernel Python.
        return [_tag("", lines, store, "pass")] + [""] * (len(lines) - 1)
    magic = _automagic(lines)
    if magic is not None:
        return lines[:magic] + [_tag("", lines[magic:], store, "pass")]  # (IPython dedents a cell's first line)
    return _mask_lines(lines, store)


def _tag(indent: str, originals: list[str], store: dict[int, list[str]], statement: str) -> str:
    key = len(store)
    store[key] = list(originals)
    return f"{indent}{statement}{_MAGIC_TAG}{key}"


def _candidates(lines: list[str]) -> dict[int, tuple[str, str, int]]:
    """0-based line -> (indent, replacement statement, lines it spans) for every line that looks like IPython."""
    found: dict[int, tuple[str, str, int]] = {}
    i = 0
    while i < len(lines):  # bounded: i grows by at least one each turn
        line = lines[i]
        assign = _ASSIGN.match(line)
        match = _ESCAPE.match(line) or _HELP.match(line)
        if assign or match:
            span = 1
            while i + span - 1 < len(lines) - 1 and lines[i + span - 1].rstrip().endswith("\\"):
                span += 1  # a magic continued with a backslash takes the next line too
            timed = _TIMED.match(line) if span == 1 else None
            if assign:
                found[i] = (assign["indent"], f"{assign['names']} = ...", span)
            elif timed is not None and _one_simple_statement(timed["code"]):
                found[i] = (timed["indent"], _TIMED_MASK.ljust(len(timed["magic"])) + timed["code"], span)
            else:
                found[i] = (match["indent"], "pass", span)
            i += span
        else:
            i += 1
    return found


def _automagic(lines: list[str]) -> Optional[int]:
    """The index of the line of a cell that IPython runs as a magic without its ``%`` (``cd gdrive``), or None.
    IPython does so only for a cell of one line once its leading blank lines are dropped (measured: ``cd .`` runs,
    ``cd .`` followed by any other line, a blank one included, is a SyntaxError), and not for a line that is
    Python (``pwd``, ``time = 3``)."""
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or first != len(lines) - 1:
        return None
    match = _AUTOMAGIC.match(lines[first])
    if match is None or match["name"] not in _AUTOMAGICS or match["rest"] is None or \
            match["rest"].startswith(_PYTHON_AFTER_NAME):
        return None
    try:
        ast.parse(lines[first].strip())
    except (SyntaxError, ValueError):
        return first
    return None


def _one_simple_statement(code: str) -> bool:
    """Whether *code* is Python that may follow ``pass;`` on one line (one or more simple statements)."""
    try:
        ast.parse(f"{_TIMED_MASK} {code}")
    except (SyntaxError, ValueError):
        return False
    return True


def _mask_lines(lines: list[str], store: dict[int, list[str]]) -> list[str]:
    candidates = _candidates(lines)
    # A candidate inside a multi-line string or an open bracket is Python; drop such candidates until the
    # masked text says every remaining one starts a logical line (each round drops one at least, or stops).
    for _ in range(len(candidates) + 1):
        masked = _apply(lines, candidates)
        inside = _not_at_statement_start(masked)
        wrong = [i for i in candidates if i + 1 in inside]
        if not wrong:
            break
        for i in wrong:
            del candidates[i]
    out = list(lines)
    for i in sorted(candidates):
        indent, statement, span = candidates[i]
        out[i] = _tag(indent, lines[i: i + span], store, statement)
        for j in range(i + 1, i + span):
            out[j] = ""
    return out


def _apply(lines: list[str], candidates: dict[int, tuple[str, str, int]]) -> str:
    out = list(lines)
    for i, (indent, statement, span) in candidates.items():
        out[i] = indent + statement
        for j in range(i + 1, i + span):
            out[j] = ""
    return "\n".join(out) + "\n"


def _not_at_statement_start(text: str) -> set[int]:
    """1-based lines that begin inside a string, a bracket, or after a backslash continuation."""
    inside: set[int] = set()
    depth = 0
    seen: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            row = token.start[0]
            if row not in seen:
                seen.add(row)
                if depth > 0:
                    inside.add(row)
            if token.type == tokenize.STRING and token.end[0] > row:
                inside.update(range(row + 1, token.end[0] + 1))
                seen.update(range(row + 1, token.end[0] + 1))
            elif token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth = max(0, depth - 1)
    except (tokenize.TokenError, SyntaxError):
        pass  # an unfinished cell: the parse check reports it
    for row, line in enumerate(text.split("\n"), start=1):
        if line.rstrip().endswith("\\") and row + 1 not in seen:
            inside.add(row + 1)
    return inside


# -- findings ------------------------------------------------------------------------------------------
def to_cells(notebook: Notebook, findings: list[Finding]) -> list[Finding]:
    """Findings on the module, re-placed in cells (``cell`` set; ``line``/``end_line`` within the cell)."""
    out = []
    for finding in findings:
        start = notebook.position(finding.line)
        if start is None:
            continue  # on a marker line: not the user's code
        end = notebook.position(finding.end_line)
        end_line, end_col = (end[1], finding.end_col) if end is not None and end[0] == start[0] \
            else (start[1], finding.col)
        args = {key: NOTEBOOK_LINE.sub(lambda m: _cell_line(notebook, int(m.group(1))), value)
                for key, value in finding.args.items()}
        out.append(finding.replace(cell=start[0], line=start[1], end_line=end_line, end_col=end_col, args=args))
    return sorted(out, key=Finding.sort_key)


def _cell_line(notebook: Notebook, line: int) -> str:
    where = notebook.position(line)
    return f"cell {where[0]}, line {where[1]}" if where else "the notebook"


# -- fixing ----------------------------------------------------------------------------------------------
class NotebookFixError(Exception):
    """The fixed module cannot be put back into the notebook; ``str()`` says why."""


def split_fixed(notebook: Notebook, fixed: str) -> dict[int, str]:
    """Cell number -> new source text for every code cell whose text the fixer changed."""
    lines = fixed.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    segments: dict[int, list[str]] = {}
    order: list[int] = []
    current: Optional[int] = None
    above: list[str] = []  # lines above the first cell marker (an import the fixer added at the top): the first cell's
    for line in lines:
        marker = _CELL_MARKER_RE.match(line)
        if marker:
            current = int(marker.group(1))
            if current in segments:
                raise NotebookFixError(f"cell {current} appears twice in the fixed module")
            segments[current], above = above, []
            order.append(current)
            continue
        if current is None:
            if not notebook.code_cells:
                raise NotebookFixError("the fix added code to a notebook without code cells")
            above.append(line)
            continue
        segments[current].append(line)
    if order != [number for number, _ in notebook.code_cells]:
        raise NotebookFixError("the fix moved code across cells")
    changed: dict[int, str] = {}
    originals = {number: _source_text(notebook.data["cells"][index]) for number, index in notebook.code_cells}
    before = split_fixed_plain(notebook)
    for number, body in segments.items():
        if body == before[number]:
            continue
        text = "\n".join(_unmask_all(body, notebook))
        if originals[number].endswith("\n") or not originals[number]:
            text += "\n"
        if text != originals[number]:
            changed[number] = text
    return changed


def cells_with_lines(notebook: Notebook, lines: dict[int, str]) -> dict[int, str]:
    """Cell number -> new source text, for the module's lines *lines* (module line -> its new text) replaced in
    the cells they come from (``--add-noqa``: a comment added at the end of a line)."""
    per_cell: dict[int, dict[int, str]] = {}
    for line, text in lines.items():
        where = notebook.position(line)
        if where is not None:
            per_cell.setdefault(where[0], {})[where[1]] = text
    return {number: replace_lines(_source_text(notebook.data["cells"][number - 1]), edits)
            for number, edits in per_cell.items()}


def split_fixed_plain(notebook: Notebook) -> dict[int, list[str]]:
    """Cell number -> the masked lines of that cell, as in :attr:`Notebook.module`."""
    out: dict[int, list[str]] = {}
    current = None
    for line in notebook.module.split("\n")[:-1]:
        marker = _CELL_MARKER_RE.match(line)
        if marker:
            current = int(marker.group(1))
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return out


def _unmask_all(body: list[str], notebook: Notebook) -> list[str]:
    """The cell's lines with every tagged line replaced by the IPython line(s) it masked."""
    out: list[str] = []
    i = 0
    while i < len(body):  # bounded: i grows each turn
        line = body[i]
        tag = _MAGIC_TAG_RE.match(line)
        i += 1
        if tag is None:
            out.append(line)
            continue
        originals = notebook.masked.get(int(tag["key"]))
        if originals is None:
            raise NotebookFixError("a masked IPython line was lost")
        # The blank lines that kept the line count of a multi-line magic go back to being that magic.
        for _ in originals[1:]:
            if i < len(body) and body[i].strip() == "":
                i += 1
        # The fixer may have re-indented it: keep its new indentation relative to the original's.
        first = originals[0]
        old_indent = first[: len(first) - len(first.lstrip())]
        new_indent = tag["indent"]
        timed = _TIMED.match(first)
        statement = line[len(new_indent):line.rindex(_MAGIC_TAG)]
        if timed is not None and statement.startswith(_TIMED_MASK):
            # (the statement a timing magic runs, as the fixer left it, after the magic)
            out.append(new_indent + timed["magic"] + statement[len(timed["magic"]):])
            continue
        out.extend(new_indent + o[len(old_indent):] if o.startswith(old_indent) else o for o in originals)
    return out


def masked_rows(lines: list[str]) -> set[int]:
    """The rows (1-based) of a notebook's module *lines* that stand for masked IPython lines."""
    return {number for number, line in enumerate(lines, start=1) if _MAGIC_TAG_RE.match(line)}


def _split_source(text: str, like: Any) -> Any:
    return text.splitlines(keepends=True) if isinstance(like, list) else text


def dumps_like(data: dict, raw: str) -> str:
    """``data`` serialised the way ``raw`` was (indentation, ASCII escaping, trailing newline)."""
    style = _style(raw)
    if style is None:
        raise NotebookFixError("the notebook's JSON layout is not one json.dumps reproduces; not rewritten")
    indent, ensure_ascii, newline = style
    return json.dumps(data, indent=indent, ensure_ascii=ensure_ascii) + newline


def _style(raw: str) -> Optional[tuple[Any, bool, str]]:
    """The json.dumps options that reproduce ``raw`` exactly, or None."""
    data = json.loads(raw)
    stripped = raw.rstrip("\n")
    newline = raw[len(stripped):]
    if newline not in ("", "\n"):
        return None
    for indent in (1, 2, 4, 3, None, "\t"):
        for ensure_ascii in (False, True):
            if json.dumps(data, indent=indent, ensure_ascii=ensure_ascii) == stripped:
                return indent, ensure_ascii, newline
    return None


def rewrite(notebook: Notebook, changed: dict[int, str]) -> str:
    """The notebook's text with the ``source`` of the changed cells replaced, everything else as it was."""
    if not notebook.writable:
        raise NotebookFixError("an nbformat-3 notebook is not rewritten (`jupyter nbconvert --to notebook "
                               "--nbformat 4` upgrades it)")
    data = json.loads(notebook.raw)  # a fresh copy: notebook.data stays the original
    for number, text in changed.items():
        cell = data["cells"][number - 1]
        cell["source"] = _split_source(text, cell.get("source", ""))
    return dumps_like(data, notebook.raw)


def cell_diff(notebook: Notebook, changed: dict[int, str], path: str) -> list[str]:
    """A unified diff of the changed cells, one hunk group per cell (``path:cell N``)."""
    out: list[str] = []
    for number in sorted(changed):
        before = split_rows(_source_text(notebook.data["cells"][number - 1]))
        after = split_rows(changed[number])
        name = f"{path}:cell {number}"
        for line in difflib.unified_diff(before, after, fromfile=name, tofile=name):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return out
