"""The fixer's import adder places imports where isort does: in the standard-library group of the module's
leading import block, reusing an existing ``from multiprocessing import ...``."""

import ast

import pytest

from winspawn_lint.fix._base import apply_edits
from winspawn_lint.fix.imports import import_edits

BOTH = [("functools", None), ("multiprocessing", "freeze_support")]

CASES = {
    "code only": ("x = 1\n", "import functools\nfrom multiprocessing import freeze_support\n\nx = 1\n"),
    "docstring": ('"""Doc."""\nx = 1\n', '"""Doc."""\nimport functools\nfrom multiprocessing import freeze_support\n\nx = 1\n'),
    "into the stdlib group, sorted": (
        "import os\nimport sys\n\nimport torch\nfrom torch.utils.data import DataLoader\n\nx = 1\n",
        "import functools\nimport os\nimport sys\nfrom multiprocessing import freeze_support\n\nimport torch\n"
        "from torch.utils.data import DataLoader\n\nx = 1\n"),
    "a new stdlib group before third-party imports": (
        "# header\nimport torch\n\nx = 1\n",
        "# header\nimport functools\nfrom multiprocessing import freeze_support\n\nimport torch\n\nx = 1\n"),
    "after __future__": (
        "from __future__ import annotations\n\nimport torch\nx = 1\n",
        "from __future__ import annotations\n\nimport functools\nfrom multiprocessing import freeze_support\n\n"
        "import torch\nx = 1\n"),
    "joins an existing from-import": (
        "import os\nfrom multiprocessing import Pool\nimport torch\n",
        "import functools\nimport os\nfrom multiprocessing import Pool, freeze_support\nimport torch\n"),
    "joins a parenthesised from-import": (
        "from multiprocessing import (\n    Pool,\n    Queue,\n)\nimport torch\n",
        "import functools\nfrom multiprocessing import (\n    Pool,\n    Queue,\n    freeze_support,\n)\nimport torch\n"),
    "from-imports in module order": (
        "import os\nfrom typing import Any\n\nimport numpy as np\n",
        "import functools\nimport os\nfrom multiprocessing import freeze_support\nfrom typing import Any\n\n"
        "import numpy as np\n"),
    "already imported": ("import functools\nfrom multiprocessing import freeze_support\nx = 1\n",
                         "import functools\nfrom multiprocessing import freeze_support\nx = 1\n"),
    "star import": ("from multiprocessing import *\nx = 1\n",
                    "import functools\nfrom multiprocessing import *\nx = 1\n"),
    "crlf": ("import os\r\nx = 1\r\n",
             "import functools\r\nimport os\r\nfrom multiprocessing import freeze_support\r\nx = 1\r\n"),
}


def add_imports(code, needed):
    return apply_edits(code, import_edits(code, ast.parse(code), needed))


@pytest.mark.parametrize("code, expected", CASES.values(), ids=CASES.keys())
def test_placement(code, expected):
    assert add_imports(code, BOTH) == expected


@pytest.mark.parametrize("code", [
    "", "__strict__ = True\nimport os\nx = 1\n", "import os\n# a comment\nx = 1\n", "import os; import sys\nx = 1\n",
    "from .multiprocessing import Pool\nx = 1\n", "import functools as ft\nx = 1\n", '"a" "b"\nx = 1\n',
    "from multiprocessing import Pool as P\nx = 1\n", "import os\nx = 1\nfrom multiprocessing import Pool\n",
])
def test_any_module_stays_valid_and_a_second_add_is_a_noop(code):
    once = add_imports(code, BOTH)
    compile(once, "<added>", "exec")
    assert add_imports(once, BOTH) == once


# Module shapes: each keeps compiling with every set of imports added, and adding them again changes nothing.
SHAPES = [
    *(code for code, _ in CASES.values()),
    "# only a comment\n", "__strict__ = True\nimport os\nx = 1\n", "import os\n# a comment\nx = 1\n",
    "import os; import sys\nx = 1\n", "from .multiprocessing import Pool\nx = 1\n", "import functools as ft\nx = 1\n",
    '"a" "b"\nx = 1\n', "import os\nx = 1\nfrom multiprocessing import Pool\n",
    "# licence\n\nimport zlib\n\n# c\nx = 1\n",
    "from __future__ import annotations\n", "from __future__ import annotations\n\n\nx = 1\n# footer\n",
    '"""Doc."""\n\nx = 1\n', '"""Doc."""\n# about x\nx = 1\n', "import abc\nimport zlib  # last\n\nimport torch\n",
    "# top\nimport torch\nimport numpy\n", "import os.path\nimport torch\n", "def f():\n    pass\n",
    "from multiprocessing import Pool as P\nx = 1\n", "from multiprocessing import Queue, Pool\n",
    "from multiprocessing import (Pool,)\n", "from multiprocessing import Pool , Queue\n",
    "from multiprocessing import (\n    Pool,  # pools\n    Queue\n)\n", "from multiprocessing import Value\r\n",
    "from multiprocessing.pool import Pool\nfrom multiprocessing import Pool\n",
    "from multiprocessing import Pool\nfrom multiprocessing import Queue\n", "import zlib\nfrom zipfile import ZipFile\n",
]
NEEDED = [[("functools", None)], [("functools", None), ("copyreg", None)], [("multiprocessing", "freeze_support")],
          [("multiprocessing", "freeze_support"), ("multiprocessing", "Event"), ("functools", None)]]


@pytest.mark.parametrize("code", SHAPES)
@pytest.mark.parametrize("needed", NEEDED, ids=["functools", "two modules", "freeze_support", "two names"])
def test_every_shape_compiles_and_imports_once(code, needed):
    once = add_imports(code, needed)
    compile(once, "<added>", "exec")
    assert add_imports(once, needed) == once
    bound = {alias.asname or alias.name for node in ast.walk(ast.parse(once))
             if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    assert {name or module for module, name in needed} <= bound or "*" in bound
