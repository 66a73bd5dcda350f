"""Value flow between the functions of one module: which arguments a function's parameters receive, and
which values a name may hold when branches assign it differently.

A loader built in ``main()`` and iterated in ``train(loader)``, a dataset handed to ``make_loader(ds)``, a
transform given to ``build(transform=...)``: the checks follow a parameter back to the arguments of the
calls of its function in this module.  The walk is bounded (call sites per function, and the callers'
depth budget), and a parameter the function rebinds, or a call site whose arguments cannot be matched
(``*args``), gives nothing: unsure means silent.
"""

from __future__ import annotations

import ast
from typing import Optional

from .index import FUNCTION_NODES, ModuleIndex, Scope, Site, branch_paths, exclusive_branches, handler_alternatives
from .names import Resolver
from .workers import resolve_callee

#: Call sites followed per function; a helper called from more places than this is followed through the first.
MAX_CALLERS = 16


class Flow:
    def __init__(self, index: ModuleIndex, resolver: Resolver) -> None:
        self.index = index
        self.resolver = resolver
        self._callers: Optional[dict[ast.AST, list[tuple[ast.Call, Site]]]] = None

    def callers(self, function: ast.AST) -> list[tuple[ast.Call, Site]]:
        """The calls of this module that run *function* (a def node), built once on first use."""
        if self._callers is None:
            self._callers = {}
            for call, site in self.index.calls:
                callee = resolve_callee(call, site, self.index, self.resolver)
                if callee is not None:
                    found = self._callers.setdefault(callee, [])
                    if len(found) < MAX_CALLERS:
                        found.append((call, site))
        return self._callers.get(function, [])

    def arguments(self, expr: ast.AST, scope: Scope) -> list[tuple[ast.expr, Scope]]:
        """When *expr* names a parameter of a function of this module: the arguments its callers give it."""
        if not isinstance(expr, ast.Name):
            return []
        binding = self.resolver.lookup(expr.id, scope, getattr(expr, "lineno", None))
        if binding is None or binding.kind != "param" or not isinstance(binding.scope.node, FUNCTION_NODES):
            return []
        if len(binding.scope.bindings.get(expr.id, ())) != 1:
            return []  # rebound inside the function: the argument is not what reaches the use
        function = binding.scope.node
        positional = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
        keyword_only = {a.arg for a in function.args.kwonlyargs}
        if expr.id in positional:
            position = positional.index(expr.id) - _bound_receivers(function, binding.scope)
        elif expr.id in keyword_only:
            position = None
        else:
            return []  # *args / **kwargs
        out = []
        for call, site in self.callers(function):
            value = _argument(call, expr.id, position)
            if value is not None:
                out.append((value, site.scope))
        return out

    def alternatives(self, expr: ast.AST, scope: Scope) -> list[tuple[ast.expr, Scope]]:
        """Values *expr* (a name) may hold besides its last assignment: those made in other branches of an
        ``if``/``elif``/``else`` (``dataset = LSUN(...)`` in one branch, ``ImageFolder(...)`` in another)."""
        if not isinstance(expr, ast.Name):
            return []
        line = getattr(expr, "lineno", None)
        chosen = self.resolver.lookup(expr.id, scope, line)
        if chosen is None or chosen.kind != "assign":
            return []
        others = [b for b in chosen.scope.bindings.get(expr.id, ()) if b is not chosen and b.kind == "assign"
                  and b.value is not None and (line is None or b.line <= line)]
        if not others:
            return []
        paths = branch_paths(chosen.scope)
        mine = paths.get(chosen.node)
        return [(b.value, b.scope) for b in others if mine is not None and b.node in paths and (
            exclusive_branches(mine, paths[b.node]) or handler_alternatives(mine, paths[b.node]))]


def _bound_receivers(function: ast.AST, scope: Scope) -> int:
    """1 for a method called on an instance or class (``self``/``cls`` is not in the call), else 0."""
    if scope.parent is None or scope.parent.kind != "class":
        return 0
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Name) and decorator.id == "staticmethod":
            return 0
    return 1


def _argument(call: ast.Call, name: str, position: Optional[int]) -> Optional[ast.expr]:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if position is None or position < 0:
        return None
    for index, value in enumerate(call.args):
        if isinstance(value, ast.Starred):
            return None
        if index == position:
            return value
    return None
