"""analysis/guards.py: the real main guard, and the look-alikes whose body never runs (WSP102)."""

from __future__ import annotations

import ast

import pytest

from winspawn_lint.analysis.guards import NEVER_RUNS, broken_guard, exits_unless_main, is_main_guard, never_runs


def expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


@pytest.mark.parametrize("text", [
    '__name__ == "__main__"',
    '"__main__" == __name__',
    "__name__ == '__main__'",
    '__name__ == "__main__" and not DEBUG',
    'DEBUG and __name__ == "__main__"',
])
def test_the_main_guard_in_either_order_alone_or_and_ed(text):
    assert is_main_guard(expr(text))


@pytest.mark.parametrize("text", [
    '__name__ != "__main__"',  # the inverse: true in every spawned worker
    '__name__ == "__main__" or DEBUG',  # also true in a worker when DEBUG is set
    '__name__ == "main"',
    '__name__ is "__main__"',
    'name == "__main__"',
    '__name__ == "__main__" == x',  # a chained comparison is not the guard
    "__name__",
])
def test_what_is_not_the_main_guard(text):
    assert not is_main_guard(expr(text))


@pytest.mark.parametrize("text, why", [
    ('__name__ == "main"', "compares `__name__` with 'main', not '__main__'"),
    ('__name__ == "__main"', "compares `__name__` with '__main', not '__main__'"),
    ('"_main_" == __name__', "compares `__name__` with '_main_', not '__main__'"),
    ('__name__ == "MAIN"', "compares `__name__` with 'MAIN', not '__main__'"),
    ('__name__ is "__main__"', "uses `is` (identity) instead of `==`"),
    ('__name__ is "main"', "uses `is` (identity) instead of `==`"),
    ('__file__ == "__main__"', "compares `__file__` (a path) with a module name"),
])
def test_a_broken_guard_says_why_and_never_runs(text, why):
    assert broken_guard(expr(text)) == (why, NEVER_RUNS)
    assert never_runs(expr(text))


@pytest.mark.parametrize("text", [
    '__name__ == "__main__"',  # the real guard
    '__name__ == "mymodule"',  # a module testing its own import name
    '__name__ == "__mp_main__"',  # the name a spawned worker runs under: deliberate
    '__name__ != "main"',
    'mode == "main"',
    '__name__ == main',  # not a literal: cannot tell
    '__name__ == "__main__" and x',
])
def test_what_is_not_a_broken_guard(text):
    assert broken_guard(expr(text)) is None
    assert not never_runs(expr(text))


def statement(text: str) -> ast.If:
    (node,) = ast.parse(text).body
    assert isinstance(node, ast.If)
    return node


@pytest.mark.parametrize("text", [
    'if __name__ != "__main__":\n    raise SystemExit\n',
    'if __name__ != "__main__":\n    raise SystemExit(0)\n',
    'if "__main__" != __name__:\n    sys.exit()\n',
    'if __name__ is not "__main__":\n    exit(1)\n',
    'if __name__ != "__main__":\n    os._exit(0)\n',
    'if __name__ != "__main__":\n    print("library use")\n    quit()\n',
])
def test_an_early_exit_unless_main_stops_every_worker(text):
    assert exits_unless_main(statement(text))


@pytest.mark.parametrize("text", [
    'if __name__ != "__main__":\n    pass\n',
    'if __name__ != "__main__":\n    raise ValueError("import me not")\n',
    'if __name__ == "__main__":\n    sys.exit(main())\n',  # the guard itself
    'if name != "__main__":\n    sys.exit()\n',
])
def test_what_does_not_exit_unless_main(text):
    assert not exits_unless_main(statement(text))
