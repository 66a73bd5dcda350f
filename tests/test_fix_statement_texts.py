"""The driver takes the text of a top-level statement it has seen instead of rendering it again
(statement_texts).  No libcst positions: they render the whole module."""

from __future__ import annotations

import ast

import libcst as cst
import pytest

from winspawn_lint.fix._base import statement_texts

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
