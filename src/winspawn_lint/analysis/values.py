"""Constant folding and worker counts: does this call start any worker process?

A count that cannot be resolved (``args.num_workers``, ``os.cpu_count()``) is
*unknown*; the settings decide whether unknown means "may be > 0" (the
default, since that is the common case in real training scripts).
"""

from __future__ import annotations

import ast
import operator
from typing import Any, Callable, Optional

from ..spawn_apis import ABSENT, Arg, SpawnAPI, same_constant
from .index import Scope
from .names import MAX_DEPTH, Resolver

UNKNOWN: Any = type("Unknown", (), {"__repr__": lambda self: "UNKNOWN"})()

NONE, SOME, MAYBE = "none", "some", "maybe"

_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}


class Values:
    def __init__(self, resolver: Resolver, infer: Optional[Callable[[ast.expr, Scope], Any]] = None) -> None:
        self.resolver = resolver
        # Asked only when the fast pass cannot decide (e.g. a constant imported from a sibling module).
        self.infer = infer
        #: scope node -> the names of the dicts it changes in place (one walk of each scope asked about)
        self._changed: dict[ast.AST, frozenset[str]] = {}

    def fold(self, expr: Optional[ast.AST], scope: Scope, depth: int = 0) -> Any:
        if expr is None or depth > MAX_DEPTH:
            return UNKNOWN
        if isinstance(expr, ast.Constant):
            return expr.value
        if isinstance(expr, ast.Name):
            binding = self.resolver.lookup(expr.id, scope, getattr(expr, "lineno", None))
            if binding is None:
                return UNKNOWN
            if binding.kind == "assign" and _assigned_once(binding):
                return self.fold(binding.value, binding.scope, depth + 1)
            if binding.kind == "import" and self.infer is not None:
                return self.infer(expr, scope)
            return UNKNOWN
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
            value = self.fold(expr.operand, scope, depth + 1)
            return -value if isinstance(value, (int, float)) and not isinstance(value, bool) else UNKNOWN
        if isinstance(expr, ast.BinOp) and type(expr.op) in _BINOPS:
            left, right = self.fold(expr.left, scope, depth + 1), self.fold(expr.right, scope, depth + 1)
            if _number(left) and _number(right):
                try:
                    return _BINOPS[type(expr.op)](left, right)
                except ArithmeticError:
                    return UNKNOWN
            return UNKNOWN
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("min", "max", "int"):
            if expr.keywords or any(isinstance(a, ast.Starred) for a in expr.args):
                return UNKNOWN
            values = [self.fold(a, scope, depth + 1) for a in expr.args]
            if values and all(_number(v) for v in values):
                return {"min": min, "max": max, "int": lambda *v: int(v[0])}[expr.func.id](*values)
            # max(1, unknown) is at least 1; min(0, unknown) at most 0.
            if expr.func.id == "max" and any(_number(v) and v >= 1 for v in values):
                return _AtLeastOne
            return UNKNOWN
        return UNKNOWN

    def argument(self, call: ast.Call, arg: Arg, scope: Scope) -> tuple[Any, Optional[ast.expr]]:
        """(ABSENT | UNKNOWN | the expression) for an argument of a call."""
        if arg.keyword:
            for keyword in call.keywords:
                if keyword.arg == arg.keyword:
                    return keyword.value, keyword.value
        if arg.position is not None:
            for index, value in enumerate(call.args):
                if isinstance(value, ast.Starred):
                    return UNKNOWN, None
                if index == arg.position:
                    return value, value
        if arg.keyword:
            for keyword in call.keywords:
                if keyword.arg is None:  # **kwargs
                    mapping = self.mapping(keyword.value, scope)
                    if mapping is None:
                        return UNKNOWN, None
                    if arg.keyword in mapping:
                        return mapping[arg.keyword], mapping[arg.keyword]
        return ABSENT, None

    def mapping(self, expr: ast.AST, scope: Scope) -> Optional[dict[str, ast.expr]]:
        """Keys of a dict literal or ``dict(k=v)`` call (through simple assignments), or None.

        None too for a dict that is changed in place (``kwargs.update(...)``, ``kwargs["num_workers"] = n``):
        its literal no longer says what it holds.
        """
        if isinstance(expr, ast.Name):
            changed = self._changed.get(scope.node)
            if changed is None:
                changed = self._changed[scope.node] = _changed_in_place(scope)
            if expr.id in changed:
                return None
        expr, scope = self.resolver.value_of(expr, scope)
        if isinstance(expr, ast.Dict):
            out = {}
            for key, value in zip(expr.keys, expr.values):
                if key is None or not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                    return None
                out[key.value] = value
            return out
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "dict" and not expr.args:
            if any(k.arg is None for k in expr.keywords):
                return None
            return {k.arg: k.value for k in expr.keywords}
        return None

    def passes_keyword(self, call: ast.Call, keyword: str, scope: Scope) -> bool:
        """Whether *call* may pass *keyword*: written out, or a key of a ``**`` dict (its literal, or set later
        by ``d["num_proc"] = n`` / ``d.update(num_proc=n)`` in the same scope)."""
        for given in call.keywords:
            if given.arg == keyword:
                return True
            if given.arg is None:
                mapping = self.mapping(given.value, scope)
                if mapping is not None and keyword in mapping:
                    return True
                if isinstance(given.value, ast.Name) and keyword in _keys_set_in_place(given.value.id, scope):
                    return True
        return False

    def workers(self, api: SpawnAPI, call: ast.Call, scope: Scope) -> str:
        """NONE (provably no worker), SOME, or MAYBE (count unresolved) for a call of *api*."""
        count = api.count
        if count is None:
            return SOME
        if api.threads is not None and any(k.arg == api.threads and self.fold(k.value, scope) is True
                                           for k in call.keywords):
            return NONE  # (its workers are threads)
        if count.via is not None:
            via_arg, keyword = count.via
            found, _ = self.argument(call, via_arg, scope)
            if found is ABSENT:
                return NONE if ABSENT in count.no_workers else MAYBE
            if found is UNKNOWN:
                return MAYBE
            source, source_scope = self.resolver.value_of(found, scope)
            if not isinstance(source, ast.Call):
                return MAYBE
            return self._judge(count, self.argument(source, Arg(keyword), source_scope)[0], source_scope)
        return self._judge(count, self.argument(call, Arg(count.keyword, count.position), scope)[0], scope)

    def _judge(self, count, found: Any, scope: Scope) -> str:
        if found is ABSENT:
            return NONE if any(v is ABSENT for v in count.no_workers) else SOME
        if found is UNKNOWN:
            return MAYBE
        value = self.fold(found, scope)
        if value is UNKNOWN:
            return MAYBE
        if value is _AtLeastOne:
            return SOME
        for no in count.no_workers:
            if no is not ABSENT and same_constant(no, value):
                return NONE
            if no is None and value is None:
                return NONE
        return SOME


class _AtLeastOneType:
    def __repr__(self) -> str:
        return "AT_LEAST_ONE"


_AtLeastOne: Any = _AtLeastOneType()


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _assigned_once(binding) -> bool:
    return len(binding.scope.bindings.get(binding.name, ())) == 1


_DICT_MUTATORS = frozenset({"update", "setdefault", "__setitem__"})


def _changed_in_place(scope: Scope) -> frozenset[str]:
    """The names of the dicts the function (or module) *scope* changes in place anywhere."""
    names = set()
    for node in ast.walk(scope.node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _DICT_MUTATORS:
            target = node.func.value
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            target = node.value
        else:
            continue
        if isinstance(target, ast.Name):
            names.add(target.id)
    return frozenset(names)


def _keys_set_in_place(name: str, scope: Scope) -> set[str]:
    """Constant keys that the scope stores into the dict *name* (``d["k"] = v``, ``d.update(k=v)``)."""
    keys = set()
    for node in ast.walk(scope.node):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) \
                and node.value.id == name and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            keys.add(node.slice.value)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update"
              and isinstance(node.func.value, ast.Name) and node.func.value.id == name):
            keys.update(k.arg for k in node.keywords if k.arg)
    return keys
