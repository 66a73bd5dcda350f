"""Scope facts the codemods need, computed on the stdlib ``ast`` of the same text.

Which names a lambda or local ``def`` takes from enclosing *function* scopes
(those must become ``functools.partial`` arguments when it moves to module
level), whether each is bound before the definition runs, and what a module's
top-level statements bind and read.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional, Union

FUNCTION_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
SCOPES = (*FUNCTION_SCOPES, *COMPREHENSIONS, ast.ClassDef)
FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]


class CannotHoist(Exception):
    """Why a definition cannot move to module level (the fix is skipped, the finding stays)."""


def parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    out: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            out[child] = node
    return out


def ancestors(node: ast.AST, parent: dict[ast.AST, ast.AST]) -> Iterator[ast.AST]:
    while node in parent:
        node = parent[node]
        yield node


def top_level_statement(node: ast.AST, parent: dict[ast.AST, ast.AST]) -> ast.stmt:
    current = node
    while not isinstance(parent.get(current), ast.Module):
        current = parent[current]
    return current  # type: ignore[return-value]


def _walk_scope(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Nodes evaluated in the scope that owns ``nodes`` (nested scopes' own parts are skipped)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(node.decorator_list)
            stack.extend(_defaults(node.args))
            if node.returns:
                stack.append(node.returns)
            continue
        if isinstance(node, ast.Lambda):
            stack.extend(_defaults(node.args))
            continue
        if isinstance(node, ast.ClassDef):
            stack.extend(node.decorator_list)
            stack.extend(node.bases)
            stack.extend(k.value for k in node.keywords)
            continue
        if isinstance(node, COMPREHENSIONS):
            stack.append(node.generators[0].iter)  # the first iterable runs in the enclosing scope
            continue
        stack.extend(ast.iter_child_nodes(node))


def _defaults(args: ast.arguments) -> list[ast.expr]:
    return [*args.defaults, *(d for d in args.kw_defaults if d is not None)]


def _params(args: ast.arguments) -> list[ast.arg]:
    out = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if args.vararg:
        out.append(args.vararg)
    if args.kwarg:
        out.append(args.kwarg)
    return out


@dataclass
class ScopeBindings:
    names: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # name -> binding positions (ast)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)

    def add(self, name: str, node: ast.AST) -> None:
        self.names.setdefault(name, []).append((getattr(node, "lineno", 0), getattr(node, "col_offset", 0)))


def scope_bindings(scope: ast.AST) -> ScopeBindings:
    """What a function, lambda, comprehension or module binds, with where."""
    out = ScopeBindings()
    if isinstance(scope, FUNCTION_SCOPES):
        for arg in _params(scope.args):
            out.names.setdefault(arg.arg, []).append((0, 0))  # bound on entry
        body: list[ast.AST] = [scope.body] if isinstance(scope, ast.Lambda) else list(scope.body)
    elif isinstance(scope, COMPREHENSIONS):
        body = []
        for generator in scope.generators:
            for node in ast.walk(generator.target):
                if isinstance(node, ast.Name):
                    out.names.setdefault(node.id, []).append((0, 0))
            body.extend(generator.ifs)
            body.append(generator.iter)
        body.extend([scope.key, scope.value] if isinstance(scope, ast.DictComp) else [scope.elt])
    else:
        body = list(getattr(scope, "body", []))
    for node in _walk_scope(body):
        _record(node, out)
    return out


def _record(node: ast.AST, out: ScopeBindings) -> None:
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        out.add(node.id, node)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out.add(node.name, node)
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            out.add((alias.asname or alias.name).split(".")[0], node)
    elif isinstance(node, ast.ExceptHandler) and node.name:
        out.add(node.name, node)
    elif isinstance(node, ast.Global):
        out.globals.update(node.names)
    elif isinstance(node, ast.Nonlocal):
        out.nonlocals.update(node.names)
    elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
        out.add(node.name, node)
    elif isinstance(node, ast.MatchMapping) and node.rest:
        out.add(node.rest, node)


def loaded_names(nodes: Iterable[ast.AST]) -> set[str]:
    """Every name read anywhere inside ``nodes`` (nested scopes included)."""
    out: set[str] = set()
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                out.add(node.id)
    return out


def bound_anywhere(nodes: Iterable[ast.AST]) -> set[str]:
    """Every name bound anywhere inside ``nodes`` (nested scopes included)."""
    out = ScopeBindings()
    for root in nodes:
        for node in ast.walk(root):
            _record(node, out)
            if isinstance(node, ast.arg):
                out.add(node.arg, node)
    return set(out.names)


def _free_in(function: FunctionNode) -> set[str]:
    """Names read in the function (or lambda) body that it does not bind itself."""
    own = scope_bindings(function)
    body = [function.body] if isinstance(function, ast.Lambda) else list(function.body)
    inner_bound: set[str] = set()
    reads: set[str] = set()
    for root in body:
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                reads.add(node.id)
            if isinstance(node, SCOPES) and node is not function:
                inner_bound |= set(scope_bindings(node).names) if not isinstance(node, ast.ClassDef) else set()
    if own.nonlocals:
        raise CannotHoist("it declares `nonlocal`")
    ambiguous = (reads & inner_bound) - set(own.names) - own.globals
    # A name bound in a nested scope and also read elsewhere: only safe when no enclosing function binds it.
    free = reads - set(own.names) - own.globals
    return free | ambiguous


def enclosing_free_variables(function: FunctionNode, parent: dict[ast.AST, ast.AST]) -> list[str]:
    """The names ``function`` reads from enclosing function scopes, in first-read order.

    Raises CannotHoist when one of them may not be bound yet where the function is defined,
    or when moving the function would change what a name refers to.
    """
    free = _free_in(function)
    if "super" in free or "__class__" in free:
        raise CannotHoist("it uses zero-argument `super()`")
    start = (function.lineno, function.col_offset)
    chosen: list[str] = []
    for scope in ancestors(function, parent):
        if isinstance(scope, ast.Module):
            break
        if isinstance(scope, ast.ClassDef):
            continue  # class bodies are not visible to functions defined in them
        bindings = scope_bindings(scope)
        for name in sorted(free):
            if name in bindings.globals:
                free.discard(name)
                continue
            if name in bindings.names:
                positions = bindings.names[name]
                if not any(pos < start for pos in positions):
                    raise CannotHoist(f"`{name}` is assigned only after it in the enclosing function")
                chosen.append(name)
                free.discard(name)
    # Keep the order in which the body first reads them (stable, readable partial(...) calls).
    order = [n.id for n in ast.walk(function.body if isinstance(function, ast.Lambda) else ast.Module(function.body, []))
             if isinstance(n, ast.Name)]
    return sorted(chosen, key=lambda name: order.index(name) if name in order else len(order))


def enclosing_function_names(node: ast.AST, parent: dict[ast.AST, ast.AST]) -> set[str]:
    """Names bound by the function scopes around ``node`` (not the module)."""
    out: set[str] = set()
    for scope in ancestors(node, parent):
        if isinstance(scope, ast.Module):
            break
        if not isinstance(scope, ast.ClassDef):
            out |= set(scope_bindings(scope).names)
    return out


def is_plain_default(expr: ast.expr, local_names: set[str]) -> bool:
    """A default value that means the same evaluated once at module level: no calls, no local names."""
    for node in ast.walk(expr):
        if isinstance(node, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, *COMPREHENSIONS, ast.Lambda)):
            return False
        if isinstance(node, ast.Name) and node.id in local_names:
            return False
    return True


def module_names(tree: ast.Module) -> set[str]:
    """Every identifier used anywhere in the module (to choose names that clash with nothing)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                out.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.Attribute):
            pass
    return out


def unique_name(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken or name in __builtins_names:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


import builtins as _builtins  # noqa: E402

__builtins_names = set(dir(_builtins))


def find_node(tree: ast.AST, kinds: tuple, line: int, col: int) -> Optional[ast.AST]:
    """The node of one of ``kinds`` starting at (line, ast byte col)."""
    for node in ast.walk(tree):
        if isinstance(node, kinds) and node.lineno == line and node.col_offset == col:
            return node
    return None
