"""Compact syntax trees (``io.compact_tree``): the tree ``ast.parse`` builds, node for node, in a third of the
memory; the analysis reads both kinds of node alike."""

from __future__ import annotations

import ast
import copy
import pickle
import re
import tracemalloc
from pathlib import Path

import pytest

from winspawn_lint import RULES, Settings
from winspawn_lint.io import compact_tree
from winspawn_lint.io.compact_tree import node_class, node_classes
from winspawn_lint.pipeline import check

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "winspawn_lint"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def assert_same_tree(compact: ast.AST, plain: ast.AST) -> None:
    """Every node of *compact* is of *plain*'s node's class and holds the same fields and positions."""
    stack = [(compact, plain)]
    while stack:
        one, other = stack.pop()
        if not isinstance(other, ast.AST):
            assert one == other or (one != one and other != other)  # (a NaN constant)
            continue
        assert node_class(one) is type(other) and isinstance(one, type(other))
        for name in (*other._fields, *other._attributes):
            mine, theirs = getattr(one, name, None), getattr(other, name, None)
            if isinstance(theirs, list):
                assert isinstance(mine, list) and len(mine) == len(theirs), name
                stack.extend(zip(mine, theirs))
            else:
                stack.append((mine, theirs))


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py"))[:40] + sorted(FIXTURES.rglob("*.py"))[:40],
                         ids=lambda path: path.name)
def test_a_compact_tree_is_the_tree_ast_parse_builds(path):
    text = path.read_text(encoding="utf-8")
    assert_same_tree(compact_tree.parse(text), ast.parse(text))


def test_a_compact_tree_takes_less_than_half_the_memory():
    text = (PACKAGE / "analysis" / "taint.py").read_text(encoding="utf-8")
    sizes = []
    for parse in (ast.parse, compact_tree.parse):
        tracemalloc.start()
        tree = parse(text)
        sizes.append(tracemalloc.get_traced_memory()[0])
        tracemalloc.stop()
        del tree
    assert sizes[1] < 0.45 * sizes[0], sizes


def test_the_nodes_of_a_line_share_its_line_number():
    tree = compact_tree.parse("\n" * 999 + "x = f(a, b)\n")
    call = tree.body[0].value
    assert call.lineno == 1000 and call.lineno is call.args[1].lineno is tree.body[0].end_lineno


def test_lines_past_those_shared_keep_their_own_numbers(monkeypatch):
    monkeypatch.setattr(compact_tree, "MAX_SHARED_LINES", 10)
    monkeypatch.setattr(compact_tree, "_LINES", [])
    text = "\n" * 20 + "x = [\n    a,\n]\n"
    tree = compact_tree.parse(text)
    assert len(compact_tree._LINES) == 10
    assert_same_tree(tree, ast.parse(text))


def test_nodes_are_of_their_ast_class_for_isinstance_and_node_class_but_not_for_type():
    tree = compact_tree.parse("x = f(a)\n")
    call = tree.body[0].value
    assert isinstance(call, ast.Call) and node_class(call) is ast.Call and type(call) is not ast.Call
    assert type(call) in node_classes(ast.Call) and type(call.func) in node_classes(ast.Name)
    assert node_class(ast.Name("f", ast.Load())) is ast.Name  # (an ordinary node: its own class)
    assert not hasattr(call, "__dict__") or not vars(call)  # the fields are in slots


def test_operators_and_contexts_stay_the_shared_nodes():
    tree = compact_tree.parse("x = a + b\n")
    assert type(tree.body[0].value.op) is ast.Add and type(tree.body[0].targets[0].ctx) is ast.Store


def test_a_copy_or_a_pickle_of_a_compact_node_is_an_ordinary_node_with_the_same_fields():
    tree = compact_tree.parse("def f(a, *, b=1):\n    return [a, b]\n")
    for twin in (copy.deepcopy(tree), pickle.loads(pickle.dumps(tree))):
        assert_same_tree(twin, ast.parse("def f(a, *, b=1):\n    return [a, b]\n"))
        assert all(node_class(node) is type(node) for node in ast.walk(twin))


def test_a_plain_copy_dumps_as_the_ordinary_tree_does():
    """Before Python 3.13 ``ast.dump`` leaves out an optional field that is None by reading its default on the
    class, where a compact class has its slot: a compact tree dumps with ``type_comment=None``, its plain copy as
    ``ast.parse``'s."""
    text = "def f(a):\n    return a\n"
    assert ast.dump(compact_tree.plain(compact_tree.parse(text))) == ast.dump(ast.parse(text))


def test_a_compact_tree_compiles():
    namespace: dict = {}
    exec(compile(compact_tree.parse("def f(a):\n    return a * 2\n"), "<test>", "exec"), namespace)
    assert namespace["f"](21) == 42


def test_nodes_deeper_than_the_bound_stay_as_ast_made_them():
    depth = compact_tree.MAX_DEPTH + 50
    text = "x = 1\ny = " + "-" * depth + "1\n"
    tree = compact_tree.parse(text)
    assert_same_tree(tree, ast.parse(text))
    deepest = tree.body[1].value
    for _ in range(depth - 1):
        deepest = deepest.operand
    assert type(deepest) is ast.UnaryOp  # (ordinary below the bound)
    assert type(tree.body[1].value) is not ast.UnaryOp


def test_the_analysis_reads_ordinary_and_compact_trees_alike():
    """flake8 hands the plugin its own tree (ordinary nodes); the command line parses a compact one."""
    samples = [path for path in sorted(FIXTURES.rglob("*.py"))  # (Python 3.6 code: no ordinary tree of it here)
               if "# error: WSP" in path.read_text(encoding="utf-8") and not path.name.endswith(".fixed.py")
               and "python36" not in path.parts]
    assert len(samples) > 50
    settings = Settings(select=frozenset(RULES))
    found = 0
    for path in samples[::10]:
        source = path.read_text(encoding="utf-8")
        compact = check(source, str(path), settings).findings
        plain = check(source, str(path), settings, tree=ast.parse(source)).findings
        assert [(f.code, f.line, f.col, f.message) for f in compact] == [
            (f.code, f.line, f.col, f.message) for f in plain], path.name
        found += len(compact)
    assert found > 20


def test_code_that_dispatches_on_a_node_class_asks_node_class():
    """``type(node) is ast.Call`` is false for a compact ``Call``: the package compares only the shared
    operator and context nodes' classes with ``type``."""
    pattern = re.compile(r"type\(([\w.]+)\)\s*(?:is not|is|==|!=|not in|in)\s*\(?ast\.|\bkind = type\(()([\w.]+)")
    offending = [f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
                 for path in sorted(PACKAGE.rglob("*.py")) if path.name != "compact_tree.py"
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 for match in pattern.finditer(line) if not (match.group(1) or "").endswith((".ctx", ".op"))]
    assert offending == []
