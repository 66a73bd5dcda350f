"""Add the imports a fix needs (``functools``, ``freeze_support``), placed where isort places them.

The module's leading block of import statements (behind a docstring or ``__strict__`` flag) is the only
place looked at and written to; a name from a module that block already imports from joins the first such
statement (``from multiprocessing import Pool`` becomes ``from multiprocessing import Pool, freeze_support``);
anything else goes into the block's standard-library group, ``import m`` before ``from m import n``, each
in module order, or starts that group (after ``__future__`` imports, set off by blank lines) when there is
none.

The codemods that edit rows (no libcst tree of the module) add their imports on the rows, where
:func:`add_imports` would put them (:func:`add_imports_to_text`; tests hold the two to each other).

Why not AddImportsVisitor itself: it walks the whole tree twice through matchers and scans its own
methods for matcher decorators on every instantiation: 70 ms per fixed file, measured, half of the time
``--fix`` spent.  Looking at the leading statements only is enough for the same result.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from typing import Iterable, Optional

from . import _cst as cst


def add_imports(tree: cst.Module, needed: Iterable[tuple[str, Optional[str]]]) -> cst.Module:
    """``tree`` with ``import module`` (name None) or ``from module import name`` for each of ``needed``
    that its leading import block lacks."""
    body = list(tree.body)
    start, end = _leading_import_block(body)
    modules: set[str] = set()
    names_from: dict[str, set[str]] = {}
    for statement in body[start:end]:
        node = statement.body[0]
        if isinstance(node, cst.Import):
            modules.update(alias.evaluated_name for alias in node.names if alias.asname is None)
        elif (module := _absolute_module(node)) is not None:
            have = names_from.setdefault(module, set())
            if isinstance(node.names, cst.ImportStar):
                have.add("*")
            else:
                have.update(alias.evaluated_name for alias in node.names if alias.asname is None)

    new_modules: set[str] = set()
    new_names: dict[str, set[str]] = {}
    for module, name in needed:
        if name is None:
            if module not in modules:
                new_modules.add(module)
        elif not {"*", name} & names_from.get(module, set()):
            new_names.setdefault(module, set()).add(name)
    if not new_modules and not new_names:
        return tree

    # A name joins the first statement of the leading block that imports from its module.
    for index in range(start, end):
        node = body[index].body[0]
        if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            module = _absolute_module(node)
            if module in new_names:
                body[index] = body[index].with_changes(body=[_with_names(node, new_names.pop(module))])
    if not new_modules and not new_names:
        return tree.with_changes(body=body)

    config = tree.config_for_parsing
    inserted = [cst.parse_statement(f"import {module}", config=config) for module in sorted(new_modules)]
    inserted += [cst.parse_statement(f"from {module} import {', '.join(sorted(names))}", config=config)
                 for module, names in sorted(new_names.items())]
    for statement in inserted:
        body, end = _insert_in_stdlib_group(body, start, end, statement)
    return tree.with_changes(body=body)


def add_imports_to_text(text: str, module: ast.Module, needed: Iterable[tuple[str, Optional[str]]]) -> str:
    """:func:`add_imports` on the rows of ``text``, for the codemods that edit rows: ``module`` is the ``ast`` of an
    earlier version of ``text`` edited below its import block only (the rows of that block are the same), and
    the result is the text libcst would render."""
    from .lines import Lines

    lines = Lines(text)
    body = module.body
    start = 1 if body and _is_ast_docstring_or_strict_flag(body[0], lines) else 0
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
    return lines.edited()


def _join_names(lines, node: ast.ImportFrom, names: set[str]) -> None:
    """:func:`_with_names` on rows: each of ``names`` into ``node``'s names where it sorts (at the end when they are
    not sorted), after the separator the statement uses between its last two names (``, `` for one name)."""
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


def _is_ast_docstring_or_strict_flag(node: ast.stmt, lines) -> bool:
    """:func:`_is_docstring_or_strict_flag` on the ``ast``: a docstring is one string literal (libcst's
    ``SimpleString``; ``"a" "b"`` is not one)."""
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
    """Whether statement ``index`` has its rows to itself (libcst's one-statement line: no ``;``)."""
    node = body[index]
    return ((index == 0 or body[index - 1].end_lineno < node.lineno)
            and (index + 1 == len(body) or body[index + 1].lineno > node.end_lineno))


def _ast_import(node: ast.stmt) -> tuple[bool, int, str]:
    """:func:`_import` of an ``ast`` statement."""
    if isinstance(node, ast.Import):
        return True, 0, node.names[0].name
    return False, node.level, node.module or ""


def _insert_in_stdlib_group(body: list, start: int, end: int, statement) -> tuple[list, int]:
    """``body`` with ``statement`` where isort puts it in the leading import block ``body[start:end]``: in the
    standard library group, ``import m`` before ``from m import n``, each sorted by module; a new group
    (after ``__future__`` imports, before the others, set off by blank lines) when there is none."""
    key = _sort_key(*_import(statement.body[0]))
    group = [i for i in range(start, end) if _group(*_import(body[i].body[0])) == "stdlib"]
    if not group:
        future = [i for i in range(start, end) if _group(*_import(body[i].body[0])) == "future"]
        at = future[-1] + 1 if future else start
        lines: list = [cst.EmptyLine()] if future else []
        if not future and at < end:  # it goes first: what stood above the block (a comment) stays on top
            lines = list(body[at].leading_lines)
            body[at] = body[at].with_changes(leading_lines=[])
        if at < len(body) and not _starts_with_blank(body[at]):  # the next group, or the code, after a blank
            body[at] = body[at].with_changes(leading_lines=(cst.EmptyLine(), *body[at].leading_lines))
        return [*body[:at], statement.with_changes(leading_lines=lines), *body[at:]], end + 1
    after = next((i for i in group if _sort_key(*_import(body[i].body[0])) > key), None)
    if after is None:
        at = group[-1] + 1
        return [*body[:at], statement, *body[at:]], end + 1
    # Before a statement of the group: take its leading lines (a comment above the group stays on top).
    lines = list(body[after].leading_lines)
    body[after] = body[after].with_changes(leading_lines=[])
    return [*body[:after], statement.with_changes(leading_lines=lines), *body[after:]], end + 1


def _import(node) -> tuple[bool, int, str]:
    """What isort sorts a libcst import statement by: ``import m`` or ``from``, the relative level, the module."""
    if isinstance(node, cst.Import):
        return True, 0, cst.helpers().get_full_name_for_node(node.names[0].name) or ""
    name = cst.helpers().get_full_name_for_node(node.module) if node.module else None
    return False, len(node.relative), name or ""


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


def _starts_with_blank(statement) -> bool:
    lines = getattr(statement, "leading_lines", ())
    return bool(lines) and lines[0].comment is None


def _with_names(node: cst.ImportFrom, names: set[str]) -> cst.ImportFrom:
    """``from m import a, c`` with ``b`` added where it sorts (``a, b, c``), or at the end when the names
    are not sorted already."""
    aliases = list(node.names)
    existing = [alias.evaluated_name for alias in aliases]
    for name in sorted(names):
        at = len(aliases)
        if existing == sorted(existing):
            at = next((i for i, alias in enumerate(aliases) if alias.evaluated_name > name), len(aliases))
        # The separator the statement already uses (", " or a comma and a new line in parentheses).
        comma = aliases[-2].comma if len(aliases) > 1 else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        new = cst.ImportAlias(name=cst.Name(name))
        if at < len(aliases):
            aliases.insert(at, new.with_changes(comma=comma))
        else:  # the new last name keeps a trailing comma if there was one
            last = aliases[-1]
            aliases[-1] = last.with_changes(comma=comma)
            aliases.append(new.with_changes(comma=last.comma))
        existing.insert(at, name)
    return node.with_changes(names=aliases)


def _leading_import_block(body: list[cst.CSTNode]) -> tuple[int, int]:
    """``(start, end)``: ``body[start:end]`` are the one-import statements at the top, after a docstring."""
    start = 1 if body and _is_docstring_or_strict_flag(body[0]) else 0
    end = start
    while (end < len(body) and isinstance(body[end], cst.SimpleStatementLine) and len(body[end].body) == 1
           and isinstance(body[end].body[0], (cst.Import, cst.ImportFrom))):
        end += 1
    return start, end


def _is_docstring_or_strict_flag(statement: cst.CSTNode) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    node = statement.body[0]
    if isinstance(node, cst.Expr):
        return isinstance(node.value, cst.SimpleString)
    return (isinstance(node, cst.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0].target, cst.Name) and node.targets[0].target.value == "__strict__")


def _absolute_module(node: cst.ImportFrom) -> Optional[str]:
    if node.relative or node.module is None:
        return None  # a relative import's module depends on the package, which a file alone does not name
    return cst.helpers().get_full_name_for_node(node.module)
