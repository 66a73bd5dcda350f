"""The ``ast`` facts the hoisting codemods need on top of :mod:`..analysis.scopes`: where a node sits, which
names a definition takes from the functions around it (and whether it can move to module level at all), and
names that clash with nothing."""

from __future__ import annotations

import ast
import builtins
import functools
from typing import Iterator, Optional

from ..analysis.guards import is_main_guard
from ..analysis.scopes import COMPREHENSIONS, ScopeTree

_BUILTIN_NAMES = frozenset(dir(builtins))


class CannotHoist(Exception):
    """Why a definition cannot move to module level (the fix is skipped, the finding stays)."""


def parents(tree: ast.Module) -> dict[ast.AST, ast.AST]:
    """Each node's parent (shared: do not change it)."""
    return _index(tree)[0]


@functools.lru_cache(maxsize=4)
def _index(tree: ast.Module) -> tuple[dict[ast.AST, ast.AST], frozenset[str], dict[tuple[int, int], list[ast.AST]]]:
    """One walk of a module (the codemods reading one text share it): parents, identifiers, and the lambdas,
    functions and classes by start (what a finding's fix hint points at)."""
    parent: dict[ast.AST, ast.AST] = {}
    names: set[str] = set()
    starts: dict[tuple[int, int], list[ast.AST]] = {}
    todo: list[ast.AST] = [tree]
    while todo:  # each node is pushed once, by its parent: ends with the tree
        node = todo.pop()
        for name in node._fields:  # ast.iter_child_nodes, inlined (this walk is a large part of a fix)
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        parent[item] = node
                        todo.append(item)
            elif isinstance(value, ast.AST) and not isinstance(value, ast.expr_context):
                parent[value] = node
                todo.append(value)
        kind = type(node)
        if kind is ast.Name:
            names.add(node.id)
        elif kind is ast.arg:
            names.add(node.arg)
        elif kind in _STARTS:
            if kind is not ast.Lambda:
                names.add(node.name)
            starts.setdefault((node.lineno, node.col_offset), []).append(node)
        elif kind is ast.Import or kind is ast.ImportFrom:
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
    return parent, frozenset(names), starts


_STARTS = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def forget_index() -> None:
    _index.cache_clear()


def ancestors(node: ast.AST, parent: dict[ast.AST, ast.AST]) -> Iterator[ast.AST]:
    while node in parent:  # ends at the module: every node has one parent and the tree has no cycle
        node = parent[node]
        yield node


def top_level_statement(node: ast.AST, parent: dict[ast.AST, ast.AST]) -> ast.stmt:
    return next(a for a in [node, *ancestors(node, parent)] if isinstance(parent.get(a), ast.Module))


def enclosing_free_variables(scopes: ScopeTree, definition: ast.AST) -> list[str]:
    """The names ``definition`` (a nested function or lambda) reads from the functions around it, in
    first-read order: the leading arguments of the ``functools.partial`` that replaces it.

    Raises CannotHoist when one may not be bound yet where the definition runs, or when moving it would
    change what a name refers to (``nonlocal``, zero-argument ``super()``).
    """
    if scopes.declares_nonlocal(definition):
        raise CannotHoist("it declares `nonlocal`")
    if any(name in scope.reads for scope in scopes.scope_of[definition].walk() for name in ("super", "__class__")):
        raise CannotHoist("it uses zero-argument `super()`")
    reads = scopes.enclosing_reads(definition)
    start = (definition.lineno, definition.col_offset)
    for name, (scope, _) in sorted(reads.items()):
        if not any(where < start for where in scope.bindings[name]):
            raise CannotHoist(f"`{name}` is assigned only after it in the enclosing function")
    # A global that only the main guard binds does not exist in a spawned worker (it imports the module as
    # `__mp_main__`): it is passed along like a local.
    guarded = guard_only_names(scopes)
    order = {name: first for name, (_, first) in reads.items()}
    for scope in scopes.scope_of[definition].walk():
        for name, where in scope.reads.items():
            if name in guarded and scopes.resolve(scope, name) is scopes.module:
                order[name] = min(min(where), order.get(name, min(where)))
    return sorted(order, key=lambda name: order[name])


def guard_only_names(scopes: ScopeTree) -> set[str]:
    """Module-level names bound only inside ``if __name__ == "__main__":`` blocks."""
    spans = [((s.lineno, s.col_offset), (s.end_lineno or s.lineno, s.end_col_offset or 0))
             for s in scopes.module.node.body if isinstance(s, ast.If) and is_main_guard(s.test)]
    if not spans:
        return set()
    return {name for name, where in scopes.module.bindings.items()
            if all(any(start <= w <= end for start, end in spans) for w in where)}


def is_plain_default(expr: ast.expr) -> bool:
    """A default value that means the same evaluated once at module level: no calls, no side effects."""
    return not any(isinstance(node, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, *COMPREHENSIONS,
                                     ast.Lambda)) for node in ast.walk(expr))


def module_names(tree: ast.Module) -> set[str]:
    """Every identifier used anywhere in the module (to choose names that clash with nothing)."""
    return set(_index(tree)[1])


def unique_name(base: str, taken: set[str]) -> str:
    """``base``, or ``base_N`` with the smallest N that is free (at most len(taken) + 1 tries)."""
    candidates = [base, *(f"{base}_{n}" for n in range(2, len(taken) + 3))]
    name = next(c for c in candidates if c not in taken and c not in _BUILTIN_NAMES)
    taken.add(name)
    return name


def find_node(tree: ast.Module, kinds: tuple, line: int, col: int) -> Optional[ast.AST]:
    """The node of one of ``kinds`` starting at (line, ast byte col)."""
    if all(kind in _STARTS for kind in kinds):  # what fix hints point at, indexed
        return next((node for node in _index(tree)[2].get((line, col), ()) if isinstance(node, kinds)), None)
    for node in ast.walk(tree):
        if isinstance(node, kinds) and node.lineno == line and node.col_offset == col:
            return node
    return None
