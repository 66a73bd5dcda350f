"""The pre-commit hooks, end to end with the real ``pre-commit``.

A copy of this checkout is committed to a throwaway git repository (pre-commit
installs hooks from a repository at a revision, and the working tree may hold
uncommitted changes); a second throwaway repository holds a hazardous file, a
clean file and a ``.pre-commit-config.yaml`` pointing at the first by path.

No network, and nothing borrowed from the base interpreter: pre-commit's
virtualenv is a plain one, and its pip may look at no index but the wheelhouse
(``conftest.wheelhouse``: this interpreter's installed dependencies packed back
into wheels), from which it installs the build backend (build isolation) and
the package's declared dependencies.  The hook environment is built once per
test run, shared by xdist workers (about 20-40 s); every hook run after that
takes a second or two.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from wheelhouse import pip_environment

pytestmark = pytest.mark.integration
if shutil.which("git") is None:  # pragma: no cover
    pytest.skip("git is not installed", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
HOOK_IDS = ("winspawn-lint", "winspawn-lint-fix")

HAZARD = '''\
import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    loader = DataLoader(TensorDataset(torch.arange(4)), num_workers=2, collate_fn=lambda batch: batch)
    for batch in loader:
        print(batch)


if __name__ == "__main__":
    main()
'''

CLEAN = '''\
from multiprocessing import Pool


def square(x):
    return x * x


if __name__ == "__main__":
    with Pool(2) as pool:
        print(pool.map(square, range(4)))
'''


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=winspawn-lint tests", "-c", "user.email=tests@example.invalid",
         "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=cwd, capture_output=True, text=True, check=True,
    )
    return done.stdout.strip()


def _copy_checkout(dest: Path) -> None:
    """What building the package needs: the metadata, the hooks manifest, README/licence, src/."""
    dest.mkdir(parents=True)
    for name in ("pyproject.toml", ".pre-commit-hooks.yaml", "README.md", "LICENSE", "setup.cfg", "MANIFEST.in"):
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(ROOT / "src", dest / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build"))


@pytest.fixture(scope="session")
def env(shared_tmp, wheelhouse) -> dict[str, str]:
    # pre-commit locks its store while it installs, so workers can share it.
    home = shared_tmp / "pre-commit-home"
    home.mkdir(exist_ok=True)
    environ = pip_environment()
    for key in list(environ):
        if key.startswith(("PRE_COMMIT", "GIT_", "VIRTUALENV_")):
            del environ[key]
    environ.update(
        PRE_COMMIT_HOME=str(home),
        PRE_COMMIT_COLOR="never",
        PIP_FIND_LINKS=str(wheelhouse),
        NO_COLOR="1",
    )
    return environ


@pytest.fixture(scope="session")
def hook_repo(shared_tmp) -> tuple[Path, str]:
    from filelock import FileLock

    shared = shared_tmp
    repo = shared / "hook-repo" / "winspawn-lint"
    with FileLock(str(shared / "hook-repo.lock")):
        if not (repo / ".git").is_dir():
            _copy_checkout(repo)
            _git(repo, "init", "-q")
            _git(repo, "add", "-A")
            _git(repo, "commit", "-q", "-m", "snapshot of the working tree")
    return repo, _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def project(tmp_path: Path, hook_repo: tuple[Path, str]) -> Path:
    repo, rev = hook_repo
    hooks = "".join(f"      - id: {hook}\n" for hook in HOOK_IDS)
    (tmp_path / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {repo.as_posix()}\n    rev: {rev}\n    hooks:\n{hooks}", encoding="utf-8"
    )
    (tmp_path / "train.py").write_text(HAZARD, encoding="utf-8")
    (tmp_path / "clean.py").write_text(CLEAN, encoding="utf-8")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    return tmp_path


def pre_commit(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)


def _describe(run: subprocess.CompletedProcess) -> str:
    return f"exit {run.returncode}\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}"


def test_manifest_is_valid():
    manifest = str(ROOT / ".pre-commit-hooks.yaml")
    run = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest", manifest],
                         capture_output=True, text=True)
    assert run.returncode == 0, _describe(run)


def test_manifest_declares_both_hooks():
    import yaml  # a dependency of pre-commit

    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == set(HOOK_IDS)
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["types_or"] == ["python", "pyi", "jupyter"]
        assert hook["require_serial"] is True
    assert hooks["winspawn-lint"]["entry"] == "winspawn-lint --force-exclude"
    assert hooks["winspawn-lint-fix"]["entry"] == "winspawn-lint --fix --force-exclude"


def test_check_hook_fails_on_the_hazard_and_passes_on_the_clean_file(project: Path, env):
    clean = pre_commit(project, env, "run", "winspawn-lint", "--files", "clean.py")
    assert clean.returncode == 0, _describe(clean)
    assert "Passed" in clean.stdout

    hazard = pre_commit(project, env, "run", "winspawn-lint", "--files", "train.py")
    assert hazard.returncode == 1, _describe(hazard)
    assert "Failed" in hazard.stdout
    assert "train.py:6:" in hazard.stdout and "WSP201" in hazard.stdout, _describe(hazard)

    # Every staged file, as a commit runs it: the configuration's excludes apply to the named files.
    (project / "generated").mkdir()
    (project / "generated" / "job.py").write_text(HAZARD, encoding="utf-8")
    (project / "pyproject.toml").write_text('[tool.winspawn-lint]\nextend-exclude = ["generated/"]\n')
    _git(project, "add", "-A")
    everything = pre_commit(project, env, "run", "winspawn-lint", "--all-files")
    assert everything.returncode == 1, _describe(everything)
    assert "train.py:6:" in everything.stdout
    assert "generated" not in everything.stdout and "clean.py" not in everything.stdout


def test_fix_hook_rewrites_the_file_and_a_second_run_passes(project: Path, env):
    before = (project / "train.py").read_text(encoding="utf-8")
    first = pre_commit(project, env, "run", "winspawn-lint-fix", "--files", "train.py", "clean.py")
    # pre-commit fails a hook that modified files: that stops the commit so the fix can be reviewed.
    assert first.returncode == 1, _describe(first)
    after = (project / "train.py").read_text(encoding="utf-8")
    assert after != before, f"the fix hook did not rewrite train.py\n{_describe(first)}"
    assert "files were modified by this hook" in first.stdout
    assert "lambda" not in after
    assert (project / "clean.py").read_text(encoding="utf-8") == CLEAN
    compile(after, "train.py", "exec")

    _git(project, "add", "-A")
    second = pre_commit(project, env, "run", "winspawn-lint-fix", "--files", "train.py", "clean.py")
    assert second.returncode == 0, _describe(second)
    check = pre_commit(project, env, "run", "winspawn-lint", "--files", "train.py", "clean.py")
    assert check.returncode == 0, _describe(check)


POOL_SCRIPT = '''\
from multiprocessing import Pool


def square(x):
    return x * x


pool = Pool(2)
print(pool.map(square, range(4)))
pool.close()
pool.join()
'''


def test_fix_hook_wraps_an_unguarded_pool_script_nothing_imports_and_the_second_commit_passes(project: Path, env):
    # Nothing in the project imports pool_script.py: moving its code under the guard is a safe fix, so the
    # hook (no extra args) applies it.
    (project / "pool_script.py").write_text(POOL_SCRIPT, encoding="utf-8")
    _git(project, "add", "pool_script.py")
    first = pre_commit(project, env, "run", "winspawn-lint-fix", "--files", "pool_script.py")
    assert first.returncode == 1, _describe(first)
    after = (project / "pool_script.py").read_text(encoding="utf-8")
    assert 'if __name__ == "__main__":' in after and "    pool = Pool(2)\n" in after, _describe(first)
    compile(after, "pool_script.py", "exec")

    _git(project, "add", "-A")
    _git(project, "commit", "-q", "--no-verify", "-m", "fixed by the hook")
    second = pre_commit(project, env, "run", "winspawn-lint-fix", "--files", "pool_script.py")
    assert second.returncode == 0, _describe(second)


# --- the README's snippet, verbatim, against a clean clone tagged as the version ---------------------------

README_REPO = "https://github.com/winspawn-lint/winspawn-lint"


def readme_snippet() -> str:
    """The README's pre-commit configuration, as a user copies it."""
    import re

    blocks = re.findall(r"^```yaml\n(.*?)^```$", (ROOT / "README.md").read_text(encoding="utf-8"), re.S | re.M)
    (snippet,) = [block for block in blocks if f"repo: {README_REPO}" in block]
    return snippet


def test_the_snippets_name_the_version_of_the_package():
    from winspawn_lint.__version__ import __version__

    tag = f"rev: v{__version__}"
    assert tag in readme_snippet()
    assert tag in (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    assert tag in (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def tagged_clone(shared_tmp) -> Path:
    """A clean clone of this checkout's committed state with the tag the README names, created locally (the
    published tag cannot be pushed from a test)."""
    from filelock import FileLock
    from winspawn_lint.__version__ import __version__

    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--git-dir"], capture_output=True).returncode != 0:
        pytest.skip("not a git checkout: nothing to clone")
    clone = shared_tmp / "clean-clone" / "winspawn-lint"
    with FileLock(str(shared_tmp / "clean-clone.lock")):
        if not (clone / ".git").is_dir():
            clone.parent.mkdir(exist_ok=True)
            subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True,
                           capture_output=True)
            _git(clone, "tag", "-f", f"v{__version__}")
    return clone


def test_the_readme_snippet_installs_and_runs_from_a_clean_clone(tmp_path: Path, tagged_clone: Path, env):
    (tmp_path / ".pre-commit-config.yaml").write_text(
        readme_snippet().replace(README_REPO, tagged_clone.as_posix()), encoding="utf-8")
    (tmp_path / "train.py").write_text(HAZARD, encoding="utf-8")
    (tmp_path / "clean.py").write_text(CLEAN, encoding="utf-8")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    clean = pre_commit(tmp_path, env, "run", "--files", "clean.py")
    assert clean.returncode == 0 and "Passed" in clean.stdout, _describe(clean)
    hazard = pre_commit(tmp_path, env, "run", "--all-files")
    assert hazard.returncode == 1, _describe(hazard)
    assert "train.py:6:" in hazard.stdout and "WSP201" in hazard.stdout and "clean.py" not in hazard.stdout
