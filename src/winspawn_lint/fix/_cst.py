"""libcst, imported when a codemod first uses it: ``from . import _cst as cst``.

Only the codemods that rewrite a libcst tree of the module use it; a fix run whose files need only the hoists or
the guard wrap (which edit rows, :mod:`.lines`) never imports it (0.18 s of a run).  Each name is looked up in
libcst once and then kept here, so ``cst.Name`` costs what a module attribute costs.
"""

from __future__ import annotations

import importlib


def __getattr__(name: str):
    if name.startswith("__"):  # copy, pickle and the import system probe for these: not libcst's
        raise AttributeError(name)
    value = getattr(importlib.import_module("libcst"), name)
    globals()[name] = value
    return value


def helpers():
    """``libcst.helpers`` (a subpackage ``import libcst`` does not load)."""
    return importlib.import_module("libcst.helpers")
