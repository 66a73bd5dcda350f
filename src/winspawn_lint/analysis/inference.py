"""astroid, behind one function, for the few expressions the fast pass cannot decide.

Today that is a worker count imported from a sibling module
(``from config import NUM_WORKERS``).  astroid builds only the module that
defines the name, from source, lazily and once per file (the project reader,
:class:`.project.Project`, keeps what it inferred); it never imports
checked code, and loading of C extensions is kept off.  When astroid is
unsure (or fails) the answer is "unknown", and the checks stay silent.
"""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING, Any, Optional

from .index import ModuleIndex, Scope

if TYPE_CHECKING:
    from .project import Project

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
    def __init__(self, filename: Optional[str], index: ModuleIndex, project: Optional["Project"]) -> None:
        self.filename = filename
        self.index = index
        self.project = project

    def constant(self, name: ast.Name, scope: Scope) -> Any:
        """The value of an imported constant, or the values module's UNKNOWN."""
        from .values import UNKNOWN

        if not self.filename or self.project is None or not self.project.is_file(self.filename):
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
        return self.project.constant(path, binding.qualname.rsplit(".", 1)[-1])


def module_constant(path: str, attribute: str) -> Any:
    """The value astroid infers for *attribute* of the module at *path* (a file of at most a megabyte), or the
    values module's UNKNOWN; never raises."""
    from .values import UNKNOWN

    try:
        import astroid

        manager = _manager()
    except Exception:  # pragma: no cover - astroid is a dependency
        return UNKNOWN
    cached = set(manager.astroid_cache)
    try:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        module = astroid.parse(source, module_name=os.path.splitext(os.path.basename(path))[0], path=path)
        try:
            inferred = list(module.igetattr(attribute))
        except astroid.InferenceError:
            inferred = []
        if len(inferred) == 1 and isinstance(inferred[0], astroid.nodes.Const):
            return inferred[0].value
        return UNKNOWN
    except Exception:  # astroid raises many kinds; unsure means silent
        return UNKNOWN
    finally:
        _forget_project_modules(manager, cached)


def _forget_project_modules(manager, cached: set[str]) -> None:
    """Drop from astroid's process-wide cache, which is keyed by module name, the modules of the checked project
    it built since *cached* was taken: another directory's ``config.py`` is another ``config``, and what one
    file's inference loaded must not answer for the next file (nor differ with the order files are checked in).
    The standard library and installed packages stay: they are the same for every file."""
    import sysconfig

    installed = tuple(os.path.join(os.path.realpath(p), "") for p in
                      {sysconfig.get_path(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")} if p)
    for name in set(manager.astroid_cache) - cached:
        file = getattr(manager.astroid_cache[name], "file", None)
        if not file or not os.path.realpath(file).startswith(installed):
            del manager.astroid_cache[name]
