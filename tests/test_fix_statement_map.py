"""The codemods find libcst nodes through the ``ast`` of the same text, statement by statement, and rebuild
only the paths to the nodes they replace (StatementMap); the driver takes the text of a top-level statement it
has seen instead of rendering it again (statement_texts).  No libcst positions: they render the whole module."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest

from winspawn_lint.fix._base import StatementMap, statement_texts

COMPOUND = textwrap.dedent('''\
    import os; import sys
    @decorator(lambda d: d)
    async def f(a=lambda: 0):
        async for x in y: pass
        else:
            q = 1
        async with z as w:
            r = lambda: 2
    class C(Base):
        attr = lambda self: self
    if a:
        b = 1
    elif c: d = lambda: 3; e = 4
    else:
        g = 5
    for i in map(lambda v: v, items):
        h = lambda: 6
    while cond:
        pass
    else:
        k = 7
    try:
        m = 8
    except (lambda: E)() as err:
        n = 9
    else:
        o = 10
    finally:
        p = 11
    match value:
        case [first, *rest] if (lambda: first)():
            s = lambda: 12
        case _:
            t = 13
    with open(name) as handle, lock:
        u = 14
''')


def _pairs():
    module = ast.parse(COMPOUND)
    tree = cst.parse_module(COMPOUND)
    return module, tree, StatementMap(tree, module)


def test_every_ast_statement_has_its_libcst_statement():
    module, tree, statements = _pairs()
    for node in ast.walk(module):
        if isinstance(node, ast.stmt):
            found = statements.node(node)
            # libcst names its nodes as ast does, without the Async variants (a flag on the node).
            assert type(found).__name__ == type(node).__name__.replace("Async", ""), ast.dump(node)


@pytest.mark.parametrize("line, index, text", [
    (2, 0, "lambda d: d"),  # in a decorator: the def is the innermost statement
    (3, 1, "lambda: 0"),  # a default value, after the decorator's lambda
    (13, 0, "lambda: 3"),  # in a one-line elif body (a SimpleStatementSuite)
    (16, 0, "lambda v: v"),  # in a for statement's header, not its body
    (24, 0, "(lambda: E)"),  # in an except clause's type (with its parentheses)
    (31, 0, "(lambda: first)"),  # in a case guard
])
def test_the_nth_lambda_of_a_statement_outside_its_nested_blocks(line, index, text):
    module, tree, statements = _pairs()
    lambdas = sorted((n for n in ast.walk(module) if isinstance(n, ast.Lambda) and n.lineno == line),
                     key=lambda n: n.col_offset)
    parents = {child: node for node in ast.walk(module) for child in ast.iter_child_nodes(node)}
    owner = lambdas[0]
    while not isinstance(owner, ast.stmt):
        owner = parents[owner]
    found = statements.find(owner, cst.Lambda, index)
    assert tree.code_for_node(found) == text


def test_replace_rebuilds_only_the_paths_and_keeps_every_other_node():
    module, tree, statements = _pairs()
    target = next(n for n in ast.walk(module) if isinstance(n, ast.Assign) and n.lineno == 32)  # s = lambda: 12
    lam = statements.find(target, cst.Lambda, 0)
    new = statements.replace({id(lam): cst.Name("_s")})
    assert new.code == COMPOUND.replace("s = lambda: 12", "s = _s")
    assert new.body[0] is tree.body[0] and new.body[-1] is tree.body[-1]  # untouched statements are shared


def test_a_statement_can_be_removed():
    module, tree, statements = _pairs()
    loop = next(n for n in module.body if isinstance(n, ast.While))
    new = statements.replace({id(statements.node(loop)): cst.RemovalSentinel.REMOVE})
    assert new.code == COMPOUND.replace("while cond:\n    pass\nelse:\n    k = 7\n", "")


def test_trees_of_different_texts_are_refused():
    with pytest.raises(ValueError):
        StatementMap(cst.parse_module("a = 1\nb = 2\n"), ast.parse("a = 1\n"))
    with pytest.raises(ValueError):
        StatementMap(cst.parse_module("if a:\n    b = 1\n"), ast.parse("for a in b:\n    b = 1\n"))


@pytest.mark.skipif(not hasattr(ast, "TryStar"), reason="except* is Python 3.11+")
def test_except_star_blocks_are_paired():
    text = "try:\n    a = 1\nexcept* ValueError:\n    b = lambda: 2\nelse:\n    c = 3\nfinally:\n    d = 4\n"
    module = ast.parse(text)
    statements = StatementMap(cst.parse_module(text), module)
    inner = module.body[0].handlers[0].body[0]
    assert cst.Module(body=[]).code_for_node(statements.find(inner, cst.Lambda, 0)) == "lambda: 2"


@pytest.mark.parametrize("text", [
    "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n\n\"\"\"doc\"\"\"\n\nimport os\n\n\n# trailing comment\n",
    "import os\r\n\r\n\r\ndef f():\r\n    return 1\r\n\r\n# c\r\nx = f()\r\n",
    "(\n  a\n)\nb = 1\n",
    "def f():\n    x = 1\n    # inner trailing\n\n# outer\ny = 2\n",
    "a = 1; b = 2\nif a: c = 3\n",
    "# lead\n@d1\n@d2(\n  3)\nclass C:\n    pass\nz = C()\n",
    "x = \\\n  1\ny = [\n 2]\n",
    "a = 1\n\x0c\nb = 2\n",
])
def test_statement_texts_are_what_rendering_each_statement_gives(text):
    tree = cst.parse_module(text)
    texts = statement_texts(tree, text, ast.parse(text))
    assert [texts[id(s)][2] for s in tree.body] == [tree.code_for_node(s) for s in tree.body]


@pytest.mark.parametrize("text", [
    "import x\n@\\\ndec\ndef f():\n    pass\n",  # the ast gives the decorator's line, not its `@`'s
    "a = 1\nb = 2",  # no newline at the end: the module renders its last statement differently
    "# only comments\n",
])
def test_statement_texts_are_not_guessed_when_a_check_fails(text):
    assert statement_texts(cst.parse_module(text), text, ast.parse(text)) == {}
