"""Parse the self-description of a fixture (see ``tests/fixtures/README.md``).

A fixture says two things about itself in comments:

* ``# error: WSP201, WSP202`` at the end of a line: the linter must report those
  codes on that line (and nothing on lines without such a comment);
* ``# spawn: <outcome>`` (required) and ``# fork: <outcome>`` (optional, default
  ``ok``) within the first 15 lines: what happens when it runs.

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
HEADER_LINES = 15

SPAWN_KINDS = ("ok", "noop", "hang", "crash", "repeats", "not-run")
FORK_KINDS = ("ok", "noop", "hang", "crash", "repeats")

_CODE = re.compile(r"WSP[0-9]{3}\Z")
# A comment that is (or tries to be) an expectation: "# error:" anywhere in the comment token.
_ERROR_LIKE = re.compile(r"#\s*errors?\s*(?::|(?=WSP))", re.IGNORECASE)
_ERROR_EXACT = re.compile(r"# error: (?P<codes>[^#]*?)\s*(?:#.*)?\Z")
# A comment that is (or tries to be) a run-time header.
_HEADER_LIKE = re.compile(
    r"#\s*(?P<key>spawn|fork)\s*(?::|\s(?=(?:ok|noop|hang|crash|repeats|not-run)\b))",
    re.IGNORECASE,
)
_HEADER_EXACT = re.compile(r"# (?P<key>spawn|fork): (?P<value>\S.*?)\s*\Z")


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


def load_fixture(path: str | Path) -> Fixture:
    """Read and validate one fixture file."""
    path = Path(path)
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _fail(path, None, f"cannot read: {exc}") from exc

    expected: set[tuple[int, str]] = set()
    headers: dict[str, tuple[int, Outcome]] = {}
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
            headers[key] = (line, _parse_outcome(path, line, key, exact["value"]))
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

    if "spawn" not in headers:
        raise _fail(path, None, f"no '# spawn: <outcome>' header in the first {HEADER_LINES} lines")
    spawn = headers["spawn"][1]
    fork = headers["fork"][1] if "fork" in headers else OK
    if "fork" in headers and spawn.kind == "not-run":
        raise _fail(path, headers["fork"][0], "a '# fork:' header on a not-run fixture means nothing")
    return Fixture(path=path, expected=frozenset(expected), spawn=spawn, fork=fork)


def all_fixtures(directory: Path = FIXTURES_DIR) -> list[Path]:
    """Every fixture file (helpers included, ``*.fixed.py`` excluded), sorted."""
    return sorted(p for p in directory.glob("*.py") if not p.name.endswith(".fixed.py"))


def fixed_files(directory: Path = FIXTURES_DIR) -> list[Path]:
    """Every ``NAME.fixed.py`` file, sorted."""
    return sorted(directory.glob("*.fixed.py"))
