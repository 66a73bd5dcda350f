"""How safe the main-guard wrap (WSP101, WSP103, WSP104) is for one file: does anything import it?

Moving module-level code into ``main()`` changes the meaning of a module only for code that imports it
(the moved names and side effects are gone).  A file that the project cannot import is a script, and the
wrap is SAFE for it:

* its name is not an identifier (``train-gpt.py``, ``01_intro.py``): no ``import`` statement can name it;
* it starts with a shebang (``#!``): it is run, not imported;
* no Python file under the project root mentions it in an import: ``import x``, ``import a.x``,
  ``from x import ...``, ``from . import x``, ``from a import (b, x)``, ``importlib.import_module("a.x")``,
  ``__import__("x")``.  This is a text search, made once per project and run (:meth:`.Project.importers`), that
  errs towards "imported" (a name anywhere in an import statement counts), so the grade is SAFE only when no file
  could import it.

Otherwise the wrap stays UNSAFE.  The project root is the nearest directory above the file that holds
``pyproject.toml``, ``setup.py``, ``setup.cfg`` or ``.git``; without one, the file's own directory.  A root
with more than :data:`MAX_FILES` Python files is not searched (the wrap stays UNSAFE).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Iterator, Optional, Sequence

from ..finding import Finding
from .. import rules
from ..rules import FixSafety

if TYPE_CHECKING:
    from .project import Project

WRAP_RULES = frozenset({rules.WSP101, rules.WSP103, rules.WSP104})
MAX_FILES = 20_000
MAX_SCANNED_BYTES = 4 << 20
_ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "venv", "env", "build", "dist"})

_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#;]+)", re.M)
_FROM = re.compile(r"^[ \t]*from[ \t]+([.\w]+)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;]*)", re.M)
_DYNAMIC = re.compile(r"(?:import_module|__import__)\(\s*[rRuU]?['\"]([.\w]+)['\"]")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Grade:
    safety: FixSafety
    reason: str


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
    names = _imported_names(project.importers(root), os.path.abspath(path))
    if names is None:
        return Grade(FixSafety.UNSAFE, f"{root} has more than {MAX_FILES} Python files to search for importers")
    if module in names:
        return Grade(FixSafety.UNSAFE, f"`{module}` may be imported by {names[module]}")
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
    return [replace(f, fix_safety=found.safety) if _graded(f)
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


def walks_into(root: str, folder: str) -> bool:
    """Whether the walk of :func:`scan` from *root* reaches *folder* (no hidden or skipped folder between)."""
    relative = os.path.relpath(folder, root)
    if relative == ".":
        return True
    return not relative.startswith("..") and not any(
        part.startswith(".") or part in _SKIP_DIRS for part in relative.split(os.sep))


def _imported_names(index: Optional["ProjectIndex"], own: str) -> Optional[dict[str, str]]:
    """Every name that appears in an import of a project file other than ``own`` -> one such file (*index*:
    :func:`scan` of the project root); None when there were too many files to search."""
    if index is None:
        return None
    out = {}
    for name, paths in index.mentions.items():
        other = next((p for p in paths if p != own), None)
        if other is not None:
            out[name] = other
    return out


@dataclass
class ProjectIndex:
    """The imports of every script and notebook under a project root, read as text once per run: who may import
    whom, and which files may hold a finding of their own (their text names a worker API)."""

    #: word -> the files whose imports mention it (``import a.b``, ``from a import b``, ``import_module("a")``)
    mentions: dict[str, list[str]]
    #: module name -> the files of that name (``data`` for ``data.py``; a package's ``__init__.py`` by its folder)
    stems: dict[str, list[str]]
    #: the files whose own text passes the prefilter
    sinks: set[str]
    #: file -> the words its imports mention
    imports: dict[str, set[str]]

    def relevant(self, path: str) -> bool:
        """Whether a file whose own text names no worker API may still hold a finding: it imports a module that
        does (a helper its sources may reach), or a module that does imports it (directly, or through one more
        module: its sources may be sent there, its import-time work repeated by spawned workers)."""
        key = os.path.abspath(path)
        if any(self.sinks.intersection(self.stems.get(word, ())) for word in self.imports.get(key, ())):
            return True
        importers = set(self.mentions.get(module_name(key), ())) - {key}
        if self.sinks & importers:
            return True
        for importer in importers:
            if self.sinks.intersection(self.mentions.get(module_name(importer), ())):
                return True
        return False


def module_name(path: str) -> str:
    """The name an import gives the module at *path* (its last part): ``data`` for ``data.py``, ``pkg`` for
    ``pkg/__init__.py``."""
    base = os.path.basename(path)
    if base == "__init__.py":
        return os.path.basename(os.path.dirname(path))
    return os.path.splitext(base)[0]


def scan(root: str, passes: Any = None, memory: Any = None) -> Optional[ProjectIndex]:
    """The :class:`ProjectIndex` of *root* (*passes*: the text prefilter, ``passes(text) -> bool``); None when
    there are more than MAX_FILES files to search (counted before any is read).  *memory* (the results cache's
    :class:`~winspawn_lint.io.cache.ScanMemory`) gives what an earlier run read in a file whose size and mtime
    are unchanged, and keeps what this run reads: a warm run reads no file to search the project."""
    found: list[str] = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        for name in sorted(files):
            if name.endswith((".py", ".ipynb")):
                found.append(os.path.abspath(os.path.join(directory, name)))
                if len(found) > MAX_FILES:
                    return None
    index = ProjectIndex({}, {}, set(), {})
    for path in found:
        try:
            info = os.stat(path)
        except OSError:
            continue
        if info.st_size > MAX_SCANNED_BYTES:
            continue  # a huge file is not a module
        read = memory.recall(path, info) if memory is not None else None
        if read is None:
            read = _read_for_index(path, passes)
            if read is None:
                continue
            if memory is not None:
                memory.keep(path, info, read)
        sink, words = read
        index.stems.setdefault(module_name(path), []).append(path)
        if sink:
            index.sinks.add(path)
        if words is None:
            continue
        index.imports[path] = words
        for word in words:
            index.mentions.setdefault(word, []).append(path)
    return index


def _read_for_index(path: str, passes: Any) -> Optional[tuple[bool, Optional[set[str]]]]:
    """What the index needs of one file: whether its text passes the prefilter, and the words its imports
    mention (None: the text holds no ``import``); None when it cannot be read."""
    text = _read_regular(path)
    if text is None:
        return None
    if path.endswith(".ipynb"):
        text = _notebook_code(text)  # (not its outputs: images and tables, often most of the file)
    sink = passes is not None and bool(passes(text))
    return sink, (_mentions(text) if "import" in text else None)


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


def _mentions(text: str) -> set[str]:
    words: set[str] = set()
    for match in _at_line_starts(_IMPORT, text, "import"):
        words.update(_WORD.findall(match.group(1)))
    for match in _at_line_starts(_FROM, text, "from"):
        words.update(_WORD.findall(match.group(1)))
        words.update(_WORD.findall(match.group(2)))
    if "import_module(" in text or "__import__(" in text:
        for match in _DYNAMIC.finditer(text):
            words.update(_WORD.findall(match.group(1)))
    return words


def _at_line_starts(pattern: re.Pattern, text: str, word: str) -> Iterator[re.Match]:
    """``pattern.finditer(text)`` for a pattern that matches only at a line's start, blanks and then *word*
    (``^[ \t]*word``): tried at the lines where *word* follows blanks, not at every character (a regular
    expression tries ``^`` at each one: a large repository's scan spent most of its time there)."""
    end = 0
    at = text.find(word)
    while at != -1:
        start = text.rfind("\n", 0, at) + 1
        if start >= end and not text[start:at].strip(" \t"):
            match = pattern.match(text, start)
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
