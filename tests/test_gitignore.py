"""A directory walk skips what git ignores, exactly as ``git check-ignore`` says; named files are always checked.

Each case builds a scratch git repository and compares the files the walk finds with the files ``git check-ignore``
does not name (so git itself is the specification of every pattern below).  Git's user and system configuration
are kept out (``GIT_CONFIG_GLOBAL``, ``GIT_CONFIG_NOSYSTEM``, ``XDG_CONFIG_HOME``), for git and for the walk alike.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from winspawn_lint import cli
from winspawn_lint.io import gitignore
from winspawn_lint.io.discover import discover
from winspawn_lint.settings import Settings

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

HAZARD = "from multiprocessing import Pool\npool = Pool(2)\n"


@pytest.fixture(autouse=True)
def isolated_git(tmp_path_factory, monkeypatch):
    """No user or system git configuration: each test sets what it needs."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)
    return home


def repo(root: Path, files: dict[str, str]) -> Path:
    """A git work tree at *root* with *files* (a name ending in ``/`` makes a directory)."""
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def walked(top: Path, **settings) -> set[str]:
    return {Path(path).relative_to(top).as_posix() for path, _ in discover([str(top)], Settings(**settings))}


def not_ignored_by_git(root: Path) -> set[str]:
    """The Python files under *root* that ``git check-ignore`` does not name (outside ``.git``)."""
    files = sorted(path.relative_to(root).as_posix() for path in root.rglob("*.py")
                   if path.is_file() and ".git" not in path.parts)
    done = subprocess.run(["git", "-C", str(root), "check-ignore", "--no-index", "--stdin"],
                          input="\n".join(files) + "\n", capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr  # 1: nothing is ignored
    return set(files) - set(done.stdout.splitlines())


CASES = {
    "nested .gitignore files": {
        ".gitignore": "generated/\n",
        "a.py": HAZARD, "generated/g.py": HAZARD,
        "pkg/.gitignore": "local_*.py\n",
        "pkg/local_settings.py": HAZARD, "pkg/model.py": HAZARD, "other/local_x.py": HAZARD,
        "pkg/sub/.gitignore": "!local_keep.py\n", "pkg/sub/local_keep.py": HAZARD, "pkg/sub/local_drop.py": HAZARD,
    },
    "negation, and a file under an ignored directory stays ignored": {
        ".gitignore": "*.py\n!keep.py\n!src/\nout/\n!out/keep.py\n",
        "keep.py": HAZARD, "drop.py": HAZARD, "src/keep.py": HAZARD, "src/drop.py": HAZARD,
        "out/keep.py": HAZARD,
    },
    "anchored and unanchored patterns": {
        ".gitignore": "/top.py\ndoc/conf.py\nscratch.py\n",
        "top.py": HAZARD, "sub/top.py": HAZARD, "doc/conf.py": HAZARD, "x/doc/conf.py": HAZARD,
        "scratch.py": HAZARD, "deep/er/scratch.py": HAZARD,
    },
    "directory-only patterns and **": {
        ".gitignore": "cache/\nnotes.py/\nlogs/**/debug_*.py\n**/vendor\nruns/**\n",
        "cache/a.py": HAZARD, "x/cache/b.py": HAZARD, "notes.py": HAZARD,
        "logs/debug_1.py": HAZARD, "logs/a/b/debug_2.py": HAZARD, "logs/a/info.py": HAZARD,
        "a/vendor/lib.py": HAZARD, "vendor/lib.py": HAZARD, "runs/1/x.py": HAZARD, "runs.py": HAZARD,
    },
    "wildcards, classes, escapes and trailing spaces": {
        ".gitignore": "test_?.py\n[abc]_*.py\n[!x]z.py\n\\#hash.py\nspace.py   \nexp[0-9][[:digit:]].py\n"
                      "# comment.py\n",
        "test_1.py": HAZARD, "test_12.py": HAZARD, "a_1.py": HAZARD, "d_1.py": HAZARD, "yz.py": HAZARD,
        "xz.py": HAZARD, "#hash.py": HAZARD, "space.py": HAZARD, "exp12.py": HAZARD, "expa1.py": HAZARD,
        "# comment.py": HAZARD,
    },
}


@pytest.mark.parametrize("files", CASES.values(), ids=CASES.keys())
def test_the_walk_skips_what_git_check_ignore_names(tmp_path, files):
    root = repo(tmp_path / "repo", files)
    expected = not_ignored_by_git(root)
    assert expected != {p.relative_to(root).as_posix() for p in root.rglob("*.py") if p.is_file()}, "ignores nothing"
    assert walked(root) == expected


def test_info_exclude_and_the_global_excludes_file(tmp_path, isolated_git):
    root = repo(tmp_path / "repo", {"a.py": HAZARD, "local.py": HAZARD, "mine.py": HAZARD, "theirs.py": HAZARD})
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("local.py\n")
    default_global = isolated_git / ".config" / "git" / "ignore"  # $XDG_CONFIG_HOME/git/ignore
    default_global.parent.mkdir(parents=True)
    default_global.write_text("mine.py\n")
    assert walked(root) == not_ignored_by_git(root) == {"a.py", "theirs.py"}

    # core.excludesFile replaces the default global file
    named = tmp_path / "my-ignores"
    named.write_text("theirs.py\n")
    (isolated_git / ".gitconfig").write_text(f'[core]\n\texcludesFile = "{named.as_posix()}"  # mine\n')
    assert walked(root) == not_ignored_by_git(root) == {"a.py", "mine.py"}


def test_a_subdirectory_walk_reads_the_gitignore_files_above_it(tmp_path):
    root = repo(tmp_path / "repo", {".gitignore": "gen_*.py\n", "src/pkg/gen_a.py": HAZARD, "src/pkg/b.py": HAZARD})
    assert walked(root / "src") == {"pkg/b.py"}


def test_a_nested_repository_has_its_own_rules(tmp_path):
    root = repo(tmp_path / "repo", {".gitignore": "*_local.py\n", "a_local.py": HAZARD})
    repo(root / "vendored", {"b_local.py": HAZARD, ".gitignore": "c.py\n", "c.py": HAZARD})
    assert walked(root) == {"vendored/b_local.py"}


def test_outside_a_work_tree_nothing_is_ignored(tmp_path):
    top = tmp_path / "plain"
    top.mkdir()
    (top / ".gitignore").write_text("*.py\n")
    (top / "a.py").write_text(HAZARD)
    assert walked(top) == {"a.py"}


def test_respect_gitignore_off_walks_everything(tmp_path):
    root = repo(tmp_path / "repo", {".gitignore": "gen/\n", "gen/a.py": HAZARD, "b.py": HAZARD})
    assert walked(root, respect_gitignore=False) == {"gen/a.py", "b.py"}


def _lint(capsys, *args: str) -> tuple[int, set[str]]:
    status = cli.main(["--no-cache", *args])
    out = capsys.readouterr().out
    return status, {line.split(":")[0] for line in out.splitlines() if ": WSP" in line}


def test_the_command_line_and_the_configuration_switch_it(tmp_path, capsys, monkeypatch):
    root = repo(tmp_path / "repo", {".gitignore": "gen/\nscratch.py\n", "gen/a.py": HAZARD, "b.py": HAZARD,
                                    "scratch.py": HAZARD})
    monkeypatch.chdir(root)
    assert _lint(capsys, ".") == (1, {"b.py"})
    assert _lint(capsys, "--no-respect-gitignore", ".") == (1, {"gen/a.py", "b.py", "scratch.py"})
    (root / "pyproject.toml").write_text("[tool.winspawn-lint]\nrespect-gitignore = false\n")
    assert _lint(capsys, ".") == (1, {"gen/a.py", "b.py", "scratch.py"})
    assert _lint(capsys, "--respect-gitignore", ".") == (1, {"b.py"})


def test_files_and_directories_named_explicitly_are_checked(tmp_path, capsys, monkeypatch):
    root = repo(tmp_path / "repo", {".gitignore": "gen/\nscratch.py\n", "gen/a.py": HAZARD, "scratch.py": HAZARD})
    monkeypatch.chdir(root)
    assert _lint(capsys, "scratch.py") == (1, {"scratch.py"})
    assert _lint(capsys, "gen") == (1, {"gen/a.py"})
    # --force-exclude applies the exclude settings to named files, as ruff's does, not .gitignore
    assert _lint(capsys, "--force-exclude", "scratch.py") == (1, {"scratch.py"})


def test_a_bad_respect_gitignore_value_names_the_key(tmp_path, capsys, monkeypatch):
    root = repo(tmp_path / "repo", {"pyproject.toml": '[tool.winspawn-lint]\nrespect-gitignore = "no"\n'})
    monkeypatch.chdir(root)
    assert cli.main(["."]) == 2
    assert "respect-gitignore: expected true or false, got 'no'" in capsys.readouterr().err


@pytest.mark.parametrize("pattern, name, matches", [
    ("*.py", "a.py", True), ("*.py", "a/b.py", False), ("a/**/b", "a/b", True), ("a/**/b", "a/x/y/b", True),
    ("**/b", "b", True), ("a/**", "a/x/y", True), ("a/**", "a", False), ("a?c", "a/c", False),
    ("[a-c]x", "bx", True), ("[!a-c]x", "dx", True), ("[!a-c]x", "/x", False), ("[z-a]", "z", True),
    ("[]]", "]", True), ("[[:digit:]]", "7", True), ("[[:bogus:]]", "b", False), ("[ab", "a", False),
    ("x\\*", "x*", True), ("x\\*", "xy", False), ("a\\", "a", False), ("a/x**/f", "a/xa/by/f", True),
])
def test_wildmatch_translation(pattern, name, matches):
    # the odd ones, each checked against git 2.39: a reversed range still matches its first character; an
    # unclosed bracket or unknown class matches nothing; a `**` that is a path pattern's first wildcard may
    # cross directories (git matches the literal prefix apart and wildmatches the rest)
    import re

    assert bool(re.fullmatch(gitignore.translate(pattern), name, re.DOTALL)) is matches


def test_trailing_spaces_and_escapes():
    assert [(p.negated, p.dir_only, p.basename) for p in gitignore.parse("a  \n!b/\n\\!c\n#d\n\n/e\n")] == [
        (False, False, True), (True, True, True), (False, False, True), (False, False, False)]
    (escaped,) = gitignore.parse("x\\  \n")
    assert escaped.regex.match("x ") and not escaped.regex.match("x")


ATOMS = ["a", "b", "*", "**", "?", "[ab]", "[!a]", "[a-c]", "[[:digit:]]", ".py", "\\*", "[]a]", "[z-a]", "x**",
         "[", "\\ ", "#", " "]
NAMES = ["a", "b", "ab", "x.py", "a.py", "b1", "1", "]", "#a", "a-b", "z"]


def _random_case(rng: random.Random) -> tuple[dict[str, str], list[str]]:
    def pattern() -> str:
        text = "/".join("".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 2))) for _ in range(rng.randint(1, 3)))
        return ("!" if rng.random() < 0.25 else "") + ("/" if rng.random() < 0.2 else "") + text + \
            ("/" if rng.random() < 0.2 else "")

    files: dict[str, str] = {}
    for _ in range(20):
        path = "/".join(rng.choice(NAMES) for _ in range(rng.randint(1, 3))) + ".py"
        if not any(other.startswith(path + "/") or path.startswith(other + "/") for other in files):
            files[path] = ""  # no file is also a directory of another
    return files, [pattern() for _ in range(rng.randint(1, 5))]


@pytest.mark.parametrize("seed", range(4))
def test_random_patterns_agree_with_git(tmp_path, seed):
    rng = random.Random(seed)
    for trial in range(10):
        files, patterns = _random_case(rng)
        directories = sorted({os.path.dirname(p) for p in files} - {""})
        if directories:
            files[f"{rng.choice(directories)}/.gitignore"] = "\n".join(_random_case(rng)[1][:2]) + "\n"
        root = repo(tmp_path / f"r{trial}", {**files, ".gitignore": "\n".join(patterns) + "\n"})
        assert walked(root) == not_ignored_by_git(root), (patterns, files)
