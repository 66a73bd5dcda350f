"""How safe the main-guard wrap (WSP101, WSP103, WSP104) is for one file: does anything import it?

Moving module-level code into ``main()`` changes the meaning of a module only for code that imports it
(the moved names and side effects are gone).  A file that the project cannot import is a script, and the
wrap is SAFE for it:

* its name is not an identifier (``train-gpt.py``, ``01_intro.py``): no ``import`` statement can name it;
* it starts with a shebang (``#!``): it is run, not imported;
* no Python file under the project root mentions it in an import: ``import x``, ``import a.x``,
  ``from x import ...``, ``from . import x``, ``from a import (b, x)``, ``importlib.import_module("a.x")``,
  ``__import__("x")``, on a line of its own or after ``try:``, ``else:``, ``;`` and the like.  This is a text
  search, made once per project and run (:meth:`.Project.importers`), that errs towards "imported" (a name
  anywhere in an import statement counts), so the grade is SAFE only when no file could import it.

Otherwise the wrap stays UNSAFE.  The project root is the nearest directory above the file that holds
``pyproject.toml``, ``setup.py``, ``setup.cfg`` or ``.git``; without one, the file's own directory.  A root
with more than :data:`MAX_FILES` Python files is not searched (the wrap stays UNSAFE).

The same search (:class:`ProjectIndex`) tells the analysis which files name a worker API, who may import whom,
and which modules may reach a worker API through the names they import (:class:`ImportGraph`).
"""

from __future__ import annotations

import os
import re
import stat
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional, Sequence

from ..finding import Finding
from ..io.stamps import folder_mtime, stat_stamp
from .. import rules
from ..records import Record, Value
from ..rules import FixSafety

if TYPE_CHECKING:
    from .exported_names import Pieces
    from .project import Project

WRAP_RULES = frozenset({rules.WSP101, rules.WSP103, rules.WSP104})
MAX_FILES = 20_000
MAX_SCANNED_BYTES = 4 << 20
_ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "venv", "env", "build", "dist"})

_IMPORT = re.compile(r"import[ \t]+([^\n#;]+)")
_FROM = re.compile(r"from[ \t]+([.\w]+)[ \t]+import[ \t]*(\([^)]*\)|(?:\\\n|[^\n#;])*)")  # (a `\` line end continues)
_DYNAMIC = re.compile(r"(?:import_module|__import__)\(\s*[rRuU]?['\"]([.\w]+)['\"]")
_WORD = re.compile(r"\w+")
_TOP_DEF = re.compile(r"(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)")
_TOP_ASSIGN = re.compile(r"(\w+(?:[ \t]*,[ \t]*\w+)*)[ \t]*(?::[^=\n]*)?=(?!=)")
_DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*\Z")
_RELATIVE = re.compile(r"\.*(?:[^\W\d]\w*(?:\.[^\W\d]\w*)*)?\Z")  # (an absolute name is a relative one of level 0)


class Grade(Value):
    __slots__ = ("safety", "reason")

    def __init__(self, safety: FixSafety, reason: str) -> None:
        self.safety = safety
        self.reason = reason


def grade(path: Optional[str], text: str, project: "Project") -> Grade:
    """The wrap's fix safety for the file at ``path`` holding ``text``, and why."""
    if path is None or path == "-":
        return Grade(FixSafety.UNSAFE, "the file's name is unknown (stdin), so whether it is imported is too")
    module = os.path.basename(path)
    module = module[: -len(".py")] if module.endswith(".py") else module
    if not module.isidentifier():
        return Grade(FixSafety.SAFE, f"`{os.path.basename(path)}` is not an importable module name")
    if text.startswith("#!"):
        return Grade(FixSafety.SAFE, "the file starts with a shebang (a script)")
    root = project.root(path)
    others = project.mentioning(path, module)
    if others is None:
        return Grade(FixSafety.UNSAFE, f"{root} has more than {MAX_FILES} Python files to search for importers")
    if others:
        return Grade(FixSafety.UNSAFE, f"`{module}` may be imported by {others[0]}")
    return Grade(FixSafety.SAFE, f"no module under {root} imports `{module}`")


def needs_grade(findings: Sequence[Finding]) -> bool:
    """Whether a finding's fix safety depends on the file (the main-guard wrap's does)."""
    return any(_graded(f) for f in findings)


def regrade(findings: Sequence[Finding], path: Optional[str], text: str,
            project: "Project") -> tuple[list[Finding], Optional[Grade]]:
    """``findings`` with the wrap's safety for this file set on its findings, and the grade (None when the
    file has no such finding)."""
    if not needs_grade(findings):
        return list(findings), None
    found = grade(path, text, project)
    return [f.replace(fix_safety=found.safety) if _graded(f)
            else f for f in findings], found


def _graded(finding: Finding) -> bool:
    """A wrap finding whose safety the file decides (not one the check said has no fix)."""
    return finding.rule in WRAP_RULES and finding.rule.fix_safety is FixSafety.UNSAFE \
        and finding.fix_safety is not FixSafety.NONE


def project_root(path: str) -> str:
    """The nearest folder above *path* that holds a project marker (``pyproject.toml``, ``setup.py``,
    ``setup.cfg``, ``.git``); the file's own folder when none does."""
    return marker_root(path) or os.path.dirname(os.path.abspath(path))


def marker_root(path: str) -> Optional[str]:
    """The nearest folder above *path* that holds a project marker, or None."""
    here = os.path.dirname(os.path.abspath(path))
    directory = here
    for _ in range(here.count(os.sep) + 1):  # one step per level up to the filesystem root
        if any(os.path.exists(os.path.join(directory, marker)) for marker in _ROOT_MARKERS):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return None


def skipped_project(root: str, folder: str) -> Optional[str]:
    """When the walk of :func:`scan` from *root* does not reach *folder*, below it, for a hidden or skipped
    folder on the way: the folder inside the last of those towards *folder* (or that folder itself, when
    *folder* is it), from which a walk does reach *folder*; None when the walk from *root* reaches it."""
    relative = os.path.relpath(folder, root)
    if relative in (".", os.pardir) or relative.startswith(os.pardir + os.sep):
        return None
    parts = relative.split(os.sep)
    last = max((i for i, part in enumerate(parts) if _skipped(part)), default=None)
    if last is None:
        return None
    return os.path.join(root, *parts[:last + 2])


def _skipped(name: str) -> bool:
    return name.startswith(".") or name in _SKIP_DIRS


#: An import as the index reads it: (module, name, bound name).  ``import a.b as c``: ``("a.b", "", "c")``;
#: ``from .m import n as k``: ``(".m", "n", "k")``; ``from m import *``: ``("m", "*", "")``; a literal
#: ``import_module("a.b")``: ``("a.b", "", "")``.
Import = tuple[str, str, str]


class FileRead(Value):
    """What the project search reads of one file."""

    __slots__ = ("sink", "words", "imports", "names")

    def __init__(self, sink: bool, words: Optional[frozenset[str]], imports: tuple[Import, ...],
                 names: frozenset[str] = frozenset()) -> None:
        #: its text passes the prefilter (names a worker API)
        self.sink = sink
        #: the words its imports mention; None: the text holds no ``import``
        self.words = words
        #: its imports (:data:`Import`)
        self.imports = imports
        #: the names its statements at column 0 define (``def``, ``class``, assignments)
        self.names = names


class SearchInputs(Value):
    """What a search of a project read of the file system, each thing as it was then: while every folder keeps
    its mtime (taken as the walk listed it) no file was added, removed or renamed in it, and while every file
    keeps its size and mtime it reads the same, so the search would find the same index.  A run's record in
    the results cache keeps these (:class:`~winspawn_lint.io.cache.RunInputs`)."""

    __slots__ = ("folders", "files")

    def __init__(self, folders: dict[str, int], files: dict[str, Optional[tuple[int, int]]]) -> None:
        #: each folder the walk listed -> its mtime
        self.folders = folders
        #: each file found -> its (size, mtime), None when it could not be asked (a dangling link)
        self.files = files

    def hold(self) -> bool:
        """Whether every folder and file is as the search read it: a search now would find the same index."""
        for folder, mtime in self.folders.items():
            if folder_mtime(folder) != mtime:
                return False
        # (each stamp was old enough to trust when it was taken: an equal one now is the same file)
        return all(stat_stamp(path) == stamp for path, stamp in self.files.items())


class ProjectIndex(Record):
    """The imports of every script and notebook under a project root, read as text once per run: who may import
    whom, and which files may hold a finding of their own (their text names a worker API)."""

    __slots__ = ("root", "mentions", "imports", "names", "sinks", "answers", "api_word", "inputs", "_graph",
                 "_first_parts")

    def __init__(self, root: str, mentions: Optional[dict[str, list[str]]] = None,
                 imports: Optional[dict[str, tuple[Import, ...]]] = None,
                 names: Optional[dict[str, frozenset[str]]] = None, sinks: Optional[set[str]] = None,
                 answers: Optional["GraphAnswers"] = None, api_word: Optional[Callable[[str], bool]] = None,
                 inputs: Optional["SearchInputs"] = None, _graph: Optional["ImportGraph"] = None,
                 _first_parts: Optional[dict[str, frozenset[str]]] = None) -> None:
        #: the folder searched
        self.root = root
        #: word -> the files whose imports mention it (``import a.b``, ``from a import b``, ``import_module("a")``)
        self.mentions = mentions if mentions is not None else {}
        #: every file searched -> its imports
        self.imports = imports if imports is not None else {}
        #: file -> the names its statements at column 0 define
        self.names = names if names is not None else {}
        #: the files whose own text passes the prefilter
        self.sinks = sinks if sinks is not None else set()
        #: the answers of :meth:`reaches` and :meth:`relevant`, as an earlier run found them from the same files
        #: (see :class:`~winspawn_lint.io.cache.ScanMemory`): then no graph is built
        self.answers = answers
        #: whether an identifier may name a worker API (the prefilter's words): then the names of a file that names
        #: one are told apart (:mod:`.exported_names`); without it, every name of such a file may lead to one
        self.api_word = api_word
        #: what the search read of the file system, when a run with the results cache searched (None: not kept,
        #: or an mtime too recent to prove anything): the index is the same while all of it is
        self.inputs = inputs
        self._graph = _graph
        self._first_parts = _first_parts

    def reaches(self, path: str) -> bool:
        """:meth:`ImportGraph.reaches` of an indexed file."""
        if self.answers is not None:
            return path in self.answers.reaching
        return self.graph().reaches(path)

    def relevant(self, path: str) -> bool:
        """Whether a file whose own text names no worker API may still hold a finding: its imports may reach one
        (:meth:`ImportGraph.reaches`: its sources may be sent there), or a module that may reach one imports it
        (directly, or through one more module: its sources may be sent there, its import-time work repeated by
        spawned workers; a script that names no worker API may start workers through a class it imports)."""
        key = os.path.abspath(path)
        if self.answers is not None:
            return key in self.answers.relevant
        graph = self.graph()
        if graph.reaches(key):
            return True
        importers = graph.importers.get(key, set())
        return any(graph.reaches(importer) or any(graph.reaches(further) for further in graph.importers.get(
            importer, ())) for importer in importers)

    def first_parts(self, folder: str) -> frozenset[str]:
        """The first parts of the absolute module names that the files directly in *folder* import (``exp`` of
        ``from exp.exp_main import Exp``)."""
        if self._first_parts is None:
            found: dict[str, set[str]] = {}
            for path, imports in self.imports.items():
                found.setdefault(os.path.dirname(path), set()).update(
                    module.split(".", 1)[0] for module in _modules(imports) if not module.startswith("."))
            self._first_parts = {name: frozenset(parts) for name, parts in found.items()}
        return self._first_parts.get(os.path.abspath(folder), frozenset())

    def graph(self) -> "ImportGraph":
        if self._graph is None:
            self._graph = ImportGraph(self)
        return self._graph

    def all_answers(self) -> "GraphAnswers":
        """What :meth:`reaches` and :meth:`relevant` answer of every indexed file."""
        return GraphAnswers(frozenset(p for p in self.imports if self.reaches(p)),
                            frozenset(p for p in self.imports if self.relevant(p)))


class GraphAnswers(Value):
    """The indexed files that :meth:`ProjectIndex.reaches` and :meth:`ProjectIndex.relevant` say yes of."""

    __slots__ = ("reaching", "relevant")

    def __init__(self, reaching: frozenset[str], relevant: frozenset[str]) -> None:
        self.reaching = reaching
        self.relevant = relevant


class ImportGraph:
    """Which project files each file's imports may load, the reverse, and which files may reach a worker API
    through what they import, read from the imports' dotted names alone.

    An absolute name ``a.b`` may load any file whose path below the root ends in ``a/b.py`` or
    ``a/b/__init__.py``: the folder the import search finds ``a`` in (the script's, the root, one a ``sys.path``
    edit adds) is not decided here, so every candidate counts.  A relative name is resolved from the file's own
    package, as Python does."""

    #: how many re-exports (``from .x import n`` in a package that a module imports ``n`` from) are followed
    MAX_REEXPORTS = 8
    #: rounds of telling names apart (:mod:`.exported_names`), each with the imports answered by the one before
    MAX_PHASES = 4

    def __init__(self, index: ProjectIndex) -> None:
        self.index = index
        self._by_suffix: dict[str, list[str]] = {}
        self._relative: dict[tuple[str, str], list[str]] = {}
        for path in index.imports:
            if not path.endswith(".py"):
                continue  # (a notebook imports, but is not imported)
            parts = os.path.relpath(path, index.root)[: -len(".py")].split(os.sep)
            if parts[-1] == "__init__":
                parts.pop()
            for start in range(len(parts)):
                self._by_suffix.setdefault(".".join(parts[start:]), []).append(path)
        #: file -> the files whose imports may load it
        self.importers: dict[str, set[str]] = {}
        for path, imports in index.imports.items():
            for target in {found for name in _modules(imports) for found in self._loads(path, name)}:
                self.importers.setdefault(target, set()).add(path)
        self._pieces: dict[str, Optional[Pieces]] = {}
        #: (file, name) -> whether the file defines the name at column 0, for each one the graph asked
        self._asked: dict[tuple[str, str], bool] = {}
        self._dirty: dict[tuple[int, str], frozenset[str]] = {}
        # Phase 0 takes every name of a file that reaches a worker API to lead to one.  Each later phase tells a
        # reaching file's names apart, its imports answered by the phase before: an answer that only adds
        # files and names (each phase's sets hold the least ones), so every phase's answer is sound and the last
        # is kept.  A phase that tells the same files and names as the one before ends the search: the next
        # would answer every import as it did.
        self._phases = [self._reaching_files(0)]
        for phase in range(1, self.MAX_PHASES + 1 if index.api_word is not None else 1):
            self._phases.append(self._reaching_files(phase))
            if self._phases[-1] == self._phases[-2] and all(
                    self._dirty.get((phase - 1, path)) == names
                    for (number, path), names in self._dirty.items() if number == phase):
                break
        self._reaching = self._phases[-1]

    def text_reaches(self, path: str, text: str) -> tuple[bool, set[str]]:
        """Whether a name the module *text* imports may lead to a worker API, for a text of the module at *path*
        that may not be its file's (an editor's buffer), the other files read as they are; and the files its
        imports may load (what the answer depends on)."""
        imports = _imports(text)[1]
        loaded = {found for name in _modules(imports) for found in self._loads(path, name)}
        phase = len(self._phases) - 1
        return any(self._import_reaches(path, entry, self._reaching, frozenset(), phase) for entry in imports), loaded

    def reaches(self, path: str) -> bool:
        """Whether the module at *path* may call a worker API, or hand what it makes to one: its own text names
        one, or a name it imports may (a function or class, or a module, defined in a file that reaches one;
        a name a package re-exports is followed to the module that defines it, so that ``from pkg import
        MEAN`` of a constant defined beside the package's loaders does not count; a name defined in a file that
        names an API only if its definition may lead to one, :mod:`.exported_names`).  Asked of the files
        searched."""
        return path in self._reaching

    def _reaching_files(self, phase: int) -> set[str]:
        """The least set of files closed under "a name it imports reaches one", starting from the files whose
        text names a worker API (*phase*: see ``__init__``).  Each round adds a file or ends the search, so it
        takes at most one round per file; a file's answer does not depend on the order (the set only grows,
        and each test only asks it)."""
        reaching = set(self.index.sinks)
        # (a phase's set is within the one before: its answers only tell apart what that one's took together)
        waiting = sorted((self._phases[phase - 1] if phase else set(self.index.imports)) - reaching)
        for _ in range(len(waiting) + 1):
            more = [path for path in waiting if any(
                self._import_reaches(path, entry, reaching, frozenset(), phase) for entry in self.index.imports[path])]
            if not more:
                break
            reaching.update(more)
            waiting = [path for path in waiting if path not in reaching]
        return reaching

    def _import_reaches(self, path: str, entry: Import, reaching: set[str], seen: frozenset, phase: int) -> bool:
        """Whether one import of the file at *path* may reach a worker API (*seen*: the re-exports followed)."""
        module, name, _ = entry
        if not name:
            prefixes = [module] if module.startswith(".") else _prefixes(module)
            return any(found in reaching for prefix in prefixes for found in self._loads(path, prefix))
        if name == "*":
            return any(found in reaching for found in self._loads(path, module))
        if any(found in reaching for found in self._loads(path, _join(module, name))):
            return True  # (a submodule)
        return any(self._exported(found, name, reaching, seen, phase) for found in self._loads(path, module))

    def _exported(self, path: str, name: str, reaching: set[str], seen: frozenset, phase: int) -> bool:
        """Whether *name*, taken from the module at *path*, may reach a worker API.  A name it defines reaches one
        if the module does; one it imports is followed to the module it comes from (through a star import when
        the module neither defines nor imports it by name, and a module it is star-imported from does); a
        cycle of re-exports binds nothing, and past MAX_REEXPORTS, or bound in a way not read here, a name
        reaches one if the module does."""
        if (path, name) in seen:
            return False
        if phase and path in reaching:
            read = self._pieces_of(path)
            if read is not None and name in read.defined:
                return name in self._reaching_names(path, read, phase)
        if len(seen) >= self.MAX_REEXPORTS or self._defines(path, name):
            return path in reaching
        binding = self._binding(path, name)
        seen = seen | {(path, name)}
        if binding:
            return any(self._import_reaches(path, entry, reaching, seen, phase) for entry in binding)
        starred = [found for entry in self.index.imports.get(path, ()) if entry[1] == "*"
                   for found in self._loads(path, entry[0])
                   if self._defines(found, name) or self._binding(found, name)]
        if starred:
            return any(self._exported(found, name, reaching, seen, phase) for found in starred)
        return path in reaching

    def _defines(self, path: str, name: str) -> bool:
        """Whether the file at *path* defines *name* at column 0 (each question kept: :meth:`names_asked`)."""
        key = (path, name)
        answer = self._asked.get(key)
        if answer is None:
            answer = self._asked[key] = name in self.index.names.get(path, ())
        return answer

    def names_asked(self) -> dict[tuple[str, str], bool]:
        """Each (file, name) the graph asked whether the file defines, and the answer: with the index's imports
        and the pieces read, all the graph's answers follow from (a name no import asks for, which an edit adding
        a function brings, changes none of them)."""
        return self._asked

    def _pieces_of(self, path: str) -> Optional[Pieces]:
        """:func:`.exported_names.read_pieces` of the file at *path* (read once)."""
        if path not in self._pieces:
            self._pieces[path] = _file_pieces(path, self.index.api_word)
        return self._pieces[path]

    def pieces_read(self) -> Iterable[tuple[str, Optional[Pieces]]]:
        """Each file the graph read in pieces, and its pieces: with the index, what its answers follow from."""
        return self._pieces.items()

    def _reaching_names(self, path: str, read: Pieces, phase: int) -> frozenset[str]:
        """The names of the file at *path* that may lead to a worker API, its imports answered by *phase* - 1."""
        key = (phase, path)
        if key not in self._dirty:
            from .exported_names import reaching_names

            before = self._phases[phase - 1]
            self._dirty[key] = reaching_names(read, lambda entry: self._import_reaches(
                path, entry, before, frozenset(), phase - 1))
        return self._dirty[key]

    def _binding(self, path: str, name: str) -> list[Import]:
        """The imports of the module at *path* that bind *name* (a star import binds no name it names)."""
        return [entry for entry in self.index.imports.get(path, ()) if entry[2] == name and entry[1] != "*"]

    def _loads(self, path: str, name: str) -> list[str]:
        """The other project files the import of dotted *name* in the file at *path* may load."""
        return [found for found in self._resolve(path, name) if found != path]

    def _resolve(self, path: str, name: str) -> list[str]:
        """The project files the import of dotted *name* in the file at *path* may load."""
        if not name.startswith("."):
            return self._by_suffix.get(name, [])
        key = (os.path.dirname(path), name)  # (a warm run asks again for each file in each round: kept)
        found = self._relative.get(key)
        if found is None:
            rest = name.lstrip(".")
            base = key[0]
            for _ in range(len(name) - len(rest) - 1):
                base = os.path.dirname(base)
            target = os.path.join(base, *rest.split(".")) if rest else base
            found = self._relative[key] = [candidate for candidate in (target + ".py", os.path.join(
                target, "__init__.py")) if candidate in self.index.imports]
        return found


def _modules(imports: Iterable[Import]) -> set[str]:
    """The dotted names of the modules *imports* may load: ``a`` and ``a.b`` for ``import a.b``; ``a``, ``a.b``
    and ``a.c`` for ``from a import b, c`` (a name imported from a package may be its submodule)."""
    names: set[str] = set()
    for module, name, _ in imports:
        if not name:
            names.update([module] if module.startswith(".") else _prefixes(module))
        else:
            names.add(module)
            if name != "*":
                names.add(_join(module, name))
    return names


def _prefixes(dotted: str) -> list[str]:
    pieces = dotted.split(".")
    return [".".join(pieces[:end]) for end in range(1, len(pieces) + 1)]


def _join(module: str, name: str) -> str:
    return module + name if module.endswith(".") else f"{module}.{name}"


def module_name(path: str) -> str:
    """The name an import gives the module at *path* (its last part): ``data`` for ``data.py``, ``pkg`` for
    ``pkg/__init__.py``."""
    base = os.path.basename(path)
    if base == "__init__.py":
        return os.path.basename(os.path.dirname(path))
    return os.path.splitext(base)[0]


class NamedModules(Value):
    """The modules the imports of one file may name, as the project's search read them (every import statement of
    it, and maybe more: :func:`_imports` errs towards finding one), in a form that answers for any module at once:
    the import search finds ``a.b`` only as ``<folder>/a/b.py`` or ``<folder>/a/b/__init__.py``
    (:func:`.imports._module_file`), so a module whose path does not end with a name's parts cannot be it.
    ``from m import n`` is taken to name ``m`` and any ``m.<name>``.  A cheap test that spares the parse of most of a
    popular name's candidate importers (:meth:`.project.Project.importers_of`)."""

    __slots__ = ("tails", "parents", "folders", "parent_folders", "longest")

    def __init__(self, rows: Sequence[Import], importer: str) -> None:
        tails: set[tuple[str, ...]] = set()  # (a module path must end with one)
        parents: set[tuple[str, ...]] = set()  # (its folder must end with one: `from m import n`'s `m.<name>`)
        folders: set[str] = set()  # (a relative import's module, as a path without `.py`)
        parent_folders: set[str] = set()  # (... and the folder of its `<name>`)
        for module, name, _ in rows:
            level = len(module) - len(module.lstrip("."))
            dotted = tuple(p for p in module[level:].split(".") if p)
            if level:
                base = os.path.dirname(importer)
                for _ in range(level - 1):
                    base = os.path.dirname(base)
                folder = os.path.join(base, *dotted)
                folders.add(folder)
                if name:
                    parent_folders.add(folder)
            elif name:  # (`from m import n`: m, or m.n)
                tails.add(dotted)
                parents.add(dotted)
            else:  # (`import a.b`: a, then a.b)
                tails.update(dotted[:end] for end in range(1, len(dotted) + 1))
        tails.discard(())
        parents.discard(())
        self.tails, self.parents = frozenset(tails), frozenset(parents)
        self.folders, self.parent_folders = frozenset(folders), frozenset(parent_folders)
        self.longest = max(map(len, tails | parents), default=0)

    def may_name(self, target: "ModulePath") -> bool:
        """Whether one of the imports may name the module at *target*."""
        if target.stem is None or target.stem in self.folders or target.folder in self.parent_folders:
            return True
        parts = target.parts
        for end in range(1, min(self.longest, len(parts) - 1) + 1):
            if parts[-end:] in self.tails or parts[-end - 1:-1] in self.parents:
                return True
        return False


class ModulePath(Value):
    """The path of a module as :meth:`NamedModules.may_name` compares it: without ``.py`` (a package without
    ``/__init__.py``), its folder, and its parts; *stem* None for a file that is no Python module."""

    __slots__ = ("stem", "folder", "parts")

    def __init__(self, target: str) -> None:
        if target.endswith(f"{os.sep}__init__.py"):
            self.stem: Optional[str] = os.path.dirname(target)
        else:
            self.stem = target[:-len(".py")] if target.endswith(".py") else None
        self.folder = os.path.dirname(self.stem) if self.stem is not None else None
        self.parts = tuple(self.stem.split(os.sep)) if self.stem is not None else ()


def scan(root: str, passes: Any = None, memory: Any = None,
         api_word: Optional[Callable[[str], bool]] = None,
         listed: Optional[dict[str, int]] = None) -> Optional[ProjectIndex]:
    """The :class:`ProjectIndex` of *root* (*passes*: the text prefilter, ``passes(text) -> bool``; *api_word*:
    :attr:`ProjectIndex.api_word`); None when
    there are more than MAX_FILES files to search (counted before any is read).  *memory* (the results cache's
    :class:`~winspawn_lint.io.cache.ScanMemory`) gives what an earlier run read in a file whose size and mtime
    are unchanged, and keeps what this run reads: a warm run reads no file to search the project.  *listed*, with
    a *memory*: given each folder the walk listed, with its mtime, when it finds too many files (while they keep
    their mtimes, it would again); left empty when a folder's mtime was too recent to tell."""
    found: list[str] = []
    # (a run with the cache keeps what the search read: folders as the walk lists them, files below)
    inputs: Optional[SearchInputs] = SearchInputs({}, {}) if memory is not None else None
    for directory, dirs, files in os.walk(root):
        if inputs is not None:
            # (taken after the listing: a change between the two leaves an mtime too recent to trust)
            mtime = folder_mtime(directory)
            if mtime is None:
                inputs = None
            else:
                inputs.folders[os.path.abspath(directory)] = mtime
        dirs[:] = sorted(d for d in dirs if not _skipped(d))
        for name in sorted(files):
            if name.endswith((".py", ".ipynb")):
                found.append(os.path.abspath(os.path.join(directory, name)))
                if len(found) > MAX_FILES:
                    if listed is not None and inputs is not None:
                        listed.update(inputs.folders)
                    return None
    index = ProjectIndex(os.path.abspath(root), api_word=api_word)
    # What the graph's answers follow from, with the cache on: what the index holds of each file (read from
    # the file, or kept while its size and mtime are unchanged) but its names, the names the graph asked
    # about (:meth:`ImportGraph.names_asked`), and the pieces of the files the graph read in pieces
    # (:meth:`ImportGraph.pieces_read`), each with its stamp (None: too recent to prove it unchanged).
    contents: list[str] = [index.root]
    stamps: dict[str, Optional[tuple[int, Optional[int]]]] = {}
    for path in found:
        try:
            info = os.stat(path)
        except OSError:
            if inputs is not None:
                inputs.files[path] = None
            continue
        if memory is not None:
            trusted = memory.trusted(info)
            stamps[path] = (info.st_size, info.st_mtime_ns if trusted else None)
            if inputs is not None:
                if trusted:
                    inputs.files[path] = (info.st_size, info.st_mtime_ns)
                else:
                    inputs = None
        if info.st_size > MAX_SCANNED_BYTES:
            continue  # a huge file is not a module
        kept = memory.recall(index.root, path, info) if memory is not None else None
        read = FileRead(*kept) if kept is not None else _read_for_index(path, passes)
        if read is None:
            continue
        if memory is not None:
            if kept is None:
                memory.keep(index.root, path, info, (read.sink, read.words, read.imports, read.names))
            contents.append(f"{path}\0{read.sink:d}\0{sorted(read.words) if read.words is not None else None}"
                            f"\0{read.imports!r}")
        index.imports[path] = read.imports
        index.names[path] = read.names
        if read.sink:
            index.sinks.add(path)
        for word in read.words or ():
            index.mentions.setdefault(word, []).append(path)
    index.inputs = inputs
    if memory is not None:
        # (an edit that leaves every file's imports, names and pieces as they were takes the answers: a body
        # edited before a commit no longer builds the graph again, seconds on a large project)
        files = "\n".join(contents)
        kept = memory.answers(index.root, files, stamps, lambda path: _file_pieces(path, api_word), index.names)
        if kept is not None:
            index.answers = GraphAnswers(*kept)
        else:
            answers = index.all_answers()
            graph = index.graph()
            memory.keep_answers(index.root, files, answers.reaching, answers.relevant,
                                {path: (stamps.get(path), pieces) for path, pieces in graph.pieces_read()},
                                graph.names_asked())
    return index


def _file_pieces(path: str, api_word: Optional[Callable[[str], bool]]) -> Optional[Pieces]:
    """:func:`.exported_names.read_pieces` of the file at *path* (None: not read in pieces)."""
    from .exported_names import read_pieces

    text = _read_regular(path) if path.endswith(".py") and api_word is not None else None
    return None if text is None else read_pieces(text, api_word, path)


def _read_for_index(path: str, passes: Any) -> Optional[FileRead]:
    """What the index needs of one file (:class:`FileRead`); None when it cannot be read."""
    text = _read_regular(path)
    if text is None:
        return None
    if path.endswith(".ipynb"):
        text = _notebook_code(text)  # (not its outputs: images and tables, often most of the file)
    sink = passes is not None and bool(passes(text))
    if "import" not in text:
        return FileRead(sink, None, (), _top_level_names(text))
    words, imports = _imports(text)
    return FileRead(sink, words, imports, _top_level_names(text))


def _notebook_code(text: str) -> str:
    """The code cells of a notebook's JSON text, joined (nothing for a file that is not a notebook)."""
    import json

    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError, RecursionError):
        return ""
    parts = []
    for cell in cells if isinstance(cells, list) else ():
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            parts.append("".join(source) if isinstance(source, list) else str(source))
    return "\n".join(parts)


def _read_regular(path: str) -> Optional[str]:
    """The text of a regular file, or None: a FIFO named ``x.py`` (which a plain ``open`` waits on for a writer
    forever) or a device is not read, nor is a file that cannot be opened."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        with open(fd, encoding="utf-8", errors="replace") as handle:
            return handle.read() if stat.S_ISREG(os.fstat(fd).st_mode) else None
    except OSError:
        return None


def _imports(text: str) -> tuple[frozenset[str], tuple[Import, ...]]:
    """The words a text's imports mention, and its imports (:data:`Import`) in order, each once."""
    words: set[str] = set()
    found: dict[Import, None] = {}
    for match in _at_statement_starts(_IMPORT, text, "import"):
        words.update(_WORD.findall(match.group(1)))
        for part in match.group(1).split(","):
            pieces = part.split()
            if pieces and _DOTTED.match(pieces[0]):
                bound = pieces[2] if len(pieces) == 3 and pieces[1] == "as" else pieces[0].split(".")[0]
                found[(pieces[0], "", bound)] = None
    for match in _at_statement_starts(_FROM, text, "from"):
        module = match.group(1)
        words.update(_WORD.findall(module))
        words.update(_WORD.findall(match.group(2)))
        if not _RELATIVE.match(module):
            continue
        for part in re.sub(r"#[^\n]*|\\\n", " ", match.group(2)).strip("() \t\n\\").split(","):
            pieces = part.split()
            if pieces == ["*"]:
                found[(module, "*", "")] = None
            elif pieces and pieces[0].isidentifier():
                bound = pieces[2] if len(pieces) == 3 and pieces[1] == "as" else pieces[0]
                found[(module, pieces[0], bound)] = None
    if "import_module(" in text or "__import__(" in text:
        for match in _DYNAMIC.finditer(text):
            words.update(_WORD.findall(match.group(1)))
            if _RELATIVE.match(match.group(1)):
                found[(match.group(1), "", "")] = None
    return frozenset(words), tuple(found)


def _top_level_names(text: str) -> frozenset[str]:
    """The names that statements at column 0 define: ``def f``, ``class C``, ``x = ...``, ``a, b = ...``,
    ``x: int = ...``."""
    names: set[str] = set()
    for line in text.split("\n"):
        if not line or not (line[0].isalpha() or line[0] == "_"):
            continue
        match = _TOP_DEF.match(line)
        if match:
            names.add(match.group(1))
            continue
        match = _TOP_ASSIGN.match(line)
        if match:
            names.update(word.strip() for word in match.group(1).split(","))
    return frozenset(names)


def _at_statement_starts(pattern: re.Pattern, text: str, word: str) -> Iterator[re.Match]:
    """``pattern.match`` at each place a statement may start with *word*: after blanks at a line's start, or after a
    ``:`` or ``;`` and blanks on a line with no ``#`` before it (``try: import x``, ``else: from y import z``,
    ``x = 1; import y``).  Only the places where *word* occurs are tried, not every character (a regular
    expression that tries ``^`` at each one spent most of a large repository's scan there); like the rest of the
    search it errs towards finding an import (one after ``:`` in a string counts)."""
    end = 0
    at = text.find(word)
    while at != -1:
        if at >= end:
            start = text.rfind("\n", 0, at) + 1
            before = text[start:at].rstrip(" \t")
            if not before or (before[-1] in ":;" and "#" not in before):
                match = pattern.match(text, at)
                if match is not None:
                    yield match
                    end = match.end()
        at = text.find(word, at + len(word))


def grade_note(findings: Sequence[Finding], found: Optional[Grade], unsafe: bool) -> Optional[str]:
    """The fix note on the wrap's grade: why it applies as a safe fix, or why it needs ``--unsafe-fixes``."""
    if found is None:
        return None
    codes = ", ".join(sorted({f.code for f in findings if _graded(f)}))
    if not codes:  # every wrap here is declined: its findings' notes say why
        return None
    if found.safety is FixSafety.SAFE:
        return f"moving code under the main guard ({codes}) is a safe fix here: {found.reason}"
    if not unsafe:
        return (f"{codes} not fixed: moving code under the main guard is an unsafe fix here ({found.reason}); "
                "use --unsafe-fixes")
    return None
