"""Add the imports a fix needs (``functools``, ``freeze_support``), placed as libcst's ``AddImportsVisitor`` places them.

The placement rules are AddImportsVisitor's: the module's leading block of import statements (behind a
docstring or ``__strict__`` flag) is the only place looked at and written to; a name from a module that
block already imports from joins the first such statement; anything else goes at the end of the block,
``import m`` before ``from m import n``, and the first statement after it gets a blank line.

Why not AddImportsVisitor itself: it walks the whole tree twice through matchers and scans its own
methods for matcher decorators on every instantiation: 70 ms per fixed file, measured, half of the time
``--fix`` spent.  Looking at the leading statements only is enough for the same result.
"""

from __future__ import annotations

from typing import Iterable, Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node


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
                added = [cst.ImportAlias(name=cst.Name(name)) for name in sorted(new_names.pop(module))]
                body[index] = body[index].with_changes(body=[node.with_changes(names=[*added, *node.names])])
    if not new_modules and not new_names:
        return tree.with_changes(body=body)

    config = tree.config_for_parsing
    inserted = [cst.parse_statement(f"import {module}", config=config) for module in sorted(new_modules)]
    inserted += [cst.parse_statement(f"from {module} import {', '.join(sorted(names))}", config=config)
                 for module, names in new_names.items()]
    after = body[end:]
    if after:
        first = after[0]
        if not first.leading_lines or first.leading_lines[0].comment is not None:
            after[0] = first.with_changes(leading_lines=(cst.EmptyLine(), *first.leading_lines))
    return tree.with_changes(body=[*body[:end], *inserted, *after])


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
    return get_full_name_for_node(node.module)
