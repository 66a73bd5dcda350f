"""Add the imports a fix needs (``functools``, ``freeze_support``), placed where isort places them.

The module's leading block of import statements (behind a docstring or ``__strict__`` flag; in a notebook's module,
the first cell's) is the only place looked at and written to; a name from a module that block already imports from
joins the first such statement (``from multiprocessing import Pool`` becomes ``from multiprocessing import Pool,
freeze_support``); anything else goes into the block's standard-library group, ``import m`` before ``from m import
n``, each in module order, or starts that group (after ``__future__`` imports, set off by blank lines) when there is
none.  A codemod asks for an import (:meth:`._base.Codemod.add_import`); the driver adds it after applying the
codemod's edits (:func:`import_edits`), once for all the fixes that need it.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from typing import Iterable, Optional

from ._base import Edit


def import_edits(text: str, module: ast.Module, needed: Iterable[tuple[str, Optional[str]]]) -> list[Edit]:
    """The edits of ``text`` that add each of ``needed`` (``(module, None)`` for ``import module``, ``(module,
    name)`` for ``from module import name``) that its leading import block lacks.  ``module`` is the ``ast`` of
    ``text``, or of an earlier version of it edited below its import block only (the rows of that block are the
    same)."""
    from .lines import Lines

    lines = Lines(text)
    body = module.body
    start = 0
    if body and _is_cell_marker(body[0]):  # a notebook's module: the imports of its first cell
        start = 1
    if start < len(body) and _is_docstring_or_strict_flag(body[start], lines):
        start += 1
    end = start
    while end < len(body) and isinstance(body[end], (ast.Import, ast.ImportFrom)) and _alone(body, end):
        end += 1
    have = {alias.name for node in body[start:end] if isinstance(node, ast.Import)
            for alias in node.names if alias.asname is None}
    names_from: dict[str, set[str]] = {}
    for node in body[start:end]:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names_from.setdefault(node.module, set()).update(
                alias.name for alias in node.names if alias.asname is None)
    new_modules = sorted({name for name, alias in needed if alias is None} - have)
    new_names: dict[str, set[str]] = {}
    for name, alias in needed:
        if alias is not None and not {"*", alias} & names_from.get(name, set()):
            new_names.setdefault(name, set()).add(alias)
    # A name joins the first statement of the leading block that imports from its module.
    for node in body[start:end]:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.names[0].name != "*" \
                and node.module in new_names:
            _join_names(lines, node, new_names.pop(node.module))
    statements = [(0, f"import {name}") for name in new_modules]
    statements += [(1, f"from {name} import {', '.join(sorted(aliases))}")
                   for name, aliases in sorted(new_names.items())]
    inserts: dict[int, list[str]] = {}  # row -> the rows to insert before it, in order
    new_group: list[str] = []
    for plain, code in statements:
        key = (plain, code.split()[1].lower())
        group = [i for i in range(start, end) if _group(*_ast_import(body[i])) == "stdlib"]
        if not group:
            new_group.append(code)
            continue
        after = next((i for i in group if _sort_key(*_ast_import(body[i])) > key), None)
        # After the group's last statement, or before the first that sorts after it (under that one's comments).
        row = lines.last(body[group[-1]]) + 1 if after is None else lines.first(body[after])
        inserts.setdefault(row, []).append(f"{code}\n")
    if new_group:  # a standard-library group of its own: after __future__ imports, else first
        future = [i for i in range(start, end) if _group(*_ast_import(body[i])) == "future"]
        at = future[-1] + 1 if future else start
        code = "".join(f"{statement}\n" for statement in new_group)
        following = at < len(body)
        if following and not future and at < end:  # under the comments of the block's first statement
            row, blank_before = lines.first(body[at]), False
        else:
            row = (lines.top_leading(module, at) if following else lines.last(body[-1]) + 1 if body
                   else len(lines.rows) + 1)
            blank_before = bool(future)
        # The statement after the group is set off by a blank row, unless its leading rows start with one.
        blank_after = following and not (row == lines.top_leading(module, at) and at and
                                         not lines.row(row).strip() and row < lines.first(body[at]))
        inserts.setdefault(row, []).append(("\n" if blank_before else "") + code + ("\n" if blank_after else ""))
    for row, rows in inserts.items():
        lines.insert(row, "".join(rows))
    return lines.edits()


def _join_names(lines, node: ast.ImportFrom, names: set[str]) -> None:
    """Each of ``names`` into ``node``'s names where it sorts (at the end when they are not sorted), after the
    separator the statement uses between its last two names (``, `` for one name)."""
    aliases = node.names
    starts = [lines.at(alias.lineno, alias.col_offset) for alias in aliases]
    ends = [lines.at(alias.end_lineno, alias.end_col_offset) for alias in aliases]
    comma = lines.text[ends[-2]:starts[-1]].replace(lines.newline, "\n") if len(aliases) > 1 else ", "
    existing = [alias.name for alias in aliases]
    at_end: list[str] = []
    for name in sorted(names):
        at = next((i for i, alias in enumerate(existing) if alias > name), len(existing)) \
            if existing == sorted(existing) else len(existing)
        if at < len(aliases):
            lines.insert_at(starts[at], name + comma)
        else:
            at_end.append(comma + name)
    if at_end:
        lines.insert_at(ends[-1], "".join(at_end))


def _is_cell_marker(node: ast.stmt) -> bool:
    """``...``: the statement a notebook's module starts each cell with (:mod:`winspawn_lint.io.notebook`)."""
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node.value.value is Ellipsis


def _is_docstring_or_strict_flag(node: ast.stmt, lines) -> bool:
    """A docstring (one string literal: ``"a" "b"`` is not one) or ``__strict__ = ...``."""
    if isinstance(node, ast.Expr):
        if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, (str, bytes))):
            return False
        try:
            tokens = tokenize.generate_tokens(io.StringIO(lines.segment(node.value).lstrip()).readline)
            return sum(token.type == tokenize.STRING for token in tokens) == 1
        except (tokenize.TokenError, SyntaxError):
            return False
    return (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "__strict__")


def _alone(body: list, index: int) -> bool:
    """Whether statement ``index`` has its rows to itself (no ``;``)."""
    node = body[index]
    return ((index == 0 or body[index - 1].end_lineno < node.lineno)
            and (index + 1 == len(body) or body[index + 1].lineno > node.end_lineno))


def _ast_import(node: ast.stmt) -> tuple[bool, int, str]:
    """What isort sorts an import statement by: ``import m`` or ``from``, the relative level, the module."""
    if isinstance(node, ast.Import):
        return True, 0, node.names[0].name
    return False, node.level, node.module or ""


def _sort_key(plain: bool, level: int, module: str) -> tuple[int, str]:
    """isort's order within a group: ``import m`` before ``from m import n``, each by module."""
    if plain:
        return 0, module.lower()
    return 1, ("." * level + module).lower() if module else ""


def _group(plain: bool, level: int, module: str) -> str:
    """isort's section of an import: future, stdlib, local (relative), or other."""
    if level:
        return "local"
    top = module.split(".")[0]
    if top == "__future__":
        return "future"
    return "stdlib" if top in sys.stdlib_module_names else "other"
