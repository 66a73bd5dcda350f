"""Parse the self-description of a fixture (see ``tests/fixtures/README.md``).

A fixture says two things about itself in comments:

* ``# error: WSP201, WSP202`` at the end of a line: the linter must report those
  codes on that line (and nothing on lines without such a comment);
* ``# spawn: <outcome>`` (required) and ``# fork: <outcome>`` (optional, default
  ``ok``) within the first 15 lines: what happens when it runs.

A fixture *project* (a folder under ``tests/fixtures/projects/``) says the same across its files: ``# error:``
comments in any of its modules and notebooks, and the headers in its entry script only, with one more,
``# run: python train.py`` (or ``python -m pkg.train``, ``cd tools && python train.py``, ``jupyter execute
nb.ipynb``): how the project is meant to be run, from the project folder.

Comments are found with :mod:`tokenize`, so text inside strings never counts.
Validation is strict: a typo in a fixture must fail the suite, never make a
check vacuous.  Every problem raises :class:`FixtureSpecError` naming the file
and line.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"
#: Stand-ins of libraries that cannot be installed here (torchvision), put on the fixtures' path when they run
SHIMS_DIR = Path(__file__).resolve().parent / "shims"
PROJECTS_DIR = FIXTURES_DIR / "projects"
HEADER_LINES = 15

SPAWN_KINDS = ("ok", "noop", "hang", "crash", "repeats", "not-run")
FORK_KINDS = ("ok", "noop", "hang", "crash", "repeats")

_CODE = re.compile(r"WSP[0-9]{3}\Z")
# A comment that is (or tries to be) an expectation: "# error:" anywhere in the comment token.
_ERROR_LIKE = re.compile(r"#\s*errors?\s*(?::|(?=WSP))", re.IGNORECASE)
_ERROR_EXACT = re.compile(r"# error: (?P<codes>[^#]*?)\s*(?:#.*)?\Z")
# A comment that is (or tries to be) a run-time header.
_HEADER_LIKE = re.compile(
    r"#\s*(?P<key>spawn|fork|run)\s*(?::|\s(?=(?:ok|noop|hang|crash|repeats|not-run)\b))",
    re.IGNORECASE,
)
_HEADER_EXACT = re.compile(r"# (?P<key>spawn|fork|run): (?P<value>\S.*?)\s*\Z")
# How a project is run, from its folder: `[cd DIR && ]python SCRIPT.py`, `[cd DIR && ]python -m PKG.MOD`, or
# `jupyter execute NOTEBOOK.ipynb` (the kernel runs in the notebook's folder, as jupyter's own does).
_RUN = re.compile(
    r"(?:cd (?P<cwd>[\w./-]+) && )?"
    r"(?:python (?:(?P<script>[\w./-]+\.py)|-m (?P<module>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*))"
    r"|jupyter execute (?P<notebook>[\w./-]+\.ipynb))\Z"
)


class FixtureSpecError(ValueError):
    """A fixture's expectation comments or header are malformed."""


@dataclass(frozen=True)
class Outcome:
    """A declared run-time outcome under one start method."""

    kind: str
    names: tuple[str, ...] = ()  # crash: alternatives, any one must appear in stderr
    marker: str | None = None  # repeats: lines starting with this ...
    count: int | None = None  # ... appear exactly this many times
    reason: str | None = None  # not-run: why

    def __str__(self) -> str:
        if self.kind == "crash":
            return "crash " + "|".join(self.names)
        if self.kind == "repeats":
            return f"repeats {self.marker} {self.count}"
        if self.kind == "not-run":
            return f"not-run {self.reason}"
        return self.kind


OK = Outcome("ok")


@dataclass(frozen=True)
class Fixture:
    path: Path
    expected: frozenset[tuple[int, str]]
    spawn: Outcome
    fork: Outcome = OK

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def is_helper(self) -> bool:
        return self.path.name.startswith("_")

    @property
    def runnable(self) -> bool:
        return self.spawn.kind != "not-run"

    @property
    def fixed_path(self) -> Path | None:
        """``NAME.fixed.py`` beside the fixture, if it exists."""
        fixed = self.path.with_name(self.path.stem + ".fixed.py")
        return fixed if fixed.is_file() else None


def _fail(path: Path, line: int | None, message: str) -> FixtureSpecError:
    where = f"{path}:{line}" if line else str(path)
    return FixtureSpecError(f"{where}: {message}")


def _parse_outcome(path: Path, line: int, key: str, value: str) -> Outcome:
    kinds = SPAWN_KINDS if key == "spawn" else FORK_KINDS
    word, _, rest = value.partition(" ")
    rest = rest.strip()
    if word not in kinds:
        raise _fail(path, line, f"unknown {key} outcome {word!r}; expected one of: {', '.join(kinds)}")
    if word in ("ok", "noop", "hang"):
        if rest:
            raise _fail(path, line, f"'{key}: {word}' takes no argument, got {rest!r}")
        return Outcome(word)
    if word == "crash":
        names = tuple(part.strip() for part in rest.split("|"))
        if not rest or not all(names):
            raise _fail(path, line, f"'{key}: crash' needs the error text(s) expected in stderr, "
                                    f"separated by '|' (got {rest!r})")
        return Outcome("crash", names=names)
    if word == "repeats":
        parts = rest.split()
        if len(parts) != 2 or not parts[1].isdigit() or int(parts[1]) < 1:
            raise _fail(path, line, f"'{key}: repeats' needs MARKER and a positive count N, got {rest!r}")
        return Outcome("repeats", marker=parts[0], count=int(parts[1]))
    # not-run
    if not rest:
        raise _fail(path, line, f"'{key}: not-run' needs a reason")
    return Outcome("not-run", reason=rest)


def _comments(path: Path, source: str) -> list[tuple[int, str]]:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError) as exc:  # IndentationError is a SyntaxError
        raise _fail(path, None, f"cannot tokenize: {exc}") from exc
    return [(tok.start[0], tok.string) for tok in tokens if tok.type == tokenize.COMMENT]


def _self_description(path: Path, source: str) -> tuple[frozenset[tuple[int, str]], dict[str, tuple[int, str]]]:
    """The ``(line, code)`` pairs a file's ``# error:`` comments expect, and its header comments (key ->
    (line, raw value)), validated."""
    expected: set[tuple[int, str]] = set()
    headers: dict[str, tuple[int, str]] = {}
    for line, comment in _comments(path, source):
        header = _HEADER_LIKE.match(comment)
        if header:
            exact = _HEADER_EXACT.match(comment)
            if not exact or exact["key"] != header["key"]:
                raise _fail(path, line, f"malformed header comment {comment!r}; "
                                        f"write it as '# spawn: <outcome>' or '# fork: <outcome>'")
            key = exact["key"]
            if line > HEADER_LINES:
                raise _fail(path, line, f"'# {key}:' header must be within the first {HEADER_LINES} lines")
            if key in headers:
                raise _fail(path, line, f"second '# {key}:' header (first on line {headers[key][0]})")
            headers[key] = (line, exact["value"])
            continue

        like = _ERROR_LIKE.search(comment)
        if not like:
            continue
        exact = _ERROR_EXACT.match(comment[like.start():])
        if not exact:
            raise _fail(path, line, f"malformed expectation comment {comment!r}; "
                                    f"write it as '# error: WSP201' or '# error: WSP201, WSP302'")
        codes = [code.strip() for code in exact["codes"].split(",")]
        for code in codes:
            if not _CODE.match(code):
                raise _fail(path, line, f"bad rule code {code!r} in {comment!r} (expected WSP + 3 digits)")
        if len(set(codes)) != len(codes):
            raise _fail(path, line, f"duplicate code in {comment!r}")
        expected.update((line, code) for code in codes)
    return frozenset(expected), headers


def _outcomes(path: Path, headers: dict[str, tuple[int, str]]) -> tuple[Outcome, Outcome]:
    """The declared spawn and fork outcomes (fork defaults to ``ok``)."""
    if "spawn" not in headers:
        raise _fail(path, None, f"no '# spawn: <outcome>' header in the first {HEADER_LINES} lines")
    spawn = _parse_outcome(path, headers["spawn"][0], "spawn", headers["spawn"][1])
    if "fork" not in headers:
        return spawn, OK
    if spawn.kind == "not-run":
        raise _fail(path, headers["fork"][0], "a '# fork:' header on a not-run fixture means nothing")
    return spawn, _parse_outcome(path, headers["fork"][0], "fork", headers["fork"][1])


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _fail(path, None, f"cannot read: {exc}") from exc


def load_fixture(path: str | Path) -> Fixture:
    """Read and validate one fixture file."""
    path = Path(path)
    expected, headers = _self_description(path, _read(path))
    if "run" in headers:
        raise _fail(path, headers["run"][0], f"'# run:' belongs to the entry script of a project ({PROJECTS_DIR})")
    spawn, fork = _outcomes(path, headers)
    return Fixture(path=path, expected=expected, spawn=spawn, fork=fork)


def all_fixtures(directory: Path = FIXTURES_DIR) -> list[Path]:
    """Every fixture file (helpers included, ``*.fixed.py`` excluded), sorted."""
    return sorted(p for p in directory.glob("*.py") if not p.name.endswith(".fixed.py"))


def fixed_files(directory: Path = FIXTURES_DIR) -> list[Path]:
    """Every ``NAME.fixed.py`` file, sorted."""
    return sorted(directory.glob("*.fixed.py"))


# --- fixture projects ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProjectFixture:
    """A folder of modules (and notebooks) run as one program: its entry and what every file expects."""

    path: Path  # the project folder
    entry: str  # the file holding the headers, relative to the folder (posix)
    run: str  # the `# run:` command, as written
    cwd: str  # where the command runs, relative to the folder
    argv: tuple[str, ...]  # what follows `python` (a script path or `-m MODULE`), or the notebook
    expected: frozenset[tuple[str, int, str]]  # (file, line, code); in a notebook, file is "NB.ipynb:cell N"
    spawn: Outcome
    fork: Outcome = OK

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def is_notebook(self) -> bool:
        return self.entry.endswith(".ipynb")

    def files(self, suffix: str = "") -> list[str]:
        """The project's files ending in *suffix* (``.py``: what flake8 is given), relative and sorted."""
        return [name for name in project_files(self.path) if name.endswith(suffix)]


def project_files(folder: Path) -> list[str]:
    """Every ``.py`` and ``.ipynb`` file of a project, relative to it (posix), sorted; caches left out."""
    found = []
    for path in folder.rglob("*"):
        parts = path.relative_to(folder).parts
        if path.suffix in (".py", ".ipynb") and path.is_file() and not any(
                part in ("__pycache__", ".ipynb_checkpoints") for part in parts):
            found.append("/".join(parts))
    return sorted(found)


def _notebook_description(path: Path) -> tuple[frozenset[tuple[str, int, str]], dict[str, tuple[int, str]]]:
    from winspawn_lint.io import notebook

    parsed = notebook.loads(_read(path))
    expected, headers = _self_description(path, parsed.module)
    cells = set()
    for line, code in expected:
        cell, cell_line = parsed.position(line)
        cells.add((f"cell {cell}", cell_line, code))
    return frozenset(cells), headers


def _parse_run(folder: Path, entry: str, line: int, command: str) -> tuple[str, tuple[str, ...]]:
    """(working directory, argv) of a ``# run:`` command; it must run the file that declares it."""
    match = _RUN.match(command)
    if not match:
        raise _fail(folder / entry, line, f"'# run: {command}': expected 'python SCRIPT.py', 'python -m MODULE' or "
                                          f"'jupyter execute NOTEBOOK.ipynb', optionally after 'cd DIR && '")
    cwd = match["cwd"] or "."
    if match["notebook"]:
        argv: tuple[str, ...] = (match["notebook"],)
        runs = Path(cwd, match["notebook"])
        if runs.parent != Path(cwd) or cwd != Path(entry).parent.as_posix():
            raise _fail(folder / entry, line, "a notebook runs in its own folder: 'cd DIR && jupyter execute NB.ipynb'")
    elif match["module"]:
        argv = ("-m", match["module"])
        runs = Path(cwd, *match["module"].split("."))
        runs = runs / "__main__.py" if (folder / runs).is_dir() else runs.with_suffix(".py")  # (a package runs it)
    else:
        argv = (match["script"],)
        runs = Path(cwd, match["script"])
    resolved = (folder / runs).resolve()
    if not resolved.is_relative_to(folder.resolve()) or resolved != (folder / entry).resolve():
        raise _fail(folder / entry, line, f"'# run: {command}' runs {runs.as_posix()}, not this file")
    return cwd, argv


def load_project(folder: str | Path) -> ProjectFixture:
    """Read and validate one fixture project: the expectations of all its files, the headers of its entry."""
    folder = Path(folder)
    expected: set[tuple[str, int, str]] = set()
    entries: dict[str, dict[str, tuple[int, str]]] = {}
    for name in project_files(folder):
        path = folder / name
        if path.suffix == ".ipynb":
            found, headers = _notebook_description(path)
            expected.update((f"{name}:{cell}", line, code) for cell, line, code in found)
        else:
            lines, headers = _self_description(path, _read(path))
            expected.update((name, line, code) for line, code in lines)
        if headers:
            entries[name] = headers
    if len(entries) != 1:
        raise _fail(folder, None, f"a project declares '# run:', '# spawn:' (and '# fork:') in exactly one file, "
                                  f"its entry; found headers in {sorted(entries) or 'none'}")
    [(entry, headers)] = entries.items()
    if "run" not in headers:
        raise _fail(folder / entry, None, f"no '# run: <command>' header in the first {HEADER_LINES} lines")
    cwd, argv = _parse_run(folder, entry, *headers["run"])
    spawn, fork = _outcomes(folder / entry, headers)
    if spawn.kind == "not-run":
        raise _fail(folder / entry, headers["spawn"][0], "every project runs: 'not-run' is for helper modules")
    return ProjectFixture(path=folder, entry=entry, run=headers["run"][1], cwd=cwd, argv=argv,
                          expected=frozenset(expected), spawn=spawn, fork=fork)


def all_projects(directory: Path = PROJECTS_DIR) -> list[Path]:
    """Every fixture project (a folder under ``projects/``), sorted."""
    return sorted(p for p in directory.iterdir() if p.is_dir() and p.name != "__pycache__")
