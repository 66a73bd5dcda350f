"""Name resolution on the stdlib ``ast``: bindings, import aliases and qualified names.

``from torch.utils.data import DataLoader as DL`` makes ``DL(...)`` a
``torch.utils.data.DataLoader`` call; ``ctx = mp.get_context("spawn")`` makes
``ctx.Pool`` a ``multiprocessing.Pool``.  Resolution is deliberately shallow
and returns ``None`` when unsure: a check that cannot tell stays silent.
"""

from __future__ import annotations

import ast
import builtins
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Optional

from ..spawn_apis import CONTEXT_FACTORIES, KNOWN_PREFIXES, MODULE_ALIASES, known_names
from .index import Binding, ModuleIndex, Scope, tried_first

if TYPE_CHECKING:
    from .project import Project

_BUILTINS = frozenset(dir(builtins))
MAX_DEPTH = 8


class Resolver:
    def __init__(self, index: ModuleIndex, filename: Optional[str] = None, project: Optional["Project"] = None) -> None:
        self.index = index
        #: where the module is, and the reader of its project: a star import of a project module is looked up
        #: there (None: it is not)
        self.filename = filename
        self.project = project
        # Every check asks for the name of the same calls: one answer per (expression, scope), and per ((name,
        # line), scope) for a name asked about with no node (:meth:`name_qualname`).
        self._qualnames: dict[tuple[Any, Scope], Optional[str]] = {}
        # The answers drawn from the project's files, which the answers above depend on: top-level module name
        # -> a project file is what it imports; the qualified name of a project module's name (``from M import
        # name``, or a star-imported ``M`` and the name) -> the library name M imports under it (:meth:`reexport`).
        # The module (and this) may outlive a check, so each context of the project's reader asks them again
        # through it (see _sync).
        self._shadowed: dict[str, bool] = {}
        self._reexports: dict[str, Optional[str]] = {}
        self._context: object = None

    def lookup(self, name: str, scope: Scope, line: Optional[int] = None) -> Optional[Binding]:
        """The binding a use of *name* in *scope* (at *line*) most likely sees."""
        current: Optional[Scope] = scope
        first = True
        while current is not None:
            if current.kind == "class" and not first:
                current = current.parent  # class bodies are not enclosing scopes for functions
                continue
            bindings = current.bindings.get(name)
            if bindings:
                if first and line is not None and current.kind != "class":
                    # the last binding made at or before the line (the hottest loop of a check: no list built)
                    found = next((b for b in reversed(bindings) if b.line <= line), None)
                    if found is None:
                        if current.kind == "module" and name in _BUILTINS:
                            # (`_open_ = open` above the module's own `class open:`: run at import, before the
                            # module binds the name, the statement reads the builtin)
                            return None
                        found = bindings[-1]
                    return tried_first(found, line)
                return tried_first(bindings[-1])
            first = False
            current = current.parent
        return None

    def qualname(self, expr: ast.AST, scope: Scope, depth: int = 0) -> Optional[str]:
        """Dotted name an expression stands for (``torch.utils.data.DataLoader``), or None."""
        if depth == 0:
            self._sync()
            key = (expr, scope)
            if key not in self._qualnames:
                self._qualnames[key] = self._qualname(expr, scope, 0)
            return self._qualnames[key]
        return self._qualname(expr, scope, depth)

    def name_qualname(self, name: str, scope: Scope, line: Optional[int] = None) -> Optional[str]:
        """:meth:`qualname` of a use of *name* in *scope* (at *line*) that is not in the tree (the name an import
        binds, a star-imported name): kept by name and line, not by a node made for the question, which would
        keep one answer, and one node, per question."""
        self._sync()
        key = ((name, line), scope)
        if key not in self._qualnames:
            self._qualnames[key] = self._qualname(ast.Name(id=name, lineno=line), scope, 0)
        return self._qualnames[key]

    def _qualname(self, expr: ast.AST, scope: Scope, depth: int) -> Optional[str]:
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, ast.Name):
            binding = self.lookup(expr.id, scope, getattr(expr, "lineno", None))
            if binding is None:
                starred = self._star_imported(expr.id, scope) if self.index.module_scope.star_imports else None
                if starred is not None:
                    return starred
                return f"builtins.{expr.id}" if expr.id in _BUILTINS else None
            if binding.kind == "import":
                relative = binding.qualname.startswith(".")
                if relative or self._shadowed_import(binding.qualname):
                    # (a project module's name: the library's, when that module imports it from one)
                    library = self.reexport(binding.qualname)
                    return library if library is not None or not relative else _canonical(binding.qualname)
                return _canonical(binding.qualname)
            if binding.kind == "assign" and isinstance(binding.value, (ast.Name, ast.Attribute, ast.Call)):
                return self._qualname(binding.value, binding.scope, depth + 1)
            if binding.kind in ("def", "class") and binding.scope.kind == "module":
                return f"<module>.{expr.id}"
            return None
        if isinstance(expr, ast.Attribute):
            base = self._qualname(expr.value, scope, depth + 1)
            return _canonical(f"{base}.{expr.attr}") if base else None
        if isinstance(expr, ast.Call):
            func = self._qualname(expr.func, scope, depth + 1)
            if func in CONTEXT_FACTORIES:
                # An explicit fork context never pickles for its children nor re-imports the main module
                # (and does not exist on Windows, which is a different failure): nothing of ours applies.
                method = expr.args[0] if expr.args else next(
                    (k.value for k in expr.keywords if k.arg == "method"), None)
                if isinstance(method, ast.Constant) and method.value == "fork":
                    return None
                return CONTEXT_FACTORIES[func]
            return None
        return None

    def _shadowed_import(self, qualname: str) -> bool:
        """Whether an absolute import of *qualname* finds a project file rather than the library of that name
        (a ``datasets.py`` beside the script is what ``from datasets import load_dataset`` imports when it runs):
        then nothing the registry says of the library's names applies."""
        if self.project is None or not self.filename or qualname.startswith("."):
            return False
        top = qualname.split(".", 1)[0]
        if top not in self._shadowed:
            self._shadowed[top] = self._shadows(top)
        return self._shadowed[top]

    def _shadows(self, top: str) -> bool:
        return self.project.imports.module_file(self.filename, top) is not None

    def _sync(self) -> None:
        """Ask the project again what the kept answers were drawn from, once per context of its reader (a check,
        a fact being computed): so that what it read is recorded there too (what a file's findings depend on
        must not depend on which files were checked before it), and an answer a changed file made stale (a
        ``torch.py`` created beside the script) is found again."""
        project = self.project
        if project is None or project.context is self._context:
            return
        self._context = project.context
        if any(self._shadows(top) != answer for top, answer in list(self._shadowed.items())) or any(
                self._reexported(qualname) != answer for qualname, answer in list(self._reexports.items())):
            self._qualnames.clear()
            self._shadowed.clear()
            self._reexports.clear()

    def _star_imported(self, name: str, scope: Scope) -> Optional[str]:
        """``from torch.utils.data import *`` then ``DataLoader``: the name, when the registry knows it there.

        Only names the analysis knows are resolved (a star import says nothing about what else a module
        exports); a capitalised name under a registry prefix (``torchvision.transforms.``) counts as known.
        A project module's star import (``from .utils import *``) gives the library names that module imports.
        """
        modules = []
        current: Optional[Scope] = scope
        while current is not None:
            modules += list(reversed(current.star_imports))
            current = current.parent
        candidates = [_canonical(f"{module}.{name}") for module in modules]
        for module, candidate in zip(modules, candidates):
            if candidate in known_names():
                return candidate
            if self.filename and self.project is not None and name not in _BUILTINS:
                # A project module (`from .utils import *`): what it imports under that name, if it does.
                library = self.reexport(f"{module}.{name}")
                if library is not None:
                    return library
        if name[:1].isupper():
            for candidate in candidates:
                if candidate.startswith(KNOWN_PREFIXES):
                    return candidate
        return None

    def reexport(self, qualname: str) -> Optional[str]:
        """The library name that ``from M import name`` (*qualname*) of a project module M binds (:meth:`_reexported`),
        or None."""
        self._sync()
        if qualname not in self._reexports:
            self._reexports[qualname] = self._reexported(qualname)
        return self._reexports[qualname]

    def _reexported(self, qualname: str, filename: Optional[str] = None, depth: int = 0) -> Optional[str]:
        """For ``from M import name`` of a project module M (*qualname* ``M.name``, relative to *filename*): the
        library name M binds *name* to by an import (``from torch.utils.data import DataLoader`` in utils.py, for
        ``from utils import DataLoader`` or ``from utils import *``), through the project modules it imports it
        from in turn (a package's ``from .dataset import *``, ``from .data import DataLoader``), to
        :data:`MAX_DEPTH` modules; None when it is the project's own, or cannot be told."""
        if self.project is None or depth > MAX_DEPTH:
            return None
        filename = filename or self.filename
        # (read quietly: what the answer depends on is how M binds the name, or its star imports when it binds
        # none, not the rest of M -- a package's __init__.py that many files import)
        found = self.project.resolve_import(filename, qualname, record=False) if filename else None
        if found is None:
            return None
        name, module = found
        self.project.binding_used(module, name)
        scope = module.index.module_scope
        bindings = scope.bindings.get(name, ())
        last = tried_first(bindings[-1]) if bindings else None
        if last is not None:
            if last.kind != "import":
                return None
            if self._in_project(last.qualname, module.path):
                return self._reexported(last.qualname, module.path, depth + 1)
            return _canonical(last.qualname)
        for star in reversed(scope.star_imports):  # (`from .dataset import *` in a package's __init__.py)
            if self._in_project(star, module.path):
                library = self._reexported(f"{star}.{name}", module.path, depth + 1)
                if library is not None:
                    return library
            elif _canonical(f"{star}.{name}") in known_names():
                return _canonical(f"{star}.{name}")
        return None

    def _in_project(self, qualname: str, path: str) -> bool:
        """Whether an import of *qualname* in the module at *path* finds a project file (a relative one does)."""
        return qualname.startswith(".") or self.project.imports.module_file(path, qualname.split(".", 1)[0]) is not None

    def definition(self, expr: ast.AST, scope: Scope, depth: int = 0) -> Optional[Binding]:
        """The def/class binding an expression refers to (through simple assignments), if any."""
        if depth > MAX_DEPTH or not isinstance(expr, ast.Name):
            return None
        binding = self.lookup(expr.id, scope, getattr(expr, "lineno", None))
        if binding is None:
            return None
        if binding.kind in ("def", "class"):
            return binding
        if binding.kind == "assign" and isinstance(binding.value, ast.Name):
            return self.definition(binding.value, binding.scope, depth + 1)
        return None

    def value_of(self, expr: ast.AST, scope: Scope) -> tuple[Optional[ast.AST], Scope]:
        """Follow ``name = value`` assignments to the expression a name was last given."""
        seen = 0
        while isinstance(expr, ast.Name) and seen < MAX_DEPTH:
            binding = self.lookup(expr.id, scope, getattr(expr, "lineno", None))
            if binding is None or binding.kind not in ("assign", "with") or binding.value is None:
                return expr, scope
            expr, scope = binding.value, binding.scope
            seen += 1
        return expr, scope


@lru_cache(maxsize=4096)
def _canonical(name: Optional[str]) -> Optional[str]:
    if name is None:
        return None
    for prefix, replacement in MODULE_ALIASES.items():
        if name == prefix or name.startswith(prefix + "."):
            return replacement + name[len(prefix):]
    return name


def is_local_definition(binding: Binding) -> bool:
    """A def or class created each time an enclosing function runs (not picklable by reference)."""
    scope: Optional[Scope] = binding.scope
    while scope is not None:
        if scope.is_function:
            return True
        scope = scope.parent
    return False
