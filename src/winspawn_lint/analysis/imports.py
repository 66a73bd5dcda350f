"""Where an import finds its module when the script runs: Python's module search, read statically.

``python path/to/train.py`` puts the script's folder first on ``sys.path``; many repositories then add folders
themselves -- ``sys.path.append("..")``, ``sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))``,
often in a helper the script imports first (``import _init_paths``) -- and ``python -m pkg.train`` puts the current
folder (the one holding the top package) there instead.  :class:`ImportSearch` finds, for a module of the
project, the folders its imports are searched in, in Python's order, and which file of the project an import names:

1. the module's own folder (``sys.path[0]`` when it is the script): for a module outside any package, or one with
   a main guard (a package's other modules see their siblings only through relative imports);
2. the folders that the module's own top-level ``sys.path`` edits add (evaluated statically: string constants,
   ``__file__``, ``os.path.join/dirname/abspath/realpath/normpath/expanduser``, ``pathlib.Path(...).parent``,
   ``.parents[n]``, ``.resolve()`` and ``/``; a relative path counts from the script's folder; a folder of the
   author's machine that does not exist here is the project's folder of the same last names), and those of the
   project modules it imports at top level that edit ``sys.path`` (the ``_init_paths.py`` idiom);
3. the folder that holds the module's top package (``python -m pkg.mod`` from there; an installed package); for a
   module outside any package, importing a name whose first part is one of its own folders (``import utils.misc``
   in ``proj/utils/engine.py``), the folder above that one (a script there imports the module); and, for a name
   its search did not find, a folder above from which it has a dotted name when a script or notebook there
   imports the module's folder (``from exp.exp_main import Exp`` in ``proj/run.py`` puts ``proj/`` first on the
   path of ``proj/exp/exp_main.py``'s ``from data_provider.factory import f``);
4. the project root and its ``src/`` folder;
5. for a module of a package with no main guard whose top level reads the command line (``parser.parse_args()``,
   ``sys.argv``), its own folder, last: such a module is a script too (an unguarded one: the kind whose workers
   re-run it), written to run from its folder (``import loader.dataloader`` beside ``loader/``, in a folder that
   has an ``__init__.py`` for an editor's sake), while a module the package imports would not see the folder;
   last, so that a name the package or the root holds is found there first, as it would be if it were imported.

The first folder that holds ``name.py`` or ``name/__init__.py`` wins, so a local ``datasets.py`` beside the script
shadows the installed Hugging Face ``datasets``, as it does when the script runs (``name/sub.py`` in a folder
without ``__init__.py`` is found as Python finds it in a namespace package).  A name found in no folder of
the project is a library's, and so is one found in a folder where libraries are installed (the standard library,
``site-packages``).  Nothing is imported or executed: files are parsed through the project reader, which
records what it looked at.
"""

from __future__ import annotations

import ast
import os
import re
import unicodedata
from typing import TYPE_CHECKING, Optional

from ..records import Record
from .guards import is_main_guard, never_runs

if TYPE_CHECKING:
    from .project import Project, ProjectModule

#: sys.path edits evaluated per module (a bound on pathological files)
MAX_PATH_EDITS = 16
#: project modules followed when collecting the sys.path edits of a module's top-level imports
MAX_PATH_HELPERS = 8
_PATH_METHODS = frozenset({"append", "insert", "extend"})
#: the fields of a statement that hold statements
_BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})
#: Where libraries are installed: the standard library (``lib/python3.11``) and ``site-packages``.  What an import
#: finds there is the library the registry describes, even when the checked file sits beside it (a library
#: checked where it is installed), so these folders are never searched as the project's.
_LIBRARY_FOLDER = re.compile(r"(?:^|[\\/])(?:site-packages|dist-packages|lib[\\/]python\d+(?:\.\d+)?t?)(?:[\\/]|$)")


class ImportSearch:
    """The module search of one project, as the scripts of its modules would see it."""

    def __init__(self, project: "Project") -> None:
        self.project = project

    # ---------------------------------------------------------------- the search path

    def folders(self, path: str) -> tuple[str, ...]:
        """Where the imports of the module at *path* are searched, first match winning (see the docstring);
        kept by the project while the files it read keep their stamps."""
        key = os.path.abspath(path)
        # (a cycle through path helpers sees no folders of its own)
        return self.project.memo(("folders", key), lambda: self._folders(key), cycle=())

    def _folders(self, key: str) -> tuple[str, ...]:
        here = os.path.dirname(key)
        facts = self.project.search_facts(key)
        # A script's folder is first on the path; a module of a package (its folder has an __init__.py) is
        # imported through the package, and its folder is on the path only when it is run as a script itself.
        script = not self.project.is_file(os.path.join(here, "__init__.py")) or (
            facts is not None and facts.main_guard)
        found = [here] if script else []
        reads_argv = not script and facts is not None and facts.reads_argv
        if facts is not None:
            module = self.project.module(key) if self.project.may_edit_path(key) else None
            if module is not None:
                found += self._own_edits(module)
            for helper in self._path_helpers(key, facts, here):
                found += self._own_edits(helper)
        found.append(self._package_parent(here))
        root = self.project.root(key)
        found += [root, os.path.join(root, "src")]
        if reads_argv:
            found.append(here)
        return tuple(dict.fromkeys(os.path.normpath(f) for f in found if not in_library_folder(f)))

    def _package_parent(self, folder: str) -> str:
        current = folder
        for _ in range(32):
            if not self.project.is_file(os.path.join(current, "__init__.py")):
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        return current

    def _path_helpers(self, key: str, facts: "ImportFacts", here: str) -> list["ProjectModule"]:
        """Project modules that the module at *key* (its :class:`ImportFacts`) imports at top level (before its
        other imports: a path helper is imported first) and that edit sys.path themselves."""
        out = []
        for name in facts.first_imports:
            candidate = _module_file(self.project, here, name.split("."))
            if candidate is None or os.path.abspath(candidate) == key:
                continue
            helper = self.project.module(candidate) if self.project.may_edit_path(candidate) else None
            if helper is not None and self._own_edits(helper):
                out.append(helper)
                if len(out) >= MAX_PATH_HELPERS:
                    return out
        return out

    def _own_edits(self, module: "ProjectModule") -> tuple[str, ...]:
        """The folders a module's own top-level code adds to ``sys.path``: ``sys.path.append(x)`` /
        ``insert(i, x)`` / ``extend([...])`` statements at module level (also inside ``if``/``try``), and calls at
        module level of a function of the module that does it with one of its parameters (``add_path(lib)``)."""
        return self.project.memo(("sys.path edits", module.path), lambda: self._edits(module), cycle=())

    def _edits(self, module: "ProjectModule") -> tuple[str, ...]:
        module = self.project.module(module.path) or module  # (read through the project: a dependency)
        paths = _StaticPaths(module)
        edits: list[str] = []
        helpers = _path_helper_functions(module)
        for stmt in _top_level_statements(module.index.tree):
            if len(edits) >= MAX_PATH_EDITS:
                break
            call = stmt.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None
            if call is None:
                continue
            edited = _path_edit(call)
            if edited is not None:
                folders = (paths.folder(value) for value in edited)
                edits += [self._here(folder, module.path) for folder in folders if folder is not None]
                continue
            if isinstance(call.func, ast.Name) and call.func.id in helpers:
                position, name = helpers[call.func.id]
                argument = call.args[position] if position < len(call.args) else next(
                    (k.value for k in call.keywords if k.arg == name), None)
                folder = paths.folder(argument) if argument is not None else None
                if folder is not None:
                    edits.append(folder)
        return tuple(edits)

    def _here(self, folder: str, path: str) -> str:
        """*folder* as a ``sys.path`` edit names it, or, when no such folder exists, the project's folder with the
        same last one to three names: an absolute path of the author's machine (``/home/me/toxic/bin``,
        ``C:\\Users\\me\\toxic\\bin``) meant the ``bin`` folder of this checkout."""
        if self.project.exists(folder):
            return folder
        names = [name for name in re.split(r"[\\/]", folder) if name and name not in (".", "..")]
        root = self.project.root(path)
        for count in range(min(3, len(names) - 1), 0, -1):
            candidate = os.path.join(root, *names[-count:])
            if self.project.exists(candidate) and not self.project.is_file(candidate):
                return candidate
        return folder

    # ---------------------------------------------------------------- resolving

    def module_file(self, importer: str, dotted: str, level: int = 0) -> Optional[str]:
        """The project file that ``import dotted`` (or ``from .dotted`` with *level* dots) names in the module at
        *importer*, or None when it is a library's (or not found)."""
        parts = [p for p in dotted.split(".") if p] if dotted else []
        if level:
            base = os.path.dirname(os.path.abspath(importer))
            root = os.path.normpath(self.project.root(importer))
            for _ in range(level - 1):
                if os.path.normpath(base) == root:
                    return None  # (above the project: Python says "attempted relative import beyond top-level package")
                base = os.path.dirname(base)
            return _module_file(self.project, base, parts) if parts else _package_file(self.project, base)
        if not parts:
            return None
        folders = self.folders(importer)
        # The modules of a folder share their search path: each name is looked for once per run (the files it
        # probed are the answer's dependencies, as the project keeps them).
        found = self.project.memo(("module file", folders, tuple(parts)), lambda: self._search(folders, parts))
        return found if found is not None else self._from_a_folder_above(importer, parts)

    def _from_a_folder_above(self, importer: str, parts: list[str]) -> Optional[str]:
        """``import utils.misc`` in ``proj/utils/engine.py``, or ``from data_provider.factory import f`` in
        ``proj/exp/exp_main.py``, folders that are no package: the script of ``proj/`` imports the module as
        ``utils.engine`` or ``exp.exp_main``, so ``proj/`` is on its path, where Python finds the name.  Looked for
        in the folder above one of the importer's own folders of the name's first part; then, nearest first, in
        each folder above the importer's from which it has a dotted name (every folder between is named like an
        identifier) and where a script or notebook imports the first part of that name (``from exp.exp_main
        import ...`` in ``proj/run.py``): a folder above whose scripts never import the importer's folder is not
        on its path (an ``examples/`` script's ``import trl`` is the installed package, not the checkout's).  At
        most 8 up, not past the root, and only for a name the importer's own search did not find."""
        here = os.path.dirname(os.path.abspath(importer))
        if self.project.is_file(os.path.join(here, "__init__.py")):
            return None
        root = os.path.normpath(self.project.root(importer))
        above: list[tuple[str, str]] = []  # (a folder above, the importer's dotted name's first part from it)
        dotted = True
        current = here
        for _ in range(8):
            name, parent = os.path.basename(current), os.path.dirname(current)
            if name == parts[0]:
                found = _module_file(self.project, parent, parts)
                if found is not None:
                    return found
            if parent == current or os.path.normpath(current) == root:
                break
            dotted = dotted and name.isidentifier()
            if dotted:
                above.append((parent, name))
            current = parent
        for folder, first in above:
            # (the file first: a folder with nothing of the name needs no look at its scripts, and its absence is
            # recorded as the files are)
            found = _module_file(self.project, folder, parts)
            if found is not None and self.project.imported_from_folder(folder, first):
                return found
        return None

    def _search(self, folders: tuple[str, ...], parts: list[str]) -> Optional[str]:
        for folder in folders:
            found = _module_file(self.project, folder, parts)
            if found is not None:
                return found
        return None


class ImportFacts(Record):
    """What the search asks of a module whose imports it only resolves (a module that may import the one being
    checked, a path helper): every import statement, whether the module has a main guard, the modules its first
    top-level statements import (path helpers come first), and whether it may edit ``sys.path`` (then the search
    reads the whole module for its edits).  Most modules it asks are read for nothing else, and a bare parse
    gives these facts without the index of the whole module."""

    __slots__ = ("imports", "main_guard", "first_imports", "may_edit_path", "reads_argv")

    def __init__(self, imports: tuple, main_guard: bool, first_imports: tuple[str, ...], may_edit_path: bool,
                 reads_argv: bool) -> None:
        #: (module or None, level, names) of each ``from module import names``; (None, -1, names) of ``import``
        self.imports = imports
        self.main_guard = main_guard
        self.first_imports = first_imports
        self.may_edit_path = may_edit_path
        #: its top level reads the command line (:func:`_reads_argv`): a sign it runs as a script
        self.reads_argv = reads_argv


def import_facts_of_module(module: "ProjectModule") -> ImportFacts:
    """The facts of a module parsed whole (one being checked, or kept)."""
    index = module.index
    return ImportFacts(tuple(_import_row(node) for node in index.imports), bool(index.main_guards),
                       _first_imports(index.tree.body), True, _reads_argv(index.tree))


def import_facts_of_text(data: bytes) -> Optional[ImportFacts]:
    """The facts of a module's source, from a bare parse (raises what ``ast.parse`` raises); None when its text
    may edit ``sys.path`` (it names both ``sys`` and ``path``, after the normalisation Python gives identifiers):
    then the whole module answers, as :meth:`ImportSearch._own_edits` reads it."""
    if may_edit_path(data):
        return None
    tree = ast.parse(data)
    imports = []
    main_guard = False
    # Every statement: imports anywhere count, main guards where the index finds them (not in a def or class)
    stack: list[tuple[ast.stmt, bool]] = [(stmt, True) for stmt in reversed(tree.body)]
    while stack:
        stmt, at_module = stack.pop()
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            imports.append(_import_row(stmt))
            continue
        if at_module and isinstance(stmt, ast.If) and is_main_guard(stmt.test) and not never_runs(stmt.test):
            main_guard = True
        inner = at_module and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        blocks = [getattr(stmt, "body", None), getattr(stmt, "orelse", None), getattr(stmt, "finalbody", None),
                  *(handler.body for handler in getattr(stmt, "handlers", ())),
                  *(case.body for case in getattr(stmt, "cases", ()))]
        for block in reversed(blocks):
            if type(block) is list:
                stack.extend((child, inner) for child in reversed(block) if isinstance(child, ast.stmt))
    reads_argv = (b"argv" in data or b"parse_" in data) and _reads_argv(tree)
    return ImportFacts(tuple(imports), main_guard, _first_imports(tree.body), False, reads_argv)


def may_edit_path(data: bytes) -> bool:
    """Whether a module's source may edit ``sys.path``: it names both ``sys`` and ``path`` (after the
    normalisation Python gives identifiers; a text that is not UTF-8 may)."""
    if data.isascii():
        return b"sys" in data and b"path" in data
    try:
        text = unicodedata.normalize("NFKC", data.decode("utf-8"))
    except UnicodeDecodeError:
        return True
    return "sys" in text and "path" in text


def _import_row(node: ast.stmt) -> tuple:
    names = tuple(alias.name for alias in node.names)
    return (node.module, node.level, names) if isinstance(node, ast.ImportFrom) else (None, -1, names)


def _first_imports(body: list[ast.stmt]) -> tuple[str, ...]:
    """The absolute module names the first top-level statements import (where a path helper is imported)."""
    out = []
    for stmt in body[:64]:
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)) or getattr(stmt, "level", 0):
            continue
        out += [a.name for a in stmt.names] if isinstance(stmt, ast.Import) else [stmt.module or ""]
    return tuple(name for name in out if name)


def in_library_folder(folder: str) -> bool:
    """Whether *folder* is where libraries are installed (the standard library, ``site-packages``) or in it."""
    return _LIBRARY_FOLDER.search(folder) is not None


def _module_file(project: "Project", folder: str, parts: list[str]) -> Optional[str]:
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    stem = os.path.join(folder, *parts)
    for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
        if project.is_file(candidate):
            return candidate
    return None


def _package_file(project: "Project", folder: str) -> Optional[str]:
    candidate = os.path.join(folder, "__init__.py")
    return candidate if project.is_file(candidate) else None


def _top_level_statements(tree: ast.Module) -> list[ast.stmt]:
    """The statements that run when the module is imported: its body, and the blocks of its top-level ``if``,
    ``try`` and ``with`` statements (not function or class bodies)."""
    out, stack = [], list(reversed(tree.body))
    while stack and len(out) < 4096:
        stmt = stack.pop()
        out.append(stmt)
        if isinstance(stmt, (ast.If, ast.Try, ast.With)) or type(stmt).__name__ == "TryStar":
            children = [*getattr(stmt, "body", []), *getattr(stmt, "orelse", []), *getattr(stmt, "finalbody", [])]
            for handler in getattr(stmt, "handlers", []):
                children += handler.body
            stack.extend(reversed(children))
    return out


def _reads_argv(tree: ast.Module) -> bool:
    """Whether the module's top level (not its functions and classes) reads the command line: a call of
    ``parse_args()`` or ``parse_known_args()`` (argparse's, or a parser wrapping it), or ``sys.argv``."""
    for stmt in _top_level_statements(tree):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field, value in ast.iter_fields(stmt):
            if field in _BLOCKS:
                continue  # (their statements are top-level statements of their own, or not top level)
            for part in value if isinstance(value, list) else (value,):
                if isinstance(part, ast.AST) and any(_reads_argv_here(node) for node in ast.walk(part)):
                    return True
    return False


def _reads_argv_here(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Attribute) and node.func.attr in ("parse_args", "parse_known_args")
    return isinstance(node, ast.Attribute) and node.attr == "argv" and isinstance(node.value, ast.Name) and \
        node.value.id == "sys"


def _path_edit(call: ast.Call) -> Optional[list[ast.expr]]:
    """The values ``sys.path.append(x)``/``insert(i, x)``/``extend([...])`` adds, or None for another call."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in _PATH_METHODS and isinstance(func.value, ast.Attribute)
            and func.value.attr == "path" and isinstance(func.value.value, ast.Name)
            and func.value.value.id == "sys"):
        return None
    args = call.args[1:] if func.attr == "insert" else call.args
    if not args:
        return []
    if func.attr == "extend":
        return list(args[0].elts) if isinstance(args[0], (ast.List, ast.Tuple)) else []
    return [args[0]]


def _path_helper_functions(module: "ProjectModule") -> dict[str, tuple[int, str]]:
    """Functions of the module that add one of their parameters to ``sys.path`` (``def add_path(path):
    sys.path.insert(0, path)``): name -> (the parameter's position, its name)."""
    out: dict[str, tuple[int, str]] = {}
    # (the index holds every method call: most modules edit no sys.path, and their functions are not walked)
    if not any(_path_edit(call) for method in _PATH_METHODS for call, _ in module.index.method_calls.get(method, ())):
        return out
    for stmt in module.index.tree.body:
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = [a.arg for a in [*stmt.args.posonlyargs, *stmt.args.args]]
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                edited = _path_edit(node)
                for value in edited or ():
                    if isinstance(value, ast.Name) and value.id in params:
                        out[stmt.name] = (params.index(value.id), value.id)
    return out


class _StaticPaths:
    """The folder a path expression of a module names, when it can be told without running anything: string
    constants, ``__file__``, the module's own top-level assignments, ``os.path`` functions (under any alias),
    ``pathlib.Path`` and its ``parent``/``parents[n]``/``resolve()``/``/``.  A relative path counts from the
    module's folder (the folder a script is usually run from)."""

    def __init__(self, module: "ProjectModule") -> None:
        self.module = module
        self.file = module.path
        self.here = os.path.dirname(module.path)

    def folder(self, expr: ast.expr) -> Optional[str]:
        value = self.value(expr, 0)
        if value is None:
            return None
        return os.path.normpath(value if os.path.isabs(value) else os.path.join(self.here, value))

    def value(self, expr: Optional[ast.expr], depth: int) -> Optional[str]:
        if expr is None or depth > 12:
            return None
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return expr.value
        if isinstance(expr, ast.Name):
            if expr.id == "__file__":
                return self.file
            bindings = self.module.index.module_scope.bindings.get(expr.id, ())
            if len(bindings) == 1 and bindings[0].kind == "assign":
                return self.value(bindings[0].value, depth + 1)
            return None
        if isinstance(expr, ast.Call):
            return self._call(expr, depth)
        if isinstance(expr, ast.Attribute) and expr.attr == "parent":
            base = self.value(expr.value, depth + 1)
            return os.path.dirname(base) if base is not None else None
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) and expr.value.attr == "parents" \
                and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, int):
            base = self.value(expr.value.value, depth + 1)
            if base is None:
                return None
            for _ in range(expr.slice.value + 1):
                base = os.path.dirname(base)
            return base
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Div, ast.Add)):
            left, right = self.value(expr.left, depth + 1), self.value(expr.right, depth + 1)
            if left is None or right is None:
                return None
            return os.path.join(left, right) if isinstance(expr.op, ast.Div) else left + right
        return None

    def _call(self, call: ast.Call, depth: int) -> Optional[str]:
        if call.keywords:
            return None
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in ("resolve", "absolute", "expanduser") and not call.args:
            return self.value(func.value, depth + 1)
        args = [self.value(a, depth + 1) for a in call.args]
        if any(a is None for a in args):
            return None
        if isinstance(func, ast.Attribute) and func.attr == "joinpath":
            base = self.value(func.value, depth + 1)
            return os.path.join(base, *args) if base is not None else None
        name = self.module.resolver.qualname(func, self.module.index.module_scope) or ""
        if name in ("os.path.join", "posixpath.join") and args:
            return os.path.join(*args)
        if name in ("os.path.dirname", "posixpath.dirname") and len(args) == 1:
            return os.path.dirname(args[0])
        if name in ("os.path.abspath", "os.path.realpath", "os.path.normpath", "os.path.expanduser",
                    "builtins.str", "os.fspath", "pathlib.Path", "pathlib.PurePath") and len(args) == 1:
            return args[0]
        return None
