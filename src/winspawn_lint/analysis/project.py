"""The project around a checked file, read (never imported or executed) through one reader.

Every fact the analysis takes from a file other than the one it checks comes through a :class:`Project`: a
module's syntax tree and index, whether a file exists, a constant astroid infers in another module, the heavy
work a sibling module does when imported, the project's configured line length, the names other modules import.
The reader

* parses each file once per process while it keeps its size and modification time (a long-lived process, the
  flake8 plugin's or an editor's, sees an edited module at once);
* records, for the file being checked, every file it read or looked for and did not find (:meth:`reading`):
  the results cache keeps a file's findings only while each of those files keeps the stamp it had then.  A
  read served from the in-process cache is recorded too, so what one file's findings depend on never depends on
  which files this process checked before it.

A module that cannot be found, is too large or does not parse is unknown, and the checks that asked stay silent.

One :class:`Project` lives as long as the run (or a parallel run's worker) that made it, and is handed down to
the analysis; nothing else in the analysis keeps state between files.
"""

from __future__ import annotations

import ast
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

from ..io.cache import Stamp, stat_stamp
from ..io.line_length import DEFAULT_MAX_LINE_LENGTH, configured_line_length
from .index import ModuleIndex
from .names import Resolver

#: Larger modules are not read (generated code, vendored bundles).
MAX_MODULE_BYTES = 1 << 20
#: Packages climbed to find the directory that holds a file's top package.
MAX_PACKAGE_DEPTH = 16
#: Modules crossed when following a class's bases through the project.
MAX_BASE_HOPS = 4


@dataclass(eq=False)
class ProjectModule:
    path: str
    index: ModuleIndex
    resolver: Resolver
    #: facts derived from this module alone, computed once (keyed by what asks: "heavy", ...)
    derived: dict[str, Any] = field(default_factory=dict)

    def class_named(self, name: str) -> Optional[ast.ClassDef]:
        for binding in self.index.module_scope.bindings.get(name, ()):
            if binding.kind == "class":
                return binding.node
        return None


class Project:
    """The reader of the project's files for one run (see the module docstring)."""

    def __init__(self) -> None:
        #: path -> ((size, mtime_ns) it was parsed at, the module or None)
        self._modules: dict[str, tuple[tuple[int, int], Optional[ProjectModule]]] = {}
        #: (path, attribute, (size, mtime_ns)) -> the value astroid inferred, or values.UNKNOWN
        self._constants: dict[tuple[str, str, tuple[int, int]], Any] = {}
        #: project root -> name -> up to two files whose imports mention it (None: too many files to search)
        self._importers: dict[str, Optional[dict[str, list[str]]]] = {}
        #: directory -> the line length configured for files there, and the configuration files looked at (each
        #: with its size and mtime then: a long-lived process sees an edited configuration)
        self._line_lengths: dict[str, tuple[int, tuple[tuple[str, Optional[tuple[int, int]]], ...]]] = {}
        self._reads: Optional[dict[str, Optional[Stamp]]] = None

    # ---------------------------------------------------------------- what one file's findings depend on

    @contextmanager
    def reading(self) -> Iterator[dict[str, Optional[Stamp]]]:
        """Collect, inside the block, every file read or looked for: absolute path -> its stamp when first
        named (``None``: it did not exist)."""
        previous, self._reads = self._reads, {}
        try:
            yield self._reads
        finally:
            self._reads = previous

    def _record(self, path: str) -> str:
        key = os.path.abspath(path)
        if self._reads is not None and key not in self._reads:
            self._reads[key] = stat_stamp(key)
        return key

    # ---------------------------------------------------------------- files

    def is_file(self, path: str) -> bool:
        """Whether *path* is a file; the answer (either way) is a dependency."""
        return os.path.isfile(self._record(path))

    def exists(self, path: str) -> bool:
        """Whether anything (a file, a directory, a dangling link) is at *path*; a dependency either way."""
        return os.path.lexists(self._record(path))

    def module(self, path: str) -> Optional[ProjectModule]:
        """The parsed module at *path*, or None (missing, too large, not Python)."""
        key = self._record(path)
        stamp = _raw_stamp(key)
        if stamp is None:
            return None
        cached = self._modules.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        module = None
        if stamp[0] <= MAX_MODULE_BYTES:
            try:
                with open(key, "rb") as handle:
                    tree = ast.parse(handle.read(), filename=key)
                index = ModuleIndex(tree)
                module = ProjectModule(key, index, Resolver(index))
            except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
                module = None
        self._modules[key] = (stamp, module)
        return module

    def constant(self, path: str, attribute: str) -> Any:
        """The value astroid infers for module-level *attribute* of the module at *path*, or values.UNKNOWN."""
        from .values import UNKNOWN

        key = self._record(path)
        stamp = _raw_stamp(key)
        if stamp is None or not os.path.isfile(key) or stamp[0] > MAX_MODULE_BYTES:
            return UNKNOWN
        cache_key = (key, attribute, stamp)
        if cache_key not in self._constants:
            from .inference import module_constant

            self._constants[cache_key] = module_constant(key, attribute)
        return self._constants[cache_key]

    # ---------------------------------------------------------------- imports between project modules

    def resolve_import(self, filename: str, qualname: str) -> Optional[tuple[str, ProjectModule]]:
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
            roots = self._roots(base)
        for root in roots:
            path = self._module_path(root, module.split("."))
            if path is not None:
                found = self.module(path)
                return (name, found) if found is not None else None
        return None

    def _module_path(self, root: str, parts: list[str]) -> Optional[str]:
        if not all(part.isidentifier() for part in parts):
            return None
        stem = os.path.join(root, *parts)
        for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
            if self.is_file(candidate):
                return candidate
        return None

    def imported(self, module: ProjectModule, name: str) -> Optional[tuple[str, ProjectModule]]:
        """For a name *module* imports from another project module: (its name there, that module)."""
        bindings = module.index.module_scope.bindings.get(name, ())
        if not bindings or bindings[-1].kind != "import" or not isinstance(bindings[-1].node, ast.ImportFrom):
            return None
        return self.resolve_import(module.path, bindings[-1].qualname or "")

    def imported_base(self, filename: str, qualname: str, targets: frozenset, hops: int = 0) -> Optional[str]:
        """For a base class imported from a project module (*qualname* of its import binding): the name in
        *targets* it derives from there (``from .base import _BaseTrainer`` → ``transformers.Trainer``), or None."""
        if hops > MAX_BASE_HOPS or not qualname or qualname.startswith("<module>."):
            return None
        found = self.resolve_import(filename, qualname)
        return self._class_base(found[1], found[0], targets, hops + 1) if found is not None else None

    def _class_base(self, module: ProjectModule, name: str, targets: frozenset, hops: int) -> Optional[str]:
        if hops > MAX_BASE_HOPS:
            return None
        node = module.class_named(name)
        if node is None:  # re-exported: `from .extended import ExtendedVisionDataset` in a package's __init__
            again = self.imported(module, name)
            return self._class_base(again[1], again[0], targets, hops + 1) if again is not None else None
        scope = module.index.module_scope
        for base in node.bases:
            qualname = module.resolver.qualname(base, scope) or ""
            if qualname in targets:
                return qualname
            if qualname.startswith("<module>."):
                found = self._class_base(module, qualname.split(".", 1)[1], targets, hops + 1)
            elif isinstance(base, ast.Name):
                found = self.imported_base(module.path, qualname, targets, hops + 1)
            else:
                found = None
            if found is not None:
                return found
        return None

    def _roots(self, directory: str) -> list[str]:
        """Where absolute imports of a file's project resolve: its directory, and the one above its top
        package."""
        roots = [directory]
        current = directory
        for _ in range(MAX_PACKAGE_DEPTH):
            if not self.is_file(os.path.join(current, "__init__.py")):
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        if current != directory:
            roots.append(current)
        return roots

    # ---------------------------------------------------------------- the project as a whole

    def importers(self, root: str) -> Optional[dict[str, list[str]]]:
        """Name -> up to two files under *root* whose imports mention it; None when there are too many files
        to search.  Searched once per root and run (the fixes' safety grade, recomputed every run), or until
        :meth:`files_changed`."""
        if root not in self._importers:
            from .importers import scan

            self._importers[root] = scan(root)
        return self._importers[root]

    def files_changed(self) -> None:
        """Files of the project were created, changed or deleted: forget what was searched across the project
        (:meth:`importers`).  What was read file by file checks itself against the file's size and mtime.  A
        long-lived owner (the language server) calls this when its client reports changed files."""
        self._importers.clear()

    def line_length(self, path: Optional[str]) -> int:
        """The maximum line length the project configures for *path* (flake8/pycodestyle ini files, ruff,
        black); its configuration files are dependencies of what the fixer writes."""
        if not path or path == "-":
            return DEFAULT_MAX_LINE_LENGTH
        directory = os.path.dirname(os.path.abspath(path))
        cached = self._line_lengths.get(directory)
        if cached is None or any(_raw_stamp(candidate) != stamp for candidate, stamp in cached[1]):
            length, looked_at = configured_line_length(directory)
            cached = self._line_lengths[directory] = (length, tuple((c, _raw_stamp(c)) for c in looked_at))
        for candidate, _ in cached[1]:
            self._record(candidate)
        return cached[0]


def _raw_stamp(path: str) -> Optional[tuple[int, int]]:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_size, stat.st_mtime_ns)
