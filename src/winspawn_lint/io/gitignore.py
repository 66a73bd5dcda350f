"""What git ignores: ``.gitignore`` files, ``.git/info/exclude`` and the global excludes file, by git's rules.

A directory walk skips what ``git check-ignore`` would name, as ruff (and ripgrep) do, with git's own
semantics (gitignore(5) and git's ``wildmatch``), implemented here rather than approximated with ``fnmatch``:

- every directory's ``.gitignore`` applies to the paths below it, a deeper file's patterns overriding those
  above; below them ``$GIT_COMMON_DIR/info/exclude``, then ``core.excludesFile`` (default
  ``$XDG_CONFIG_HOME/git/ignore``); within these, the last pattern that matches decides;
- ``!pattern`` re-includes, ``#`` starts a comment, ``\\`` escapes, trailing spaces are dropped unless escaped;
- a pattern with a ``/`` before its end is anchored at its file's directory, one without matches a name at any
  depth, a trailing ``/`` matches directories only; ``*``, ``?`` and ``[...]`` never match ``/``; ``**/``,
  ``/**/`` and ``/**`` match any number of directories;
- a path inside an ignored directory cannot be re-included: the walk never enters the directory.

Only inside a git work tree (a ``.git`` directory or file above the walked path): outside one, git ignores
nothing either.  A directory holding its own ``.git`` (a submodule, a nested clone) starts its own stack.
Configuration is read, never executed; ``include`` directives of git's configuration files are not followed.
"""

from __future__ import annotations

import os
import re
from typing import Callable, Iterator, Optional

from ..records import Value

#: the POSIX character classes wildmatch knows, as ASCII sets (git's ctype is ASCII-only)
_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "blank": " \t", "cntrl": "\x00-\x1f\x7f", "digit": "0-9",
    "graph": "!-~", "lower": "a-z", "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": " \t\n\r\f\v",
    "upper": "A-Z", "xdigit": "0-9A-Fa-f",
}
_NEVER = "(?!)"


class Pattern(Value):
    """One line of an ignore file."""

    __slots__ = ("regex", "negated", "dir_only", "basename")

    def __init__(self, regex: re.Pattern[str], negated: bool, dir_only: bool, basename: bool) -> None:
        self.regex = regex
        self.negated = negated
        self.dir_only = dir_only
        #: matched against the name alone (no ``/`` in the pattern) or against the path below the file's
        #: directory
        self.basename = basename


class Patterns:
    """The patterns of one ignore file, in order, and one regex per kind that tells quickly that none matches
    (most paths: then the patterns are not looked at one by one)."""

    def __init__(self, patterns: list[Pattern], flags: int = 0) -> None:
        self.patterns = patterns
        self._any_name = _any([p for p in patterns if p.basename], flags)
        self._any_path = _any([p for p in patterns if not p.basename], flags)

    def __iter__(self) -> Iterator[Pattern]:
        return iter(self.patterns)

    def __len__(self) -> int:
        return len(self.patterns)

    def decide(self, relative: str, name: str, is_dir: bool) -> Optional[bool]:
        """True: ignored, False: re-included (``!``), None: no pattern matches; the last pattern that matches
        decides.  *relative*: the path below the file's directory, *name*: its last part."""
        if not ((self._any_name is not None and self._any_name.match(name))
                or (self._any_path is not None and self._any_path.match(relative))):
            return None
        for pattern in reversed(self.patterns):
            if pattern.dir_only and not is_dir:
                continue
            if pattern.regex.match(name if pattern.basename else relative):
                return not pattern.negated
        return None


def _any(patterns: list[Pattern], flags: int) -> "Optional[re.Pattern[str]]":
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{p.regex.pattern})" for p in patterns), flags)


_NONE = Patterns([])


def parse(text: str, ignore_case: bool = False) -> Patterns:
    """The patterns of an ignore file's text, in order."""
    flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
    patterns = []
    for line in text.splitlines():
        line = _trim_trailing_spaces(line)
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        dir_only = line.endswith("/")
        if dir_only:
            line = line.rstrip("/")
        if not line:
            continue
        basename = "/" not in line
        if line.startswith("/"):
            line = line[1:]
        regex = translate(line, pathname=not basename)
        patterns.append(Pattern(re.compile(regex + r"\Z", flags), negated, dir_only, basename))
    return Patterns(patterns, flags)


def _trim_trailing_spaces(line: str) -> str:
    """git's trim_trailing_spaces: unescaped trailing spaces go (``\\ `` keeps one)."""
    end = len(line)
    while end and line[end - 1] == " ":
        backslashes = len(line[:end - 1]) - len(line[:end - 1].rstrip("\\"))
        if backslashes % 2:
            break
        end -= 1
    return line[:end]


def translate(pattern: str, pathname: bool = True) -> str:
    """A regular expression for a wildmatch pattern; *pathname*: matched against a path (``WM_PATHNAME``: a
    wildcard never matches ``/``), not a name."""
    out = []
    i, n = 0, len(pattern)
    literal_prefix = True  # no wildcard or escape yet
    while i < n:  # bounded: every branch consumes at least one character
        ch = pattern[i]
        first_wildcard = literal_prefix
        if ch in "\\?*[":
            literal_prefix = False
        if ch == "\\":
            if i + 1 == n:
                return _NEVER  # a trailing backslash: wildmatch aborts, the pattern matches nothing
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "*":
            start = i
            while i < n and pattern[i] == "*":
                i += 1
            # git compares a path pattern's literal prefix on its own and wildmatches the rest, so a `**` that is
            # the first wildcard counts as one at the start (`a/x**/f` matches `a/xa/by/f`, as git check-ignore says)
            at_start = start == 0 or pattern[start - 1] == "/" or (pathname and first_wildcard)
            if i - start >= 2 and at_start and (i == n or pattern[i] == "/"):
                if i == n:
                    out.append(".*")  # `dir/**`: everything inside; `**`: everything
                else:
                    out.append("(?:.*/)?")  # `**/` and `/**/`: zero or more directories
                    i += 1
            else:
                out.append("[^/]*")
        elif ch == "[":
            klass, i = _bracket(pattern, i)
            if klass is None:
                return _NEVER
            out.append(klass)
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


def _bracket(pattern: str, i: int) -> tuple[Optional[str], int]:
    """The regex of the bracket expression at ``pattern[i] == "["`` and the index after it; None when it is
    not closed or names an unknown class (wildmatch then matches nothing)."""
    n = len(pattern)
    i += 1
    negated = i < n and pattern[i] in "!^"
    if negated:
        i += 1
    items: list[str] = []
    previous: Optional[str] = None  # the last literal, which a `-` may make the start of a range
    first = True
    while True:  # bounded: i grows every turn, and the end of the pattern returns
        if i >= n:
            return None, i
        ch = pattern[i]
        if ch == "]" and not first:
            i += 1
            break
        first = False
        if ch == "\\":
            if i + 1 >= n:
                return None, i
            previous = pattern[i + 1]
            items.append(re.escape(previous))
            i += 2
        elif ch == "-" and previous is not None and i + 1 < n and pattern[i + 1] != "]":
            end = pattern[i + 1]
            i += 2
            if end == "\\":
                if i >= n:
                    return None, i
                end = pattern[i]
                i += 1
            if previous <= end:  # the start was matched as a literal already; a reversed range adds nothing
                items.append(f"{re.escape(previous)}-{re.escape(end)}")
            previous = None
        elif ch == "[" and i + 1 < n and pattern[i + 1] == ":":
            close = pattern.find("]", i + 2)
            if close == -1:
                return None, i
            if pattern[close - 1] != ":" or close - 1 < i + 2:
                items.append(re.escape("["))  # no `:]`: a plain `[`
                previous = "["
                i += 1
                continue
            name = pattern[i + 2: close - 1]
            if name not in _CLASSES:
                return None, i
            items.append(_CLASSES[name])
            previous = None
            i = close + 1
        else:
            previous = ch
            items.append(re.escape(ch))
            i += 1
    body = "".join(items)
    if negated:
        return f"[^/{body}]", i
    return (f"(?!/)[{body}]" if body else _NEVER), i


class Repository:
    """The ignore rules of one git work tree, each ``.gitignore`` read once."""

    def __init__(self, root: str, git_dir: str) -> None:
        self.root = root
        common = _common_dir(git_dir)
        config = _config_values(common)
        self.ignore_case = config.get("ignorecase", "false").lower() in ("true", "yes", "on", "1")
        excludes = config.get("excludesfile") or _default_excludes_file()
        # the lowest precedence first: the global file, then info/exclude (a later pattern wins)
        text = _read(os.path.expanduser(excludes)) if excludes else ""
        self._base = parse(text + "\n" + _read(os.path.join(common, "info", "exclude")), self.ignore_case)
        self._files: dict[str, Patterns] = {}
        root = self._patterns("")
        self._stacks: dict[str, list[tuple[Patterns, str]]] = {"": [(root, "")] if root else []}

    def ignored(self, relative: str, is_dir: bool) -> bool:
        """Whether git ignores the path *relative* (to the work tree's root, ``/``-separated) by its own name.
        Its parent directories are the walk's business: a path below an ignored directory is never asked about."""
        directory, _, name = relative.rpartition("/")
        return self.matcher(directory)(name, is_dir)

    def matcher(self, directory: str, has_gitignore: bool = True) -> Callable[[str, bool], bool]:
        """Whether git ignores an entry (its name, and whether it is a directory) of *directory* (relative to the
        root, ``/``-separated, "" for the root): the ignore files that apply there are looked up once.
        *has_gitignore*: False when the caller knows *directory* holds no ``.gitignore`` (a walk lists it)."""
        if not has_gitignore:
            self._files.setdefault(directory, _NONE)
        levels = self._levels(directory)
        base, prefix = self._base, directory + "/" if directory else ""

        def ignored(name: str, is_dir: bool) -> bool:
            for patterns, below in levels:
                decided = patterns.decide(below + name, name, is_dir)
                if decided is not None:
                    return decided
            return bool(base.decide(prefix + name, name, is_dir))

        return ignored

    def ignored_path(self, path: str) -> bool:
        """Whether git ignores *path* (absolute, inside this work tree) or a directory above it, as
        ``git check-ignore`` answers."""
        parts = os.path.relpath(path, self.root).replace(os.sep, "/").split("/")
        return any(self.ignored("/".join(parts[:depth]), depth < len(parts) or os.path.isdir(path))
                   for depth in range(1, len(parts) + 1))

    def _levels(self, directory: str) -> list[tuple[Patterns, str]]:
        """(patterns, the path from their directory down to *directory*, ending in ``/``) of every ``.gitignore``
        that applies in *directory*, the deepest first; built from the nearest ancestor's, once per directory."""
        missing = []
        here = directory
        while here not in self._stacks:  # bounded: each turn drops a part of the path, and "" is always known
            missing.append(here)
            here = here.rpartition("/")[0]
        levels = self._stacks[here]
        for here in reversed(missing):
            name = here.rpartition("/")[2]
            own = self._patterns(here)
            levels = ([(own, "")] if own else []) + [(patterns, below + name + "/") for patterns, below in levels]
            self._stacks[here] = levels
        return levels

    def _patterns(self, directory: str) -> Patterns:
        """The patterns of the ``.gitignore`` in *directory* (relative to the root; "" for the root)."""
        found = self._files.get(directory)
        if found is None:
            path = os.path.join(self.root, *directory.split("/"), ".gitignore") if directory else \
                os.path.join(self.root, ".gitignore")
            text = _read(path)
            found = self._files[directory] = parse(text, self.ignore_case) if text else _NONE
        return found


def find_repository(directory: str) -> Optional[Repository]:
    """The work tree *directory* is in (its nearest ancestor holding ``.git``), or None."""
    here = os.path.abspath(directory)
    for _ in range(here.count(os.sep) + 1):  # one step per level up to the filesystem root
        git_dir = git_dir_of(here)
        if git_dir is not None:
            return Repository(here, git_dir)
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return None


def git_dir_of(directory: str) -> Optional[str]:
    """The git directory of a work tree rooted at *directory*: ``.git`` itself, or where a ``.git`` file
    (a linked worktree, a submodule) points; None when *directory* is not a work tree's root."""
    dot_git = os.path.join(directory, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    if os.path.isfile(dot_git):
        text = _read(dot_git)
        if text.startswith("gitdir:"):
            return os.path.join(directory, text[len("gitdir:"):].strip())
    return None


def _common_dir(git_dir: str) -> str:
    """A linked worktree keeps ``info/exclude`` and ``config`` in the main repository's git directory."""
    common = _read(os.path.join(git_dir, "commondir")).strip()
    return os.path.normpath(os.path.join(git_dir, common)) if common else git_dir


def _default_excludes_file() -> Optional[str]:
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg:
        return os.path.join(xdg, "git", "ignore")
    home = os.environ.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".config", "git", "ignore") if home and home != "~" else None


def _config_files(common_dir: str) -> list[str]:
    """git's configuration files in the order git reads them (a later value wins): system, global, local."""
    files = []
    if not os.environ.get("GIT_CONFIG_NOSYSTEM"):
        files.append(os.environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    if "GIT_CONFIG_GLOBAL" in os.environ:
        files.append(os.environ["GIT_CONFIG_GLOBAL"])
    else:
        xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
        files += [os.path.join(xdg, "git", "config"), os.path.join(os.path.expanduser("~"), ".gitconfig")]
    files.append(os.path.join(common_dir, "config"))
    return files


_SECTION = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\]\s*(.*)')
_ENTRY = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?")


def _config_values(common_dir: str) -> dict[str, str]:
    """``core.excludesFile`` and ``core.ignoreCase`` (lower-cased keys) from git's configuration files."""
    values: dict[str, str] = {}
    for path in _config_files(common_dir):
        section = ""
        for line in _read(path).splitlines():
            header = _SECTION.match(line)
            if header:
                section = header.group(1).lower()
                line = header.group(2)
            entry = _ENTRY.match(line) if section == "core" else None
            if entry and entry.group(1).lower() in ("excludesfile", "ignorecase"):
                values[entry.group(1).lower()] = _config_value(entry.group(2) or "true")
    return values


def _config_value(raw: str) -> str:
    """A value of git's configuration syntax: quotes removed, escapes read, a comment dropped."""
    out = []
    quoted = False
    i = 0
    while i < len(raw):  # bounded: i grows every turn
        ch = raw[i]
        if ch == '"':
            quoted = not quoted
        elif ch == "\\" and i + 1 < len(raw):
            i += 1
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(raw[i], raw[i]))
        elif ch in "#;" and not quoted:
            break
        else:
            out.append(ch)
        i += 1
    return "".join(out).strip()


def _read(path: str) -> str:
    """A small text file's content, or "" when it is absent, unreadable or not a regular file (a FIFO named
    ``.gitignore`` must not block the walk)."""
    try:
        if not os.path.isfile(path):
            return ""
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(1 << 20)
    except OSError:
        return ""
