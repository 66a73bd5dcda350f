"""Main guards: the real one, and the look-alikes that silently are not (WSP102).

A script runs as ``__main__``; a spawned worker imports it as
``__mp_main__``.  Only ``__name__ == "__main__"`` (either order, possibly
``and``-ed with more conditions) tells the two apart.
"""

from __future__ import annotations

import ast
from typing import Optional

NEVER_RUNS = "never runs"


def is_main_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"` in either order, alone or as one operand of `and`."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(is_main_guard(value) for value in test.values)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    left, right = test.left, test.comparators[0]
    return (_is_name(left, "__name__") and _is_str(right, "__main__")) or (
        _is_name(right, "__name__") and _is_str(left, "__main__")
    )


def never_runs(test: ast.expr) -> bool:
    """A typo'd guard whose body runs in no process at all."""
    problem = broken_guard(test)
    return problem is not None and problem[1] == NEVER_RUNS


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _is_str(node: ast.AST, value: str) -> bool:
    return isinstance(node, ast.Constant) and node.value == value


def _looks_like_main(value: str) -> bool:
    return value != "__main__" and value.strip().strip("_").lower() == "main"


def broken_guard(test: ast.expr) -> Optional[tuple[str, str]]:
    """(why, effect) when an ``if`` test means to be the main guard and is not."""
    if is_main_guard(test) or not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(right, ast.Name) and right.id in ("__name__", "__file__"):
        left, right = right, left
    if not (isinstance(left, ast.Name) and isinstance(right, ast.Constant) and isinstance(right.value, str)):
        return None
    value = right.value
    if left.id == "__name__":
        if isinstance(op, ast.Eq) and _looks_like_main(value):
            return (f"compares `__name__` with {value!r}, not '__main__'", NEVER_RUNS)
        if isinstance(op, ast.Is) and (value == "__main__" or _looks_like_main(value)):
            # Measured on CPython 3.11: the module name is not the interned literal, so this is False.
            return ("uses `is` (identity) instead of `==`", NEVER_RUNS)
        return None
    if left.id == "__file__" and (value == "__main__" or _looks_like_main(value)) and isinstance(op, (ast.Eq, ast.Is)):
        return ("compares `__file__` (a path) with a module name", NEVER_RUNS)
    return None


def exits_unless_main(node: ast.If) -> bool:
    """``if __name__ != "__main__": raise SystemExit`` (or ``sys.exit()``): it also stops every spawned worker."""
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.NotEq, ast.IsNot))):
        return False
    left, right = test.left, test.comparators[0]
    if not ((_is_name(left, "__name__") and _is_str(right, "__main__"))
            or (_is_name(right, "__name__") and _is_str(left, "__main__"))):
        return False
    for stmt in node.body:
        if isinstance(stmt, ast.Raise) and stmt.exc is not None:
            exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            if isinstance(exc, ast.Name) and exc.id == "SystemExit":
                return True
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            func = stmt.value.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("exit", "quit", "_exit"):
                return True
    return False
