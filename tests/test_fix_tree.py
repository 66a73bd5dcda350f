"""``fix._tree``: the hoists find a node by the position a finding's fix hint gives, and its parents, by going
down only into the nodes that hold that position; and they choose names that clash with no identifier of the
module, walking it only when the text spells the name at all."""

from __future__ import annotations

import ast

import pytest

from winspawn_lint.fix import _tree

NESTED = '''\
@deco(lambda a: a)
def f(x=lambda b: b, *, y=[lambda c: c for _ in range(1)]):
    g = {k: (lambda d: d) for k in range(2)}
    with open(x) as h, ctx(lambda e: e):
        print(f"{(lambda q: q)(1)}")
    match x:
        case [1, *rest]:
            z = lambda r: r
    return g


value = call(lambda s: s)
'''


@pytest.mark.parametrize("kind", [ast.Lambda, ast.Call, ast.Name])
def test_every_node_is_found_by_its_start_with_the_parents_up_to_its_statement(kind):
    tree = ast.parse(NESTED)
    for node in (n for n in ast.walk(tree) if isinstance(n, kind)):
        outermost = next(m for m in ast.walk(tree)
                         if isinstance(m, kind) and (m.lineno, m.col_offset) == (node.lineno, node.col_offset))
        assert _tree.find_node(tree, (kind,), node.lineno, node.col_offset) is outermost
        statement = _tree.top_level_statement(outermost, _tree.parents(tree))
        assert any(n is outermost for n in ast.walk(statement))


def test_no_node_there_is_none():
    tree = ast.parse(NESTED)
    assert _tree.find_node(tree, (ast.Lambda,), 1, 0) is None
    assert _tree.find_node(tree, (ast.Lambda,), 10, 0) is None  # a blank row between statements


@pytest.mark.parametrize("text, name, taken", [
    ("def main():\n    pass\n", "main", True),
    ("x = 1  # main\n", "main", False),  # a word in a comment is not an identifier
    ("import torch.main\n", "torch", True),
    ("x = y.main\n", "main", False),  # an attribute is not one either
    ("ﬁle = 1\n", "file", True),  # the parser reads the ligature as `fi`
    ("x = 1\n", "_collate_fn", False),
])
def test_names_are_the_modules_identifiers(text, name, taken):
    names = _tree.module_names(ast.parse(text), text)
    assert (name in names) is taken
    assert _tree.unique_name(name, names) == (f"{name}_2" if taken else name)
    assert name in names  # now taken by the fix
