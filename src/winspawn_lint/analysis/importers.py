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
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Optional, Sequence

from ..finding import Finding
from .. import rules
from ..rules import FixSafety

if TYPE_CHECKING:
    from .project import Project

WRAP_RULES = frozenset({rules.WSP101, rules.WSP103, rules.WSP104})
MAX_FILES = 20_000
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
    root = project_root(path)
    names = _imported_names(project.importers(root), os.path.abspath(path))
    if names is None:
        return Grade(FixSafety.UNSAFE, f"{root} has more than {MAX_FILES} Python files to search for importers")
    if module in names:
        return Grade(FixSafety.UNSAFE, f"`{module}` may be imported by {names[module]}")
    return Grade(FixSafety.SAFE, f"no module under {root} imports `{module}`")


def needs_grade(findings: Sequence[Finding]) -> bool:
    """Whether a finding's fix safety depends on the file (the main-guard wrap's does, when it has one)."""
    return any(_graded(f) for f in findings)


def _graded(finding: Finding) -> bool:
    return finding.rule in WRAP_RULES and finding.rule.fix_safety is FixSafety.UNSAFE \
        and finding.fix_safety is not FixSafety.NONE


def regrade(findings: Sequence[Finding], path: Optional[str], text: str,
            project: "Project") -> tuple[list[Finding], Optional[Grade]]:
    """``findings`` with the wrap's safety for this file set on its findings, and the grade (None when the
    file has no such finding)."""
    if not needs_grade(findings):
        return list(findings), None
    found = grade(path, text, project)
    return [replace(f, fix_safety=found.safety) if _graded(f) else f for f in findings], found


def project_root(path: str) -> str:
    here = os.path.dirname(os.path.abspath(path))
    directory = here
    for _ in range(here.count(os.sep) + 1):  # one step per level up to the filesystem root
        if any(os.path.exists(os.path.join(directory, marker)) for marker in _ROOT_MARKERS):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return here


def _imported_names(names: Optional[dict[str, list[str]]], own: str) -> Optional[dict[str, str]]:
    """Every name that appears in an import of a project file other than ``own`` -> one such file (*names*:
    :func:`scan` of the project root); None when there were too many files to search."""
    if names is None:
        return None
    out = {}
    for name, paths in names.items():
        other = next((p for p in paths if p != own), None)
        if other is not None:
            out[name] = other
    return out


def scan(root: str) -> Optional[dict[str, list[str]]]:
    """name -> up to two files whose imports mention it (two: a file's own imports do not count)."""
    names: dict[str, list[str]] = {}
    count = 0
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS]
        for name in files:
            if not name.endswith(".py"):
                continue
            count += 1
            if count > MAX_FILES:
                return None
            path = os.path.abspath(os.path.join(directory, name))
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
            except OSError:
                continue
            if "import" not in text:
                continue
            for word in _mentions(text):
                paths = names.setdefault(word, [])
                if len(paths) < 2:
                    paths.append(path)
    return names


def _mentions(text: str) -> set[str]:
    words: set[str] = set()
    for match in _IMPORT.finditer(text):
        words.update(_WORD.findall(match.group(1)))
    for match in _FROM.finditer(text):
        words.update(_WORD.findall(match.group(1)))
        words.update(_WORD.findall(match.group(2)))
    for match in _DYNAMIC.finditer(text):
        words.update(_WORD.findall(match.group(1)))
    return words


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
