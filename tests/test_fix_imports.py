"""The fixer's import adder places imports exactly where libcst's AddImportsVisitor does.

:mod:`winspawn_lint.fix.imports` replaces AddImportsVisitor for speed; this differential test holds it
to AddImportsVisitor's output on the module shapes that decide placement.
"""

import libcst as cst
import pytest
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from winspawn_lint.fix.imports import add_imports

MODULES = {
    "empty": "",
    "code only": "x = 1\n",
    "docstring": '"""Doc."""\nx = 1\n',
    "docstring then imports": '"""Doc."""\nimport os\nimport sys\n\nx = 1\n',
    "strict flag": "__strict__ = True\nimport os\nx = 1\n",
    "comment before code": "import os\n# a comment\nx = 1\n",
    "blank line before code": "import os\n\n\nx = 1\n",
    "from import joins": "from multiprocessing import Pool\nx = 1\n",
    "aliased from import": "from multiprocessing import Pool as P\nx = 1\n",
    "from import later": "import os\nx = 1\nfrom multiprocessing import Pool\n",
    "star import": "from multiprocessing import *\nx = 1\n",
    "two from imports": "from multiprocessing import Pool\nfrom multiprocessing import Process\nx = 1\n",
    "parenthesised": "from multiprocessing import (\n    Pool,\n    Process,\n)\nx = 1\n",
    "relative": "from .multiprocessing import Pool\nx = 1\n",
    "already imported": "import functools\nfrom multiprocessing import freeze_support\nx = 1\n",
    "aliased module": "import functools as ft\nx = 1\n",
    "future": "from __future__ import annotations\nx = 1\n",
    "crlf": "import os\r\nx = 1\r\n",
    "two statements on a line": "import os; import sys\nx = 1\n",
    "concatenated docstring": '"a" "b"\nx = 1\n',
}
NEEDED = {
    "functools": [("functools", None)],
    "freeze_support": [("multiprocessing", "freeze_support")],
    "both": [("functools", None), ("multiprocessing", "freeze_support")],
}


def reference(code: str, needed) -> str:
    context = CodemodContext()
    for module, name in needed:
        AddImportsVisitor.add_needed_import(context, module, name)
    return AddImportsVisitor(context).transform_module(cst.parse_module(code)).code


@pytest.mark.parametrize("needed", NEEDED.values(), ids=NEEDED.keys())
@pytest.mark.parametrize("code", MODULES.values(), ids=MODULES.keys())
def test_same_placement_as_add_imports_visitor(code, needed):
    assert add_imports(cst.parse_module(code), needed).code == reference(code, needed)
