"""astroid, behind one function, for the few expressions the fast pass cannot decide.

Today that is a worker count imported from a sibling module
(``from config import NUM_WORKERS``).  astroid builds only the module that
defines the name, from source, lazily and once per file; it never imports
checked code, and loading of C extensions is kept off.  When astroid is
unsure (or fails) the answer is "unknown", and the checks stay silent.
"""

from __future__ import annotations

import ast
import os
from typing import Any, Optional

from ..io.cache import depends_on
from .index import ModuleIndex, Scope

_MANAGER = None


def _manager():
    global _MANAGER
    if _MANAGER is None:
        import astroid

        manager = astroid.MANAGER
        # Safety: never load compiled extension modules of a checked repository.
        manager.always_load_extensions = False
        manager.extension_package_whitelist = set()
        _MANAGER = manager
    return _MANAGER


class Inference:
    def __init__(self, filename: Optional[str], index: ModuleIndex) -> None:
        self.filename = filename
        self.index = index

    def constant(self, name: ast.Name, scope: Scope) -> Any:
        """The value of an imported constant, or the values module's UNKNOWN."""
        from .values import UNKNOWN

        if not self.filename or not os.path.isfile(self.filename):
            return UNKNOWN
        binding = None
        current: Optional[Scope] = scope
        while current is not None and binding is None:
            for candidate in current.bindings.get(name.id, ()):
                if candidate.kind == "import":
                    binding = candidate
            current = current.parent
        if binding is None or not isinstance(binding.node, ast.ImportFrom) or binding.node.level > 1:
            return UNKNOWN
        module = binding.node.module
        if not module:
            return UNKNOWN
        path = os.path.join(os.path.dirname(os.path.abspath(self.filename)), *module.split(".")) + ".py"
        depends_on(path)  # the answer changes when that file does (or appears): the results cache must know
        try:
            st = os.stat(path)
        except OSError:
            return UNKNOWN
        if not os.path.isfile(path) or st.st_size > 1 << 20:
            return UNKNOWN
        try:
            return _infer_module_constant(path, binding.qualname.rsplit(".", 1)[-1], (st.st_size, st.st_mtime_ns))
        except Exception:  # astroid raises many kinds; unsure means silent
            return UNKNOWN


# Keyed on the file's size and mtime too: a long-lived process (an editor, the flake8 plugin's server, tests)
# must see an edited module's new value.
_CACHE: dict[tuple[str, str, tuple[int, int]], Any] = {}


def _infer_module_constant(path: str, attribute: str, stamp: tuple[int, int]) -> Any:
    from .values import UNKNOWN

    key = (path, attribute, stamp)
    if key in _CACHE:
        return _CACHE[key]
    import astroid

    _manager()
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    module = astroid.parse(source, module_name=os.path.splitext(os.path.basename(path))[0], path=path)
    value = UNKNOWN
    try:
        inferred = list(module.igetattr(attribute))
    except astroid.InferenceError:
        inferred = []
    if len(inferred) == 1 and isinstance(inferred[0], astroid.nodes.Const):
        value = inferred[0].value
    _CACHE[key] = value
    return value
