"""The project around a checked file: the local modules its imports name, found by path and parsed.

``from .extended import ExtendedVisionDataset`` in ``pkg/datasets/imagenet.py`` names
``pkg/datasets/extended.py``; ``from pkg.data import make_dataset`` names ``pkg/data/__init__.py`` under the
directory that holds the top package.  Such a module is read from disk and parsed -- never imported or executed
-- once per process (keyed by path, size and modification time), so the CLI and the flake8 plugin, which
checks one file at a time, see the same project.  A module that cannot be found, is too large or does not
parse is unknown, and the checks that asked stay silent.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import Optional

from ..io.cache import depends_on
from .index import ModuleIndex
from .names import Resolver

#: Larger modules are not read (generated code, vendored bundles).
MAX_MODULE_BYTES = 1 << 20
#: Packages climbed to find the directory that holds a file's top package.
MAX_PACKAGE_DEPTH = 16


@dataclass(eq=False)
class ProjectModule:
    path: str
    index: ModuleIndex
    resolver: Resolver

    def class_named(self, name: str) -> Optional[ast.ClassDef]:
        for binding in self.index.module_scope.bindings.get(name, ()):
            if binding.kind == "class":
                return binding.node
        return None

    def imported(self, name: str) -> Optional[tuple[str, "ProjectModule"]]:
        """For a name this module imports from another project module: (its name there, that module)."""
        bindings = self.index.module_scope.bindings.get(name, ())
        if not bindings or bindings[-1].kind != "import" or not isinstance(bindings[-1].node, ast.ImportFrom):
            return None
        return resolve_import(self.path, bindings[-1].qualname or "")


_CACHE: dict[str, tuple[tuple[int, int], Optional[ProjectModule]]] = {}


def load(path: str) -> Optional[ProjectModule]:
    """The parsed module at *path*, or None (missing, too large, not Python)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    key = (stat.st_size, stat.st_mtime_ns)
    cached = _CACHE.get(path)
    if cached is not None and cached[0] == key:
        return cached[1]
    module = None
    if stat.st_size <= MAX_MODULE_BYTES:
        try:
            with open(path, "rb") as handle:
                tree = ast.parse(handle.read(), filename=path)
            index = ModuleIndex(tree)
            module = ProjectModule(path, index, Resolver(index))
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            module = None
    _CACHE[path] = (key, module)
    return module


def resolve_import(filename: str, qualname: str) -> Optional[tuple[str, ProjectModule]]:
    """For the qualified name of a ``from M import name`` binding in *filename* (``.extended.Name``,
    ``pkg.data.Name``): (``Name``, the project module M), when M is a file of the project."""
    level = len(qualname) - len(qualname.lstrip("."))
    dotted = qualname[level:]
    if "." not in dotted:
        return None
    module, name = dotted.rsplit(".", 1)
    base = os.path.dirname(os.path.abspath(filename))
    if level:
        for _ in range(level - 1):
            base = os.path.dirname(base)
        roots = [base]
    else:
        roots = _roots(base)
    for root in roots:
        path = _module_path(root, module.split("."))
        if path is not None:
            found = load(path)
            return (name, found) if found is not None else None
    return None


def _roots(directory: str) -> list[str]:
    """Where absolute imports of a file's project resolve: its directory, and the one above its top package."""
    roots = [directory]
    current = directory
    for _ in range(MAX_PACKAGE_DEPTH):
        if not os.path.isfile(os.path.join(current, "__init__.py")):
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    if current != directory:
        roots.append(current)
    return roots


def _module_path(root: str, parts: list[str]) -> Optional[str]:
    if not all(part.isidentifier() for part in parts):
        return None
    stem = os.path.join(root, *parts)
    for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
        # The findings now depend on this file, and on its absence: the results cache must know either way.
        depends_on(candidate)
        if os.path.isfile(candidate):
            return candidate
    return None


#: Modules crossed when following a class's bases through the project.
MAX_BASE_HOPS = 4


def imported_base(filename: str, qualname: str, targets: frozenset, hops: int = 0) -> Optional[str]:
    """For a base class imported from a project module (*qualname* of its import binding): the name in
    *targets* it derives from there (``from .base import _BaseTrainer`` → ``transformers.Trainer``), or None."""
    if hops > MAX_BASE_HOPS or not qualname or qualname.startswith("<module>."):
        return None
    found = resolve_import(filename, qualname)
    return _class_base(found[1], found[0], targets, hops + 1) if found is not None else None


def _class_base(module: ProjectModule, name: str, targets: frozenset, hops: int) -> Optional[str]:
    if hops > MAX_BASE_HOPS:
        return None
    node = module.class_named(name)
    if node is None:  # re-exported: `from .extended import ExtendedVisionDataset` in a package's __init__
        again = module.imported(name)
        return _class_base(again[1], again[0], targets, hops + 1) if again is not None else None
    scope = module.index.module_scope
    for base in node.bases:
        qualname = module.resolver.qualname(base, scope) or ""
        if qualname in targets:
            return qualname
        if qualname.startswith("<module>."):
            found = _class_base(module, qualname.split(".", 1)[1], targets, hops + 1)
        elif isinstance(base, ast.Name):
            found = imported_base(module.path, qualname, targets, hops + 1)
        else:
            found = None
        if found is not None:
            return found
    return None
